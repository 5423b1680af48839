"""The fused optimizer steps MXNet's optimizers call: ``sgd_update``, ``adam_update``, ...

Each takes the weight, the gradient and the optimizer's states, returns the new weight,
and updates the states in place (MXNet's "mutable inputs").  Here the states are the
operator's auxiliary states (``aux``): the one way the registry lets an operator write into
arrays it is given, as BatchNorm does with its moving statistics.  So

* ``mx.nd.sgd_mom_update(weight, grad, mom, lr=0.1, momentum=0.9, out=weight)`` runs as in
  MXNet: positional arrays fill the inputs (weight, grad) and then the states (mom) in
  MXNet's order, ``mom`` is updated in place and the new weight lands in ``out``;
* in a symbol the states are auxiliary states (``list_auxiliary_states``), which is what
  NNVM makes of mutable inputs.  (MXNet 1.9.1 itself refuses to put these operators in a
  symbol: "Not enough argument to call operator sgd_update"; reflib allows it.)

The gradient is first ``rescale_grad * grad`` and then clipped to ``[-c, c]`` when the
clip bound ``c`` is ``>= 0``: a bound of 0 clips every gradient to 0, only a negative one
turns clipping off (as in MXNet, whose help text says "<= 0 turns it off").  Where the
weight decay term joins (before or after clipping) differs between operators, as in MXNet.
The ``mp_`` variants keep a float32 master copy ``weight32`` of a float16 weight: the step
runs on it in float32 and the output is its value in the weight's dtype.

There is no gradient through an update.  Scalars meet arrays as ``dtype.type(v)``: a
float32 step is float32 arithmetic throughout, as MXNet's kernels.

AdamW (``_adamw_update``, ``_mp_adamw_update``, mx.nd.contrib.adamw_update) is Adam with the
weight decay taken out of the gradient and applied to the weight directly, everything scaled
by the schedule multiplier ``eta``; its ``rescale_grad`` is an array, read on the device, and a
step whose ``rescale_grad`` is 0, NaN or infinite changes nothing, as in MXNet.

Each class's ``apply`` is one weight's whole step; the multi-weight operators
(multi_update.py) call it once per weight.
"""

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape
from .common import shape_str
from ..base import ShapeError, TypeInferError

_RATE = {'lr': Param('float', doc='learning rate')}
_DECAY = {
    'wd': Param('float', 0.0, doc='weight decay'),
    'rescale_grad': Param('float', 1.0, doc='the gradient is multiplied by this first'),
    'clip_gradient': Param('float', -1.0, doc='clip the gradient to [-c, c]; negative: no clipping'),
}
_LAZY = {'lazy_update': Param('bool', True, doc='with a row_sparse gradient, update only its rows (the '
                                                  "gradient's sparse form, mx.nd.sparse; these kernels are dense)")}


def _scalar(value, like):
    """``value`` as a scalar of ``like``'s dtype: a number from the parameters, or a 0-d array
    where the value lives on the device (preloaded_multi_sgd_update's rates, AdamW's
    rescale_grad), cast there with no trip to the host."""
    if isinstance(value, (int, float, np.number)):
        return like.dtype.type(value)
    return value.astype(like.dtype)


def _clip(xp, g, bound):
    """``g`` clipped to [-bound, bound]; a negative bound leaves it as it is."""
    if bound < 0:
        return g
    b = g.dtype.type(bound)
    return xp.clip(g, -b, b)


