"""Neural-network layers: FullyConnected, Activation, ...

Each class is one operator: its parameters, shape rule, forward and backward.
"""

import itertools
import math

import numpy as np

from .registry import Operator, Param, register, merge_shape, merge_dtype
from .registry import prod as _prod, format_shape as _fmt_shape
from ..base import ShapeError, ParamError


@register
class FullyConnected(Operator):
    """``out = data · weightᵀ + bias``.

    With ``flatten=True`` (default) data of shape (N, d1, d2, ...) is seen as
    (N, d1*d2*...); with ``flatten=False`` the product runs over the last axis
    only.  weight has shape (num_hidden, input_dim), bias (num_hidden,).
    """
    name = 'FullyConnected'
    params = {
        'num_hidden': Param('int', doc='number of output units', low=1),
        'no_bias': Param('bool', False, doc='leave out the bias term'),
        'flatten': Param('bool', True, doc='flatten all but the first axis of data'),
    }

    def inputs(self, p):
        return ['data', 'weight'] if p.no_bias else ['data', 'weight', 'bias']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is None:
            # like MXNet: nothing is deduced (not even weight's first dim) until data is known
            return list(in_shapes), [out], aux_shapes
        if out is not None and len(out) > 0:
            # backwards, as MXNet: the output's batch is the data's (an RNN's begin state is
            # zeros of shape (0, n), whose batch only the layer that reads it can tell)
            lead = 1 if p.flatten else len(data) - 1
            data = merge_shape(data, tuple(out[:lead]) + (0,) * (len(data) - lead), self.name)
        if p.flatten:
            in_dim = _prod(data[1:]) if all(data[1:]) else 0
            out = merge_shape(out, (data[0], p.num_hidden), self.name)
        else:
            in_dim = data[-1]
            out = merge_shape(out, tuple(data[:-1]) + (p.num_hidden,), self.name)
        weight = (p.num_hidden, in_dim)
        shapes = [data, weight] + ([] if p.no_bias else [(p.num_hidden,)])
        return shapes, [out], aux_shapes

    def _flat(self, p, data):
        return data.reshape(data.shape[0], -1) if p.flatten else data.reshape(-1, data.shape[-1])

    def backward_reads(self, p):
        return [0, 1], []                  # data and weight; never the output

    def forward(self, p, env, inputs, aux):
        data, weight = inputs[0], inputs[1]
        out_shape = (data.shape[0], p.num_hidden) if p.flatten else data.shape[:-1] + (p.num_hidden,)
        target = env.target(0)
        out = env.xp.matmul(self._flat(p, data), weight.T,
                            out=None if target is None else target.reshape(-1, p.num_hidden))
        if not p.no_bias:
            out += inputs[2]
        return [out.reshape(out_shape) if target is None else target]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, weight = env.xp, inputs[0], inputs[1]
        grad = out_grads[0].reshape(-1, p.num_hidden)
        grads = [None, None]
        if env.wants_grad(0):
            target = env.grad_target(0)
            d_data = xp.matmul(grad, weight, out=None if target is None else target.reshape(grad.shape[0], -1))
            grads[0] = d_data.reshape(data.shape) if target is None else target
        if env.wants_grad(1):
            grads[1] = xp.matmul(grad.T, self._flat(p, data), out=env.grad_target(1))
        if not p.no_bias:
            grads.append(grad.sum(axis=0, out=env.grad_target(2)) if env.wants_grad(2) else None)
        return grads


@register
class Activation(Operator):
    """Elementwise nonlinearity chosen by ``act_type``."""
    name = 'Activation'
    params = {'act_type': Param('enum', choices=('relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'),
                                doc='which function')}

    def inplace(self, p):
        return [(0, 0)]

    def backward_reads(self, p):
        # softsign's derivative needs x; the others are functions of the output y
        return ([0], []) if p.act_type == 'softsign' else ([], [0])

    def backward_inplace(self, p):
        return [(0, 0)]

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        out = env.target(0)                 # the planned array, possibly x's own memory
        if out is None:
            out = xp.empty_like(x)
        if p.act_type == 'relu':
            xp.maximum(x, 0, out=out)
        elif p.act_type == 'sigmoid':
            xp.negative(x, out=out)
            xp.exp(out, out=out)
            xp.add(1, out, out=out)
            xp.divide(1, out, out=out)
        elif p.act_type == 'tanh':
            xp.tanh(x, out=out)
        elif p.act_type == 'softrelu':
            xp.logaddexp(0, x, out=out)
        else:                               # softsign
            xp.divide(x, 1 + xp.abs(x), out=out)
        return [out]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, g, x, y = env.xp, out_grads[0], inputs[0], outputs[0]
        out = env.grad_target(0)           # None (a new array), or possibly g's own memory
        if p.act_type == 'relu':
            return [xp.multiply(g, y > 0, out=out)]                 # y > 0 is x > 0
        if p.act_type == 'sigmoid':
            return [xp.multiply(xp.multiply(g, y, out=out), 1 - y, out=out)]
        if p.act_type == 'tanh':
            return [xp.multiply(g, 1 - y * y, out=out)]
        if p.act_type == 'softrelu':      # d/dx log(1+e^x) = sigmoid(x) = 1 - e^{-y}
            return [xp.multiply(g, 1 - xp.exp(-y), out=out)]
        return [xp.divide(g, (1 + xp.abs(x)) ** 2, out=out)]     # softsign


# =====================================================================
# helpers shared by the layers below
# =====================================================================

def _is_numpy(xp):
    return xp.__name__ == 'numpy'


def scatter_add(xp, target, index, values):
    """``target[index] += values`` where repeated indices all add up (in place).

    Plain ``target[index] += values`` keeps only one of the repeated writes;
    numpy spells the accumulating version ``np.add.at`` and cupy
    ``cupyx.scatter_add``.
    """
    if _is_numpy(xp):
        np.add.at(target, index, values)
    else:
        import cupyx
        cupyx.scatter_add(target, index, values)
    return target


def _erf(xp, x):
    """The error function elementwise; numpy itself has none."""
    if not _is_numpy(xp):
        from cupyx.scipy.special import erf
        return erf(x)
    try:
        from scipy.special import erf
        return erf(x)
    except ImportError:  # scipy is optional: fall back to the (slow) scalar version
        return np.vectorize(math.erf, otypes=[x.dtype])(x)


def _lowest(dtype):
    """The most negative value of ``dtype``: padding for max pooling (MXNet uses it too)."""
    dtype = np.dtype(dtype)
    return np.finfo(dtype).min if dtype.kind == 'f' else np.iinfo(dtype).min


