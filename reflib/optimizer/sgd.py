"""Plain gradient steps: SGD (and its old name ccSGD), NAG, Signum, SGLD, DCASGD, Test.

Each class writes out its update formula as MXNet 1.9.1 computes it (checked against it
step by step in tests/golden/gen_optimizer.py).  ``g`` is the rescaled, clipped gradient
``clip(rescale_grad * grad, clip_gradient)`` unless a formula says otherwise; ``lr`` and
``wd`` are the weight's own (global value times its lr_mult / wd_mult).
"""

import math
import warnings

import numpy as np

from .. import random as _random
from ..ndarray import zeros
from ..operator.common import device_kernel
from ..ndarray.sparse import BaseSparseNDArray
from .optimizer import (ImplementedUpdate, Optimizer, OptimizerError, register, _check_arrays, _clip,
                        _clip_enabled, _compute_type, _dense_grad, _hyper, _is_fp16, _is_row_sparse,
                        _lr_times_grad, _param, _raw, _store)

__all__ = ['SGD', 'ccSGD', 'NAG', 'Signum', 'SGLD', 'DCASGD', 'Test', 'sgd_step', 'sgd_kernel_step']


# ---------------------------------------------------------------- SGD
class _MomentumState:
    """State of SGD, NAG and LARS: a momentum array (none when momentum is 0), plus a float32
    master copy of a float16 weight under multi_precision."""

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        return zeros(weight.shape, weight.context, dtype=weight.dtype)

    def create_state_multi_precision(self, index, weight):
        if self.multi_precision and _is_fp16(weight):
            master = weight.astype(np.float32)
            return (self.create_state(index, master), master)
        if _is_fp16(weight):
            warnings.warn('%s on float16 weights without multi_precision=True accumulates in '
                          'float16 and can lose precision' % type(self).__name__, UserWarning, stacklevel=2)
        return self.create_state(index, weight)


def sgd_step(weight, grad, mom, master, lr, wd, momentum, rescale_grad, clip_gradient):
    """One SGD update of one weight, as MXNet's sgd(_mom)_update and mp_sgd(_mom)_update kernels.

    ``mom`` may be None (no momentum), ``master`` is the float32 copy of a float16
    weight or None.  The update runs in place, in the momentum's and the weight's own
    buffers (``out=``), with the operations in MXNet's order, so the result is the same
    to the bit as computing each step into a new array.
    """
    target = master if master is not None else weight
    ct = _compute_type(target.dtype)
    xp = weight.xp
    w = _raw(target, ct)                # target's own buffer: ct is its dtype
    lr, wd = _param(lr, ct), _param(wd, ct)
    if _fused_step(xp, weight, grad, mom, master, lr, wd, momentum, rescale_grad, clip_gradient):
        return
    # (lr * wd) * w is computed even for wd = 0, as MXNet's kernel does.  Subtracting it
    # is not always a no-op then: for an infinite or NaN weight 0 * w is NaN, and MXNet's
    # momentum and weight turn NaN; and -0.0 - -0.0 gives +0.0.
    decay = lr * wd * w
    use_mom = mom is not None and momentum > 0
    if use_mom:
        m = _raw(mom, ct)               # mom's own buffer when it has the weight's dtype, as created
        xp.multiply(m, _param(momentum, ct), out=m)
        xp.subtract(m, decay, out=m)
    else:
        m = xp.subtract(ct(0), decay)
    xp.subtract(m, _lr_times_grad(xp, grad, lr, rescale_grad, clip_gradient, ct), out=m)
    if use_mom and m is not mom._data:
        _store(mom, m)
        m = _raw(mom, ct)               # the stored (rounded) momentum is added
    xp.add(w, m, out=w)                 # w + m, into the target's own buffer
    if master is not None:
        _store(weight, w)               # the float16 weight gets the master's rounded value


# The usual case on a device (float32 weight, momentum, no clipping) as one kernel instead
# of six whole-array operations: the same operations, in sgd_step's order, rounding the same.
_SGD_MOMENTUM = ('T grad, T momentum, T lr_wd, T lr_rescale', 'T weight, T mom', """
    T m = mom * momentum;
    m = m - lr_wd * weight;
    m = m - lr_rescale * grad;
    mom = m;
    weight = weight + m;""")


