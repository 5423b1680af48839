"""Resampling images: UpSampling, GridGenerator, BilinearSampler, SpatialTransformer.

UpSampling repeats pixels (nearest) or is a fixed-shape Deconvolution (bilinear).
The other three are the pieces of a spatial transformer network: GridGenerator
turns an affine matrix or an optical flow into a sampling grid, BilinearSampler
reads the input at the grid's points, and SpatialTransformer is the two in one.

A grid holds, for every output pixel, the (x, y) point of the input to read, in
coordinates normalised to [-1, 1]: -1 is the first pixel's centre and 1 the last
one's, so ``x_pixel = (x + 1) * (width - 1) / 2``.  A point between pixels mixes
its four neighbours bilinearly; a neighbour outside the image counts as 0.
"""

import numpy as np

from .registry import Operator, Param, register, get
from ..shapes import merge_shape
from ..shapes import format_shape as _fmt_shape
from .common import scatter_add
from ..base import ShapeError, ParamError


# =====================================================================
# UpSampling
# =====================================================================

@register
class UpSampling(Operator):
    """Enlarge images by an integer ``scale``.

    ``nearest``: every pixel becomes a scale x scale block.  Several inputs may be
    given; each is enlarged to the first one's output size (its own scale is
    ``out_height / its height``) and the results are concatenated along the channels
    (``multi_input_mode='concat'``) or added (``'sum'``).

    ``bilinear``: one input and a weight; it is the Deconvolution with
    ``kernel = 2*scale - scale % 2``, ``stride = scale``, ``pad = ceil((scale-1)/2)``
    and one group per channel, so the weight is ``(channels, 1, kernel, kernel)``
    (MXNet initialises it with the ``bilinear`` initializer).  As in MXNet, the output
    has the data's channels whatever ``num_filter`` says; reflib refuses a non-zero
    ``num_filter`` that differs from them (MXNet accepts it and fails later).
    """
    name = 'UpSampling'
    key_var_num_args = 'num_args'
    params = {
        'scale': Param('int', doc='the enlargement factor', low=1),
        'num_filter': Param('int', 0, doc='bilinear only: the number of channels (0: the data\'s)', low=0),
        'sample_type': Param('enum', choices=('bilinear', 'nearest'), doc='how to fill the new pixels'),
        'multi_input_mode': Param('enum', 'concat', choices=('concat', 'sum'),
                                  doc='nearest only: join several inputs by channel, or add them'),
        'num_args': Param('int', doc='number of inputs (bilinear: data and weight)', low=1),
        'workspace': Param('int', 512, doc='scratch-memory limit in MB; unused here', low=0),
    }

    def inputs(self, p):
        if p.sample_type == 'bilinear':
            return ['data', 'weight']
        return ['arg%d' % i for i in range(p.num_args)]

    # ------------------------------------------------------------ bilinear
    def _deconv(self, p, channels):
        kernel = 2 * p.scale - p.scale % 2
        pad = (p.scale - 1 + 1) // 2                      # ceil((scale - 1) / 2)
        deconv = get('Deconvolution')
        return deconv, deconv.parse_params({
            'kernel': (kernel, kernel), 'stride': (p.scale, p.scale), 'pad': (pad, pad),
            'num_filter': channels, 'num_group': channels, 'no_bias': True})

    def _check_bilinear(self, p, data):
        if len(data) != 4:
            raise ShapeError('%s: input %r must be 4-d (batch, channel, height, width), got shape %s'
                             % (self.name, 'data', _fmt_shape(data)))
        if p.num_filter and data[1] and p.num_filter != data[1]:
            raise ShapeError('%s: bilinear upsampling keeps the channels: num_filter=%d must equal the %d '
                             'channels of input %r (shape %s)'
                             % (self.name, p.num_filter, data[1], 'data', _fmt_shape(data)))

    # -------------------------------------------------------------- shapes
    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        if p.sample_type == 'bilinear':
            if p.num_args > 2:
                raise ParamError('%s: bilinear upsampling takes one data input and a weight (num_args 1 or 2), '
                                 'got num_args=%d' % (self.name, p.num_args))
            data, out = in_shapes[0], out_shapes[0]
            channels = p.num_filter
            if data is not None:
                self._check_bilinear(p, data)
                channels = data[1]
                out = merge_shape(out, (data[0], data[1], data[2] * p.scale, data[3] * p.scale),
                                  '%s: output' % self.name)
            kernel = 2 * p.scale - p.scale % 2
            weight = merge_shape(in_shapes[1], (channels, 1, kernel, kernel), '%s: input weight' % self.name)
            return [data, weight], [out], aux_shapes
        return self._nearest_shapes(p, in_shapes, out_shapes), [self._nearest_out(p, in_shapes, out_shapes)], \
            aux_shapes

    def _nearest_shapes(self, p, in_shapes, out_shapes):
        first = in_shapes[0]
        for i, shape in enumerate(in_shapes):
            if shape is None:
                continue
            if len(shape) != 4:
                raise ShapeError('%s: input %r must be 4-d (batch, channel, height, width), got shape %s'
                                 % (self.name, 'arg%d' % i, _fmt_shape(shape)))
            if first is None or i == 0 or not all(first):
                continue
            oh, ow = first[2] * p.scale, first[3] * p.scale
            if shape[0] != first[0]:
                raise ShapeError('%s: input %r has batch size %d, input %r has %d'
                                 % (self.name, 'arg%d' % i, shape[0], 'arg0', first[0]))
            if oh % shape[2] or ow % shape[3] or oh // shape[2] != ow // shape[3]:
                # MXNet 1.9.1 checks only that the sizes divide, then fails in forward
                # unless both axes have the same scale
                raise ShapeError('%s: input %r of shape %s cannot be enlarged to the output size (%d, %d) '
                                 'by one whole scale for both axes' % (self.name, 'arg%d' % i,
                                                                      _fmt_shape(shape), oh, ow))
            if p.multi_input_mode == 'sum' and shape[1] != first[1]:
                raise ShapeError("%s: with multi_input_mode='sum' every input needs the %d channels of input "
                                 "%r, input %r has %d" % (self.name, first[1], 'arg0', 'arg%d' % i, shape[1]))
        return list(in_shapes)

    def _nearest_out(self, p, in_shapes, out_shapes):
        out = out_shapes[0]
        first = in_shapes[0]
        if first is None:
            return out
        if p.multi_input_mode == 'sum' or all(s is not None for s in in_shapes):
            channels = first[1] if p.multi_input_mode == 'sum' else sum(s[1] for s in in_shapes)
        else:
            channels = 0
        return merge_shape(out, (first[0], channels, first[2] * p.scale, first[3] * p.scale),
                           '%s: output' % self.name)

    # --------------------------------------------------------- computation
    def backward_reads(self, p):
        # nearest needs only the shapes; bilinear is a deconvolution of data with weight
        return ([0, 1], []) if p.sample_type == 'bilinear' else ([], [])

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        if p.sample_type == 'bilinear':
            self._check_bilinear(p, inputs[0].shape)
            deconv, dp = self._deconv(p, inputs[0].shape[1])
            return deconv.forward(dp, env, inputs, aux)
        shapes = [tuple(x.shape) for x in inputs]
        self._nearest_shapes(p, shapes, [None])
        out_shape = self._nearest_out(p, shapes, [None])
        out = xp.zeros(out_shape, dtype=inputs[0].dtype)
        begin = 0
        for x in inputs:
            scale = out_shape[2] // x.shape[2]
            n, c, h, w = x.shape
            big = xp.broadcast_to(x[:, :, :, None, :, None], (n, c, h, scale, w, scale)).reshape(
                (n, c, h * scale, w * scale))
            if p.multi_input_mode == 'sum':
                out += big
            else:
                out[:, begin:begin + c] = big
                begin += c
        return [out]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        if p.sample_type == 'bilinear':
            deconv, dp = self._deconv(p, inputs[0].shape[1])
            return deconv.backward(dp, env, out_grads, inputs, outputs, aux)
        grad, grads, begin = out_grads[0], [], 0
        for x in inputs:
            n, c, h, w = x.shape
            scale = grad.shape[2] // h
            part = grad if p.multi_input_mode == 'sum' else grad[:, begin:begin + c]
            begin += c
            # each input pixel's gradient is the sum over its scale x scale block
            grads.append(part.reshape(n, c, h, scale, w, scale).sum(axis=(3, 5)))
        return grads


