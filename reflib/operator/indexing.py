"""Reading and writing elements at given positions: ``take``, ``batch_take``, ``pick``,
``one_hot``, ``gather_nd`` and ``scatter_nd``, and contrib's ``index_copy`` (rows replaced)
and ``boolean_mask`` (rows kept where a mask is non-zero).  (Contiguous ranges are in
slicing.py.)

Index arrays are usually float32 in MXNet 1.x graphs.  A fractional index is cut toward
zero (2.7 reads position 2, -0.5 reads position 0).  What happens to an index out of range
depends on the operator and its ``mode``; each class says which rule it follows.  The index
inputs get a zero gradient, as in MXNet.
"""

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape
from .common import shape_str, normalize_axis, fresh_copy, scatter_add, any_true, to_host
from ..base import ComputeError, ParamError, ShapeError


class IndexRangeError(ComputeError, IndexError):
    """An index outside its axis where the operator refuses it (take's ``mode='raise'``,
    gather_nd, scatter_nd): found while computing, so raised at the next wait on the result,
    as MXNet's engine does (reflib/engine.py)."""


def _cut(xp, idx):
    """Float indices cut toward zero, as int64 (the C cast MXNet applies)."""
    return idx.astype(np.int64)


def _index_type(in_types, k):
    """The dtype of index input ``k``: as given, or float32 (MXNet's default array type)."""
    return in_types[k] if in_types[k] is not None else np.dtype(np.float32)


