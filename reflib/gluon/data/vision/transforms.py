"""``gluon.data.vision.transforms``: image transforms as Gluon Blocks, as in MXNet 1.9.1.

A data set's samples pass through them (``dataset.transform_first(Compose([...]))``).  Each
is a thin Block over an operator of reflib/operator/image.py (``mx.nd.image.*``, or
``mx.sym.image.*`` once hybridized) or a helper of ``mx.image``, so the numbers are those
operators':

==================================  =====================================================
Compose                             transforms one after the other (runs of HybridBlocks
                                    become one hybridized HybridSequential)
Cast                                to another dtype
ToTensor                            (H, W, C) in [0, 255] -> (C, H, W) float32 in [0, 1]
Normalize                           ``(x - mean) / std`` per channel of (C, H, W) tensors
Resize, CropResize, CenterCrop,     sizes and crops of (H, W, C) images (OpenCV's
RandomResizedCrop                   resizing); sizes are (width, height)
Rotate, RandomRotation              float32 tensors (C, H, W) rotated about their centres
RandomFlipLeftRight/TopBottom       a flip with probability 1/2
RandomBrightness/Contrast/          a factor drawn from [max(0, 1 - s), 1 + s] for a
Saturation/Hue                      strength s
RandomColorJitter                   the four jitters in a random order
RandomLighting                      AlexNet's PCA colour noise
RandomApply                         transforms applied with probability p
==================================  =====================================================

The random choices come from where MXNet draws them: the operators from reflib's generator
(``mx.random.seed``); RandomResizedCrop and RandomApply from Python's ``random``, and
RandomRotation from numpy's global generator, as in MXNet (so those follow MXNet's choices
when seeded alike).  MXNet 1.9.1 has no HybridCompose, RandomCrop or RandomGray; neither
has reflib.
"""

import numbers
import random

import numpy as np

from ...block import Block, HybridBlock
from ...nn import Sequential, HybridSequential
from .... import image

__all__ = ['Compose', 'Cast', 'ToTensor', 'Normalize', 'Rotate', 'RandomRotation', 'RandomResizedCrop',
           'CropResize', 'CenterCrop', 'Resize', 'RandomFlipLeftRight', 'RandomFlipTopBottom',
           'RandomBrightness', 'RandomContrast', 'RandomSaturation', 'RandomHue', 'RandomColorJitter',
           'RandomLighting', 'RandomApply']


def _pair(size):
    """A size as (width, height): one number is both."""
    return (size, size) if isinstance(size, numbers.Number) else size


class Compose(Sequential):
    """``transforms`` (a list of Blocks) applied one after the other.

    Consecutive HybridBlocks are gathered into one HybridSequential, hybridized, so that
    they run as one graph; a lone HybridBlock and plain Blocks are added as they are.
    (MXNet appends None to the list it is given; reflib leaves the list alone.)"""

    def __init__(self, transforms):
        super().__init__()
        run = []
        for block in list(transforms) + [None]:
            if isinstance(block, HybridBlock):
                run.append(block)
                continue
            if len(run) == 1:
                self.add(run[0])
            elif run:
                graph = HybridSequential()
                graph.add(*run)
                graph.hybridize()
                self.add(graph)
            run = []
            if block is not None:
                self.add(block)


class Cast(HybridBlock):
    """Data of any shape converted to ``dtype`` (default float32)."""

    def __init__(self, dtype='float32'):
        super().__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, self._dtype)


class ToTensor(HybridBlock):
    """Images (H, W, C), or a batch (N, H, W, C), with values in [0, 255] to float32
    tensors (C, H, W) (or (N, C, H, W)) with values in [0, 1]."""

    def hybrid_forward(self, F, x):
        return F.image.to_tensor(x)


class Normalize(HybridBlock):
    """Tensors (C, H, W) or (N, C, H, W), C being 1 or 3, normalised per channel:
    ``(x[c] - mean[c]) / std[c]``.  A number for mean or std serves every channel."""

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean = mean
        self._std = std

    def hybrid_forward(self, F, x):
        return F.image.normalize(x, self._mean, self._std)


class Rotate(Block):
    """float32 tensors (C, H, W) or (N, C, H, W) rotated by ``rotation_degrees`` about their
    centres, keeping their shape; ``zoom_in`` hides the corners the rotation uncovers,
    ``zoom_out`` keeps the whole image in view (mx.image.imrotate)."""

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        """Return ``x`` (a float32 NDArray, (C, H, W) or (N, C, H, W)) rotated, in a new array.

        Raises:
            TypeError: when ``x`` is not float32 (apply ToTensor first).
        """
        if np.dtype(x.dtype) != np.float32:
            raise TypeError('Rotate: only float32 tensors can be rotated, got %s; put it after ToTensor'
                            % np.dtype(x.dtype).name)
        return image.imrotate(x, *self._args)