def _fused_step(xp, weight, grad, mom, master, lr, wd, momentum, rescale_grad, clip_gradient):
    """sgd_step as one device kernel where it applies (see _SGD_MOMENTUM); False elsewhere."""
    kernel = device_kernel(xp, 'sgd_momentum', *_SGD_MOMENTUM)     # None at once on the host
    if (kernel is None or master is not None or mom is None or not momentum > 0
            or _clip_enabled(clip_gradient) or not isinstance(lr, np.float32) or not isinstance(wd, np.float32)
            or any(np.dtype(a.dtype) != np.float32 for a in (weight, grad, mom))):
        return False
    ct = np.float32
    kernel(grad._data, _param(momentum, ct), lr * wd, lr * _param(rescale_grad, ct), weight._data, mom._data)
    return True


def sgd_kernel_step(weight, grad, mom, master, lr, wd, momentum, rescale_grad, clip_gradient, lazy_update):
    """One SGD update of one weight by MXNet's one-weight kernels (sgd_update, sgd_mom_update
    and their ``mp_`` forms), where sgd_step follows its multi-weight kernels.

    MXNet runs these where the multi-weight kernels do not apply: a sparse gradient (and
    every other weight handed over in the same call), NAG without momentum, LARS with a
    sparse gradient and LBSGD.  A row_sparse gradient, unless ``master`` is given, gets
    MXNet's sparse kernels: with ``lazy_update`` only its rows of the weight (and of the
    momentum) change; without, every row gets weight decay and momentum (see
    _standard_sparse_sgd).  The ``mp_`` kernels have no sparse form: a sparse gradient is then
    made dense (storage fallback), whatever ``lazy_update`` says, as in MXNet 1.9.1.
    """
    use_mom = mom is not None and momentum > 0
    if _is_row_sparse(grad) and master is None:
        if lazy_update:
            _lazy_sgd_rows(weight, grad, mom if use_mom else None, lr, wd, momentum, rescale_grad, clip_gradient)
        elif use_mom:
            # sgd_mom_update's standard sparse kernel is the dense formula with zero rows
            # filled in: the same numbers to the bit
            sgd_step(weight, grad.todense(), mom, None, lr, wd, momentum, rescale_grad, clip_gradient)
        else:
            _standard_sparse_sgd(weight, grad, lr, wd, rescale_grad, clip_gradient)
        return
    if isinstance(grad, BaseSparseNDArray):
        grad = grad.todense()
    if use_mom:
        # sgd_mom_update and mp_sgd_mom_update compute what the multi-weight kernels compute
        sgd_step(weight, grad, mom, master, lr, wd, momentum, rescale_grad, clip_gradient)
    else:
        _decayed_sgd_step(weight, grad, master, lr, wd, rescale_grad, clip_gradient)


def _decayed_sgd_step(weight, grad, master, lr, wd, rescale_grad, clip_gradient):
    """sgd_update / mp_sgd_update: ``weight = (1 - lr * wd) * weight - lr * g`` (which rounds
    differently from sgd_step's ``weight + (-lr * wd * weight - lr * g)``)."""
    target = master if master is not None else weight
    ct = _compute_type(target.dtype)
    lr, wd = _param(lr, ct), _param(wd, ct)
    new_w = (ct(1) - lr * wd) * _raw(target, ct) - _lr_times_grad(weight.xp, grad, lr, rescale_grad,
                                                                  clip_gradient, ct)
    _store(target, new_w)
    if master is not None:
        _store(weight, new_w)       # the float16 weight gets the master's rounded value


def _lazy_sgd_rows(weight, grad, mom, lr, wd, momentum, rescale_grad, clip_gradient):
    """The lazy update of MXNet's sparse SGD kernels: the rows a row_sparse ``grad`` stores
    are updated as sgd_update (``mom`` None) or sgd_mom_update would update them; every
    other row of the weight and of the momentum keeps its value (no weight decay there)."""
    rows = grad._aux[0]
    if len(rows) == 0:
        return
    ct = _compute_type(weight.dtype)
    lr, wd = _param(lr, ct), _param(wd, ct)
    w = weight._data[rows].astype(ct, copy=False)
    step = _lr_times_grad(weight.xp, grad, lr, rescale_grad, clip_gradient, ct)   # one slice per row
    if mom is None:
        weight._data[rows] = (ct(1) - lr * wd) * w - step
        return
    mom._data[rows] = _param(momentum, ct) * mom._data[rows].astype(ct, copy=False) - lr * wd * w - step
    weight._data[rows] = w + mom._data[rows].astype(ct, copy=False)    # the stored momentum is added


