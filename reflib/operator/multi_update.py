"""The multi-weight optimizer steps: one call updates ``num_weights`` weights.

MXNet's optimizers hand their weights over in groups (``aggregate_num`` of them) to these
operators, one fused kernel per group.  The inputs come interleaved, weight by weight, in
MXNet's order: ``multi_sgd_mom_update(weight_0, grad_0, mom_0, weight_1, grad_1, mom_1, ...,
num_weights=2, lrs=(...), wds=(...))``, each weight with its own learning rate and weight decay
(tuples of floats, one value per weight).  The ``preloaded_`` forms take those two as arrays
after the last weight (``lrs``, ``wds``: float32, one value per weight, read on the device), and
the AdamW ones one ``rescale_grad`` array shared by all the weights.  The outputs are the new
weights; the states (``mom``, ``mean``, ``var``, the float32 master copies ``weight32``) are
updated in place, as the one-weight operators do it: here they are auxiliary states too, and
the front ends put the arrays given in MXNet's order where they belong (``input_order``).

Each weight's step is the one-weight operator's own (update.py), called with that weight's
parameters: a formula is written once.  MXNet's fused kernels write a few of those formulas
with their operations in another order (``w - lr wd w - lr g`` where sgd_update has ``(1 - lr
wd) w - lr g``), so the two agree to rounding, not bit for bit.

``out=`` takes the list of ``num_weights`` arrays the new weights go to, normally the weights
themselves (MXNet 1.9.1 fails without it; reflib returns new arrays then).  ``num_weights`` is
counted from the arrays when a call leaves it out (MXNet would take its default, 1).

Also here: ``multi_sum_sq`` (the sum of squares of each of several arrays) and ``multi_lars``
(LARS's per-weight learning rates from such sums), which MXNet's LARS optimizer strings
together, and ``_multi_lamb_update``, which is LAMB's two phases with those sums between them.
"""

import contextlib

import numpy as np

from .registry import Operator, Param, Params, get, register
from .common import shape_str
from ..base import ParamError, ShapeError, TypeInferError
from ..shapes import merge_shape

_F32 = np.dtype(np.float32)


def _rates(doc):
    return Param('floats', doc=doc + ', one per weight')


_CLIP = Param('float', -1.0, doc='clip the gradient to [-c, c]; negative: no clipping')
_RESCALE = Param('float', 1.0, doc='the gradient is multiplied by this first')
_MOMENTUM = Param('float', 0.0, doc='momentum')


