"""Broadcasting: ``broadcast_add/sub/mul/div/maximum/minimum/power/hypot/mod``
(numpy rules between two inputs), ``broadcast_to``, ``broadcast_axis`` and
``broadcast_like``.  (The broadcast comparisons are in compare.py.)

The backward of a broadcast sums the gradient over the axes that were
stretched (``sum_to``), so each input gets a gradient of its own shape.
"""

from .registry import Operator, Param, register
from ..shapes import merge_shape
from .common import shape_str, normalize_axis, fresh_copy, sum_to, shape_donor_types
from .binary_math import MAXIMUM, MINIMUM, POWER, HYPOT, MOD
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


class MathBroadcast(_Broadcast):
    """``fn`` (a binary_math.BinaryFn, shared with the same-shape and scalar forms)
    between two broadcast inputs."""
    fn = None

    def forward(self, p, env, inputs, aux):
        lhs, rhs = inputs
        _broadcast_shape(self.name, lhs.shape, rhs.shape)
        return [self.fn.value(env.xp, lhs, rhs)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        (lhs, rhs), g, xp = inputs, out_grads[0], env.xp
        if not self.fn.differentiable:
            return [xp.zeros_like(lhs), xp.zeros_like(rhs)]
        y = outputs[0]
        return [sum_to(g * self.fn.d_lhs(xp, lhs, rhs, y), lhs.shape),
                sum_to(g * self.fn.d_rhs(xp, lhs, rhs, y), rhs.shape)]


@register
class BroadcastMaximum(MathBroadcast):
    """The larger of lhs and rhs (NaN if either is); a tie gives lhs the gradient."""
    name, fn = 'broadcast_maximum', MAXIMUM


@register
class BroadcastMinimum(MathBroadcast):
    """The smaller of lhs and rhs (NaN if either is); a tie gives lhs the gradient."""
    name, fn = 'broadcast_minimum', MINIMUM


@register
class BroadcastPower(MathBroadcast):
    """lhs ** rhs (MXNet's ``mx.nd.power`` of two arrays)."""
    name, fn = 'broadcast_power', POWER


@register
class BroadcastHypot(MathBroadcast):
    name, fn = 'broadcast_hypot', HYPOT


@register
class BroadcastMod(MathBroadcast):
    """lhs mod rhs with the sign of rhs, 0 where rhs is 0."""
    name, fn = 'broadcast_mod', MOD


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


@register
class BroadcastLike(Operator):
    """``lhs`` broadcast to the shape of ``rhs`` (whose values are not read).

    Without axes (or with only one of the two lists, as MXNet) lhs and rhs have
    as many dims and lhs grows its size-1 dims.  With ``lhs_axes`` and
    ``rhs_axes`` the size-1 axis ``lhs_axes[i]`` of lhs takes the size of axis
    ``rhs_axes[i]`` of rhs, and the other dims stay.  rhs gets a zero gradient.
    """
    name = 'broadcast_like'
    params = {'lhs_axes': Param('shape_or_none', None, doc='axes of lhs to grow (with rhs_axes)'),
              'rhs_axes': Param('shape_or_none', None, doc='the axes of rhs whose sizes they take')}

    def infer_type(self, p, in_types, out_types, aux_types):
        return shape_donor_types(in_types, out_types, aux_types)

    def inputs(self, p):
        return ['lhs', 'rhs']

    def _out_shape(self, p, lhs, rhs):
        if p.lhs_axes is None or p.rhs_axes is None:
            if len(lhs) != len(rhs):
                raise ShapeError("broadcast_like: input 'lhs' of shape %s cannot be broadcast like 'rhs' of "
                                 "shape %s (the number of dims must match)" % (shape_str(lhs), shape_str(rhs)))
            out = []
            for left, right in zip(lhs, rhs):
                if left and right and left != right and left != 1:
                    raise ShapeError("broadcast_like: input 'lhs' of shape %s cannot be broadcast like 'rhs' of "
                                     "shape %s (only size-1 dims can grow)" % (shape_str(lhs), shape_str(rhs)))
                out.append(right if right else (0 if left == 1 else left))
            return tuple(out)
        if len(p.lhs_axes) != len(p.rhs_axes) or not p.lhs_axes:
            raise ParamError('broadcast_like: lhs_axes=%s and rhs_axes=%s must be non-empty and of one length'
                             % (tuple(p.lhs_axes), tuple(p.rhs_axes)))
        out = list(lhs)
        for la, ra in zip(p.lhs_axes, p.rhs_axes):
            la = normalize_axis(self.name, 'lhs_axes', la, len(lhs))
            ra = normalize_axis(self.name, 'rhs_axes', ra, len(rhs))
            if lhs[la] and lhs[la] != 1:
                raise ShapeError("broadcast_like: axis %d of input 'lhs' (shape %s) must have size 1 to take "
                                 "the size of axis %d of 'rhs' (shape %s)" % (la, shape_str(lhs), ra, shape_str(rhs)))
            out[la] = rhs[ra]
        return tuple(out)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        lhs, rhs = in_shapes
        out = out_shapes[0]
        if lhs is not None and rhs is not None:
            out = merge_shape(out, self._out_shape(p, lhs, rhs), 'broadcast_like output')
        return [lhs, rhs], [out], aux_shapes

    def backward_reads(self, p):
        return [], []

    def forward(self, p, env, inputs, aux):
        lhs, rhs = inputs
        return [fresh_copy(env.xp, env.xp.broadcast_to(lhs, self._out_shape(p, lhs.shape, rhs.shape)))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        lhs, rhs = inputs
        return [sum_to(out_grads[0], lhs.shape), env.xp.zeros_like(rhs)]
