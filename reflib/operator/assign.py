"""Writing into a copy of an array: MXNet's legacy assignment and encoding operators.

``_slice_assign``        ``lhs`` with the range ``[begin:end:step]`` replaced by ``rhs``
                         (alias ``_crop_assign``; NDArray's ``x[a:b] = y`` in MXNet)
``_slice_assign_scalar`` ``data`` with that range set to one number (alias ``_crop_assign_scalar``)
``fill_element_0index``  a matrix with one element per row replaced: ``out[i, rhs[i]] = mhs[i]``
``_onehot_encode``       the one-hot rows of an index vector, shaped like a given matrix
                         (what the deprecated ``mx.nd.onehot_encode(indices, out)`` runs)

All four compute a new array: with ``out=x`` (MXNet's usual call, ``_crop_assign(x, z, ...,
out=x)``) the result is then written back into ``x``.  The ranges follow ``slice``'s rules
(slicing.py): Python's, positions past either end clipped.

MXNet 1.9.1 registers a gradient for none of them: binding a graph that needs one through
them is refused, and autograd's backward through them fails, as in MXNet.  The last two are
older still: MXNet computes them in float32 only, and its symbol front end cannot compose
them at all (reflib's can; nothing else about them differs).
"""

import numpy as np

from .registry import Operator, Param, register, REQUIRED
from .slicing import _IntsOrNone, _python_slice
from .common import shape_str, same_memory
from ..base import MXNetError, ParamError, ShapeError, TypeInferError
from ..shapes import merge_shape


class _NoGradient(Operator):
    """An operator MXNet 1.9.1 gives no gradient: the executor refuses to bind a graph that
    needs one through it (``differentiable``), and autograd's backward fails here."""
    differentiable = False

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        raise MXNetError('%s is not differentiable (MXNet 1.9.1 registers no gradient for it); '
                         'record it outside autograd, or put BlockGrad after it' % self.name)


def _merged(op, what, given, wanted, why):
    """``given`` (a shape or None) merged with the shape the operator needs there, ``wanted``;
    a ShapeError naming the operator, the input and ``why`` where they disagree."""
    if given is None or wanted is None:
        return wanted if given is None else given
    if len(given) != len(wanted) or any(a and b and a != b for a, b in zip(given, wanted)):
        raise ShapeError('%s: %s has shape %s, but %s' % (op, what, shape_str(given), why))
    return tuple(a or b for a, b in zip(given, wanted))


# ================================================================ ranges
_RANGE_PARAMS = {
    'begin': _IntsOrNone(REQUIRED, doc='first position per axis (None: the natural start)'),
    'end': _IntsOrNone(REQUIRED, doc='position past the last per axis (None: the natural end)'),
    'step': _IntsOrNone((), doc='stride per axis (None or omitted: 1)'),
}


def _ranges(op, p, shape, data):
    """One Python slice per axis of ``shape`` (input ``data``'s), as ``slice`` cuts it; None
    for a sliced axis of unknown size (0).  Axes past the last entry are taken whole."""
    if len(p.begin) != len(p.end):
        raise ParamError('%s: begin=%s and end=%s must have the same length' % (op, p.begin, p.end))
    if p.step and len(p.step) != len(p.begin):
        raise ParamError('%s: step=%s must have the length of begin=%s' % (op, p.step, p.begin))
    if any(s == 0 for s in p.step):
        raise ParamError('%s: step=%s has a 0 entry; steps must be nonzero' % (op, p.step))
    if len(p.begin) > len(shape):
        raise ShapeError("%s: begin=%s addresses %d axes, but input '%s' %s has %d"
                         % (op, p.begin, len(p.begin), data, shape_str(shape), len(shape)))
    ranges = []
    for axis, size in enumerate(shape):
        if axis >= len(p.begin):
            ranges.append(slice(None))
            continue
        step = p.step[axis] if p.step and p.step[axis] is not None else 1
        ranges.append(_python_slice(p.begin[axis], p.end[axis], step, size) if size else None)
    return ranges


def _region_shape(ranges, shape):
    """The shape ``ranges`` cut out of ``shape``; 0 where a size is unknown."""
    return tuple(0 if r is None else len(range(*r.indices(d))) for r, d in zip(ranges, shape))


def _describe(p):
    text = 'begin=%s, end=%s' % (p.begin, p.end)
    return text + (', step=%s' % (p.step,) if p.step else '')


