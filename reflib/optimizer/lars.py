"""Layer-wise trust ratios: LARS, LBSGD and LAMB scale each weight's step by how large the
weight is compared with its gradient (or its update).

Each class writes out its update formula as MXNet 1.9.1 computes it (checked against it
step by step in tests/golden/gen_optimizer.py); ``lr`` and ``wd`` are the weight's own.
"""

import logging
import math

import numpy as np

from ..ndarray import zeros
from ..ndarray.ndarray import to_numpy
from ..ndarray.sparse import BaseSparseNDArray
from .optimizer import (ImplementedUpdate, Optimizer, register, _check_arrays, _clip, _clip_enabled,
                        _compute_type, _dense_grad, _hyper, _is_fp16, _param, _raw, _store)
from .sgd import _MomentumState, sgd_kernel_step, sgd_step

__all__ = ['LARS', 'LBSGD', 'LAMB']


def _sum_sq(arr):
    """Sum of squares of an NDArray's values (MXNet's multi_sum_sq): summed in float64,
    rounded to float32, as a 0-d array on the array's device (no wait for the host)."""
    wide = arr._data.astype(np.float64)
    return (wide * wide).sum().astype(np.float32)


def _no_lars(name):
    """LARS leaves biases and BatchNorm's gamma/beta at the plain learning rate."""
    return name.endswith('gamma') or name.endswith('beta') or name.endswith('bias')


# ---------------------------------------------------------------- LARS
@register
class LARS(ImplementedUpdate, _MomentumState, Optimizer):
    """LARS (You et al. 2017): SGD with momentum whose learning rate is scaled per weight.

    For every weight whose name does not end in ``gamma``, ``beta`` or ``bias`` (names
    from param_idx2name; an unnamed index is its number as a string)::

        lr = lr * eta * |w| / (|grad| * rescale_grad + wd * |w| + eps)   # if |w| > 0 and |grad| > 0

    (norms over the whole weight and the raw gradient, in float32), then the SGD update
    (see ``sgd_step``) with that lr.  With ``momentum_correction`` and an lr that changed
    since the previous call, the momentum is ``momentum * lr_now / lr_before``, where the
    two rates are the global (scheduled) ones of the last two update calls.  Weight decay
    goes to names ending in ``_weight`` only (not ``_gamma``, unlike the other optimizers).
    ``multi_precision`` works as for SGD (state ``(mom or None, float32 master)``); the
    norms are then those of the float16 weight and gradient.

    A call that holds a sparse gradient takes MXNet's other path: each rate is worked out
    on the host, ``lr * eta * |w| / (|rescale_grad * grad| + wd * |w| + eps)`` in double
    precision from float32 norms, and every weight of the call is updated by the one-weight
    SGD kernels, a row_sparse gradient lazily or not as ``lazy_update`` says (see
    ``sgd_kernel_step``).
    """

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0, momentum_correction=True,
                 **kwargs):
        super().__init__(**kwargs)
        self.momentum = _hyper('LARS', 'momentum', momentum)
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.aggregate_num = 4       # MXNet's default MXNET_OPTIMIZER_AGGREGATION_SIZE
        self.eta = _hyper('LARS', 'eta', eta)
        self.eps = _hyper('LARS', 'eps', eps)
        self.skip = 0
        self.last_lr = None
        self.cur_lr = None

    def _get_lrs(self, indices):
        # every call remembers the global rate of the call before (for momentum_correction)
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        if self.cur_lr is None:
            self.last_lr = lr
        self.cur_lr = lr
        return [lr * self._mult(index, self.lr_mult, 'lr_mult') for index in indices]

    def set_wd_mult(self, args_wd_mult):
        """As Optimizer.set_wd_mult, except that only names ending in ``_weight`` keep weight decay."""
        self.wd_mult = {name: 0.0 for name in self.idx2name.values() if not name.endswith('_weight')}
        self.wd_mult.update(self._sym_attr_mults('__wd_mult__'))
        self.wd_mult.update(args_wd_mult)

    def _update_impl(self, index, weight, grad, state, multi_precision):
        if isinstance(index, (list, tuple)):
            indices, weights, grads, states = list(index), list(weight), list(grad), list(state)
        else:
            indices, weights, grads, states = [index], [weight], [grad], [state]
        for w, g in zip(weights, grads):
            _check_arrays(w, g, 'LARS')
        self._update_count(indices)
        lrs = self._get_lrs(indices)
        wds = self._get_wds(indices)
        momentum = 0.0
        if self.momentum > 0:
            momentum = self.momentum
            if self.momentum_correction and self.last_lr != 0:
                momentum = self.momentum * (self.cur_lr / self.last_lr)
        if any(isinstance(g, BaseSparseNDArray) for g in grads):
            # MXNet's multi-weight kernels take dense gradients only
            for i, w, g, s, lr, wd in zip(indices, weights, grads, states, lrs, wds):
                mom, master = s if multi_precision else (s, None)
                sgd_kernel_step(w, g, mom, master, self._host_lars_lr(i, w, g, lr, wd), wd, momentum,
                                self.rescale_grad, self.clip_gradient, self.lazy_update)
            return
        for i, w, g, s, lr, wd in zip(indices, weights, grads, states, lrs, wds):
            lr, wd = np.float32(lr), np.float32(wd)
            if not _no_lars(self.idx2name.get(i, str(i))):
                xp = w.xp
                w_norm = xp.sqrt(_sum_sq(w))
                g_sum_sq = _sum_sq(g)
                with np.errstate(divide='ignore', invalid='ignore'):    # the branch not taken
                    scaled = lr * np.float32(self.eta) * w_norm / (
                        xp.sqrt(g_sum_sq) * np.float32(self.rescale_grad) + wd * w_norm + np.float32(self.eps))
                # if |w| > 0 and |g| > 0, chosen on the device
                lr = xp.where((w_norm > 0) & (g_sum_sq > 0), scaled, lr)
            mom, master = s if multi_precision else (s, None)
            sgd_step(w, g, mom, master, lr, wd, momentum, self.rescale_grad, self.clip_gradient)

    def _host_lars_lr(self, index, weight, grad, lr, wd):
        """The rate MXNet works out on the host when a call holds a sparse gradient: from
        float32 norms, the gradient's taken after rescale_grad, in double precision."""
        if _no_lars(self.idx2name.get(index, str(index))):
            return lr
        w_norm = _host_norm(weight._data)
        # a sparse gradient's zeros add nothing to its norm: its stored values suffice
        g_norm = _host_norm(grad._data.astype(np.float32) * np.float32(self.rescale_grad))
        if w_norm > 0 and g_norm > 0:
            return self.eta * w_norm / (g_norm + wd * w_norm + self.eps) * lr
        return lr


