"""Deconvolution (transposed convolution): Convolution's data gradient as a layer.

A convolution maps an input of size ``n`` to ``(n + 2*pad - span) // stride + 1``
outputs (``span = dilate*(kernel-1) + 1``).  Deconvolution goes the other way:
every input value is spread, weighted by the kernel, over the kernel-sized patch
of the output that a convolution with the same parameters would have read it
from.  That is exactly what Convolution's backward does with an output gradient,
so this file builds the layer from Convolution's own pieces:

=====================  ======================================================
Deconvolution          Convolution with the same kernel, stride, dilate, pad
=====================  ======================================================
forward                data gradient (``_data_grad``)
data gradient          forward (``_forward_batch``)
weight gradient        weight gradient with data and output gradient swapped
=====================  ======================================================

The weight is ``(in_channels, num_filter / num_group, *kernel)``: read as a
convolution weight it has ``in_channels`` filters over ``num_filter`` channels.

Channel-last layouts (``NHWC``, ``NDHWC``) only get their shapes inferred, as by MXNet
1.9.1 (data, output and weight all with the channel axis moved last: the weight is
``(in_channels, *kernel, num_filter / num_group)``); computing them is refused, as
MXNet's CPU build refuses it.
"""

from .registry import Operator, Param, register, get
from ..shapes import merge_shape
from ..shapes import format_shape as _fmt_shape
from .spatial import (LAYOUT_BY_NDIM, spatial_tuple, is_channel_last, refuse_channel_last, channel_first_axes,
                      channel_last_axes, permute_shape)
from ..base import ShapeError, ParamError


