"""``gluon.nn``: the layers, each a HybridBlock over operators of reflib/operator/ (or a
plain Block: Sequential, Lambda) -- the layer names its operator and parameters, the
operator does the arithmetic, so hybridized or not the numbers are the same.  The modules::

    activations    Activation, LeakyReLU, PReLU, ELU, SELU, Swish, GELU
    basic_layers   Sequential, HybridSequential, Dense, Dropout, the normalisations, Embedding,
                   Flatten, Lambda, HybridLambda
    conv_layers    the convolutions (and transposed ones), the poolings, ReflectionPad2D

(The names are listed one by one rather than star-imported, so that a linter can check
them; tests/test_gluon_nn.py checks that the lists agree with the modules' __all__.)
"""

from ..block import Block, HybridBlock, SymbolBlock     # as in MXNet: nn.Block is gluon.Block
from .activations import Activation, LeakyReLU, PReLU, ELU, SELU, Swish, GELU
from .basic_layers import (Sequential, HybridSequential, Dense, Dropout, Embedding, BatchNorm, BatchNormReLU,
                           InstanceNorm, LayerNorm, GroupNorm, Flatten, Lambda, HybridLambda)
from .conv_layers import (Conv1D, Conv2D, Conv3D, Conv1DTranspose, Conv2DTranspose, Conv3DTranspose,
                          MaxPool1D, MaxPool2D, MaxPool3D, AvgPool1D, AvgPool2D, AvgPool3D,
                          GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D,
                          GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D, ReflectionPad2D)

__all__ = ['Block', 'HybridBlock', 'SymbolBlock',
           'Activation', 'LeakyReLU', 'PReLU', 'ELU', 'SELU', 'Swish', 'GELU',
           'Sequential', 'HybridSequential', 'Dense', 'Dropout', 'Embedding', 'BatchNorm', 'BatchNormReLU',
           'InstanceNorm', 'LayerNorm', 'GroupNorm', 'Flatten', 'Lambda', 'HybridLambda',
           'Conv1D', 'Conv2D', 'Conv3D', 'Conv1DTranspose', 'Conv2DTranspose', 'Conv3DTranspose',
           'MaxPool1D', 'MaxPool2D', 'MaxPool3D', 'AvgPool1D', 'AvgPool2D', 'AvgPool3D',
           'GlobalMaxPool1D', 'GlobalMaxPool2D', 'GlobalMaxPool3D',
           'GlobalAvgPool1D', 'GlobalAvgPool2D', 'GlobalAvgPool3D', 'ReflectionPad2D']
