"""Operators that lay the same elements out anew: ``tile``, ``repeat``, ``stack``,
``squeeze``, ``reshape_like``, ``diag``, ``depth_to_space`` and ``space_to_depth``.

(Reshape, Flatten, transpose, Concat and split are in shape.py; this file holds the ones
added after it, so that each reads in a sitting.)  The gradient of an operator that copies
an element to several places adds those places' gradients back up.
"""

from .registry import Operator, Param, register
from ..shapes import merge_shape, shape_is_known
from ..shapes import prod as _prod
from .common import shape_str, normalize_axis, fresh_copy, reshaped_into, shape_donor_types
from .shape import _SameValues
from ..base import ParamError, ShapeError


# ================================================================ tile / repeat
@register
class Tile(Operator):
    """The input repeated ``reps[i]`` times along axis ``i``, as ``numpy.tile``: the shorter
    of ``reps`` and the input's shape is padded with leading 1s."""
    name = 'tile'
    params = {'reps': Param('shape', doc='how many copies along each axis', low=1)}

    def _padded(self, p, shape):
        n = max(len(shape), len(p.reps))
        return (1,) * (n - len(shape)) + tuple(shape), (1,) * (n - len(p.reps)) + tuple(p.reps)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            shape, reps = self._padded(p, data)
            out = merge_shape(out, tuple(d * r for d, r in zip(shape, reps)), 'tile output')
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        return [env.xp.tile(inputs[0], tuple(p.reps))]

    def backward_reads(self, p):
        return [], []              # only the input's shape: backward runs even before a forward

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x = inputs[0]
        shape, reps = self._padded(p, x.shape)
        split = [v for pair in zip(reps, shape) for v in pair]      # (r0, d0, r1, d1, ...)
        g = out_grads[0].reshape(split).sum(axis=tuple(range(0, len(split), 2)))
        return [g.reshape(x.shape)]


@register
class Repeat(Operator):
    """Each element repeated ``repeats`` times along ``axis``, as ``numpy.repeat``; with
    ``axis=None`` the input is flattened first."""
    name = 'repeat'
    params = {
        'repeats': Param('int', doc='copies of each element', low=0),
        'axis': Param('int_or_none', None, doc='the axis to repeat along; None flattens first'),
    }

    def _out_shape(self, p, shape):
        if p.axis is None:
            return (_prod(shape) * p.repeats if all(shape) else 0,)
        axis = normalize_axis(self.name, 'axis', p.axis, len(shape))
        return tuple(shape[:axis]) + (shape[axis] * p.repeats,) + tuple(shape[axis + 1:])

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            out = merge_shape(out, self._out_shape(p, data), 'repeat output')
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        if p.axis is None:
            return [env.xp.repeat(x.reshape(-1), p.repeats)]
        return [env.xp.repeat(x, p.repeats, axis=normalize_axis(self.name, 'axis', p.axis, x.ndim))]

    def backward_reads(self, p):
        return [], []              # only the input's shape, as tile

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x, g = inputs[0], out_grads[0]
        if p.axis is None:
            return [g.reshape(x.size, p.repeats).sum(axis=1).reshape(x.shape)]
        axis = normalize_axis(self.name, 'axis', p.axis, x.ndim)
        split = x.shape[:axis + 1] + (p.repeats,) + x.shape[axis + 1:]
        return [g.reshape(split).sum(axis=axis + 1)]