@register
class Deconvolution(Operator):
    """Transposed convolution over 1, 2 or 3 spatial axes, channel-first (channel-last: shapes only).

    Output size per axis: ``stride*(in-1) + dilate*(kernel-1) + 1 - 2*pad + adj``,
    where ``adj < stride`` adds rows at the far end.  With ``target_shape`` set, the
    output has that size, and ``pad`` and ``adj`` are ignored and chosen as MXNet does:
    with ``excess = stride*(in-1) + dilate*(kernel-1) + 1 - target``,
    ``adj = excess % 2`` and ``pad = (excess + 1) // 2``.
    Output position ``o`` is position ``o + pad`` of the uncropped result.
    """
    name = 'Deconvolution'
    params = {
        'kernel': Param('shape', doc='kernel size: (w,), (h, w) or (d, h, w)', low=1),
        'stride': Param('shape', (), doc='the stride of the matching convolution; default 1 per axis', low=1),
        'dilate': Param('shape', (), doc='spacing between kernel taps; default 1 per axis', low=1),
        'pad': Param('shape', (), doc='the padding of the matching convolution: cropped from both ends',
                     low=0),
        'adj': Param('shape', (), doc='extra output size at the far end, below stride; default 0', low=0),
        'target_shape': Param('shape', (), doc='the output spatial size; overrides pad and adj', low=0),
        'num_filter': Param('int', doc='number of output channels', low=1),
        'num_group': Param('int', 1, doc='split channels into this many independent groups', low=1),
        'workspace': Param('int', 512, doc='scratch-memory limit in MB; unused here', low=0),
        'no_bias': Param('bool', True, doc='leave out the bias term (the default, unlike Convolution)'),
        'cudnn_tune': Param('enum', None, choices=('fastest', 'limited_workspace', 'off'),
                            doc='cuDNN algorithm choice; unused here'),
        'cudnn_off': Param('bool', False, doc='unused here'),
        'layout': Param('enum', None, choices=('NCW', 'NCHW', 'NCDHW', 'NHWC', 'NDHWC'),
                        doc='channel-first (the default) or channel-last (shape inference only)'),
    }

    def inputs(self, p):
        return ['data', 'weight'] if p.no_bias else ['data', 'weight', 'bias']

    def backward_reads(self, p):
        return [0, 1], []                  # data and weight; never the output

    # ------------------------------------------------------------ geometry
    def _check_params(self, p):
        nd = len(p.kernel)
        if nd not in (1, 2, 3):
            raise ParamError('%s: kernel must have 1, 2 or 3 entries, got %s' % (self.name, _fmt_shape(p.kernel)))
        is_channel_last(self.name, p.layout, nd)          # refuses a layout of another rank
        if p.num_filter % p.num_group:
            raise ParamError('%s: num_filter (%d) must be a multiple of num_group (%d)'
                             % (self.name, p.num_filter, p.num_group))
        stride = spatial_tuple(self.name, 'stride', p.stride, nd, 1)
        dilate = spatial_tuple(self.name, 'dilate', p.dilate, nd, 1)
        if p.target_shape:
            target = spatial_tuple(self.name, 'target_shape', p.target_shape, nd, 0)
            if min(target) < 1:
                # MXNet 1.9.1 then makes an output of size 0 (an unknown shape) on that axis
                raise ParamError('%s: every entry of target_shape must be positive, got %s'
                                 % (self.name, _fmt_shape(target)))
            return stride, dilate, None, None, target
        pad = spatial_tuple(self.name, 'pad', p.pad, nd, 0)
        adj = spatial_tuple(self.name, 'adj', p.adj, nd, 0)
        for a, s in zip(adj, stride):
            if a >= s:
                raise ParamError('%s: every entry of adj must be smaller than stride, got adj=%s stride=%s'
                                 % (self.name, _fmt_shape(adj), _fmt_shape(stride)))
        return stride, dilate, pad, adj, None

    def _geometry(self, p, data):
        """(pad, output spatial size) for data shape ``data`` (0 where unknown); checks data."""
        nd = len(p.kernel)
        stride, dilate, pad, adj, target = self._check_params(p)
        if len(data) != nd + 2:
            raise ShapeError('%s: input %r must be %d-d (batch, channel, %s) for a %d-D kernel, got shape %s'
                             % (self.name, 'data', nd + 2, ', '.join(LAYOUT_BY_NDIM[nd][2:]), nd, _fmt_shape(data)))
        if data[1] and data[1] % p.num_group:
            raise ShapeError('%s: input %r has %d channels, not divisible by num_group=%d'
                             % (self.name, 'data', data[1], p.num_group))
        pads, out = [], []
        for i, (n, k, s, d) in enumerate(zip(data[2:], p.kernel, stride, dilate)):
            full = s * (n - 1) + d * (k - 1) + 1          # the uncropped result
            if target is not None:
                if n and target[i] > full:
                    raise ShapeError('%s: target_shape %s is too big: at most %d along spatial axis %d for '
                                     'input %r shape %s' % (self.name, _fmt_shape(target), full, i, 'data',
                                                            _fmt_shape(data)))
                excess = full - target[i]
                pads.append((excess + 1) // 2 if n else 0)
                out.append(target[i] if n else 0)
                continue
            pads.append(pad[i])
            size = full - 2 * pad[i] + adj[i]
            if n and size < 1:
                raise ShapeError('%s: pad %s crops away the whole output (%d before cropping) along spatial '
                                 'axis %d for input %r shape %s'
                                 % (self.name, _fmt_shape(pad), full + adj[i], i, 'data', _fmt_shape(data)))
            out.append(size if n else 0)
        return tuple(pads), tuple(out)

    def _conv(self, p, in_channels, pad):
        """The convolution this layer transposes: from our output back to our input."""
        conv = get('Convolution')
        params = conv.parse_params({'kernel': p.kernel, 'stride': p.stride, 'dilate': p.dilate, 'pad': pad,
                                    'num_filter': in_channels, 'num_group': p.num_group, 'no_bias': True})
        return conv, params, conv._geometry(params)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        self._check_params(p)
        nd = len(p.kernel)
        data = in_shapes[0]
        if not is_channel_last(self.name, p.layout, nd):
            return self._infer_channel_first(p, in_shapes, out_shapes, aux_shapes)
        if data is not None and len(data) != nd + 2:
            raise ShapeError('%s: input %r must be %d-d for layout %r, got shape %s'
                             % (self.name, 'data', nd + 2, p.layout, _fmt_shape(data)))
        # data, weight and output all keep their channel axis last: infer the channel-first
        # shapes they are transposes of, and transpose the answer back
        first, last = channel_first_axes(nd + 2), channel_last_axes(nd + 2)
        ins = [permute_shape(s, first) for s in in_shapes[:2]] + list(in_shapes[2:])
        outs = [permute_shape(out_shapes[0], first)]
        ins, outs, aux_shapes = self._infer_channel_first(p, ins, outs, aux_shapes)
        return [permute_shape(s, last) for s in ins[:2]] + ins[2:], [permute_shape(outs[0], last)], aux_shapes

    def _infer_channel_first(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        channels = 0
        if data is not None:
            spatial = self._geometry(p, data)[1]
            channels = data[1]
            out = merge_shape(out, (data[0], p.num_filter) + spatial, '%s: output' % self.name)
        weight = merge_shape(in_shapes[1], (channels, p.num_filter // p.num_group) + tuple(p.kernel),
                             '%s: input weight' % self.name)
        if data is not None and weight[0]:
            data = merge_shape(data, (0, weight[0]) + (0,) * len(p.kernel), '%s: input data' % self.name)
        shapes = [data, weight]
        if not p.no_bias:
            shapes.append(merge_shape(in_shapes[2], (p.num_filter,), '%s: input bias' % self.name))
        return shapes, [out], aux_shapes

    def _check_weight(self, p, data, weight):
        expected = (data.shape[1], p.num_filter // p.num_group) + tuple(p.kernel)
        if tuple(weight.shape) != expected:
            raise ShapeError('%s: input %r must have shape %s, got %s'
                             % (self.name, 'weight', _fmt_shape(expected), _fmt_shape(weight.shape)))

    # --------------------------------------------------------- computation
    def forward(self, p, env, inputs, aux):
        xp, data, weight = env.xp, inputs[0], inputs[1]
        if is_channel_last(self.name, p.layout, len(p.kernel)):
            refuse_channel_last(self.name, p.layout)
        pad, out_size = self._geometry(p, data.shape)
        self._check_weight(p, data, weight)
        conv, cp, geometry = self._conv(p, data.shape[1], pad)
        out_shape = (data.shape[0], p.num_filter) + out_size
        # our input is the convolution's output gradient; our output its data gradient
        result = conv._data_grad(cp, env, data, weight, out_shape, geometry, data.shape[2:])
        out = env.target(0)
        if out is None:
            out = xp.empty(out_shape, dtype=data.dtype)
        out[...] = result
        if not p.no_bias:
            out += inputs[2].reshape((-1,) + (1,) * len(out_size))
        return [out]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        data, weight, grad = inputs[0], inputs[1], out_grads[0]
        if is_channel_last(self.name, p.layout, len(p.kernel)):
            refuse_channel_last(self.name, p.layout)
        pad, _ = self._geometry(p, data.shape)
        conv, cp, geometry = self._conv(p, data.shape[1], pad)
        d_data = d_weight = None
        if env.wants_grad(0):
            # the convolution of the output gradient, computed as (channel, batch, ...)
            d_data = conv._forward_batch(cp, env, grad, weight, None, geometry, data.shape[2:]).swapaxes(0, 1)
            target = env.grad_target(0)
            if target is not None:
                target[...] = d_data
                d_data = target
            else:
                d_data = env.xp.ascontiguousarray(d_data)
        if env.wants_grad(1):
            d_weight = conv._weight_grad(cp, env, data, grad, geometry, data.shape[2:])
        bias = [] if p.no_bias else [grad.sum(axis=(0,) + tuple(range(2, grad.ndim)))]
        return [d_data, d_weight] + bias

