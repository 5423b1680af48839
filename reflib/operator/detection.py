"""Detection layers: ROIAlign, RROIAlign, PSROIPooling, DeformableConvolution,
Proposal and MultiProposal (MXNet's ``contrib`` namespace).

The region layers all reduce to one idea.  For one region, every output bin
(ph, pw) is a weighted sum of the feature map, and the weights split into a
row factor and a column factor: ``out[c, ph, pw] = rows[ph] . plane . cols[pw]``.
ROIAlign's factors are bilinear-interpolation weights averaged over a few
sample points per bin, PSROIPooling's are 0/1 masks of the bin's pixels.  So a
region costs two matrix products, and the gradient is the same products
transposed.  The "position-sensitive" variants read each bin from its own
channel plane; :func:`_gather_bins` picks those out.  (The rotated RROIAlign does
not split into rows and columns: it builds the whole interpolation matrix.)
The weights depend on one region's coordinates only, so they are worked out on
the host in the data's own float type (the rounding of the sample positions is
part of the answer) and copied over once per region.

DeformableConvolution is im2col with a bilinear read at a moved position per
kernel tap and output position, then the usual matrix product; its gradient
scatters back through the same four corners.  Proposal turns a region proposal
network's scores and box deltas into boxes: decode, rank, greedy suppression.
"""

import math

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape
from ..shapes import format_shape as _fmt_shape
from .common import scatter_add, to_host
from ..base import ShapeError, ParamError


def _check_ndim(op, name, shape, ndim, what):
    if shape is not None and len(shape) != ndim:
        raise ShapeError('%s: input %r must be %d-d %s, got shape %s' % (op, name, ndim, what, _fmt_shape(shape)))


def _check_rois(op, shape, columns, what):
    _check_ndim(op, 'rois', shape, 2, '(num_rois, %d)' % columns)
    if shape is not None and shape[1] and shape[1] != columns:
        raise ShapeError('%s: input %r must have %d columns (%s), got shape %s'
                         % (op, 'rois', columns, what, _fmt_shape(shape)))
    return merge_shape(shape, (0, columns), '%s: input rois' % op)


def _round_half_away(x):
    """C's round(): halves go away from zero (numpy's round goes to even)."""
    return np.sign(x) * np.floor(np.abs(x) + x.dtype.type(0.5))


def _batch_index(op, r, value, n_batch):
    n = int(value)
    if not 0 <= n < n_batch:
        raise ShapeError('%s: row %d of input %r names batch index %s, but input %r has %d samples'
                         % (op, r, 'rois', value, 'data', n_batch))
    return n


def _gather_bins(xp, planes, rows, cols, bin_rows, bin_cols):
    """``out[c, p, q] = rows[p] . planes[c, bin_rows[p], bin_cols[q]] . cols[q]``.

    planes is (C, A, B, H, W): A x B candidate planes per output channel (1 x 1 unless
    each bin reads its own plane); rows (P, H), cols (Q, W).
    """
    sums = xp.matmul(xp.matmul(rows, planes), cols.T)                   # (C, A, B, P, Q)
    p, q = xp.arange(rows.shape[0])[:, None], xp.arange(cols.shape[0])[None, :]
    return sums[:, bin_rows[:, None], bin_cols[None, :], p, q]


def _scatter_bins(xp, grad, rows, cols, bin_rows, bin_cols, planes_shape):
    """The adjoint of :func:`_gather_bins`: the gradient of ``planes`` from ``grad`` (C, P, Q)."""
    channels, n_rows, n_cols = planes_shape[:3]
    spread = xp.zeros((channels, n_rows, n_cols) + grad.shape[1:], dtype=grad.dtype)
    p, q = xp.arange(rows.shape[0])[:, None], xp.arange(cols.shape[0])[None, :]
    # each (p, q) is written once, so plain assignment is enough
    spread[:, bin_rows[:, None], bin_cols[None, :], p, q] = grad
    return xp.matmul(xp.matmul(rows.T, spread), cols)                   # (C, A, B, H, W)


def _bilinear_corners(pos, size):
    """Per sample coordinate: (low, high, weight of low, weight of high) along one axis.

    Samples more than one pixel outside the map get zero weights; the rest are clamped
    into it (below 0 reads pixel 0, past the last pixel reads the last one), as the
    Detectron-style ROIAlign does.
    """
    dtype = pos.dtype.type
    inside = (pos >= -1) & (pos <= size)
    pos = np.maximum(pos, dtype(0))
    low = np.floor(pos).astype(np.int64)
    edge = low >= size - 1
    low = np.where(edge, size - 1, low)
    high = np.where(edge, size - 1, low + 1)
    pos = np.where(edge, low.astype(pos.dtype), pos)
    frac = (pos - low).astype(pos.dtype)
    high_w = np.where(inside, frac, dtype(0))
    low_w = np.where(inside, dtype(1) - frac, dtype(0))
    return low, high, low_w, high_w


def _sample_points(start, bin_size, pooled, grid, dtype):
    """(pooled, grid) sample coordinates: ``grid`` evenly spaced points inside each bin."""
    t = dtype.type
    bins = np.arange(pooled).astype(dtype)[:, None] * bin_size
    within = (np.arange(grid).astype(dtype) + t(0.5))[None, :] * bin_size / t(grid)
    return (start + bins + within).astype(dtype)


def _axis_weights(start, bin_size, pooled, grid, size, dtype):
    """(pooled, size): bin p's average bilinear weight on each pixel along one axis."""
    low, high, low_w, high_w = _bilinear_corners(_sample_points(start, bin_size, pooled, grid, dtype), size)
    pixels = np.arange(size)
    weights = ((low[..., None] == pixels) * low_w[..., None]
               + (high[..., None] == pixels) * high_w[..., None]).sum(axis=1)
    return (weights / dtype.type(grid)).astype(dtype)


# =====================================================================
# ROIAlign
# =====================================================================

