"""Operators that look at values in order: ``sort``, ``argsort``, ``topk``, ``argmax``,
``argmin``, ``argmax_channel``, and ``_histogram`` (``mx.sym.histogram``), which counts them
into bins.

Index outputs are numbers of a chosen dtype (float32 unless ``dtype`` says otherwise), as
MXNet 1.x returns them; ``argmax`` and ``argmin`` give theirs in the input's dtype.  Only
values flow back in backward: sort's and topk's value gradients go back to the positions
the values came from; indices, masks and counts have a zero gradient.

Equal values: argmax and argmin give the first of them, as numpy.  sort, argsort and topk
keep equal values in their input order, ascending or descending.  MXNet 1.9.1 does the same
on short rows, but on long rows (100 elements) its order of equal values is not stable, so
only values without ties are compared with MXNet's.
"""

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape
from .common import shape_str, normalize_axis
from ..base import ParamError, ShapeError
import ast

_INDEX_DTYPES = ('float16', 'float32', 'float64', 'int32', 'int64', 'uint8')


def _flat_or_axis(op, x, axis):
    """``(x, axis)`` to sort along: ``axis=None`` flattens ``x`` to 1-d."""
    if axis is None:
        return x.reshape(-1), 0
    return x, normalize_axis(op, 'axis', axis, x.ndim)


def _order(xp, x, axis, ascend):
    """Positions that sort ``x`` along ``axis``; ties keep their order either way."""
    if ascend:
        return xp.argsort(x, axis=axis, kind='stable')
    key = -x.astype(np.int64) if x.dtype.kind in 'ub' else -x
    return xp.argsort(key, axis=axis, kind='stable')


def _route_back(xp, x_shape, axis, order, g, dtype):
    """The gradient of values taken from positions ``order`` along ``axis``: each head
    gradient goes back to its source position (sort, topk)."""
    grad = xp.zeros(x_shape, dtype=dtype)
    xp.put_along_axis(grad, order, g.astype(dtype), axis=axis)
    return grad


# ================================================================ sort / argsort / topk
class _Sorting(Operator):
    def _shape_along(self, p, data, length=None):
        """Output shape for sorting ``data`` and keeping ``length`` along the axis (None: all)."""
        if p.axis is None:
            size = int(np.prod(data)) if all(data) else 0
            return (size if length is None else length,)
        axis = normalize_axis(self.name, 'axis', p.axis, len(data))
        out = list(data)
        if length is not None:
            out[axis] = length
        return tuple(out)


@register
class Sort(_Sorting):
    """The values sorted along ``axis`` (``None``: the flattened input), ascending unless
    ``is_ascend=False``.  A hidden second output keeps the source positions for backward,
    as in MXNet (whose visible output is then named ``output0``)."""
    name = 'sort'
    params = {
        'axis': Param('int_or_none', -1, doc='the axis to sort along; None sorts the flattened input'),
        'is_ascend': Param('bool', True, doc='ascending (True) or descending order'),
    }

    def outputs(self, p):
        return ['output0', 'output1']

    def visible_outputs(self, p):
        return 1

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        outs = list(out_shapes)
        if data is not None:
            shape = self._shape_along(p, data)
            outs = [merge_shape(o, shape, 'sort output%d' % k) for k, o in enumerate(outs)]
        return [data], outs, aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return [in_types[0]], [in_types[0], np.dtype(np.int64)], aux_types

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        x, axis = _flat_or_axis(self.name, inputs[0], p.axis)
        order = _order(xp, x, axis, p.is_ascend)
        return [xp.take_along_axis(x, order, axis=axis), order]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x = inputs[0]
        _, axis = _flat_or_axis(self.name, x, p.axis)
        shape = (x.size,) if p.axis is None else x.shape
        return [_route_back(env.xp, shape, axis, outputs[1], out_grads[0], x.dtype).reshape(x.shape)]


