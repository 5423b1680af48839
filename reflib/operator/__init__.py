"""All operators.  Importing this package registers every operator module.

elemwise  tensor-tensor and tensor-scalar arithmetic (Symbol's + - * / **)
nn        layers: FullyConnected, Convolution, Pooling, BatchNorm, Activation, ...
tensor    shape and reduction ops: Reshape, Flatten, Concat, sum, broadcast_*, exp, ...
softmax   softmax and log_softmax
dot       dot and batch_dot
loss      loss heads: SoftmaxOutput, *RegressionOutput, MakeLoss
creation  arrays from nothing: _zeros, _ones, _full (mx.sym.zeros, an RNN's begin state)
sequence  reordering a sequence's axes: reverse, SwapAxis
"""

from .registry import Operator, Param, register, get, list_operators, OpEnv  # noqa: F401
from . import elemwise, nn, tensor, softmax, dot, loss, creation, sequence  # noqa: F401  (registration side effects)