# =====================================================================
# grids and bilinear sampling (shared by the three layers below)
# =====================================================================

def _check_target(op, target):
    if len(target) != 2 or min(target) < 2:
        # MXNet 1.9.1 refuses 0 and divides by zero for 1 (the grid step is 2 / (size-1))
        raise ParamError('%s: target_shape must be (height, width), each at least 2, got %s'
                         % (op, _fmt_shape(target)))
    return target


def affine_grid_dst(xp, height, width, dtype):
    """The output pixels in normalised coordinates, as rows x, y, 1: shape (3, height*width)."""
    t = xp.dtype(dtype).type
    xs = t(-1) + xp.arange(width, dtype=dtype) * t(2.0 / (width - 1))
    ys = t(-1) + xp.arange(height, dtype=dtype) * t(2.0 / (height - 1))
    grid = xp.ones((3, height, width), dtype=dtype)
    grid[0] = xs[None, :]
    grid[1] = ys[:, None]
    return grid.reshape(3, height * width)


class _Corners:
    """Where each grid point reads the input: its four neighbours and their weights.

    For data (N, C, H, W) and a grid (N, 2, h, w): ``flat[k]`` is neighbour k's
    index into a row-major (H, W) image (clipped into range), ``inside[k]`` whether
    it is in the image, ``weight[k]`` its bilinear weight; each is (N, 1, h*w), and k
    runs over top-left, top-right, bottom-left, bottom-right.  ``wx`` and ``wy`` are
    the top-left weights along each axis.
    """

    def __init__(self, xp, data_shape, grid):
        n, _, height, width = data_shape
        t = grid.dtype.type
        x = (grid[:, 0] + t(1)) * t(width - 1) / t(2)
        y = (grid[:, 1] + t(1)) * t(height - 1) / t(2)
        x0, y0 = xp.floor(x), xp.floor(y)
        self.wx = (t(1) - (x - x0)).reshape(n, 1, -1)
        self.wy = (t(1) - (y - y0)).reshape(n, 1, -1)
        x0 = x0.astype(xp.int64).reshape(n, 1, -1)
        y0 = y0.astype(xp.int64).reshape(n, 1, -1)
        self.flat, self.inside, self.weight = [], [], []
        for dy, dx in ((0, 0), (0, 1), (1, 0), (1, 1)):
            xi, yi = x0 + dx, y0 + dy
            self.inside.append((xi >= 0) & (xi <= width - 1) & (yi >= 0) & (yi <= height - 1))
            self.flat.append(xp.clip(yi, 0, height - 1) * width + xp.clip(xi, 0, width - 1))
            wy = self.wy if dy == 0 else t(1) - self.wy
            wx = self.wx if dx == 0 else t(1) - self.wx
            self.weight.append(wy * wx)
        self.batch = xp.arange(n).reshape(n, 1, 1)

    def values(self, xp, data):
        """Each neighbour's value, 0 outside the image: four (N, C, h*w) arrays."""
        n, c = data.shape[:2]
        image = data.reshape(n, c, -1)
        channel = xp.arange(c).reshape(1, c, 1)
        return [image[self.batch, channel, flat] * inside for flat, inside in zip(self.flat, self.inside)]