class RandomRotation(Block):
    """``Rotate`` by an angle drawn uniformly from ``angle_limits`` (lower, upper) degrees,
    with probability ``rotate_with_proba`` (else the input as it is)."""

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise ValueError('RandomRotation: angle_limits must be (lower, upper) with lower < upper, got %r'
                             % (angle_limits,))
        if not 0 <= rotate_with_proba <= 1:
            raise ValueError('RandomRotation: rotate_with_proba must be in [0, 1], got %r' % (rotate_with_proba,))
        self._args = (angle_limits, zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x):
        """Return ``x`` rotated by a random angle, or, with probability ``1 - rotate_with_proba``, ``x``.

        Raises:
            TypeError: when a rotation is drawn and ``x`` is not float32 (apply ToTensor first).
        """
        if np.random.random() > self._rotate_with_proba:
            return x
        if np.dtype(x.dtype) != np.float32:
            raise TypeError('RandomRotation: only float32 tensors can be rotated, got %s; put it after ToTensor'
                            % np.dtype(x.dtype).name)
        return image.random_rotate(x, *self._args)


class RandomResizedCrop(Block):
    """A crop of random area (``scale``: a fraction of the image's) and aspect ratio
    (``ratio``: width / height) of an image (H, W, C), resized to ``size`` (width, height,
    or one number for both) with ``interpolation`` (OpenCV's codes; default bilinear)."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super().__init__()
        self._args = (_pair(size), scale, ratio, interpolation)

    def forward(self, x):
        return image.random_size_crop(x, *self._args)[0]


class CropResize(HybridBlock):
    """The region ``width`` x ``height`` at column ``x``, row ``y`` of images (H, W, C) or
    (N, H, W, C), then resized to ``size`` (width, height) if given."""

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._x = x
        self._y = y
        self._width = width
        self._height = height
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F, x):
        out = F.image.crop(x, self._x, self._y, self._width, self._height)
        if self._size:
            # None leaves the interpolation to the operator's default (bilinear)
            out = F.image.resize(out, self._size, False, self._interpolation)
        return out


class CenterCrop(Block):
    """The centre of an image (H, W, C) at ``size`` (width, height, or one number): the
    largest region of that aspect ratio (no larger than it), resized to it."""

    def __init__(self, size, interpolation=1):
        super().__init__()
        self._args = (_pair(size), interpolation)

    def forward(self, x):
        return image.center_crop(x, *self._args)[0]


class Resize(HybridBlock):
    """Images (H, W, C) or (N, H, W, C) resized to ``size``: (width, height), or one number
    for both sides, or, with ``keep_ratio``, for the shorter side (the longer one keeps the
    ratio).  ``interpolation`` is OpenCV's code (default bilinear)."""

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._keep = keep_ratio
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F, x):
        return F.image.resize(x, self._size, self._keep, self._interpolation)


class RandomFlipLeftRight(HybridBlock):
    """An image (H, W, C) mirrored left to right with probability 1/2."""

    def hybrid_forward(self, F, x):
        return F.image.random_flip_left_right(x)


class RandomFlipTopBottom(HybridBlock):
    """An image (H, W, C) turned upside down with probability 1/2."""

    def hybrid_forward(self, F, x):
        return F.image.random_flip_top_bottom(x)


class _RandomFactor(HybridBlock):
    """An adjustment by a factor drawn from [max(0, 1 - strength), 1 + strength]."""
    operator = None

    def __init__(self, strength):
        super().__init__()
        self._args = (max(0, 1 - strength), 1 + strength)

    def hybrid_forward(self, F, x):
        return getattr(F.image, self.operator)(x, *self._args)


class RandomBrightness(_RandomFactor):
    """An image (H, W, C) times a factor from [max(0, 1 - brightness), 1 + brightness]."""
    operator = 'random_brightness'

    def __init__(self, brightness):
        super().__init__(brightness)


class RandomContrast(_RandomFactor):
    """An image's contrast scaled by a factor from [max(0, 1 - contrast), 1 + contrast]."""
    operator = 'random_contrast'

    def __init__(self, contrast):
        super().__init__(contrast)


class RandomSaturation(_RandomFactor):
    """An image's saturation scaled by a factor from [max(0, 1 - saturation), 1 + saturation]."""
    operator = 'random_saturation'

    def __init__(self, saturation):
        super().__init__(saturation)


class RandomHue(_RandomFactor):
    """An RGB image's hue turned by a factor from [max(0, 1 - hue), 1 + hue] of a whole turn.

    As in MXNet, the factor is the turn itself: whole turns change nothing, so hue=0.1
    turns the hue by -0.1 to 0.1 of a turn, as RandomColorJitter's hue jitter does."""
    operator = 'random_hue'

    def __init__(self, hue):
        super().__init__(hue)


class RandomColorJitter(HybridBlock):
    """An image's brightness, contrast, saturation (factors from [1 - s, 1 + s]) and hue
    (turned by [-hue, hue] of a turn) jittered in a random order; a strength of 0 leaves
    that one out."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._args = (brightness, contrast, saturation, hue)

    def hybrid_forward(self, F, x):
        return F.image.random_color_jitter(x, *self._args)


class RandomLighting(HybridBlock):
    """AlexNet's PCA colour noise on an RGB image: the principal components of ImageNet's
    colours, weighted by normal draws of standard deviation ``alpha``."""

    def __init__(self, alpha):
        super().__init__()
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.image.random_lighting(x, self._alpha)


class RandomApply(Sequential):
    """``transforms`` (a Block, say a Compose) applied with probability ``p``, else the input
    as it is (the coin from Python's ``random``)."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x):
        """Return ``transforms(x)`` with probability ``p``, else ``x`` itself."""
        if self.p < random.random():
            return x
        return self.transforms(x)