class _MultiUpdate(Operator):
    """``count`` weights, each updated by the one-weight operator ``single`` (update.py) with
    its own parameters: the ``per_weight`` tuples give each weight's value of the single
    operator's parameter they map to, the other parameters are shared."""
    single = None            # the one-weight operator's name
    count = key_var_num_args = 'num_weights'     # the parameter that says how many weights
    per_weight = {}          # tuple parameter -> the single operator's parameter it gives each weight
    group_args = None        # each weight's read-only inputs; None: the single operator's
    group_states = None      # each weight's states, updated in place; None: the single operator's
    trailing = ()            # inputs after the last weight (the preloaded rates, AdamW's rescale_grad)
    differentiable = False
    eliminable = False       # two calls are two steps

    @property
    def single_op(self):
        """The one-weight operator each weight's step is."""
        return get(self.single)

    def var_num_args_for(self, n_inputs):
        group = self._group_names()
        weights, left = divmod(n_inputs - len(self.trailing), len(group))
        if left or weights < 1:
            then = ' and then %s' % ', '.join(self.trailing) if self.trailing else ''
            raise ParamError('%s: %d inputs are not %d per weight (%s)%s; pass %s, or inputs that are'
                             % (self.name, n_inputs, len(group), ', '.join(group), then, self.count))
        return weights

    # ---------------------------------------------------------------- params
    def parse_params(self, raw):
        p = super().parse_params(raw)
        n = getattr(p, self.count)
        for key in self.per_weight:
            have = len(getattr(p, key))
            if have != n:
                raise ParamError('%s: parameter %r has %d value%s, but %s=%d: it needs one per weight'
                                 % (self.name, key, have, '' if have == 1 else 's', self.count, n))
        return p

    def weight_params(self, p, i, arrays=None):
        """The single operator's parameters for weight ``i``: its defaults, the shared values
        given here, and weight ``i``'s own from the tuples (``arrays``: the call's arrays by
        name, for the forms whose rates are arrays)."""
        values = {k: spec.default for k, spec in self.single_op.params.items()}
        values.update((k, v) for k, v in vars(p).items() if k in values)
        values.update((theirs, getattr(p, ours)[i]) for ours, theirs in self.per_weight.items())
        return Params(values)

    # ---------------------------------------------------------------- structure
    def _group_args(self):
        return list(self.single_op.args if self.group_args is None else self.group_args)

    def _group_states(self):
        if self.group_states is not None:
            return list(self.group_states)
        return list(self.single_op.states) + (['weight32'] if self.single_op.mixed else [])

    def _group_names(self):
        return self._group_args() + self._group_states()

    def _weights(self, p):
        return range(getattr(p, self.count))

    def _numbered(self, p, names):
        return ['%s_%d' % (n, i) for i in self._weights(p) for n in names]

    def inputs(self, p):
        return self._numbered(p, self._group_args()) + list(self.trailing)

    def aux(self, p):
        return self._numbered(p, self._group_states())

    def input_order(self, p):
        return self._numbered(p, self._group_names()) + list(self.trailing)

    def outputs(self, p):
        return ['output%d' % i for i in self._weights(p)]

    def _own_name(self, name, i):
        """Weight ``i``'s input of the single operator's input ``name``: ``mom`` -> ``mom_1``; a
        trailing input (``rescale_grad``) is every weight's."""
        return name if name in self.trailing else '%s_%d' % (name, i)

    @contextlib.contextmanager
    def _about(self, i):
        """Errors of weight ``i``'s step name this operator and the weight."""
        try:
            yield
        except (ShapeError, TypeInferError) as err:
            raise type(err)('%s, weight %d (inputs %s): %s' % (
                self.name, i, ', '.join('%s_%d' % (n, i) for n in self._group_names()), err)) from None

    # ---------------------------------------------------------------- inference
    def _own_names(self, q, i):
        """Weight ``i``'s inputs and states, as the single operator lists them (parameters ``q``)."""
        one = self.single_op
        return [self._own_name(n, i) for n in one.inputs(q)], [self._own_name(n, i) for n in one.aux(q)]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        shapes = dict(zip(self.inputs(p), in_shapes))
        shapes.update(zip(self.aux(p), aux_shapes))
        outs = list(out_shapes)
        self._infer_trailing_shapes(p, shapes)
        for i in self._weights(p):
            q = self.weight_params(p, i)
            own, own_aux = self._own_names(q, i)
            with self._about(i):
                ins, (outs[i],), auxs = self.single_op.infer_shape(
                    q, [shapes[n] for n in own], [outs[i]], [shapes[n] for n in own_aux])
            shapes.update(zip(own + own_aux, list(ins) + list(auxs)))
        return [shapes[n] for n in self.inputs(p)], outs, [shapes[n] for n in self.aux(p)]

    def _infer_trailing_shapes(self, p, shapes):
        """Fill in the shapes of the inputs after the last weight (none by default)."""

    def infer_type(self, p, in_types, out_types, aux_types):
        types = dict(zip(self.inputs(p), in_types))
        types.update(zip(self.aux(p), aux_types))
        outs = list(out_types)
        first = None                 # (name, dtype) of the first weight whose dtype is known
        for i in self._weights(p):
            q = self.weight_params(p, i)
            own, own_aux = self._own_names(q, i)
            with self._about(i):
                ins, _, auxs = self.single_op.infer_type(q, [types[n] for n in own], [None],
                                                         [types[n] for n in own_aux])
            types.update(zip(own + own_aux, list(ins) + list(auxs)))
            weight = types['weight_%d' % i]
            if weight is None:
                continue
            # one kernel runs the whole call in one dtype: MXNet refuses weights of others
            first = first or ('weight_%d' % i, np.dtype(weight))
            if np.dtype(weight) != first[1]:
                raise TypeInferError('%s: input weight_%d is %s, but %s is %s: every weight of one call must '
                                     'have the same dtype' % (self.name, i, np.dtype(weight).name, *first))
            outs[i] = weight          # the new weight, in the weight's dtype (mp_: float16)
        self._infer_trailing_types(p, types)
        return [types[n] for n in self.inputs(p)], outs, [types[n] for n in self.aux(p)]

    def _infer_trailing_types(self, p, types):
        """Fill in the dtypes of the inputs after the last weight (none by default)."""

    # ---------------------------------------------------------------- computation
    def forward(self, p, env, inputs, aux):
        arrays = dict(zip(self.inputs(p), inputs))
        arrays.update(zip(self.aux(p), aux))
        self._check_trailing(p, arrays)
        outs = []
        for i in self._weights(p):
            q = self.weight_params(p, i, arrays)
            named = {n: arrays[self._own_name(n, i)] for n in self.single_op.names(q)}
            with self._about(i):
                outs.append(self.step(q, env.xp, named))
        return outs

    def _check_trailing(self, p, arrays):
        """Check the inputs after the last weight (none by default)."""

    def step(self, q, xp, named):
        """One weight's step (parameters ``q``, arrays ``named`` by the single operator's input
        names): the single operator's."""
        return self.single_op.apply(q, xp, named)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        raise TypeError('%s: an optimizer update has no gradient' % self.name)


