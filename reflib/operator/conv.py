"""Convolution: N-D (1-D, 2-D, 3-D) over channel-first data (channel-last: shapes only)."""

from .registry import Operator, Param, register
from ..shapes import merge_shape
from ..shapes import prod as _prod, format_shape as _fmt_shape
from .spatial import (LAYOUT_BY_NDIM, spatial_tuple, is_channel_last, refuse_channel_last, channel_first_axes,
                      channel_last_axes, permute_shape, offset_slices, pad_spatial, crop_spatial, stack_rows)
from .common import device_kernel, is_numpy
from ..base import ShapeError, ParamError


def _windows(xp, padded, kernel, dilate, stride, out_size):
    """Every window of ``padded`` (C, N, *padded) as a strided view (C, *kernel, N, *out_size):
    no copy; entry [c, k..., n, o...] is padded[c, n, o*stride + k*dilate ...]."""
    spatial = padded.strides[2:]
    strides = ((padded.strides[0],) + tuple(st * d for st, d in zip(spatial, dilate))
               + (padded.strides[1],) + tuple(st * s for st, s in zip(spatial, stride)))
    shape = (padded.shape[0],) + tuple(kernel) + (padded.shape[1],) + tuple(out_size)
    return xp.lib.stride_tricks.as_strided(padded, shape=shape, strides=strides)


# col2im on a device, for 2-D kernels: each padded input position gathers the patch
# gradients of the windows that read it, in kernel-offset order, from zero: the sums the
# host's loop over offsets makes, in the same order.  ``cols`` is (C, KH*KW, OH, OW, N).
_COL2IM_2D = ('raw T cols, int32 N, int32 PH, int32 PW, int32 KH, int32 KW, int32 OH, int32 OW, '
              'int32 SY, int32 SX, int32 DY, int32 DX', 'T d_padded', """
    const int x = i % PW, y = (i / PW) % PH;
    const long long n = (i / ((long long)PW * PH)) % N, c = i / ((long long)PW * PH * N);
    T acc = 0;
    for (int kh = 0; kh < KH; ++kh) {
        const int ty = y - kh * DY;
        if (ty < 0 || ty % SY != 0 || ty / SY >= OH) continue;
        for (int kw = 0; kw < KW; ++kw) {
            const int tx = x - kw * DX;
            if (tx < 0 || tx % SX != 0 || tx / SX >= OW) continue;
            acc = acc + cols[(((c * KH * KW + kh * KW + kw) * OH + ty / SY) * OW + tx / SX) * N + n];
        }
    }
    d_padded = acc;""")


def im2col(xp, data, geometry, out_size, env=None):
    """The input patches as a (channels * kernel_size, batch * out_positions) matrix.

    Row ``c * K + k`` holds channel c's value under kernel offset k at every
    (sample, output position): the same order as the columns of
    ``weight.reshape(num_filter, -1)``, so the convolution of group g is one
    matrix product of its weight rows with its block of rows here.  (The
    ``im2col`` operator, im2col.py, hands out this very matrix, sample by sample.)

    Each offset's slice is copied into its place in one C-contiguous
    (C, K, N, *out) buffer, so the reshape into a matrix is free.  (Stacking
    the slices with ``xp.stack`` would keep the transposed (C, N) memory
    order of ``padded``, and the reshape would then copy everything again.)
    With ``env`` the buffer is its scratch memory, overwritten by the next call.
    """
    kernel, stride, dilate, pad = geometry
    batch, channels = data.shape[:2]
    padded = pad_spatial(xp, data, pad, pad).transpose((1, 0) + tuple(range(2, data.ndim)))  # (C, N, *padded)
    slices = offset_slices(kernel, dilate, stride, out_size)
    shape = (channels, len(slices), batch) + out_size                                         # (C, K, N, *out)
    cols = env.workspace('im2col', shape, data.dtype) if env is not None else xp.empty(shape, dtype=data.dtype)
    if is_numpy(xp):
        for k, sl in enumerate(slices):
            cols[:, k] = padded[sl]
    else:
        # on a device one copy from a strided view of every window beats one launch
        # per kernel offset; on the host the loop is faster (it copies long rows)
        windows = _windows(xp, padded, kernel, dilate, stride, out_size)
        cols.reshape(windows.shape)[...] = windows
    return cols.reshape(channels * len(slices), batch * _prod(out_size))


