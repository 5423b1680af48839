"""SqueezeNet 1.0 and 1.1 (Iandola et al. 2016, "SqueezeNet: AlexNet-level accuracy with 50x
fewer parameters and <0.5MB model size"), as MXNet 1.9.1's model zoo builds them.

A fire module squeezes to a few channels with a 1x1 convolution, then expands with a 1x1
and a 3x3 convolution side by side and concatenates the two along the channels.  1.1 has
a smaller first convolution and pools earlier, for the same accuracy at less compute.  The
classifier is a 1x1 convolution to ``classes`` channels, ReLU, and 13x13 average pooling
(so the input is meant to be 224x224).
"""

import os

from ... import nn
from ...contrib.nn import HybridConcurrent
from ...block import HybridBlock
from .... import base
from ....context import cpu
from ..model_store import get_model_file

__all__ = ['SqueezeNet', 'squeezenet1_0', 'squeezenet1_1', 'get_squeezenet']


def _conv_relu(channels, kernel_size, padding=0):
    block = nn.HybridSequential(prefix='')
    block.add(nn.Conv2D(channels, kernel_size, padding=padding), nn.Activation('relu'))
    return block


def _fire(squeeze, expand1x1, expand3x3):
    """A fire module.  Every part has prefix '', so its layers are numbered in the
    network's scope (conv0, conv1, ... through the whole network), as in MXNet."""
    fire = nn.HybridSequential(prefix='')
    fire.add(_conv_relu(squeeze, 1))
    paths = HybridConcurrent(axis=1, prefix='')
    paths.add(_conv_relu(expand1x1, 1), _conv_relu(expand3x3, 3, 1))
    fire.add(paths)
    return fire


def _pool():
    # ceil_mode: the last partial window counts, as in the original Caffe model
    return nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)


class SqueezeNet(HybridBlock):
    """SqueezeNet of ``version`` '1.0' or '1.1' with ``classes`` outputs; children
    ``features`` and ``output``."""

    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        assert version in ['1.0', '1.1'], ('Unsupported SqueezeNet version {version}:'
                                           '1.0 or 1.1 expected'.format(version=version))
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            if version == '1.0':
                self.features.add(nn.Conv2D(96, kernel_size=7, strides=2), nn.Activation('relu'), _pool(),
                                  _fire(16, 64, 64), _fire(16, 64, 64), _fire(32, 128, 128), _pool(),
                                  _fire(32, 128, 128), _fire(48, 192, 192), _fire(48, 192, 192),
                                  _fire(64, 256, 256), _pool(), _fire(64, 256, 256))
            else:
                self.features.add(nn.Conv2D(64, kernel_size=3, strides=2), nn.Activation('relu'), _pool(),
                                  _fire(16, 64, 64), _fire(16, 64, 64), _pool(),
                                  _fire(32, 128, 128), _fire(32, 128, 128), _pool(),
                                  _fire(48, 192, 192), _fire(48, 192, 192),
                                  _fire(64, 256, 256), _fire(64, 256, 256))
            self.features.add(nn.Dropout(0.5))
            self.output = nn.HybridSequential(prefix='')
            self.output.add(nn.Conv2D(classes, kernel_size=1), nn.Activation('relu'), nn.AvgPool2D(13),
                            nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_squeezenet(version, pretrained=False, ctx=cpu(), root=os.path.join(base.data_dir(), 'models'),
                   **kwargs):
    """A SqueezeNet of ``version`` '1.0' or '1.1' (keyword arguments go to SqueezeNet);
    ``pretrained`` loads 'squeezenet<version>' from ``root`` onto ``ctx`` (the file must
    already be there: see model_store.get_model_file)."""
    net = SqueezeNet(version, **kwargs)
    if pretrained:
        net.load_parameters(get_model_file('squeezenet%s' % version, root=root), ctx=ctx)
    return net


def squeezenet1_0(**kwargs):
    """SqueezeNet 1.0; keyword arguments as get_squeezenet's."""
    return get_squeezenet('1.0', **kwargs)


def squeezenet1_1(**kwargs):
    """SqueezeNet 1.1; keyword arguments as get_squeezenet's."""
    return get_squeezenet('1.1', **kwargs)
