"""Resizing images as OpenCV's ``cv::resize`` does it, number for number.

MXNet 1.9.1 resizes images (``_image_resize``, ``_cvimresize``, so ``mx.image.imresize`` and
the Gluon transforms) by calling the OpenCV 3.4.2 it is built with.  This module recomputes
that function in array code over ``xp`` (numpy or cupy): no operator is registered here.

Images are ``(..., H, W, C)`` arrays; every leading axis is one more image (a batch).  The
interpolations are OpenCV's codes:

====  =============  ===========================================================
0     nearest        the pixel at ``floor(x * src / dst)``
1     bilinear       pixel centres aligned: ``x_src = (x + 0.5) * src / dst - 0.5``
2     bicubic        the same centres, 4 taps, Keys' kernel with ``A = -0.75``
3     area           shrinking: each output is the mean of the source area it covers;
                     enlarging: bilinear with weights that keep pixel edges sharp
4     Lanczos        the same centres, 8 taps of a windowed sinc
5     bilinear,      bilinear in 8-bit fixed point, exact on every machine (OpenCV's
      bit-exact      INTER_LINEAR_EXACT); float images get plain bilinear
====  =============  ===========================================================

Why the numbers agree: OpenCV separates the work into a horizontal pass over the source rows
and a vertical pass over those results, with per-output-pixel tables of source positions and
weights.  Both passes are reproduced here with OpenCV's arithmetic, in the same types and the
same order of summation:

* 8-bit images use fixed point: weights are rounded to 11 bits (``* 2048``), the horizontal
  pass sums integers, and the vertical pass rounds the result back to 8 bits (bilinear with
  OpenCV's SIMD formula, which drops bits before multiplying; bicubic in float32 for the
  first multiple of 8 values of a row, which its SIMD code covers, and in integers after);
* float32 images are summed in float32, float64 images in float64 with float32 weights;
* a bilinear shrink by exactly 2 in both directions is turned into the area mean, as
  OpenCV does, and an area shrink by whole factors sums blocks (8-bit: ``(sum + 2) >> 2``
  for 2 x 2 blocks).

Checked against MXNet 1.9.1 on 1500 random cases (sizes 1 to 120, 1 to 4 channels, every
interpolation and type): identical bytes in every one.  tests/test_op_image.py keeps a
sweep of them.
"""

import math

import numpy as np

__all__ = ['resize', 'INTERPOLATIONS', 'SUPPORTED_DTYPES']

INTERPOLATIONS = {0: 'nearest', 1: 'bilinear', 2: 'bicubic', 3: 'area', 4: 'lanczos', 5: 'bilinear (bit-exact)'}
# the types MXNet's OpenCV resizes correctly (int32 and int64 crash or give garbage there)
SUPPORTED_DTYPES = ('uint8', 'float32', 'float64')

_COEF_BITS = 11                 # OpenCV's INTER_RESIZE_COEF_BITS: 8-bit weights are x 2048
_ONE = 1 << _COEF_BITS
_F32 = np.float32


