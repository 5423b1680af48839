"""Per-coordinate step sizes from accumulated squared gradients: AdaGrad, RMSProp,
AdaDelta and Ftrl (GroupAdaGrad, per row, is in contrib.py).

Each class writes out its update formula as MXNet 1.9.1 computes it (checked against it
step by step in tests/golden/gen_optimizer.py); ``lr`` and ``wd`` are the weight's own.
"""

import numpy as np

from ..ndarray import zeros
from .optimizer import (Optimizer, OptimizerError, register, _check_arrays, _clip, _clip_enabled, _compute_type,
                        _dense_grad, _dense_values, _hyper, _is_row_sparse, _param, _raw, _store)
from ..ndarray.sparse import RowSparseNDArray

__all__ = ['AdaGrad', 'RMSProp', 'AdaDelta', 'Ftrl']


# ---------------------------------------------------------------- AdaGrad
@register
class AdaGrad(Optimizer):
    """AdaGrad: each coordinate's step shrinks with the sum of its squared gradients.

    ::

        g        = clip(rescale_grad * grad, clip_gradient)    # clips unless clip_gradient is None
        history += g * g
        weight  += (g / sqrt(history + eps) + wd * weight) * -lr

    ``eps`` is stored as ``float_stable_eps`` (MXNet's attribute name).  The
    state ``history`` is float32 whatever the weight's dtype.

    A row_sparse gradient takes MXNet's sparse kernel, which updates the gradient's rows
    of the weight and the history only (``weight -= g / sqrt(history + eps) * lr``) and
    clips only for a positive clip_gradient (0 and negatives: no clip).  That kernel has
    no weight decay: with a non-zero wd MXNet 1.9.1 refuses the update, and so does reflib.
    """

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = _hyper('AdaGrad', 'eps', eps)

    def create_state(self, index, weight):
        return zeros(weight.shape, weight.context)     # history, float32

    def update(self, index, weight, grad, state):
        _check_arrays(weight, grad, 'AdaGrad')
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        if _is_row_sparse(grad):
            self._sparse_rows(index, weight, grad, state, lr, wd)
            return
        grad = _dense_grad(weight, grad, 'AdaGrad')
        history = state
        dt = weight._data.dtype.type
        xp = weight.xp
        g = grad._data * dt(self.rescale_grad)
        if self.clip_gradient is not None:
            g = xp.clip(g, dt(-self.clip_gradient), dt(self.clip_gradient))
        history._data += g * g
        div = g / xp.sqrt(history._data + dt(self.float_stable_eps))
        weight._data += (div + weight._data * dt(wd)) * dt(-lr)

    def _sparse_rows(self, index, weight, grad, history, lr, wd):
        """MXNet's sparse adagrad_update: the rows ``grad`` stores, and no other."""
        if np.float32(wd) != 0:                    # MXNet's test, on the float32 it is given
            raise OptimizerError(
                'AdaGrad: weight %r has a row_sparse gradient and wd=%g, but MXNet\'s sparse AdaGrad '
                'kernel has no weight decay (MXNet 1.9.1 refuses it too); set wd=0 (or its wd_mult '
                'to 0), or pass the gradient dense (grad.tostype("default"))' % (index, wd))
        rows = grad._aux[0]
        if len(rows) == 0:
            return
        ct = _compute_type(weight.dtype)
        xp = weight.xp
        g = grad._data.astype(ct, copy=False) * _param(self.rescale_grad, ct)
        if _clip_enabled(self.clip_gradient):      # MXNet hands the kernel only a truthy bound
            g = _clip(xp, g, _param(self.clip_gradient, ct))
        squares = history._data[rows] + g * g
        history._data[rows] = squares
        div = g / xp.sqrt(squares + _param(self.float_stable_eps, ct))
        weight._data[rows] = weight._data[rows] - div * _param(lr, ct)