@register
class Argsort(_Sorting):
    """The positions that sort the input along ``axis`` (``None``: the flattened input), as
    numbers of ``dtype``."""
    name = 'argsort'
    blocks_gradient = True          # positions: no gradient passes
    params = {
        'axis': Param('int_or_none', -1, doc='the axis to sort along; None sorts the flattened input'),
        'is_ascend': Param('bool', True, doc='ascending (True) or descending order'),
        'dtype': Param('enum', 'float32', choices=_INDEX_DTYPES, doc='the dtype of the positions'),
    }

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            out = merge_shape(out, self._shape_along(p, data), 'argsort output')
        return [data], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return [in_types[0]], [np.dtype(p.dtype)], aux_types

    def forward(self, p, env, inputs, aux):
        x, axis = _flat_or_axis(self.name, inputs[0], p.axis)
        return [_order(env.xp, x, axis, p.is_ascend).astype(p.dtype)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [None]


@register
class TopK(_Sorting):
    """The ``k`` largest (``is_ascend=False``, the default) or smallest elements along
    ``axis`` (``None``: the flattened input); ``k <= 0`` keeps them all.

    ``ret_typ``: ``'indices'`` their positions (as ``dtype``), ``'value'`` their values,
    ``'both'`` values then positions, ``'mask'`` an array of the input's shape and dtype
    with 1 where an element is among them.  As in MXNet, 'value' and 'both' have two
    outputs (``output0``, ``output1``; 'value' shows only the first), the others one
    (``output``).  Only values carry a gradient.
    """
    name = 'topk'
    params = {
        'axis': Param('int_or_none', -1, doc='the axis to search; None searches the flattened input'),
        'k': Param('int', 1, doc='how many elements; k <= 0 means all'),
        'ret_typ': Param('enum', 'indices', choices=('both', 'indices', 'mask', 'value'), doc='what to return'),
        'is_ascend': Param('bool', False, doc='the smallest (True) or the largest (False) elements'),
        'dtype': Param('enum', 'float32', choices=_INDEX_DTYPES, doc='the dtype of the positions'),
    }

    def gradient_blocked(self, p):
        return p.ret_typ in ('indices', 'mask')     # positions pass no gradient back

    def outputs(self, p):
        return ['output0', 'output1'] if p.ret_typ in ('both', 'value') else ['output']

    def visible_outputs(self, p):
        return 2 if p.ret_typ == 'both' else 1

    def _k(self, p, size):
        if p.k > size:
            raise ShapeError('topk: k=%d is more than the %d elements along the axis' % (p.k, size))
        return size if p.k <= 0 else p.k

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        outs = list(out_shapes)
        if data is not None:
            if p.ret_typ == 'mask':
                shapes = [tuple(data)]
            else:
                size = self._shape_along(p, data)[0] if p.axis is None else \
                    data[normalize_axis(self.name, 'axis', p.axis, len(data))]
                shapes = [self._shape_along(p, data, self._k(p, size) if size else 0)] * len(outs)
            outs = [merge_shape(o, s, 'topk output') for o, s in zip(outs, shapes)]
        return [data], outs, aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        x, index = in_types[0], np.dtype(p.dtype)
        outs = {'indices': [index], 'mask': [x], 'value': [x, index], 'both': [x, index]}[p.ret_typ]
        return [x], outs, aux_types

    def _select(self, p, xp, data):
        x, axis = _flat_or_axis(self.name, data, p.axis)
        k = self._k(p, x.shape[axis])
        order = _order(xp, x, axis, p.is_ascend)
        return x, axis, order[(slice(None),) * axis + (slice(0, k),)]

    def forward(self, p, env, inputs, aux):
        xp, data = env.xp, inputs[0]
        x, axis, chosen = self._select(p, xp, data)
        if p.ret_typ == 'mask':
            mask = xp.zeros(x.shape, dtype=data.dtype)
            xp.put_along_axis(mask, chosen, 1, axis=axis)
            return [mask.reshape(data.shape)]
        positions = chosen.astype(p.dtype)
        if p.ret_typ == 'indices':
            return [positions]
        return [xp.take_along_axis(x, chosen, axis=axis), positions]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        if p.ret_typ in ('indices', 'mask'):
            return [None]
        data = inputs[0]
        x, axis, chosen = self._select(p, env.xp, data)
        return [_route_back(env.xp, x.shape, axis, chosen, out_grads[0], data.dtype).reshape(data.shape)]


# ================================================================ argmax / argmin
class _ArgExtreme(Operator):
    """argmax/argmin: the position of the first extreme along ``axis`` (``None``: in the
    flattened input), in the input's dtype.  A NaN counts as the extreme, as in numpy
    and MXNet.  No gradient passes a position."""
    blocks_gradient = True
    params = {
        'axis': Param('int_or_none', None, doc='the axis to search; None searches the flattened input'),
        'keepdims': Param('bool', False, doc='keep the searched axis with size 1'),
    }
    pick = None

    def _out_shape(self, p, shape):
        if p.axis is None:
            return (1,) * len(shape) if p.keepdims else (1,)
        axis = normalize_axis(self.name, 'axis', p.axis, len(shape))
        if p.keepdims:
            return tuple(shape[:axis]) + (1,) + tuple(shape[axis + 1:])
        return tuple(shape[:axis]) + tuple(shape[axis + 1:]) or (1,)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            out = merge_shape(out, self._out_shape(p, data), '%s output' % self.name)
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        search = getattr(env.xp, self.pick)
        if p.axis is None:
            found = search(x.reshape(-1))
        else:
            found = search(x, axis=normalize_axis(self.name, 'axis', p.axis, x.ndim))
        return [env.xp.asarray(found).astype(x.dtype).reshape(self._out_shape(p, x.shape))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [None]


@register
class Argmax(_ArgExtreme):
    name = 'argmax'
    pick = 'argmax'


@register
class Argmin(_ArgExtreme):
    name = 'argmin'
    pick = 'argmin'


@register
class ArgmaxChannel(_ArgExtreme):
    """argmax along axis 1 (the channels), that axis dropped.  MXNet 1.9.1 registers no
    gradient for it, so binding a graph that needs one through it is refused, as there."""
    name = 'argmax_channel'
    blocks_gradient = False
    differentiable = False
    params = {}
    pick = 'argmax'

    def parse_params(self, raw):
        p = super().parse_params(raw)
        p.axis, p.keepdims = 1, False
        return p


# ================================================================ histogram
class _Numbers(Param):
    """A tuple of numbers (histogram's ``range``), kept as written: ``(0, 2)``."""

    def __init__(self, default, doc=''):
        super().__init__('shape_or_none', default, doc=doc)

    def _parse_base(self, base, value):
        if isinstance(value, str):
            value = ast.literal_eval(value.strip())
        if not isinstance(value, (tuple, list)) or not all(
                isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in value):
            raise TypeError(value)
        return tuple(value)


@register
class Histogram(Operator):
    """Counts of ``data``'s elements in bins: ``bin_cnt`` equal bins over ``range``
    (``mx.sym.histogram(x, bins=n, range=(lo, hi))``), or the bins between the sorted edges
    in the second input ``bins``.  Each bin holds its left edge; the last also its right
    one.  Values outside the bins and NaNs are not counted.  Outputs: the counts (int64)
    and the bin edges (the data's dtype)."""
    name = '_histogram'
    params = {
        'bin_cnt': Param('int_or_none', None, doc='the number of equal bins (with range)', low=1),
        'range': _Numbers(None, doc='(lo, hi): the span the equal bins cover'),
    }

    def inputs(self, p):
        return ['data'] if p.bin_cnt is not None else ['data', 'bins']

    def outputs(self, p):
        return ['output0', 'output1']

    def _check(self, p):
        if p.bin_cnt is not None and (p.range is None or len(p.range) != 2 or not p.range[0] < p.range[1]):
            raise ParamError('_histogram: with bin_cnt=%d, range must be (lo, hi) with lo < hi, got %s'
                             % (p.bin_cnt, p.range))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        self._check(p)
        data = in_shapes[0]
        if p.bin_cnt is not None:
            edges = p.bin_cnt + 1
            ins = [data]
        else:
            bins = in_shapes[1]
            if bins is not None and len(bins) != 1:
                raise ShapeError("_histogram: input 'bins' must be 1-d (the edges), got shape %s" % shape_str(bins))
            edges = bins[0] if bins is not None else 0
            ins = [data, bins]
        counts = merge_shape(out_shapes[0], (edges - 1 if edges else 0,), '_histogram output0')
        bounds = merge_shape(out_shapes[1], (edges,), '_histogram output1')
        return ins, [counts, bounds], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return list(in_types), [np.dtype(np.int64), in_types[0]], aux_types

    def forward(self, p, env, inputs, aux):
        self._check(p)
        xp, x = env.xp, inputs[0].reshape(-1)
        if p.bin_cnt is not None:
            lo, hi = float(p.range[0]), float(p.range[1])
            edges = xp.linspace(lo, hi, p.bin_cnt + 1).astype(inputs[0].dtype)
        else:
            edges = inputs[1].astype(inputs[0].dtype)
        # a value goes to the bin whose edges (as stored, in the data's dtype) hold it: MXNet
        # 1.9.1 puts a value equal to edge i into bin i also where (x - lo) * n / (hi - lo)
        # rounds below i.  Bin i holds edges[i] <= x < edges[i+1], the last bin its right
        # edge too; counted as differences of positions in the sorted data, because a mask
        # or bincount would make a GPU wait to learn how many values there are (NaN sorts
        # last and lands in no bin)
        ordered = xp.sort(x)
        starts = xp.searchsorted(ordered, edges[:-1], side='left')
        end = xp.searchsorted(ordered, edges[-1:], side='right')
        return [xp.diff(xp.concatenate([starts, end])).astype(np.int64), edges]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [None] * len(inputs)