def bilinear_sample(xp, data, grid):
    """Read ``data`` (N, C, H, W) at ``grid`` (N, 2, h, w): the (N, C, h, w) result."""
    corners = _Corners(xp, data.shape, grid)
    values = corners.values(xp, data)
    out = sum(v * w for v, w in zip(values, corners.weight))
    return out.reshape(data.shape[:2] + grid.shape[2:]).astype(data.dtype, copy=False)


def bilinear_sample_grads(xp, data, grid, grad, want_data=True, want_grid=True):
    """(data gradient, grid gradient) of ``bilinear_sample`` for the output gradient ``grad``.

    The grid gradient is the exact derivative of the bilinear mix (MXNet's formula):
    with ``tl, tr, bl, br`` the neighbours' values (0 outside),
    ``d/dy = -(tr - br + (tl - tr - bl + br) * wx)`` summed over channels, times
    ``(H-1)/2``, and likewise for x.
    """
    n, c, height, width = data.shape
    corners = _Corners(xp, data.shape, grid)
    g = grad.reshape(n, c, -1)
    d_data = d_grid = None
    if want_data:
        d_image = xp.zeros((n, c, height * width), dtype=data.dtype)
        channel = xp.arange(c).reshape(1, c, 1)
        for flat, inside, weight in zip(corners.flat, corners.inside, corners.weight):
            index = (xp.broadcast_to(corners.batch, g.shape), xp.broadcast_to(channel, g.shape),
                     xp.broadcast_to(flat, g.shape))
            scatter_add(xp, d_image, index, g * (weight * inside))
        d_data = d_image.reshape(data.shape)
    if want_grid:
        tl, tr, bl, br = corners.values(xp, data)
        cross = tl - tr - bl + br
        t = grid.dtype.type
        dy = -(g * (tr - br + cross * corners.wx)).sum(axis=1) * (t(height - 1) / t(2))
        dx = -(g * (bl - br + cross * corners.wy)).sum(axis=1) * (t(width - 1) / t(2))
        d_grid = xp.stack([dx, dy], axis=1).reshape(grid.shape).astype(grid.dtype, copy=False)
    return d_data, d_grid