def _spatial_tuple(op, name, value, nd, fill):
    """``value`` (possibly empty = unset) as an nd-tuple; an explicit one must have nd entries."""
    if not value:
        return (fill,) * nd
    if len(value) != nd:
        raise ParamError('%s: parameter %r must have %d entries like kernel, got %s'
                         % (op, name, nd, _fmt_shape(value)))
    return tuple(value)


_LAYOUT_BY_NDIM = {1: 'NCW', 2: 'NCHW', 3: 'NCDHW'}


def _check_layout(op, layout, nd):
    # channel-last layouts exist in MXNet only on GPU (cuDNN); reflib keeps channel-first
    if layout is not None and layout != _LAYOUT_BY_NDIM[nd]:
        raise ParamError('%s: layout %r is not supported; only the channel-first layout %r '
                         'for a %d-D kernel' % (op, layout, _LAYOUT_BY_NDIM[nd], nd))


def _offset_slices(kernel, dilate, stride, out_size):
    """For every kernel offset (row-major), the slices of the padded input it touches.

    Output position ``o`` along a spatial axis reads input ``o*stride + k*dilate``
    for offset ``k``; so offset ``k`` sees one strided slice of the padded input,
    of exactly the output's length.  Sliding windows thereby become a short
    Python loop over the kernel (9 steps for 3x3) of whole-array operations.
    """
    ranges = [range(k) for k in kernel]
    out = []
    for offsets in itertools.product(*ranges):
        spatial = tuple(slice(k * d, k * d + s * (n - 1) + 1, s)
                        for k, d, s, n in zip(offsets, dilate, stride, out_size))
        out.append((slice(None), slice(None)) + spatial)
    return out


def _pad_spatial(xp, x, before, after, value=0):
    """Pad every axis after the first two (batch and channel)."""
    if not any(before) and not any(after):
        return x
    widths = [(0, 0), (0, 0)] + list(zip(before, after))
    return xp.pad(x, widths, mode='constant', constant_values=value)


def _crop_spatial(x, before, size):
    return x[(slice(None), slice(None)) + tuple(slice(b, b + n) for b, n in zip(before, size))]


def _stack_rows(xp, blocks):
    """The matrices in ``blocks`` one below the other; a single block is returned as it is.

    (``xp.concatenate`` copies even one block, megabytes per call for a convolution.)
    """
    return blocks[0] if len(blocks) == 1 else xp.concatenate(blocks)


def _same_as_data(in_shapes, out_shapes, where):
    """One shape for data and every output (shape-preserving layers)."""
    known = in_shapes[0]
    for s in out_shapes:
        known = merge_shape(known, s, where)
    return known


# =====================================================================
# Convolution
# =====================================================================

