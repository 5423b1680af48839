"""Image operators: ``mx.nd.image.*`` and ``mx.sym.image.*`` (``_image_*``), and ``_cvimresize``.

Images are laid out as MXNet's OpenCV reads them: (H, W, C) with channels last, or a batch
(N, H, W, C).  ``to_tensor`` turns them into the (C, H, W) float tensors networks take, which
``normalize`` works on.  What each operator takes:

=====================================  ==================================  =================
operator                               input                               gradient
=====================================  ==================================  =================
to_tensor                              (H, W, C) or (N, H, W, C), any C    transposed, / 255
normalize                              (C, H, W) or (N, C, H, W), C 1 or 3  divided by std
resize, _cvimresize (mx.image)         (H, W, C) or (N, H, W, C), any C    none
crop                                   (H, W, C) or (N, H, W, C), C 1 or 3  scattered back
flip_left_right, flip_top_bottom,      (H, W, C), C 1 or 3                 flipped back
random_flip_*
random_brightness, _contrast,          (H, W, C), C 1 or 3                 passed through
_saturation, _hue, _color_jitter,      (hue and lighting: C = 3)
adjust_lighting, random_lighting
=====================================  ==================================  =================

The colour operators compute in float32 (float64 images: their products and sums in
float64, each result rounded to float32, as MXNet's C++ does) and store in the image's
type, an integer type clamped to its range and truncated (MXNet's ``saturate_cast``).
Their gradient is the head gradient unchanged, as MXNet gives it (a straight-through
estimate).  Two of MXNet's slips are kept, so that the numbers agree: saturation blends
with ``0.114 * B`` rather than the luma, and the flips leave the middle column (row) of
an odd width (height) unwritten (reflib writes it).

Where reflib's numbers and MXNet 1.9.1's differ, on purpose:

* gradients: MXNet passes the head gradient through ``to_tensor``, the flips and the random
  flips unchanged (so a flipped image gets an unflipped gradient, and ``to_tensor``'s fails
  on its shape); reflib gives their true gradients.  MXNet's ``resize`` gradient fails the
  same way; reflib gives none (the executor refuses to bind through it).
* nonsense MXNet computes from uninitialised memory is refused or made sensible here:
  ``crop`` at a negative position, ``random_hue`` and lighting on one channel (refused),
  ``random_color_jitter`` with every strength 0 (the image, unchanged).

Random operators draw from reflib's generator of the context (``mx.random.seed``), so their
draws differ from MXNet's; the distributions are MXNet's (see each class).
"""

import ast

import numpy as np

from .registry import REQUIRED, Operator, Param, register
from .common import shape_str, is_numpy
from . import cv_resize
from ..base import MXNetError, ParamError, ShapeError, TypeInferError
from ..shapes import merge_shape

_F32 = np.float32


class _Floats(Param):
    """A tuple of floats (normalize's mean and std, adjust_lighting's alpha); one number is a
    tuple of one.  Listed as a shape for ``get_operator_arguments`` (MXNet says
    ``tuple of <float>``), so its defaults are written as whole numbers."""

    def __init__(self, default, doc=''):
        super().__init__('shape', default, doc=doc)

    def _parse_base(self, base, value):
        if isinstance(value, str):
            value = ast.literal_eval(value.strip())
        if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
            value = (value,)
        if isinstance(value, np.ndarray):
            value = value.ravel().tolist()
        if not isinstance(value, (tuple, list)) or not all(
                isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in value):
            raise TypeError(value)
        return tuple(float(v) for v in value)


def _saturate(xp, values, dtype):
    """float32 ``values`` stored as ``dtype``: integers clamped to the type's range and
    truncated (MXNet's ``saturate_cast``), floats converted."""
    dtype = np.dtype(dtype)
    if dtype.kind in 'iu':
        info = np.iinfo(dtype)
        return xp.trunc(xp.clip(values, info.min, info.max)).astype(dtype)
    return values.astype(dtype)


def _check_hwc(op, shape, batch=False, channels=(1, 3)):
    """MXNet's checks on an image input: (H, W, C), or (N, H, W, C) where ``batch``, with
    C among ``channels`` (None: any)."""
    if shape is None:
        return
    ranks = (3, 4) if batch else (3,)
    if len(shape) not in ranks:
        want = '(H, W, C) or (N, H, W, C)' if batch else '(H, W, C)'
        raise ShapeError("%s: input 'data' must be an image %s, got shape %s" % (op, want, shape_str(shape)))
    if channels and shape[-1] and shape[-1] not in channels:
        raise ShapeError("%s: the last axis of input 'data' is the channels and must be %s, got shape %s"
                         % (op, ' or '.join(str(c) for c in channels), shape_str(shape)))