class _Update(Operator):
    """Shared by all: names, shapes, types, checks; subclasses write ``step``."""
    args = ('weight', 'grad')     # read only
    states = ()                   # updated in place (aux states)
    mixed = False                 # mp_ variant: a float32 'weight32' master copy as the last state
    writes_master = True          # the mp_ step stores the new weight into weight32
    output_is_weight = True       # False: the output is not a new weight (lamb phase 1)
    small = ()                    # inputs of shape (1,) (lamb phase 2's norms)
    scalars = ()                  # float32 inputs of any shape whose first value counts (AdamW's
    #                               rescale_grad); MXNet takes them after the states

    def inputs(self, p):
        return list(self.args)

    def aux(self, p):
        return list(self.states) + (['weight32'] if self.mixed else [])

    def names(self, p):
        return self.inputs(p) + self.aux(p)

    # ---------------------------------------------------------------- inference
    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        names = self.names(p)
        shapes = list(in_shapes) + list(aux_shapes)
        known = out_shapes[0]
        for name, shape in zip(names, shapes):
            if name not in self.small and name not in self.scalars:
                known = merge_shape(known, shape, "%s (input %r)" % (self.name, name))
        for name, shape in zip(names, shapes):
            if name in self.small:
                merge_shape((1,), shape, "%s (input %r)" % (self.name, name))
        full = [(1,) if n in self.small else (shape or (1,)) if n in self.scalars else known
                for n, shape in zip(names, shapes)]
        n_in = len(in_shapes)
        return full[:n_in], [known], full[n_in:]

    def _dtypes(self, p, weight_dtype):
        """The dtype of every input and of the output, given the weight's."""
        f32 = np.dtype(np.float32)
        if not self.mixed:
            return [f32 if n in self.scalars else weight_dtype for n in self.names(p)], weight_dtype
        kinds = [weight_dtype if (n == 'weight' or (n == 'grad' and self.args[1] == 'grad')) else f32
                 for n in self.names(p)]
        return kinds, (weight_dtype if self.output_is_weight else f32)

    def infer_type(self, p, in_types, out_types, aux_types):
        weight = in_types[0]
        if weight is None:
            return in_types, out_types, aux_types
        want, out = self._dtypes(p, np.dtype(weight))
        given = list(in_types) + list(aux_types)
        for name, have, need in zip(self.names(p), given, want):
            if have is not None and np.dtype(have) != need:
                raise TypeInferError('%s: input %r must be %s, got %s'
                                     % (self.name, name, need.name, np.dtype(have).name))
        n_in = len(in_types)
        return want[:n_in], [out], want[n_in:]

    def check(self, p, named):
        """Shapes and dtypes at run time (mx.nd calls skip inference)."""
        weight = named['weight']
        want, _ = self._dtypes(p, weight.dtype)
        for name, dtype in zip(self.names(p), want):
            x = named[name]
            if name in self.scalars:
                if x.size == 0:
                    raise ShapeError('%s: input %r must hold a value, got shape %s'
                                     % (self.name, name, shape_str(x.shape)))
            else:
                shape = (1,) if name in self.small else weight.shape
                if tuple(x.shape) != tuple(shape):
                    raise ShapeError('%s: input %r must have shape %s, got %s'
                                     % (self.name, name, shape_str(shape), shape_str(x.shape)))
            if x.dtype != dtype:
                raise TypeInferError('%s: input %r must be %s, got %s' % (self.name, name, dtype.name, x.dtype.name))

    # ---------------------------------------------------------------- computation
    def forward(self, p, env, inputs, aux):
        return [self.apply(p, env.xp, dict(zip(self.names(p), list(inputs) + list(aux))))]

    def apply(self, p, xp, named):
        """One weight's step on the arrays ``named`` (by input name): checked, run by ``step``
        (on the float32 master copy for an mp_ variant), states written in place; returns the
        output.  The multi-weight operators (multi_update.py) call it once per weight."""
        self.check(p, named)
        weight = named['weight']
        if self.mixed:
            named = dict(named, weight=named['weight32'])
            if self.args[1] == 'grad':
                named['grad'] = named['grad'].astype(np.float32)
        out = self.step(p, xp, named)
        if self.mixed and self.output_is_weight:
            if self.writes_master:
                named['weight32'][...] = out
            out = out.astype(weight.dtype)
        return out

    def step(self, p, xp, s):
        """The new weight (or lamb's direction) from the named arrays ``s``; states in place."""
        raise NotImplementedError

    def rescaled(self, p, xp, s, bound=None):
        """``clip(rescale_grad * grad)``."""
        g = s['grad']
        g = g * g.dtype.type(p.rescale_grad)
        return _clip(xp, g, p.clip_gradient if bound is None else bound)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        raise TypeError('%s: an optimizer update has no gradient' % self.name)


# ================================================================ SGD family
@register
class SgdUpdate(_Update):
    """``weight = (1 - lr wd) weight - lr clip(rescale_grad grad)``."""
    name = 'sgd_update'
    params = dict(_RATE, **_DECAY, **_LAZY)

    def step(self, p, xp, s):
        w = s['weight']
        lr, wd = _scalar(p.lr, w), _scalar(p.wd, w)
        return (w.dtype.type(1) - lr * wd) * w - lr * self.rescaled(p, xp, s)


