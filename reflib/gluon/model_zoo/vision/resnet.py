"""ResNet v1 (He et al. 2015, "Deep Residual Learning for Image Recognition") and v2 (He et
al. 2016, "Identity Mappings in Deep Residual Networks"), laid out as MXNet 1.9.1's model zoo
lays them out, so that parameter names (``resnetv10_stage1_conv0_weight`` ...) and saved
files match MXNet's.

v1 adds the shortcut and then applies ReLU (conv-BN-ReLU, ..., BN, add, ReLU); v2 puts BN
and ReLU *before* each convolution and adds the shortcut with nothing after it.

Naming notes, since the names are the contract with MXNet's .params files:
  * a residual block opens no name scope of its own, so its layers are numbered in the
    stage's scope (``stage1_conv0``, ``stage1_conv1``, ... across all blocks of a stage);
  * each stage is a HybridSequential with prefix ``stage<i>_``;
  * layers are created in the order MXNet creates them (body first, then the shortcut),
    because that order hands out the numbers.
"""

import os

from ... import nn
from ...block import HybridBlock
from .... import base
from ....context import cpu
from ..model_store import get_model_file

__all__ = ['ResNetV1', 'ResNetV2', 'BasicBlockV1', 'BasicBlockV2', 'BottleneckV1', 'BottleneckV2',
           'resnet18_v1', 'resnet34_v1', 'resnet50_v1', 'resnet101_v1', 'resnet152_v1',
           'resnet18_v2', 'resnet34_v2', 'resnet50_v2', 'resnet101_v2', 'resnet152_v2',
           'get_resnet']


def _conv3x3(channels, stride, in_channels):
    """A 3x3 convolution that keeps the spatial size (at stride 1), without bias: a
    BatchNorm follows (v1) or precedes (v2) it, so a bias would be redundant."""
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False,
                     in_channels=in_channels)


class BasicBlockV1(HybridBlock):
    """Two 3x3 convolutions with BatchNorm, added to the shortcut, then ReLU (ResNet-18/34 v1).

    channels: output channels; stride: of the first convolution (2 halves the size);
    downsample: project the shortcut with a strided 1x1 convolution + BatchNorm (needed when
    the shape changes); in_channels: input channels, 0 to infer them on the first forward.
    """

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix='')
        self.body.add(_conv3x3(channels, stride, in_channels), nn.BatchNorm(), nn.Activation('relu'),
                      _conv3x3(channels, 1, channels), nn.BatchNorm())
        self.downsample = None
        if downsample:
            self.downsample = nn.HybridSequential(prefix='')
            self.downsample.add(nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                                          in_channels=in_channels),
                                nn.BatchNorm())

    def hybrid_forward(self, F, x):
        shortcut = x if self.downsample is None else self.downsample(x)
        return F.Activation(shortcut + self.body(x), act_type='relu')


class BottleneckV1(HybridBlock):
    """1x1 reduce, 3x3, 1x1 expand (each with BatchNorm), added to the shortcut, then ReLU
    (ResNet-50/101/152 v1).  The inner width is channels // 4; the stride sits on the first
    1x1 convolution.  Arguments as BasicBlockV1's.

    The two 1x1 convolutions of the body keep their bias (MXNet's layout does), unlike the
    3x3 one and the shortcut's projection.
    """

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix='')
        self.body.add(nn.Conv2D(channels // 4, kernel_size=1, strides=stride), nn.BatchNorm(),
                      nn.Activation('relu'),
                      _conv3x3(channels // 4, 1, channels // 4), nn.BatchNorm(), nn.Activation('relu'),
                      nn.Conv2D(channels, kernel_size=1, strides=1), nn.BatchNorm())
        self.downsample = None
        if downsample:
            self.downsample = nn.HybridSequential(prefix='')
            self.downsample.add(nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                                          in_channels=in_channels),
                                nn.BatchNorm())

    def hybrid_forward(self, F, x):
        shortcut = x if self.downsample is None else self.downsample(x)
        return F.Activation(self.body(x) + shortcut, act_type='relu')


class BasicBlockV2(HybridBlock):
    """Pre-activation basic block (ResNet-18/34 v2): BN, ReLU, 3x3 conv, BN, ReLU, 3x3 conv,
    plus the shortcut.  When downsampling, the shortcut is a strided 1x1 convolution of the
    *activated* input (so both paths see normalised values).  Arguments as BasicBlockV1's.
    """

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self.downsample = None
        if downsample:
            self.downsample = nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels)

    def hybrid_forward(self, F, x):
        shortcut = x
        x = F.Activation(self.bn1(x), act_type='relu')
        if self.downsample is not None:
            shortcut = self.downsample(x)
        x = self.conv1(x)
        x = self.conv2(F.Activation(self.bn2(x), act_type='relu'))
        return x + shortcut


