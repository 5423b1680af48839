"""Image layers: Pad (pad, alias), ROIPooling and Correlation.

Pad extends the spatial axes of a 4-d or 5-d image with a constant, the edge
values or a reflection.  ROIPooling max-pools each region of interest of a
feature map to a fixed size (Fast R-CNN).  Correlation compares patches of two
feature maps at a set of displacements (FlowNet).  Each computes with whole-array
operations; the Python loops run over regions, or over displacements and kernel
offsets, never over pixels.
"""

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape
from ..shapes import format_shape as _fmt_shape
from .common import scatter_add, to_host
from ..base import ShapeError, ParamError


def _check_4d(op, name, shape):
    if shape is not None and len(shape) != 4:
        raise ShapeError('%s: input %r must be 4-d (batch, channel, height, width), got shape %s'
                         % (op, name, _fmt_shape(shape)))


# =====================================================================
# Pad
# =====================================================================

@register
class Pad(Operator):
    """Pad the spatial axes of a 4-d or 5-d array.

    ``pad_width`` is ``(before_0, after_0, before_1, after_1, ...)``, two entries per
    axis like numpy's pad flattened; as in MXNet the batch and channel axes must get
    no padding.  ``constant`` fills with ``constant_value``, ``edge`` repeats the edge
    value, ``reflect`` mirrors about the edge without repeating it (numpy's
    'reflect'), which MXNet allows only for pads smaller than the axis.  The gradient
    of a padded position goes back to the input position it was copied from.
    """
    eliminable = False
    name = 'Pad'
    aliases = ('pad',)
    params = {
        'mode': Param('enum', choices=('constant', 'edge', 'reflect'), doc='what to fill the padding with'),
        'pad_width': Param('shape', doc='(before, after) per axis, flattened', low=0),
        'constant_value': Param('float', 0.0, doc="the fill of mode='constant'"),
    }

    def _widths(self, p, shape):
        """[(before, after)] per axis, after checking them against ``shape``."""
        if len(shape) not in (4, 5):
            raise ShapeError('%s: input %r must be 4-d or 5-d, got shape %s'
                             % (self.name, 'data', _fmt_shape(shape)))
        if len(p.pad_width) != 2 * len(shape):
            raise ShapeError('%s: pad_width needs two entries per axis of input %r (%d for shape %s), got %s'
                             % (self.name, 'data', 2 * len(shape), _fmt_shape(shape), _fmt_shape(p.pad_width)))
        widths = [tuple(p.pad_width[2 * i:2 * i + 2]) for i in range(len(shape))]
        if any(widths[0]) or any(widths[1]):
            raise ShapeError('%s: the batch and channel axes cannot be padded: the first four entries of '
                             'pad_width must be 0, got %s' % (self.name, _fmt_shape(p.pad_width)))
        if p.mode == 'reflect':
            for axis, (n, (before, after)) in enumerate(zip(shape, widths)):
                if n and (before >= n or after >= n):
                    raise ShapeError("%s: mode='reflect' pads by less than the axis length: axis %d of input "
                                     "%r (shape %s) is %d long, pad_width gives (%d, %d)"
                                     % (self.name, axis, 'data', _fmt_shape(shape), n, before, after))
        return widths

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            widths = self._widths(p, data)
            out = merge_shape(out, tuple(n + b + a if n else 0 for n, (b, a) in zip(data, widths)),
                              '%s: output' % self.name)
        return [data], [out], aux_shapes

    def backward_reads(self, p):
        return [], []                      # only the input's shape

    def forward(self, p, env, inputs, aux):
        xp, data = env.xp, inputs[0]
        widths = self._widths(p, data.shape)
        if p.mode == 'constant':
            return [xp.pad(data, widths, mode='constant', constant_values=data.dtype.type(p.constant_value))]
        return [xp.pad(data, widths, mode=p.mode)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, grad, shape = env.xp, out_grads[0], inputs[0].shape
        widths = self._widths(p, shape)
        if p.mode == 'constant':
            return [xp.ascontiguousarray(grad[tuple(slice(b, b + n) for n, (b, _) in zip(shape, widths))])]
        for axis in range(2, len(shape)):
            before, after = widths[axis]
            if not before and not after:
                continue
            # source[o]: the input position output position o copies; the gradient sums
            # over the outputs of each source, one matrix product per axis
            # (built on the device: a host matrix would be copied over on every call)
            positions = xp.arange(shape[axis])
            source = xp.pad(positions, (before, after), mode=p.mode)
            gather = (source[:, None] == positions[None, :]).astype(grad.dtype)
            grad = xp.moveaxis(xp.moveaxis(grad, axis, -1) @ gather, -1, axis)
        return [xp.ascontiguousarray(grad)]


# =====================================================================
# ROIPooling
# =====================================================================

def _round_half_away(x):
    """C's round(): halves go away from zero (numpy's round goes to even)."""
    return np.sign(x) * np.floor(np.abs(x) + np.float32(0.5))


@register
class ROIPooling(Operator):
    """Max-pool each region of interest of a feature map to ``pooled_size``.

    rois is (R, 5): ``[batch_index, x1, y1, x2, y2]`` in the coordinates of the image
    the feature map came from; times ``spatial_scale`` and rounded (halves away from
    zero) they are corners of the feature map, both included.  The region (at least
    1 x 1) is cut into pooled_h x pooled_w bins, bin ``ph`` spanning rows
    ``floor(ph * h / pooled_h)`` to ``ceil((ph+1) * h / pooled_h)`` (exclusive), clipped
    to the map; computed in float32 as MXNet does.  An empty bin outputs 0.

    The hidden output ``maxidx`` (int32) holds, per output element, the flat index
    into the whole data array of the maximum it took (the first one in row-major
    order; -1 for an empty bin); backward sends each output's gradient there.  rois
    get no gradient.
    """
    eliminable = False
    name = 'ROIPooling'
    params = {
        'pooled_size': Param('shape', doc='output (height, width) per region', low=1),
        'spatial_scale': Param('float', doc='feature-map size over image size', low=0.0, high=1.0),
    }

    def inputs(self, p):
        return ['data', 'rois']

    def outputs(self, p):
        return ['output', 'maxidx']

    def visible_outputs(self, p):
        return 1

    def backward_reads(self, p):
        return [0], [1]                    # data (its shape) and maxidx

    def _check_params(self, p):
        if len(p.pooled_size) != 2:
            raise ShapeError('%s: pooled_size must be (height, width), got %s'
                             % (self.name, _fmt_shape(p.pooled_size)))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        self._check_params(p)
        data, rois = in_shapes
        _check_4d(self.name, 'data', data)
        rois = merge_shape(rois, (0, 5), '%s: input rois (rows of batch_index, x1, y1, x2, y2)' % self.name)
        out = out_shapes[0]
        if data is not None:
            out = merge_shape(out, (rois[0], data[1]) + tuple(p.pooled_size), '%s: output' % self.name)
        return [data, rois], [out, out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        known = in_types[0] or out_types[0] or in_types[1]
        return [known, known], [known, np.dtype(np.int32)], []

    def _bins(self, p, roi, height, width):
        """Row and column masks (pooled, size) of one region's bins, and the empty-bin mask."""
        scale = np.float32(p.spatial_scale)
        x1, y1, x2, y2 = (int(_round_half_away(np.float32(v) * scale)) for v in roi[1:5])
        masks = []
        for start, end, pooled, size in ((y1, y2, p.pooled_size[0], height), (x1, x2, p.pooled_size[1], width)):
            step = np.float32(max(end - start + 1, 1)) / np.float32(pooled)
            k = np.arange(pooled, dtype=np.float32)
            lo = np.clip(np.floor(k * step).astype(np.int64) + start, 0, size)
            hi = np.clip(np.ceil((k + 1) * step).astype(np.int64) + start, 0, size)
            pos = np.arange(size)
            masks.append(((pos >= lo[:, None]) & (pos < hi[:, None]), hi <= lo))
        (rows, empty_h), (cols, empty_w) = masks
        return rows, cols, empty_h[:, None] | empty_w[None, :]

    def forward(self, p, env, inputs, aux):
        xp, data, rois = env.xp, inputs[0], inputs[1]
        self.infer_shape(p, [tuple(data.shape), tuple(rois.shape)], [None, None], [])
        n_batch, channels, height, width = data.shape
        out_shape = (rois.shape[0], channels) + tuple(p.pooled_size)
        out = xp.empty(out_shape, dtype=data.dtype)
        maxidx = xp.empty(out_shape, dtype=np.int32)
        # each ROI's bins are worked out on the host: on a GPU, one explicit copy of the
        # (few) ROIs per forward, then one set of whole-array kernels per ROI
        host_rois = to_host(rois).astype(np.float32)
        low = data.dtype.type(-np.inf)
        for r, roi in enumerate(host_rois):
            n = int(roi[0])
            if not 0 <= n < n_batch:
                raise ShapeError('%s: row %d of input %r names batch index %s, but input %r has %d samples'
                                 % (self.name, r, 'rois', roi[0], 'data', n_batch))
            rows, cols, empty = self._bins(p, roi, height, width)
            rows, cols, empty = xp.asarray(rows), xp.asarray(cols), xp.asarray(empty)
            image = data[n]                                                      # (C, H, W)
            # the first maximum in row-major order: per row and column bin the first
            # maximal column, then per bin the first row holding the bin's maximum
            across = xp.where(cols[None, None], image[:, :, None, :], low)      # (C, H, PW, W)
            row_max, row_arg = across.max(axis=3), across.argmax(axis=3)        # (C, H, PW)
            down = xp.where(rows[None, :, :, None], row_max[:, None], low)      # (C, PH, H, PW)
            best, best_row = down.max(axis=2), down.argmax(axis=2)              # (C, PH, PW)
            best_col = xp.take_along_axis(row_arg, best_row, axis=1)
            out[r] = xp.where(empty, data.dtype.type(0), best)
            start = xp.arange(channels).reshape(-1, 1, 1) * (height * width) + n * (channels * height * width)
            maxidx[r] = xp.where(empty, -1, start + best_row * width + best_col)
        return [out, maxidx]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, rois, grad = env.xp, inputs[0], inputs[1], out_grads[0]
        maxidx = outputs[1]
        d_data = xp.zeros(data.size, dtype=data.dtype)
        hit = maxidx >= 0
        scatter_add(xp, d_data, xp.where(hit, maxidx, 0), grad * hit)
        return [d_data.reshape(data.shape), xp.zeros_like(rois)]


# =====================================================================
# Correlation
# =====================================================================

@register
class Correlation(Operator):
    """Compare patches of data1 with patches of data2 at displaced positions (FlowNet).

    Both inputs are (N, C, H, W), zero-padded by ``pad_size``.  Output position (i, j)
    takes the kernel_size x kernel_size patch of data1 whose top-left corner is
    ``(i*stride1 + max_displacement, j*stride1 + max_displacement)`` and, for each
    displacement ``(dy, dx)`` on the grid of multiples of ``stride2`` within
    ``max_displacement``, the patch of data2 moved by it; output channel
    ``(dy/stride2 + r) * (2r+1) + dx/stride2 + r`` (``r = max_displacement // stride2``)
    holds the mean over patch and channels of their product (``is_multiply``) or of
    ``|a - b|`` (whose gradient, as in MXNet, takes the sign of ``a - b`` as +1 where they
    are equal).  Output size per axis: ``ceil((padded - 2*border) / stride1)`` with
    ``border = max_displacement + (kernel_size-1)//2``.

    The hidden outputs ``tmp1`` and ``tmp2`` are the padded inputs in (N, H, W, C)
    layout, as MXNet keeps them.
    """
    eliminable = False
    name = 'Correlation'
    params = {
        'kernel_size': Param('int', 1, doc='patch size', low=1),
        'max_displacement': Param('int', 1, doc='largest displacement compared', low=0),
        'stride1': Param('int', 1, doc='step between output positions in data1', low=1),
        'stride2': Param('int', 1, doc='step between displacements in data2', low=1),
        'pad_size': Param('int', 0, doc='zero padding on every side of both inputs', low=0),
        'is_multiply': Param('bool', True, doc='compare by product (True) or absolute difference'),
    }

    def inputs(self, p):
        return ['data1', 'data2']

    def outputs(self, p):
        return ['output', 'tmp1', 'tmp2']

    def visible_outputs(self, p):
        return 1

    def backward_reads(self, p):
        return [], [1, 2]                  # the padded inputs

    def _geometry(self, p, shape):
        """(radius of the displacement grid, output height, output width) for input ``shape``."""
        if p.kernel_size % 2 == 0:
            # MXNet 1.9.1 documents it and accepts an even one, then reads past the padded input
            raise ParamError('%s: kernel_size must be odd, got %d' % (self.name, p.kernel_size))
        border = p.max_displacement + (p.kernel_size - 1) // 2
        sizes = []
        for n in shape[2:]:
            span = n + 2 * p.pad_size - 2 * border
            if span < 1:
                raise ShapeError('%s: the displacements and the kernel do not fit in input %r of shape %s: '
                                 'padded size %d, border %d on each side'
                                 % (self.name, 'data1', _fmt_shape(shape), n + 2 * p.pad_size, border))
            sizes.append(-(-span // p.stride1))
        return p.max_displacement // p.stride2, sizes[0], sizes[1]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data1, data2 = in_shapes
        _check_4d(self.name, 'data1', data1)
        _check_4d(self.name, 'data2', data2)
        # MXNet 1.9.1 reads data2 with data1's sizes whatever its shape; reflib asks for one shape
        shape = merge_shape(data1, data2, '%s: inputs data1 and data2' % self.name)
        if shape is None:
            return [shape, shape], list(out_shapes), aux_shapes
        radius, out_h, out_w = self._geometry(p, shape)
        out = merge_shape(out_shapes[0], (shape[0], (2 * radius + 1) ** 2, out_h, out_w), '%s: output' % self.name)
        padded = (shape[0], shape[2] + 2 * p.pad_size, shape[3] + 2 * p.pad_size, shape[1])
        return [shape, shape], [out, padded, padded], aux_shapes

    def _pairs(self, p, shape):
        """For every (output channel, kernel offset): the slices of the padded data1 and data2."""
        radius, out_h, out_w = self._geometry(p, shape)
        width = 2 * radius + 1
        md, s1 = p.max_displacement, p.stride1
        for channel in range(width * width):
            dy = (channel // width - radius) * p.stride2
            dx = (channel % width - radius) * p.stride2
            for h in range(p.kernel_size):
                for w in range(p.kernel_size):
                    y, x = md + h, md + w
                    first = (Ellipsis, slice(y, y + s1 * (out_h - 1) + 1, s1), slice(x, x + s1 * (out_w - 1) + 1, s1))
                    second = (Ellipsis, slice(y + dy, y + dy + s1 * (out_h - 1) + 1, s1),
                              slice(x + dx, x + dx + s1 * (out_w - 1) + 1, s1))
                    yield channel, first, second

    def forward(self, p, env, inputs, aux):
        xp, data1, data2 = env.xp, inputs[0], inputs[1]
        _, (out_shape, _, _), _ = self.infer_shape(p, [tuple(data1.shape), tuple(data2.shape)], [None] * 3, [])
        widths = [(0, 0), (0, 0), (p.pad_size, p.pad_size), (p.pad_size, p.pad_size)]
        pad1, pad2 = xp.pad(data1, widths), xp.pad(data2, widths)             # (N, C, Hp, Wp)
        out = xp.zeros(out_shape, dtype=data1.dtype)
        for channel, first, second in self._pairs(p, data1.shape):
            if p.is_multiply:
                out[:, channel] += (pad1[first] * pad2[second]).sum(axis=1)
            else:
                out[:, channel] += xp.abs(pad1[first] - pad2[second]).sum(axis=1)
        out /= data1.dtype.type(p.kernel_size * p.kernel_size * data1.shape[1])
        return [out, xp.ascontiguousarray(pad1.transpose(0, 2, 3, 1)),
                xp.ascontiguousarray(pad2.transpose(0, 2, 3, 1))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp = env.xp
        pad1, pad2 = outputs[1].transpose(0, 3, 1, 2), outputs[2].transpose(0, 3, 1, 2)   # (N, C, Hp, Wp)
        channels = pad1.shape[1]
        shape = (pad1.shape[0], channels) + tuple(n - 2 * p.pad_size for n in pad1.shape[2:])
        grad = out_grads[0] / out_grads[0].dtype.type(p.kernel_size * p.kernel_size * channels)
        d1, d2 = xp.zeros(pad1.shape, dtype=pad1.dtype), xp.zeros(pad2.shape, dtype=pad2.dtype)
        for channel, first, second in self._pairs(p, shape):
            g = grad[:, channel:channel + 1]
            if p.is_multiply:
                d1[first] += g * pad2[second]
                d2[second] += g * pad1[first]
            else:
                # MXNet's sign: +1 where the two are equal too
                share = g * xp.where(pad1[first] >= pad2[second], pad1.dtype.type(1), pad1.dtype.type(-1))
                d1[first] += share
                d2[second] -= share
        crop = (Ellipsis, slice(p.pad_size, p.pad_size + shape[2]), slice(p.pad_size, p.pad_size + shape[3]))
        return [xp.ascontiguousarray(d1[crop]), xp.ascontiguousarray(d2[crop])]
