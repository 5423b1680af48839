"""Inception v3 (Szegedy et al. 2016, "Rethinking the Inception Architecture for Computer
Vision"), as MXNet 1.9.1's model zoo builds it.

Every convolution is a "basic" one: convolution without bias, BatchNorm (epsilon 0.001) and
ReLU.  After a plain stem, eleven inception blocks follow, each a HybridConcurrent of
branches joined along the channels: three of kind A (35x35), B (reduces to 17x17), four of
kind C (7x7 convolutions factored into 1x7 and 7x1), D (reduces to 8x8) and two of kind E
(whose 3x3 branches end in a 1x3 and a 3x1 side by side).  The head is 8x8 average pooling,
dropout 0.5 and a Dense layer, so the input is meant to be 299x299.

Parameters are named as MXNet names them: the stem in the network's scope (``conv0`` ...
``conv4``), each block in its own scope ``A1_`` .. ``A3_``, ``B_``, ``C1_`` .. ``C4_``,
``D_``, ``E1_``, ``E2_``.
"""

import os

from ... import nn
from ...contrib.nn import HybridConcurrent
from ...block import HybridBlock
from .... import base
from ....context import cpu
from ..model_store import get_model_file

__all__ = ['Inception3', 'inception_v3']


def _basic_conv(channels, kernel_size, strides=1, padding=0):
    """Convolution (no bias), BatchNorm, ReLU, under prefix '' (numbered in the enclosing
    scope)."""
    block = nn.HybridSequential(prefix='')
    block.add(nn.Conv2D(channels, kernel_size, strides=strides, padding=padding, use_bias=False),
              nn.BatchNorm(epsilon=0.001), nn.Activation('relu'))
    return block


def _branch(pool, *convs):
    """A branch: an optional pooling ('avg': 3x3 stride 1 padded; 'max': 3x3 stride 2),
    then a basic convolution for each (channels, kernel, strides, padding) in ``convs``
    (strides 1 and padding 0 where given as None)."""
    branch = nn.HybridSequential(prefix='')
    if pool == 'avg':
        branch.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif pool == 'max':
        branch.add(nn.MaxPool2D(pool_size=3, strides=2))
    for channels, kernel, strides, padding in convs:
        branch.add(_basic_conv(channels, kernel, 1 if strides is None else strides,
                               0 if padding is None else padding))
    return branch


def _concurrent(prefix, *branches):
    block = HybridConcurrent(axis=1, prefix=prefix)
    with block.name_scope():
        for make, args in branches:
            block.add(make(*args))
    return block


def _block_a(pool_features, prefix):
    return _concurrent(prefix,
                       (_branch, (None, (64, 1, None, None))),
                       (_branch, (None, (48, 1, None, None), (64, 5, None, 2))),
                       (_branch, (None, (64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1))),
                       (_branch, ('avg', (pool_features, 1, None, None))))


def _block_b(prefix):
    return _concurrent(prefix,
                       (_branch, (None, (384, 3, 2, None))),
                       (_branch, (None, (64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None))),
                       (_branch, ('max',)))


def _block_c(channels_7x7, prefix):
    c = channels_7x7
    return _concurrent(prefix,
                       (_branch, (None, (192, 1, None, None))),
                       (_branch, (None, (c, 1, None, None), (c, (1, 7), None, (0, 3)),
                                  (192, (7, 1), None, (3, 0)))),
                       (_branch, (None, (c, 1, None, None), (c, (7, 1), None, (3, 0)),
                                  (c, (1, 7), None, (0, 3)), (c, (7, 1), None, (3, 0)),
                                  (192, (1, 7), None, (0, 3)))),
                       (_branch, ('avg', (192, 1, None, None))))


def _block_d(prefix):
    return _concurrent(prefix,
                       (_branch, (None, (192, 1, None, None), (320, 3, 2, None))),
                       (_branch, (None, (192, 1, None, None), (192, (1, 7), None, (0, 3)),
                                  (192, (7, 1), None, (3, 0)), (192, 3, 2, None))),
                       (_branch, ('max',)))


def _split_3x3(*convs):
    """``convs`` in sequence, then a 1x3 and a 3x1 convolution of 384 channels side by side."""
    seq = nn.HybridSequential(prefix='')
    seq.add(_branch(None, *convs))
    sides = HybridConcurrent(axis=1, prefix='')
    sides.add(_branch(None, (384, (1, 3), None, (0, 1))), _branch(None, (384, (3, 1), None, (1, 0))))
    seq.add(sides)
    return seq


def _block_e(prefix):
    return _concurrent(prefix,
                       (_branch, (None, (320, 1, None, None))),
                       (_split_3x3, ((384, 1, None, None),)),
                       (_split_3x3, ((448, 1, None, None), (384, 3, None, 1))),
                       (_branch, ('avg', (192, 1, None, None))))


class Inception3(HybridBlock):
    """Inception v3 with ``classes`` outputs; children ``features`` (stem, the eleven
    inception blocks, pooling and dropout) and ``output``."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(_basic_conv(32, 3, strides=2), _basic_conv(32, 3),
                              _basic_conv(64, 3, padding=1),
                              nn.MaxPool2D(pool_size=3, strides=2),
                              _basic_conv(80, 1), _basic_conv(192, 3),
                              nn.MaxPool2D(pool_size=3, strides=2),
                              _block_a(32, 'A1_'), _block_a(64, 'A2_'), _block_a(64, 'A3_'),
                              _block_b('B_'),
                              _block_c(128, 'C1_'), _block_c(160, 'C2_'), _block_c(160, 'C3_'),
                              _block_c(192, 'C4_'),
                              _block_d('D_'), _block_e('E1_'), _block_e('E2_'),
                              nn.AvgPool2D(pool_size=8), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def inception_v3(pretrained=False, ctx=cpu(), root=os.path.join(base.data_dir(), 'models'), **kwargs):
    """Inception v3 (keyword arguments go to Inception3); ``pretrained`` loads 'inceptionv3'
    from ``root`` onto ``ctx`` (the file must already be there: see
    model_store.get_model_file).  The pretrained network expects 299x299 inputs."""
    net = Inception3(**kwargs)
    if pretrained:
        net.load_parameters(get_model_file('inceptionv3', root=root), ctx=ctx)
    return net
