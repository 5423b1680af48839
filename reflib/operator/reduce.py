"""Reductions: ``sum``, ``mean``, ``max``, ``min``, ``prod``, ``nansum``, ``nanprod``,
``norm`` and ``moments`` over an ``axis`` tuple; and the running sum ``cumsum``.

MXNet 1.x has no 0-d arrays: reducing every axis without ``keepdims`` gives
shape ``(1,)``.  ``exclude=True`` reduces the axes *not* listed.
"""

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape
from ..shapes import prod as _prod
from .common import fresh_copy, expand_to, is_numpy, sign_of, normalize_axis
from ..base import ParamError, ShapeError
from .sparse_rows import SparseRows


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

    axis_param = 'axis'

    def _axes(self, p, ndim):
        # derived once per ndim (Params.memo): a loss's mean asks three times per step
        key = ('reduce_axes', ndim)
        axes = p.memo.get(key)
        if axes is None:
            axes = p.memo[key] = self._parse_axes(p, ndim)
        return axes

    def _parse_axes(self, p, ndim):
        given = getattr(p, self.axis_param)
        if not given:
            return tuple(range(ndim))
        axes = []
        for a in given:
            if not -ndim <= a < ndim:
                raise ShapeError("%s: axis %d is out of range for input 'data' with %d dims (%s=%s)"
                                 % (self.name, a, ndim, self.axis_param, tuple(given)))
            axes.append(a + ndim if a < 0 else a)
        if len(set(axes)) != len(axes):
            raise ShapeError('%s: %s=%s names the same axis twice' % (self.name, self.axis_param, tuple(given)))
        if getattr(p, 'exclude', False):
            return tuple(i for i in range(ndim) if i not in axes)
        return tuple(sorted(axes))

    def _out_shape(self, p, shape):
        key = ('reduce_out', tuple(shape))
        out = p.memo.get(key)
        if out is None:
            out = p.memo[key] = self._find_out_shape(p, shape)
        return out

    def _find_out_shape(self, p, shape):
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

    # whether _reduce takes ``out=`` (sum, mean): then a float reduction is computed in
    # the planned output itself, not copied there
    reduces_into = False

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        axes = self._axes(p, x.ndim)
        target = env.target(0) if self.reduces_into and axes else None
        if target is not None and x.dtype.kind == 'f' and target.dtype == x.dtype:
            self._reduce(env.xp, x, axes, out=target.reshape(self._kept_shape(p, x.shape)))
            return [target]
        y = self._reduce(env.xp, x, axes) if axes else fresh_copy(env.xp, x)
        return [y.reshape(self._out_shape(p, x.shape))]

    def _kept_shape(self, p, shape):
        """``shape`` with the reduced axes kept as 1."""
        key = ('reduce_kept', shape)
        kept = p.memo.get(key)
        if kept is None:
            axes = self._axes(p, len(shape))
            kept = p.memo[key] = tuple(1 if i in axes else d for i, d in enumerate(shape))
        return kept

    def _kept(self, p, a, x):
        """``a`` (output-shaped) reshaped to keepdims form, so it broadcasts against ``x``."""
        return a.reshape(self._kept_shape(p, x.shape))


@register
class Sum(_Reduce):
    name = 'sum'
    aliases = ('sum_axis',)

    reduces_into = True

    def _reduce(self, xp, x, axes, out=None):
        return x.sum(axis=axes, keepdims=True, out=out)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x, target = inputs[0], env.grad_target(0)
        if target is not None:          # broadcast straight into the planned gradient array
            target[...] = self._kept(p, out_grads[0], x)
            return [target]
        return [expand_to(env.xp, self._kept(p, out_grads[0], x), x)]