def col2im(xp, d_cols, data_shape, geometry, out_size):
    """The sum of patch values back at the input positions they were read from: the
    adjoint of :func:`im2col`, as a (C, N, *spatial) view of (N, C, *spatial) ``data_shape``.

    ``d_cols`` is (C, K, *out, N): one value per channel, kernel offset and output
    position, the batch axis last.  Positions that no window reads (padding, a
    border the stride skips) get 0.

    d_cols and the padded result are stored batch-last, (C, K, *out, N) and (C, *padded, N),
    and only *viewed* in the (C, N, ...) axis order that the slices index.  numpy then runs
    each += over contiguous stretches of at least N elements instead of rows of out_w (8 in
    LeNet's second layer): about 3x faster.  Only the memory order differs from forward's
    layout; every element is the same sum, in the same order.
    """
    kernel, stride, dilate, pad = geometry
    batch, channels = data_shape[:2]
    padded_shape = tuple(n + 2 * pd for n, pd in zip(data_shape[2:], pad))
    col2im_2d = device_kernel(xp, 'col2im_2d', *_COL2IM_2D) if len(out_size) == 2 else None
    if col2im_2d is not None:
        d_padded = xp.empty((channels, batch) + padded_shape, dtype=d_cols.dtype)
        col2im_2d(xp.ascontiguousarray(d_cols), batch,
                  *(padded_shape + tuple(kernel) + tuple(out_size) + tuple(stride) + tuple(dilate)), d_padded)
        return crop_spatial(d_padded, pad, data_shape[2:])
    slices = offset_slices(kernel, dilate, stride, out_size)
    d_cols = xp.moveaxis(d_cols, -1, 2)                                    # (C, K, N, *out)
    d_padded = xp.moveaxis(xp.zeros((channels,) + padded_shape + (batch,), dtype=d_cols.dtype),
                           -1, 1)                                           # (C, N, *padded)
    for k, sl in enumerate(slices):
        # one offset's slice has no repeated positions, so += is exact here
        d_padded[sl] += d_cols[:, k]
    return crop_spatial(d_padded, pad, data_shape[2:])


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

    Channel-last layouts (``NHWC``, ``NDHWC``) get their shapes inferred as MXNet 1.9.1
    infers them: data (batch, *spatial, channel), weight (num_filter, *kernel,
    channel/num_group), output (batch, *out, num_filter).  Computing them is refused, as
    MXNet's CPU build refuses it (its GPU build leaves them to cuDNN).
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
                        doc='channel-first (the default) or channel-last (shape inference only)'),
    }

    def inputs(self, p):
        return ['data', 'weight'] if p.no_bias else ['data', 'weight', 'bias']

    def _geometry(self, p):
        """(kernel, stride, dilate, pad) as full tuples, after checking the parameters."""
        nd = len(p.kernel)
        if nd not in (1, 2, 3):
            raise ParamError('%s: kernel must have 1, 2 or 3 entries, got %s' % (self.name, _fmt_shape(p.kernel)))
        is_channel_last(self.name, p.layout, nd)          # refuses a layout of another rank
        stride = spatial_tuple(self.name, 'stride', p.stride, nd, 1)
        dilate = spatial_tuple(self.name, 'dilate', p.dilate, nd, 1)
        pad = spatial_tuple(self.name, 'pad', p.pad, nd, 0)
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
                             % (self.name, 'data', nd + 2, ', '.join(LAYOUT_BY_NDIM[nd][2:]), nd, _fmt_shape(data)))
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
        nd = len(p.kernel)
        data = in_shapes[0]
        if not is_channel_last(self.name, p.layout, nd):
            return self._infer_channel_first(p, geometry, in_shapes, out_shapes, aux_shapes)
        if data is not None and len(data) != nd + 2:
            raise ShapeError('%s: input %r must be %d-d for layout %r, got shape %s'
                             % (self.name, 'data', nd + 2, p.layout, _fmt_shape(data)))
        # data, weight and output all keep their channel axis last: infer the channel-first
        # shapes they are transposes of, and transpose the answer back
        first, last = channel_first_axes(nd + 2), channel_last_axes(nd + 2)
        ins = [permute_shape(s, first) for s in in_shapes[:2]] + list(in_shapes[2:])
        outs = [permute_shape(out_shapes[0], first)]
        ins, outs, aux_shapes = self._infer_channel_first(p, geometry, ins, outs, aux_shapes)
        return [permute_shape(s, last) for s in ins[:2]] + ins[2:], [permute_shape(outs[0], last)], aux_shapes

    def _infer_channel_first(self, p, geometry, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is None:        # as MXNet: nothing is inferred before the input's rank is known
            return list(in_shapes), [out], aux_shapes
        if out is not None and len(out) == len(data):
            data = self._data_from_output(data, out, geometry)
        spatial = self._out_size(p, data, geometry)
        channels = data[1] // p.num_group if data[1] else 0
        out = merge_shape(out, (data[0], p.num_filter) + spatial, '%s: output' % self.name)
        weight = merge_shape(in_shapes[1], (p.num_filter, channels) + geometry[0], '%s: input weight' % self.name)
        shapes = [data, weight]
        if not p.no_bias:
            shapes.append(merge_shape(in_shapes[2], (p.num_filter,), '%s: input bias' % self.name))
        return shapes, [out], aux_shapes

    @staticmethod
    def _data_from_output(data, out, geometry):
        """The input's unknown dims that the output decides, as MXNet infers them: the batch,
        and a spatial size where the stride is 1 (a larger stride leaves it ambiguous)."""
        kernel, stride, dilate, pad = geometry
        dims = [data[0] or out[0], data[1]]
        for n, o, k, s, d, pd in zip(data[2:], out[2:], kernel, stride, dilate, pad):
            dims.append(n or (o + d * (k - 1) - 2 * pd if o and s == 1 else 0))
        return tuple(dims)

    def _check_weight(self, p, data, weight):
        expected = (p.num_filter, data.shape[1] // p.num_group) + tuple(p.kernel)
        if tuple(weight.shape) != expected:
            raise ShapeError('%s: input %r must have shape %s, got %s'
                             % (self.name, 'weight', _fmt_shape(expected), _fmt_shape(weight.shape)))

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
        if is_channel_last(self.name, p.layout, len(p.kernel)):
            refuse_channel_last(self.name, p.layout)
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
        cols = im2col(xp, data, geometry, out_size, env)
        w = weight.reshape(p.num_filter, -1)
        # plain 2-D products, one per group (numpy's stacked matmul is much slower here)
        out = stack_rows(xp, [w[f_rows] @ cols[c_rows] for f_rows, c_rows in
                               zip(self._group_rows(p, p.num_filter), self._group_rows(p, cols.shape[0]))])
        out = out.reshape((p.num_filter, data.shape[0]) + out_size)     # (F, N, *out)
        if bias is not None:
            out += bias.reshape((-1, 1) + (1,) * len(out_size))
        return out

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, weight = env.xp, inputs[0], inputs[1]
        geometry = self._geometry(p)
        if is_channel_last(self.name, p.layout, len(p.kernel)):
            refuse_channel_last(self.name, p.layout)
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
        d_weight = self._weight_grad(p, env, out_grad, data, geometry, out_size) if env.wants_grad(1) else None
        if not env.wants_grad(0):       # the first layer: nobody reads the data's gradient
            return [None, d_weight]
        return [self._data_grad(p, env, out_grad, weight, data.shape, geometry, out_size), d_weight]

    def _weight_grad(self, p, env, out_grad, data, geometry, out_size):
        """The weight's gradient: each output gradient times the patch it was computed from,
        summed over samples and positions.  (Deconvolution calls it with the roles of data
        and output gradient swapped.)"""
        xp = env.xp
        cols = im2col(xp, data, geometry, out_size, env)
        grad = xp.ascontiguousarray(out_grad.swapaxes(0, 1)).reshape(p.num_filter, -1)      # (F, N*P)
        d_weight = [grad[f_rows] @ cols[c_rows].T for f_rows, c_rows in
                    zip(self._group_rows(p, p.num_filter), self._group_rows(p, cols.shape[0]))]
        return stack_rows(xp, d_weight).reshape((p.num_filter, data.shape[1] // p.num_group) + tuple(p.kernel))

    def _data_grad(self, p, env, out_grad, weight, data_shape, geometry, out_size):
        """The data's gradient, shape ``data_shape``, viewed as (N, C, ...) from (C, N, ...) memory.

        Each output position's gradient is spread over the patch it read.  (This is also
        Deconvolution's forward: a transposed convolution spreads every input value over
        a kernel-sized patch of its output.)
        """
        xp = env.xp
        batch, channels = data_shape[:2]
        kernel_size = _prod(geometry[0])
        # the output gradient with the batch axis last, (F, P*N), for the scatter below
        spatial = tuple(range(2, out_grad.ndim))
        grad_t = xp.ascontiguousarray(out_grad.transpose((1,) + spatial + (0,))).reshape(p.num_filter, -1)
        w = weight.reshape(p.num_filter, -1)                                                # (F, Cg*K)
        shape = (channels * kernel_size, grad_t.shape[1])
        if p.num_group == 1:                   # one group: straight into scratch memory
            d_cols = xp.matmul(w.T, grad_t, out=env.workspace('col2im', shape, grad_t.dtype))
        else:                                  # each patch's share of the gradient, group by group
            d_cols = stack_rows(xp, [w[f_rows].T @ grad_t[f_rows]
                                     for f_rows in self._group_rows(p, p.num_filter)])
        d_cols = d_cols.reshape((channels, kernel_size) + tuple(out_size) + (batch,))

        # scatter the patch gradients back onto the input positions they were read from, then
        # (C, N, ...) -> (N, C, ...): the caller stores it in the data gradient's memory
        return col2im(xp, d_cols, data_shape, geometry, out_size).swapaxes(0, 1)


# =====================================================================
# Pooling
# =====================================================================