@register
class SgdMomUpdate(_Update):
    """``mom = momentum mom - lr wd weight - lr clip(rescale_grad grad)``; ``weight += mom``."""
    name = 'sgd_mom_update'
    states = ('mom',)
    params = dict(_RATE, momentum=Param('float', 0.0, doc='momentum'), **_DECAY, **_LAZY)

    def step(self, p, xp, s):
        w, mom = s['weight'], s['mom']
        lr, wd = _scalar(p.lr, w), _scalar(p.wd, w)
        mom[...] = w.dtype.type(p.momentum) * mom - lr * wd * w - lr * self.rescaled(p, xp, s)
        return w + mom


@register
class MpSgdUpdate(SgdUpdate):
    """sgd_update on a float32 master copy of a float16 weight."""
    name = 'mp_sgd_update'
    mixed = True


@register
class MpSgdMomUpdate(SgdMomUpdate):
    """sgd_mom_update on a float32 master copy of a float16 weight."""
    name = 'mp_sgd_mom_update'
    mixed = True


@register
class NagMomUpdate(_Update):
    """Nesterov momentum as MXNet 1.9.1's kernel computes it: ``g = clip(rescale_grad grad) +
    wd weight``, ``mom = momentum mom - lr g``, ``weight += momentum mom - lr g``.  (Its Python
    NAG optimizer writes the same step with ``mom`` not scaled by lr; the operator's is.)"""
    name = 'nag_mom_update'
    states = ('mom',)
    params = dict(_RATE, momentum=Param('float', 0.0, doc='momentum'), **_DECAY)

    def step(self, p, xp, s):
        w, mom = s['weight'], s['mom']
        f = w.dtype.type
        step = f(p.lr) * (self.rescaled(p, xp, s) + f(p.wd) * w)
        mom[...] = f(p.momentum) * mom - step
        return w + f(p.momentum) * mom - step


@register
class MpNagMomUpdate(NagMomUpdate):
    """nag_mom_update on a float32 master copy of a float16 weight.

    The new weight is nag_mom_update's, but the ``mom`` MXNet 1.9.1 stores is not the one that
    weight was computed with: its weight-decay term uses the *new* weight32 (the kernel reads
    weight32 back after writing it), so ``mom = momentum mom - lr (clip(rescale_grad grad) +
    wd weight32_new)``.  Reproduced here: it changes the next step.
    """
    name = 'mp_nag_mom_update'
    mixed = True

    def step(self, p, xp, s):
        w, mom = s['weight'], s['mom']
        f = w.dtype.type
        old_mom = mom.copy()
        new = NagMomUpdate.step(self, p, xp, s)
        mom[...] = f(p.momentum) * old_mom - f(p.lr) * (self.rescaled(p, xp, s) + f(p.wd) * new)
        return new


# ================================================================ adaptive
def _decayed_grad(p, xp, s, bound):
    """``clip(rescale_grad grad + wd weight)``: the decay joins before clipping (adam, rmsprop, ftml)."""
    w, g = s['weight'], s['grad']
    f = w.dtype.type
    return _clip(xp, g * f(p.rescale_grad) + f(p.wd) * w, bound)


def _moments(p, mean, var, g):
    """The new moving averages of ``g`` and ``g^2`` (Adam's, AdamW's, LAMB's), not stored:
    AdamW may skip its step."""
    f = mean.dtype.type
    b1, b2 = f(p.beta1), f(p.beta2)
    return b1 * mean + (f(1) - b1) * g, b2 * var + (f(1) - b2) * g * g


def _adam_step(xp, p, mean, var):
    """``lr mean / (sqrt(var) + epsilon)``: Adam's step (AdamW adds its decay to it)."""
    f = mean.dtype.type
    return f(p.lr) * mean / (xp.sqrt(var) + f(p.epsilon))