class _SameShape(Operator):
    """An image operator whose output has its input's shape and type: the flips and the
    colour operators.  Subclasses say which channel counts they take."""
    channels = (1, 3)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], self.name)
        _check_hwc(self.name, data, channels=self.channels)
        return [data], [data] + list(out_shapes[1:]), aux_shapes

    def check(self, x):
        _check_hwc(self.name, x.shape, channels=self.channels)


class _StraightThrough(_SameShape):
    """A colour adjustment: the gradient passes through unchanged, as in MXNet."""

    def backward_reads(self, p):
        return [], []

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [out_grads[0].copy()]


# ================================================================ to_tensor, normalize
@register
class ToTensor(Operator):
    """(H, W, C) images with values in [0, 255] to (C, H, W) float32 tensors in [0, 1] (the
    values divided by 255: float64 ones in float64, others in float32); (N, H, W, C) to
    (N, C, H, W)."""
    name = '_image_to_tensor'
    params = {}

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        _check_hwc(self.name, data, batch=True, channels=None)
        if out is not None and len(out) in (3, 4):
            # backwards: the image the tensor came from
            data = merge_shape(data, tuple(out[:-3]) + (out[-2], out[-1], out[-3]), self.name)
        if data is not None:
            out = merge_shape(out, tuple(data[:-3]) + (data[-1], data[-3], data[-2]), self.name)
        return [data], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return list(in_types), [np.dtype(np.float32)], aux_types

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        _check_hwc(self.name, x.shape, batch=True, channels=None)
        work = np.float64 if x.dtype == np.float64 else _F32
        values = env.xp.moveaxis(x, -1, -3).astype(work) / work(255)
        return [env.xp.ascontiguousarray(values.astype(_F32))]

    def backward_reads(self, p):
        # the input's dtype only, which the executor's stand-in for it has too
        return [], []

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        # the true gradient: back to (H, W, C), / 255 (MXNet's copies the head gradient as it
        # is, which fails on the shape)
        g = env.xp.moveaxis(out_grads[0], -3, -1) / _F32(255)
        return [env.xp.ascontiguousarray(g.astype(inputs[0].dtype, copy=False))]


@register
class Normalize(Operator):
    """``(x - mean[c]) / std[c]`` for each channel c of (C, H, W) or (N, C, H, W) tensors,
    C being 1 or 3; a mean or std of one number serves every channel.

    float64 data is computed in float64, other types in float32, and stored in the data's
    type: an integer type wraps around, as MXNet's C++ conversion does on x86 (uint8 data
    with mean 100 maps 0 to 156).  MXNet's defaults, four zeros and four ones, fit no
    image: give a mean and std."""
    name = '_image_normalize'
    params = {
        'mean': _Floats((0, 0, 0, 0), doc='the mean of each channel, or one for all'),
        'std': _Floats((1, 1, 1, 1), doc='the standard deviation of each channel, or one for all'),
    }

    def _check(self, p, shape):
        if shape is None:
            return
        if len(shape) not in (3, 4):
            raise ShapeError("%s: input 'data' must be a tensor (C, H, W) or (N, C, H, W), got shape %s"
                             % (self.name, shape_str(shape)))
        channels = shape[-3]
        if not channels:
            return
        if channels not in (1, 3):
            raise ShapeError("%s: the channel axis of input 'data' (C in (C, H, W)) must be 1 or 3, got shape %s"
                             % (self.name, shape_str(shape)))
        for what in ('mean', 'std'):
            given = getattr(p, what)
            if len(given) not in (1, channels):
                raise ParamError('%s: %s must have 1 or %d entries for data of shape %s, got %s'
                                 % (self.name, what, channels, shape_str(shape), given))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], self.name)
        self._check(p, data)
        return [data], [data], aux_shapes

    def _work_dtype(self, x):
        return np.dtype(np.float64 if x.dtype == np.float64 else _F32)

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        self._check(p, x.shape)
        work = self._work_dtype(x)
        # mean and std are float32 parameters, widened for float64 data
        mean = self._channel_values(xp, p.mean, work)
        std = self._channel_values(xp, p.std, work)
        with np.errstate(divide='ignore', invalid='ignore'):
            out = (x.astype(work) - mean) / std
        if x.dtype.kind in 'iu':
            # C's float-to-integer conversion on x86: truncated to a wide integer, then the
            # low bits kept
            return [xp.trunc(out).astype(np.int64).astype(x.dtype)]
        return [out.astype(x.dtype, copy=False)]

    def _channel_values(self, xp, values, work):
        """The parameter as float32 numbers, widened to ``work``, shaped (C, 1, 1) (a device
        array made from Python numbers, no host array copied)."""
        per = [work.type(_F32(v)) for v in values]
        if len(per) == 1:
            return per[0]
        return xp.stack([xp.full((1, 1), v, dtype=work) for v in per])

    def backward_reads(self, p):
        # the input's dtype only, which the executor's stand-in for it has too
        return [], []

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        # the head gradient times 1 / std, in float64 (as MXNet's numbers come out)
        xp, g = env.xp, out_grads[0]
        std = self._channel_values(xp, p.std, np.dtype(np.float64))
        with np.errstate(divide='ignore', invalid='ignore'):
            return [(g.astype(np.float64) * (1.0 / std)).astype(inputs[0].dtype, copy=False)]