# ================================================================ SGD
_SGD = {'lrs': _rates('learning rates'), 'wds': _rates('weight decays'),
        'rescale_grad': _RESCALE, 'clip_gradient': _CLIP,
        'num_weights': Param('int', 1, doc='how many weights', low=1)}
_SGD_MOM = {'lrs': _SGD['lrs'], 'wds': _SGD['wds'], 'momentum': _MOMENTUM,
            **{k: _SGD[k] for k in ('rescale_grad', 'clip_gradient', 'num_weights')}}


@register
class MultiSgdUpdate(_MultiUpdate):
    """sgd_update on each of ``num_weights`` weights: inputs ``weight_i, grad_i`` for each,
    ``lrs`` and ``wds`` one value per weight; the outputs are the new weights."""
    name = 'multi_sgd_update'
    single = 'sgd_update'
    per_weight = {'lrs': 'lr', 'wds': 'wd'}
    params = dict(_SGD)


@register
class MultiSgdMomUpdate(_MultiUpdate):
    """sgd_mom_update on each of ``num_weights`` weights: inputs ``weight_i, grad_i, mom_i``
    (``mom_i`` updated in place); the outputs are the new weights."""
    name = 'multi_sgd_mom_update'
    single = 'sgd_mom_update'
    per_weight = {'lrs': 'lr', 'wds': 'wd'}
    params = dict(_SGD_MOM)


@register
class MultiMpSgdUpdate(_MultiUpdate):
    """mp_sgd_update on each of ``num_weights`` float16 weights: inputs ``weight_i, grad_i,
    weight32_i`` (the float32 master copy, updated in place)."""
    name = 'multi_mp_sgd_update'
    single = 'mp_sgd_update'
    per_weight = {'lrs': 'lr', 'wds': 'wd'}
    params = dict(_SGD)


@register
class MultiMpSgdMomUpdate(_MultiUpdate):
    """mp_sgd_mom_update on each of ``num_weights`` float16 weights: inputs ``weight_i, grad_i,
    mom_i, weight32_i`` (``mom_i`` and the float32 master copy updated in place)."""
    name = 'multi_mp_sgd_mom_update'
    single = 'mp_sgd_mom_update'
    per_weight = {'lrs': 'lr', 'wds': 'wd'}
    params = dict(_SGD_MOM)


