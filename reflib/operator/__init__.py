"""All operators.  Importing this package registers every operator module.

elemwise  tensor-tensor and tensor-scalar arithmetic (Symbol's + - * / **)
nn        layers: FullyConnected, Convolution, Pooling, BatchNorm, Activation, ...
tensor    shape and reduction ops: Reshape, Flatten, Concat, sum, broadcast_*, exp, ...
softmax   softmax and log_softmax
dot       dot and batch_dot
loss      loss heads: SoftmaxOutput, *RegressionOutput, MakeLoss
"""

from .registry import Operator, Param, register, get, list_operators, OpEnv  # noqa: F401
from . import elemwise, nn, tensor, softmax, dot, loss  # noqa: F401  (registration side effects)