# ================================================================ resize
def _resize_check_dtype(op, dtype):
    if dtype is not None and np.dtype(dtype).name not in cv_resize.SUPPORTED_DTYPES:
        raise TypeInferError('%s: images of type %s cannot be resized; MXNet 1.9.1 (OpenCV) resizes %s '
                             '(cast with .astype)' % (op, np.dtype(dtype).name, ', '.join(cv_resize.SUPPORTED_DTYPES)))


def _resize_check_interp(op, interp):
    if interp not in cv_resize.INTERPOLATIONS:
        raise ParamError('%s: interp must be one of %s (%s), got %d'
                         % (op, sorted(cv_resize.INTERPOLATIONS), ', '.join(
                             '%d %s' % kv for kv in sorted(cv_resize.INTERPOLATIONS.items())), interp))


class _Resize(Operator):
    """What _image_resize and _cvimresize share: OpenCV's resize (cv_resize.py), its checks,
    and no gradient (MXNet registers none that works)."""
    differentiable = False

    def infer_type(self, p, in_types, out_types, aux_types):
        known = in_types[0] if in_types[0] is not None else out_types[0]
        _resize_check_dtype(self.name, known)
        return [known], [known], aux_types

    def target_size(self, p, shape):
        raise NotImplementedError

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        self.check_shape(data)
        _resize_check_interp(self.name, p.interp)
        out = out_shapes[0]
        if data is not None and data[-3] and data[-2]:
            height, width = self.target_size(p, data)
            out = merge_shape(out, tuple(data[:-3]) + (height, width, data[-1]), self.name)
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        self.check_shape(x.shape)
        _resize_check_interp(self.name, p.interp)
        _resize_check_dtype(self.name, x.dtype)
        height, width = self.target_size(p, x.shape)
        return [cv_resize.resize(env.xp, x, width, height, p.interp)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        raise MXNetError('%s has no gradient: MXNet 1.9.1 registers one that copies the head gradient '
                         'unchanged, which fails whenever the size changes; put BlockGrad after it'
                         % self.name)


@register
class Resize(_Resize):
    """Images (H, W, C) or (N, H, W, C) resized by OpenCV's rules (cv_resize.py, every
    interpolation as MXNet's OpenCV 3.4.2 computes it).

    ``size`` is (width, height), or one number: both sides, or with ``keep_ratio`` the
    shorter side, the longer one scaled in whole numbers (``long * size // short``).  Types:
    uint8, float32, float64."""
    name = '_image_resize'
    params = {
        'size': Param('shape', (), doc='(width, height), or one size'),
        'keep_ratio': Param('bool', False, doc='with one size: the shorter side gets it, the ratio is kept'),
        'interp': Param('int', 1, doc='0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos, 5 bit-exact bilinear'),
    }

    def check_shape(self, shape):
        _check_hwc(self.name, shape, batch=True, channels=None)

    def _check_size(self, p):
        if len(p.size) not in (1, 2):
            raise ParamError('%s: size must be (width, height) or one number, got %s' % (self.name, p.size))
        for side, value in zip(('width', 'height') if len(p.size) == 2 else ('size',), p.size):
            if value <= 0:
                raise ParamError('%s: %s must be positive, got %d' % (self.name, side, value))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        self._check_size(p)
        return super().infer_shape(p, in_shapes, out_shapes, aux_shapes)

    def target_size(self, p, shape):
        """(height, width) of the output for an input of ``shape``."""
        self._check_size(p)
        if len(p.size) == 2:
            return p.size[1], p.size[0]
        size = p.size[0]
        if not p.keep_ratio:
            return size, size
        h, w = shape[-3], shape[-2]
        return (size * h // w, size) if h > w else (size, size * w // h)


@register
class CvImResize(_Resize):
    """``mx.image.imresize``: one image (H, W, C) resized to ``w`` x ``h`` pixels by OpenCV's
    rules, as ``_image_resize`` with ``size=(w, h)``."""
    name = '_cvimresize'
    params = {
        'w': Param('int', doc='the width of the output', low=1),
        'h': Param('int', doc='the height of the output', low=1),
        'interp': Param('int', 1, doc='0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos, 5 bit-exact bilinear'),
    }

    def inputs(self, p):
        return ['src']

    def check_shape(self, shape):
        if shape is not None and len(shape) != 3:
            raise ShapeError("%s: input 'src' must be an image (H, W, C), got shape %s" % (self.name, shape_str(shape)))

    def target_size(self, p, shape):
        return p.h, p.w


# ================================================================ crop
@register
class Crop(Operator):
    """The region ``width`` x ``height`` pixels from column ``x``, row ``y`` of images (H, W, C)
    or (N, H, W, C).  The region must lie inside the image (MXNet reads outside it for a
    negative x or y; reflib refuses)."""
    name = '_image_crop'
    params = {
        'x': Param('int', doc='the left column of the region'),
        'y': Param('int', doc='the top row of the region'),
        'width': Param('int', doc='the width of the region'),
        'height': Param('int', doc='the height of the region'),
    }

    def _check(self, p, shape):
        _check_hwc(self.name, shape, batch=True)
        if p.width <= 0 or p.height <= 0:
            raise ParamError('%s: width and height must be positive, got width=%d, height=%d'
                             % (self.name, p.width, p.height))
        if p.x < 0 or p.y < 0:
            raise ParamError('%s: x and y must not be negative, got x=%d, y=%d' % (self.name, p.x, p.y))
        if shape is None:
            return
        h, w = shape[-3], shape[-2]
        if w and p.x + p.width > w:
            raise ShapeError('%s: x + width (%d + %d) is beyond the width of input data %s'
                             % (self.name, p.x, p.width, shape_str(shape)))
        if h and p.y + p.height > h:
            raise ShapeError('%s: y + height (%d + %d) is beyond the height of input data %s'
                             % (self.name, p.y, p.height, shape_str(shape)))

    def _region(self, p):
        return (Ellipsis, slice(p.y, p.y + p.height), slice(p.x, p.x + p.width), slice(None))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        self._check(p, data)
        out = out_shapes[0]
        if data is not None:
            out = merge_shape(out, tuple(data[:-3]) + (p.height, p.width, data[-1]), self.name)
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        self._check(p, x.shape)
        return [x[self._region(p)].copy()]

    def backward_reads(self, p):
        # the input's shape and dtype only, which the executor's stand-in for it has too
        return [], []

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        grad = env.xp.zeros_like(inputs[0])
        grad[self._region(p)] = out_grads[0]
        return [grad]


# ================================================================ flips
@register
class FlipLeftRight(_SameShape):
    """An image (H, W, C) mirrored left to right; its gradient is mirrored back."""
    name = '_image_flip_left_right'
    params = {}
    axis = 1                                   # W of (H, W, C)

    def forward(self, p, env, inputs, aux):
        self.check(inputs[0])
        return [env.xp.flip(inputs[0], axis=self.axis).copy()]

    def backward_reads(self, p):
        return [], []

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.flip(out_grads[0], axis=self.axis).copy()]


@register
class FlipTopBottom(FlipLeftRight):
    """An image (H, W, C) turned upside down; its gradient is turned back."""
    name = '_image_flip_top_bottom'
    axis = 0                                   # H of (H, W, C)


@register
class RandomFlipLeftRight(_SameShape):
    """An image (H, W, C) mirrored left to right with probability 1/2.

    The hidden second output holds the coin (1 flipped, 0 not), for backward, which mirrors
    the gradient back where the image was mirrored."""
    name = '_image_random_flip_left_right'
    params = {}
    axis = 1
    eliminable = False

    def outputs(self, p):
        return ['output', 'flipped']

    def visible_outputs(self, p):
        return 1

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        ins, outs, aux = super().infer_shape(p, in_shapes, out_shapes[:1], aux_shapes)
        return ins, outs + [(1,)], aux

    def infer_type(self, p, in_types, out_types, aux_types):
        known = in_types[0] if in_types[0] is not None else out_types[0]
        return [known], [known, np.dtype(_F32)], aux_types

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        self.check(x)
        flipped = env.rng.random(1) < 0.5
        # chosen on the device, so that a GPU never waits for the coin
        out = xp.where(flipped.reshape((1,) * x.ndim), xp.flip(x, axis=self.axis), x)
        return [out, flipped.astype(_F32)]

    def backward_reads(self, p):
        return [], [1]                         # the coin

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        g = out_grads[0]
        flipped = outputs[1].reshape((1,) * g.ndim) > 0
        return [env.xp.where(flipped, env.xp.flip(g, axis=self.axis), g)]


@register
class RandomFlipTopBottom(RandomFlipLeftRight):
    """An image (H, W, C) turned upside down with probability 1/2 (the coin kept for
    backward, as in ``_image_random_flip_left_right``)."""
    name = '_image_random_flip_top_bottom'
    axis = 0


# ================================================================ colour adjustments
# the luma weights of R, G and B (ITU-R BT.601), with which MXNet greys an image
_LUMA = (0.299, 0.587, 0.114)


def _uniform(env, low, high, n=1):
    """``n`` float32 draws from [low, high) (from (high, low] where high < low, as C++'s
    uniform_real_distribution gives them), a device array on a device."""
    return (_F32(low) + _F32(high - low) * env.rng.random(n).astype(_F32)).astype(_F32)


def _promoted(x):
    """``x`` in the type MXNet's C++ arithmetic gives it against float32 factors: float64
    stays float64, every other type computes in float32.  Results are then rounded to
    float32 (MXNet keeps them in float variables) before they are stored."""
    return x.astype(np.float64 if x.dtype == np.float64 else _F32)


def _brightness(xp, x, alpha):
    """Every value times ``alpha``, in float32 (float64 values rounded first)."""
    return _saturate(xp, x.astype(_F32) * alpha, x.dtype)


def _contrast(xp, x, alpha):
    """Values pulled towards (``alpha`` < 1) or pushed from the image's mean grey level:
    ``x * alpha + (1 - alpha) * mean``, the mean of the luma (of the values, for one
    channel), summed in float32 in memory order as MXNet does."""
    values = _promoted(x)
    if x.shape[-1] == 3:
        terms = xp.stack([values[..., c] * _F32(_LUMA[c]) for c in range(3)], axis=-1)
    else:
        terms = values
    pixels = x.shape[0] * x.shape[1]
    # float32 terms are summed one after another in float32, as MXNet does; float64 ones
    # (which MXNet adds in float64 and rounds to float32 at each step) in float64
    total = xp.cumsum(terms.ravel(), dtype=terms.dtype)[-1].astype(_F32)
    mean = total / _F32(pixels)
    return _saturate(xp, (values * alpha + (_F32(1) - alpha) * mean).astype(_F32), x.dtype)


def _saturation(xp, x, alpha):
    """Colours pulled towards (``alpha`` < 1) or pushed from grey: ``x * alpha + (1 - alpha)
    * grey``.  MXNet 1.9.1's grey is the blue channel's term of the luma alone
    (``0.114 * B``: its loop assigns each channel's term instead of adding it); reflib
    blends with the same grey so that the numbers agree.  One channel: unchanged."""
    if x.shape[-1] == 1:
        return x.copy()
    values = _promoted(x)
    grey = (values[..., 2:3] * _F32(_LUMA[2])).astype(_F32) * (_F32(1) - alpha)
    return _saturate(xp, (grey + values * alpha).astype(_F32), x.dtype)


def _fma(a, b, c):
    """``a * b + c`` rounded once to float32, as MXNet's compiled code fuses it (float32
    products are exact in float64)."""
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(_F32)


def _rgb_to_hls(xp, r, g, b):
    """Hue in degrees [0, 360), lightness and saturation in [0, 1] of RGB values in [0, 255]."""
    r, g, b = r / _F32(255), g / _F32(255), b / _F32(255)
    vmax = xp.maximum(xp.maximum(r, g), b)
    vmin = xp.minimum(xp.minimum(r, g), b)
    diff = vmax - vmin
    light = (vmax + vmin) * _F32(0.5)
    coloured = diff > np.finfo(_F32).eps           # greys have no hue and no saturation
    spread = xp.where(coloured, diff, _F32(1))
    with np.errstate(divide='ignore', invalid='ignore'):
        sat = xp.where(light < _F32(0.5), spread / (vmax + vmin), spread / (_F32(2) - vmax - vmin))
    per_degree = _F32(60) / spread
    hue = xp.where(vmax == r, (g - b) * per_degree,
                   xp.where(vmax == g, (b - r) * per_degree + _F32(120), (r - g) * per_degree + _F32(240)))
    hue = xp.where(hue < 0, hue + _F32(360), hue)
    return xp.where(coloured, hue, _F32(0)), light, xp.where(coloured, sat, _F32(0))


def _hls_to_rgb(xp, hue, light, sat):
    """RGB values in [0, 255] of a hue in degrees (any turn), lightness and saturation."""
    high = xp.where(light <= _F32(0.5), light * (_F32(1) + sat), light + sat - light * sat)
    low = _F32(2) * light - high
    sixths = xp.mod(hue * _F32(1.0 / 60), _F32(6))   # the hue in sixths of a turn, [0, 6)
    sector = xp.floor(sixths)
    frac = sixths - sector
    falling = _fma(high - low, _F32(1) - frac, low)
    rising = _fma(high - low, frac, low)
    # in each sixth of the turn one channel is high, one low and one on its way between:
    # red is high in sixths 0 and 5, falls in 1, is low in 2 and 3 and rises in 4; green
    # and blue follow a third and two thirds of a turn later
    channels = []
    for shift in (0, 4, 2):                    # red, green, blue
        s = xp.mod(sector + shift, 6)
        value = xp.where((s == 0) | (s == 5), high,
                         xp.where(s == 1, falling, xp.where(s == 4, rising, low)))
        channels.append(xp.where(sat == 0, light, value) * _F32(255))
    return channels


def _hue(xp, x, alpha):
    """The hue turned by ``alpha`` turns (alpha 0.5: half a turn, red to cyan), through
    OpenCV's HLS colour space, in float32 (as MXNet converts)."""
    values = x.astype(_F32)
    hue, light, sat = _rgb_to_hls(xp, values[..., 0], values[..., 1], values[..., 2])
    r, g, b = _hls_to_rgb(xp, hue + alpha * _F32(360), light, sat)
    return _saturate(xp, xp.stack([r, g, b], axis=-1), x.dtype)


# AlexNet's PCA lighting: the eigenvectors of ImageNet's RGB covariance, scaled by the square
# roots of its eigenvalues (55.46, 4.794, 1.148), row c for channel c
_EIGEN = ((55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009),
          (55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140),
          (55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203))


def _lighting(xp, x, alpha):
    """``x[c] + sum_k eigen[c][k] * alpha[k]`` for each channel c, in float32; ``alpha`` the
    three weights (float32 numbers, or a device array of them)."""
    values = x.astype(_F32)
    channels = []
    for c, row in enumerate(_EIGEN):
        w = [_F32(v) for v in row]
        offset = w[0] * alpha[0] + w[1] * alpha[1] + w[2] * alpha[2]
        channels.append(values[..., c] + offset)
    return _saturate(xp, xp.stack(channels, axis=-1), x.dtype)


class _RandomFactor(_StraightThrough):
    """One colour adjustment with a factor drawn uniformly from [min_factor, max_factor]."""
    params = {
        'min_factor': Param('float', doc='the smallest factor', low=0),
        'max_factor': Param('float', doc='the largest factor', low=0),
    }
    eliminable = False
    adjust = None

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        self.check(x)
        return [type(self).adjust(env.xp, x, _uniform(env, p.min_factor, p.max_factor)[0])]


@register
class RandomBrightness(_RandomFactor):
    """An image (H, W, C) times a factor from [min_factor, max_factor]."""
    name = '_image_random_brightness'
    adjust = staticmethod(_brightness)


@register
class RandomContrast(_RandomFactor):
    """An image's contrast scaled by a factor from [min_factor, max_factor] (see _contrast)."""
    name = '_image_random_contrast'
    adjust = staticmethod(_contrast)


@register
class RandomSaturation(_RandomFactor):
    """An image's saturation scaled by a factor from [min_factor, max_factor] (see
    _saturation, and MXNet's grey there)."""
    name = '_image_random_saturation'
    adjust = staticmethod(_saturation)


@register
class RandomHue(_RandomFactor):
    """An RGB image (H, W, 3) with its hue turned by a factor from [min_factor, max_factor]
    whole turns (MXNet's factor is the turn itself: 1 is a full turn, no change)."""
    name = '_image_random_hue'
    adjust = staticmethod(_hue)
    channels = (3,)


@register
class RandomColorJitter(_StraightThrough):
    """Brightness, contrast, saturation and hue of an image (H, W, C) jittered in a random
    order, each where its strength is positive: brightness, contrast and saturation by a
    factor ``1 + u``, the hue by ``u`` turns, ``u`` uniform in [-strength, strength]
    (MXNet's draws).  Each step stores its result in the image's type, as MXNet does.  A hue
    jitter needs 3 channels."""
    name = '_image_random_color_jitter'
    params = {
        'brightness': Param('float', doc='the strength of the brightness jitter'),
        'contrast': Param('float', doc='the strength of the contrast jitter'),
        'saturation': Param('float', doc='the strength of the saturation jitter'),
        'hue': Param('float', doc='the strength of the hue jitter'),
    }
    eliminable = False

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        self.check(x)
        if p.hue > 0 and x.shape[-1] != 3:
            raise ShapeError("%s: a hue jitter needs an RGB image (H, W, 3), got shape %s"
                             % (self.name, shape_str(x.shape)))
        order = xp.argsort(env.rng.random(4))      # a random order of the four adjustments
        draws = _uniform(env, -1, 1, 4)            # one factor for each, scaled below
        steps = {}
        for k, (strength, adjust, base) in enumerate(((p.brightness, _brightness, 1),
                                                      (p.contrast, _contrast, 1),
                                                      (p.saturation, _saturation, 1),
                                                      (p.hue, _hue, 0))):
            if strength > 0:
                factor = _F32(base) + _F32(strength) * draws[k]
                steps[k] = (adjust, factor)
        out = x.copy()
        if is_numpy(xp):
            # on the host the drawn order steers the loop
            for k in order.tolist():
                if k in steps:
                    adjust, factor = steps[k]
                    out = adjust(xp, out, factor)
            return [out]
        # on a device reading the order back would make it wait: each step computes every
        # adjustment and keeps the one drawn for it
        for position in range(4):
            current = out
            for k, (adjust, factor) in steps.items():
                out = xp.where(order[position] == k, adjust(xp, current, factor), out)
        return [out]


@register
class AdjustLighting(_StraightThrough):
    """AlexNet's PCA lighting noise with given weights: an RGB image (H, W, 3) plus
    ``eigenvectors x (eigenvalues * alpha)`` of ImageNet's colours, one offset per channel."""
    name = '_image_adjust_lighting'
    params = {'alpha': _Floats(REQUIRED, doc='the weights of the three principal components')}
    channels = (3,)

    def _alpha(self, p):
        if len(p.alpha) != 3:
            raise ParamError('%s: alpha must hold 3 weights (one per principal component), got %s'
                             % (self.name, p.alpha))
        return p.alpha

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        self._alpha(p)
        return super().infer_shape(p, in_shapes, out_shapes, aux_shapes)

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        self.check(x)
        alpha = [_F32(a) for a in self._alpha(p)]
        return [_lighting(env.xp, x, alpha)]


@register
class RandomLighting(_StraightThrough):
    """AlexNet's PCA lighting noise: ``_image_adjust_lighting`` with the three weights drawn
    from a normal distribution of mean 0 and standard deviation ``alpha_std``."""
    name = '_image_random_lighting'
    params = {'alpha_std': Param('float', 0.05, doc='the standard deviation of the weights')}
    channels = (3,)
    eliminable = False

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        self.check(x)
        alpha = (_F32(p.alpha_std) * env.rng.standard_normal(3).astype(_F32)).astype(_F32)
        return [_lighting(env.xp, x, alpha)]