@register
class AdamUpdate(_Update):
    """``mean``/``var`` moving averages of g and g^2, ``weight -= lr mean / (sqrt(var) + epsilon)``
    with ``g = clip(rescale_grad grad + wd weight)``; no bias correction (the optimizer folds it
    into lr)."""
    name = 'adam_update'
    states = ('mean', 'var')
    params = dict(_RATE, beta1=Param('float', 0.9), beta2=Param('float', 0.999),
                  epsilon=Param('float', 1e-8), **_DECAY, **_LAZY)

    def step(self, p, xp, s):
        w, mean, var = s['weight'], s['mean'], s['var']
        mean[...], var[...] = _moments(p, mean, var, _decayed_grad(p, xp, s, p.clip_gradient))
        return w - _adam_step(xp, p, mean, var)


def _counts(xp, rescale_grad):
    """Whether an AdamW step counts (a 0-d bool on the device): MXNet skips the step whose
    rescale_grad, the first value of its array, is 0, NaN or infinite."""
    scale = rescale_grad.reshape(-1)[0]
    return xp.isfinite(scale) & (scale != 0)


class _AdamW(_Update):
    """What _adamw_update and _mp_adamw_update share: with ``g = clip(rescale_grad grad)``,
    Adam's ``mean`` and ``var``, then ``weight -= eta (lr mean / (sqrt(var) + epsilon) + wd
    weight)``.  ``rescale_grad`` is an array (float32, any shape; its first value counts):
    where it is 0, NaN or infinite nothing changes and the output is the weight as given."""
    args = ('weight', 'grad', 'rescale_grad')
    states = ('mean', 'var')
    scalars = ('rescale_grad',)

    def input_order(self, p):
        # MXNet takes rescale_grad after the states: weight, grad, mean, var[, weight32], rescale_grad
        return [n for n in self.args if n not in self.scalars] + self.aux(p) + list(self.scalars)

    # in MXNet's order (wd before eta), the order positional parameters fill
    params = {'lr': _RATE['lr'], 'beta1': Param('float', 0.9), 'beta2': Param('float', 0.999),
              'epsilon': Param('float', 1e-8), 'wd': _DECAY['wd'],
              'eta': Param('float', doc='the learning-rate schedule multiplier'),
              'clip_gradient': _DECAY['clip_gradient']}

    def apply(self, p, xp, named):
        out = super().apply(p, xp, named)
        return xp.where(_counts(xp, named['rescale_grad']), out, named['weight'])

    def step(self, p, xp, s):
        w, mean, var = s['weight'], s['mean'], s['var']
        rescale = s['rescale_grad']
        counts = _counts(xp, rescale)
        f = w.dtype.type
        # a step that does not count may make NaNs and infinities: they are dropped below
        with np.errstate(invalid='ignore', divide='ignore', over='ignore'):
            g = _clip(xp, s['grad'] * _scalar(rescale.reshape(-1)[0], w), p.clip_gradient)
            new_mean, new_var = _moments(p, mean, var, g)
            new = w - f(p.eta) * (_adam_step(xp, p, new_mean, new_var) + f(p.wd) * w)
        mean[...] = xp.where(counts, new_mean, mean)
        var[...] = xp.where(counts, new_var, var)
        return xp.where(counts, new, w)


@register
class AdamWUpdate(_AdamW):
    """AdamW's step (mx.nd.contrib.adamw_update): ``g = clip(rescale_grad grad)``, ``mean``
    and ``var`` Adam's moving averages of g and g^2 (in place), ``weight -= eta (lr mean /
    (sqrt(var) + epsilon) + wd weight)``.  ``rescale_grad`` is an array; a step whose value is
    0, NaN or infinite changes nothing.  (MXNet 1.9.1's kernel also writes ``clip(rescale_grad
    grad)`` back into ``grad``, an input it does not declare as written; reflib leaves ``grad``
    as it was.)"""
    name = '_adamw_update'


@register
class MpAdamWUpdate(_AdamW):
    """_adamw_update on a float32 master copy ``weight32`` of a float16 weight: the step runs
    in float32, ``weight32`` keeps it and the output is it rounded to the weight's dtype."""
    name = '_mp_adamw_update'
    mixed = True


_RMS = dict(_RATE, gamma1=Param('float', 0.95, doc='decay of the squared-gradient average'),
            epsilon=Param('float', 1e-8), **_DECAY,
            clip_weights=Param('float', -1.0, doc='clip the new weight to [-c, c]; negative: no clipping'))