class _Preloaded(_MultiUpdate):
    """The learning rates and weight decays come as two arrays after the last weight, ``lrs``
    and ``wds`` (float32, one value per weight: ``num_weights`` values in any shape), read on
    the device: an optimizer that keeps them there does not wait for the host each step."""
    trailing = ('lrs', 'wds')

    def weight_params(self, p, i, arrays=None):
        q = super().weight_params(p, i)
        if arrays is None:               # shape and type inference: the rates do not matter
            q.lr, q.wd = 0.0, 0.0
        else:                            # 0-d arrays on the device, read there
            q.lr, q.wd = arrays['lrs'].reshape(-1)[i], arrays['wds'].reshape(-1)[i]
        return q

    def _infer_trailing_shapes(self, p, shapes):
        n = getattr(p, self.count)
        for name in self.trailing:
            shape = shapes[name]
            if shape is None:
                shapes[name] = (n,)
            elif int(np.prod(shape)) != n:
                raise ShapeError('%s: input %r must hold one value per weight (%s=%d), got shape %s'
                                 % (self.name, name, self.count, n, shape_str(shape)))

    def _infer_trailing_types(self, p, types):
        for name in self.trailing:
            if types[name] is not None and np.dtype(types[name]) != _F32:
                raise TypeInferError('%s: input %r must be float32, got %s'
                                     % (self.name, name, np.dtype(types[name]).name))
            types[name] = _F32

    def _check_trailing(self, p, arrays):
        self._infer_trailing_shapes(p, {n: tuple(arrays[n].shape) for n in self.trailing})
        self._infer_trailing_types(p, {n: arrays[n].dtype for n in self.trailing})


_PRELOADED = {k: _SGD[k] for k in ('rescale_grad', 'clip_gradient', 'num_weights')}


@register
class PreloadedMultiSgdUpdate(_Preloaded):
    """multi_sgd_update with the rates as arrays: inputs ``weight_i, grad_i`` for each weight,
    then ``lrs`` and ``wds``."""
    name = 'preloaded_multi_sgd_update'
    single = 'sgd_update'
    params = dict(_PRELOADED)


@register
class PreloadedMultiSgdMomUpdate(_Preloaded):
    """multi_sgd_mom_update with the rates as arrays: inputs ``weight_i, grad_i, mom_i`` for
    each weight, then ``lrs`` and ``wds``."""
    name = 'preloaded_multi_sgd_mom_update'
    single = 'sgd_mom_update'
    params = dict(momentum=_MOMENTUM, **_PRELOADED)


@register
class PreloadedMultiMpSgdUpdate(_Preloaded):
    """multi_mp_sgd_update with the rates as arrays: inputs ``weight_i, grad_i, weight32_i``
    for each weight, then ``lrs`` and ``wds``."""
    name = 'preloaded_multi_mp_sgd_update'
    single = 'mp_sgd_update'
    params = dict(_PRELOADED)


@register
class PreloadedMultiMpSgdMomUpdate(_Preloaded):
    """multi_mp_sgd_mom_update with the rates as arrays: inputs ``weight_i, grad_i, mom_i,
    weight32_i`` for each weight, then ``lrs`` and ``wds``."""
    name = 'preloaded_multi_mp_sgd_mom_update'
    single = 'mp_sgd_mom_update'
    params = dict(momentum=_MOMENTUM, **_PRELOADED)


# ================================================================ AdamW
_ADAMW = {'lrs': _rates('learning rates'), 'beta1': Param('float', 0.9), 'beta2': Param('float', 0.999),
          'epsilon': Param('float', 1e-8), 'wds': _rates('weight decays'),
          'etas': _rates('learning-rate schedule multipliers'), 'clip_gradient': _CLIP,
          'num_weights': _SGD['num_weights']}


class _MultiAdamW(_MultiUpdate):
    """AdamW's step (_adamw_update's) on each weight; the one ``rescale_grad`` array after the
    last weight is every weight's, and where its value is 0, NaN or infinite no weight changes."""
    group_args = ('weight', 'grad')
    group_states = ('mean', 'var')
    trailing = ('rescale_grad',)
    per_weight = {'lrs': 'lr', 'wds': 'wd', 'etas': 'eta'}
    params = dict(_ADAMW)


@register
class MultiAdamWUpdate(_MultiAdamW):
    """_adamw_update on each of ``num_weights`` weights (mx.nd.contrib.multi_adamw_update):
    inputs ``weight_i, grad_i, mean_i, var_i`` for each, then ``rescale_grad``."""
    name = '_multi_adamw_update'
    single = '_adamw_update'


