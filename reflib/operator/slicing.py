"""Contiguous ranges of an array: ``slice`` (alias ``crop``), ``slice_axis``, ``slice_like``
and the legacy image layer ``Crop``.

Each one's gradient is the output gradient written back into the sliced range of a zero
array the input's shape.
"""

import ast

import numpy as np

from .registry import Operator, Param, register, REQUIRED
from ..shapes import merge_shape
from .common import shape_str, normalize_axis, fresh_copy, shape_donor_types
from ..base import ParamError, ShapeError


class _IntsOrNone(Param):
    """A tuple whose entries are whole numbers or None (slice's begin, end and step); MXNet
    stores it as Python writes it, ``(0, None)``."""

    def __init__(self, default, doc=''):
        super().__init__('shape', default, doc=doc)

    def _parse_base(self, base, value):
        if isinstance(value, str):
            value = ast.literal_eval(value.strip()) if value.strip() else ()
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            value = (value,)
        if not isinstance(value, (tuple, list)):
            raise TypeError(value)
        return tuple(None if v is None else Param('int').parse(v, 'slice', 'entry') for v in value)


def _backward_into(xp, like, index, g):
    """Zeros shaped like ``like`` with ``g`` written at ``index``."""
    grad = xp.zeros_like(like)
    grad[index] = g
    return grad


def _python_slice(begin, end, step, size):
    """The slice Python would use for ``[begin:end:step]`` on an axis of ``size``, with its
    ends made explicit (a range running down past position 0 gets ``stop=None``, since an
    explicit -1 would mean the last element)."""
    start, stop, step = slice(begin, end, step).indices(size)
    return slice(start, None if stop < 0 else stop, step)


