"""Moment-based optimizers: Adam, Adamax, Nadam (Adam's family) and FTML.

Each class writes out its update formula as MXNet 1.9.1 computes it (checked against it
step by step in tests/golden/gen_optimizer.py).  ``t`` is the number of updates of this
weight so far, this one included; ``lr`` and ``wd`` are the weight's own.
"""

import math

from ..ndarray import zeros
from .optimizer import (Optimizer, register, _check_arrays, _clip, _clip_enabled, _compute_type,
                        _dense_grad, _hyper, _is_row_sparse, _param, _raw, _store)

__all__ = ['Adam', 'Adamax', 'Nadam', 'FTML']


def _moment_state(weight):
    """Two zero arrays like ``weight`` (first and second moment)."""
    return (zeros(weight.shape, weight.context, dtype=weight.dtype),
            zeros(weight.shape, weight.context, dtype=weight.dtype))


def _python_side_grad(opt, weight, grad, wd, ct):
    """``clip(rescale_grad * grad + wd * weight)`` as MXNet's Python-written optimizers
    compute it: with NDArray operations, clipping whenever clip_gradient is not None."""
    g = grad._data.astype(ct, copy=False) * _param(opt.rescale_grad, ct) + _param(wd, ct) * _raw(weight, ct)
    if opt.clip_gradient is not None:
        g = _clip(weight.xp, g, _param(opt.clip_gradient, ct))
    return g


# ---------------------------------------------------------------- Adam
@register
class Adam(Optimizer):
    """Adam (Kingma & Ba), with MXNet's placement of the bias correction.

    With ``t`` the number of updates of this weight so far (this one included)::

        lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)         # in Python, double precision
        g    = clip(rescale_grad * grad + wd * weight, clip_gradient)
        mean = beta1 * mean + (1 - beta1) * g
        var  = beta2 * var + (1 - beta2) * g * g
        weight = weight - lr_t * mean / (sqrt(var) + epsilon)

    The bias correction rides on the learning rate, so ``epsilon`` is added to
    the uncorrected ``sqrt(var)``.  State: ``(mean, var)``.

    A row_sparse gradient gets MXNet's sparse kernels.  With ``lazy_update`` (the
    default) only the gradient's rows of the weight, mean and var change (weight decay
    acts on those rows only); with ``lazy_update=False`` every row is updated, an absent
    row with ``g = clip(wd * weight)``.  Their CPU kernels write ``(1 - beta2) * (g * g)`` where the
    dense one writes ``(1 - beta2) * g * g`` (a last-bit difference, reproduced): the lazy
    one when clipping, the standard one always.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = _hyper('Adam', 'beta1', beta1)
        self.beta2 = _hyper('Adam', 'beta2', beta2)
        self.epsilon = _hyper('Adam', 'epsilon', epsilon)
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return (zeros(weight.shape, weight.context, dtype=weight.dtype),   # mean
                zeros(weight.shape, weight.context, dtype=weight.dtype))   # var

    def update(self, index, weight, grad, state):
        _check_arrays(weight, grad, 'Adam')
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        lr *= math.sqrt(1. - self.beta2 ** t) / (1. - self.beta1 ** t)
        mean, var = state
        if _is_row_sparse(grad) and self.lazy_update:
            self._lazy_rows(weight, grad, mean, var, lr, wd)
            return
        square_first = _is_row_sparse(grad)       # the standard sparse kernel's rounding
        grad = _dense_grad(weight, grad, 'Adam')
        ct = _compute_type(weight.dtype)
        w, m, v = self._step(weight.xp, _raw(weight, ct), grad._data, _raw(mean, ct), _raw(var, ct),
                             lr, wd, square_first)
        _store(mean, m)
        _store(var, v)
        _store(weight, w)

    def _lazy_rows(self, weight, grad, mean, var, lr, wd):
        """adam_update's lazy kernel: the rows ``grad`` stores, and no other."""
        rows = grad._aux[0]
        if len(rows) == 0:
            return
        ct = _compute_type(weight.dtype)
        w, m, v = self._step(weight.xp, weight._data[rows].astype(ct, copy=False), grad._data,
                             mean._data[rows].astype(ct, copy=False), var._data[rows].astype(ct, copy=False),
                             lr, wd, square_first=_clip_enabled(self.clip_gradient))
        mean._data[rows] = m
        var._data[rows] = v
        weight._data[rows] = w

    def _step(self, xp, w, grad_values, mean, var, lr, wd, square_first):
        """New ``(weight, mean, var)`` from their values (in the compute type) and the gradient's.

        ``square_first``: ``(1 - beta2) * (g * g)`` rather than the dense kernel's
        ``(1 - beta2) * g * g``.
        """
        ct = w.dtype.type
        g = grad_values.astype(ct, copy=False) * _param(self.rescale_grad, ct) + _param(wd, ct) * w
        if _clip_enabled(self.clip_gradient):
            g = _clip(xp, g, _param(self.clip_gradient, ct))
        b1, b2 = _param(self.beta1, ct), _param(self.beta2, ct)
        m = b1 * mean + (ct(1) - b1) * g
        v = b2 * var + ((ct(1) - b2) * (g * g) if square_first else (ct(1) - b2) * g * g)
        return w - _param(lr, ct) * m / (xp.sqrt(v) + _param(self.epsilon, ct)), m, v


