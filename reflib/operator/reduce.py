"""Reductions: ``sum``, ``mean``, ``max``, ``min`` over an ``axis`` tuple.

MXNet 1.x has no 0-d arrays: reducing every axis without ``keepdims`` gives
shape ``(1,)``.  ``exclude=True`` reduces the axes *not* listed.
"""

from .registry import Operator, Param, register, merge_shape
from .registry import prod as _prod
from .common import fresh_copy, expand_to
from ..base import ShapeError


# ================================================================ reductions
class _Reduce(Operator):
    """Common part of sum/mean/max/min.

    ``axis`` is None or a tuple (negative entries count from the end; order
    does not matter, duplicates are an error).  None or ``()`` reduces every
    axis.  ``exclude=True`` reduces every axis *not* listed.  The output drops
    the reduced axes (keeps them as size 1 with ``keepdims``); reducing every
    axis without keepdims gives shape ``(1,)``.
    """
    params = {
        'axis': Param('shape_or_none', None, doc='axes to reduce; None or () means all'),
        'keepdims': Param('bool', False, doc='keep reduced axes with size 1'),
        'exclude': Param('bool', False, doc='reduce the axes NOT in axis'),
    }

    def _axes(self, p, ndim):
        if not p.axis:
            return tuple(range(ndim))
        axes = []
        for a in p.axis:
            if not -ndim <= a < ndim:
                raise ShapeError("%s: axis %d is out of range for input 'data' with %d dims (axis=%s)"
                                 % (self.name, a, ndim, tuple(p.axis)))
            axes.append(a + ndim if a < 0 else a)
        if len(set(axes)) != len(axes):
            raise ShapeError('%s: axis=%s names the same axis twice' % (self.name, tuple(p.axis)))
        if p.exclude:
            return tuple(i for i in range(ndim) if i not in axes)
        return tuple(sorted(axes))

    def _out_shape(self, p, shape):
        axes = self._axes(p, len(shape))
        if p.keepdims:
            return tuple(1 if i in axes else d for i, d in enumerate(shape))
        kept = tuple(d for i, d in enumerate(shape) if i not in axes)
        return kept if kept else (1,)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            out = merge_shape(out, self._out_shape(p, data), '%s output' % self.name)
        return [data], [out], aux_shapes

    def _reduce(self, xp, x, axes):
        """The reduction over ``axes`` with keepdims=True."""
        raise NotImplementedError

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        axes = self._axes(p, x.ndim)
        y = self._reduce(env.xp, x, axes) if axes else fresh_copy(env.xp, x)
        return [y.reshape(self._out_shape(p, x.shape))]

    def _kept(self, p, a, x):
        """``a`` (output-shaped) reshaped to keepdims form, so it broadcasts against ``x``."""
        axes = self._axes(p, x.ndim)
        return a.reshape(tuple(1 if i in axes else d for i, d in enumerate(x.shape)))


@register
class Sum(_Reduce):
    name = 'sum'
    aliases = ('sum_axis',)

    def _reduce(self, xp, x, axes):
        return x.sum(axis=axes, keepdims=True)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x = inputs[0]
        return [expand_to(env.xp, self._kept(p, out_grads[0], x), x)]


@register
class Mean(_Reduce):
    name = 'mean'

    def _reduce(self, xp, x, axes):
        return x.sum(axis=axes, keepdims=True) / _prod(x.shape[a] for a in axes)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x = inputs[0]
        count = _prod(x.shape[a] for a in self._axes(p, x.ndim))
        return [expand_to(env.xp, self._kept(p, out_grads[0], x) / count, x)]


class _Extreme(_Reduce):
    """max/min: the gradient goes to every element equal to the result (ties all get it in full)."""

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x = inputs[0]
        hit = x == self._kept(p, outputs[0], x)
        return [self._kept(p, out_grads[0], x) * hit]


@register
class Max(_Extreme):
    name = 'max'
    aliases = ('max_axis',)

    def _reduce(self, xp, x, axes):
        return x.max(axis=axes, keepdims=True)


@register
class Min(_Extreme):
    name = 'min'
    aliases = ('min_axis',)

    def _reduce(self, xp, x, axes):
        return x.min(axis=axes, keepdims=True)