class BottleneckV2(HybridBlock):
    """Pre-activation bottleneck (ResNet-50/101/152 v2): (BN, ReLU, conv) three times --
    1x1 to channels // 4, 3x3 carrying the stride, 1x1 back to channels -- plus the shortcut,
    which is a strided 1x1 convolution of the activated input when downsampling.  No
    convolution has a bias.  Arguments as BasicBlockV1's.
    """

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(channels // 4, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels // 4, stride, channels // 4)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self.downsample = None
        if downsample:
            self.downsample = nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels)

    def hybrid_forward(self, F, x):
        shortcut = x
        x = F.Activation(self.bn1(x), act_type='relu')
        if self.downsample is not None:
            shortcut = self.downsample(x)
        x = self.conv1(x)
        x = self.conv2(F.Activation(self.bn2(x), act_type='relu'))
        x = self.conv3(F.Activation(self.bn3(x), act_type='relu'))
        return x + shortcut


def _stage(block, num_blocks, channels, stride, index, in_channels):
    """Stage ``index`` (1-based): ``num_blocks`` residual blocks under the prefix
    ``stage<index>_``; only the first may change stride or width, so only it may need a
    projected shortcut."""
    stage = nn.HybridSequential(prefix='stage%d_' % index)
    with stage.name_scope():
        stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels, prefix=''))
        for _ in range(num_blocks - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=''))
    return stage


def _stem(features, channels, thumbnail):
    """The first layers: for ``thumbnail`` (small inputs such as CIFAR's 32x32) one 3x3
    convolution at stride 1; otherwise a 7x7/2 convolution, BN, ReLU and 3x3/2 max pooling,
    which shrink an ImageNet image by 4."""
    if thumbnail:
        features.add(_conv3x3(channels, 1, 0))
    else:
        features.add(nn.Conv2D(channels, 7, 2, 3, use_bias=False), nn.BatchNorm(), nn.Activation('relu'),
                     nn.MaxPool2D(3, 2, 1))


class ResNetV1(HybridBlock):
    """ResNet v1: a stem, one stage per entry of ``layers`` and a Dense classifier.

    block: BasicBlockV1 or BottleneckV1; layers: blocks per stage; channels: the stem's
    width followed by each stage's (one longer than ``layers``); classes: outputs of the
    classifier; thumbnail: the small-input stem (see ``_stem``).  The children are
    ``features`` (a HybridSequential ending in global average pooling) and ``output``.
    """

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(channels) - 1, \
            'ResNetV1: channels must be one longer than layers (the stem width comes first)'
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            _stem(self.features, channels[0], thumbnail)
            for i, num_blocks in enumerate(layers):
                self.features.add(_stage(block, num_blocks, channels[i + 1], 1 if i == 0 else 2, i + 1,
                                         in_channels=channels[i]))
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV2(HybridBlock):
    """ResNet v2 (pre-activation): arguments and children as ResNetV1's, with BasicBlockV2
    or BottleneckV2 as ``block``.

    The features start with a BatchNorm without scale or shift (it standardises the raw
    input) and, since v2 blocks end without activation, end with BN and ReLU before the
    pooling and a Flatten.
    """

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(channels) - 1, \
            'ResNetV2: channels must be one longer than layers (the stem width comes first)'
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(nn.BatchNorm(scale=False, center=False))
            _stem(self.features, channels[0], thumbnail)
            in_channels = channels[0]
            for i, num_blocks in enumerate(layers):
                self.features.add(_stage(block, num_blocks, channels[i + 1], 1 if i == 0 else 2, i + 1,
                                         in_channels=in_channels))
                in_channels = channels[i + 1]
            self.features.add(nn.BatchNorm(), nn.Activation('relu'), nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes, in_units=in_channels)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