def resize(xp, img, width, height, interp):
    """``img`` (..., H, W, C) of uint8, float32 or float64, resized to (..., height, width, C)."""
    h, w = img.shape[-3], img.shape[-2]
    if (h, w) == (height, width):
        return img.copy()                      # OpenCV copies when nothing changes
    # OpenCV's scales, in its double arithmetic: the source step per output pixel
    inv_x, inv_y = width / w, height / h
    scale_x, scale_y = 1.0 / inv_x, 1.0 / inv_y
    fixed = img.dtype == np.uint8
    if interp == 0:
        return _nearest(xp, img, scale_x, scale_y, width, height)
    if interp == 5:
        if fixed:
            return _bit_exact_linear(xp, img, scale_x, scale_y, width, height)
        interp = 1
    whole_x, whole_y = _whole(scale_x), _whole(scale_y)
    if interp == 1 and whole_x == 2 and whole_y == 2:
        interp = 3                             # OpenCV: a 2 x 2 bilinear shrink is the area mean
    if interp == 3 and scale_x >= 1 and scale_y >= 1:
        if whole_x and whole_y:
            return _area_blocks(xp, img, whole_x, whole_y)
        return _area_shrink(xp, img, scale_x, scale_y, width, height)
    ksize = {1: 2, 3: 2, 2: 4, 4: 8}[interp]
    area = interp == 3                         # an area enlargement: bilinear, sharper weights
    x_idx, x_w = _taps(xp, w, width, scale_x, inv_x, interp, ksize, area, clamp_weights=True)
    y_idx, y_w = _taps(xp, h, height, scale_y, inv_y, interp, ksize, area, clamp_weights=False)
    if fixed:
        # weights rounded one by one (they need not add up to 2048 for bicubic and Lanczos)
        x_w = xp.rint(x_w * _F32(_ONE)).astype(np.int64)
        y_w = xp.rint(y_w * _F32(_ONE)).astype(np.int64)
        rows = _weighted_sum(xp, img.astype(np.int64), -2, x_idx, x_w)
        return _vertical_fixed(xp, rows, y_idx, y_w, ksize)
    # float images: the weights are float32; float64 images widen them and sum in float64
    work = img.dtype
    rows = _weighted_sum(xp, img, -2, x_idx, x_w.astype(work))
    return _weighted_sum(xp, rows, -3, y_idx, y_w.astype(work)).astype(img.dtype, copy=False)


def _whole(scale):
    """``scale`` as an int where it is one (OpenCV's test: within DBL_EPSILON), else 0."""
    rounded = int(round(scale))
    return rounded if abs(scale - rounded) < np.finfo(np.float64).eps else 0


def _take(xp, a, axis, index):
    """``a`` gathered along ``axis`` (-2: columns, -3: rows) at the integer array ``index``."""
    return xp.take(a, index, axis=a.ndim + axis)


def _along(weights, axis, ndim):
    """A 1-d per-output weight reshaped to broadcast along ``axis`` of an ndim-d image."""
    shape = [1] * ndim
    shape[ndim + axis] = -1
    return weights.reshape(shape)


def _weighted_sum(xp, a, axis, index, weights):
    """``sum_k a[index[:, k]] * weights[:, k]`` along ``axis``, added left to right as
    OpenCV does (the first term alone, then one more each time)."""
    total = None
    for k in range(index.shape[1]):
        term = _take(xp, a, axis, index[:, k]) * _along(weights[:, k], axis, a.ndim)
        total = term if total is None else total + term
    return total


# ================================================================ nearest
def _nearest(xp, img, scale_x, scale_y, width, height):
    # OpenCV's resizeNN: floor(x / (dst / src)), the last pixel for positions past it
    cols = xp.minimum(xp.floor(xp.arange(width, dtype=np.float64) * scale_x).astype(np.int64), img.shape[-2] - 1)
    rows = xp.minimum(xp.floor(xp.arange(height, dtype=np.float64) * scale_y).astype(np.int64), img.shape[-3] - 1)
    return _take(xp, _take(xp, img, -2, cols), -3, rows)