def _check_data4(op, data):
    if data is not None and len(data) != 4:
        raise ShapeError('%s: input %r must be 4-d (batch, channel, height, width), got shape %s'
                         % (op, 'data', _fmt_shape(data)))


# =====================================================================
# GridGenerator
# =====================================================================

@register
class GridGenerator(Operator):
    """A sampling grid (N, 2, H, W) for BilinearSampler.

    ``affine``: data (N, 6) is a 2x3 matrix per sample mapping each output pixel's
    normalised (x, y, 1) to the point to read; ``target_shape`` = (H, W) is required.
    ``warp``: data (N, 2, H, W) is an optical flow in pixels, added to each pixel's
    own position and normalised; ``target_shape`` is ignored.  The hidden second
    output ``grid_dst`` is the output pixels' own coordinates (MXNet's workspace):
    (3, H*W) for affine, (2, H, W) in pixels for warp.
    """
    eliminable = False
    name = 'GridGenerator'
    params = {
        'transform_type': Param('enum', choices=('affine', 'warp'), doc='what data holds'),
        'target_shape': Param('shape', (0, 0), doc='affine only: the output (height, width)', low=0),
    }

    def outputs(self, p):
        return ['output', 'grid_dst']

    def visible_outputs(self, p):
        return 1

    def backward_reads(self, p):
        return [], [1]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if p.transform_type == 'affine':
            height, width = _check_target(self.name, p.target_shape)
            data = merge_shape(data, (0, 6), '%s: input data (an affine matrix per sample)' % self.name)
            batch = data[0]
            out = merge_shape(out, (batch, 2, height, width), '%s: output' % self.name)
            data = merge_shape(data, (out[0], 6), '%s: input data' % self.name)
            return [data], [out, (3, height * width)], aux_shapes
        if data is not None and (len(data) != 4 or data[1] not in (0, 2)):
            raise ShapeError("%s: with transform_type='warp' input %r must be a flow (batch, 2, height, width), "
                             "got shape %s" % (self.name, 'data', _fmt_shape(data)))
        shape = merge_shape(data, out, '%s: output' % self.name)
        if shape is not None:
            _check_target(self.name, shape[2:])
        return [shape], [shape, None if shape is None else (2,) + tuple(shape[2:])], aux_shapes

    def forward(self, p, env, inputs, aux):
        xp, data = env.xp, inputs[0]
        self.infer_shape(p, [tuple(data.shape)], [None, None], [])
        t = data.dtype.type
        if p.transform_type == 'affine':
            height, width = p.target_shape
            grid_dst = affine_grid_dst(xp, height, width, data.dtype)
            out = xp.matmul(data.reshape(-1, 2, 3), grid_dst).reshape(-1, 2, height, width)
            return [out, grid_dst]
        n, _, height, width = data.shape
        grid_dst = xp.empty((2, height, width), dtype=data.dtype)
        grid_dst[0] = xp.arange(width, dtype=data.dtype)[None, :]
        grid_dst[1] = xp.arange(height, dtype=data.dtype)[:, None]
        half = _half_extent(xp, width, height, data.dtype)
        return [(data + grid_dst) / half - t(1), grid_dst]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, grad, grid_dst = env.xp, out_grads[0], outputs[1]
        if p.transform_type == 'affine':
            n = grad.shape[0]
            return [xp.matmul(grad.reshape(n, 2, -1), grid_dst.T).reshape(n, 6)]
        t = grad.dtype.type
        height, width = grad.shape[2:]
        return [grad / _half_extent(xp, width, height, grad.dtype)]


# =====================================================================
# BilinearSampler
# =====================================================================