def _standard_sparse_sgd(weight, grad, lr, wd, rescale_grad, clip_gradient):
    """sgd_update with ``lazy_update=False`` on a row_sparse gradient, as MXNet's kernel does it:
    first the whole weight decays, ``weight *= 1 - lr * wd`` (the factor worked out in float32,
    even an empty gradient decays it), then the gradient's rows take their step
    ``weight[row] -= lr * g[row]``."""
    ct = _compute_type(weight.dtype)
    lr32 = _param(lr, np.float32)
    factor = _param(np.float32(1) - lr32 * _param(wd, np.float32), ct)
    weight._data *= factor
    rows = grad._aux[0]
    if len(rows):
        weight._data[rows] = weight._data[rows].astype(ct, copy=False) - _lr_times_grad(
            weight.xp, grad, _param(lr, ct), rescale_grad, clip_gradient, ct)


@register
class SGD(ImplementedUpdate, _MomentumState, Optimizer):
    """Stochastic gradient descent, with optional momentum.

    With ``g = clip(rescale_grad * grad, clip_gradient)`` and per-weight ``lr``,
    ``wd``, MXNet 1.9.1 computes (in the weight's precision, float32 for float16)::

        mom    = momentum * mom - lr * wd * weight - lr * g      # mom stays 0 without momentum
        weight = weight + mom

    The momentum state exists only when ``momentum != 0``.  With ``multi_precision``
    on float16 weights the state is the pair ``(mom or None, float32 master weight)``:
    the update runs on the master and the float16 weight receives its rounded value.

    A row_sparse gradient (an Embedding's with ``sparse_grad=True``) is updated as MXNet
    1.9.1 updates it (see sgd_kernel_step).  With ``lazy_update`` (the default) only the
    rows the gradient stores change, in the weight and in the momentum: absent rows get
    neither weight decay nor momentum.  With ``lazy_update=False`` it is the standard
    update, as if the gradient were dense.  Under ``multi_precision`` MXNet has no sparse
    kernel, and the update is the standard one whatever ``lazy_update`` says.  A call that
    hands over several weights, one of them with a sparse gradient, updates them all by
    the one-weight kernels; without momentum their ``(1 - lr * wd) * weight - lr * g``
    rounds a little differently from the multi-weight kernel's formula above (reflib
    follows MXNet in both).
    """

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = _hyper('SGD', 'momentum', momentum)
        self.lazy_update = lazy_update
        # MXNet's default MXNET_OPTIMIZER_AGGREGATION_SIZE: the Updater passes up to 4
        # weights per call; the numbers do not depend on it
        self.aggregate_num = 4

    def _update_impl(self, index, weight, grad, state, multi_precision):
        if isinstance(index, (list, tuple)):
            indices, weights, grads, states = list(index), list(weight), list(grad), list(state)
        else:
            indices, weights, grads, states = [index], [weight], [grad], [state]
        for w, g in zip(weights, grads):
            _check_arrays(w, g, 'SGD')
        # all indices are counted before any learning rate is read, as MXNet does
        self._update_count(indices)
        lrs = self._get_lrs(indices)
        wds = self._get_wds(indices)
        # MXNet's multi-weight kernels take dense gradients only: one sparse gradient sends
        # every weight of the call through the one-weight kernels
        one_by_one = any(isinstance(g, BaseSparseNDArray) for g in grads)
        for w, g, s, lr, wd in zip(weights, grads, states, lrs, wds):
            if multi_precision:
                mom, master = s
            else:
                mom, master = s, None
            if one_by_one:
                sgd_kernel_step(w, g, mom, master, lr, wd, self.momentum, self.rescale_grad,
                                self.clip_gradient, self.lazy_update)
            else:
                sgd_step(w, g, mom, master, lr, wd, self.momentum, self.rescale_grad,
                         self.clip_gradient)