@register
class ROIAlign(Operator):
    """Average of bilinear samples in each bin of each region (Mask R-CNN).

    rois is (R, 5): ``[batch_index, x1, y1, x2, y2]`` in image coordinates; times
    ``spatial_scale`` (and less 0.5 when ``aligned``, so that pixel centres sit on whole
    numbers) they are the region's corners on the feature map, not rounded.  Unaligned,
    a region is at least 1 x 1; aligned, it must have a positive size.  Each of the
    pooled_h x pooled_w bins averages ``sample_ratio`` x ``sample_ratio`` bilinear
    samples at the centres of an even sub-grid (with ``sample_ratio <= 0``:
    ``ceil(bin size)`` samples per axis).  A sample more than a pixel outside the map
    counts as 0; one less than a pixel outside reads the nearest edge.

    ``position_sensitive`` (R-FCN): bin (ph, pw) of output channel c reads input channel
    ``(c * pooled_h + ph) * pooled_w + pw``, so the output has ``C / (pooled_h*pooled_w)``
    channels.  A row with a negative batch index outputs zeros.  rois get a zero gradient.
    """
    eliminable = False
    name = '_contrib_ROIAlign'
    params = {
        'pooled_size': Param('shape', doc='output (height, width) per region', low=1),
        'spatial_scale': Param('float', doc='feature-map size over image size'),
        'sample_ratio': Param('int', -1, doc='samples per bin and axis; <= 0: ceil(bin size)'),
        'position_sensitive': Param('bool', False, doc='read each bin from its own channel group'),
        'aligned': Param('bool', False, doc='shift by half a pixel so pixel centres are whole numbers'),
    }

    def inputs(self, p):
        return ['data', 'rois']

    def backward_reads(self, p):
        return [0, 1], []                  # rois, and data for its shape

    def _bins(self, p):
        if len(p.pooled_size) != 2:
            raise ShapeError('%s: pooled_size must be (height, width), got %s'
                             % (self.name, _fmt_shape(p.pooled_size)))
        return p.pooled_size[0] * p.pooled_size[1] if p.position_sensitive else 1

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        per_channel = self._bins(p)
        data, rois = in_shapes
        _check_ndim(self.name, 'data', data, 4, '(batch, channel, height, width)')
        rois = _check_rois(self.name, rois, 5, 'batch_index, x1, y1, x2, y2')
        out = out_shapes[0]
        if data is not None:
            if data[1] % per_channel:
                raise ShapeError('%s: with position_sensitive, the channels of input %r must be a multiple of '
                                 'pooled_h * pooled_w = %d, got shape %s'
                                 % (self.name, 'data', per_channel, _fmt_shape(data)))
            out = merge_shape(out, (rois[0], data[1] // per_channel) + tuple(p.pooled_size),
                              '%s: output' % self.name)
        return [data, rois], [out], aux_shapes

    def _regions(self, p, data, rois):
        """Per region: (row, batch index, row weights (PH, H), column weights (PW, W)); None
        weights for a row that is ignored (negative batch index)."""
        dtype = np.dtype(data.dtype)
        t = dtype.type
        scale, shift = t(np.float32(p.spatial_scale)), t(0.5 if p.aligned else 0.0)
        (pooled_h, pooled_w), (_, _, height, width) = p.pooled_size, data.shape
        for r, roi in enumerate(to_host(rois).astype(dtype)):
            if roi[0] < 0:
                yield r, None, None, None
                continue
            n = _batch_index(self.name, r, roi[0], data.shape[0])
            x1, y1, x2, y2 = (v * scale - shift for v in roi[1:5])
            roi_w, roi_h = x2 - x1, y2 - y1
            if p.aligned:
                if not (roi_w > 0 and roi_h > 0):
                    raise ShapeError('%s: with aligned=True every region needs a positive width and height; '
                                     'row %d of input %r is %s' % (self.name, r, 'rois', roi.tolist()))
            else:
                roi_w, roi_h = max(roi_w, t(1)), max(roi_h, t(1))
            bin_h, bin_w = roi_h / t(pooled_h), roi_w / t(pooled_w)
            grid_h = p.sample_ratio if p.sample_ratio > 0 else int(math.ceil(roi_h / t(pooled_h)))
            grid_w = p.sample_ratio if p.sample_ratio > 0 else int(math.ceil(roi_w / t(pooled_w)))
            yield (r, n, _axis_weights(y1, bin_h, pooled_h, grid_h, height, dtype),
                   _axis_weights(x1, bin_w, pooled_w, grid_w, width, dtype))

    def _planes(self, p, xp, image):
        """The (C', A, B, H, W) planes of one image and which plane each bin row/column reads."""
        pooled_h, pooled_w = p.pooled_size
        if p.position_sensitive:
            planes = image.reshape((-1, pooled_h, pooled_w) + image.shape[1:])
            return planes, xp.arange(pooled_h), xp.arange(pooled_w)
        return image[:, None, None], xp.zeros(pooled_h, dtype=np.int64), xp.zeros(pooled_w, dtype=np.int64)

    def forward(self, p, env, inputs, aux):
        xp, data, rois = env.xp, inputs[0], inputs[1]
        _, (out_shape,), _ = self.infer_shape(p, [tuple(data.shape), tuple(rois.shape)], [None], [])
        out = xp.zeros(out_shape, dtype=data.dtype)
        for r, n, rows, cols in self._regions(p, data, rois):
            if n is None:
                continue
            planes, bin_rows, bin_cols = self._planes(p, xp, data[n])
            out[r] = _gather_bins(xp, planes, xp.asarray(rows), xp.asarray(cols), bin_rows, bin_cols)
        return [out]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, rois, grad = env.xp, inputs[0], inputs[1], out_grads[0]
        d_data = xp.zeros(data.shape, dtype=data.dtype)
        for r, n, rows, cols in self._regions(p, data, rois):
            if n is None:
                continue
            planes, bin_rows, bin_cols = self._planes(p, xp, d_data[n])
            planes += _scatter_bins(xp, grad[r], xp.asarray(rows), xp.asarray(cols), bin_rows, bin_cols,
                                    planes.shape)
        return [d_data, xp.zeros_like(rois)]


# =====================================================================
# RROIAlign
# =====================================================================

@register
class RROIAlign(Operator):
    """ROIAlign over rotated regions (text detection); forward only, as in MXNet 1.9.1.

    rois is (R, 6): ``[batch_index, centre_x, centre_y, width, height, angle]``, the
    angle in degrees, counter-clockwise.  The region (at least 1 x 1 after
    ``spatial_scale``) is laid out around its centre, each bin's sub-grid of sample
    points (``sampling_ratio`` per axis, or ``ceil(bin size)``) rotated by the angle,
    and the bilinear samples averaged, as in ROIAlign.  Rotated bins do not split into
    rows and columns, so each region gets a full (bins x pixels) weight matrix.
    """
    eliminable = False
    differentiable = False
    name = '_contrib_RROIAlign'
    params = {
        'pooled_size': Param('shape', doc='output (height, width) per region', low=1),
        'spatial_scale': Param('float', doc='feature-map size over image size'),
        'sampling_ratio': Param('int', -1, doc='samples per bin and axis; <= 0: ceil(bin size)'),
    }

    def inputs(self, p):
        return ['data', 'rois']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        if len(p.pooled_size) != 2:
            raise ShapeError('%s: pooled_size must be (height, width), got %s'
                             % (self.name, _fmt_shape(p.pooled_size)))
        data, rois = in_shapes
        _check_ndim(self.name, 'data', data, 4, '(batch, channel, height, width)')
        rois = _check_rois(self.name, rois, 6, 'batch_index, x, y, width, height, angle')
        out = out_shapes[0]
        if data is not None:
            out = merge_shape(out, (rois[0], data[1]) + tuple(p.pooled_size), '%s: output' % self.name)
        return [data, rois], [out], aux_shapes

    def _weights(self, p, roi, height, width, dtype):
        """(PH * PW, H * W): each bin's average bilinear weight on each pixel."""
        t = dtype.type
        scale = t(np.float32(p.spatial_scale))
        centre_x, centre_y, roi_w, roi_h = (v * scale for v in roi[1:5])
        theta = t(float(roi[5]) * math.pi / 180.0)
        roi_w, roi_h = max(roi_w, t(1)), max(roi_h, t(1))
        pooled_h, pooled_w = p.pooled_size
        bin_h, bin_w = roi_h / t(pooled_h), roi_w / t(pooled_w)
        grid_h = p.sampling_ratio if p.sampling_ratio > 0 else int(math.ceil(roi_h / t(pooled_h)))
        grid_w = p.sampling_ratio if p.sampling_ratio > 0 else int(math.ceil(roi_w / t(pooled_w)))
        # sample points relative to the centre, before rotating: (PH, gh, 1, 1) and (1, 1, PW, gw)
        ys = _sample_points(t(-roi_h / t(2)), bin_h, pooled_h, grid_h, dtype)[:, :, None, None]
        xs = _sample_points(t(-roi_w / t(2)), bin_w, pooled_w, grid_w, dtype)[None, None]
        cos, sin = np.cos(theta), np.sin(theta)
        x = (xs * cos + ys * sin + centre_x).astype(dtype)
        y = (ys * cos - xs * sin + centre_y).astype(dtype)
        # a sample outside the map in either direction counts as 0
        outside = (y < -1) | (y > height) | (x < -1) | (x > width)
        y_low, y_high, y_lw, y_hw = _bilinear_corners(np.where(outside, t(0), y), height)
        x_low, x_high, x_lw, x_hw = _bilinear_corners(np.where(outside, t(0), x), width)
        keep = ~outside
        weights = np.zeros((pooled_h, pooled_w, height * width), dtype=dtype)
        bins_h = np.broadcast_to(np.arange(pooled_h)[:, None, None, None], x.shape)
        bins_w = np.broadcast_to(np.arange(pooled_w)[None, None, :, None], x.shape)
        for rows, row_w in ((y_low, y_lw), (y_high, y_hw)):
            for cols, col_w in ((x_low, x_lw), (x_high, x_hw)):
                np.add.at(weights, (bins_h, bins_w, rows * width + cols), row_w * col_w * keep)
        return (weights / t(grid_h * grid_w)).reshape(pooled_h * pooled_w, height * width)

    def forward(self, p, env, inputs, aux):
        xp, data, rois = env.xp, inputs[0], inputs[1]
        _, (out_shape,), _ = self.infer_shape(p, [tuple(data.shape), tuple(rois.shape)], [None], [])
        n_batch, channels, height, width = data.shape
        dtype = np.dtype(data.dtype)
        out = xp.zeros(out_shape, dtype=data.dtype)
        for r, roi in enumerate(to_host(rois).astype(dtype)):
            n = _batch_index(self.name, r, roi[0], n_batch)
            weights = xp.asarray(self._weights(p, roi, height, width, dtype))
            out[r] = (data[n].reshape(channels, -1) @ weights.T).reshape(out_shape[1:])
        return [out]


# =====================================================================
# PSROIPooling
# =====================================================================

@register
class PSROIPooling(Operator):
    """Position-sensitive ROI average pooling (R-FCN).

    rois is (R, 5): ``[batch_index, x1, y1, x2, y2]``; the corners are rounded (halves
    away from zero), the far one moved one pixel on (both corners are included), and
    scaled by ``spatial_scale``; the region is at least 0.1 wide and high.  Bin ``ph``
    spans rows ``floor(start + ph*bin)`` to ``ceil(start + (ph+1)*bin)`` (exclusive),
    clipped to the map, and outputs the mean of its pixels (0 for an empty bin) on its
    own channel: output channel c reads input channel ``(c*group + gh)*group + gw`` with
    ``gh = floor(ph * group / pooled_size)`` (``group_size`` 0 means ``pooled_size``).
    rois get a zero gradient.
    """
    eliminable = False
    name = '_contrib_PSROIPooling'
    params = {
        'spatial_scale': Param('float', doc='feature-map size over image size'),
        'output_dim': Param('int', doc='output channels', low=1),
        'pooled_size': Param('int', doc='output height and width per region', low=1),
        'group_size': Param('int', 0, doc='channel groups per axis; 0: pooled_size', low=0),
    }

    def inputs(self, p):
        return ['data', 'rois']

    def backward_reads(self, p):
        return [0, 1], []

    def _group(self, p):
        return p.group_size or p.pooled_size

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, rois = in_shapes
        _check_ndim(self.name, 'data', data, 4, '(batch, channel, height, width)')
        rois = _check_rois(self.name, rois, 5, 'batch_index, x1, y1, x2, y2')
        group = self._group(p)
        if data is not None and data[1] and data[1] < p.output_dim * group * group:
            # MXNet 1.9.1 reads past the end of the data then
            raise ShapeError('%s: input %r needs at least output_dim * group_size**2 = %d channels, got shape %s'
                             % (self.name, 'data', p.output_dim * group * group, _fmt_shape(data)))
        out = merge_shape(out_shapes[0], (rois[0], p.output_dim, p.pooled_size, p.pooled_size),
                          '%s: output' % self.name)
        return [data, rois], [out], aux_shapes

    def _regions(self, p, data, rois):
        """Per region: (row, batch index, row masks / areas, column masks, group of each bin)."""
        dtype = np.dtype(data.dtype)
        t = dtype.type
        scale, pooled, group = t(np.float32(p.spatial_scale)), p.pooled_size, self._group(p)
        _, _, height, width = data.shape
        bins = np.arange(pooled).astype(dtype)
        # which of the group x group planes a bin reads: the same along both axes
        groups = np.clip(np.floor(bins * t(group) / t(pooled)).astype(np.int64), 0, group - 1)
        for r, roi in enumerate(to_host(rois).astype(dtype)):
            n = _batch_index(self.name, r, roi[0], data.shape[0])
            x1, y1 = (_round_half_away(v) * scale for v in roi[1:3])
            x2, y2 = ((_round_half_away(v) + t(1)) * scale for v in roi[3:5])
            masks = []
            for start, end, size in ((y1, y2, height), (x1, x2, width)):
                step = max(end - start, t(0.1)) / t(pooled)
                lo = np.clip(np.floor(bins * step + start).astype(np.int64), 0, size)
                hi = np.clip(np.ceil((bins + t(1)) * step + start).astype(np.int64), 0, size)
                pixels = np.arange(size)
                masks.append((((pixels >= lo[:, None]) & (pixels < hi[:, None])).astype(dtype), hi - lo))
            (rows, n_rows), (cols, n_cols) = masks
            area = np.outer(n_rows, n_cols)
            # an empty bin averages nothing: its weights are all 0 anyway, divide by 1
            yield r, n, rows, cols, np.maximum(area, 1).astype(dtype), groups

    def forward(self, p, env, inputs, aux):
        xp, data, rois = env.xp, inputs[0], inputs[1]
        _, (out_shape,), _ = self.infer_shape(p, [tuple(data.shape), tuple(rois.shape)], [None], [])
        group = self._group(p)
        out = xp.zeros(out_shape, dtype=data.dtype)
        for r, n, rows, cols, area, groups in self._regions(p, data, rois):
            planes = data[n, :p.output_dim * group * group].reshape(
                (p.output_dim, group, group) + data.shape[2:])
            g = xp.asarray(groups)
            out[r] = _gather_bins(xp, planes, xp.asarray(rows), xp.asarray(cols), g, g) / xp.asarray(area)
        return [out]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, rois, grad = env.xp, inputs[0], inputs[1], out_grads[0]
        group = self._group(p)
        d_data = xp.zeros(data.shape, dtype=data.dtype)
        for r, n, rows, cols, area, groups in self._regions(p, data, rois):
            planes = d_data[n, :p.output_dim * group * group].reshape(
                (p.output_dim, group, group) + data.shape[2:])
            g = xp.asarray(groups)
            planes += _scatter_bins(xp, grad[r] / xp.asarray(area), xp.asarray(rows), xp.asarray(cols), g, g,
                                    planes.shape)
        return [d_data, xp.zeros_like(rois)]


# =====================================================================
# DeformableConvolution
# =====================================================================

def _pair(op, name, value, default):
    value = tuple(value) if value else (default, default)
    if len(value) != 2:
        raise ShapeError('%s: %s must have 2 entries (height, width), got %s' % (op, name, _fmt_shape(value)))
    return value


@register
class DeformableConvolution(Operator):
    """2-d convolution whose kernel taps are moved by learned offsets (deformable conv v1).

    offset is (N, 2 * num_deformable_group * kh * kw, out_h, out_w): for deformable group
    g and kernel tap k (row-major over the kernel), channel ``(g*K + k)*2`` moves the tap
    down and the next channel moves it right, separately at every output position.  The
    tap of output (y, x) then reads the input at the real position
    ``(y*stride - pad + i*dilate + dy, x*stride - pad + j*dilate + dx)`` by bilinear
    interpolation, for the input channels of group g.  As in MXNet 1.9.1, a position
    reads 0 unless ``0 <= row < H`` and ``0 <= col < W``, and one within the last pixel
    row or column reads that row or column (the interpolation is clamped there, and
    the gradient with respect to the offset is 0).  The sampled values form an im2col
    matrix that is multiplied by the weights, group by group as in Convolution.
    """
    eliminable = False
    name = '_contrib_DeformableConvolution'
    params = {
        'kernel': Param('shape', doc='kernel size (h, w)', low=1),
        'stride': Param('shape', (), doc='step between windows; default 1 per axis', low=1),
        'dilate': Param('shape', (), doc='spacing between kernel taps; default 1 per axis', low=1),
        'pad': Param('shape', (), doc='zero padding on both sides; default 0 per axis', low=0),
        'num_filter': Param('int', doc='number of output channels', low=1),
        'num_group': Param('int', 1, doc='split channels into this many independent groups', low=1),
        'num_deformable_group': Param('int', 1, doc='input-channel groups sharing one set of offsets', low=1),
        'workspace': Param('int', 1024, doc='scratch-memory limit in MB; unused here', low=0),
        'no_bias': Param('bool', False, doc='leave out the bias term'),
        'layout': Param('enum', None, choices=('NCDHW', 'NCHW', 'NCW'), doc='only NCHW is supported'),
    }

    def inputs(self, p):
        return ['data', 'offset', 'weight'] + ([] if p.no_bias else ['bias'])

    def _geometry(self, p):
        if len(p.kernel) != 2 or p.layout not in (None, 'NCHW'):
            raise ShapeError('%s: only 2-d deformable convolution (NCHW) is supported, got kernel %s, layout %s'
                             % (self.name, _fmt_shape(p.kernel), p.layout))
        return (tuple(p.kernel), _pair(self.name, 'stride', p.stride, 1), _pair(self.name, 'dilate', p.dilate, 1),
                _pair(self.name, 'pad', p.pad, 0))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        kernel, stride, dilate, pad = self._geometry(p)
        data, offset, weight = in_shapes[:3]
        _check_ndim(self.name, 'data', data, 4, '(batch, channel, height, width)')
        _check_ndim(self.name, 'offset', offset, 4, '(batch, 2*groups*kh*kw, out_height, out_width)')
        if p.num_filter % p.num_group:
            raise ParamError('%s: num_filter (%d) must be a multiple of num_group (%d)'
                             % (self.name, p.num_filter, p.num_group))
        out = out_shapes[0]
        bias = None if p.no_bias else merge_shape(in_shapes[3], (p.num_filter,), '%s: input bias' % self.name)
        if data is None:
            return [data, offset, weight] + ([] if p.no_bias else [bias]), [out], aux_shapes
        channels = data[1]
        for groups, what in ((p.num_group, 'num_group'), (p.num_deformable_group, 'num_deformable_group')):
            if channels % groups:
                raise ShapeError('%s: the channels of input %r (shape %s) must be a multiple of %s = %d'
                                 % (self.name, 'data', _fmt_shape(data), what, groups))
        size = []
        for n, k, s, d, pd in zip(data[2:], kernel, stride, dilate, pad):
            span = n + 2 * pd - d * (k - 1)
            if span < 1:
                raise ShapeError('%s: the dilated kernel %s does not fit in input %r of shape %s padded by %s'
                                 % (self.name, _fmt_shape(kernel), 'data', _fmt_shape(data), _fmt_shape(pad)))
            size.append((span - 1) // s + 1)
        taps = 2 * p.num_deformable_group * kernel[0] * kernel[1]
        offset = merge_shape(offset, (data[0], taps) + tuple(size),
                             '%s: input offset (batch, 2*num_deformable_group*kh*kw, out_height, out_width)'
                             % self.name)
        weight = merge_shape(weight, (p.num_filter, channels // p.num_group) + kernel, '%s: input weight' % self.name)
        out = merge_shape(out, (data[0], p.num_filter) + tuple(size), '%s: output' % self.name)
        return [data, offset, weight] + ([] if p.no_bias else [bias]), [out], aux_shapes

    def _taps(self, p, xp, data, offset):
        """Per kernel tap k: (k, corners), corners four (flat pixel index, weight, d weight/d row,
        d weight/d col) of shape (N, groups, 1, out_h * out_w), for the bilinear read of every
        output position."""
        (kh, kw), (sh, sw), (dh, dw), (ph, pw) = self._geometry(p)
        n_batch, _, height, width = data.shape
        out_h, out_w = offset.shape[2:]
        t = data.dtype.type
        groups = p.num_deformable_group
        moves = offset.reshape(n_batch, groups, kh * kw, 2, out_h * out_w)
        base_h = (xp.arange(out_h) * sh - ph)[:, None] + xp.zeros((1, out_w), dtype=np.int64)
        base_w = (xp.arange(out_w) * sw - pw)[None, :] + xp.zeros((out_h, 1), dtype=np.int64)
        base_h, base_w = base_h.reshape(-1), base_w.reshape(-1)
        for k in range(kh * kw):
            i, j = divmod(k, kw)
            # the move relative to the window's corner, as MXNet interpolates
            rel_h = t(i * dh) + moves[:, :, k, 0]
            rel_w = t(j * dw) + moves[:, :, k, 1]
            pos_h = (base_h + i * dh).astype(data.dtype) + moves[:, :, k, 0]
            pos_w = (base_w + j * dw).astype(data.dtype) + moves[:, :, k, 1]
            inside = (pos_h >= 0) & (pos_w >= 0) & (pos_h < height) & (pos_w < width)
            axes = []
            for rel, pos, size in ((rel_h, pos_h, height), (rel_w, pos_w, width)):
                low = xp.floor(pos).astype(np.int64)
                edge = low >= size - 1
                frac = xp.where(edge, t(0), rel - xp.floor(rel))
                low = xp.clip(low, 0, size - 1)
                high = xp.where(edge, low, low + 1)
                # on the clamped last row the read does not move with the offset
                slope = xp.where(edge, t(0), t(1))
                axes.append((low, high, frac, slope))
            (h_lo, h_hi, fh, slope_h), (w_lo, w_hi, fw, slope_w) = axes
            keep = inside.astype(data.dtype)
            corners = []
            for rows, row_w, row_d in ((h_lo, 1 - fh, -slope_h), (h_hi, fh, slope_h)):
                for cols, col_w, col_d in ((w_lo, 1 - fw, -slope_w), (w_hi, fw, slope_w)):
                    index = xp.where(inside, rows * width + cols, 0)
                    corners.append((index[:, :, None], (row_w * col_w * keep)[:, :, None],
                                    (row_d * col_w * keep)[:, :, None], (row_w * col_d * keep)[:, :, None]))
            yield k, corners

    def _columns(self, p, xp, data, offset):
        """The deformable im2col matrix, (N, C, kh*kw, out_h*out_w)."""
        n_batch, channels = data.shape[:2]
        groups = p.num_deformable_group
        planes = data.reshape(n_batch, groups, channels // groups, -1)
        taps = p.kernel[0] * p.kernel[1]
        cols = xp.zeros((n_batch, groups, channels // groups, taps, offset.shape[2] * offset.shape[3]),
                        dtype=data.dtype)
        for k, corners in self._taps(p, xp, data, offset):
            for index, weight, _, _ in corners:
                index = xp.broadcast_to(index, planes.shape[:3] + index.shape[3:])
                cols[:, :, :, k] += weight * xp.take_along_axis(planes, index, axis=3)
        return cols.reshape(n_batch, channels, taps, -1)

    def forward(self, p, env, inputs, aux):
        xp, data, offset, weight = env.xp, inputs[0], inputs[1], inputs[2]
        _, (out_shape,), _ = self.infer_shape(p, [tuple(x.shape) for x in inputs], [None], [])
        n_batch, channels = data.shape[:2]
        g = p.num_group
        cols = self._columns(p, xp, data, offset).reshape(n_batch, g, -1, out_shape[2] * out_shape[3])
        kernels = weight.reshape(g, p.num_filter // g, -1)
        out = xp.matmul(kernels[None], cols).reshape(out_shape)
        if not p.no_bias:
            out += inputs[3].reshape(1, -1, 1, 1)
        return [out]

    def _sampling_grads(self, p, xp, data, offset, d_cols):
        """The gradients of data and offset from the gradient of the sampled columns
        ``d_cols`` (n, groups, channels per group, taps, positions): each tap's bilinear
        corners scatter it back into the pixels they read, and the corners' weights give
        its derivative with respect to the tap's row and column offsets."""
        n_batch, channels, height, width = data.shape
        groups, taps = p.num_deformable_group, p.kernel[0] * p.kernel[1]
        planes = data.reshape(n_batch, groups, channels // groups, -1)
        d_planes = xp.zeros(planes.shape, dtype=data.dtype)
        d_offset = xp.zeros((n_batch, groups, taps, 2, d_cols.shape[-1]), dtype=data.dtype)
        # the flat position of every (n, g, c) plane in d_planes, to scatter pixel indices into it
        start = xp.arange(n_batch * channels).reshape(n_batch, groups, -1, 1) * (height * width)
        for k, corners in self._taps(p, xp, data, offset):
            d_col = d_cols[:, :, :, k]
            for index, weight_c, d_row, d_col_w in corners:
                full = xp.broadcast_to(index, planes.shape[:3] + index.shape[3:])
                values = xp.take_along_axis(planes, full, axis=3)
                scatter_add(xp, d_planes.reshape(-1), (start + full).reshape(-1), (weight_c * d_col).reshape(-1))
                d_offset[:, :, k, 0] += (d_row * values * d_col).sum(axis=2)
                d_offset[:, :, k, 1] += (d_col_w * values * d_col).sum(axis=2)
        return d_planes.reshape(data.shape), d_offset.reshape(offset.shape)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, offset, weight = env.xp, inputs[0], inputs[1], inputs[2]
        n_batch, channels = data.shape[:2]
        g, groups, taps = p.num_group, p.num_deformable_group, p.kernel[0] * p.kernel[1]
        grad = out_grads[0].reshape(n_batch, g, p.num_filter // g, -1)
        kernels = weight.reshape(g, p.num_filter // g, -1)
        cols = self._columns(p, xp, data, offset).reshape(n_batch, g, kernels.shape[2], -1)
        d_weight = xp.matmul(grad, cols.transpose(0, 1, 3, 2)).sum(axis=0).reshape(weight.shape)
        d_cols = xp.matmul(kernels.transpose(0, 2, 1)[None], grad)
        d_cols = d_cols.reshape(n_batch, groups, channels // groups, taps, -1)
        d_data, d_offset = self._sampling_grads(p, xp, data, offset, d_cols)
        grads = [d_data, d_offset, d_weight]
        if not p.no_bias:
            grads.append(out_grads[0].sum(axis=(0, 2, 3)))
        return grads


# =====================================================================
# Proposal and MultiProposal
# =====================================================================

class _Floats(Param):
    """A tuple of floats (the anchors' scales and ratios); one number is a tuple of one.
    Listed as a shape (MXNet says ``tuple of <float>``)."""
    __slots__ = ()

    def __init__(self, default, doc=''):
        super().__init__('shape', default, doc=doc)

    def _parse_base(self, base, value):
        if isinstance(value, str):
            text = value.strip()
            value = [float(v) for v in text.strip('()[]').replace(',', ' ').split()]
        if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
            value = (value,)
        if isinstance(value, np.ndarray):
            value = value.ravel().tolist()
        if not isinstance(value, (tuple, list)) or not all(
                isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in value):
            raise TypeError(value)
        return tuple(float(v) for v in value)


_F32 = np.float32


def _anchors(p):
    """(ratios * scales, 4) boxes [x1, y1, x2, y2] centred on the first stride x stride cell,
    ratio-major; each ratio keeps the cell's area (sizes rounded to whole pixels), each scale
    multiplies both sides.  In float32, as MXNet computes them."""
    side = _F32(p.feature_stride)
    centre = _F32(0.5 * (float(side) - 1.0))
    boxes = []
    for ratio in p.ratios:
        for scale in p.scales:
            ratio, scale = _F32(ratio), _F32(scale)
            area_per_ratio = np.floor(side * side / ratio)
            w = np.floor(np.sqrt(area_per_ratio) + _F32(0.5)) * scale
            h = np.floor(w / scale * ratio + _F32(0.5)) * scale
            half_w, half_h = _F32(0.5) * (w - _F32(1)), _F32(0.5) * (h - _F32(1))
            boxes.append([centre - half_w, centre - half_h, centre + half_w, centre + half_h])
    return np.array(boxes, dtype=_F32)


def _apply_deltas(p, boxes, deltas, height, width):
    """Move the anchors by the predicted deltas and clip them to the image (float32)."""
    d = [deltas[..., k] for k in range(4)]
    if p.iou_loss:
        # the deltas move each corner directly
        moved = [boxes[..., k] + d[k] for k in range(4)]
    else:
        # centre shifts in units of the box size, log-space width and height changes
        w = ((boxes[..., 2] - boxes[..., 0]).astype(np.float64) + 1.0).astype(_F32)
        h = ((boxes[..., 3] - boxes[..., 1]).astype(np.float64) + 1.0).astype(_F32)
        cx = (boxes[..., 0] + 0.5 * (w.astype(np.float64) - 1.0)).astype(_F32)
        cy = (boxes[..., 1] + 0.5 * (h.astype(np.float64) - 1.0)).astype(_F32)
        cx, cy = d[0] * w + cx, d[1] * h + cy
        w, h = np.exp(d[2]) * w, np.exp(d[3]) * h
        half_w = 0.5 * (w.astype(np.float64) - 1.0)
        half_h = 0.5 * (h.astype(np.float64) - 1.0)
        moved = [(cx - half_w).astype(_F32), (cy - half_h).astype(_F32),
                 (cx + half_w).astype(_F32), (cy + half_h).astype(_F32)]
    limits = (width - _F32(1), height - _F32(1), width - _F32(1), height - _F32(1))
    return np.stack([np.maximum(np.minimum(c, lim), _F32(0)) for c, lim in zip(moved, limits)], axis=-1)


def _suppress(boxes, threshold, limit):
    """Greedy non-maximum suppression over boxes sorted by score: the indices kept (at most
    ``limit``), each dropping the later boxes it overlaps by IoU > threshold."""
    area = (boxes[:, 2] - boxes[:, 0] + _F32(1)) * (boxes[:, 3] - boxes[:, 1] + _F32(1))
    suppressed = np.zeros(len(boxes), dtype=bool)
    keep = []
    for i in range(len(boxes)):
        if len(keep) >= limit:
            break
        if suppressed[i]:
            continue
        keep.append(i)
        rest = boxes[i + 1:]
        w = np.maximum(_F32(0), np.minimum(boxes[i, 2], rest[:, 2]) - np.maximum(boxes[i, 0], rest[:, 0]) + _F32(1))
        h = np.maximum(_F32(0), np.minimum(boxes[i, 3], rest[:, 3]) - np.maximum(boxes[i, 1], rest[:, 1]) + _F32(1))
        inter = w * h
        suppressed[i + 1:] |= inter / (area[i] + area[i + 1:] - inter) > threshold
    return np.array(keep, dtype=np.int64)


class _ProposalBase(Operator):
    """Shared by Proposal (one image) and MultiProposal (a batch): see Proposal."""
    eliminable = False
    # MXNet's backward writes zeros into every input gradient: no gradient passes, and
    # (as there) the head gradients are never read, whatever their shape
    blocks_gradient = True
    params = {
        'rpn_pre_nms_top_n': Param('int', 6000, doc='best-scoring boxes kept before NMS (<= 0: all)'),
        'rpn_post_nms_top_n': Param('int', 300, doc='boxes output per image', low=1),
        'threshold': Param('float', 0.7, doc='NMS: drop a box overlapping a better one by IoU above this'),
        'rpn_min_size': Param('int', 16, doc='smallest box side (times the image scale) kept'),
        'scales': _Floats((4.0, 8.0, 16.0, 32.0), doc='anchor sizes, in strides'),
        'ratios': _Floats((0.5, 1.0, 2.0), doc='anchor height / width ratios'),
        'feature_stride': Param('int', 16, doc='image pixels per feature-map cell', low=1),
        'output_score': Param('bool', False, doc='also output each box score'),
        'iou_loss': Param('bool', False, doc='deltas move the corners (not centre and log-size)'),
    }
    single_image = False

    def inputs(self, p):
        return ['cls_prob', 'bbox_pred', 'im_info']

    def outputs(self, p):
        return ['output', 'score']

    def visible_outputs(self, p):
        return 2 if p.output_score else 1

    def backward_reads(self, p):
        return [], []                      # the gradient is 0: only shapes

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        cls_prob, bbox_pred, im_info = in_shapes
        anchors = len(p.scales) * len(p.ratios)
        _check_ndim(self.name, 'cls_prob', cls_prob, 4, '(batch, 2*anchors, height, width)')
        _check_ndim(self.name, 'bbox_pred', bbox_pred, 4, '(batch, 4*anchors, height, width)')
        if cls_prob is not None and cls_prob[1] and cls_prob[1] != 2 * anchors:
            raise ShapeError('%s: input %r needs 2 * len(scales) * len(ratios) = %d channels, got shape %s'
                             % (self.name, 'cls_prob', 2 * anchors, _fmt_shape(cls_prob)))
        if cls_prob is not None and self.single_image and cls_prob[0] not in (0, 1):
            raise ShapeError('%s: takes one image; input %r has shape %s (use MultiProposal for a batch)'
                             % (self.name, 'cls_prob', _fmt_shape(cls_prob)))
        if cls_prob is None:
            return [cls_prob, bbox_pred, im_info], list(out_shapes), aux_shapes
        batch, _, height, width = cls_prob
        bbox_pred = merge_shape(bbox_pred, (batch, 4 * anchors, height, width),
                                '%s: input bbox_pred (batch, 4*anchors, height, width)' % self.name)
        im_info = merge_shape(im_info, (batch, 3), '%s: input im_info (batch, 3: height, width, scale)' % self.name)
        rows = batch * p.rpn_post_nms_top_n
        out = merge_shape(out_shapes[0], (rows, 5), '%s: output' % self.name)
        score = merge_shape(out_shapes[1], (rows, 1), '%s: score' % self.name)
        return [cls_prob, bbox_pred, im_info], [out, score], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        f32 = np.dtype(np.float32)
        return [f32] * 3, [f32, f32], []

    def _image(self, p, anchors, scores, deltas, info):
        """(post_nms_top_n, 4) boxes and their scores for one image."""
        n_anchors, height, width = scores.shape
        stride = p.feature_stride
        # every anchor at every cell, ordered (row, column, anchor)
        shift_x = np.arange(width, dtype=_F32)[None, :, None] * _F32(stride)
        shift_y = np.arange(height, dtype=_F32)[:, None, None] * _F32(stride)
        shifts = np.stack(np.broadcast_arrays(shift_x, shift_y, shift_x, shift_y), axis=-1)   # (H, W, 1, 4)
        boxes = (anchors[None, None] + shifts).reshape(-1, 4)
        score = scores.transpose(1, 2, 0).reshape(-1).copy()
        deltas = deltas.reshape(n_anchors, 4, height, width).transpose(2, 3, 0, 1).reshape(-1, 4)
        im_h, im_w, im_scale = (_F32(v) for v in info)
        boxes = _apply_deltas(p, boxes, deltas, im_h, im_w)
        # cells of the padding beyond the real image
        real_h, real_w = int(im_h / _F32(stride)), int(im_w / _F32(stride))
        if height < real_h or width < real_w:
            raise ShapeError('%s: im_info says the image is %s x %s pixels, more than the %d x %d feature map '
                             'covers at feature_stride %d' % (self.name, im_h, im_w, height, width, stride))
        cell_row = np.repeat(np.arange(height), width * n_anchors)
        cell_col = np.tile(np.repeat(np.arange(width), n_anchors), height)
        score[(cell_row >= real_h) | (cell_col >= real_w)] = -1
        # boxes too small are not dropped: they get score -1 and are grown by min_size
        min_size = _F32(p.rpn_min_size) * im_scale
        small = ((boxes[:, 2] - boxes[:, 0] + _F32(1) < min_size)
                 | (boxes[:, 3] - boxes[:, 1] + _F32(1) < min_size))
        grow = np.where(small, min_size / _F32(2), _F32(0))
        boxes = boxes + np.stack([-grow, -grow, grow, grow], axis=1)
        score[small] = -1
        count = len(score)
        pre = min(p.rpn_pre_nms_top_n if p.rpn_pre_nms_top_n > 0 else count, count)
        # MXNet's sort is not stable: boxes of equal score may come in another order there
        order = np.argsort(-score, kind='stable')[:pre]
        boxes, score = boxes[order], score[order]
        keep = _suppress(boxes, _F32(p.threshold), min(p.rpn_post_nms_top_n, pre))
        # fewer boxes than asked for: the kept ones again, in turn
        keep = keep[np.arange(p.rpn_post_nms_top_n) % len(keep)]
        return boxes[keep], score[keep]

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        _, (out_shape, score_shape), _ = self.infer_shape(p, [tuple(x.shape) for x in inputs], [None, None], [])
        # the greedy suppression decides box by box: it runs on the host, as MXNet's CPU code does
        cls_prob, bbox_pred, im_info = (to_host(x).astype(_F32) for x in inputs)
        n_anchors = len(p.scales) * len(p.ratios)
        anchors = _anchors(p)
        out = np.zeros(out_shape, dtype=_F32)
        scores = np.zeros(score_shape, dtype=_F32)
        post = p.rpn_post_nms_top_n
        for b in range(cls_prob.shape[0]):
            boxes, score = self._image(p, anchors, cls_prob[b, n_anchors:], bbox_pred[b], im_info[b])
            out[b * post:(b + 1) * post, 0] = b
            out[b * post:(b + 1) * post, 1:] = boxes
            scores[b * post:(b + 1) * post, 0] = score
        return [xp.asarray(out), xp.asarray(scores)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        # MXNet defines the gradient as zero everywhere
        return [env.xp.zeros_like(x) for x in inputs]


@register
class Proposal(_ProposalBase):
    """Region proposals of a region proposal network (Faster R-CNN), for one image.

    cls_prob (1, 2A, H, W) holds background then foreground scores of the A = len(ratios)
    * len(scales) anchors at every feature-map cell, bbox_pred (1, 4A, H, W) the
    predicted box deltas, im_info (1, 3) the image's height, width and scale.  Every
    anchor is moved by its deltas and clipped to the image; boxes on cells past the
    image (padding) or smaller than ``rpn_min_size * scale`` get score -1; the
    ``rpn_pre_nms_top_n`` best are suppressed greedily (IoU above ``threshold``) and the
    first ``rpn_post_nms_top_n`` survivors output as rows ``[batch index, x1, y1, x2, y2]``
    (cycling through them when fewer survive), with their scores as the second output
    when ``output_score``.  The gradient is zero.
    """
    name = '_contrib_Proposal'
    single_image = True


@register
class MultiProposal(_ProposalBase):
    """Proposal for a batch of images: each image's ``rpn_post_nms_top_n`` rows in turn."""
    name = '_contrib_MultiProposal'


# =====================================================================
# ModulatedDeformableConvolution (deformable convolution v2)
# =====================================================================

@register
class ModulatedDeformableConvolution(DeformableConvolution):
    """Deformable convolution v2: every moved kernel tap is also scaled by a learned mask.

    Inputs as DeformableConvolution plus mask (N, num_deformable_group * kh * kw, out_h,
    out_w), one factor (usually a sigmoid in [0, 1]) per group, tap and output position:
    a tap that is not useful can be turned down rather than only moved.

    The bilinear read differs from v1's, as in MXNet 1.9.1: a tap reads 0 unless its
    position is strictly inside (-1, H) x (-1, W), and each of its four neighbouring
    pixels that lies outside the map counts as 0 (zero padding), with no clamping onto
    the last row or column.  Interpolation weights use the absolute position.  The
    gradient is the exact derivative of that read: data and offset get the mask-weighted
    gradient of the samples, the mask the sum over its channels of the unmasked samples
    times their column gradient.  (MXNet 1.9.1 computes this gradient on GPUs only; its
    CPU backward stops with "only implemented in GPU".)
    """
    name = '_contrib_ModulatedDeformableConvolution'
    params = dict(DeformableConvolution.params,
                  im2col_step=Param('int', 64, doc='images per im2col step in MXNet; unused here', low=1))

    def inputs(self, p):
        return ['data', 'offset', 'mask', 'weight'] + ([] if p.no_bias else ['bias'])

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        if p.num_filter % p.num_deformable_group:
            # (v1 has no such rule; MXNet 1.9.1 checks it for v2 alone, and so does reflib)
            raise ParamError('%s: num_filter (%d) must be a multiple of num_deformable_group (%d)'
                             % (self.name, p.num_filter, p.num_deformable_group))
        data, offset, mask = in_shapes[:3]
        rest = [data, offset] + list(in_shapes[3:])
        _check_ndim(self.name, 'mask', mask, 4, '(batch, groups*kh*kw, out_height, out_width)')
        ins, outs, aux_shapes = DeformableConvolution.infer_shape(self, p, rest, out_shapes, aux_shapes)
        if ins[1] is not None:
            batch, taps2, out_h, out_w = ins[1]
            mask = merge_shape(mask, (batch, taps2 // 2, out_h, out_w),
                               '%s: input mask (batch, num_deformable_group*kh*kw, out_height, out_width)'
                               % self.name)
        return ins[:2] + [mask] + ins[2:], outs, aux_shapes

    def _taps(self, p, xp, data, offset):
        """Per kernel tap k: (k, corners), corners four (flat pixel index, weight, d weight/d row,
        d weight/d col) of shape (N, groups, 1, out_h * out_w): the zero-padded bilinear read
        of v2 (see the class doc), without the mask."""
        (kh, kw), (sh, sw), (dh, dw), (ph, pw) = self._geometry(p)
        n_batch, _, height, width = data.shape
        out_h, out_w = offset.shape[2:]
        t = data.dtype.type
        moves = offset.reshape(n_batch, p.num_deformable_group, kh * kw, 2, out_h * out_w)
        base_h = ((xp.arange(out_h) * sh - ph)[:, None] + xp.zeros((1, out_w), dtype=np.int64)).reshape(-1)
        base_w = ((xp.arange(out_w) * sw - pw)[None, :] + xp.zeros((out_h, 1), dtype=np.int64)).reshape(-1)
        for k in range(kh * kw):
            i, j = divmod(k, kw)
            pos_h = (base_h + i * dh).astype(data.dtype) + moves[:, :, k, 0]
            pos_w = (base_w + j * dw).astype(data.dtype) + moves[:, :, k, 1]
            inside = (pos_h > -1) & (pos_w > -1) & (pos_h < height) & (pos_w < width)
            h_lo, w_lo = xp.floor(pos_h).astype(np.int64), xp.floor(pos_w).astype(np.int64)
            frac_h, frac_w = pos_h - h_lo.astype(data.dtype), pos_w - w_lo.astype(data.dtype)
            corners = []
            # (rows, weight along rows, its derivative by the row position), then the same for columns
            for rows, row_w, row_d in ((h_lo, 1 - frac_h, t(-1)), (h_lo + 1, frac_h, t(1))):
                for cols, col_w, col_d in ((w_lo, 1 - frac_w, t(-1)), (w_lo + 1, frac_w, t(1))):
                    # a neighbour outside the map reads 0: its weight (and slope) is dropped
                    real = inside & (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
                    keep = real.astype(data.dtype)
                    index = xp.where(real, rows * width + cols, 0)
                    corners.append((index[:, :, None], (row_w * col_w * keep)[:, :, None],
                                    (row_d * col_w * keep)[:, :, None], (row_w * col_d * keep)[:, :, None]))
            yield k, corners

    def _samples(self, p, xp, data, offset):
        """The unmasked deformable im2col matrix, (N, groups, C/groups, kh*kw, out_h*out_w)."""
        n_batch, channels = data.shape[:2]
        groups = p.num_deformable_group
        return self._columns(p, xp, data, offset).reshape(n_batch, groups, channels // groups,
                                                          p.kernel[0] * p.kernel[1], -1)

    def forward(self, p, env, inputs, aux):
        xp, data, offset, mask, weight = env.xp, inputs[0], inputs[1], inputs[2], inputs[3]
        _, (out_shape,), _ = self.infer_shape(p, [tuple(x.shape) for x in inputs], [None], [])
        n_batch = data.shape[0]
        g = p.num_group
        masks = mask.reshape(n_batch, p.num_deformable_group, 1, p.kernel[0] * p.kernel[1], -1)
        cols = (self._samples(p, xp, data, offset) * masks).reshape(n_batch, g, -1, out_shape[2] * out_shape[3])
        out = xp.matmul(weight.reshape(g, p.num_filter // g, -1)[None], cols).reshape(out_shape)
        if not p.no_bias:
            out += inputs[4].reshape(1, -1, 1, 1)
        return [out]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, offset, mask, weight = env.xp, inputs[0], inputs[1], inputs[2], inputs[3]
        n_batch = data.shape[0]
        g, groups, taps = p.num_group, p.num_deformable_group, p.kernel[0] * p.kernel[1]
        grad = out_grads[0].reshape(n_batch, g, p.num_filter // g, -1)
        kernels = weight.reshape(g, p.num_filter // g, -1)
        masks = mask.reshape(n_batch, groups, 1, taps, -1)
        samples = self._samples(p, xp, data, offset)
        cols = (samples * masks).reshape(n_batch, g, kernels.shape[2], -1)
        d_weight = xp.matmul(grad, cols.transpose(0, 1, 3, 2)).sum(axis=0).reshape(weight.shape)
        d_cols = xp.matmul(kernels.transpose(0, 2, 1)[None], grad).reshape(samples.shape)
        d_mask = (d_cols * samples).sum(axis=2).reshape(mask.shape)
        # past the mask, the columns' gradient is the v1 one scaled by each tap's mask
        d_data, d_offset = self._sampling_grads(p, xp, data, offset, d_cols * masks)
        grads = [d_data, d_offset, d_mask, d_weight]
        if not p.no_bias:
            grads.append(out_grads[0].sum(axis=(0, 2, 3)))
        return grads
