"""Contributed optimizers: GroupAdaGrad (``mx.optimizer.contrib`` in MXNet as here)."""

from ..ndarray import zeros
from .optimizer import (Optimizer, OptimizerError, register, _check_arrays, _clip, _clip_enabled, _dense_grad,
                        _hyper, _is_row_sparse, _param, _raw, _store)

__all__ = ['GroupAdaGrad']


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one step size per row of a 2-D weight (an embedding's row, say).

    ::

        g        = clip(rescale_grad * grad, clip_gradient)    # clips unless clip_gradient is None
        history += mean(g * g, axis=1, keepdims=True)          # shape (rows, 1), float32
        weight  -= lr * g / sqrt(history + eps)

    It has no weight decay: a non-zero wd (after wd_mult) is an error, as in MXNet.

    A row_sparse gradient takes MXNet's sparse kernel: only the gradient's rows of the
    weight and the history change, the row's mean square is summed in order along the
    row, and clipping needs a positive clip_gradient (0 and negatives: no clip).
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
        _check_arrays(weight, grad, 'GroupAdaGrad')
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        if wd != 0:
            raise OptimizerError('GroupAdaGrad does not support weight decay; weight %r has wd=%g '
                                 '(set wd=0 or its wd_mult to 0)' % (index, wd))
        if _is_row_sparse(grad):
            self._sparse_rows(weight, grad, state, lr)
            return
        grad = _dense_grad(weight, grad, 'GroupAdaGrad')
        ct = weight._data.dtype.type
        xp = weight.xp
        g = grad._data.astype(ct, copy=False) * _param(self.rescale_grad, ct)
        if self.clip_gradient is not None:
            g = _clip(xp, g, _param(self.clip_gradient, ct))
        history = _raw(state, state._data.dtype.type)
        _store(state, history + (g * g).mean(axis=1, keepdims=True).astype(history.dtype, copy=False))
        div = _param(lr, ct) * g / xp.sqrt(_raw(state, ct) + _param(self.float_stable_eps, ct))
        _store(weight, _raw(weight, ct) - div)

    def _sparse_rows(self, weight, grad, history, lr):
        """MXNet's sparse group_adagrad_update: the rows ``grad`` stores, and no other."""
        rows = grad._aux[0]
        if len(rows) == 0:
            return
        ct = weight._data.dtype.type
        xp = weight.xp
        g = grad._data.astype(ct, copy=False) * _param(self.rescale_grad, ct)
        if _clip_enabled(self.clip_gradient):      # MXNet hands the kernel only a truthy bound
            g = _clip(xp, g, _param(self.clip_gradient, ct))
        # the kernel adds the squares one after another along the row: a running sum
        row_sums = xp.cumsum(g * g, axis=1)[:, -1:]
        history._data[rows] = history._data[rows] + (row_sums / ct(g.shape[1])).astype(history._data.dtype)
        div = _param(lr, ct) * g / xp.sqrt(history._data[rows].astype(ct, copy=False) +
                                           _param(self.float_stable_eps, ct))
        weight._data[rows] = weight._data[rows] - div
