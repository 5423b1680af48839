"""Pooling: max, avg, sum and lp over 1-D, 2-D and 3-D windows."""

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape
from ..shapes import format_shape as _fmt_shape
from .common import device_kernel, lowest_value, may_be_true
from .spatial import (LAYOUT_BY_NDIM, spatial_tuple, is_channel_last,
                      channel_first_axes, channel_last_axes, permute_shape, offset_slices, pad_spatial,
                      crop_spatial)
from ..base import ShapeError, ParamError


@register
class Pooling(Operator):
    """Max / average / sum / Lp pooling over 1, 2 or 3 spatial axes.

    Output size per axis: ``(in + 2*pad - kernel) // stride + 1`` with
    ``pooling_convention='valid'``, rounded *up* instead of down with 'full'
    (so the last window may hang over the end).  ``global_pool`` pools each
    whole feature map to size 1 and ignores kernel, stride and pad.

    ``pooling_convention='same'`` gives ``ceil(in / stride)`` outputs: window ``i``
    starts at ``i * stride`` and is cut off at the end of the input (no padding in
    front; whatever the windows need is added behind, as the overhang of a 'full'
    window, so avg divides by the part inside the input, count_include_pad or not).
    MXNet 1.9.1 runs it for 1-D pooling only, every pool_type:

    * the data must be 3-d (batch, channel, width), global_pool or not;
    * ``pad`` must be spelled out with at least three entries, the first three 0,
      e.g. ``pad=(0, 0, 0)``: MXNet reads three entries, refuses a nonzero one and
      fails on a shorter ``pad`` -- the default included (global_pool needs none).

    reflib refuses exactly those, with a message that says so.  (The oracle's oneDNN
    CPU kernels also fail on many 'same' max and avg windows that overhang the end;
    its plain CPU kernel, reproduced here, runs them.)

    What MXNet 1.9.1 does at the borders, reproduced here:

    * max: padding never wins (it is the lowest finite value of the dtype,
      which is also what an all-padding window of the 'full' convention
      returns);
    * avg with ``count_include_pad`` (the default): divide by the window's
      size clipped to the padded input, i.e. zero padding counts but the
      overhang of a 'full' window does not; without it, divide by the number
      of real input elements in the window: at least 1 in 1-D and 2-D, while MXNet's 3-D
      kernel divides a window with no real element by 0 (NaN; its gradient is 0);
    * lp: ``(sum x**p) ** (1/p)`` *without* absolute values, p in {1, 2, 3};
    * max backward sends each window's gradient to its first maximal element.

    Channel-last layouts (``NWC``, ``NHWC``, ``NDHWC``: data (batch, *spatial, channel))
    pool exactly as the channel-first data they are a transposed view of, every option
    included, as MXNet 1.9.1 pools them on CPU.  (With ``global_pool`` MXNet infers shapes
    for a layout of another rank than the data's, and then fails to compute them; reflib
    refuses such a layout at once.)
    """
    name = 'Pooling'
    params = {
        'kernel': Param('shape', (), doc='window size: (w,), (h, w) or (d, h, w)', low=1),
        'pool_type': Param('enum', 'max', choices=('avg', 'lp', 'max', 'sum'), doc='how to pool'),
        'global_pool': Param('bool', False, doc='pool each whole feature map to one value'),
        'cudnn_off': Param('bool', False, doc='unused here'),
        'pooling_convention': Param('enum', 'valid', choices=('full', 'same', 'valid'),
                                    doc="'valid' rounds the window count down, 'full' up; 'same' "
                                        "gives ceil(in / stride) windows (1-D only)"),
        'stride': Param('shape', (), doc='step between windows; default 1 per axis', low=1),
        'pad': Param('shape', (), doc='padding on both sides; default 0 per axis', low=0),
        'p_value': Param('int_or_none', None, doc='p of Lp pooling (1, 2 or 3)', low=1),
        'count_include_pad': Param('bool_or_none', None,
                                   doc='avg only: count padding in the divisor (default True)'),
        'layout': Param('enum', None, choices=('NCW', 'NCHW', 'NCDHW', 'NWC', 'NHWC', 'NDHWC'),
                        doc='channel-first (the default) or channel-last'),
    }

    def _check_params(self, p):
        if p.pool_type == 'lp' and p.p_value not in (1, 2, 3):
            raise ParamError("%s: pool_type='lp' needs p_value 1, 2 or 3, got %r" % (self.name, p.p_value))
        if p.global_pool:
            return
        if len(p.kernel) not in (1, 2, 3):
            raise ParamError('%s: kernel must have 1, 2 or 3 entries (or set global_pool=True), got %s'
                             % (self.name, _fmt_shape(p.kernel)))
        is_channel_last(self.name, p.layout, len(p.kernel))      # refuses a layout of another rank

    def _channel_last(self, p, data):
        """Whether data of shape ``data`` has its channels last (checking the parameters, and
        the data's rank where a channel-last layout is to be read as channel-first)."""
        self._check_params(p)
        if p.global_pool:
            if len(data) not in (3, 4, 5):
                raise ShapeError('%s: input %r must be 3-d, 4-d or 5-d (batch, channel, spatial...), '
                                 'got shape %s' % (self.name, 'data', _fmt_shape(data)))
            last = is_channel_last(self.name, p.layout, len(data) - 2)
            ranks = (len(data),)
        else:
            last = is_channel_last(self.name, p.layout, len(p.kernel))
            ranks = (len(p.kernel) + 2,)
        if last and p.pooling_convention == 'same':
            self._check_same(p, data)         # before the transpose, so that its error shows `data`
        if last and len(data) not in ranks:
            raise ShapeError('%s: input %r must be %s-d for layout %r, got shape %s'
                             % (self.name, 'data', ' or '.join(map(str, ranks)), p.layout, _fmt_shape(data)))
        return last

    def _geometry(self, p, data):
        """(kernel, stride, pad, out_size) for data shape ``data``; checks data and parameters."""
        self._check_params(p)
        if p.pooling_convention == 'same':
            self._check_same(p, data)
        if p.global_pool:
            if len(data) not in (3, 4, 5):
                raise ShapeError('%s: input %r must be 3-d, 4-d or 5-d (batch, channel, spatial...), got shape %s'
                                 % (self.name, 'data', _fmt_shape(data)))
            nd = len(data) - 2
            return tuple(data[2:]), (1,) * nd, (0,) * nd, (1,) * nd
        nd = len(p.kernel)
        if len(data) != nd + 2:
            raise ShapeError('%s: input %r must be %d-d (batch, channel, %s) for a %d-D kernel, got shape %s'
                             % (self.name, 'data', nd + 2, ', '.join(LAYOUT_BY_NDIM[nd][2:]), nd, _fmt_shape(data)))
        kernel = tuple(p.kernel)
        stride = spatial_tuple(self.name, 'stride', p.stride, nd, 1)
        # 'same' takes no padding of its own (its pad, all zeros, is checked above)
        pad = (0,) * nd if p.pooling_convention == 'same' else spatial_tuple(self.name, 'pad', p.pad, nd, 0)
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
            if p.pooling_convention == 'same':
                out.append(-(-n // s))
            else:
                out.append(span // s + 1 if p.pooling_convention == 'valid' else -(-span // s) + 1)
        return kernel, stride, pad, tuple(out)

    def _check_same(self, p, data):
        """Refuse what MXNet 1.9.1 fails on with pooling_convention='same' (see the class doc)."""
        if len(data) != 3:
            raise ShapeError("%s: pooling_convention='same' pools 1-D data only: input %r must be 3-d "
                             "(batch, channel, width), got shape %s (MXNet 1.9.1 refuses it too)"
                             % (self.name, 'data', _fmt_shape(data)))
        if p.global_pool:
            return
        if any(p.pad[:3]):
            raise ParamError("%s: pooling_convention='same' pads by itself and takes no pad: the first "
                             "three entries of pad must be 0, got pad=%s (MXNet 1.9.1 refuses it too)"
                             % (self.name, _fmt_shape(p.pad)))
        if len(p.pad) < 3:
            raise ParamError("%s: pooling_convention='same' needs pad spelled out as pad=(0, 0, 0), got "
                             "pad=%s: MXNet 1.9.1 reads three pad entries there and fails on fewer, "
                             "the default included" % (self.name, _fmt_shape(p.pad)))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is None:
            self._check_params(p)
        elif self._channel_last(p, data):
            spatial = self._geometry(p, permute_shape(data, channel_first_axes(len(data))))[3]
            out = merge_shape(out, (data[0],) + spatial + (data[-1],), '%s: output' % self.name)
        else:
            spatial = self._geometry(p, data)[3]
            out = merge_shape(out, tuple(data[:2]) + spatial, '%s: output' % self.name)
        return [data], [out], aux_shapes

    def _windows(self, p, xp, data):
        """The padded input and, per kernel offset, its slice (see ``_offset_slices``)."""
        kernel, stride, pad, out_size = self._geometry(p, data.shape)
        # 'full' windows may run past the padded end: extend it so every slice is whole
        after = [max(pd, (o - 1) * s + k - n - pd)
                 for n, k, s, pd, o in zip(data.shape[2:], kernel, stride, pad, out_size)]
        fill = lowest_value(data.dtype) if p.pool_type == 'max' else 0
        padded = pad_spatial(xp, data, pad, after, fill)
        slices = offset_slices(kernel, (1,) * len(kernel), stride, out_size)
        return padded, slices, (kernel, stride, pad, out_size)

    def _divisor(self, p, xp, data_shape, geometry, dtype):
        """avg pooling: how many elements each output averages over (broadcastable array)."""
        kernel, stride, pad, out_size = geometry
        include_pad = p.count_include_pad is None or p.count_include_pad
        # an all-padding window divides by 1, but by 0 in MXNet's 3-D kernel without the padding
        least = 0 if not include_pad and len(kernel) == 3 else 1
        # built where the data lives: a numpy divisor would be copied to a GPU on every call
        divisor = xp.ones((1, 1) + (1,) * len(kernel), dtype=np.int64)
        for axis, (n, k, s, pd, o) in enumerate(zip(data_shape[2:], kernel, stride, pad, out_size)):
            start = xp.arange(o) * s - pd
            end = xp.minimum(start + k, n + pd)          # overhang past the padding never counts
            if not include_pad:
                start, end = xp.maximum(start, 0), xp.minimum(end, n)
            size = xp.maximum(end - start, least)
            shape = [1] * (len(kernel) + 2)
            shape[axis + 2] = o
            divisor = divisor * size.reshape(shape)
        divisor = divisor.astype(dtype)
        if not least:
            # 0 / NaN is MXNet's 0 / 0, without numpy's warning (those windows' gradients are
            # spread onto padding only, which backward crops away)
            divisor = xp.where(divisor == 0, np.nan, divisor).astype(dtype, copy=False)
        return divisor

    def backward_reads(self, p):
        # max and lp compare with / divide by the output; avg and sum need only data's shape
        return ([0], [0]) if p.pool_type in ('max', 'lp') else ([], [])

    def forward(self, p, env, inputs, aux):
        xp, data = env.xp, inputs[0]
        last = self._channel_last(p, data.shape)
        if last:                       # pooled as the channel-first data it is a view of
            data = data.transpose(channel_first_axes(data.ndim))
        padded, slices, geometry = self._windows(p, xp, data)
        if p.pool_type == 'max':
            result = env.target(0)
            if result is None:
                shape = padded[slices[0]].shape
                result = xp.empty(permute_shape(shape, channel_last_axes(data.ndim)) if last else shape,
                                  dtype=data.dtype)
            # the maxima go straight into the result's memory, through a channel-first view
            out = result.transpose(channel_first_axes(data.ndim)) if last else result
            if len(slices) == 1:
                out[...] = padded[slices[0]]
            else:
                xp.maximum(padded[slices[0]], padded[slices[1]], out=out)
            for sl in slices[2:]:
                xp.maximum(out, padded[sl], out=out)
            return [result]
        if p.pool_type == 'lp':
            total = _lp_root(xp, sum(padded[sl] ** p.p_value for sl in slices), p.p_value)
        else:
            total = sum(padded[sl] for sl in slices)
            if p.pool_type == 'avg':
                total = total / self._divisor(p, xp, data.shape, geometry, data.dtype)
            total = total.astype(data.dtype, copy=False)
        if last:
            total = xp.ascontiguousarray(total.transpose(channel_last_axes(data.ndim)))
        return [total]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, grad = env.xp, inputs[0], out_grads[0]
        last = self._channel_last(p, data.shape)
        if last:                       # as in forward: the channel-first views of them all
            to_first = channel_first_axes(data.ndim)
            data, grad = data.transpose(to_first), grad.transpose(to_first)
            outputs = [o.transpose(to_first) for o in outputs]
        padded, slices, geometry = self._windows(p, xp, data)
        kernel, stride, _, out_size = geometry
        # windows that do not overlap (LeNet's 2x2, stride 2) send each position at most one
        # gradient: it can be stored instead of added, and if they also tile the padded input
        # exactly, every position is written and nothing needs zeroing first
        disjoint = p.pool_type == 'max' and all(s >= k for k, s in zip(kernel, stride))
        tiled = disjoint and all(o * s == n and s == k for o, s, k, n in
                                 zip(out_size, stride, kernel, padded.shape[2:]))
        fused = (device_kernel(xp, 'max_pool_backward_2d', *_MAX_POOL_BACKWARD_2D)
                 if p.pool_type == 'max' and len(kernel) == 2 and data.dtype.kind == 'f'
                 and data.dtype.itemsize >= 4 else None)
        if fused is not None:
            d_padded = xp.empty(padded.shape, dtype=data.dtype)
            fused(xp.ascontiguousarray(padded), xp.ascontiguousarray(outputs[0]), xp.ascontiguousarray(grad),
                  *(padded.shape[2:] + tuple(out_size) + tuple(kernel) + tuple(stride)), disjoint, d_padded)
        elif p.pool_type == 'max':
            d_padded = xp.empty(padded.shape, dtype=data.dtype) if tiled else xp.zeros(padded.shape, dtype=data.dtype)
            # Each window's gradient goes to its first maximal element (MXNet's rule for
            # ties).  Walk the offsets in order and give it to the first element equal to
            # the forward output; ``free`` marks the windows still waiting for theirs.
            # (This compares whole arrays; an argmax over the stacked offsets would copy
            # every window element first and is about 3x slower.)
            out = outputs[0]
            # A window holding NaN outputs NaN (xp.maximum propagates it), and NaN == NaN
            # is False: there the first NaN wins, as an argmax would pick it.
            nan_windows = out.dtype.kind == 'f' and may_be_true(xp, xp.isnan(out))
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
            d_padded = xp.zeros(padded.shape, dtype=data.dtype)
            out = outputs[0]
            for sl in slices:
                d_padded[sl] += grad * (padded[sl] / out) ** (p.p_value - 1)
        else:
            d_padded = xp.zeros(padded.shape, dtype=data.dtype)
            share = grad
            if p.pool_type == 'avg':
                share = grad / self._divisor(p, xp, data.shape, geometry, data.dtype)
            for sl in slices:
                d_padded[sl] += share
        d_data = crop_spatial(d_padded, geometry[2], data.shape[2:])
        if last:
            d_data = d_data.transpose(channel_last_axes(d_data.ndim))
        target = env.grad_target(0)
        if target is None:
            return [xp.ascontiguousarray(d_data)]
        target[...] = d_data
        return [target]


# Max pooling's backward on a device, for 2-D windows: each padded input position gathers,
# in kernel-offset order, grad * hit from every window that holds it, where hit says whether
# it is that window's first element equal to the window's maximum or NaN (MXNet's rule for
# ties, as the host code finds it).  Disjoint windows store the one product; overlapping
# ones add to zero, as the host code does.
_MAX_POOL_BACKWARD_2D = (
    'raw T padded, raw T out, raw T grad, int32 PH, int32 PW, int32 OH, int32 OW, int32 KH, int32 KW, '
    'int32 SY, int32 SX, bool disjoint', 'T d_padded', """
    const int x = i % PW, y = (i / PW) % PH;
    const long long plane = i / ((long long)PW * PH);
    T acc = 0;
    bool first_window = true;
    for (int kh = 0; kh < KH; ++kh) {
        const int ty = y - kh;
        if (ty < 0 || ty % SY != 0 || ty / SY >= OH) continue;
        for (int kw = 0; kw < KW; ++kw) {
            const int tx = x - kw;
            if (tx < 0 || tx % SX != 0 || tx / SX >= OW) continue;
            const long long o = (plane * OH + ty / SY) * OW + tx / SX;
            const T top = out[o];
            const long long corner = (plane * PH + ty) * PW + tx;     // the window's first element
            int winner = -1;
            for (int a = 0; a < KH && winner < 0; ++a)
                for (int b = 0; b < KW; ++b) {
                    const T v = padded[corner + (long long)a * PW + b];
                    if (v == top || isnan(v)) { winner = a * KW + b; break; }
                }
            const T share = grad[o] * (winner == kh * KW + kw ? T(1) : T(0));
            acc = (disjoint && first_window) ? share : acc + share;
            first_window = false;
        }
    }
    d_padded = acc;""")


def _lp_root(xp, total, p_value):
    if p_value == 1:
        return total
    if p_value == 2:
        return xp.sqrt(total)
    return xp.cbrt(total)


# =====================================================================
# BatchNorm
# =====================================================================