@register
class Mean(_Reduce):
    name = 'mean'

    reduces_into = True

    def _reduce(self, xp, x, axes, out=None):
        total = x.sum(axis=axes, keepdims=True, out=out)
        count = _prod(x.shape[a] for a in axes)
        return total / count if out is None else xp.divide(total, count, out=total)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x, target = inputs[0], env.grad_target(0)
        count = _prod(x.shape[a] for a in self._axes(p, x.ndim))
        if target is not None and target.dtype.kind == 'f':
            # broadcast straight into the planned gradient array
            return [env.xp.divide(self._kept(p, out_grads[0], x), count, out=target)]
        return [expand_to(env.xp, self._kept(p, out_grads[0], x) / count, x)]


class _Extreme(_Reduce):
    """max/min: the gradient goes to every element equal to the result (ties all get it in full)."""

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        empty = [a for a in self._axes(p, x.ndim) if x.shape[a] == 0]
        if empty:
            # a sum of nothing is 0, but a max of nothing is no number: MXNet refuses it too
            raise ShapeError("%s: input 'data' of shape %s has no elements along axis %s to take the %s of"
                             % (self.name, tuple(x.shape), empty[0], self.name))
        return super().forward(p, env, inputs, aux)

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


@register
class SquareSum(_Reduce):
    """``sum(data ** 2)`` over ``axis`` in one step: the factorization machine's ``sum_f v_if^2``.

    MXNet 1.9.1 registers it (``_square_sum``) for a 2-D row_sparse ``data`` only; reflib runs
    the same arithmetic on dense input too.  A row_sparse input arrives as its stored rows
    (``SparseRows``) and its gradient, ``2 * data * head``, is stored in those same rows,
    as MXNet's backward stores it; an absent row's square is 0 and so is its gradient."""
    name = '_square_sum'

    def _reduce(self, xp, x, axes):
        return (x * x).sum(axis=axes, keepdims=True)

    def sparse_inputs(self, p):
        return {0: ('row_sparse',)}

    def grad_stype(self, p, k, in_stypes):
        return 'row_sparse' if in_stypes[0] == 'row_sparse' else 'default'

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        if not isinstance(x, SparseRows):
            return super().forward(p, env, inputs, aux)
        xp = env.xp
        axes = self._axes(p, len(x.shape))
        kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        stored = self._reduce(xp, x.values, axes)
        if 0 in axes:           # the absent rows add nothing to a sum over rows
            out = stored
        else:                   # one result per row: the absent ones are 0
            out = xp.zeros(kept, dtype=x.values.dtype)
            out[x.rows] = stored
        return [out.reshape(self._out_shape(p, x.shape))]

    takes_sparse_head = True

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x, head = env.xp, inputs[0], out_grads[0]
        if isinstance(head, SparseRows) and not isinstance(x, SparseRows):
            head = head.dense(xp)
        if not isinstance(x, SparseRows):
            return [2 * x * expand_to(xp, self._kept(p, head, x), x)]
        axes = self._axes(p, len(x.shape))
        kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        if 0 in axes:           # one head for all rows: each stored row's gradient uses it
            head = head.dense(xp) if isinstance(head, SparseRows) else head
            return [SparseRows(x.rows, 2 * x.values * head.reshape(kept), x.shape)]
        rows, values = x.rows, x.values
        if isinstance(head, SparseRows):    # only rows stored in both get a gradient
            rows, in_x, in_head = xp.intersect1d(x.rows, head.rows, return_indices=True)
            values, head = values[in_x], head.values[in_head]
        else:
            head = head.reshape(kept)[rows]
        row_head = head.reshape((len(rows),) + kept[1:])
        return [SparseRows(rows.astype(x.rows.dtype), 2 * values * row_head, x.shape)]


# ================================================================ products, NaN-skipping
def _quietly(xp):
    """numpy's warnings off for a division MXNet makes too (0/0 in prod's gradient)."""
    return np.errstate(divide='ignore', invalid='ignore') if is_numpy(xp) else _NoContext()