@register
class RmspropUpdate(_Update):
    """``n = (1 - gamma1) g^2 + gamma1 n``, ``weight -= lr g / sqrt(n + epsilon)``."""
    name = 'rmsprop_update'
    states = ('n',)
    params = dict(_RMS)

    def step(self, p, xp, s):
        w, n = s['weight'], s['n']
        f = w.dtype.type
        g = _decayed_grad(p, xp, s, p.clip_gradient)
        n[...] = (f(1) - f(p.gamma1)) * g * g + f(p.gamma1) * n
        return _clip(xp, w - f(p.lr) * (g / xp.sqrt(n + f(p.epsilon))), p.clip_weights)


@register
class RmspropalexUpdate(_Update):
    """Graves' RMSProp: averages ``n`` of g^2 and ``g`` of g, and a momentum ``delta``:
    ``delta = gamma2 delta - lr grad / sqrt(n - g^2 + epsilon)``, ``weight += delta``."""
    name = 'rmspropalex_update'
    states = ('n', 'g', 'delta')
    # in MXNet's order (gamma2 right after gamma1), the order positional parameters fill
    params = dict(lr=_RMS['lr'], gamma1=_RMS['gamma1'], gamma2=Param('float', 0.9, doc='momentum of delta'),
                  **{k: v for k, v in _RMS.items() if k not in ('lr', 'gamma1')})

    def step(self, p, xp, s):
        w, n, avg, delta = s['weight'], s['n'], s['g'], s['delta']
        f = w.dtype.type
        g = _decayed_grad(p, xp, s, p.clip_gradient)
        n[...] = (f(1) - f(p.gamma1)) * g * g + f(p.gamma1) * n
        avg[...] = (f(1) - f(p.gamma1)) * g + f(p.gamma1) * avg
        delta[...] = f(p.gamma2) * delta - f(p.lr) * (g / xp.sqrt(n - avg * avg + f(p.epsilon)))
        return _clip(xp, w + delta, p.clip_weights)


@register
class FtrlUpdate(_Update):
    """Follow the regularized leader: accumulators ``z`` and ``n``; the weight is their closed
    form, 0 wherever ``|z| <= lamda1``."""
    name = 'ftrl_update'
    states = ('z', 'n')
    params = dict(_RATE, lamda1=Param('float', 0.01, doc='L1 strength'),
                  beta=Param('float', 1.0), **_DECAY)

    def step(self, p, xp, s):
        w, z, n = s['weight'], s['z'], s['n']
        f = w.dtype.type
        g = self.rescaled(p, xp, s)
        z[...] = z + g - (xp.sqrt(n + g * g) - xp.sqrt(n)) * w / f(p.lr)
        n[...] = n + g * g
        new = (xp.sign(z) * f(p.lamda1) - z) / ((f(p.beta) + xp.sqrt(n)) / f(p.lr) + f(p.wd))
        return new * (xp.abs(z) > f(p.lamda1))


@register
class FtmlUpdate(_Update):
    """Follow the moving leader (step ``t``): states ``d``, ``v`` (average of g^2) and ``z``;
    the new weight is ``-z / d``."""
    name = 'ftml_update'
    states = ('d', 'v', 'z')
    params = dict(_RATE, beta1=Param('float', 0.6), beta2=Param('float', 0.999),
                  epsilon=Param('float', 1e-8), t=Param('int', doc='the step number, from 1'),
                  wd=_DECAY['wd'], rescale_grad=_DECAY['rescale_grad'],
                  clip_grad=Param('float', -1.0, doc='clip the gradient to [-c, c]; negative: no clipping'))

    def step(self, p, xp, s):
        w, d, v, z = s['weight'], s['d'], s['v'], s['z']
        f = w.dtype.type
        b1, b2 = f(p.beta1), f(p.beta2)
        g = _decayed_grad(p, xp, s, p.clip_grad)
        v[...] = b2 * v + (f(1) - b2) * g * g
        d_t = (f(1) - b1 ** p.t) / f(p.lr) * (xp.sqrt(v / (f(1) - b2 ** p.t)) + f(p.epsilon))
        z[...] = b1 * z + (f(1) - b1) * g - (d_t - b1 * d) * w
        d[...] = d_t
        return -z / d_t


