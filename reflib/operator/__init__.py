"""All operators.  Importing this package registers every operator module.

elemwise   tensor-tensor and tensor-scalar arithmetic (Symbol's + - * / **), where
unary      one-input math: exp, log, sqrt, relu, sigmoid, tanh, clip, ...
broadcast  broadcast_add/sub/mul/div, broadcast_to, broadcast_axis
reduce     sum, mean, max, min over axes
shape      Reshape, Flatten, expand_dims, transpose, Concat, SliceChannel, BlockGrad
nn         layers: FullyConnected, Activation, LeakyReLU, Dropout, Embedding
conv       Convolution          (spatial: the sliding-window helpers it shares
pooling    Pooling               with Pooling)
norm       BatchNorm
softmax    softmax and log_softmax
dot        dot and batch_dot
loss       loss heads: SoftmaxOutput, *RegressionOutput, MakeLoss
creation   arrays from nothing: _zeros, _ones, _full (mx.sym.zeros, an RNN's begin state)
sequence   reordering a sequence's axes: reverse, SwapAxis, SequenceMask/Last/Reverse
common     helpers the families share (no operators)
"""

from .registry import Operator, Param, register, get, list_operators, OpEnv  # noqa: F401
# importing each family registers its operators
from . import elemwise, unary, broadcast, reduce, shape  # noqa: F401
from . import nn, conv, pooling, norm, softmax, dot, loss, creation, sequence  # noqa: F401
