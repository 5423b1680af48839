"""``mx.image``: resizing, cropping and rotating images held in NDArrays.

The helpers MXNet's Gluon transforms (``RandomResizedCrop``, ``CenterCrop``, ``Rotate``) are
built on, with MXNet 1.9.1's behaviour:

imresize          OpenCV's resize (the ``_cvimresize`` operator, reflib/operator/cv_resize.py)
resize_short      the shorter side to a size, the longer one in proportion (whole numbers)
scale_down        a crop size shrunk, keeping its ratio, until it fits the image
fixed_crop        a region cut out, then resized if a size is given
center_crop       the largest region of the size's ratio around the centre, resized
random_crop       the same at a random place
random_size_crop  a region of random area and aspect ratio, resized (Inception's crop)
color_normalize   ``(src - mean) / std``
imrotate          images (C, H, W) or (N, C, H, W) rotated about their centres
random_rotate     the same by random angles

Images are (H, W, C) except for the rotations, which take float32 tensors.  The random
choices come from Python's ``random`` module (the crops) and numpy's global generator (the
rotations), the generators MXNet uses here: seeded the same way, they make MXNet's choices.

Interpolation codes are OpenCV's (0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos), and
two of MXNet's: 9 picks by the sizes (bicubic to enlarge, area to shrink, bilinear
otherwise) and 10 picks one of 0-4 at random.  Decoding, augmenter classes and ``ImageIter``
are not in reflib.
"""

import numbers
import random
import warnings

import numpy as np

from . import ndarray as nd

__all__ = ['imresize', 'resize_short', 'scale_down', 'fixed_crop', 'center_crop', 'random_crop',
           'random_size_crop', 'color_normalize', 'imrotate', 'random_rotate']


def imresize(src, w, h, *args, **kwargs):
    """``src`` (H, W, C) resized to ``w`` x ``h`` pixels (``interp=1``: bilinear; ``out=``)."""
    return nd._internal._cvimresize(src, w, h, *args, **kwargs)


def _get_interp_method(interp, sizes=()):
    """The OpenCV code for ``interp``: 9 decides by ``sizes`` = (old h, old w, new h, new w)
    (bicubic without sizes), 10 draws one of 0-4 from Python's ``random``."""
    if interp == 9:
        if not sizes:
            return 2
        old_h, old_w, new_h, new_w = sizes
        if new_h > old_h and new_w > old_w:
            return 2
        if new_h < old_h and new_w < old_w:
            return 3
        return 1
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError('Unknown interp method %d' % interp)
    return interp


