"""What ``mx.io.ImageRecordIter`` does to one decoded image, step by step, as MXNet 1.9.1 does it.

The steps, in MXNet's order (each checked against MXNet 1.9.1, tests/test_image_record_iter.py):

1. ``resize=r``: the shorter side becomes ``r``, the other ``r * long // short`` (integer
   arithmetic), OpenCV's bilinear resize (image_resize.py);
2. ``pad=p``: ``p`` pixels of ``fill_value`` on every side;
3. an image still smaller than ``data_shape``: if it is too short, its height becomes the
   target's and its width scales by ``float32(H) / float32(h)`` (truncated); then, if it is
   too narrow, the same for the width (two bilinear resizes, the second of the first's output);
4. crop ``data_shape``: centred (offsets rounded down), or, with ``rand_crop``, offsets drawn
   uniformly (row first);
5. ``mirror`` / ``rand_mirror``: flip left-right;
6. to the output type: float32 ``(pixel - mean) * (scale / std)`` in float32 arithmetic;
   int8 ``pixel - round(mean)`` saturated to [-128, 127] (MXNet ignores ``std`` and ``scale``
   there); uint8 the pixels unchanged (MXNet ignores mean, std and scale).

The random draws come from one ``std::mt19937`` seeded with 111 (MXNet's first preprocessing
thread), per image: the crop's row and column offsets (``rand_crop``), a coin
(``rand_mirror``: ``std::bernoulli_distribution(0.5)``, two 32-bit words), then two floats
MXNet always draws for its contrast and illumination jitter (one word each).

>>> engine = CppRandom(111)
>>> [engine.coin() for _ in range(4)]
[True, True, False, True]
"""

import numpy as np

from ..base import MXNetError
from .image_resize import resize_bilinear
from .std_shuffle import Words, uniform_int

__all__ = ['CppRandom', 'AugmentParams', 'prepare', 'draw', 'finish', 'to_output']


class CppRandom:
    """``std::mt19937(seed)`` with libstdc++'s distributions, as compiled into MXNet's wheel."""

    def __init__(self, seed):
        self._word = Words(seed)

    def word(self):
        """The next raw 32-bit output of the ``mt19937`` engine, as a Python int in ``[0, 2**32)``."""
        return self._word()

    def uniform_int(self, n):
        """``std::uniform_int_distribution<unsigned>(0, n - 1)``."""
        return uniform_int(self._word, n)

    def canonical(self):
        """``std::generate_canonical<double, 53>``: two words, low one first."""
        low = float(self._word())
        value = (low + float(self._word()) * 4294967296.0) / 18446744073709551616.0
        return value if value < 1.0 else np.nextafter(1.0, 0.0)

    def coin(self):
        """``std::bernoulli_distribution(0.5)``."""
        return self.canonical() < 0.5


class AugmentParams:
    """The settings of the steps above (already parsed and checked by ImageRecordIter)."""

    def __init__(self, data_shape, resize=-1, pad=0, fill_value=255, rand_crop=False, mirror=False,
                 rand_mirror=False, mean=(0, 0, 0, 0), std=(1, 1, 1, 1), scale=1.0, dtype=np.float32):
        self.channels, self.height, self.width = data_shape
        self.resize, self.pad, self.fill_value = resize, pad, fill_value
        self.rand_crop, self.mirror, self.rand_mirror = rand_crop, mirror, rand_mirror
        self.mean, self.std, self.scale = mean, std, scale
        self.dtype = np.dtype(dtype)


def _resize_shorter(img, size):
    h, w = img.shape[:2]
    if h > w:
        return resize_bilinear(img, size, size * h // w)
    return resize_bilinear(img, size * w // h, size)


def _pad(img, pad, fill_value):
    fill = np.full(img.shape[2], fill_value, np.uint8)
    if img.shape[2] == 4:
        fill[3] = 0        # MXNet's border colour has 3 values: alpha gets 0 (checked in MXNet 1.9.1)
    out = np.empty((img.shape[0] + 2 * pad, img.shape[1] + 2 * pad, img.shape[2]), np.uint8)
    out[...] = fill
    out[pad:pad + img.shape[0], pad:pad + img.shape[1]] = img
    return out


def _grow_to(img, height, width):
    """Step 3: an image smaller than the crop is scaled up, first its height, then its width."""
    h, w = img.shape[:2]
    if h < height:
        w = int(np.float32(w) * (np.float32(height) / np.float32(h)))
        img, h = resize_bilinear(img, w, height), height
    if w < width:
        h = int(np.float32(h) * (np.float32(width) / np.float32(w)))
        img = resize_bilinear(img, width, h)
    return img


def prepare(img, params):
    """Steps 1-3, which draw nothing: resize, pad, and grow to at least ``data_shape``."""
    if params.resize > 0:
        img = _resize_shorter(img, params.resize)
    if params.pad > 0:
        img = _pad(img, params.pad, params.fill_value)
    return _grow_to(img, params.height, params.width)


def draw(shape, params, engine):
    """The draws for one prepared image of ``shape``, in MXNet's order: ``(row, column,
    mirrored?)`` of the crop.  ``engine`` may be None when neither ``rand_crop`` nor
    ``rand_mirror`` is set (nothing drawn then affects an image)."""
    y, x = shape[0] - params.height, shape[1] - params.width
    if params.rand_crop:
        y = engine.uniform_int(y + 1)
        x = engine.uniform_int(x + 1)
    else:
        y, x = y // 2, x // 2
    mirrored = (params.rand_mirror and engine.coin()) or params.mirror
    if params.dtype != np.uint8 and engine is not None:
        engine.word()    # MXNet's contrast and illumination draws, made whether used or not
        engine.word()
    return y, x, mirrored


def finish(img, crop_at, params):
    """Steps 4-6 for one prepared image and its ``draw``: crop, mirror, convert (C x H x W)."""
    y, x, mirrored = crop_at
    return to_output(img[y:y + params.height, x:x + params.width], mirrored, params)


def to_output(img, mirrored, params):
    """The cropped H x W x C uint8 image -> C x H x W in the output dtype (step 6)."""
    chw = img.transpose(2, 0, 1)
    if mirrored:
        chw = chw[:, :, ::-1]
    c = chw.shape[0]
    mean = np.asarray(params.mean[:c], np.float32).reshape(c, 1, 1)
    if params.dtype == np.uint8:
        return np.ascontiguousarray(chw)
    if params.dtype == np.int8:
        # half away from zero, as C's round()
        shift = np.sign(mean) * np.floor(np.abs(mean) + 0.5)
        return np.clip(chw.astype(np.float64) - shift, -128, 127).astype(np.int8)
    factor = np.float32(params.scale) / np.asarray(params.std[:c], np.float32).reshape(c, 1, 1)
    return ((chw.astype(np.float32) - mean) * factor).astype(np.float32)


def check_channels(img, channels, record_id):
    """MXNet's check of a decoded image against ``data_shape[0]`` (only 4 can fail)."""
    if img.shape[2] != channels:
        raise MXNetError('ImageRecordIter: the image with id %d has %d channels, data_shape asks for %d '
                         '(4 needs images stored with an alpha channel)' % (record_id, img.shape[2], channels))