def _host_norm(values):
    """The L2 norm of an array's values (squares summed in float64) as a float32 number, read
    to the host (MXNet's LARS reads its norms there on this path)."""
    wide = values.astype(np.float64)
    return float(np.sqrt(np.float32(to_numpy((wide * wide).sum()))))


# ---------------------------------------------------------------- LBSGD
@register
class LBSGD(Optimizer):
    """Large-batch SGD: emulates a ``batch_scale`` times larger batch, with a warm-up.

    Gradients are summed per weight; every ``batch_scale``-th update of a weight applies
    the SGD update (see ``sgd_kernel_step``, lazy for a row_sparse gradient, as MXNet's
    defaults have it) with their mean and ``lr * mult``, and the other
    updates leave the weight as it is.  ``mult`` at the ``n``-th update (counted from
    ``begin_epoch * updates_per_epoch``), with ``N = warmup_epochs * updates_per_epoch``
    and ``B = batch_scale``: ``B`` once ``n >= N``, else by ``warmup_strategy``:
    ``'linear'`` ``1 + (B-1) n/N``, ``'power2'`` ``1 + (B-1) n^2/N^2``, ``'sqrt'``
    ``1 + (B-1) sqrt(n/N)``, ``'lars'`` ``sqrt(|w|^2 / (|g|^2 + wd |w|^2 + 1e-18))``
    clipped to [0.01, 100], anything else 1.

    As in MXNet 1.9.1, the learning rate is read *before* this update is counted (so a
    scheduler sees the previous count), and the summed gradient keeps a reference to the
    first gradient array of each group (not a copy).
    """

    def __init__(self, momentum=0.0, multi_precision=False, warmup_strategy='linear',
                 warmup_epochs=5, batch_scale=1, updates_per_epoch=32, begin_epoch=0, num_epochs=60,
                 **kwargs):
        super().__init__(**kwargs)
        logging.info('Running Large-Batch SGD Algorithm')
        logging.info('(Batch_scale=%f, warmup_epochs=%d, warmup_strategy=%s, updates_per_epoch=%d)',
                     batch_scale, warmup_epochs, warmup_strategy, updates_per_epoch)
        self.momentum = _hyper('LBSGD', 'momentum', momentum)
        self.multi_precision = multi_precision
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.lbmult = 1
        self.cumgrads = {}
        self.adaptive = False
        self.admult = 1

    def create_state(self, index, weight):
        if self.multi_precision and _is_fp16(weight):
            # reached only by calling create_state itself: the Updater's
            # create_state_multi_precision hands over the float32 master copy
            master = weight.astype(np.float32)
            mom = zeros(weight.shape, weight.context) if self.momentum != 0.0 else None
            return (mom, master)
        if self.momentum != 0.0:
            return zeros(weight.shape, weight.context, dtype=weight.dtype)
        return None

    def _get_lbmult(self, nup):
        nwup = self.warmup_epochs * self.updates_per_epoch
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            return maxmult
        if nwup <= 1:
            return 1.0
        strategy = self.warmup_strategy
        if strategy == 'linear':
            return 1.0 + (maxmult - 1) * nup / nwup
        if strategy == 'power2':
            return 1.0 + (maxmult - 1) * (nup * nup) / (nwup * nwup)
        if strategy == 'sqrt':
            return 1.0 + (maxmult - 1) * math.sqrt(float(nup) / nwup)
        return 1.0

    def _get_lars(self, weight, g, wd):
        weight2, grad2 = _plain_sum_sq(weight), _plain_sum_sq(g)
        lars = math.sqrt(weight2 / (grad2 + wd * weight2 + 1e-18))
        return min(max(lars, 0.01), 100)

    def _cumulate_gradient(self, grad, index):
        cgrad = self.cumgrads.get(index)
        if cgrad and cgrad['num_cums'] > 0:
            cgrad = {'cum_grad': _summed(cgrad['cum_grad'], grad), 'num_cums': cgrad['num_cums'] + 1}
        else:
            cgrad = {'cum_grad': grad, 'num_cums': self.init_updates + 1}
        self.cumgrads[index] = cgrad
        return cgrad

    def update(self, index, weight, grad, state):
        _check_arrays(weight, grad, 'LBSGD')
        lr, wd = self._get_lr(index), self._get_wd(index)
        self._update_count(index)
        cgrad = self._cumulate_gradient(grad, index)
        mom, master = state if isinstance(state, (list, tuple)) else (state, None)
        # MXNet's LBSGD calls the one-weight SGD kernels with their default lazy_update=True
        if cgrad['num_cums'] % self.batch_scale == 0:
            grad = cgrad['cum_grad'] / self.batch_scale
            if self.warmup_strategy == 'lars':
                lr *= self._get_lars(weight, grad, wd)
            else:
                lr *= self._get_lbmult(cgrad['num_cums'])
            sgd_kernel_step(weight, grad, mom, master, lr, wd, self.momentum, self.rescale_grad,
                            self.clip_gradient, lazy_update=True)
            self.cumgrads[index]['cum_grad'] = 0
        else:
            # MXNet runs sgd_update with lr 0 on the weight itself: it stays as it is
            sgd_kernel_step(weight, grad, None, None, 0.0, wd, 0.0, 1.0, None, lazy_update=True)


