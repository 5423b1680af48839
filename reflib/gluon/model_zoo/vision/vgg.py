"""VGG (Simonyan & Zisserman 2014, "Very Deep Convolutional Networks for Large-Scale Image
Recognition") with 11, 13, 16 or 19 weight layers, optionally with BatchNorm after each
convolution, as MXNet 1.9.1's model zoo builds it.

Five blocks of 3x3 convolutions (64, 128, 256, 512, 512 filters), each closed by a 2x2 max
pooling, then Dense-4096 twice with dropout and the classifier.  The initialisers are part
of the layout: convolutions Xavier (gaussian, fan-out, magnitude 2), Dense layers normal,
biases zero.
"""

import os

from ... import nn
from ...block import HybridBlock
from .... import base
from ....context import cpu
from ....initializer import Xavier
from ..model_store import get_model_file

__all__ = ['VGG', 'vgg11', 'vgg13', 'vgg16', 'vgg19', 'vgg11_bn', 'vgg13_bn', 'vgg16_bn', 'vgg19_bn',
           'get_vgg']


class VGG(HybridBlock):
    """VGG: ``layers[i]`` convolutions of ``filters[i]`` channels in block i, then the
    classifier head with ``classes`` outputs; ``batch_norm`` puts BatchNorm between each
    convolution and its ReLU.  Children ``features`` (everything up to the last dropout)
    and ``output``."""

    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(filters), 'VGG: give one filter count per block of layers'
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            for num, width in zip(layers, filters):
                for _ in range(num):
                    xavier = Xavier(rnd_type='gaussian', factor_type='out', magnitude=2)
                    self.features.add(nn.Conv2D(width, kernel_size=3, padding=1, weight_initializer=xavier,
                                                bias_initializer='zeros'))
                    if batch_norm:
                        self.features.add(nn.BatchNorm())
                    self.features.add(nn.Activation('relu'))
                self.features.add(nn.MaxPool2D(strides=2))
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation='relu', weight_initializer='normal',
                                           bias_initializer='zeros'),
                                  nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer='normal', bias_initializer='zeros')

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


# depth -> (convolutions per block, filters per block)
_SPEC = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
         13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
         16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
         19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


def get_vgg(num_layers, pretrained=False, ctx=cpu(), root=os.path.join(base.data_dir(), 'models'), **kwargs):
    """A VGG of depth ``num_layers`` (11, 13, 16 or 19); keyword arguments (``classes``,
    ``batch_norm``, ``prefix``...) go to VGG.  ``pretrained`` loads 'vgg<depth>' (with
    '_bn' when batch_norm) from ``root`` onto ``ctx``; the file must already be there."""
    layers, filters = _SPEC[num_layers]
    net = VGG(layers, filters, **kwargs)
    if pretrained:
        name = 'vgg%d%s' % (num_layers, '_bn' if kwargs.get('batch_norm') else '')
        net.load_parameters(get_model_file(name, root=root), ctx=ctx)
    return net


def vgg11(**kwargs):
    """VGG-11; keyword arguments as get_vgg's."""
    return get_vgg(11, **kwargs)


def vgg13(**kwargs):
    """VGG-13; keyword arguments as get_vgg's."""
    return get_vgg(13, **kwargs)


def vgg16(**kwargs):
    """VGG-16; keyword arguments as get_vgg's."""
    return get_vgg(16, **kwargs)


def vgg19(**kwargs):
    """VGG-19; keyword arguments as get_vgg's."""
    return get_vgg(19, **kwargs)


def vgg11_bn(**kwargs):
    """VGG-11 with BatchNorm; keyword arguments as get_vgg's."""
    return get_vgg(11, **dict(kwargs, batch_norm=True))


def vgg13_bn(**kwargs):
    """VGG-13 with BatchNorm; keyword arguments as get_vgg's."""
    return get_vgg(13, **dict(kwargs, batch_norm=True))


def vgg16_bn(**kwargs):
    """VGG-16 with BatchNorm; keyword arguments as get_vgg's."""
    return get_vgg(16, **dict(kwargs, batch_norm=True))


def vgg19_bn(**kwargs):
    """VGG-19 with BatchNorm; keyword arguments as get_vgg's."""
    return get_vgg(19, **dict(kwargs, batch_norm=True))
