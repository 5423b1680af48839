"""``gluon.model_zoo``: the predefined networks of MXNet 1.9.1 (``vision``) and the store of
their pretrained weights (``model_store``; reflib reads them from disk, never the network).

>>> import reflib as mx
>>> net = mx.gluon.model_zoo.vision.get_model('resnet18_v1', classes=10, thumbnail=True)
>>> net.initialize()
>>> net(mx.nd.zeros((1, 3, 32, 32))).shape
(1, 10)
"""

from . import model_store
from . import vision

__all__ = ['model_store', 'vision']