def _summed(total, grad):
    """``total + grad`` as MXNet's LBSGD sums gradients: a sum that starts from the number 0
    stays row_sparse for a row_sparse gradient (reflib's ``0 + grad`` would be dense)."""
    if isinstance(grad, BaseSparseNDArray) and isinstance(total, (int, float)) and total == 0:
        return grad.copy()
    return total + grad


def _plain_sum_sq(arr):
    """``(v * v).sum()`` of an NDArray as MXNet's LBSGD computes it: float32 numpy on the host."""
    values = arr.asnumpy()
    return float((values * values).sum())


# ---------------------------------------------------------------- LAMB
@register
class LAMB(ImplementedUpdate, Optimizer):
    """LAMB (You et al. 2019): Adam's direction, scaled per weight by a trust ratio.

    With ``g = clip(rescale_grad * grad, clip_gradient)`` (clipping only for a positive
    clip_gradient) and state ``(mean, var)``::

        mean = beta1 * mean + (1 - beta1) * g
        var  = beta2 * var + (1 - beta2) * g * g
        u    = mean_hat / (sqrt(var_hat) + epsilon) + wd * weight
               # mean_hat = mean / (1 - beta1**t), var_hat = var / (1 - beta2**t) with
               # bias_correction, else mean and var themselves
        r1   = |weight| clipped to [lower_bound, upper_bound] (each only when given)
        r2   = |u|
        weight = weight - lr * (r1 / r2 if r1 > 0 and r2 > 0 else 1) * u

    The Updater hands LAMB lists of weights (``aggregate_num`` 45), which MXNet updates
    with its multi-tensor kernel; a direct ``update`` of one index uses MXNet's two-phase
    kernels.  The numbers agree, except under ``multi_precision`` (state ``(float32
    master, (mean, var))``): the multi-tensor path updates the master copy and writes it
    rounded into the float16 weight (``r1`` from the float16 weight), while MXNet 1.9.1's
    two-phase path never writes the master back, so every direct update starts again from
    the first master copy.  reflib reproduces both.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = _hyper('LAMB', 'beta1', beta1)
        self.beta2 = _hyper('LAMB', 'beta2', beta2)
        self.epsilon = _hyper('LAMB', 'epsilon', epsilon)
        self.lower_bound = _hyper('LAMB', 'lower_bound', lower_bound, optional=True)
        self.upper_bound = _hyper('LAMB', 'upper_bound', upper_bound, optional=True)
        self.bias_correction = bias_correction
        self.aggregate_num = 45      # MXNet's cap on the multi-tensor kernel

    def create_state(self, index, weight):
        return (zeros(weight.shape, weight.context, dtype=weight.dtype),   # mean
                zeros(weight.shape, weight.context, dtype=weight.dtype))   # var

    def _direction(self, weight_src, grad, mean, var, wd, t, ct):
        """Update mean and var in place; return ``u`` (in ``ct``)."""
        xp = grad.xp
        g = grad._data.astype(ct, copy=False) * _param(self.rescale_grad, ct)
        if _clip_enabled(self.clip_gradient):
            g = _clip(xp, g, _param(self.clip_gradient, ct))
        b1, b2, one = _param(self.beta1, ct), _param(self.beta2, ct), ct(1)
        _store(mean, b1 * _raw(mean, ct) + (one - b1) * g)
        _store(var, b2 * _raw(var, ct) + (one - b2) * g * g)
        m, v = _raw(mean, ct), _raw(var, ct)
        if self.bias_correction:
            m = m / (one - b1 ** ct(t))
            v = v / (one - b2 ** ct(t))
        return m / (xp.sqrt(v) + _param(self.epsilon, ct)) + _param(wd, ct) * _raw(weight_src, ct)

    def _trust_ratio(self, xp, r1, r2):
        """|w| / |u| with MXNet's bounds on |w|, 1 where either is 0: a 0-d float32 array,
        worked out on the weight's device."""
        if self.lower_bound and self.lower_bound >= 0:   # MXNet passes a bound only when truthy
            r1 = xp.maximum(r1, np.float32(self.lower_bound))
        if self.upper_bound and self.upper_bound >= 0:
            r1 = xp.minimum(r1, np.float32(self.upper_bound))
        with np.errstate(divide='ignore', invalid='ignore'):    # the branch not taken
            ratio = r1 / r2
        return xp.where((r1 == 0) | (r2 == 0), np.float32(1), ratio)

    def _step(self, index, weight, grad, state, lr, wd, t, multi_precision, from_list):
        if multi_precision:
            master, (mean, var) = state
        else:
            master, (mean, var) = None, state
        src = master if master is not None else weight
        ct = np.float32 if multi_precision else _compute_type(weight.dtype)
        # the multi-tensor kernel takes |weight| from the (float16) weight, phase two from the source
        xp = weight.xp
        r1 = xp.sqrt(_sum_sq(weight if from_list else src))
        u = self._direction(src, grad, mean, var, wd, t, ct)
        wide = u.astype(np.float64)
        r2 = xp.sqrt((wide * wide).sum()).astype(np.float32)
        new_w = _raw(src, ct) - _param(lr, ct) * self._trust_ratio(xp, r1, r2).astype(ct) * u
        if master is not None and from_list:
            _store(master, new_w)
        _store(weight, new_w)

    def _update_impl(self, index, weight, grad, state, multi_precision):
        # lamb_update_phase1 and multi_lamb_update have no sparse form: storage fallback
        if not isinstance(index, (list, tuple)):
            grad = _dense_grad(weight, grad, 'LAMB')
            self._update_count(index)
            lr, wd = self._get_lr(index), self._get_wd(index)
            self._step(index, weight, grad, state, lr, wd, self._index_update_count[index],
                       multi_precision, from_list=False)
            return
        steps, grads = [], []
        for i, w, g in zip(index, weight, grad):
            grads.append(_dense_grad(w, g, 'LAMB'))
            # counted and read one index at a time, as MXNet does
            self._update_count(i)
            steps.append((self._index_update_count[i], self._get_lr(i), self._get_wd(i)))
        for i, w, g, s, (t, lr, wd) in zip(index, weight, grads, state, steps):
            self._step(i, w, g, s, lr, wd, t, multi_precision, from_list=True)