# depth -> (kind of block, blocks per stage, stem width then stage widths)
_SPEC = {18: ('basic', [2, 2, 2, 2], [64, 64, 128, 256, 512]),
         34: ('basic', [3, 4, 6, 3], [64, 64, 128, 256, 512]),
         50: ('bottleneck', [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
         101: ('bottleneck', [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
         152: ('bottleneck', [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}
_NETS = {1: ResNetV1, 2: ResNetV2}
_BLOCKS = {1: {'basic': BasicBlockV1, 'bottleneck': BottleneckV1},
           2: {'basic': BasicBlockV2, 'bottleneck': BottleneckV2}}


def get_resnet(version, num_layers, pretrained=False, ctx=cpu(), root=os.path.join(base.data_dir(), 'models'),
               **kwargs):
    """A ResNet of ``version`` 1 or 2 and depth ``num_layers`` (18, 34, 50, 101 or 152).

    Further keyword arguments (``classes``, ``thumbnail``, ``prefix``, ``params``) go to
    ResNetV1/ResNetV2.  ``pretrained`` loads 'resnet<depth>_v<version>' from ``root`` onto
    ``ctx`` (see model_store.get_model_file: the file must already be there).
    """
    assert num_layers in _SPEC, 'Invalid number of layers: %d. Options are %s' % (num_layers, sorted(_SPEC))
    assert version in _NETS, 'Invalid resnet version: %d. Options are 1 and 2.' % version
    kind, layers, channels = _SPEC[num_layers]
    net = _NETS[version](_BLOCKS[version][kind], layers, channels, **kwargs)
    if pretrained:
        net.load_parameters(get_model_file('resnet%d_v%d' % (num_layers, version), root=root), ctx=ctx)
    return net


def resnet18_v1(**kwargs):
    """ResNet-18 v1 (basic blocks 2-2-2-2); keyword arguments as get_resnet's."""
    return get_resnet(1, 18, **kwargs)


def resnet34_v1(**kwargs):
    """ResNet-34 v1 (basic blocks 3-4-6-3); keyword arguments as get_resnet's."""
    return get_resnet(1, 34, **kwargs)


def resnet50_v1(**kwargs):
    """ResNet-50 v1 (bottlenecks 3-4-6-3); keyword arguments as get_resnet's."""
    return get_resnet(1, 50, **kwargs)


def resnet101_v1(**kwargs):
    """ResNet-101 v1 (bottlenecks 3-4-23-3); keyword arguments as get_resnet's."""
    return get_resnet(1, 101, **kwargs)


def resnet152_v1(**kwargs):
    """ResNet-152 v1 (bottlenecks 3-8-36-3); keyword arguments as get_resnet's."""
    return get_resnet(1, 152, **kwargs)


def resnet18_v2(**kwargs):
    """ResNet-18 v2 (pre-activation basic blocks 2-2-2-2); keyword arguments as get_resnet's."""
    return get_resnet(2, 18, **kwargs)


def resnet34_v2(**kwargs):
    """ResNet-34 v2 (pre-activation basic blocks 3-4-6-3); keyword arguments as get_resnet's."""
    return get_resnet(2, 34, **kwargs)


def resnet50_v2(**kwargs):
    """ResNet-50 v2 (pre-activation bottlenecks 3-4-6-3); keyword arguments as get_resnet's."""
    return get_resnet(2, 50, **kwargs)


def resnet101_v2(**kwargs):
    """ResNet-101 v2 (pre-activation bottlenecks 3-4-23-3); keyword arguments as get_resnet's."""
    return get_resnet(2, 101, **kwargs)


def resnet152_v2(**kwargs):
    """ResNet-152 v2 (pre-activation bottlenecks 3-8-36-3); keyword arguments as get_resnet's."""
    return get_resnet(2, 152, **kwargs)
