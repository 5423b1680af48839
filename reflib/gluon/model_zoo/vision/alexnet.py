"""AlexNet (Krizhevsky 2014, "One weird trick for parallelizing convolutional neural
networks": the single-tower variant), as MXNet 1.9.1's model zoo builds it: five
convolutions with ReLU and three max poolings, two Dense-4096 layers with dropout, and a
Dense classifier.  Meant for 224x224 inputs (the first Dense sees 256 x 6 x 6 values).
"""

import os

from ... import nn
from ...block import HybridBlock
from .... import base
from ....context import cpu
from ..model_store import get_model_file

__all__ = ['AlexNet', 'alexnet']


class AlexNet(HybridBlock):
    """AlexNet with ``classes`` outputs; children ``features`` and ``output``."""

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            # the features number their layers in a scope of their own (conv0.., dense0..),
            # as MXNet's do, so the classifier is 'dense0' of the network's scope
            with self.features.name_scope():
                for channels, kernel, stride, pad, pool in [(64, 11, 4, 2, True), (192, 5, 1, 2, True),
                                                            (384, 3, 1, 1, False), (256, 3, 1, 1, False),
                                                            (256, 3, 1, 1, True)]:
                    self.features.add(nn.Conv2D(channels, kernel_size=kernel, strides=stride, padding=pad,
                                                activation='relu'))
                    if pool:
                        self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(nn.Flatten())
                for _ in range(2):
                    self.features.add(nn.Dense(4096, activation='relu'), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def alexnet(pretrained=False, ctx=cpu(), root=os.path.join(base.data_dir(), 'models'), **kwargs):
    """An AlexNet (keyword arguments go to AlexNet); ``pretrained`` loads 'alexnet' from
    ``root`` onto ``ctx`` (the file must already be there: see model_store.get_model_file)."""
    net = AlexNet(**kwargs)
    if pretrained:
        net.load_parameters(get_model_file('alexnet', root=root), ctx=ctx)
    return net