def resize_short(src, size, interp=2):
    """``src`` resized so that its shorter side is ``size``; the longer one becomes
    ``size * long // short``."""
    h, w = src.shape[0], src.shape[1]
    new_h, new_w = (size * h // w, size) if h > w else (size, size * w // h)
    return imresize(src, new_w, new_h, interp=_get_interp_method(interp, (h, w, new_h, new_w)))


def scale_down(src_size, size):
    """The crop ``size`` (w, h) shrunk, keeping its ratio, to fit ``src_size`` (w, h);
    whole numbers, rounded down."""
    w, h = size
    src_w, src_h = src_size
    if h > src_h:
        w, h = float(w * src_h) / h, src_h
    if w > src_w:
        w, h = src_w, float(h * src_w) / w
    return int(w), int(h)


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """The region ``w`` x ``h`` at column ``x0``, row ``y0`` of ``src``, resized to ``size``
    (w, h) when given and different."""
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        out = imresize(out, size[0], size[1], interp=_get_interp_method(interp, (h, w, size[1], size[0])))
    return out


def center_crop(src, size, interp=2):
    """The largest region of ``size``'s ratio (no larger than ``size``) at the centre of
    ``src``, resized to ``size`` (w, h).  Returns the image and (x, y, width, height) of
    the region."""
    h, w = src.shape[0], src.shape[1]
    crop_w, crop_h = scale_down((w, h), size)
    x0, y0 = (w - crop_w) // 2, (h - crop_h) // 2
    return fixed_crop(src, x0, y0, crop_w, crop_h, size, interp), (x0, y0, crop_w, crop_h)


def random_crop(src, size, interp=2):
    """As ``center_crop``, at a random place (column, then row, from Python's ``random``)."""
    h, w = src.shape[0], src.shape[1]
    crop_w, crop_h = scale_down((w, h), size)
    x0 = random.randint(0, w - crop_w)
    y0 = random.randint(0, h - crop_h)
    return fixed_crop(src, x0, y0, crop_w, crop_h, size, interp), (x0, y0, crop_w, crop_h)


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """A region of random area and aspect ratio, resized to ``size`` (w, h).

    Up to 10 tries: an area drawn uniformly from ``area`` (a fraction of the image's, or
    (low, high)), an aspect ratio w/h drawn log-uniformly from ``ratio``; the first region
    that fits is placed at random.  If none fits, ``center_crop``.  Returns the image and
    (x, y, width, height) of the region."""
    if 'min_area' in kwargs:
        warnings.warn('`min_area` is deprecated. Please use `area` instead.', DeprecationWarning)
        area = kwargs.pop('min_area')
    if kwargs:
        raise TypeError('random_size_crop: unexpected keyword arguments %s' % sorted(kwargs))
    h, w = src.shape[0], src.shape[1]
    if isinstance(area, numbers.Number):
        area = (area, 1.0)
    log_ratio = (np.log(ratio[0]), np.log(ratio[1]))
    for _ in range(10):
        target = random.uniform(area[0], area[1]) * h * w
        aspect = np.exp(random.uniform(*log_ratio))
        crop_w = int(round(np.sqrt(target * aspect)))
        crop_h = int(round(np.sqrt(target / aspect)))
        if crop_w <= w and crop_h <= h:
            x0 = random.randint(0, w - crop_w)
            y0 = random.randint(0, h - crop_h)
            return fixed_crop(src, x0, y0, crop_w, crop_h, size, interp), (x0, y0, crop_w, crop_h)
    return center_crop(src, size, interp)


def color_normalize(src, mean, std=None):
    """``src`` minus ``mean``, divided by ``std`` where given, in place (as MXNet)."""
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """float32 images (C, H, W), or a batch (N, C, H, W), rotated about their centres by
    ``rotation_degrees`` (a number, or one per image), counter-clockwise as displayed.

    Each output pixel samples the source bilinearly at its rotated position; what falls
    outside is 0.  ``zoom_in`` enlarges the result until no such corner shows; ``zoom_out``
    shrinks it until the whole source shows."""
    if zoom_in and zoom_out:
        raise ValueError('imrotate: zoom_in and zoom_out cannot both be True')
    if np.dtype(src.dtype) != np.float32:
        raise TypeError('imrotate: only float32 images can be rotated, got %s' % np.dtype(src.dtype).name)
    single = src.ndim == 3
    if single:
        if not isinstance(rotation_degrees, numbers.Number):
            raise TypeError('imrotate: one image takes one angle (a number), got %r' % (rotation_degrees,))
        src = src.expand_dims(axis=0)
    elif src.ndim != 4:
        raise ValueError('imrotate: images must be (C, H, W) or (N, C, H, W), got shape %s' % (src.shape,))
    n, _, h, w = src.shape
    if isinstance(rotation_degrees, numbers.Number):
        degrees = np.full(n, rotation_degrees, dtype=np.float32)
    else:
        degrees = np.asarray(rotation_degrees.asnumpy() if isinstance(rotation_degrees, nd.NDArray)
                             else rotation_degrees, dtype=np.float32).reshape(-1)
    if len(degrees) != n:
        raise ValueError('imrotate: %d images need %d angles, got %d' % (n, n, len(degrees)))
    grid = _rotation_grid(degrees, h, w, zoom_in, zoom_out)
    rotated = nd.BilinearSampler(src, nd.array(grid, ctx=src.context))
    return rotated[0] if single else rotated


def _rotation_grid(degrees, h, w, zoom_in, zoom_out):
    """BilinearSampler's grid (N, 2, H, W) for the rotations, in float32: for each output
    pixel, the source position in [-1, 1] coordinates (x, then y)."""
    f32 = np.float32
    radians = (f32(np.pi) * degrees / f32(180)).reshape(-1, 1, 1)
    half_h, half_w = f32((h - 1) / 2), f32((w - 1) / 2)
    # pixel offsets from the centre, rotated, then scaled to [-1, 1]
    dy = (np.arange(h, dtype=f32).reshape(h, 1) - half_h)[None]
    dx = (np.arange(w, dtype=f32).reshape(1, w) - half_w)[None]
    cos, sin = np.cos(radians), np.sin(radians)
    x = (dx * cos - dy * sin) / half_w
    y = (dx * sin + dy * cos) / half_h
    grid = np.stack([x, y], axis=1).astype(f32)
    if zoom_in or zoom_out:
        # where the rotated image's corners land: the box they span, against the image's
        radius, corner = np.sqrt(f32(h * h + w * w)), np.arctan(f32(h) / f32(w))
        turn = np.abs(radians)
        span_x = np.maximum(np.abs(radius * np.cos(corner + turn)), np.abs(radius * np.cos(corner - turn)))
        span_y = np.maximum(np.abs(radius * np.sin(corner + turn)), np.abs(radius * np.sin(corner - turn)))
        if zoom_out:
            scale = np.maximum(span_x / f32(w), span_y / f32(h))
        else:
            scale = np.minimum(f32(w) / span_x, f32(h) / span_y)
        grid = (grid * scale[:, None]).astype(f32)
    return grid


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """``imrotate`` by an angle drawn uniformly from ``angle_limits`` (degrees; one per
    image of a batch), from numpy's global generator as in MXNet."""
    if src.ndim == 3:
        degrees = np.random.uniform(*angle_limits)
    else:
        degrees = nd.array(np.random.uniform(*angle_limits, size=src.shape[0]))
    return imrotate(src, degrees, zoom_in=zoom_in, zoom_out=zoom_out)