# ---------------------------------------------------------------- Adamax
@register
class Adamax(Optimizer):
    """AdaMax (Kingma & Ba, section 7): Adam with the infinity norm in place of the second moment.

    ::

        g      = clip(rescale_grad * grad + wd * weight, clip_gradient)   # unless it is None
        m      = beta1 * m + (1 - beta1) * g
        u      = maximum(beta2 * u, abs(g))
        weight = weight - lr / (1 - beta1**t) * m / u

    State ``(m, u)`` in the weight's dtype.  A coordinate whose gradients were all 0 has
    ``u = 0`` and turns NaN, in MXNet too.
    """

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = _hyper('Adamax', 'beta1', beta1)
        self.beta2 = _hyper('Adamax', 'beta2', beta2)

    def create_state(self, index, weight):
        return _moment_state(weight)

    def update(self, index, weight, grad, state):
        grad = _dense_grad(weight, grad, 'Adamax')     # a sparse gradient: storage fallback
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        lr /= (1. - self.beta1 ** t)
        ct = _compute_type(weight.dtype)
        xp = weight.xp
        g = _python_side_grad(self, weight, grad, wd, ct)
        m_t, u_t = state
        _store(m_t, _raw(m_t, ct) * _param(self.beta1, ct) + _param(1. - self.beta1, ct) * g)
        _store(u_t, xp.maximum(_param(self.beta2, ct) * _raw(u_t, ct), xp.abs(g)))
        _store(weight, _raw(weight, ct) - _param(lr, ct) * _raw(m_t, ct) / _raw(u_t, ct))