# ---------------------------------------------------------------- NAG
@register
class NAG(ImplementedUpdate, _MomentumState, Optimizer):
    """Nesterov accelerated gradient.

    With ``g = clip(rescale_grad * grad, clip_gradient)`` MXNet 1.9.1 keeps the
    momentum with the learning rate folded in::

        weight_new = weight - momentum * mom + (1 + momentum) * (momentum * mom - lr * (g + wd * weight))
        mom        = momentum * mom - lr * (g + wd * weight_new)

    Without weight decay that is the textbook ``s = momentum*s + g;
    weight -= lr*(g + momentum*s)`` with ``mom = -lr * s``.  With weight decay,
    note ``weight_new`` in the momentum: MXNet's kernel overwrites the weight
    before it computes the momentum, and reflib reproduces the numbers.  Without momentum
    it is plain SGD written as ``weight = (1 - lr*wd) * weight - lr * clip(rescale_grad * grad)``.
    ``multi_precision`` works as for SGD (state ``(mom or None, master)``).

    A row_sparse gradient: without momentum MXNet runs sgd_update with its default
    ``lazy_update=True``, so only the gradient's rows change (no decay elsewhere); with
    momentum, or under ``multi_precision``, its kernels have no sparse form and the update
    is the standard one on the dense gradient.
    """

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = _hyper('NAG', 'momentum', momentum)

    def _update_impl(self, index, weight, grad, state, multi_precision):
        _check_arrays(weight, grad, 'NAG')
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        mom, master = state if multi_precision else (state, None)
        if mom is None or not self.momentum > 0:
            # MXNet's NAG without momentum is its sgd_update (lazy for a row_sparse gradient)
            sgd_kernel_step(weight, grad, None, master, lr, wd, 0.0, self.rescale_grad,
                            self.clip_gradient, lazy_update=True)
            return
        grad = _dense_grad(weight, grad, 'NAG')      # nag_mom_update has no sparse form
        target = master if master is not None else weight
        ct = _compute_type(target.dtype)
        xp = weight.xp
        w = _raw(target, ct)
        lr, wd = _param(lr, ct), _param(wd, ct)
        g = grad._data.astype(ct, copy=False) * _param(self.rescale_grad, ct)
        if _clip_enabled(self.clip_gradient):
            g = _clip(xp, g, _param(self.clip_gradient, ct))
        mu = _param(self.momentum, ct)
        old = mu * _raw(mom, ct)
        new_w = w - old + (mu + ct(1)) * (old - lr * (g + wd * w))
        # MXNet's kernel writes the new weight first and then reads "the weight"
        # again for the momentum's decay term, so that term uses the NEW weight
        new_mom = old - lr * (g + wd * new_w.astype(ct, copy=False))
        _store(mom, new_mom)
        if master is not None:
            _store(master, new_w)
        _store(weight, new_w)


@register
class ccSGD(SGD):   # noqa: N801 - MXNet's name, kept for old scripts
    """SGD under its old name (MXNet keeps it, deprecated, for backward compatibility)."""


# ---------------------------------------------------------------- Signum
@register
class Signum(Optimizer):
    """signSGD and Signum (Bernstein et al. 2018): steps of size ``lr`` along a sign.

    With momentum (state ``mom``, the default 0.9)::

        mom    = momentum * mom - (1 - momentum) * (wd * weight + g)
        weight = (1 - lr * wd_lh) * weight + lr * sign(mom)

    Without momentum (``momentum=0``: no state) it is signSGD, and MXNet's kernel then
    ignores rescale_grad and clip_gradient (neither changes a sign)::

        weight = (1 - lr * wd) * weight - lr * sign(grad)

    ``wd_lh`` is decoupled weight decay (Loshchilov & Hutter).  MXNet 1.9.1 accepts it only
    with momentum: signSGD's kernel has no such argument and refuses it, and so does reflib.
    """

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = _hyper('Signum', 'momentum', momentum)
        self.wd_lh = _hyper('Signum', 'wd_lh', wd_lh)

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        return zeros(weight.shape, weight.context, dtype=weight.dtype)

    def update(self, index, weight, grad, state):
        grad = _dense_grad(weight, grad, 'Signum')     # a sparse gradient: storage fallback
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        ct = _compute_type(weight.dtype)
        xp = weight.xp
        w = _raw(weight, ct)
        lr, wd = _param(lr, ct), _param(wd, ct)
        if state is None:
            if self.wd_lh:
                raise OptimizerError('Signum: wd_lh=%g needs momentum; without it Signum is signSGD, '
                                     'which has no decoupled weight decay (MXNet 1.9.1 refuses it '
                                     'too)' % self.wd_lh)
            new_w = (ct(1) - lr * wd) * w - lr * _sign(grad._data.astype(ct, copy=False), ct)
        else:
            # MXNet passes momentum to the kernel only when it is positive (else 0)
            mu = _param(self.momentum if self.momentum > 0 else 0.0, ct)
            g = _param(self.rescale_grad, ct) * grad._data.astype(ct, copy=False)
            if _clip_enabled(self.clip_gradient):
                g = _clip(xp, g, _param(self.clip_gradient, ct))
            one = ct(1)
            mom = mu * _raw(state, ct) - (one - mu) * wd * w - (one - mu) * g
            _store(state, mom)
            new_w = (one - lr * _param(self.wd_lh, ct)) * w + lr * _sign(_raw(state, ct), ct)
        _store(weight, new_w)