# ================================================================ sign-based
@register
class SignsgdUpdate(_Update):
    """``weight = (1 - lr wd) weight - lr sign(clip(rescale_grad grad))``."""
    name = 'signsgd_update'
    params = dict(_RATE, **_DECAY)

    def step(self, p, xp, s):
        w = s['weight']
        f = w.dtype.type
        return (f(1) - f(p.lr) * f(p.wd)) * w - f(p.lr) * xp.sign(self.rescaled(p, xp, s))


@register
class SignumUpdate(_Update):
    """``mom = momentum mom - (1 - momentum)(wd weight + clip(rescale_grad grad))``,
    ``weight = (1 - lr wd_lh) weight + lr sign(mom)``."""
    name = 'signum_update'
    states = ('mom',)
    params = dict(_RATE, momentum=Param('float', 0.0), **_DECAY,
                  wd_lh=Param('float', 0.0, doc='decoupled weight decay'))

    def step(self, p, xp, s):
        w, mom = s['weight'], s['mom']
        f = w.dtype.type
        rest = f(1) - f(p.momentum)
        mom[...] = f(p.momentum) * mom - rest * f(p.wd) * w - rest * self.rescaled(p, xp, s)
        return (f(1) - f(p.lr) * f(p.wd_lh)) * w + f(p.lr) * xp.sign(mom)


# ================================================================ LAMB
@register
class LambUpdatePhase1(_Update):
    """LAMB's direction ``g = mean^ / (sqrt(var^) + epsilon) + wd weight`` (^: bias-corrected
    for step ``t`` unless ``bias_correction`` is off); ``mean`` and ``var`` in place.  The output
    is ``g``, not a weight."""
    name = 'lamb_update_phase1'
    states = ('mean', 'var')
    output_is_weight = False
    params = {'beta1': Param('float', 0.9), 'beta2': Param('float', 0.999),
              'epsilon': Param('float', 1e-6), 't': Param('int', doc='the step number, from 1'),
              'bias_correction': Param('bool', True), 'wd': Param('float', doc='weight decay'),
              'rescale_grad': _DECAY['rescale_grad'], 'clip_gradient': _DECAY['clip_gradient']}

    def step(self, p, xp, s):
        w, mean, var = s['weight'], s['mean'], s['var']
        f = w.dtype.type
        b1, b2 = f(p.beta1), f(p.beta2)
        mean[...], var[...] = _moments(p, mean, var, self.rescaled(p, xp, s))
        m, v = mean, var
        if p.bias_correction:
            m, v = mean / (f(1) - b1 ** p.t), var / (f(1) - b2 ** p.t)
        return m / (xp.sqrt(v) + f(p.epsilon)) + f(p.wd) * w


@register
class MpLambUpdatePhase1(LambUpdatePhase1):
    """lamb_update_phase1 with the float32 master copy as the weight; the output is float32."""
    name = 'mp_lamb_update_phase1'
    mixed = True


@register
class LambUpdatePhase2(_Update):
    """``weight -= lr (r1 / r2) g`` with the norms ``r1`` (of the weight, clamped to
    [lower_bound, upper_bound] where they are >= 0) and ``r2`` (of g); ratio 1 if either is 0."""
    name = 'lamb_update_phase2'
    args = ('weight', 'g', 'r1', 'r2')
    small = ('r1', 'r2')
    params = dict(_RATE, lower_bound=Param('float', -1.0, doc='lowest r1; negative: none'),
                  upper_bound=Param('float', -1.0, doc='highest r1; negative: none'))

    def step(self, p, xp, s):
        w, g, r1, r2 = s['weight'], s['g'], s['r1'], s['r2']
        f = w.dtype.type
        if p.lower_bound >= 0:
            r1 = xp.maximum(r1, f(p.lower_bound))
        if p.upper_bound >= 0:
            r1 = xp.minimum(r1, f(p.upper_bound))
        ratio = xp.where((r1 == 0) | (r2 == 0), f(1), r1 / xp.where(r2 == 0, f(1), r2))
        return w - f(p.lr) * ratio * g


@register
class MpLambUpdatePhase2(LambUpdatePhase2):
    """lamb_update_phase2 on the float32 master copy; MXNet 1.9.1 leaves weight32 itself as it was."""
    name = 'mp_lamb_update_phase2'
    mixed = True
    writes_master = False
