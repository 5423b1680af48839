"""``gluon.contrib.cnn``: the deformable convolution layers (conv_layers.py), under the names
MXNet 1.9.1 gives them (``from mxnet.gluon.contrib.cnn import DeformableConvolution``)."""

from .conv_layers import DeformableConvolution, ModulatedDeformableConvolution

__all__ = ['DeformableConvolution', 'ModulatedDeformableConvolution']
