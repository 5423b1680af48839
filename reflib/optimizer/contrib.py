"""Contributed optimizers: GroupAdaGrad (``mx.optimizer.contrib`` in MXNet as here)."""

from ..ndarray import zeros
from .optimizer import Optimizer, OptimizerError, register, _check_dense, _clip, _hyper, _param, _raw, _store

__all__ = ['GroupAdaGrad']


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one step size per row of a 2-D weight (an embedding's row, say).

    ::

        g        = clip(rescale_grad * grad, clip_gradient)    # clips unless clip_gradient is None
        history += mean(g * g, axis=1, keepdims=True)          # shape (rows, 1), float32
        weight  -= lr * g / sqrt(history + eps)

    It has no weight decay: a non-zero wd (after wd_mult) is an error, as in MXNet.
    """

    def __init__(self, eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = _hyper('GroupAdaGrad', 'eps', eps)

    def create_state(self, index, weight):
        if len(weight.shape) != 2:
            raise OptimizerError('GroupAdaGrad keeps one history value per row of a 2-D weight; '
                                 'weight %r has shape %s' % (index, weight.shape))
        return zeros((weight.shape[0], 1), weight.context)

    def update(self, index, weight, grad, state):
        _check_dense(weight, grad, 'GroupAdaGrad')
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        if wd != 0:
            raise OptimizerError('GroupAdaGrad does not support weight decay; weight %r has wd=%g '
                                 '(set wd=0 or its wd_mult to 0)' % (index, wd))
        ct = weight._data.dtype.type
        xp = weight.xp
        g = grad._data.astype(ct, copy=False) * _param(self.rescale_grad, ct)
        if self.clip_gradient is not None:
            g = _clip(xp, g, _param(self.clip_gradient, ct))
        history = _raw(state, state._data.dtype.type)
        _store(state, history + (g * g).mean(axis=1, keepdims=True).astype(history.dtype, copy=False))
        div = _param(lr, ct) * g / xp.sqrt(_raw(state, ct) + _param(self.float_stable_eps, ct))
        _store(weight, _raw(weight, ct) - div)