# ---------------------------------------------------------------- RMSProp
@register
class RMSProp(Optimizer):
    """RMSProp, plain (Tieleman & Hinton) or centered (Graves 2013).

    With ``g = clip(rescale_grad * grad + wd * weight, clip_gradient)``:

    plain (state ``(n,)``)::

        n      = (1 - gamma1) * g * g + gamma1 * n
        weight = weight - lr * g / sqrt(n + epsilon)

    centered (state ``(n, gbar, delta)``)::

        n      = (1 - gamma1) * g * g + gamma1 * n
        gbar   = (1 - gamma1) * g + gamma1 * gbar
        delta  = gamma2 * delta - lr * g / sqrt(n - gbar * gbar + epsilon)
        weight = weight + delta

    Note ``epsilon`` sits *inside* the square root.  ``clip_weights`` (if set
    and positive) clips the new weight to ``[-clip_weights, clip_weights]``.
    States are float32.
    """

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                 centered=False, clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = _hyper('RMSProp', 'gamma1', gamma1)
        self.gamma2 = _hyper('RMSProp', 'gamma2', gamma2)
        self.centered = centered
        self.epsilon = _hyper('RMSProp', 'epsilon', epsilon)
        self.clip_weights = _hyper('RMSProp', 'clip_weights', clip_weights, optional=True)

    def create_state(self, index, weight):
        count = 3 if self.centered else 1
        return tuple(zeros(weight.shape, weight.context) for _ in range(count))

    def update(self, index, weight, grad, state):
        grad = _dense_grad(weight, grad, 'RMSProp')    # a sparse gradient: storage fallback
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        ct = _compute_type(weight.dtype)
        xp = weight.xp
        w = _raw(weight, ct)
        g = grad._data.astype(ct, copy=False) * _param(self.rescale_grad, ct) + _param(wd, ct) * w
        if _clip_enabled(self.clip_gradient):
            g = _clip(xp, g, _param(self.clip_gradient, ct))
        g1, eps, lr = _param(self.gamma1, ct), _param(self.epsilon, ct), _param(lr, ct)
        one = ct(1)
        if not self.centered:
            (n,) = state
            n_new = (one - g1) * (g * g) + g1 * _raw(n, ct)
            _store(n, n_new)
            new_w = w - lr * (g / xp.sqrt(n_new + eps))
        else:
            n, gbar, delta = state
            n_new = (one - g1) * g * g + g1 * _raw(n, ct)
            gbar_new = (one - g1) * g + g1 * _raw(gbar, ct)
            d_new = _param(self.gamma2, ct) * _raw(delta, ct) - (
                lr * g / xp.sqrt(n_new - gbar_new * gbar_new + eps))
            _store(n, n_new)
            _store(gbar, gbar_new)
            _store(delta, d_new)
            new_w = w + d_new
        if _clip_enabled(self.clip_weights):
            new_w = _clip(xp, new_w, _param(self.clip_weights, ct))
        _store(weight, new_w)


# ---------------------------------------------------------------- AdaDelta
@register
class AdaDelta(Optimizer):
    """AdaDelta (Zeiler 2012).  It has no learning rate: ``learning_rate`` is ignored.

    ::

        grad     *= rescale_grad                 # in place: the caller's gradient changes!
        g         = clip(grad, clip_gradient)    # clips unless clip_gradient is None
        acc_g     = rho * acc_g + (1 - rho) * g * g
        delta     = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * g
        acc_delta = rho * acc_delta + (1 - rho) * delta * delta
        weight   -= delta + wd * weight

    MXNet 1.9.1 scales the gradient array it is given in place, so after an
    update with ``rescale_grad=0.5`` the gradient NDArray holds half its old
    values; reflib does the same.  State: ``(acc_g, acc_delta)``, float32.
    """

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho = _hyper('AdaDelta', 'rho', rho)
        self.epsilon = _hyper('AdaDelta', 'epsilon', epsilon)

    def create_state(self, index, weight):
        return (zeros(weight.shape, weight.context),    # accumulated g*g
                zeros(weight.shape, weight.context))    # accumulated delta*delta

    def update(self, index, weight, grad, state):
        _check_arrays(weight, grad, 'AdaDelta')
        wd = self._get_wd(index)
        self._update_count(index)
        dt = weight._data.dtype.type
        xp = weight.xp
        grad._data *= dt(self.rescale_grad)     # a sparse gradient's stored values, in place too
        g = _dense_values(grad)
        if self.clip_gradient is not None:
            g = xp.clip(g, dt(-self.clip_gradient), dt(self.clip_gradient))
        acc_g, acc_delta = state
        rho, eps = dt(self.rho), dt(self.epsilon)
        keep = dt(1. - self.rho)
        acc_g._data *= rho
        acc_g._data += keep * g * g
        delta = xp.sqrt(acc_delta._data + eps) / xp.sqrt(acc_g._data + eps) * g
        acc_delta._data *= rho
        acc_delta._data += keep * delta * delta
        weight._data -= delta + dt(wd) * weight._data