# ================================================================ slice
@register
class Slice(Operator):
    """``data[begin[0]:end[0]:step[0], begin[1]:end[1]:step[1], ...]``, with Python's
    rules: None is the natural end, negative positions count from the end, and positions
    past either end are clipped (so a range can come out empty).  Axes after the last
    entry are taken whole.  ``begin`` and ``end`` must have one length, and ``step`` too
    where given; a step of 0 is refused."""
    name = 'slice'
    aliases = ('crop',)
    params = {
        'begin': _IntsOrNone(REQUIRED, doc='first position per axis (None: the natural start)'),
        'end': _IntsOrNone(REQUIRED, doc='position past the last per axis (None: the natural end)'),
        'step': _IntsOrNone((), doc='stride per axis (None or omitted: 1)'),
    }

    def _check(self, p, ndim):
        if len(p.begin) != len(p.end):
            raise ParamError('slice: begin=%s and end=%s must have the same length' % (p.begin, p.end))
        if p.step and len(p.step) != len(p.begin):
            raise ParamError('slice: step=%s must have the length of begin=%s' % (p.step, p.begin))
        if len(p.begin) > ndim:
            raise ShapeError("slice: begin=%s slices %d axes but input 'data' has %d dims"
                             % (p.begin, len(p.begin), ndim))
        if any(s == 0 for s in p.step):
            raise ParamError('slice: step=%s has a 0 entry; steps must be nonzero' % (p.step,))

    def _ranges(self, p, shape):
        """One Python slice per axis; None for an axis of unknown size (0) that is sliced."""
        self._check(p, len(shape))
        out = []
        for i, size in enumerate(shape):
            if i >= len(p.begin):
                out.append(slice(None))
                continue
            step = p.step[i] if p.step and p.step[i] is not None else 1
            out.append(_python_slice(p.begin[i], p.end[i], step, size) if size else None)
        return out

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            ranges = self._ranges(p, data)
            dims = tuple(0 if r is None else len(range(*r.indices(d))) for r, d in zip(ranges, data))
            out = merge_shape(out, dims, 'slice output')
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        return [fresh_copy(env.xp, x[tuple(self._ranges(p, x.shape))])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x = inputs[0]
        return [_backward_into(env.xp, x, tuple(self._ranges(p, x.shape)), out_grads[0])]


@register
class SliceAxis(Operator):
    """``data`` cut to ``[begin, end)`` along ``axis``; negative positions count from the end,
    ``end=None`` is the axis size.  Unlike ``slice``, a range that is empty or runs past the
    axis is refused, as in MXNet 1.9.1."""
    name = 'slice_axis'
    params = {
        'axis': Param('int', doc='the axis to cut'),
        'begin': Param('int', doc='the first position'),
        'end': Param('int_or_none', doc='the position past the last; None is the axis size'),
    }

    def _range(self, p, shape):
        axis = normalize_axis(self.name, 'axis', p.axis, len(shape))
        size = shape[axis]
        if not size:
            return axis, None
        begin = p.begin + size if p.begin < 0 else p.begin
        end = size if p.end is None else (p.end + size if p.end < 0 else p.end)
        if not 0 <= begin < end <= size:
            raise ShapeError("slice_axis: begin=%s, end=%s give the range [%d, %d) on axis %d of input 'data' "
                             "%s; it must be non-empty and within [0, %d)"
                             % (p.begin, p.end, begin, end, axis, shape_str(shape), size))
        return axis, slice(begin, end)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            axis, r = self._range(p, data)
            size = 0 if r is None else r.stop - r.start
            out = merge_shape(out, tuple(data[:axis]) + (size,) + tuple(data[axis + 1:]), 'slice_axis output')
        return [data], [out], aux_shapes

    def _index(self, p, shape):
        axis, r = self._range(p, shape)
        return (slice(None),) * axis + (r,)

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        return [fresh_copy(env.xp, x[self._index(p, x.shape)])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x = inputs[0]
        return [_backward_into(env.xp, x, self._index(p, x.shape), out_grads[0])]


@register
class SliceLike(Operator):
    """``data`` cut from the start to the size ``shape_like`` has on each axis in ``axes``
    (every axis when ``axes`` is empty: then the two must have one ndim).  ``shape_like``'s
    values are not read; its gradient is zero."""
    name = 'slice_like'
    params = {'axes': Param('shape', (), doc='the axes to cut; empty means all')}

    def infer_type(self, p, in_types, out_types, aux_types):
        return shape_donor_types(in_types, out_types, aux_types)

    def inputs(self, p):
        return ['data', 'shape_like']

    def _axes(self, p, data, like):
        if not p.axes:
            if len(data) != len(like):
                raise ShapeError("slice_like: with axes=() input 'data' %s and 'shape_like' %s must have one ndim"
                                 % (shape_str(data), shape_str(like)))
            return list(range(len(data)))
        axes = []
        for a in p.axes:
            axis = normalize_axis(self.name, 'axes entry', a, len(data))
            if axis >= len(like):
                raise ShapeError("slice_like: axis %d of axes=%s is past the %d dims of input 'shape_like' %s"
                                 % (a, tuple(p.axes), len(like), shape_str(like)))
            axes.append(axis)
        return axes

    def _out_shape(self, p, data, like):
        out = list(data)
        for axis in self._axes(p, data, like):
            if data[axis] and like[axis] and like[axis] > data[axis]:
                raise ShapeError("slice_like: axis %d of 'shape_like' %s is longer than that of input 'data' %s"
                                 % (axis, shape_str(like), shape_str(data)))
            out[axis] = like[axis]
        return tuple(out)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, like = in_shapes
        out = out_shapes[0]
        if data is not None and like is not None:
            out = merge_shape(out, self._out_shape(p, data, like), 'slice_like output')
        return [data, like], [out], aux_shapes

    def _index(self, p, data, like):
        return tuple(slice(0, d) for d in self._out_shape(p, data.shape, like.shape))

    def forward(self, p, env, inputs, aux):
        data, like = inputs
        return [fresh_copy(env.xp, data[self._index(p, data, like)])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        data, like = inputs
        return [_backward_into(env.xp, data, self._index(p, data, like), out_grads[0]), None]


@register
class Crop(Operator):
    """The legacy image crop: an (N, C, H, W) input cut to height and width ``h_w``, or to
    those of a second input (``num_args=2``: inputs ``arg0``, ``arg1``; the second's values
    are not read and get a zero gradient).  The window starts at ``offset`` (row, column),
    or in the middle with ``center_crop`` (rounded down)."""
    eliminable = False
    name = 'Crop'
    key_var_num_args = 'num_args'
    params = {
        'num_args': Param('int', doc='1 (size from h_w) or 2 (size from the second input)', low=1, high=2),
        'offset': Param('shape', (0, 0), doc='(row, column) where the window starts', low=0),
        'h_w': Param('shape', (0, 0), doc='(height, width) of the window, with num_args=1', low=0),
        'center_crop': Param('bool', False, doc='start the window in the middle; offset is ignored'),
    }

    def inputs(self, p):
        return ['arg%d' % i for i in range(p.num_args)]

    def _window(self, p, data, like):
        """(row, column, height, width) of the window; None where a size is unknown."""
        if len(data) != 4:
            raise ShapeError("Crop: input 'arg0' must be 4-d (N, C, H, W), got shape %s" % shape_str(data))
        if p.num_args == 2:
            if like is None:
                return None
            if len(like) != 4:
                raise ShapeError("Crop: input 'arg1' must be 4-d (N, C, H, W), got shape %s" % shape_str(like))
            h, w = like[2], like[3]
        else:
            h, w = p.h_w
            if h < 1 or w < 1:
                raise ParamError('Crop: h_w=%s: with num_args=1 the height and width must be at least 1'
                                 % (tuple(p.h_w),))
        H, W = data[2], data[3]
        if not (H and W and h and w):
            return 0, 0, h, w
        if h > H or w > W:
            raise ShapeError("Crop: the window %dx%d is larger than input 'arg0' %s" % (h, w, shape_str(data)))
        if p.center_crop:
            return (H - h) // 2, (W - w) // 2, h, w
        top, left = p.offset
        if top > H - h or left > W - w:
            raise ShapeError("Crop: offset=%s puts the %dx%d window past the edge of input 'arg0' %s"
                             % (tuple(p.offset), h, w, shape_str(data)))
        return top, left, h, w

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        like = in_shapes[1] if p.num_args == 2 else None
        out = out_shapes[0]
        if data is not None:
            window = self._window(p, data, like)
            if window is not None:
                out = merge_shape(out, tuple(data[:2]) + tuple(window[2:]), 'Crop output')
        return list(in_shapes), [out], aux_shapes

    def _index(self, p, inputs):
        like = inputs[1].shape if p.num_args == 2 else None
        top, left, h, w = self._window(p, inputs[0].shape, like)
        return (slice(None), slice(None), slice(top, top + h), slice(left, left + w))

    def forward(self, p, env, inputs, aux):
        return [fresh_copy(env.xp, inputs[0][self._index(p, inputs)])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        grad = _backward_into(env.xp, inputs[0], self._index(p, inputs), out_grads[0])
        return [grad] + [None] * (p.num_args - 1)
