"""Broadcasting: ``broadcast_add/sub/mul/div`` (numpy rules between two
inputs), ``broadcast_to`` and ``broadcast_axis``.

The backward of a broadcast sums the gradient over the axes that were
stretched (``sum_to``), so each input gets a gradient of its own shape.
"""

from .registry import Operator, Param, register, merge_shape
from .common import shape_str, normalize_axis, fresh_copy, sum_to
from ..base import ParamError, ShapeError


# ================================================================ broadcasting
def _broadcast_shape(op, lhs, rhs):
    """numpy-style broadcast of two shapes (shorter one padded with leading 1s); 0 = unknown."""
    ndim = max(len(lhs), len(rhs))
    lpad = (1,) * (ndim - len(lhs)) + tuple(lhs)
    rpad = (1,) * (ndim - len(rhs)) + tuple(rhs)
    out = []
    for left, right in zip(lpad, rpad):
        if not left or not right:
            out.append(0)
        elif left == right or right == 1:
            out.append(left)
        elif left == 1:
            out.append(right)
        else:
            raise ShapeError("%s: inputs 'lhs' %s and 'rhs' %s cannot be broadcast together "
                             "(each dim pair must be equal or contain a 1)" % (op, shape_str(lhs), shape_str(rhs)))
    return tuple(out)


class _Broadcast(Operator):
    """Two inputs broadcast against each other (numpy rules), one output."""

    def inputs(self, p):
        return ['lhs', 'rhs']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        lhs, rhs = in_shapes
        out = out_shapes[0]
        if lhs is not None and rhs is not None:
            out = merge_shape(out, _broadcast_shape(self.name, lhs, rhs), '%s output' % self.name)
        return [lhs, rhs], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        lhs, rhs = inputs
        _broadcast_shape(self.name, lhs.shape, rhs.shape)
        return [self.compute(lhs, rhs)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        lhs, rhs = inputs
        dl, dr = self.grads(out_grads[0], lhs, rhs)
        return [sum_to(dl, lhs.shape), sum_to(dr, rhs.shape)]


@register
class BroadcastAdd(_Broadcast):
    name = 'broadcast_add'
    aliases = ('broadcast_plus',)

    def compute(self, a, b):
        return a + b

    def grads(self, g, a, b):
        return g, g


@register
class BroadcastSub(_Broadcast):
    name = 'broadcast_sub'
    aliases = ('broadcast_minus',)

    def compute(self, a, b):
        return a - b

    def grads(self, g, a, b):
        return g, -g


@register
class BroadcastMul(_Broadcast):
    name = 'broadcast_mul'

    def compute(self, a, b):
        return a * b

    def grads(self, g, a, b):
        return g * b, g * a


@register
class BroadcastDiv(_Broadcast):
    name = 'broadcast_div'

    def compute(self, a, b):
        return a / b

    def grads(self, g, a, b):
        return g / b, -g * a / (b * b)


@register
class BroadcastTo(Operator):
    """Repeat size-1 axes to reach ``shape`` (same ndim; a 0 in ``shape`` keeps that input dim)."""
    name = 'broadcast_to'
    params = {'shape': Param('shape', (), doc='the target shape; 0 keeps the input dim')}

    def _out_shape(self, p, data):
        if len(p.shape) != len(data):
            raise ShapeError("broadcast_to: input 'data' of shape %s cannot be broadcast to %s "
                             "(the number of dims must match)" % (shape_str(data), tuple(p.shape)))
        out = []
        for d, t in zip(data, p.shape):
            if t == 0:
                out.append(d)
            elif d and d != 1 and d != t:
                raise ShapeError("broadcast_to: input 'data' of shape %s cannot be broadcast to %s "
                                 "(only size-1 dims can grow)" % (shape_str(data), tuple(p.shape)))
            else:
                out.append(t)
        return tuple(out)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            out = merge_shape(out, self._out_shape(p, data), 'broadcast_to output')
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        return [fresh_copy(env.xp, env.xp.broadcast_to(x, self._out_shape(p, x.shape)))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [sum_to(out_grads[0], inputs[0].shape)]


@register
class BroadcastAxis(Operator):
    """Repeat the size-1 axes listed in ``axis`` to the sizes in ``size``."""
    name = 'broadcast_axis'
    aliases = ('broadcast_axes',)
    params = {'axis': Param('shape', (), doc='axes to grow (each must have size 1)'),
              'size': Param('shape', (), doc='the new size of each axis')}

    def _out_shape(self, p, data):
        if len(p.axis) != len(p.size):
            raise ParamError('broadcast_axis: axis=%s and size=%s must have the same length'
                             % (tuple(p.axis), tuple(p.size)))
        out = list(data)
        for a, n in zip(p.axis, p.size):
            a = normalize_axis(self.name, 'axis', a, len(data))
            if data[a] and data[a] != 1:
                raise ShapeError("broadcast_axis: axis %d of input 'data' (shape %s) must have size 1"
                                 % (a, shape_str(data)))
            out[a] = n
        return tuple(out)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            out = merge_shape(out, self._out_shape(p, data), 'broadcast_axis output')
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        return [fresh_copy(env.xp, env.xp.broadcast_to(x, self._out_shape(p, x.shape)))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [sum_to(out_grads[0], inputs[0].shape)]