def _sign(x, ct):
    """+1, -1 or 0 as MXNet's kernels write it, ``(x > 0) - (x < 0)``: 0 for NaN too."""
    return (x > 0).astype(ct) - (x < 0).astype(ct)


# ---------------------------------------------------------------- SGLD
@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics: half a gradient step plus Gaussian noise.

    ::

        g       = clip(rescale_grad * grad, clip_gradient)   # clips unless clip_gradient is None
        weight += -lr / 2 * (g + wd * weight)
        weight += normal(0, sqrt(lr), weight.shape)

    MXNet draws the noise from ``mx.random.normal``; reflib from ``reflib.random.normal``
    on the weight's device (seed it with ``mx.random.seed``).  The generators differ, so
    the noise does not repeat MXNet's numbers, only its distribution.  No state.
    """

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        grad = _dense_grad(weight, grad, 'SGLD')       # MXNet's NDArray arithmetic makes it dense
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        ct = _compute_type(weight.dtype)
        g = grad._data.astype(ct, copy=False) * _param(self.rescale_grad, ct)
        if self.clip_gradient is not None:        # a Python-side clip in MXNet: 0 clips too
            g = _clip(weight.xp, g, _param(self.clip_gradient, ct))
        w = _raw(weight, ct)
        _store(weight, w + _param(-lr / 2, ct) * (g + _param(wd, ct) * w))
        noise = _random.normal(0, math.sqrt(lr), shape=weight.shape, dtype=weight.dtype,
                               ctx=weight.context)
        _store(weight, _raw(weight, ct) + noise._data.astype(ct, copy=False))


# ---------------------------------------------------------------- DCASGD
@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD (Zheng et al. 2016).

    The state is ``(mom or None, previous weight)``; the previous weight starts as a copy
    of the weight.  With ``g = clip(rescale_grad * grad, clip_gradient)`` (clipping
    unless clip_gradient is None)::

        step        = -lr * (g + wd * weight + lamda * g * g * (weight - previous))
        mom         = momentum * mom + step       # with momentum; else mom = step
        previous    = weight
        weight     += mom

    MXNet 1.9.1 fails on the momentum branch (it tests an NDArray's truth value:
    ValueError for more than one element, AssertionError for one); reflib computes the
    formula above, the one MXNet's code spells out.  Without momentum the numbers are
    MXNet's.
    """

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum = _hyper('DCASGD', 'momentum', momentum)
        self.weight_previous = {}     # unused, as in MXNet (the state holds the previous weight)
        self.lamda = _hyper('DCASGD', 'lamda', lamda)

    def create_state(self, index, weight):
        mom = None if self.momentum == 0.0 else zeros(weight.shape, weight.context, dtype=weight.dtype)
        return (mom, weight.copy())

    def update(self, index, weight, grad, state):
        grad = _dense_grad(weight, grad, 'DCASGD')     # MXNet's NDArray arithmetic makes it dense
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        ct = _compute_type(weight.dtype)
        g = grad._data.astype(ct, copy=False) * _param(self.rescale_grad, ct)
        if self.clip_gradient is not None:
            g = _clip(weight.xp, g, _param(self.clip_gradient, ct))
        mom, previous = state
        w = _raw(weight, ct)
        lamda_g = _param(self.lamda, ct) * g
        step = _param(-lr, ct) * ((g + _param(wd, ct) * w) + lamda_g * g * (w - _raw(previous, ct)))
        if mom is not None:
            _store(mom, _raw(mom, ct) * _param(self.momentum, ct) + step)
            step = _raw(mom, ct)
        _store(previous, w)
        _store(weight, w + step)


# ---------------------------------------------------------------- Test
@register
class Test(Optimizer):
    """MXNet's optimizer for its own tests: ``weight += rescale_grad * grad`` (an ascent
    step, no learning rate), and the state, a float32 array, receives a copy of the new
    weight.  It counts no updates."""

    def create_state(self, index, weight):
        return zeros(weight.shape, weight.context)

    def update(self, index, weight, grad, state):
        grad = _dense_grad(weight, grad, 'Test')
        ct = _compute_type(weight.dtype)
        _store(weight, _raw(weight, ct) + grad._data.astype(ct, copy=False) * _param(self.rescale_grad, ct))
        _store(state, weight._data)