# ================================================================ take
@register
class Take(Operator):
    """Whole slices of ``a`` along ``axis``, one per entry of ``indices``.

    The output shape is ``a.shape[:axis] + indices.shape + a.shape[axis+1:]``.  Out of
    range, ``mode='clip'`` reads the nearest end (so -1 reads position 0), ``'wrap'``
    counts modulo the axis size (-1 reads the last), and ``'raise'`` refuses.  MXNet 1.9.1
    checks ``0 <= index <= size-1`` on the index before cutting it, so with ``'raise'``
    2.5 is out of range on an axis of size 3 while 1.5 is not; reflib does the same.
    """
    name = 'take'
    params = {
        'axis': Param('int', 0, doc='the axis to take along (negative counts from the end)'),
        'mode': Param('enum', 'clip', choices=('clip', 'raise', 'wrap'), doc='what an index out of range does'),
    }

    def inputs(self, p):
        return ['a', 'indices']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        a, idx = in_shapes
        out = out_shapes[0]
        if a is not None and idx is not None:
            axis = normalize_axis(self.name, 'axis', p.axis, len(a))
            out = merge_shape(out, tuple(a[:axis]) + tuple(idx) + tuple(a[axis + 1:]), 'take output')
        return [a, idx], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        known = in_types[0] if in_types[0] is not None else out_types[0]
        return [known, _index_type(in_types, 1)], [known], aux_types

    def _positions(self, p, xp, idx, size):
        if p.mode == 'clip':
            return xp.clip(_cut(xp, idx), 0, size - 1)
        if p.mode == 'wrap':
            return _cut(xp, idx) % size
        bad = (idx < 0) | (idx > size - 1)
        if any_true(bad):
            first = to_host(idx[bad].reshape(-1)[:1])[0]
            raise IndexRangeError("take: input 'indices' holds %s, out of range for an axis of size %d "
                                  "(mode='raise' needs 0 <= index <= %d)" % (float(first), size, size - 1))
        return _cut(xp, idx)

    def forward(self, p, env, inputs, aux):
        a, idx = inputs
        axis = normalize_axis(self.name, 'axis', p.axis, a.ndim)
        return [env.xp.take(a, self._positions(p, env.xp, idx, a.shape[axis]), axis=axis)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, (a, idx) = env.xp, inputs
        axis = normalize_axis(self.name, 'axis', p.axis, a.ndim)
        pos = self._positions(p, xp, idx, a.shape[axis]).reshape(-1)
        lead, rest = int(np.prod(a.shape[:axis])), int(np.prod(a.shape[axis + 1:]))
        grad = xp.zeros((lead, a.shape[axis], rest), dtype=a.dtype)
        scatter_add(xp, grad, (slice(None), pos), out_grads[0].reshape(lead, pos.size, rest).astype(a.dtype))
        return [grad.reshape(a.shape), None]


@register
class BatchTake(Operator):
    """Row ``i`` of ``a`` (seen as rows of its last axis) gives its element ``indices[i]``.

    MXNet 1.9.1 marks it deprecated in favour of ``pick``; it wants int32 indices and
    clips them into range.  The output has the shape of ``indices``.  It has no gradient
    in MXNet 1.9.1, so a graph that needs one through it is refused at bind (``pick``
    has one).
    """
    name = 'batch_take'
    differentiable = False

    def inputs(self, p):
        return ['a', 'indices']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        a, idx = in_shapes
        if a is not None and len(a) < 2:
            raise ShapeError("batch_take: input 'a' must have at least 2 dims, got shape %s" % shape_str(a))
        if a is not None and all(a):
            rows = int(np.prod(a)) // a[-1]
            idx = merge_shape(idx, (rows,) if idx is None else idx, "batch_take input 'indices'")
            if all(idx) and int(np.prod(idx)) != rows:
                raise ShapeError("batch_take: input 'indices' of shape %s must hold one index per row of "
                                 "'a' %s (%d)" % (shape_str(idx), shape_str(a), rows))
        return [a, idx], [merge_shape(out_shapes[0], idx, 'batch_take output')], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return [in_types[0], in_types[1] or np.dtype(np.int32)], [in_types[0]], aux_types

    def _flat(self, xp, a, idx):
        rows = a.reshape(-1, a.shape[-1])
        return rows, xp.clip(_cut(xp, idx.reshape(-1)), 0, a.shape[-1] - 1)

    def forward(self, p, env, inputs, aux):
        xp, (a, idx) = env.xp, inputs
        rows, pos = self._flat(xp, a, idx)
        return [rows[xp.arange(rows.shape[0]), pos].reshape(idx.shape)]



# ================================================================ pick
@register
class Pick(Operator):
    """One element of ``data`` along ``axis`` per position of the other axes: ``index``
    says which.  ``index`` has ``data``'s shape without ``axis`` (MXNet also takes that axis
    kept as size 1).  ``mode='clip'`` clips an index into range, ``'wrap'`` counts modulo
    the axis size.  ``axis=None`` is refused, as in MXNet 1.9.1."""
    name = 'pick'
    aliases = ('choose_element_0index',)
    params = {
        'axis': Param('int_or_none', -1, doc='the axis to pick along'),
        'keepdims': Param('bool', False, doc='keep the picked axis with size 1'),
        'mode': Param('enum', 'clip', choices=('clip', 'wrap'), doc='what an index out of range does'),
    }

    def inputs(self, p):
        return ['data', 'index']

    def _axis(self, p, ndim):
        if p.axis is None:
            raise ParamError('pick: axis=None is not supported (MXNet 1.9.1 neither); give an axis')
        return normalize_axis(self.name, 'axis', p.axis, ndim)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, idx = in_shapes
        out = out_shapes[0]
        if data is None:
            return [data, idx], [out], aux_shapes
        axis = self._axis(p, len(data))
        reduced = tuple(data[:axis]) + tuple(data[axis + 1:])
        kept = tuple(data[:axis]) + (1,) + tuple(data[axis + 1:])
        if idx is not None and len(idx) == len(data):
            idx = merge_shape(idx, kept, "pick input 'index'")
        else:
            idx = merge_shape(idx, reduced, "pick input 'index'")
        out = merge_shape(out, kept if p.keepdims else reduced, 'pick output')
        return [data, idx], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return [in_types[0], _index_type(in_types, 1)], [in_types[0]], aux_types

    def _positions(self, p, xp, data, idx):
        """The fancy index that picks ``idx``'s entry along the axis from every other position:
        one arange per other axis, broadcast against the positions.  (A plain index is several
        times faster than take_along_axis on a loss's (batch, classes) scores.)"""
        axis = self._axis(p, data.ndim)
        size = data.shape[axis]
        reduced = data.shape[:axis] + data.shape[axis + 1:]
        pos = _cut(xp, idx).reshape(reduced)
        if p.mode == 'clip':
            pos = xp.minimum(xp.maximum(pos, 0, out=pos), size - 1, out=pos)
        else:
            pos = pos % size
        # the aranges depend on the shape alone: made once per shape and device (Params.memo)
        key = ('pick_rows', xp.__name__, getattr(data, 'device', None), data.shape, axis)
        rows = p.memo.get(key)
        if rows is None:
            rows = []
            for d, n in enumerate(data.shape):
                if d != axis:
                    shape = [1] * len(reduced)
                    shape[d if d < axis else d - 1] = n
                    rows.append(xp.arange(n).reshape(shape))
            rows = p.memo[key] = tuple(rows)
        return axis, rows[:axis] + (pos,) + rows[axis:]

    def forward(self, p, env, inputs, aux):
        data, idx = inputs
        axis, index = self._positions(p, env.xp, data, idx)
        picked = data[index]
        if p.keepdims:          # (a reshape: expand_dims costs more than the pick on a loss's scores)
            picked = picked.reshape(data.shape[:axis] + (1,) + data.shape[axis + 1:])
        return [picked]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, (data, idx) = env.xp, inputs
        axis, index = self._positions(p, xp, data, idx)
        grad = env.grad_target(0)
        if grad is None:
            grad = xp.zeros_like(data)
        else:                           # the planned gradient array: zeroed, then scattered into
            grad.fill(0)
        # every other position picks one entry, so no entry is written twice
        grad[index] = out_grads[0].reshape(index[axis].shape)
        return [grad, None]


# ================================================================ one_hot
@register
class OneHot(Operator):
    """``indices.shape + (depth,)``: ``on_value`` at each index, ``off_value`` elsewhere.
    An index outside ``[0, depth)`` gives a row of ``off_value`` only."""
    name = 'one_hot'
    blocks_gradient = True          # from indices: no gradient passes
    params = {
        'depth': Param('int', doc='the length of each one-hot row', low=0),
        'on_value': Param('float', 1.0, doc='the value at the index'),
        'off_value': Param('float', 0.0, doc='the value elsewhere'),
        'dtype': Param('enum', 'float32', doc='the output dtype',
                       choices=('float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8')),
    }

    def inputs(self, p):
        return ['indices']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        idx, out = in_shapes[0], out_shapes[0]
        if idx is None and out is not None:
            idx = tuple(out[:-1])
        if idx is not None:
            out = merge_shape(out, tuple(idx) + (p.depth,), 'one_hot output')
        return [idx], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return [_index_type(in_types, 0)], [np.dtype(p.dtype)], aux_types

    def forward(self, p, env, inputs, aux):
        xp, idx = env.xp, inputs[0]
        pos = _cut(xp, idx)[..., None]
        hit = pos == xp.arange(p.depth, dtype=np.int64)
        dtype = np.dtype(p.dtype)
        return [xp.where(hit, dtype.type(p.on_value), dtype.type(p.off_value)).astype(dtype)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [None]


# ================================================================ gather_nd / scatter_nd
def _nd_positions(op, xp, idx, shape):
    """The first ``len(idx)`` coordinates of ``shape`` from index array ``idx`` (M, ...),
    negative ones counted from the end; anything outside ``[-size, size-1]`` is refused
    (checked before cutting, as MXNet 1.9.1 does)."""
    m = idx.shape[0]
    coords = []
    for axis in range(m):
        size = shape[axis]
        row = idx[axis]
        bad = (row < -size) | (row > size - 1)
        if any_true(bad):
            raise IndexRangeError("%s: input 'indices' holds %s, out of bounds for axis %d with size %d"
                                  % (op, float(to_host(row[bad].reshape(-1)[:1])[0]), axis, size))
        pos = _cut(xp, row)
        coords.append(xp.where(pos < 0, pos + size, pos))
    return tuple(coords)


def _nd_check(op, data_ndim, idx_shape):
    if len(idx_shape) < 1:
        raise ShapeError("%s: input 'indices' needs at least 1 dim (M, ...), got shape %s" % (op, shape_str(idx_shape)))
    if idx_shape[0] and idx_shape[0] > data_ndim:
        raise ShapeError("%s: input 'indices' has shape %s: its first dim M=%d indexes more axes than the %d "
                         "of the data" % (op, shape_str(idx_shape), idx_shape[0], data_ndim))


@register
class GatherND(Operator):
    """``data`` read at the coordinates in ``indices`` (shape ``(M, Y...)``): the output has
    shape ``Y... + data.shape[M:]``.  Negative coordinates count from the end; a coordinate
    out of bounds raises, as in MXNet 1.9.1."""
    name = 'gather_nd'

    def inputs(self, p):
        return ['data', 'indices']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, idx = in_shapes
        out = out_shapes[0]
        if data is not None and idx is not None:
            _nd_check(self.name, len(data), idx)
            if idx[0]:
                out = merge_shape(out, tuple(idx[1:]) + tuple(data[idx[0]:]), 'gather_nd output')
        return [data, idx], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return [in_types[0], _index_type(in_types, 1)], [in_types[0]], aux_types

    def forward(self, p, env, inputs, aux):
        data, idx = inputs
        _nd_check(self.name, data.ndim, idx.shape)
        return [fresh_copy(env.xp, data[_nd_positions(self.name, env.xp, idx, data.shape)])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, (data, idx) = env.xp, inputs
        grad = xp.zeros_like(data)
        scatter_add(xp, grad, _nd_positions(self.name, xp, idx, data.shape), out_grads[0])
        return [grad, None]


@register
class ScatterND(Operator):
    """The inverse of gather_nd: an array of ``shape`` holding zeros except where
    ``indices`` puts the elements of ``data``.

    MXNet 1.9.1 leaves repeated coordinates undefined and does not check bounds (it
    computes a flat offset, so ``(1, -1)`` lands on ``(0, size-1)`` and a coordinate past
    the end writes outside the array); reflib counts negative coordinates from the end of
    their own axis and refuses out-of-bounds ones, like gather_nd.
    """
    name = 'scatter_nd'
    params = {'shape': Param('shape', doc='the output shape', low=1)}

    def inputs(self, p):
        return ['data', 'indices']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, idx = in_shapes
        out = merge_shape(out_shapes[0], tuple(p.shape), 'scatter_nd output')
        if idx is not None:
            _nd_check(self.name, len(p.shape), idx)
            if idx[0]:
                data = merge_shape(data, tuple(idx[1:]) + tuple(p.shape[idx[0]:]), "scatter_nd input 'data'")
        return [data, idx], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return [in_types[0], _index_type(in_types, 1)], [in_types[0]], aux_types

    def forward(self, p, env, inputs, aux):
        xp, (data, idx) = env.xp, inputs
        _nd_check(self.name, len(p.shape), idx.shape)
        out = xp.zeros(tuple(p.shape), dtype=data.dtype)
        out[_nd_positions(self.name, xp, idx, p.shape)] = data
        return [out]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, (data, idx) = env.xp, inputs
        return [fresh_copy(xp, out_grads[0][_nd_positions(self.name, xp, idx, p.shape)]), None]


@register
class IndexCopy(Operator):
    """``old_tensor`` with its rows ``index_vector[i]`` replaced by ``new_tensor[i]``.

    The gradient of ``old_tensor`` is the head gradient with the replaced rows zeroed; row
    ``i`` of ``new_tensor`` gets the head gradient's row ``index_vector[i]``.  MXNet 1.9.1
    skips an index outside ``old_tensor``'s rows without a word; reflib refuses it, naming
    the index, since a row the caller meant to write would silently stay old."""
    name = '_contrib_index_copy'

    def inputs(self, p):
        return ['old_tensor', 'index_vector', 'new_tensor']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        old, idx, new = in_shapes
        out = merge_shape(out_shapes[0], old, 'index_copy output')
        if out is not None and idx is not None:
            if len(idx) != 1:
                raise ShapeError("%s: index_vector must be 1-d, got shape %s" % (self.name, shape_str(idx)))
            new = merge_shape(new, (idx[0],) + tuple(out[1:]), "index_copy input 'new_tensor' (one row per "
                              "index, rows shaped as old_tensor's %s)" % shape_str(out))
        return [out, idx, new], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        data = in_types[0] if in_types[0] is not None else in_types[2]
        return [data, _index_type(in_types, 1), data], [data], aux_types

    def _rows(self, xp, idx, n):
        rows = _cut(xp, idx).reshape(-1)
        bad = (rows < 0) | (rows >= n)
        if any_true(bad):
            raise IndexRangeError('%s: index_vector holds %d, outside the %d rows of old_tensor'
                                  % (self.name, int(to_host(rows[bad])[0]), n))
        return rows

    def forward(self, p, env, inputs, aux):
        old, idx, new = inputs
        out = fresh_copy(env.xp, old)
        out[self._rows(env.xp, idx, old.shape[0])] = new
        return [out]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, (old, idx, new), g = env.xp, inputs, out_grads[0]
        rows = self._rows(xp, idx, old.shape[0])
        d_old = fresh_copy(xp, g)
        d_old[rows] = 0
        return [d_old, None, fresh_copy(xp, g[rows])]


@register
class BooleanMask(Operator):
    """The rows of ``data`` (along axis 0) where ``index`` is non-zero: a result whose length
    only the values decide, so shape inference cannot give it (an executor cannot be bound
    over it; mx.nd runs it).  The kept rows' head gradient goes back to them; the others get 0."""
    name = '_contrib_boolean_mask'
    params = {'axis': Param('int', 0, doc='the axis masked (MXNet 1.9.1 supports 0 only)')}

    def inputs(self, p):
        return ['data', 'index']

    def _check(self, p, data, index):
        if p.axis != 0:
            raise ParamError('%s: only axis=0 is supported (as in MXNet 1.9.1), got axis=%d' % (self.name, p.axis))
        if data is not None and index is not None and (len(index) != 1 or index[0] != data[0]):
            raise ShapeError("%s: index must be 1-d with one entry per row of data %s, got shape %s"
                             % (self.name, shape_str(data), shape_str(index)))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        self._check(p, *in_shapes)
        return list(in_shapes), list(out_shapes), aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return [in_types[0], _index_type(in_types, 1)], [in_types[0]], aux_types

    def forward(self, p, env, inputs, aux):
        data, index = inputs
        self._check(p, data.shape, index.shape)
        return [fresh_copy(env.xp, data[index != 0])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, (data, index) = env.xp, inputs
        grad = xp.zeros_like(data)
        grad[index != 0] = out_grads[0]
        return [grad, None]


# ================================================================ flat index <-> coordinates
class _IndexArithmetic(Operator):
    """Row-major index arithmetic for an array of ``shape``; index values, not data, so no
    gradient flows back.  As in MXNet, the first axis is not bounded: a flat index past the end
    gives a first coordinate past the end (and back)."""
    params = {'shape': Param('shape', doc="the array's shape (its first entry may be -1)")}

    def _strides(self, p):
        strides, step = [], 1
        for size in reversed(p.shape[1:]):
            strides.append(step)
            step *= size
        return [step] + strides[::-1] if p.shape else []

    def out_shape(self, p, data):
        raise NotImplementedError

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        out = None if data is None else self.out_shape(p, data)
        return [data], [merge_shape(out_shapes[0], out, '%s output' % self.name)], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return list(in_types), [in_types[0] if in_types[0] is not None else out_types[0]], aux_types

    def backward_reads(self, p):
        return [0], []

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(inputs[0])]


@register
class RavelMultiIndex(_IndexArithmetic):
    """Flat indices from coordinates: ``data`` (ndim, N) -> (N,)."""
    name = '_ravel_multi_index'
    aliases = ('ravel_multi_index',)

    def out_shape(self, p, data):
        if len(data) != 2 or data[0] not in (0, len(p.shape)):
            raise ShapeError("%s: input 'data' must be (%d, N), one row per axis of shape %s, got %s"
                             % (self.name, len(p.shape), shape_str(p.shape), shape_str(data)))
        return (data[1],)

    def forward(self, p, env, inputs, aux):
        coords = inputs[0].astype(np.int64)
        flat = sum(coords[axis] * stride for axis, stride in enumerate(self._strides(p)))
        return [flat.astype(inputs[0].dtype)]


@register
class UnravelIndex(_IndexArithmetic):
    """Coordinates from flat indices: ``data`` (N,) -> (ndim, N)."""
    name = '_unravel_index'
    aliases = ('unravel_index',)

    def out_shape(self, p, data):
        if len(data) != 1:
            raise ShapeError("%s: input 'data' must be 1-d (flat indices), got %s" % (self.name, shape_str(data)))
        return (len(p.shape), data[0])

    def forward(self, p, env, inputs, aux):
        xp, rest = env.xp, inputs[0].astype(np.int64)
        coords = []
        for size in reversed(p.shape[1:]):
            coords.append(rest % size)
            rest = rest // size
        coords.append(rest)                 # the first axis takes what is left, unbounded
        return [xp.stack(coords[::-1]).astype(inputs[0].dtype)]
