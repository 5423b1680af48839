"""MobileNet (Howard et al. 2017) and MobileNetV2 (Sandler et al. 2018, "Inverted Residuals
and Linear Bottlenecks"), as MXNet 1.9.1's model zoo builds them.

MobileNet replaces each convolution by a depthwise 3x3 (one filter per channel) and a
pointwise 1x1, each followed by BatchNorm and ReLU.  MobileNetV2 stacks linear bottlenecks:
1x1 expansion by ``t``, depthwise 3x3, 1x1 projection without activation, with a shortcut
when input and output shapes agree; its activation is ReLU6 (ReLU clipped at 6).  The
``multiplier`` scales every width (``int(width * multiplier)``).
"""

import os

from ... import nn
from ...block import HybridBlock
from .... import base
from ....context import cpu
from ..model_store import get_model_file

__all__ = ['MobileNet', 'MobileNetV2', 'mobilenet1_0', 'mobilenet_v2_1_0', 'mobilenet0_75',
           'mobilenet_v2_0_75', 'mobilenet0_5', 'mobilenet_v2_0_5', 'mobilenet0_25', 'mobilenet_v2_0_25',
           'get_mobilenet', 'get_mobilenet_v2']


class RELU6(HybridBlock):
    """min(max(x, 0), 6).  (Named as MXNet names it: the name numbers its blocks, which name the
    nodes of an exported graph.)"""

    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6, name='relu6')


def _conv_bn(out, channels=1, kernel=1, stride=1, pad=0, num_group=1, active=True, relu6=False):
    """Append convolution (no bias: BatchNorm shifts), BatchNorm and, when ``active``,
    ReLU or ReLU6 to ``out``."""
    out.add(nn.Conv2D(channels, kernel, stride, pad, groups=num_group, use_bias=False),
            nn.BatchNorm(scale=True))
    if active:
        out.add(RELU6() if relu6 else nn.Activation('relu'))


def _depthwise_separable(out, dw_channels, channels, stride):
    _conv_bn(out, channels=dw_channels, kernel=3, stride=stride, pad=1, num_group=dw_channels)
    _conv_bn(out, channels=channels)


class LinearBottleneck(HybridBlock):
    """MobileNetV2's block: 1x1 to ``in_channels * t`` channels, depthwise 3x3 at ``stride``,
    1x1 to ``channels`` with no activation (ReLU would destroy information in the narrow
    projection), plus the input when ``stride`` is 1 and the widths agree."""

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        with self.name_scope():
            self.out = nn.HybridSequential()
            _conv_bn(self.out, in_channels * t, relu6=True)
            _conv_bn(self.out, in_channels * t, kernel=3, stride=stride, pad=1, num_group=in_channels * t,
                     relu6=True)
            _conv_bn(self.out, channels, active=False)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        return F.elemwise_add(out, x) if self.use_shortcut else out


class MobileNet(HybridBlock):
    """MobileNet v1 with widths scaled by ``multiplier`` (at least 0.25) and ``classes``
    outputs; children ``features`` (ending in global average pooling and Flatten) and
    ``output`` (Dense)."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        widths = lambda values: [int(v * multiplier) for v in values]  # noqa: E731
        dw_channels = widths([32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024])
        channels = widths([64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2)
        strides = [1, 2] * 3 + [1] * 5 + [2, 1]
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            with self.features.name_scope():
                _conv_bn(self.features, channels=int(32 * multiplier), kernel=3, pad=1, stride=2)
                for dwc, c, s in zip(dw_channels, channels, strides):
                    _depthwise_separable(self.features, dwc, c, s)
                self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class MobileNetV2(HybridBlock):
    """MobileNetV2 with widths scaled by ``multiplier`` and ``classes`` outputs; children
    ``features`` (prefix ``'features_'``) and ``output`` (prefix ``'output_'``: a 1x1 convolution
    'pred' and Flatten).  The last 1x1 layer keeps 1280 channels unless ``multiplier`` > 1."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        widths = lambda values: [int(v * multiplier) for v in values]  # noqa: E731
        in_channels = widths([32] + [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3)
        channels = widths([16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3 + [320])
        expansions = [1] + [6] * 16
        strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='features_')
            with self.features.name_scope():
                _conv_bn(self.features, int(32 * multiplier), kernel=3, stride=2, pad=1, relu6=True)
                for in_c, c, t, s in zip(in_channels, channels, expansions, strides):
                    self.features.add(LinearBottleneck(in_channels=in_c, channels=c, t=t, stride=s))
                last = int(1280 * multiplier) if multiplier > 1.0 else 1280
                _conv_bn(self.features, last, relu6=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix='output_')
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix='pred_'), nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _suffix(multiplier):
    # the published files are named 1.0, 0.75, 0.5, 0.25: two decimals, less a trailing 0
    text = '{0:.2f}'.format(multiplier)
    return text[:-1] if text in ('1.00', '0.50') else text


def get_mobilenet(multiplier, pretrained=False, ctx=cpu(), root=os.path.join(base.data_dir(), 'models'),
                  **kwargs):
    """A MobileNet of width ``multiplier`` (keyword arguments go to MobileNet); ``pretrained``
    loads 'mobilenet<multiplier>' from ``root`` onto ``ctx`` (the file must already be there)."""
    net = MobileNet(multiplier, **kwargs)
    if pretrained:
        net.load_parameters(get_model_file('mobilenet%s' % _suffix(multiplier), root=root), ctx=ctx)
    return net


def get_mobilenet_v2(multiplier, pretrained=False, ctx=cpu(), root=os.path.join(base.data_dir(), 'models'),
                     **kwargs):
    """A MobileNetV2 of width ``multiplier`` (keyword arguments go to MobileNetV2);
    ``pretrained`` loads 'mobilenetv2_<multiplier>' from ``root`` onto ``ctx`` (the file must
    already be there)."""
    net = MobileNetV2(multiplier, **kwargs)
    if pretrained:
        net.load_parameters(get_model_file('mobilenetv2_%s' % _suffix(multiplier), root=root), ctx=ctx)
    return net


def mobilenet1_0(**kwargs):
    """MobileNet at full width; keyword arguments as get_mobilenet's."""
    return get_mobilenet(1.0, **kwargs)


def mobilenet0_75(**kwargs):
    """MobileNet at 0.75 width; keyword arguments as get_mobilenet's."""
    return get_mobilenet(0.75, **kwargs)


def mobilenet0_5(**kwargs):
    """MobileNet at half width; keyword arguments as get_mobilenet's."""
    return get_mobilenet(0.5, **kwargs)


def mobilenet0_25(**kwargs):
    """MobileNet at quarter width; keyword arguments as get_mobilenet's."""
    return get_mobilenet(0.25, **kwargs)


def mobilenet_v2_1_0(**kwargs):
    """MobileNetV2 at full width; keyword arguments as get_mobilenet_v2's."""
    return get_mobilenet_v2(1.0, **kwargs)


def mobilenet_v2_0_75(**kwargs):
    """MobileNetV2 at 0.75 width; keyword arguments as get_mobilenet_v2's."""
    return get_mobilenet_v2(0.75, **kwargs)


def mobilenet_v2_0_5(**kwargs):
    """MobileNetV2 at half width; keyword arguments as get_mobilenet_v2's."""
    return get_mobilenet_v2(0.5, **kwargs)


def mobilenet_v2_0_25(**kwargs):
    """MobileNetV2 at quarter width; keyword arguments as get_mobilenet_v2's."""
    return get_mobilenet_v2(0.25, **kwargs)