@register
class Convolution(Operator):
    """N-D convolution (1-D, 2-D, 3-D) over channel-first data.

    data is (batch, channel, *spatial), weight (num_filter, channel/num_group,
    *kernel), bias (num_filter,).  Output spatial size along each axis is
    ``(in + 2*pad - dilate*(kernel-1) - 1) // stride + 1``.  With ``num_group``
    groups the channels are split into equal blocks and filter block g sees
    only channel block g.  (Strictly this is cross-correlation, as in every
    deep-learning framework: the kernel is not flipped.)
    """
    name = 'Convolution'
    params = {
        'kernel': Param('shape', doc='kernel size: (w,), (h, w) or (d, h, w)', low=1),
        'stride': Param('shape', (), doc='step between windows; default 1 per axis', low=1),
        'dilate': Param('shape', (), doc='spacing between kernel taps; default 1 per axis', low=1),
        'pad': Param('shape', (), doc='zero padding on both sides; default 0 per axis', low=0),
        'num_filter': Param('int', doc='number of output channels', low=1),
        'num_group': Param('int', 1, doc='split channels into this many independent groups', low=1),
        'workspace': Param('int', 1024, doc='scratch-memory limit in MB: a bigger batch is done in pieces',
                           low=0),
        'no_bias': Param('bool', False, doc='leave out the bias term'),
        'cudnn_tune': Param('enum', None, choices=('fastest', 'limited_workspace', 'off'),
                            doc='cuDNN algorithm choice; unused here'),
        'cudnn_off': Param('bool', False, doc='unused here'),
        'layout': Param('enum', None, choices=('NCW', 'NCHW', 'NCDHW', 'NHWC', 'NDHWC'),
                        doc='only the channel-first default is supported'),
    }

    def inputs(self, p):
        return ['data', 'weight'] if p.no_bias else ['data', 'weight', 'bias']

    def _geometry(self, p):
        """(kernel, stride, dilate, pad) as full tuples, after checking the parameters."""
        nd = len(p.kernel)
        if nd not in (1, 2, 3):
            raise ParamError('%s: kernel must have 1, 2 or 3 entries, got %s' % (self.name, _fmt_shape(p.kernel)))
        _check_layout(self.name, p.layout, nd)
        stride = _spatial_tuple(self.name, 'stride', p.stride, nd, 1)
        dilate = _spatial_tuple(self.name, 'dilate', p.dilate, nd, 1)
        pad = _spatial_tuple(self.name, 'pad', p.pad, nd, 0)
        if min(p.kernel) < 1 or min(stride) < 1 or min(dilate) < 1 or min(pad) < 0:
            raise ParamError('%s: kernel, stride and dilate must be positive and pad non-negative; got '
                             'kernel=%s stride=%s dilate=%s pad=%s' % (self.name, p.kernel, stride, dilate, pad))
        if p.num_filter < 1 or p.num_group < 1 or p.num_filter % p.num_group:
            raise ParamError('%s: num_filter (%d) must be a positive multiple of num_group (%d)'
                             % (self.name, p.num_filter, p.num_group))
        return tuple(p.kernel), stride, dilate, pad

    def _out_size(self, p, data, geometry):
        """Output spatial sizes for data shape ``data`` (0 where unknown); checks data."""
        kernel, stride, dilate, pad = geometry
        nd = len(kernel)
        if len(data) != nd + 2:
            raise ShapeError('%s: input %r must be %d-d (batch, channel, %s) for a %d-D kernel, got shape %s'
                             % (self.name, 'data', nd + 2, ', '.join(_LAYOUT_BY_NDIM[nd][2:]), nd, _fmt_shape(data)))
        if data[1] and data[1] % p.num_group:
            raise ShapeError('%s: input %r has %d channels, not divisible by num_group=%d'
                             % (self.name, 'data', data[1], p.num_group))
        out = []
        for n, k, s, d, pd in zip(data[2:], kernel, stride, dilate, pad):
            span = d * (k - 1) + 1
            if n and span > n + 2 * pd:
                raise ShapeError('%s: dilated kernel size %d exceeds the padded input size %d (input %r shape %s)'
                                 % (self.name, span, n + 2 * pd, 'data', _fmt_shape(data)))
            out.append((n + 2 * pd - span) // s + 1 if n else 0)
        return tuple(out)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        geometry = self._geometry(p)
        data = in_shapes[0]
        out = out_shapes[0]
        channels = 0
        if data is not None:
            spatial = self._out_size(p, data, geometry)
            channels = data[1] // p.num_group if data[1] else 0
            out = merge_shape(out, (data[0], p.num_filter) + spatial, '%s: output' % self.name)
        weight = merge_shape(in_shapes[1], (p.num_filter, channels) + geometry[0], '%s: input weight' % self.name)
        shapes = [data, weight]
        if not p.no_bias:
            shapes.append(merge_shape(in_shapes[2], (p.num_filter,), '%s: input bias' % self.name))
        return shapes, [out], aux_shapes

    def _check_weight(self, p, data, weight):
        expected = (p.num_filter, data.shape[1] // p.num_group) + tuple(p.kernel)
        if tuple(weight.shape) != expected:
            raise ShapeError('%s: input %r must have shape %s, got %s'
                             % (self.name, 'weight', _fmt_shape(expected), _fmt_shape(weight.shape)))

    def _columns(self, p, xp, data, geometry, out_size, env=None):
        """The input patches as a (channels * kernel_size, batch * out_positions) matrix.

        Row ``c * K + k`` holds channel c's value under kernel offset k at every
        (sample, output position): the same order as the columns of
        ``weight.reshape(num_filter, -1)``, so the convolution of group g is one
        matrix product of its weight rows with its block of rows here.

        Each offset's slice is copied into its place in one C-contiguous
        (C, K, N, *out) buffer, so the reshape into a matrix is free.  (Stacking
        the slices with ``xp.stack`` would keep the transposed (C, N) memory
        order of ``padded``, and the reshape would then copy everything again.)
        """
        kernel, stride, dilate, pad = geometry
        batch, channels = data.shape[:2]
        padded = _pad_spatial(xp, data, pad, pad).transpose((1, 0) + tuple(range(2, data.ndim)))  # (C, N, *padded)
        slices = _offset_slices(kernel, dilate, stride, out_size)
        shape = (channels, len(slices), batch) + out_size                                         # (C, K, N, *out)
        cols = env.workspace('im2col', shape, data.dtype) if env is not None else xp.empty(shape, dtype=data.dtype)
        for k, sl in enumerate(slices):
            cols[:, k] = padded[sl]
        return cols.reshape(channels * len(slices), -1), padded.shape, slices

    def _group_rows(self, p, total):
        """Row ranges of each group in a matrix of ``total`` rows."""
        size = total // p.num_group
        return [slice(g * size, (g + 1) * size) for g in range(p.num_group)]

    # reflib's own cap on the im2col scratch memory of one call, in MB (MXNet's `workspace`
    # parameter, 1024 MB by default, caps it too: the smaller of the two applies)
    max_workspace_mb = 32

    def _chunks(self, p, data_shape, out_size, itemsize):
        """Batch slices whose scratch memory (im2col columns, their gradient, two copies of the
        output gradient) fits the workspace; one slice, the whole batch, when it all fits.

        MXNet's CPU convolution cuts the batch the same way, by its ``workspace`` parameter.
        """
        batch, channels = data_shape[:2]
        positions = _prod(out_size)
        per_sample = (2 * channels * _prod(p.kernel) + 2 * p.num_filter) * positions * itemsize
        budget = min(p.workspace, self.max_workspace_mb) * (1 << 20)
        step = max(1, min(batch, int(budget // max(per_sample, 1))))
        return [slice(start, min(start + step, batch)) for start in range(0, batch, step)]

    def backward_reads(self, p):
        return [0, 1], []                  # data and weight; never the output

    def forward(self, p, env, inputs, aux):
        xp, data, weight = env.xp, inputs[0], inputs[1]
        geometry = self._geometry(p)
        out_size = self._out_size(p, data.shape, geometry)
        self._check_weight(p, data, weight)
        bias = None if p.no_bias else inputs[2]
        chunks = self._chunks(p, data.shape, out_size, data.dtype.itemsize)
        out = env.target(0)
        if out is None:
            out = xp.empty((data.shape[0], p.num_filter) + out_size, dtype=data.dtype)
        for rows in chunks:
            # each piece is computed as (filter, sample, position) and stored transposed
            out[rows] = self._forward_batch(p, env, data[rows], weight, bias, geometry, out_size).swapaxes(0, 1)
        return [out]

    def _forward_batch(self, p, env, data, weight, bias, geometry, out_size):
        """The output of ``data``'s samples as (num_filter, batch, *out_size)."""
        xp = env.xp
        cols, _, _ = self._columns(p, xp, data, geometry, out_size, env)
        w = weight.reshape(p.num_filter, -1)
        # plain 2-D products, one per group (numpy's stacked matmul is much slower here)
        out = _stack_rows(xp, [w[f_rows] @ cols[c_rows] for f_rows, c_rows in
                               zip(self._group_rows(p, p.num_filter), self._group_rows(p, cols.shape[0]))])
        out = out.reshape((p.num_filter, data.shape[0]) + out_size)     # (F, N, *out)
        if bias is not None:
            out += bias.reshape((-1, 1) + (1,) * len(out_size))
        return out

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, weight = env.xp, inputs[0], inputs[1]
        geometry = self._geometry(p)
        out_size = self._out_size(p, data.shape, geometry)
        bias = [] if p.no_bias else [out_grads[0].sum(axis=(0,) + tuple(range(2, data.ndim)))]
        chunks = self._chunks(p, data.shape, out_size, data.dtype.itemsize)
        d_data = None
        if env.wants_grad(0):
            d_data = env.grad_target(0)
            if d_data is None:
                d_data = xp.empty_like(data)
        d_weight = None
        for rows in chunks:
            d_rows, d_w = self._backward_batch(p, env, out_grads[0][rows], data[rows], weight, geometry, out_size)
            if d_data is not None:
                d_data[rows] = d_rows
            if d_w is not None:
                d_weight = d_w if d_weight is None else d_weight + d_w
        return [d_data, d_weight] + bias

    def _backward_batch(self, p, env, out_grad, data, weight, geometry, out_size):
        """[data gradient or None, weight gradient or None] for the samples of ``data``."""
        xp = env.xp
        batch, channels = data.shape[:2]
        cols, padded_shape, slices = self._columns(p, xp, data, geometry, out_size, env)
        grad = xp.ascontiguousarray(out_grad.swapaxes(0, 1)).reshape(p.num_filter, -1)      # (F, N*P)
        if env.wants_grad(0):
            # the same gradient with the batch axis last, (F, P*N), for the scatter below
            spatial = tuple(range(2, data.ndim))
            grad_t = xp.ascontiguousarray(out_grad.transpose((1,) + spatial + (0,))).reshape(p.num_filter, -1)
        w = weight.reshape(p.num_filter, -1)                                                # (F, Cg*K)
        d_weight, d_cols = [], []
        for f_rows, c_rows in zip(self._group_rows(p, p.num_filter), self._group_rows(p, cols.shape[0])):
            d_weight.append(grad[f_rows] @ cols[c_rows].T)    # sum over samples and positions
            if env.wants_grad(0):                              # each patch's share of the gradient
                if p.num_group == 1:                           # one group: straight into scratch memory
                    d_cols.append(xp.matmul(w.T, grad_t, out=env.workspace('col2im', cols.shape, cols.dtype)))
                else:
                    d_cols.append(w[f_rows].T @ grad_t[f_rows])
        d_weight = _stack_rows(xp, d_weight).reshape(weight.shape) if env.wants_grad(1) else None
        if not env.wants_grad(0):       # the first layer: nobody reads the data's gradient
            return [None, d_weight]
        d_cols = _stack_rows(xp, d_cols).reshape((channels, len(slices)) + out_size + (batch,))

        # Scatter the patch gradients back onto the input positions they were read from.
        # d_cols and d_padded are stored batch-last, (C, K, *out, N) and (C, *padded, N),
        # and only *viewed* in the (C, N, ...) axis order that the slices index.  numpy
        # then runs each += over contiguous stretches of at least N elements instead of
        # rows of out_w (8 in LeNet's second layer): about 3x faster.  Only the memory
        # order differs from forward's layout; every element is the same sum, in the same order.
        d_cols = xp.moveaxis(d_cols, -1, 2)                                    # (C, K, N, *out)
        d_padded = xp.moveaxis(xp.zeros((channels,) + padded_shape[2:] + (batch,), dtype=data.dtype),
                               -1, 1)                                           # (C, N, *padded)
        for k, sl in enumerate(slices):
            # one offset's slice has no repeated positions, so += is exact here
            d_padded[sl] += d_cols[:, k]
        # (C, N, ...) -> (N, C, ...): the caller stores it in the data gradient's memory
        return [_crop_spatial(d_padded, geometry[3], data.shape[2:]).swapaxes(0, 1), d_weight]


# =====================================================================
# Pooling
# =====================================================================

@register
class Pooling(Operator):
    """Max / average / sum / Lp pooling over 1, 2 or 3 spatial axes.

    Output size per axis: ``(in + 2*pad - kernel) // stride + 1`` with
    ``pooling_convention='valid'``, rounded *up* instead of down with 'full'
    (so the last window may hang over the end).  ``global_pool`` pools each
    whole feature map to size 1 and ignores kernel, stride and pad.

    What MXNet 1.9.1 does at the borders, reproduced here:

    * max: padding never wins (it is the lowest finite value of the dtype,
      which is also what an all-padding window of the 'full' convention
      returns);
    * avg with ``count_include_pad`` (the default): divide by the window's
      size clipped to the padded input, i.e. zero padding counts but the
      overhang of a 'full' window does not; without it, divide by the number
      of real input elements in the window (at least 1);
    * lp: ``(sum x**p) ** (1/p)`` *without* absolute values, p in {1, 2, 3};
    * max backward sends each window's gradient to its first maximal element.
    """
    name = 'Pooling'
    params = {
        'kernel': Param('shape', (), doc='window size: (w,), (h, w) or (d, h, w)', low=1),
        'pool_type': Param('enum', 'max', choices=('avg', 'lp', 'max', 'sum'), doc='how to pool'),
        'global_pool': Param('bool', False, doc='pool each whole feature map to one value'),
        'cudnn_off': Param('bool', False, doc='unused here'),
        'pooling_convention': Param('enum', 'valid', choices=('full', 'same', 'valid'),
                                    doc="'valid' rounds the window count down, 'full' up"),
        'stride': Param('shape', (), doc='step between windows; default 1 per axis', low=1),
        'pad': Param('shape', (), doc='padding on both sides; default 0 per axis', low=0),
        'p_value': Param('int_or_none', None, doc='p of Lp pooling (1, 2 or 3)', low=1),
        'count_include_pad': Param('bool_or_none', None,
                                   doc='avg only: count padding in the divisor (default True)'),
        'layout': Param('enum', None, choices=('NCW', 'NCHW', 'NCDHW', 'NWC', 'NHWC', 'NDHWC'),
                        doc='only the channel-first default is supported'),
    }

    def _check_params(self, p):
        if p.pooling_convention == 'same':
            # MXNet 1.9.1 accepts the name but fails on every input; say so plainly
            raise ParamError("%s: pooling_convention='same' is not supported (MXNet 1.9.1 fails on it "
                             "too); use 'valid' or 'full'" % self.name)
        if p.pool_type == 'lp' and p.p_value not in (1, 2, 3):
            raise ParamError("%s: pool_type='lp' needs p_value 1, 2 or 3, got %r" % (self.name, p.p_value))
        if not p.global_pool and len(p.kernel) not in (1, 2, 3):
            raise ParamError('%s: kernel must have 1, 2 or 3 entries (or set global_pool=True), got %s'
                             % (self.name, _fmt_shape(p.kernel)))

    def _geometry(self, p, data):
        """(kernel, stride, pad, out_size) for data shape ``data``; checks data and parameters."""
        self._check_params(p)
        if p.global_pool:
            if len(data) not in (3, 4, 5):
                raise ShapeError('%s: input %r must be 3-d, 4-d or 5-d (batch, channel, spatial...), got shape %s'
                                 % (self.name, 'data', _fmt_shape(data)))
            nd = len(data) - 2
            _check_layout(self.name, p.layout, nd)
            return tuple(data[2:]), (1,) * nd, (0,) * nd, (1,) * nd
        nd = len(p.kernel)
        _check_layout(self.name, p.layout, nd)
        if len(data) != nd + 2:
            raise ShapeError('%s: input %r must be %d-d (batch, channel, %s) for a %d-D kernel, got shape %s'
                             % (self.name, 'data', nd + 2, ', '.join(_LAYOUT_BY_NDIM[nd][2:]), nd, _fmt_shape(data)))
        kernel = tuple(p.kernel)
        stride = _spatial_tuple(self.name, 'stride', p.stride, nd, 1)
        pad = _spatial_tuple(self.name, 'pad', p.pad, nd, 0)
        if min(kernel) < 1 or min(stride) < 1 or min(pad) < 0:
            raise ParamError('%s: kernel and stride must be positive and pad non-negative; got kernel=%s stride=%s '
                             'pad=%s' % (self.name, kernel, stride, pad))
        out = []
        for n, k, s, pd in zip(data[2:], kernel, stride, pad):
            if not n:
                out.append(0)
                continue
            if k > n + 2 * pd:
                raise ShapeError('%s: kernel size %d exceeds the padded input size %d (input %r shape %s)'
                                 % (self.name, k, n + 2 * pd, 'data', _fmt_shape(data)))
            span = n + 2 * pd - k
            out.append(span // s + 1 if p.pooling_convention == 'valid' else -(-span // s) + 1)
        return kernel, stride, pad, tuple(out)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            spatial = self._geometry(p, data)[3]
            out = merge_shape(out, tuple(data[:2]) + spatial, '%s: output' % self.name)
        else:
            self._check_params(p)
        return [data], [out], aux_shapes

    def _windows(self, p, xp, data):
        """The padded input and, per kernel offset, its slice (see ``_offset_slices``)."""
        kernel, stride, pad, out_size = self._geometry(p, data.shape)
        # 'full' windows may run past the padded end: extend it so every slice is whole
        after = [max(pd, (o - 1) * s + k - n - pd)
                 for n, k, s, pd, o in zip(data.shape[2:], kernel, stride, pad, out_size)]
        fill = _lowest(data.dtype) if p.pool_type == 'max' else 0
        padded = _pad_spatial(xp, data, pad, after, fill)
        slices = _offset_slices(kernel, (1,) * len(kernel), stride, out_size)
        return padded, slices, (kernel, stride, pad, out_size)

    def _divisor(self, p, xp, data_shape, geometry, dtype):
        """avg pooling: how many elements each output averages over (broadcastable array)."""
        kernel, stride, pad, out_size = geometry
        include_pad = p.count_include_pad is None or p.count_include_pad
        divisor = np.ones((1, 1) + (1,) * len(kernel))
        for axis, (n, k, s, pd, o) in enumerate(zip(data_shape[2:], kernel, stride, pad, out_size)):
            start = np.arange(o) * s - pd
            end = np.minimum(start + k, n + pd)          # overhang past the padding never counts
            if not include_pad:
                start, end = np.maximum(start, 0), np.minimum(end, n)
            size = np.maximum(end - start, 1)           # an all-padding window divides by 1
            shape = [1] * (len(kernel) + 2)
            shape[axis + 2] = o
            divisor = divisor * size.reshape(shape)
        return xp.asarray(divisor.astype(dtype))

    def backward_reads(self, p):
        # max and lp compare with / divide by the output; avg and sum need only data's shape
        return ([0], [0]) if p.pool_type in ('max', 'lp') else ([], [])

    def forward(self, p, env, inputs, aux):
        xp, data = env.xp, inputs[0]
        padded, slices, geometry = self._windows(p, xp, data)
        if p.pool_type == 'max':
            out = env.target(0)
            if out is None:
                out = xp.empty(padded[slices[0]].shape, dtype=data.dtype)
            if len(slices) == 1:
                out[...] = padded[slices[0]]
            else:
                xp.maximum(padded[slices[0]], padded[slices[1]], out=out)
            for sl in slices[2:]:
                xp.maximum(out, padded[sl], out=out)
            return [out]
        if p.pool_type == 'lp':
            total = sum(padded[sl] ** p.p_value for sl in slices)
            return [_lp_root(xp, total, p.p_value)]
        total = sum(padded[sl] for sl in slices)
        if p.pool_type == 'avg':
            total = total / self._divisor(p, xp, data.shape, geometry, data.dtype)
        return [total.astype(data.dtype, copy=False)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, grad = env.xp, inputs[0], out_grads[0]
        padded, slices, geometry = self._windows(p, xp, data)
        kernel, stride, _, out_size = geometry
        # windows that do not overlap (LeNet's 2x2, stride 2) send each position at most one
        # gradient: it can be stored instead of added, and if they also tile the padded input
        # exactly, every position is written and nothing needs zeroing first
        disjoint = p.pool_type == 'max' and all(s >= k for k, s in zip(kernel, stride))
        tiled = disjoint and all(o * s == n and s == k for o, s, k, n in
                                 zip(out_size, stride, kernel, padded.shape[2:]))
        d_padded = xp.empty(padded.shape, dtype=data.dtype) if tiled else xp.zeros(padded.shape, dtype=data.dtype)
        if p.pool_type == 'max':
            # Each window's gradient goes to its first maximal element (MXNet's rule for
            # ties).  Walk the offsets in order and give it to the first element equal to
            # the forward output; ``free`` marks the windows still waiting for theirs.
            # (This compares whole arrays; an argmax over the stacked offsets would copy
            # every window element first and is about 3x slower.)
            out = outputs[0]
            # A window holding NaN outputs NaN (xp.maximum propagates it), and NaN == NaN
            # is False: there the first NaN wins, as an argmax would pick it.
            nan_windows = out.dtype.kind == 'f' and bool(xp.isnan(out).any())
            free = xp.ones(out.shape, dtype=bool)
            hit = xp.empty(out.shape, dtype=bool)
            for sl in slices:
                xp.equal(padded[sl], out, out=hit)
                if nan_windows:
                    hit |= xp.isnan(padded[sl])
                hit &= free
                free ^= hit                  # hit lies within free: this is free & ~hit
                if disjoint:
                    xp.multiply(grad, hit, out=d_padded[sl])
                else:
                    d_padded[sl] += grad * hit
        elif p.pool_type == 'lp':
            # d/dx (sum x^p)^(1/p) = (x / out)^(p-1)
            out = outputs[0]
            for sl in slices:
                d_padded[sl] += grad * (padded[sl] / out) ** (p.p_value - 1)
        else:
            share = grad
            if p.pool_type == 'avg':
                share = grad / self._divisor(p, xp, data.shape, geometry, data.dtype)
            for sl in slices:
                d_padded[sl] += share
        d_data = _crop_spatial(d_padded, geometry[2], data.shape[2:])
        target = env.grad_target(0)
        if target is None:
            return [xp.ascontiguousarray(d_data)]
        target[...] = d_data
        return [target]


def _lp_root(xp, total, p_value):
    if p_value == 1:
        return total
    if p_value == 2:
        return xp.sqrt(total)
    return xp.cbrt(total)


# =====================================================================
# BatchNorm
# =====================================================================

@register
class BatchNorm(Operator):
    """Normalise each channel (``axis``) to zero mean and unit variance, then scale and shift.

    ``out = (x - mean) / sqrt(var + eps) * gamma + beta`` per channel.

    Training (``env.is_train`` and not ``use_global_stats``): mean and var are
    the batch's own statistics over every axis but ``axis`` (var is the
    biased, divide-by-N variance), and the moving statistics are updated in
    place by *backward* (as MXNet 1.9.1 does on CPU):
    ``moving = moving * momentum + batch_stat * (1 - momentum)``.
    Otherwise the moving statistics are used as they are.  A training forward
    alone therefore leaves them untouched; only a forward + backward step
    moves them (MXNet on GPU/cuDNN updates them in forward instead).

    ``fix_gamma=True`` (the default) uses gamma = 1 and gives gamma a zero
    gradient.  The three outputs are the result, the mean used and, despite
    its name ``var``, the inverse standard deviation ``1/sqrt(var + eps)``
    used -- exactly what MXNet returns with ``output_mean_var=True``.  Their
    head gradients do not flow back (MXNet ignores them too).
    """
    name = 'BatchNorm'
    params = {
        'eps': Param('float', 1e-3, doc='added to the variance before the square root'),
        'momentum': Param('float', 0.9, doc='decay of the moving statistics'),
        'fix_gamma': Param('bool', True, doc='use gamma = 1 and do not learn it'),
        'use_global_stats': Param('bool', False, doc='always normalise with the moving statistics'),
        'output_mean_var': Param('bool', False, doc='also return the mean and inverse std used'),
        'axis': Param('int', 1, doc='the channel axis'),
        'cudnn_off': Param('bool', False, doc='unused here'),
        'min_calib_range': Param('float_or_none', None, doc='quantisation only; unused here'),
        'max_calib_range': Param('float_or_none', None, doc='quantisation only; unused here'),
    }

    def inputs(self, p):
        return ['data', 'gamma', 'beta']

    def aux(self, p):
        return ['moving_mean', 'moving_var']

    def aux_init(self, p):
        return {'moving_mean': 'zero', 'moving_var': 'one'}

    def outputs(self, p):
        return ['output', 'mean', 'var']

    def visible_outputs(self, p):
        return 3 if p.output_mean_var else 1

    def _axis(self, p, ndim):
        if not -ndim <= p.axis < ndim:
            raise ParamError('%s: axis %d is out of range for %d-d input %r' % (self.name, p.axis, ndim, 'data'))
        return p.axis % ndim

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = _same_as_data(in_shapes, out_shapes[:1], '%s: input data' % self.name)
        channel = None
        if data is not None:
            channel = (data[self._axis(p, len(data))],)
        names = ['gamma', 'beta']
        params = [merge_shape(s, channel, '%s: input %s' % (self.name, n)) for s, n in zip(in_shapes[1:], names)]
        aux = [merge_shape(s, channel, '%s: aux %s' % (self.name, n))
               for s, n in zip(aux_shapes, self.aux(p))]
        outs = [data] + [channel] * (len(out_shapes) - 1)
        return [data] + params, outs, aux

    def infer_type(self, p, in_types, out_types, aux_types):
        data = in_types[0] if in_types[0] is not None else (out_types[0] if out_types else None)
        if data is None:
            return super().infer_type(p, in_types, out_types, aux_types)
        # half-precision data keeps its statistics and parameters in float32, as in MXNet
        param = np.dtype(np.float32) if np.dtype(data) == np.float16 else np.dtype(data)
        ins = [data] + [merge_dtype(t, param, '%s: input %s' % (self.name, n))
                        for t, n in zip(in_types[1:], ('gamma', 'beta'))]
        aux = [merge_dtype(t, param, '%s: aux %s' % (self.name, n)) for t, n in zip(aux_types, self.aux(p))]
        return ins, [data] + [param] * (len(out_types) - 1), aux

    def _check(self, data, arrays, names, axis):
        channels = data.shape[axis]
        for arr, name in zip(arrays, names):
            if tuple(arr.shape) != (channels,):
                raise ShapeError('%s: %r must have shape (%d,) (channels of data axis %d), got %s'
                                 % (self.name, name, channels, axis, _fmt_shape(arr.shape)))

    def _uses_batch_stats(self, p, env):
        return env.is_train and not p.use_global_stats

    def inplace(self, p):
        return [(0, 0)]

    def backward_reads(self, p):
        return [0, 1], [1, 2]            # data and gamma; the mean and 1/std forward used

    def forward(self, p, env, inputs, aux):
        xp, data, gamma, beta = env.xp, inputs[0], inputs[1], inputs[2]
        axis = self._axis(p, data.ndim)
        self._check(data, [gamma, beta] + list(aux), ['gamma', 'beta', 'moving_mean', 'moving_var'], axis)
        if p.fix_gamma:
            # MXNet writes 1 into the bound gamma array, so weight decay cannot drift it
            gamma[...] = 1
        reduce_axes = tuple(a for a in range(data.ndim) if a != axis)
        bshape = [1] * data.ndim
        bshape[axis] = -1
        if self._uses_batch_stats(p, env):
            # half-precision data: accumulate the statistics in float32, their own dtype
            work = data.astype(np.float32) if data.dtype == np.float16 else data
            mean = work.mean(axis=reduce_axes)
            var = ((work - mean.reshape(bshape)) ** 2).mean(axis=reduce_axes)
            # The moving statistics are NOT updated here: MXNet 1.9.1 (CPU) updates
            # them in backward, so a training forward alone leaves them unchanged.
        else:
            mean, var = aux[0], aux[1]
        inv_std = (1 / xp.sqrt(var + p.eps)).astype(mean.dtype)
        scale = inv_std if p.fix_gamma else inv_std * gamma
        centre, scale = mean.reshape(bshape).astype(data.dtype), scale.reshape(bshape).astype(data.dtype)
        out = xp.subtract(data, centre, out=env.target(0))     # the planned array, or a new one
        xp.multiply(out, scale, out=out)
        out += beta.reshape(bshape).astype(data.dtype)
        return [out, mean.copy(), inv_std]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, gamma = env.xp, inputs[0], inputs[1]
        grad = out_grads[0]
        axis = self._axis(p, data.ndim)
        reduce_axes = tuple(a for a in range(data.ndim) if a != axis)
        bshape = [1] * data.ndim
        bshape[axis] = -1
        mean, inv_std = outputs[1].reshape(bshape), outputs[2].reshape(bshape)
        normalised = (data - mean) * inv_std
        d_beta = grad.sum(axis=reduce_axes)
        grad_dot_norm = (grad * normalised).sum(axis=reduce_axes)
        d_gamma = xp.zeros_like(gamma) if p.fix_gamma else grad_dot_norm.astype(gamma.dtype)
        scale = inv_std if p.fix_gamma else inv_std * gamma.reshape(bshape)
        if self._uses_batch_stats(p, env):
            self._update_moving_stats(p, data, outputs[1], aux, reduce_axes, bshape)
            # mean and var depend on x too: the gradient loses its per-channel mean and its
            # projection on the normalised input
            count = data.size // data.shape[axis]
            d_data = scale * (grad - (d_beta.reshape(bshape) + normalised * grad_dot_norm.reshape(bshape)) / count)
        else:
            d_data = grad * scale
        return [d_data.astype(data.dtype, copy=False), d_gamma, d_beta.astype(gamma.dtype, copy=False)]

    @staticmethod
    def _update_moving_stats(p, data, mean, aux, reduce_axes, bshape):
        """moving = moving * momentum + batch_stat * (1 - momentum), in the caller's aux arrays.

        Runs in backward, as in MXNet 1.9.1 on CPU.  The batch variance is
        recomputed from the saved mean (the forward kept only 1/sqrt(var+eps)),
        which gives bit-for-bit the value the forward used.
        """
        work = data.astype(np.float32) if data.dtype == np.float16 else data
        var = ((work - mean.reshape(bshape)) ** 2).mean(axis=reduce_axes)
        moving_mean, moving_var = aux
        moving_mean *= p.momentum
        moving_mean += (1 - p.momentum) * mean.astype(moving_mean.dtype)
        moving_var *= p.momentum
        moving_var += (1 - p.momentum) * var.astype(moving_var.dtype)


# =====================================================================
# LeakyReLU family
# =====================================================================

# SELU's fixed constants (Klambauer et al., 2017)
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946


@register
class LeakyReLU(Operator):
    """ReLU variants that keep some signal for negative inputs, chosen by ``act_type``.

    =======  =============================================  ====================
    leaky    ``x if x > 0 else slope * x``
    elu      ``x if x > 0 else slope * (exp(x) - 1)``
    selu     ``lambda * (x if x > 0 else alpha * (exp(x) - 1))``  (slope unused)
    gelu     ``x * Phi(x)`` with the exact normal cdf (erf, not the tanh fit)
    prelu    ``x if x > 0 else gamma[c] * x``, gamma a learned input of shape
             (channels,) along axis 1 (or (1,): one shared slope)
    rrelu    ``x if x > 0 else a * x``; training draws ``a`` per element from
             U(lower_bound, upper_bound), otherwise ``a = (lower+upper)/2``.
             Its second output ``mask`` holds the slopes used and, as in
             MXNet, is visible.
    =======  =============================================  ====================

    The derivative at exactly 0 is the negative side's (MXNet tests ``x > 0``).
    SELU's backward is the true derivative; MXNet 1.9.1's differs for x <= 0
    (a bug there, see ``backward``).
    """
    name = 'LeakyReLU'
    params = {
        'act_type': Param('enum', 'leaky', choices=('elu', 'gelu', 'leaky', 'prelu', 'rrelu', 'selu'),
                          doc='which variant'),
        'slope': Param('float', 0.25, doc='negative-side slope for leaky, scale for elu'),
        'lower_bound': Param('float', 0.125, doc='rrelu: lowest random slope'),
        'upper_bound': Param('float', 0.334, doc='rrelu: highest random slope'),
    }

    def inputs(self, p):
        return ['data', 'gamma'] if p.act_type == 'prelu' else ['data']

    def outputs(self, p):
        return ['output', 'mask'] if p.act_type == 'rrelu' else ['output']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = _same_as_data(in_shapes, out_shapes, '%s: input data' % self.name)
        shapes = [data]
        if p.act_type == 'prelu':
            gamma = in_shapes[1]
            if gamma is None and data is not None:
                if len(data) < 2:
                    raise ShapeError("%s: act_type='prelu' needs data with a channel axis 1 to size gamma, "
                                     "got shape %s (or give gamma shape (1,))" % (self.name, _fmt_shape(data)))
                gamma = (data[1],)
            shapes.append(gamma)
        return shapes, [data] * len(out_shapes), aux_shapes

    def _prelu_gamma(self, data, gamma):
        """gamma shaped to broadcast against data: one slope, or one per channel of axis 1."""
        if gamma.size == 1:
            return gamma.reshape((1,) * data.ndim)
        if data.ndim < 2 or gamma.shape != (data.shape[1],):
            raise ShapeError("%s: input 'gamma' must have shape (1,) or (channels,)=(%s,), got %s"
                             % (self.name, data.shape[1] if data.ndim > 1 else '?', _fmt_shape(gamma.shape)))
        return gamma.reshape((1, -1) + (1,) * (data.ndim - 2))

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        act = p.act_type
        positive = x > 0
        if act == 'leaky':
            return [xp.where(positive, x, x * x.dtype.type(p.slope))]
        if act == 'elu':
            return [xp.where(positive, x, x.dtype.type(p.slope) * xp.expm1(xp.minimum(x, 0)))]
        if act == 'selu':
            neg = x.dtype.type(_SELU_ALPHA) * xp.expm1(xp.minimum(x, 0))
            return [x.dtype.type(_SELU_LAMBDA) * xp.where(positive, x, neg)]
        if act == 'gelu':
            return [(0.5 * x * (1 + _erf(xp, x / math.sqrt(2)))).astype(x.dtype, copy=False)]
        if act == 'prelu':
            gamma = self._prelu_gamma(x, inputs[1])
            return [xp.where(positive, x, gamma * x)]
        # rrelu
        if env.is_train:
            u = env.rng.random(x.shape)
            slopes = xp.asarray(p.lower_bound + (p.upper_bound - p.lower_bound) * u, dtype=x.dtype)
        else:
            slopes = xp.full(x.shape, (p.lower_bound + p.upper_bound) / 2, dtype=x.dtype)
        return [xp.where(positive, x, slopes * x), slopes]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x, g = env.xp, inputs[0], out_grads[0]
        act = p.act_type
        positive = x > 0
        if act == 'leaky':
            return [g * xp.where(positive, 1, x.dtype.type(p.slope)).astype(x.dtype)]
        if act == 'elu':
            return [g * xp.where(positive, 1, x.dtype.type(p.slope) * xp.exp(xp.minimum(x, 0)))]
        if act == 'selu':
            # d/dx lambda*alpha*(e^x - 1) = y + lambda*alpha for x <= 0.  MXNet 1.9.1 computes
            # lambda*(y + alpha) there, which is wrong by (lambda - 1)*y (up to 0.08); reflib
            # keeps the true derivative, and tests/test_op_nn.py records MXNet's deviation.
            y = outputs[0]
            lam, alpha = x.dtype.type(_SELU_LAMBDA), x.dtype.type(_SELU_ALPHA)
            return [g * xp.where(positive, lam, y + lam * alpha)]
        if act == 'gelu':
            cdf = 0.5 * (1 + _erf(xp, x / math.sqrt(2)))
            pdf = xp.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
            return [(g * (cdf + x * pdf)).astype(x.dtype, copy=False)]
        if act == 'prelu':
            gamma = inputs[1]
            shaped = self._prelu_gamma(x, gamma)
            d_x = g * xp.where(positive, 1, shaped)
            contrib = xp.where(positive, 0, g * x)
            if gamma.size == 1:
                d_gamma = contrib.sum().reshape(gamma.shape)
            else:
                d_gamma = contrib.sum(axis=(0,) + tuple(range(2, x.ndim)))
            return [d_x, d_gamma.astype(gamma.dtype, copy=False)]
        # rrelu: the slopes of the forward pass are its mask output
        return [g * xp.where(positive, 1, outputs[1])]


# =====================================================================
# Dropout
# =====================================================================

@register
class Dropout(Operator):
    """Zero each element with probability p and scale the survivors by 1/(1-p).

    Active in training (``env.is_train``), or always with ``mode='always'``;
    otherwise the identity.  ``axes`` lists axes along which one random draw
    is shared (variational dropout: e.g. ``axes=(1,)`` on (batch, time)
    drops whole rows).  The hidden second output ``mask`` holds the factor
    each element was multiplied by (0 or 1/(1-p)) for backward.  p = 1
    drops everything (MXNet produces NaN there: 0 * inf).
    """
    name = 'Dropout'
    params = {
        'p': Param('float', 0.5, doc='probability of dropping an element', low=0, high=1),
        'mode': Param('enum', 'training', choices=('always', 'training'),
                      doc="'training': only while training; 'always': also at inference"),
        'axes': Param('shape', (), doc='axes sharing one random draw'),
        'cudnn_off': Param('bool_or_none', False, doc='unused here'),
    }

    def outputs(self, p):
        return ['output', 'mask']

    def visible_outputs(self, p):
        return 1

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = _same_as_data(in_shapes, out_shapes, '%s: input data' % self.name)
        return [data], [data] * len(out_shapes), aux_shapes

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        if not (env.is_train or p.mode == 'always') or p.p == 0:
            return [x.copy(), xp.ones_like(x)]
        if p.p >= 1:
            return [xp.zeros_like(x), xp.zeros_like(x)]
        draw_shape = list(x.shape)
        for a in p.axes:
            if not -x.ndim <= a < x.ndim:
                raise ParamError('%s: axes entry %d is out of range for %d-d input %r' % (self.name, a, x.ndim, 'data'))
            draw_shape[a] = 1
        keep = env.rng.random(tuple(draw_shape)) >= p.p
        scale = x.dtype.type(1 / (1 - p.p))
        mask = xp.broadcast_to(xp.asarray(keep).astype(x.dtype) * scale, x.shape)
        mask = xp.ascontiguousarray(mask)
        return [x * mask, mask]

    def backward_reads(self, p):
        return [], [1]                     # the mask

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [out_grads[0] * outputs[1]]


# =====================================================================
# Embedding
# =====================================================================

@register
class Embedding(Operator):
    """Look up rows of ``weight`` (input_dim, output_dim) by the integer values in data.

    Output shape is ``data.shape + (output_dim,)``.  Indices are truncated to
    integers and clipped into [0, input_dim - 1] (so -1 reads row 0), as in
    MXNet.  Backward adds each output row's gradient into the weight row it
    came from (repeated indices accumulate); data gets no gradient.
    """
    name = 'Embedding'
    params = {
        'input_dim': Param('int', doc='vocabulary size: number of weight rows', low=1),
        'output_dim': Param('int', doc='length of each embedding vector', low=1),
        'dtype': Param('enum', 'float32',
                       choices=('bfloat16', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8'),
                       doc='dtype of weight and output'),
        'sparse_grad': Param('bool', False, doc='MXNet returns a row-sparse gradient; here it is dense'),
    }

    def inputs(self, p):
        return ['data', 'weight']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is None and out is not None:
            data = tuple(out[:-1])
        if data is not None:
            out = merge_shape(out, tuple(data) + (p.output_dim,), '%s: output' % self.name)
        weight = merge_shape(in_shapes[1], (p.input_dim, p.output_dim), '%s: input weight' % self.name)
        return [data, weight], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        if p.dtype == 'bfloat16':
            raise ParamError("%s: dtype='bfloat16' is not supported (numpy has no bfloat16)" % self.name)
        dtype = np.dtype(p.dtype)
        weight = merge_dtype(in_types[1], dtype, '%s: input weight' % self.name)
        out = merge_dtype(out_types[0], dtype, '%s: output' % self.name)
        data = in_types[0] if in_types[0] is not None else np.dtype(np.float32)
        return [data, weight], [out], aux_types

    def _indices(self, p, xp, data, weight):
        if tuple(weight.shape) != (p.input_dim, p.output_dim):
            raise ShapeError("%s: input 'weight' must have shape (%d,%d) (input_dim, output_dim), got %s"
                             % (self.name, p.input_dim, p.output_dim, _fmt_shape(weight.shape)))
        return xp.clip(data, 0, p.input_dim - 1).astype(np.int64)

    def forward(self, p, env, inputs, aux):
        data, weight = inputs
        return [weight[self._indices(p, env.xp, data, weight)]]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, (data, weight) = env.xp, inputs
        index = self._indices(p, xp, data, weight).reshape(-1)
        d_weight = xp.zeros_like(weight)
        scatter_add(xp, d_weight, index, out_grads[0].reshape(-1, p.output_dim).astype(weight.dtype))
        return [None, d_weight]