@register
class MultiMpAdamWUpdate(_MultiAdamW):
    """_mp_adamw_update on each of ``num_weights`` float16 weights: inputs ``weight_i, grad_i,
    mean_i, var_i, weight32_i`` for each, then ``rescale_grad``."""
    name = '_multi_mp_adamw_update'
    single = '_mp_adamw_update'
    group_states = ('mean', 'var', 'weight32')


# ================================================================ sums of squares, LARS, LAMB
def sum_of_squares(xp, x):
    """``sum(x * x)`` as a 0-d float32 array, as MXNet's multi_sum_sq computes it: each square in
    the array's own dtype (a float16 square of 256 or more is inf), the sum wider (float64 here;
    MXNet adds float32 one by one), then rounded to float32."""
    with np.errstate(over='ignore'):          # the float16 overflow is MXNet's answer too
        squares = x * x
    return squares.astype(np.float64).sum().astype(np.float32)


@register
class MultiSumSq(Operator):
    """The sum of the squares of each of ``num_arrays`` arrays: a float32 vector of
    ``num_arrays`` values (see ``sum_of_squares``).  The arrays may have any shapes, and one
    floating-point dtype."""
    name = 'multi_sum_sq'
    key_var_num_args = 'num_arrays'
    differentiable = False
    params = {'num_arrays': Param('int', doc='how many arrays', low=1)}

    def inputs(self, p):
        return ['array_%d' % i for i in range(p.num_arrays)]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        merge_shape(out_shapes[0], (p.num_arrays,), self.name)
        return list(in_shapes), [(p.num_arrays,)], []

    def infer_type(self, p, in_types, out_types, aux_types):
        known = next((np.dtype(t) for t in in_types if t is not None), None)
        if known is not None and known.kind != 'f':
            raise TypeInferError('%s: the arrays must be floating-point, got %s (as MXNet 1.9.1)'
                                 % (self.name, known.name))
        for i, t in enumerate(in_types):
            if t is not None and np.dtype(t) != known:
                raise TypeInferError('%s: input array_%d is %s, but the first array is %s: all must have one '
                                     'dtype' % (self.name, i, np.dtype(t).name, known.name))
        return [known] * len(in_types), [_F32], []

    def forward(self, p, env, inputs, aux):
        return [env.xp.stack([sum_of_squares(env.xp, x) for x in inputs])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        raise TypeError('%s has no gradient (as in MXNet 1.9.1)' % self.name)


def lars_rates(xp, lrs, weights_sum_sq, grads_sum_sq, wds, eta, eps, rescale_grad):
    """LARS's learning rates: ``lr eta |w| / (|g| rescale_grad + wd |w| + eps)`` where both norms
    are above 0, else ``lr`` (float32 arrays of one shape; the norms from sums of squares)."""
    f = np.float32
    w_norm = xp.sqrt(weights_sum_sq)
    scaled = lrs * f(eta) * w_norm / (xp.sqrt(grads_sum_sq) * f(rescale_grad) + wds * w_norm + f(eps))
    return xp.where((w_norm > 0) & (grads_sum_sq > 0), scaled, lrs)


@register
class MultiLars(Operator):
    """LARS's learning rate for each of several weights (``lars_rates``), from their
    ``lrs``, ``wds`` and the sums of squares of the weights and of the gradients (multi_sum_sq's
    outputs): four float32 arrays of one shape; the output has that shape."""
    name = 'multi_lars'
    differentiable = False
    params = {'eta': Param('float', doc="LARS's eta"), 'eps': Param('float', doc="LARS's eps"),
              'rescale_grad': Param('float', 1.0, doc='the factor the gradients are scaled by')}

    def inputs(self, p):
        return ['lrs', 'weights_sum_sq', 'grads_sum_sq', 'wds']

    def infer_type(self, p, in_types, out_types, aux_types):
        for name, t in zip(self.inputs(p), in_types):
            if t is not None and np.dtype(t) != _F32:
                raise TypeInferError('%s: input %r must be float32, got %s (MXNet 1.9.1 takes float32 '
                                     'only)' % (self.name, name, np.dtype(t).name))
        return [_F32] * 4, [_F32], []

    def forward(self, p, env, inputs, aux):
        lrs, w_sum_sq, g_sum_sq, wds = inputs
        for name, x in zip(self.inputs(p), inputs):
            if x.shape != lrs.shape:
                raise ShapeError('%s: input %r has shape %s, lrs %s: all four must have one shape'
                                 % (self.name, name, shape_str(x.shape), shape_str(lrs.shape)))
        return [lars_rates(env.xp, lrs, w_sum_sq, g_sum_sq, wds, p.eta, p.eps, p.rescale_grad)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        raise TypeError('%s has no gradient (as in MXNet 1.9.1)' % self.name)


_LAMB = {'learning_rates': _rates('learning rates'), 'beta1': Param('float', 0.9),
         'beta2': Param('float', 0.999), 'epsilon': Param('float', 1e-6), 'wds': _rates('weight decays'),
         'rescale_grad': _RESCALE,
         'lower_bound': Param('float', -1.0, doc='the least weight norm of the trust ratio; negative: none'),
         'upper_bound': Param('float', -1.0, doc='the most weight norm of the trust ratio; negative: none'),
         'clip_gradient': _CLIP, 'bias_correction': Param('bool', True),
         'step_count': Param('shape', doc='the step number of each weight, from 1'),
         'num_tensors': Param('int', 1, doc='how many weights', low=1)}


class _MultiLamb(_MultiUpdate):
    """LAMB on each of ``num_tensors`` weights: ``g``, ``mean`` and ``var`` as
    lamb_update_phase1 makes them (with the weight's ``step_count`` and ``wds`` value), ``r1``
    and ``r2`` the norms of the weight and of ``g``, then lamb_update_phase2's step with the
    weight's ``learning_rates`` value.  In the mp_ form the step runs on the float32 master
    copy, which keeps it (unlike mp_lamb_update_phase2's), and ``r1`` is the float16 weight's
    norm, as in MXNet 1.9.1."""
    count = key_var_num_args = 'num_tensors'
    group_args = ('weight', 'grad')
    group_states = ('mean', 'var')
    per_weight = {'learning_rates': 'lr', 'wds': 'wd', 'step_count': 't'}
    params = dict(_LAMB)

    def step(self, q, xp, named):
        g = self.single_op.apply(q, xp, named)              # phase 1: mean and var in place
        weight = named['weight']
        mixed = self.single_op.mixed
        source = named['weight32'] if mixed else weight
        norms = {'r1': xp.sqrt(sum_of_squares(xp, weight)), 'r2': xp.sqrt(sum_of_squares(xp, g))}
        norms = {k: v.astype(source.dtype).reshape(1) for k, v in norms.items()}
        phase2 = Params({'lr': q.lr, 'lower_bound': q.lower_bound, 'upper_bound': q.upper_bound})
        new = get('lamb_update_phase2').apply(phase2, xp, dict(weight=source, g=g, **norms))
        if mixed:
            source[...] = new
            new = new.astype(weight.dtype)
        return new

    def weight_params(self, p, i, arrays=None):
        q = super().weight_params(p, i, arrays)
        q.lower_bound, q.upper_bound = p.lower_bound, p.upper_bound
        return q


@register
class MultiLambUpdate(_MultiLamb):
    """LAMB on each of ``num_tensors`` weights (mx.nd.contrib.multi_lamb_update): inputs
    ``weight_i, grad_i, mean_i, var_i`` for each (``mean_i``, ``var_i`` updated in place)."""
    name = '_multi_lamb_update'
    single = 'lamb_update_phase1'


@register
class MultiMpLambUpdate(_MultiLamb):
    """_multi_lamb_update on float16 weights with float32 master copies: inputs ``weight_i,
    grad_i, mean_i, var_i, weight32_i`` for each (the last three updated in place)."""
    name = '_multi_mp_lamb_update'
    single = 'mp_lamb_update_phase1'
    group_states = ('mean', 'var', 'weight32')