# ---------------------------------------------------------------- Ftrl
@register
class Ftrl(Optimizer):
    """FTRL-proximal (McMahan et al. 2013), with L1 strength ``lamda1``.

    With ``g = clip(rescale_grad * grad, clip_gradient)`` (clipping only for a positive
    clip_gradient) and state ``(z, n)``::

        z     += g - (sqrt(n + g * g) - sqrt(n)) * weight / lr
        n     += g * g
        weight = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) * (abs(z) > lamda1)

    Its ``learning_rate`` defaults to 0.1 and is set after the base class's, so with an
    lr_scheduler it neither replaces the scheduler's base_lr nor warns (MXNet's order).
    The state is float32 whatever the weight's dtype, as MXNet creates it.

    MXNet's sparse Ftrl kernel takes a row_sparse weight (storing every row) with a
    row_sparse gradient, and updates only the gradient's rows; for a dense weight a
    row_sparse gradient gets the standard update on the dense gradient (storage fallback),
    which also rewrites the rows the gradient does not store.
    """

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(**kwargs)
        self.lamda1 = _hyper('Ftrl', 'lamda1', lamda1)
        self.beta = _hyper('Ftrl', 'beta', beta)
        self.lr = _hyper('Ftrl', 'learning_rate', learning_rate, optional=True)

    def create_state(self, index, weight):
        return (zeros(weight.shape, weight.context),    # z
                zeros(weight.shape, weight.context))    # n

    def update(self, index, weight, grad, state):
        # MXNet's sparse kernel: a row_sparse weight (storing every row) and gradient update only
        # the gradient's rows; anything else is the standard update on the dense gradient
        lazy = isinstance(weight, RowSparseNDArray) and _is_row_sparse(grad)
        rows = grad._aux[0] if lazy else None
        grad = grad if lazy else _dense_grad(weight, grad, 'Ftrl')
        _check_arrays(weight, grad, 'Ftrl')
        self._update_count(index)
        if lazy and len(rows) == 0:
            return
        wd, lr = self._get_wd(index), self._get_lr(index)
        ct = _compute_type(weight.dtype)
        xp = weight.xp
        z, n = state
        pick = (lambda a: a._data[rows].astype(ct, copy=False)) if lazy else (lambda a: _raw(a, ct))
        g = grad._data.astype(ct, copy=False) * _param(self.rescale_grad, ct)
        if _clip_enabled(self.clip_gradient):
            g = _clip(xp, g, _param(self.clip_gradient, ct))
        w, z_old, n_old = pick(weight), pick(z), pick(n)
        lr = _param(lr, ct)
        z_new = z_old + (g - (xp.sqrt(n_old + g * g) - xp.sqrt(n_old)) * w / lr)
        n_new = n_old + g * g
        lamda1 = _param(self.lamda1, ct)
        sign = (z_new > 0).astype(ct) - (z_new < 0).astype(ct)
        w_new = (sign * lamda1 - z_new) / ((_param(self.beta, ct) + xp.sqrt(n_new)) / lr +
                                           _param(wd, ct)) * (xp.abs(z_new) > lamda1).astype(ct)
        for target, value in ((z, z_new), (n, n_new), (weight, w_new)):
            if lazy:
                target._data[rows] = value
            else:
                _store(target, value)
