"""Operators that reorder axes of a sequence: ``reverse`` (flip along axes, what a
bidirectional RNN does to its backward half's outputs) and ``SwapAxis`` (exchange two axes,
what turns a time-major sequence batch-major)."""

from ..base import ShapeError
from .registry import Operator, Param, merge_shape, register


def _axis(op, axis, ndim):
    if not -ndim <= axis < ndim:
        raise ShapeError('%s: axis %d is out of range for %d dimensions' % (op, axis, ndim))
    return axis % ndim


@register
class Reverse(Operator):
    """The input with the order of its elements reversed along each axis in ``axis``."""
    name = 'reverse'
    aliases = ('flip',)
    params = {'axis': Param('shape', doc='the axes to reverse')}

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        axes = tuple(_axis(self.name, a, x.ndim) for a in p.axis)
        return [env.xp.ascontiguousarray(env.xp.flip(x, axis=axes))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        g = out_grads[0]
        axes = tuple(_axis(self.name, a, g.ndim) for a in p.axis)
        return [env.xp.ascontiguousarray(env.xp.flip(g, axis=axes))]


@register
class SwapAxis(Operator):
    """The input with axes ``dim1`` and ``dim2`` exchanged."""
    name = 'SwapAxis'
    aliases = ('swapaxes',)
    params = {'dim1': Param('int', 0, doc='the first axis'), 'dim2': Param('int', 0, doc='the second axis')}

    def _swapped(self, p, shape):
        a, b = _axis(self.name, p.dim1, len(shape)), _axis(self.name, p.dim2, len(shape))
        swapped = list(shape)
        swapped[a], swapped[b] = swapped[b], swapped[a]
        return tuple(swapped)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            out = merge_shape(out, self._swapped(p, data), 'SwapAxis output')
        if out is not None:
            data = merge_shape(data, self._swapped(p, out), "SwapAxis input 'data'")   # its own inverse
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        return [env.xp.ascontiguousarray(env.xp.swapaxes(x, _axis(self.name, p.dim1, x.ndim),
                                                         _axis(self.name, p.dim2, x.ndim)))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        g = out_grads[0]
        return [env.xp.ascontiguousarray(env.xp.swapaxes(g, _axis(self.name, p.dim1, g.ndim),
                                                         _axis(self.name, p.dim2, g.ndim)))]