@register
class BilinearSampler(Operator):
    """Read data (N, C, H, W) at the points of grid (N, 2, h, w): output (N, C, h, w).

    grid[:, 0] is x and grid[:, 1] is y, normalised to [-1, 1]; neighbours outside
    the image read as 0.  The hidden output ``tmp`` (N, h, w, 2) is MXNet's cuDNN
    scratch; reflib fills it with the grid in that layout.
    """
    eliminable = False
    name = 'BilinearSampler'
    params = {'cudnn_off': Param('bool_or_none', None, doc='unused here')}

    def inputs(self, p):
        return ['data', 'grid']

    def outputs(self, p):
        return ['output', 'tmp']

    def visible_outputs(self, p):
        return 1

    def backward_reads(self, p):
        return [0, 1], []

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, grid = in_shapes
        _check_data4(self.name, data)
        if grid is not None and (len(grid) != 4 or grid[1] != 2):
            raise ShapeError('%s: input %r must be (batch, 2, height, width), got shape %s'
                             % (self.name, 'grid', _fmt_shape(grid)))
        if data is None or grid is None:
            return [data, grid], list(out_shapes), aux_shapes
        if data[0] != grid[0]:
            raise ShapeError('%s: inputs %r (shape %s) and %r (shape %s) must have one batch size'
                             % (self.name, 'data', _fmt_shape(data), 'grid', _fmt_shape(grid)))
        out = merge_shape(out_shapes[0], tuple(data[:2]) + tuple(grid[2:]), '%s: output' % self.name)
        return [data, grid], [out, (grid[0], grid[2], grid[3], 2)], aux_shapes

    def forward(self, p, env, inputs, aux):
        xp, data, grid = env.xp, inputs[0], inputs[1]
        self.infer_shape(p, [tuple(data.shape), tuple(grid.shape)], [None, None], [])
        return [bilinear_sample(xp, data, grid), xp.ascontiguousarray(xp.moveaxis(grid, 1, -1))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return list(bilinear_sample_grads(env.xp, inputs[0], inputs[1], out_grads[0],
                                          env.wants_grad(0), env.wants_grad(1)))


# =====================================================================
# SpatialTransformer
# =====================================================================

@register
class SpatialTransformer(Operator):
    """GridGenerator (affine) and BilinearSampler in one: data (N, C, H, W) and loc (N, 6)
    give the (N, C, *target_shape) output.  The hidden outputs are the output pixels'
    normalised coordinates ``grid_dst`` (3, h*w) and the points read, ``grid_src``
    (N, 2, h*w)."""
    eliminable = False
    name = 'SpatialTransformer'
    params = {
        'target_shape': Param('shape', (0, 0), doc='the output (height, width)', low=0),
        'transform_type': Param('enum', choices=('affine',), doc='how loc maps output to input points'),
        'sampler_type': Param('enum', choices=('bilinear',), doc='how points between pixels are read'),
        'cudnn_off': Param('bool_or_none', None, doc='unused here'),
    }

    def inputs(self, p):
        return ['data', 'loc']

    def outputs(self, p):
        return ['output', 'grid_dst', 'grid_src']

    def visible_outputs(self, p):
        return 1

    def backward_reads(self, p):
        return [0], [1, 2]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        height, width = _check_target(self.name, p.target_shape)
        data, loc = in_shapes
        _check_data4(self.name, data)
        loc = merge_shape(loc, (0, 6), '%s: input loc (an affine matrix per sample)' % self.name)
        if data is not None and loc[0] and data[0] and data[0] != loc[0]:
            # MXNet 1.9.1 accepts it and reads past loc's end
            raise ShapeError('%s: inputs %r (shape %s) and %r (shape %s) must have one batch size'
                             % (self.name, 'data', _fmt_shape(data), 'loc', _fmt_shape(loc)))
        out = out_shapes[0]
        if data is not None:
            out = merge_shape(out, (data[0], data[1], height, width), '%s: output' % self.name)
            loc = merge_shape(loc, (data[0], 6), '%s: input loc' % self.name)
        return [data, loc], [out, (3, height * width), (loc[0], 2, height * width)], aux_shapes

    def forward(self, p, env, inputs, aux):
        xp, data, loc = env.xp, inputs[0], inputs[1]
        self.infer_shape(p, [tuple(data.shape), tuple(loc.shape)], [None] * 3, [])
        height, width = p.target_shape
        grid_dst = affine_grid_dst(xp, height, width, data.dtype)
        grid_src = xp.matmul(loc.reshape(-1, 2, 3), grid_dst)                # (N, 2, h*w)
        out = bilinear_sample(xp, data, grid_src.reshape(-1, 2, height, width))
        return [out, grid_dst, grid_src]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data = env.xp, inputs[0]
        grid_dst, grid_src = outputs[1], outputs[2]
        height, width = p.target_shape
        d_data, d_grid = bilinear_sample_grads(xp, data, grid_src.reshape(-1, 2, height, width), out_grads[0],
                                               env.wants_grad(0), env.wants_grad(1))
        d_loc = None
        if d_grid is not None:
            d_loc = xp.matmul(d_grid.reshape(-1, 2, height * width), grid_dst.T).reshape(-1, 6)
        return [d_data, d_loc]


def _half_extent(xp, width, height, dtype):
    """(1, 2, 1, 1): half the width and half the height, in ``dtype``, made on the device
    (scalars written in, not a host list copied over)."""
    t = np.dtype(dtype).type
    half = xp.empty((1, 2, 1, 1), dtype=dtype)
    half[0, 0] = t(width - 1) / t(2)
    half[0, 1] = t(height - 1) / t(2)
    return half
