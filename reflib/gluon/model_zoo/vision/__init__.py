"""``gluon.model_zoo.vision``: image classification networks laid out as MXNet 1.9.1's model
zoo lays them out -- same layers, same order, same parameter names -- so that MXNet's
pretrained ``.params`` files load into them and scripts that name layers keep working.

One file per family: resnet (v1, v2), vgg, alexnet, squeezenet, mobilenet (v1, v2), densenet
and inception (v3).

Build by name with ``get_model('resnet50_v1', classes=10)`` or call the function
(``resnet50_v1(...)``).  ``pretrained=True`` reads the weights from ``root``
(``$MXNET_HOME/models``); reflib does not download them -- see ``model_store``.  The
pretrained networks expect RGB images of at least 224x224, scaled to [0, 1] and normalised
with mean (0.485, 0.456, 0.406) and std (0.229, 0.224, 0.225); Inception v3 expects 299x299.
"""

from . import alexnet as _alexnet, densenet as _densenet, inception as _inception
from . import mobilenet as _mobilenet, resnet as _resnet, squeezenet as _squeezenet, vgg as _vgg
from .alexnet import AlexNet, alexnet
from .densenet import DenseNet, densenet121, densenet161, densenet169, densenet201
from .inception import Inception3, inception_v3
from .mobilenet import (MobileNet, MobileNetV2, mobilenet1_0, mobilenet0_75, mobilenet0_5, mobilenet0_25,
                        mobilenet_v2_1_0, mobilenet_v2_0_75, mobilenet_v2_0_5, mobilenet_v2_0_25,
                        get_mobilenet, get_mobilenet_v2)
from .resnet import (ResNetV1, ResNetV2, BasicBlockV1, BasicBlockV2, BottleneckV1, BottleneckV2,
                     resnet18_v1, resnet34_v1, resnet50_v1, resnet101_v1, resnet152_v1,
                     resnet18_v2, resnet34_v2, resnet50_v2, resnet101_v2, resnet152_v2, get_resnet)
from .squeezenet import SqueezeNet, squeezenet1_0, squeezenet1_1, get_squeezenet
from .vgg import VGG, vgg11, vgg13, vgg16, vgg19, vgg11_bn, vgg13_bn, vgg16_bn, vgg19_bn, get_vgg

__all__ = (_alexnet.__all__ + _densenet.__all__ + _inception.__all__ + _mobilenet.__all__ + _resnet.__all__
           + _squeezenet.__all__ + _vgg.__all__ + ['get_model'])

# MXNet's names (get_model's keys) -> the functions that build them
_MODELS = {
    'resnet18_v1': resnet18_v1, 'resnet34_v1': resnet34_v1, 'resnet50_v1': resnet50_v1,
    'resnet101_v1': resnet101_v1, 'resnet152_v1': resnet152_v1,
    'resnet18_v2': resnet18_v2, 'resnet34_v2': resnet34_v2, 'resnet50_v2': resnet50_v2,
    'resnet101_v2': resnet101_v2, 'resnet152_v2': resnet152_v2,
    'vgg11': vgg11, 'vgg13': vgg13, 'vgg16': vgg16, 'vgg19': vgg19,
    'vgg11_bn': vgg11_bn, 'vgg13_bn': vgg13_bn, 'vgg16_bn': vgg16_bn, 'vgg19_bn': vgg19_bn,
    'alexnet': alexnet,
    'squeezenet1.0': squeezenet1_0, 'squeezenet1.1': squeezenet1_1,
    'mobilenet1.0': mobilenet1_0, 'mobilenet0.75': mobilenet0_75, 'mobilenet0.5': mobilenet0_5,
    'mobilenet0.25': mobilenet0_25,
    'mobilenetv2_1.0': mobilenet_v2_1_0, 'mobilenetv2_0.75': mobilenet_v2_0_75,
    'mobilenetv2_0.5': mobilenet_v2_0_5, 'mobilenetv2_0.25': mobilenet_v2_0_25,
    'densenet121': densenet121, 'densenet161': densenet161, 'densenet169': densenet169,
    'densenet201': densenet201,
    'inceptionv3': inception_v3,
}


def get_model(name, **kwargs):
    """The network MXNet's model zoo calls ``name`` (case does not matter), e.g.
    'resnet18_v1', 'vgg16_bn', 'squeezenet1.1', 'mobilenetv2_0.5', 'densenet121', 'inceptionv3'.

    Keyword arguments go to the model's function: ``classes``, ``pretrained``, ``ctx``,
    ``root`` and the model's own (``thumbnail`` for ResNets, ``batch_norm`` for VGG...).
    An unknown name is a ValueError that lists the names available.
    """
    key = name.lower()
    if key not in _MODELS:
        raise ValueError('Model %s is not supported. Available options are\n\t%s'
                         % (key, '\n\t'.join(sorted(_MODELS))))
    return _MODELS[key](**kwargs)
