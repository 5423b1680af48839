"""All operators.  Importing this package registers every operator module.

The modules, one family of operators each::

    elemwise   tensor-tensor and tensor-scalar arithmetic (Symbol's + - * / ** %), maximum,
               minimum, hypot, add_n, where
    unary      one-input math: exp, log, sqrt, rsqrt, cbrt, relu, sigmoid, tanh, clip,
               smooth_l1, ..., and Cast
    amp        the casts of automatic mixed precision: amp_cast, amp_multicast
    trig       sin, cos, tan, their inverses and hyperbolic forms, degrees, radians
    special    gamma, gammaln, erf, erfinv
    rounding   round, rint, fix, trunc, floor, ceil
    compare    ==, !=, >, >=, <, <= and logical and/or/xor/not (same-shape, broadcast,
               scalar forms)
    broadcast  broadcast_add/sub/mul/div/maximum/minimum/power/hypot/mod, broadcast_to,
               broadcast_axis, broadcast_like
    binary_math  the math of maximum, power, mod, the comparisons, ... shared by their
               same-shape, broadcast and scalar forms (no operators)
    reduce     sum, mean, max, min, prod, nansum, nanprod, norm, moments over axes
    shape      Reshape, Flatten, expand_dims, transpose, Concat, SliceChannel, BlockGrad
    nn         layers: FullyConnected, Activation, LeakyReLU, Dropout, Embedding
    conv       Convolution          (spatial: the sliding-window helpers it shares
    pooling    Pooling               with Pooling)
    deconv     Deconvolution (transposed convolution, from Convolution's own pieces)
    im2col     im2col, col2im (a convolution's patch matrix and its adjoint, from conv's im2col/col2im)
    resample   UpSampling; GridGenerator, BilinearSampler, SpatialTransformer (sampling grids)
    vision     image layers: Pad, ROIPooling, Correlation
    norm       BatchNorm (and its older form BatchNorm_v1), LayerNorm, InstanceNorm, GroupNorm
    normalize  dividing by a norm: LRN, L2Normalization
    ctc        CTCLoss (ctc_loss)
    softmax    softmax and log_softmax
    softmax_activation  SoftmaxActivation, the older softmax layer (mode instance/channel)
    kl_sparse_reg  IdentityAttachKLSparseReg (a sparseness penalty added in backward)
    dot        dot and batch_dot
    loss       loss heads: SoftmaxOutput, *RegressionOutput, MakeLoss, SVMOutput; softmax_cross_entropy
    creation   arrays from nothing: _zeros, _ones, _full (an RNN's begin state), _arange, _linspace, _eye
    sequence   reordering a sequence's axes: reverse, SwapAxis, SequenceMask/Last/Reverse
    rnn        the fused recurrent layer RNN (stacked RNN/LSTM/GRU, one flat parameter vector)
    indexing   elements at given positions: take, batch_take, pick, one_hot, gather_nd, scatter_nd
    slicing    contiguous ranges: slice (crop), slice_axis, slice_like, Crop
    assign     writing into a copy: _slice_assign(_scalar) (_crop_assign), fill_element_0index, _onehot_encode
    layout     the same elements laid out anew: tile, repeat, stack, squeeze, reshape_like, diag,
               depth_to_space, space_to_depth
    ordering   by value: sort, argsort, topk, argmax, argmin, argmax_channel, _histogram
    linalg     batched matrix algebra: gemm, potrf, trsm, inverse, det, ... (mx.sym.linalg)
    linalg_diag    its diagonals and triangles: sumlogdiag, extract/makediag, extract/maketrian
    linalg_factor  its factorizations: syevd (eigendecomposition), gelqf (LQ)
    update     fused optimizer steps: sgd_update, adam_update, _adamw_update, ... (states updated in
               place, as aux)
    multi_update  the same for many weights in one call: multi_sgd_update, preloaded_multi_sgd_update,
               _multi_adamw_update, _multi_lamb_update, ...; multi_sum_sq and multi_lars
    sampling   random draws: _random_uniform, _sample_normal, _sample_multinomial, _shuffle, ...
    pdf        probability densities of samples: _random_pdf_normal, _random_pdf_dirichlet, ...
    cached_op  _CachedOp: a hybridized block's call as autograd.get_symbol shows it (not runnable)
    custom     Custom: operators written in Python (mx.operator.CustomOp, CustomOpProp, register)
    common     helpers the families share (no operators)
"""

import importlib
import pkgutil

from .registry import Operator, Param, get, list_operators, OpEnv  # noqa: F401
# mx.operator.register is MXNet's: it registers a Python operator (a CustomOpProp) by name.
# reflib's own operator classes register with registry.register.
from .custom import CustomOp, CustomOpProp, register  # noqa: F401
from .python_op import PythonOp, NumpyOp, NDArrayOp  # noqa: F401
from .arguments import OperatorArguments, get_all_registered_operators, get_operator_arguments  # noqa: F401

__all__ = ['Operator', 'Param', 'get', 'list_operators', 'OpEnv', 'CustomOp', 'CustomOpProp', 'register', 'PythonOp', 'NumpyOp', 'NDArrayOp',
           'OperatorArguments', 'get_all_registered_operators', 'get_operator_arguments']

# Importing a family registers its operators; every module in this package is one
# (common, spatial, binary_math and registry register none).
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module('.' + _module, __name__)
del _module