class _NoContext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@register
class Prod(_Reduce):
    """The product.  Its gradient is MXNet 1.9.1's ``head * prod / x``, so an input holding
    0 gets NaN at its zeros (and 0 elsewhere), not the product of the other elements."""
    name = 'prod'

    def _reduce(self, xp, x, axes):
        return x.prod(axis=axes, keepdims=True)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x = inputs[0]
        with _quietly(env.xp):
            return [self._kept(p, out_grads[0], x) * (self._kept(p, outputs[0], x) / x)]


@register
class NanSum(_Reduce):
    """The sum of the elements that are not NaN (0 where all are); NaNs get a zero gradient."""
    name = 'nansum'

    def _reduce(self, xp, x, axes):
        return xp.nansum(x, axis=axes, keepdims=True)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x = inputs[0]
        return [self._kept(p, out_grads[0], x) * ~env.xp.isnan(x)]


@register
class NanProd(_Reduce):
    """The product of the elements that are not NaN (1 where all are); the gradient is
    ``head * nanprod / x`` off the NaNs (NaN at zeros, as prod) and zero on them."""
    name = 'nanprod'

    def _reduce(self, xp, x, axes):
        return xp.nanprod(x, axis=axes, keepdims=True)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x = env.xp, inputs[0]
        with _quietly(xp):
            grad = self._kept(p, out_grads[0], x) * (self._kept(p, outputs[0], x) / x)
        return [xp.where(xp.isnan(x), x.dtype.type(0), grad)]