def _into_copy(env, x):
    """The array the result is built in: the planned output (which may be ``x``'s own memory,
    when the plan computes in place) holding ``x``'s values, or a fresh copy of ``x``."""
    out = env.target(0)
    if out is None:
        return env.xp.array(x, copy=True, order='C')
    if not same_memory(out, x):
        out[...] = x
    return out


# ================================================================ _slice_assign
@register
class SliceAssign(_NoGradient):
    """``lhs`` with ``lhs[begin[0]:end[0]:step[0], ...]`` replaced by ``rhs``, which must have
    exactly that region's shape (no broadcasting) and ``lhs``'s dtype.  The range follows
    ``slice``'s rules: None is the natural end, negative positions count from the end,
    positions past either end are clipped, axes after the last entry are taken whole.  The
    output has ``lhs``'s shape and dtype; ``rhs``'s shape is inferred from ``lhs``'s, never
    the other way round (as in MXNet)."""
    name = '_slice_assign'
    aliases = ('_crop_assign',)
    params = dict(_RANGE_PARAMS)

    def inputs(self, p):
        return ['lhs', 'rhs']

    def inplace(self, p):
        return [(0, 0)]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        lhs, rhs = in_shapes
        out = out_shapes[0]
        if lhs is not None:
            region = _region_shape(_ranges(self.name, p, lhs, 'lhs'), lhs)
            rhs = _merged(self.name, "input 'rhs'", rhs, region,
                          "%s select a region of shape %s of input 'lhs' %s"
                          % (_describe(p), shape_str(region), shape_str(lhs)))
            out = merge_shape(out, lhs, '_slice_assign output')
        return [lhs, rhs], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        lhs, rhs = inputs
        index = tuple(_ranges(self.name, p, lhs.shape, 'lhs'))
        region = _region_shape(index, lhs.shape)
        if tuple(rhs.shape) != region:
            raise ShapeError("_slice_assign: input 'rhs' has shape %s, but %s select a region of shape %s "
                             "of input 'lhs' %s" % (shape_str(rhs.shape), _describe(p), shape_str(region),
                                                    shape_str(lhs.shape)))
        out = _into_copy(env, lhs)
        out[index] = rhs
        return [out]


# ================================================================ _slice_assign_scalar
def _scalar_as(value, dtype):
    """``value`` (a float) as one element of ``dtype``, as a C cast gives it: toward zero
    for an integer type, then wrapped into its range (300 is 44 in uint8, -3 is 253)."""
    dtype = np.dtype(dtype)
    if dtype.kind in 'iu':
        return np.array(int(np.trunc(value)), dtype=np.int64).astype(dtype)[()]
    return dtype.type(value)


@register
class SliceAssignScalar(_NoGradient):
    """``data`` with ``data[begin[0]:end[0]:step[0], ...]`` set to ``scalar`` (cut toward zero
    for an integer dtype).  The range follows ``slice``'s rules; an empty one (begin past
    the end, or a step that walks away from ``end``) changes nothing."""
    name = '_slice_assign_scalar'
    aliases = ('_crop_assign_scalar',)
    params = {'scalar': Param('float', 0.0, doc='the value written into the range')}
    params.update(_RANGE_PARAMS)

    def inplace(self, p):
        return [(0, 0)]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None:
            _ranges(self.name, p, data, 'data')
            out = merge_shape(out, data, '_slice_assign_scalar output')
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        data = inputs[0]
        index = tuple(_ranges(self.name, p, data.shape, 'data'))
        out = _into_copy(env, data)
        out[index] = _scalar_as(p.scalar, data.dtype)
        return [out]


# ================================================================ row-element operators
def _float32_only(op, names, in_types, out_types):
    """MXNet 1.9.1 computes these legacy operators in float32 only: every input and output is
    float32, and any other given dtype is refused by name."""
    f32 = np.dtype(np.float32)
    for name, t in list(zip(names, in_types)) + [('output', t) for t in out_types]:
        if t is not None and np.dtype(t) != f32:
            what = 'the output' if name == 'output' else "input '%s'" % name
            raise TypeInferError('%s: %s is %s, but MXNet 1.9.1 computes %s in float32 only (cast with .astype)'
                                 % (op, what, np.dtype(t).name, op))
    return [f32] * len(in_types), [f32] * len(out_types)


