"""DenseNet (Huang et al. 2017, "Densely Connected Convolutional Networks"), as MXNet 1.9.1's
model zoo builds it.

Inside a dense block every layer sees the concatenation of all earlier outputs of the block:
a layer is BatchNorm-ReLU-1x1 convolution to ``bn_size * growth_rate`` channels,
BatchNorm-ReLU-3x3 convolution to ``growth_rate`` channels (optionally dropout), and its
result is concatenated to its input (a HybridConcurrent of an Identity and the layer).
Between blocks a transition halves the channels (BatchNorm-ReLU-1x1 convolution) and the
resolution (2x2 average pooling).  The head is BatchNorm-ReLU, 7x7 average pooling (so the
input is meant to be 224x224), and a Dense layer.

Parameters are named as MXNet names them: the stem and the transitions in the network's
scope (``conv0``, ``batchnorm0``, ...), each dense block in its own ``stage<i>_`` scope.
"""

import os

from ... import nn
from ...contrib.nn import HybridConcurrent, Identity
from ...block import HybridBlock
from .... import base
from ....context import cpu
from ..model_store import get_model_file

__all__ = ['DenseNet', 'densenet121', 'densenet161', 'densenet169', 'densenet201']

# depth -> (channels of the stem, growth rate, layers in each of the four dense blocks)
densenet_spec = {121: (64, 32, [6, 12, 24, 16]),
                 161: (96, 48, [6, 12, 36, 24]),
                 169: (64, 32, [6, 12, 32, 32]),
                 201: (64, 32, [6, 12, 48, 32])}


def _bn_relu_conv(seq, channels, kernel_size, padding=0):
    seq.add(nn.BatchNorm(), nn.Activation('relu'),
            nn.Conv2D(channels, kernel_size=kernel_size, padding=padding, use_bias=False))


def _dense_layer(growth_rate, bn_size, dropout):
    """One layer of a dense block: its input next to (concatenated with) its new features.
    Every part has prefix '', so the layers are numbered in the block's scope."""
    layer = nn.HybridSequential(prefix='')
    _bn_relu_conv(layer, bn_size * growth_rate, 1)
    _bn_relu_conv(layer, growth_rate, 3, padding=1)
    if dropout:
        layer.add(nn.Dropout(dropout))
    joined = HybridConcurrent(axis=1, prefix='')
    joined.add(Identity(), layer)
    return joined


def _dense_block(num_layers, bn_size, growth_rate, dropout, stage):
    block = nn.HybridSequential(prefix='stage%d_' % stage)
    with block.name_scope():
        for _ in range(num_layers):
            block.add(_dense_layer(growth_rate, bn_size, dropout))
    return block


def _transition(channels):
    block = nn.HybridSequential(prefix='')
    _bn_relu_conv(block, channels, 1)
    block.add(nn.AvgPool2D(pool_size=2, strides=2))
    return block


class DenseNet(HybridBlock):
    """A DenseNet with a stem of ``num_init_features`` channels, dense blocks of
    ``block_config`` layers (a list, one entry per block) each adding ``growth_rate``
    channels, bottlenecks of ``bn_size * growth_rate`` channels, dropout of rate ``dropout``
    after each layer (0: none) and ``classes`` outputs; children ``features`` and
    ``output``."""

    def __init__(self, num_init_features, growth_rate, block_config, bn_size=4, dropout=0, classes=1000,
                 **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2, padding=3,
                                        use_bias=False),
                              nn.BatchNorm(), nn.Activation('relu'),
                              nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            channels = num_init_features
            for stage, num_layers in enumerate(block_config, start=1):
                self.features.add(_dense_block(num_layers, bn_size, growth_rate, dropout, stage))
                channels += num_layers * growth_rate
                if stage != len(block_config):
                    channels //= 2
                    self.features.add(_transition(channels))
            self.features.add(nn.BatchNorm(), nn.Activation('relu'), nn.AvgPool2D(pool_size=7),
                              nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_densenet(num_layers, pretrained=False, ctx=cpu(), root=os.path.join(base.data_dir(), 'models'),
                 **kwargs):
    """The DenseNet of depth ``num_layers`` (121, 161, 169 or 201; keyword arguments go to
    DenseNet); ``pretrained`` loads 'densenet<depth>' from ``root`` onto ``ctx`` (the file
    must already be there: see model_store.get_model_file)."""
    num_init_features, growth_rate, block_config = densenet_spec[num_layers]
    net = DenseNet(num_init_features, growth_rate, block_config, **kwargs)
    if pretrained:
        net.load_parameters(get_model_file('densenet%d' % num_layers, root=root), ctx=ctx)
    return net


def densenet121(**kwargs):
    """DenseNet-121 (stem 64, growth 32, blocks 6-12-24-16); keyword arguments as
    get_densenet's."""
    return get_densenet(121, **kwargs)


def densenet161(**kwargs):
    """DenseNet-161 (stem 96, growth 48, blocks 6-12-36-24); keyword arguments as
    get_densenet's."""
    return get_densenet(161, **kwargs)


def densenet169(**kwargs):
    """DenseNet-169 (stem 64, growth 32, blocks 6-12-32-32); keyword arguments as
    get_densenet's."""
    return get_densenet(169, **kwargs)


def densenet201(**kwargs):
    """DenseNet-201 (stem 64, growth 32, blocks 6-12-48-32); keyword arguments as
    get_densenet's."""
    return get_densenet(201, **kwargs)