# ================================================================ norm / moments
@register
class Norm(_Reduce):
    """The L2 (``ord=2``) or L1 (``ord=1``) norm over ``axis`` (None: all elements).

    Gradients as MXNet 1.9.1's: ``x / norm`` for L2 (NaN where the norm is 0) and
    ``sign(x)`` for L1 (0 at 0).  ``out_dtype`` casts the result; MXNet 1.9.1 accepts it in
    shape and type inference but its CPU kernel then fails for any dtype other than the
    input's, so reflib computes in the input's dtype and casts.
    """
    name = 'norm'
    params = {
        'ord': Param('int', 2, doc='1 or 2'),
        'axis': Param('shape_or_none', None, doc='axes to reduce; None means all'),
        'out_dtype': Param('enum', None, doc='the output dtype; None: the input\'s',
                           choices=('float16', 'float32', 'float64', 'int32', 'int64', 'int8')),
        'keepdims': Param('bool', False, doc='keep reduced axes with size 1'),
    }

    def _check(self, p):
        if p.ord not in (1, 2):
            raise ParamError('norm: ord=%d is not supported; ord must be 1 or 2 (as in MXNet 1.9.1)' % p.ord)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        self._check(p)
        return super().infer_shape(p, in_shapes, out_shapes, aux_shapes)

    def infer_type(self, p, in_types, out_types, aux_types):
        out = in_types[0] if p.out_dtype is None else np.dtype(p.out_dtype)
        return [in_types[0]], [out], aux_types

    def forward(self, p, env, inputs, aux):
        self._check(p)
        xp, x = env.xp, inputs[0]
        axes = self._axes(p, x.ndim)
        if p.ord == 1:
            y = xp.abs(x).sum(axis=axes, keepdims=True)
        else:
            y = xp.sqrt((x * x).sum(axis=axes, keepdims=True))
        y = y.reshape(self._out_shape(p, x.shape))
        return [y if p.out_dtype is None else y.astype(p.out_dtype)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x = env.xp, inputs[0]
        head = self._kept(p, out_grads[0], x).astype(x.dtype)
        if p.ord == 1:
            return [head * sign_of(x)]
        with _quietly(xp):
            return [head * (x / self._kept(p, outputs[0], x).astype(x.dtype))]


@register
class Moments(_Reduce):
    """Mean and (population) variance over ``axes``, two outputs.  ``axes`` must be given:
    MXNet 1.9.1 refuses None or empty."""
    name = 'moments'
    axis_param = 'axes'
    params = {
        'axes': Param('shape_or_none', None, doc='the axes to reduce (required in effect)'),
        'keepdims': Param('bool', False, doc='keep reduced axes with size 1'),
    }

    def outputs(self, p):
        return ['output0', 'output1']

    def _check(self, p):
        if not p.axes:
            raise ParamError('moments: axes=%s: give the axes to reduce (MXNet 1.9.1 takes no empty axes; '
                             'for all of them, list them all)' % (p.axes,))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        self._check(p)
        data = in_shapes[0]
        outs = list(out_shapes)
        if data is not None:
            shape = self._out_shape(p, data)
            outs = [merge_shape(o, shape, 'moments output%d' % k) for k, o in enumerate(outs)]
        return [data], outs, aux_shapes

    def forward(self, p, env, inputs, aux):
        self._check(p)
        x = inputs[0]
        axes = self._axes(p, x.ndim)
        mean = x.mean(axis=axes, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
        shape = self._out_shape(p, x.shape)
        return [mean.reshape(shape), var.reshape(shape)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x = env.xp, inputs[0]
        count = _prod(x.shape[a] for a in self._axes(p, x.ndim))
        mean = self._kept(p, outputs[0], x)
        g_mean = out_grads[0] if out_grads[0] is not None else xp.zeros_like(outputs[0])
        g_var = out_grads[1] if out_grads[1] is not None else xp.zeros_like(outputs[1])
        grad = self._kept(p, g_mean, x) / count + self._kept(p, g_var, x) * (2 * (x - mean) / count)
        return [grad.astype(x.dtype)]


# ================================================================ cumsum
# the dtypes MXNet 1.9.1's _np_cumsum takes for its result
CUMSUM_DTYPES = ('float16', 'float32', 'float64', 'int32', 'int64', 'int8')


@register
class CumSum(Operator):
    """The running sum along ``axis`` (``numpy.cumsum``; a negative axis is refused, as MXNet
    1.9.1 refuses it); with ``axis=None`` the input is flattened first.  The result has ``dtype`` when given, else the input's dtype (MXNet
    1.9.1 keeps int8 as int8, where NumPy would widen it).  The gradient of element i
    is the sum of the output gradients from i to the end: the running sum taken backwards."""
    name = '_np_cumsum'
    aliases = ('cumsum',)
    params = {
        'axis': Param('int_or_none', None, doc='the axis summed along; None flattens first'),
        'dtype': Param('enum', None, choices=CUMSUM_DTYPES, doc="the result's dtype; None keeps the input's"),
    }

    def inputs(self, p):
        return ['a']               # MXNet's name for it (a NumPy-interface operator)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            if p.axis is None:
                want = (_prod(data),) if all(data) else (0,)
            else:
                self._checked_axis(p, len(data))
                want = tuple(data)
            out = merge_shape(out, want, 'cumsum output')
        return [data], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        if p.dtype is None:
            return super().infer_type(p, in_types, out_types, aux_types)
        return list(in_types), [np.dtype(p.dtype)], aux_types     # the input's dtype stays open

    def _axis(self, p, x):
        return 0 if p.axis is None else self._checked_axis(p, x.ndim)

    def _checked_axis(self, p, ndim):
        # MXNet 1.9.1 refuses a negative axis here, though NumPy takes one
        if p.axis < 0:
            raise ParamError('%s (cumsum): axis=%d: MXNet 1.9.1 takes an axis from 0 to %d here, not a '
                             'negative one' % (self.name, p.axis, ndim - 1))
        return normalize_axis(self.name, 'axis', p.axis, ndim)

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        flat = x.reshape(-1) if p.axis is None else x
        dtype = x.dtype if p.dtype is None else np.dtype(p.dtype)
        return [env.xp.cumsum(flat, axis=self._axis(p, flat), dtype=dtype)]

    def backward_reads(self, p):
        return [0], []             # the input's shape and dtype only

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x, g = env.xp, inputs[0], out_grads[0]
        axis = self._axis(p, g)
        tail_sums = xp.flip(xp.cumsum(xp.flip(g, axis=axis), axis=axis), axis=axis)
        return [tail_sums.reshape(x.shape).astype(x.dtype, copy=False)]