# ================================================================ stack
@register
class Stack(Operator):
    """``num_args`` inputs of one shape joined along a new axis ``axis`` (inputs ``arg0``,
    ``arg1``, ...)."""
    name = 'stack'
    key_var_num_args = 'num_args'
    params = {
        'axis': Param('int', 0, doc='where the new axis goes (negative counts from the end)'),
        'num_args': Param('int', doc='number of inputs (set from the number of arguments)', low=1),
    }

    def inputs(self, p):
        return ['arg%d' % i for i in range(p.num_args)]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        known = None
        for k, s in enumerate(in_shapes):
            known = merge_shape(known, s, "stack input 'arg%d'" % k)
        out = out_shapes[0]
        if known is None and out is not None and len(out) >= 1:
            axis = normalize_axis(self.name, 'axis', p.axis, len(out) - 1, extra=1)
            known = tuple(out[:axis]) + tuple(out[axis + 1:])
        if known is not None:
            axis = normalize_axis(self.name, 'axis', p.axis, len(known), extra=1)
            out = merge_shape(out, tuple(known[:axis]) + (p.num_args,) + tuple(known[axis:]), 'stack output')
            known = tuple(out[:axis]) + tuple(out[axis + 1:])
        return [known] * len(in_shapes), [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        first = inputs[0].shape
        for k, x in enumerate(inputs):
            if x.shape != first:
                raise ShapeError("stack: input 'arg%d' has shape %s but 'arg0' has shape %s; all must agree"
                                 % (k, shape_str(x.shape), shape_str(first)))
        axis = normalize_axis(self.name, 'axis', p.axis, len(first), extra=1)
        return [env.xp.stack(list(inputs), axis=axis)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        g = out_grads[0]
        axis = normalize_axis(self.name, 'axis', p.axis, inputs[0].ndim, extra=1)
        return [g[(slice(None),) * axis + (k,)] for k in range(p.num_args)]


# ================================================================ squeeze / reshape_like
@register
class Squeeze(_SameValues):
    """The input without its size-1 axes: all of them for ``axis=None`` (an input of only
    1s keeps shape ``(1,)``: MXNet 1.x has no 0-d arrays), or those listed in ``axis``, each
    of which must have size 1.  ``axis=()`` removes none, as in MXNet 1.9.1."""
    name = 'squeeze'
    params = {'axis': Param('shape_or_none', None, doc='the axes to remove; None removes every size-1 axis')}

    def _out_shape(self, p, shape):
        if p.axis is None:
            kept = tuple(d for d in shape if d != 1)
        else:
            axes = {normalize_axis(self.name, 'axis entry', a, len(shape)) for a in p.axis}
            for a in sorted(axes):
                if shape[a] not in (0, 1):
                    raise ShapeError("squeeze: axis %d of input 'data' %s has size %d, not 1"
                                     % (a, shape_str(shape), shape[a]))
            kept = tuple(d for i, d in enumerate(shape) if i not in axes)
        return kept if kept else (1,)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None and (p.axis is not None or shape_is_known(data)):
            out = merge_shape(out, self._out_shape(p, data), 'squeeze output')
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        return [reshaped_into(env, x, self._out_shape(p, x.shape), env.target(0))]


@register
class ReshapeLike(_SameValues):
    """``lhs``'s elements in a shape made from ``rhs``'s: axes ``[lhs_begin, lhs_end)`` of
    ``lhs`` are replaced by axes ``[rhs_begin, rhs_end)`` of ``rhs`` (None: the whole
    shape, negative: from the end).  The element count must not change.  ``rhs``'s values
    are not read; its gradient is zero."""
    name = 'reshape_like'
    params = {
        'lhs_begin': Param('int_or_none', None, doc="first axis of lhs to replace (None: 0)"),
        'lhs_end': Param('int_or_none', None, doc="axis of lhs past the last replaced (None: ndim)"),
        'rhs_begin': Param('int_or_none', None, doc="first axis of rhs to use (None: 0)"),
        'rhs_end': Param('int_or_none', None, doc="axis of rhs past the last used (None: ndim)"),
    }

    def infer_type(self, p, in_types, out_types, aux_types):
        return shape_donor_types(in_types, out_types, aux_types)

    def inputs(self, p):
        return ['lhs', 'rhs']

    def _range(self, which, begin, end, ndim):
        b = 0 if begin is None else (begin + ndim if begin < 0 else begin)
        e = ndim if end is None else (end + ndim if end < 0 else end)
        if not 0 <= b < e <= ndim:
            raise ShapeError('reshape_like: %s_begin=%s, %s_end=%s give axes [%d, %d) of a %d-d %s; '
                             'they must be a non-empty range within it' % (which, begin, which, end, b, e, ndim, which))
        return b, e

    def _out_shape(self, p, lhs, rhs):
        lb, le = self._range('lhs', p.lhs_begin, p.lhs_end, len(lhs))
        rb, re = self._range('rhs', p.rhs_begin, p.rhs_end, len(rhs))
        out = tuple(lhs[:lb]) + tuple(rhs[rb:re]) + tuple(lhs[le:])
        if shape_is_known(lhs) and shape_is_known(out) and _prod(out) != _prod(lhs):
            raise ShapeError("reshape_like: cannot reshape 'lhs' %s (%d elements) to %s (%d elements) taken "
                             "from 'rhs' %s" % (shape_str(lhs), _prod(lhs), shape_str(out), _prod(out), shape_str(rhs)))
        return out

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        lhs, rhs = in_shapes
        out = out_shapes[0]
        if lhs is not None and rhs is not None:
            out = merge_shape(out, self._out_shape(p, lhs, rhs), 'reshape_like output')
        return [lhs, rhs], [out], aux_shapes

    def inplace(self, p):
        return [(0, 0)]

    def forward(self, p, env, inputs, aux):
        lhs, rhs = inputs
        return [reshaped_into(env, lhs, self._out_shape(p, lhs.shape, rhs.shape), env.target(0))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [reshaped_into(env, out_grads[0], inputs[0].shape, env.grad_target(0)), None]


# ================================================================ diag
@register
class Diag(Operator):
    """A 1-d input becomes a square matrix with it on diagonal ``k`` (above the main one
    for k > 0).  A 2-d or larger input gives its diagonal ``k`` in the plane of axes
    ``axis1`` and ``axis2``, as a new last axis (``numpy.diagonal``).  MXNet 1.9.1 refuses
    a diagonal that starts past the matrix (``k`` above the column count or below minus
    the row count)."""
    name = 'diag'
    params = {
        'k': Param('int', 0, doc='which diagonal: 0 main, > 0 above, < 0 below'),
        'axis1': Param('int', 0, doc='the row axis of the plane (inputs of 2 or more dims)'),
        'axis2': Param('int', 1, doc='the column axis of the plane'),
    }

    def _plane(self, p, shape):
        a1 = normalize_axis(self.name, 'axis1', p.axis1, len(shape))
        a2 = normalize_axis(self.name, 'axis2', p.axis2, len(shape))
        if a1 == a2:
            raise ParamError('diag: axis1=%d and axis2=%d name the same axis' % (p.axis1, p.axis2))
        rows, cols = shape[a1], shape[a2]
        if rows and cols and (p.k > cols or -p.k > rows):
            raise ShapeError("diag: diagonal k=%d does not exist in the %dx%d plane of axes (%d, %d) of input "
                             "'data' %s" % (p.k, rows, cols, a1, a2, shape_str(shape)))
        return a1, a2

    def _out_shape(self, p, shape):
        if len(shape) == 1:
            n = shape[0] + abs(p.k) if shape[0] else 0
            return (n, n)
        a1, a2 = self._plane(p, shape)
        rows, cols = shape[a1], shape[a2]
        length = max(0, min(rows + min(p.k, 0), cols - max(p.k, 0))) if rows and cols else 0
        return tuple(d for i, d in enumerate(shape) if i not in (a1, a2)) + (length,)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            if len(data) == 0:
                raise ShapeError("diag: input 'data' needs at least 1 dim, got shape ()")
            out = merge_shape(out, self._out_shape(p, data), 'diag output')
        return [data], [out], aux_shapes

    @staticmethod
    def _cells(xp, p, length):
        return xp.arange(length) + max(-p.k, 0), xp.arange(length) + max(p.k, 0)

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        if x.ndim == 1:
            n = x.shape[0] + abs(p.k)
            out = xp.zeros((n, n), dtype=x.dtype)
            rows, cols = self._cells(xp, p, x.shape[0])
            out[rows, cols] = x
            return [out]
        a1, a2 = self._plane(p, x.shape)
        return [fresh_copy(xp, xp.diagonal(x, p.k, a1, a2))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x, g = env.xp, inputs[0], out_grads[0]
        if x.ndim == 1:
            return [fresh_copy(xp, xp.diagonal(g, p.k))]
        a1, a2 = self._plane(p, x.shape)
        grad = xp.zeros_like(x)
        plane = xp.moveaxis(grad, (a1, a2), (-2, -1))        # a view: writes land in grad
        rows, cols = self._cells(xp, p, g.shape[-1])
        plane[..., rows, cols] = g
        return [grad]


# ================================================================ depth <-> space
def _blocks_check(op, shape, b, space):
    if len(shape) != 4:
        raise ShapeError("%s: input 'data' must be 4-d (N, C, H, W), got shape %s" % (op, shape_str(shape)))
    n, c, h, w = shape
    if not space and c and c % (b * b):
        raise ShapeError("%s: the channels of input 'data' %s must divide by block_size**2 = %d"
                         % (op, shape_str(shape), b * b))
    if space and ((h and h % b) or (w and w % b)):
        raise ShapeError("%s: height and width of input 'data' %s must divide by block_size = %d"
                         % (op, shape_str(shape), b))


def _depth_to_space(x, b):
    n, c, h, w = x.shape
    y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return y.reshape(n, c // (b * b), h * b, w * b)


def _space_to_depth(x, b):
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


class _Blocks(Operator):
    """Shared by depth_to_space and space_to_depth, each the other's inverse (and gradient)."""
    params = {'block_size': Param('int', doc='the side of each block of pixels', low=1)}
    to_space = None

    def _out_shape(self, p, shape):
        _blocks_check(self.name, shape, p.block_size, space=not self.to_space)
        n, c, h, w = shape
        b2 = p.block_size ** 2
        if self.to_space:
            return (n, c // b2, h * p.block_size, w * p.block_size)
        return (n, c * b2, h // p.block_size, w // p.block_size)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            out = merge_shape(out, self._out_shape(p, data), '%s output' % self.name)
        return [data], [out], aux_shapes

    @staticmethod
    def _move(x, b, to_space):
        return _depth_to_space(x, b) if to_space else _space_to_depth(x, b)

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        self._out_shape(p, x.shape)
        return [env.xp.ascontiguousarray(self._move(x, p.block_size, self.to_space))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.ascontiguousarray(self._move(out_grads[0], p.block_size, not self.to_space))]


@register
class DepthToSpace(_Blocks):
    """(N, C, H, W) -> (N, C/b^2, H*b, W*b): each group of b^2 channels becomes a b x b block
    of pixels (MXNet's order: the block position is the slowest-varying part of the channel)."""
    name = 'depth_to_space'
    to_space = True


@register
class SpaceToDepth(_Blocks):
    """(N, C, H, W) -> (N, C*b^2, H/b, W/b): the inverse of depth_to_space."""
    name = 'space_to_depth'
    to_space = False
