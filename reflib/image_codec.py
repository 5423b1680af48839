"""Image bytes <-> numpy arrays with Pillow, the way MXNet's OpenCV gives and takes them.

MXNet encodes and decodes images with OpenCV; reflib uses Pillow (no OpenCV needed).  The
arrays follow OpenCV's conventions where ``bgr=True`` (``mx.recordio.pack_img`` and
``unpack_img``): channels in BGR(A) order.  ``mx.io.ImageRecordIter`` asks for RGB.
PNG round-trips exactly; JPEG decoders differ by a few grey levels between libraries.
"""

import functools
import io
import logging

import numpy as np

from .base import MXNetError

__all__ = ['decode', 'encode', 'to_gray']

_FORMATS = {'.jpg': 'JPEG', '.jpeg': 'JPEG', '.png': 'PNG'}


def to_gray(rgb, png=False):
    """H x W x 3 uint8 RGB -> H x W luma, 0.299 R + 0.587 G + 0.114 B in OpenCV's fixed point
    (units of 2**-14, rounded); ``png=True``: as libpng's rgb_to_gray, which OpenCV's PNG
    decoder asks for (units of 2**-15, truncated), so gray images match MXNet's bit for bit."""
    rgb = rgb.astype(np.uint32)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    if png:
        # libpng truncates 0.299 and 0.587 to 2**-15 units (9797, 19234) and gives blue the rest
        return ((r * 9797 + g * 19234 + b * 3737) >> 15).astype(np.uint8)
    return ((r * 4899 + g * 9617 + b * 1868 + 8192) >> 14).astype(np.uint8)


@functools.cache
def _quiet_png_chunk_log():
    # Pillow's PNG reader logs every chunk (IHDR, IDAT...) at DEBUG; scripts that call
    # logging.basicConfig(level=logging.DEBUG), as MXNet's examples do, would print two lines
    # per decoded image where MXNet (OpenCV) prints none.  Only when nobody set that logger's
    # level; once, before the first decode (a level set later by the script wins).
    png_log = logging.getLogger('PIL.PngImagePlugin')
    if png_log.level == logging.NOTSET:
        png_log.setLevel(logging.INFO)


def _open(payload, gray=False):
    from PIL import Image  # Pillow: needed only where images are coded, as MXNet's OpenCV
    _quiet_png_chunk_log()
    try:
        image = Image.open(io.BytesIO(payload))
        if gray and image.format == 'JPEG':
            image.draft('L', image.size)     # libjpeg's own grayscale output, as OpenCV asks for
        image.load()
    except Exception as err:
        raise MXNetError('cannot decode image: %d bytes starting %r are not an image Pillow reads (%s)'
                         % (len(payload), bytes(payload[:8]), err)) from None
    return image


def decode(payload, iscolor=1, bgr=False):
    """Encoded bytes -> uint8 array.  ``iscolor`` as OpenCV's imdecode flag: 1 -> H x W x 3,
    0 -> H x W gray, -1 -> as stored (gray H x W, H x W x 3, or H x W x 4 with alpha)."""
    if iscolor not in (-1, 0, 1):
        raise MXNetError('decode: iscolor must be -1 (as stored), 0 (gray) or 1 (color), got %r' % (iscolor,))
    image = _open(payload, gray=iscolor == 0)
    mode = image.mode
    if mode == 'P':      # palette: color, with alpha when the palette has transparency
        mode = 'RGBA' if 'transparency' in image.info else 'RGB'
    elif mode not in ('L', 'RGB', 'RGBA'):
        mode = 'RGBA' if 'A' in mode else 'L' if mode in ('1', 'I', 'I;16', 'F') else 'RGB'
    if iscolor == 0:
        if mode == 'L':
            return np.asarray(image.convert('L'))
        return to_gray(np.asarray(image.convert('RGB')), png=image.format == 'PNG')
    if iscolor == 1:
        mode = 'RGB'
    array = np.asarray(image.convert(mode))
    if array.ndim == 3 and bgr:
        array = array[..., [2, 1, 0, 3][:array.shape[2]]]
    return np.ascontiguousarray(array)


def encode(img, img_fmt='.jpg', quality=95, bgr=False):
    """uint8 array (H x W, H x W x 1, H x W x 3 or H x W x 4) -> '.jpg' or '.png' bytes.
    ``quality``: JPEG quality 0-100, or PNG's zlib compression level 0-9 (clamped to the range)."""
    from PIL import Image  # Pillow: needed only where images are coded, as MXNet's OpenCV
    fmt = _FORMATS.get(str(img_fmt).lower())
    if fmt is None:
        raise MXNetError('encode: img_fmt must be one of %s, got %r' % (sorted(_FORMATS), img_fmt))
    img = np.asarray(img)
    if img.dtype != np.uint8:
        raise MXNetError('encode: the image must be uint8, got %s' % img.dtype)
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[..., 0]
    if not (img.ndim == 2 or (img.ndim == 3 and img.shape[2] in (3, 4))):
        raise MXNetError('encode: expected an H x W, H x W x 3 or H x W x 4 image, got shape %s' % (img.shape,))
    if img.ndim == 3 and fmt == 'JPEG' and img.shape[2] == 4:
        img = img[..., :3]      # JPEG has no alpha channel
    if img.ndim == 3 and bgr:
        img = img[..., [2, 1, 0, 3][:img.shape[2]]]
    out = io.BytesIO()
    # out-of-range values are clamped, as OpenCV does (im2rec's default quality 95 with
    # --encoding .png means compression level 9)
    if fmt == 'JPEG':
        Image.fromarray(np.ascontiguousarray(img)).save(out, 'JPEG', quality=min(max(int(quality), 0), 100))
    else:
        Image.fromarray(np.ascontiguousarray(img)).save(out, 'PNG', compress_level=min(max(int(quality), 0), 9))
    return out.getvalue()