# ---------------------------------------------------------------- Nadam
@register
class Nadam(Optimizer):
    """Nadam (Dozat 2016): Adam with Nesterov momentum and a warming momentum schedule.

    With ``g = clip(rescale_grad * grad + wd * weight, clip_gradient)`` (unless None)::

        mu_t        = beta1 * (1 - 0.5 * 0.96**(t * schedule_decay))
        mu_next     = beta1 * (1 - 0.5 * 0.96**((t + 1) * schedule_decay))
        m_schedule  = m_schedule * mu_t                  # ONE product for all weights
        m           = beta1 * m + (1 - beta1) * g
        v           = beta2 * v + (1 - beta2) * g * g
        m_bar       = (1 - mu_t) * g / (1 - m_schedule) + mu_next * m / (1 - m_schedule * mu_next)
        weight      = weight - lr * m_bar / (sqrt(v / (1 - beta2**t)) + epsilon)

    ``m_schedule`` is an attribute of the optimizer, multiplied once per update of *any*
    weight, so a network's weights share it and later weights see a longer product: that
    is MXNet 1.9.1's behaviour, kept.  State ``(m, v)`` in the weight's dtype.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = _hyper('Nadam', 'beta1', beta1)
        self.beta2 = _hyper('Nadam', 'beta2', beta2)
        self.epsilon = _hyper('Nadam', 'epsilon', epsilon)
        self.schedule_decay = _hyper('Nadam', 'schedule_decay', schedule_decay)
        self.m_schedule = 1.

    def create_state(self, index, weight):
        return _moment_state(weight)

    def update(self, index, weight, grad, state):
        grad = _dense_grad(weight, grad, 'Nadam')     # a sparse gradient: storage fallback
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        ct = _compute_type(weight.dtype)
        g = _python_side_grad(self, weight, grad, wd, ct)
        mu_t = self.beta1 * (1. - 0.5 * (pow(0.96, t * self.schedule_decay)))
        mu_next = self.beta1 * (1. - 0.5 * (pow(0.96, (t + 1) * self.schedule_decay)))
        self.m_schedule = self.m_schedule * mu_t
        m_schedule_next = self.m_schedule * mu_next
        m_t, v_t = state
        _store(m_t, _raw(m_t, ct) * _param(self.beta1, ct) + _param(1. - self.beta1, ct) * g)
        _store(v_t, _raw(v_t, ct) * _param(self.beta2, ct) + _param(1. - self.beta2, ct) * g * g)
        g_prime = g / _param(1. - self.m_schedule, ct)
        m_prime = _raw(m_t, ct) / _param(1. - m_schedule_next, ct)
        v_prime = _raw(v_t, ct) / _param(1. - pow(self.beta2, t), ct)
        m_bar = _param(1. - mu_t, ct) * g_prime + _param(mu_next, ct) * m_prime
        _store(weight, _raw(weight, ct) - _param(lr, ct) * m_bar /
               (weight.xp.sqrt(v_prime) + _param(self.epsilon, ct)))


# ---------------------------------------------------------------- FTML
@register
class FTML(Optimizer):
    """FTML, follow the moving leader (Zheng & Kwok 2017).

    With ``g = clip(rescale_grad * grad + wd * weight, clip_gradient)`` (clipping only for a
    positive clip_gradient) and state ``(d, v, z)`` in the weight's dtype::

        v      = beta2 * v + (1 - beta2) * g * g
        d_t    = (1 - beta1**t) / lr * (sqrt(v / (1 - beta2**t)) + epsilon)
        z      = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * weight
        d      = d_t
        weight = -z / d_t

    MXNet's kernel computes the powers in the weight's dtype too.
    """

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1 = _hyper('FTML', 'beta1', beta1)
        self.beta2 = _hyper('FTML', 'beta2', beta2)
        self.epsilon = _hyper('FTML', 'epsilon', epsilon)

    def create_state(self, index, weight):
        return (zeros(weight.shape, weight.context, dtype=weight.dtype),   # d
                zeros(weight.shape, weight.context, dtype=weight.dtype),   # v
                zeros(weight.shape, weight.context, dtype=weight.dtype))   # z

    def update(self, index, weight, grad, state):
        grad = _dense_grad(weight, grad, 'FTML')     # a sparse gradient: storage fallback
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        ct = _compute_type(weight.dtype)
        xp = weight.xp
        w = _raw(weight, ct)
        g = _param(self.rescale_grad, ct) * grad._data.astype(ct, copy=False) + _param(wd, ct) * w
        if _clip_enabled(self.clip_gradient):
            g = _clip(xp, g, _param(self.clip_gradient, ct))
        d, v, z = state
        b1, b2, one, tt = _param(self.beta1, ct), _param(self.beta2, ct), ct(1), ct(t)
        _store(v, b2 * _raw(v, ct) + (one - b2) * (g * g))
        d_t = (one - b1 ** tt) / _param(lr, ct) * (xp.sqrt(_raw(v, ct) / (one - b2 ** tt)) +
                                                   _param(self.epsilon, ct))
        _store(z, b1 * _raw(z, ct) + (one - b1) * g - (d_t - b1 * _raw(d, ct)) * w)
        _store(d, d_t)
        _store(weight, -_raw(z, ct) / d_t)