# ================================================================ the tap tables
def _taps(xp, src, dst, scale, inv_scale, interp, ksize, area, clamp_weights):
    """Source indices and float32 weights, both (dst, ksize), of every output position.

    As OpenCV computes them: the position ``(d + 0.5) * scale - 0.5`` rounded to float32, its
    floor and fraction; an area enlargement uses the fraction of the output pixel past a
    source pixel edge instead.  Across (``clamp_weights``), bilinear positions left of the
    first pixel centre or right of the last take that edge pixel whole; indices outside the
    image repeat the edge pixel (OpenCV's border replication)."""
    d = xp.arange(dst, dtype=np.float64)
    if area:
        first = xp.floor(d * scale)
        frac = ((d + 1) - (first + 1) * inv_scale).astype(_F32)
        frac = xp.where(frac <= 0, _F32(0), frac - xp.floor(frac))
    else:
        pos = ((d + 0.5) * scale - 0.5).astype(_F32)
        first = xp.floor(pos)
        frac = pos - first
    first = first.astype(np.int64)
    if clamp_weights and ksize == 2:
        before, beyond = first < 0, first >= src - 1
        frac = xp.where(before | beyond, _F32(0), frac)
        first = xp.where(before, 0, xp.where(beyond, src - 1, first))
    if ksize == 2:
        weights = xp.stack([_F32(1) - frac, frac], axis=1)
    elif ksize == 4:
        weights = _cubic_weights(xp, frac)
    else:
        weights = _lanczos_weights(xp, frac)
    offsets = xp.arange(ksize, dtype=np.int64) - (ksize // 2 - 1)
    index = xp.clip(first[:, None] + offsets[None, :], 0, src - 1)
    return index, weights


def _cubic_weights(xp, x):
    """Keys' cubic kernel at distances ``x + 1, x, 1 - x, 2 - x`` (A = -0.75), in float32 as
    OpenCV writes it; the last weight is what makes the four add up to one."""
    a = _F32(-0.75)
    one = _F32(1)
    x1, mx = x + one, one - x
    w0 = ((a * x1 - _F32(5) * a) * x1 + _F32(8) * a) * x1 - _F32(4) * a
    w1 = ((a + _F32(2)) * x - (a + _F32(3))) * x * x + one
    w2 = ((a + _F32(2)) * mx - (a + _F32(3))) * mx * mx + one
    w3 = one - w0 - w1 - w2
    return xp.stack([w0, w1, w2, w3], axis=1)


def _lanczos_weights(xp, x):
    """The Lanczos-4 window at the 8 taps around ``x``, normalised to add up to one.

    OpenCV evaluates ``sin(y) sin(y / 4) / y^2`` (up to a constant) by rotating one sine and
    cosine pair through the eight taps (in float64), rounds each weight to float32, sums
    them in float32 and multiplies by the float32 reciprocal; at x = 0 it is the pixel."""
    s45 = 0.70710678118654752440084436210485
    rotations = [(1, 0), (-s45, -s45), (0, 1), (s45, -s45), (-1, 0), (s45, s45), (0, -1), (-s45, s45)]
    # the distances are float32 sums (x + 3 - i), the angles float64
    y0 = -(x + _F32(3)).astype(np.float64) * math.pi * 0.25
    s0, c0 = xp.sin(y0), xp.cos(y0)
    raw = []
    for i, (cs, cc) in enumerate(rotations):
        y = -(x + _F32(3) - _F32(i)).astype(np.float64) * math.pi * 0.25
        with np.errstate(divide='ignore', invalid='ignore'):
            raw.append(((cs * s0 + cc * c0) / (y * y)).astype(_F32))
    total = raw[0]
    for r in raw[1:]:
        total = total + r
    with np.errstate(divide='ignore', invalid='ignore'):      # x = 0, replaced below
        norm = _F32(1) / total
        weights = xp.stack([r * norm for r in raw], axis=1)
    # OpenCV: below FLT_EPSILON the position is the pixel itself
    at_pixel = (xp.arange(8) == 3).astype(_F32)
    return xp.where((x < np.finfo(_F32).eps)[:, None], at_pixel[None, :], weights)


# ================================================================ 8-bit vertical pass
def _vertical_fixed(xp, rows, y_idx, y_w, ksize):
    """The vertical pass over 8-bit images' integer rows (pixel x 2048), to uint8."""
    taps = [_take(xp, rows, -3, y_idx[:, k]) for k in range(ksize)]
    beta = [_along(y_w[:, k], -3, rows.ndim) for k in range(ksize)]
    if ksize == 2:
        # OpenCV's SIMD formula: 4 bits dropped from each row, the product's high 16 bits
        # kept, the two added and 2 more bits rounded off
        out = (((taps[0] >> 4) * beta[0] >> 16) + ((taps[1] >> 4) * beta[1] >> 16) + 2) >> 2
        return xp.clip(out, 0, 255).astype(np.uint8)
    exact = _weighted_sum_list(taps, beta)
    out = (exact + (1 << (2 * _COEF_BITS - 1))) >> (2 * _COEF_BITS)
    if ksize == 4:
        # OpenCV's SIMD code covers the first multiple of 8 values of each output row (all
        # channels together) in float32, the weights scaled to one beforehand; the rest of
        # the row takes the integer formula above
        scale = _F32(1.0 / (_ONE * _ONE))
        approx = _weighted_sum_list([t.astype(_F32) for t in taps], [b.astype(_F32) * scale for b in beta])
        approx = xp.rint(approx).astype(np.int64)
        row_len = rows.shape[-2] * rows.shape[-1]
        position = xp.arange(row_len, dtype=np.int64).reshape(rows.shape[-2:])
        out = xp.where(position < row_len // 8 * 8, approx, out)
    return xp.clip(out, 0, 255).astype(np.uint8)


def _weighted_sum_list(values, weights):
    total = values[0] * weights[0]
    for v, b in zip(values[1:], weights[1:]):
        total = total + v * b
    return total


# ================================================================ area
def _area_blocks(xp, img, fx, fy):
    """A shrink by whole factors: the mean of each fx x fy block (OpenCV's fast area path)."""
    h, w = img.shape[-3] // fy, img.shape[-2] // fx
    # (..., h, fy, w, fx, C): the block's pixels in OpenCV's order, row by row
    blocks = img[..., :h * fy, :w * fx, :].reshape(img.shape[:-3] + (h, fy, w, fx, img.shape[-1]))
    pixels = [blocks[..., :, sy, :, sx, :] for sy in range(fy) for sx in range(fx)]
    if img.dtype == np.uint8:
        total = pixels[0].astype(np.int64)
        for p in pixels[1:]:
            total = total + p
        if fx == 2 and fy == 2 and img.shape[-1] in (1, 3, 4):
            return ((total + 2) >> 2).astype(np.uint8)
        mean = total.astype(_F32) * _F32(1.0 / (fx * fy))
        return xp.clip(xp.rint(mean), 0, 255).astype(np.uint8)
    if img.dtype == np.float32 and fx == 2 and fy == 2 and img.shape[-1] in (1, 4):
        # OpenCV's SIMD code for this case pairs the terms differently; it covers the first
        # multiple of 4 values of each output row
        paired = ((pixels[0] + pixels[1]) + (pixels[2] + pixels[3])) * _F32(0.25)
        serial = (((pixels[0] + pixels[1]) + pixels[2]) + pixels[3]) * _F32(0.25)
        row_len = w * img.shape[-1]
        position = xp.arange(row_len, dtype=np.int64).reshape(w, img.shape[-1])
        return xp.where(position < row_len // 4 * 4, paired, serial)
    # OpenCV adds the block's pixels four at a time, each group summed first
    total = None
    for start in range(0, len(pixels), 4):
        group = pixels[start]
        for p in pixels[start + 1:start + 4]:
            group = group + p
        total = group if total is None else total + group
    scale = _F32(1.0 / (fx * fy))
    return total * (scale if img.dtype == np.float32 else img.dtype.type(scale))


def _area_table(xp, src, dst, scale):
    """OpenCV's area weights as a (dst, K) table: each output covers source cells
    ``[d * scale, (d + 1) * scale)``, weighted by the part of each cell it covers, divided by
    the covered width.  Slot k holds source pixel ``ceil(d * scale) - 1 + k``; slots outside
    the covered range have weight 0 and are skipped."""
    d = xp.arange(dst, dtype=np.float64)
    start = d * scale
    stop = start + scale
    cell = xp.minimum(scale, src - start)
    first = xp.ceil(start).astype(np.int64)
    last = xp.minimum(xp.floor(stop).astype(np.int64), src - 1)
    first = xp.minimum(first, last)
    slots = int(math.ceil(scale)) + 2
    k = xp.arange(slots, dtype=np.int64)[None, :]
    pixel = first[:, None] - 1 + k
    lead = (first - start) > 1e-3                       # a partly covered cell on the left
    tail = (stop - last) > 1e-3                         # ... and on the right
    full = ((pixel >= first[:, None]) & (pixel < last[:, None])).astype(np.float64) / cell[:, None]
    left = xp.where((k == 0) & lead[:, None], ((first - start) / cell)[:, None], 0.0)
    right_part = xp.minimum(xp.minimum(stop - last, 1.0), cell) / cell
    right = xp.where((pixel == last[:, None]) & tail[:, None], right_part[:, None], 0.0)
    weights = (full + left + right).astype(_F32)
    return xp.clip(pixel, 0, src - 1), weights


def _area_shrink(xp, img, scale_x, scale_y, width, height):
    """A shrink by other factors: OpenCV's weighted area sums, in float32 (float64 for
    float64 images), horizontally then vertically, each in source order."""
    work = np.float64 if img.dtype == np.float64 else _F32
    x_idx, x_w = _area_table(xp, img.shape[-2], width, scale_x)
    y_idx, y_w = _area_table(xp, img.shape[-3], height, scale_y)
    src = img.astype(work)
    rows = _skipping_sum(xp, src, -2, x_idx, x_w.astype(work))
    out = _skipping_sum(xp, rows, -3, y_idx, y_w.astype(work))
    if img.dtype == np.uint8:
        return xp.clip(xp.rint(out), 0, 255).astype(np.uint8)
    return out.astype(img.dtype, copy=False)


def _skipping_sum(xp, a, axis, index, weights):
    """``_weighted_sum`` over the slots with a weight only (a zero-weight slot adds nothing,
    not even ``0 * inf``)."""
    total = xp.zeros_like(_take(xp, a, axis, index[:, 0]))
    for k in range(index.shape[1]):
        wk = _along(weights[:, k], axis, a.ndim)
        total = xp.where(wk != 0, total + _take(xp, a, axis, index[:, k]) * wk, total)
    return total


# ================================================================ bit-exact bilinear
def _exact_taps(xp, src, dst, scale):
    """OpenCV's INTER_LINEAR_EXACT tables: first index, the second weight in 8-bit fixed
    point (the first is 256 minus it), and which outputs lie on an edge (the edge pixel)."""
    d = xp.arange(dst, dtype=np.float64)
    pos = scale * (d + 0.5) - 0.5
    first = xp.floor(pos).astype(np.int64)
    inside = (first >= 0) & (first < src - 1) if src > 1 else xp.zeros(dst, dtype=bool)
    frac = xp.rint((pos - first) * 256).astype(np.int64)
    # before the first centre: pixel 0; past the last: the last pixel
    edge = xp.where(first < 0, 0, src - 1)
    first = xp.where(inside, first, edge)
    frac = xp.where(inside, frac, 0)
    return first, frac, inside


def _bit_exact_linear(xp, img, scale_x, scale_y, width, height):
    h, w = img.shape[-3], img.shape[-2]
    x0, x_frac, _ = _exact_taps(xp, w, width, scale_x)
    y0, y_frac, y_inside = _exact_taps(xp, h, height, scale_y)
    src = img.astype(np.int64)
    x1 = xp.minimum(x0 + 1, w - 1)
    # across: pixel x weight, 8 fractional bits (an edge output is its pixel x 256)
    rows = (_take(xp, src, -2, x0) * _along(256 - x_frac, -2, src.ndim)
            + _take(xp, src, -2, x1) * _along(x_frac, -2, src.ndim))
    y1 = xp.minimum(y0 + 1, h - 1)
    top, bottom = _take(xp, rows, -3, y0), _take(xp, rows, -3, y1)
    inner = (top * _along(256 - y_frac, -3, rows.ndim) + bottom * _along(y_frac, -3, rows.ndim)
             + (1 << 15)) >> 16
    edge_rows = (top + (1 << 7)) >> 8                 # an edge row: the row itself, rounded
    out = xp.where(_along(y_inside, -3, rows.ndim), inner, edge_rows)
    return xp.clip(out, 0, 255).astype(np.uint8)