def _columns(xp, index, width):
    """(column, valid) per row: ``index`` cut toward zero where it falls in [0, width), as
    MXNet's C cast and bounds check give it; out of range, negative past -1 or NaN is not
    valid (that row is left alone) and reads column 0 instead."""
    valid = (index > -1) & (index < width)
    column = xp.where(valid, index, 0).astype(np.int64)
    return column, valid


def _rows_of(op, what, shape, ndim, expected):
    if shape is not None and len(shape) != ndim:
        raise ShapeError("%s: input '%s' must be %d-d (%s), got shape %s"
                         % (op, what, ndim, expected, shape_str(shape)))
    return None if shape is None else shape[0]


@register
class FillElement0Index(_NoGradient):
    """``lhs`` (a matrix) with one element per row replaced: row ``i`` gets ``mhs[i]`` at
    column ``rhs[i]``.  An index is cut toward zero (2.7 is column 2, -0.5 column 0); a row
    whose index is outside the row (-1 or less, the width or more, NaN) is left as it is.
    ``mhs`` and ``rhs`` are vectors of one element per row; everything is float32."""
    name = 'fill_element_0index'

    def inputs(self, p):
        return ['lhs', 'mhs', 'rhs']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        lhs, mhs, rhs = in_shapes
        out = out_shapes[0]
        rows = [_rows_of(self.name, 'lhs', lhs, 2, 'a matrix'),
                _rows_of(self.name, 'mhs', mhs, 1, 'one value per row of lhs'),
                _rows_of(self.name, 'rhs', rhs, 1, 'one index per row of lhs')]
        known = [n for n in rows if n]
        if any(n != known[0] for n in known):
            raise ShapeError("%s: inputs 'lhs' %s, 'mhs' %s and 'rhs' %s must have one row count"
                             % (self.name, shape_str(lhs), shape_str(mhs), shape_str(rhs)))
        if known:
            mhs = merge_shape(mhs, (known[0],), "fill_element_0index input 'mhs'")
            rhs = merge_shape(rhs, (known[0],), "fill_element_0index input 'rhs'")
        if lhs is not None:
            out = merge_shape(out, lhs, 'fill_element_0index output')
        return [lhs, mhs, rhs], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        ins, outs = _float32_only(self.name, self.inputs(p), in_types, out_types)
        return ins, outs, aux_types

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        lhs, mhs, rhs = inputs
        self.infer_shape(p, [lhs.shape, mhs.shape, rhs.shape], [None], [])
        out = xp.array(lhs, copy=True, order='C')
        rows = xp.arange(lhs.shape[0])
        column, valid = _columns(xp, rhs, lhs.shape[1])
        # a row with no valid index writes its own old value back: one write per row
        out[rows, column] = xp.where(valid, mhs.astype(lhs.dtype), out[rows, column])
        return [out]


@register
class OnehotEncode(_NoGradient):
    """The one-hot rows of ``lhs`` (a vector of indices), shaped like ``rhs`` (a matrix of
    one row per index, whose values are not read): row ``i`` is 1 at column ``lhs[i]`` and
    0 elsewhere.  An index is cut toward zero; one outside the row (-1 or less, the width or
    more, NaN) gives a row of zeros.  Everything is float32.  ``mx.nd.onehot_encode(indices,
    out)`` calls it with ``out`` as both ``rhs`` and ``out=``."""
    name = '_onehot_encode'

    def inputs(self, p):
        return ['lhs', 'rhs']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        lhs, rhs = in_shapes
        out = out_shapes[0]
        n = _rows_of(self.name, 'lhs', lhs, 1, 'one index per row')
        m = _rows_of(self.name, 'rhs', rhs, 2, 'a matrix of one row per index')
        if n and m and n != m:
            raise ShapeError("%s: input 'lhs' %s holds %d indices, but input 'rhs' %s has %d rows"
                             % (self.name, shape_str(lhs), n, shape_str(rhs), m))
        if m:
            lhs = merge_shape(lhs, (m,), "_onehot_encode input 'lhs'")
        if rhs is not None:
            out = merge_shape(out, rhs, '_onehot_encode output')
        return [lhs, rhs], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        ins, outs = _float32_only(self.name, self.inputs(p), in_types, out_types)
        return ins, outs, aux_types

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        lhs, rhs = inputs
        self.infer_shape(p, [lhs.shape, rhs.shape], [None], [])
        out = xp.zeros(rhs.shape, dtype=rhs.dtype)
        column, valid = _columns(xp, lhs, rhs.shape[1])
        out[xp.arange(rhs.shape[0]), column] = valid.astype(rhs.dtype)
        return [out]
