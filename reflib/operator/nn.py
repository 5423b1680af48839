"""Neural-network layers: FullyConnected, Activation, ...

Each class is one operator: its parameters, shape rule, forward and backward.
"""

import math

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape, merge_dtype
from ..shapes import prod as _prod, format_shape as _fmt_shape
from .common import same_as_data, erf_array, scatter_add, rounded_once
from .sparse_rows import SparseRows, summed_rows
from ..base import ShapeError, ParamError


@register
class FullyConnected(Operator):
    """``out = data · weightᵀ + bias``.

    With ``flatten=True`` (default) data of shape (N, d1, d2, ...) is seen as
    (N, d1*d2*...); with ``flatten=False`` the product runs over the last axis
    only.  weight has shape (num_hidden, input_dim), bias (num_hidden,).
    """
    eliminable = False
    name = 'FullyConnected'
    params = {
        'num_hidden': Param('int', doc='number of output units', low=1),
        'no_bias': Param('bool', False, doc='leave out the bias term'),
        'flatten': Param('bool', True, doc='flatten all but the first axis of data'),
    }

    def inputs(self, p):
        return ['data', 'weight'] if p.no_bias else ['data', 'weight', 'bias']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is None:
            # like MXNet: nothing is deduced (not even weight's first dim) until data is known
            return list(in_shapes), [out], aux_shapes
        if out is not None and len(out) > 0:
            # backwards, as MXNet: the output's batch is the data's (an RNN's begin state is
            # zeros of shape (0, n), whose batch only the layer that reads it can tell)
            lead = 1 if p.flatten else len(data) - 1
            data = merge_shape(data, tuple(out[:lead]) + (0,) * (len(data) - lead), self.name)
        if p.flatten:
            in_dim = _prod(data[1:]) if all(data[1:]) else 0
            out = merge_shape(out, (data[0], p.num_hidden), self.name)
        else:
            in_dim = data[-1]
            out = merge_shape(out, tuple(data[:-1]) + (p.num_hidden,), self.name)
        weight = (p.num_hidden, in_dim)
        shapes = [data, weight] + ([] if p.no_bias else [(p.num_hidden,)])
        return shapes, [out], aux_shapes

    def _flat(self, p, data):
        # sizes spelled out rather than -1, which numpy cannot resolve for a zero-size batch
        if p.flatten:
            return data.reshape(data.shape[0], _prod(data.shape[1:]))
        return data.reshape(_prod(data.shape[:-1]), data.shape[-1])

    def backward_reads(self, p):
        return [0, 1], []                  # data and weight; never the output

    def forward(self, p, env, inputs, aux):
        data, weight = inputs[0], inputs[1]
        out_shape = (data.shape[0], p.num_hidden) if p.flatten else data.shape[:-1] + (p.num_hidden,)
        target = env.target(0)
        out = env.xp.matmul(self._flat(p, data), weight.T,
                            out=None if target is None else target.reshape(-1, p.num_hidden))
        if not p.no_bias:
            out += inputs[2]
        return [out.reshape(out_shape) if target is None else target]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, weight = env.xp, inputs[0], inputs[1]
        grad = out_grads[0].reshape(-1, p.num_hidden)
        grads = [None, None]
        if env.wants_grad(0):
            target = env.grad_target(0)
            flat = None if target is None else target.reshape(grad.shape[0], weight.shape[1])
            d_data = xp.matmul(grad, weight, out=flat)
            grads[0] = d_data.reshape(data.shape) if target is None else target
        if env.wants_grad(1):
            grads[1] = xp.matmul(grad.T, self._flat(p, data), out=env.grad_target(1))
        if not p.no_bias:
            grads.append(grad.sum(axis=0, out=env.grad_target(2)) if env.wants_grad(2) else None)
        return grads


@register
class Activation(Operator):
    """Elementwise nonlinearity chosen by ``act_type``."""
    name = 'Activation'
    unnamed_inputs = True      # the monitor reports its input as <name>_input0, as MXNet
    params = {'act_type': Param('enum', choices=('relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'),
                                doc='which function')}

    def inplace(self, p):
        return [(0, 0)]

    def backward_reads(self, p):
        # softsign's derivative needs x; the others are functions of the output y
        return ([0], []) if p.act_type == 'softsign' else ([], [0])

    def backward_inplace(self, p):
        return [(0, 0)]

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        out = env.target(0)                 # the planned array, possibly x's own memory
        if out is None:
            out = xp.empty_like(x)
        if p.act_type == 'relu':
            xp.maximum(x, 0, out=out)
        elif p.act_type == 'sigmoid':
            xp.negative(x, out=out)
            rounded_once(xp, xp.exp, out, out=out)
            xp.add(1, out, out=out)
            xp.divide(1, out, out=out)
        elif p.act_type == 'tanh':
            xp.tanh(x, out=out)
        elif p.act_type == 'softrelu':
            xp.logaddexp(0, x, out=out)
        else:                               # softsign
            xp.divide(x, 1 + xp.abs(x), out=out)
        return [out]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, g, x, y = env.xp, out_grads[0], inputs[0], outputs[0]
        out = env.grad_target(0)           # None (a new array), or possibly g's own memory
        if p.act_type == 'relu':
            return [xp.multiply(g, y > 0, out=out)]                 # y > 0 is x > 0
        if p.act_type == 'sigmoid':
            return [xp.multiply(xp.multiply(g, y, out=out), 1 - y, out=out)]
        if p.act_type == 'tanh':
            return [xp.multiply(g, 1 - y * y, out=out)]
        if p.act_type == 'softrelu':      # d/dx log(1+e^x) = sigmoid(x) = 1 - e^{-y}
            return [xp.multiply(g, 1 - rounded_once(xp, xp.exp, -y), out=out)]
        return [xp.divide(g, (1 + xp.abs(x)) ** 2, out=out)]     # softsign


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946


@register
class LeakyReLU(Operator):
    """ReLU variants that keep some signal for negative inputs, chosen by ``act_type``.

    =======  =============================================  ====================
    leaky    ``x if x > 0 else slope * x``
    elu      ``x if x > 0 else slope * (exp(x) - 1)``
    selu     ``lambda * (x if x > 0 else alpha * (exp(x) - 1))``  (slope unused)
    gelu     ``x * Phi(x)`` with the exact normal cdf (erf, not the tanh fit)
    prelu    ``x if x > 0 else gamma[c] * x``, gamma a learned input of shape
             (channels,) along axis 1 (or (1,): one shared slope)
    rrelu    ``x if x > 0 else a * x``; training draws ``a`` per element from
             U(lower_bound, upper_bound), otherwise ``a = (lower+upper)/2``.
             Its second output ``mask`` holds the slopes used and, as in
             MXNet, is visible.
    =======  =============================================  ====================

    The derivative at exactly 0 is the negative side's (MXNet tests ``x > 0``).
    SELU's backward is the true derivative; MXNet 1.9.1's differs for x <= 0
    (a bug there, see ``backward``).
    """
    name = 'LeakyReLU'
    params = {
        'act_type': Param('enum', 'leaky', choices=('elu', 'gelu', 'leaky', 'prelu', 'rrelu', 'selu'),
                          doc='which variant'),
        'slope': Param('float', 0.25, doc='negative-side slope for leaky, scale for elu'),
        'lower_bound': Param('float', 0.125, doc='rrelu: lowest random slope'),
        'upper_bound': Param('float', 0.334, doc='rrelu: highest random slope'),
    }

    def inputs(self, p):
        return ['data', 'gamma'] if p.act_type == 'prelu' else ['data']

    def input_var_init(self, p):
        # a PReLU slope starts at 0.25 whatever initializer the module uses, on its own gamma
        # variable and on one the caller passed in alike (MXNet's FSetInputVarAttrOnCompose)
        return {'gamma': '["Constant", {"value": 0.25}]'}

    def outputs(self, p):
        return ['output', 'mask'] if p.act_type == 'rrelu' else ['output']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = same_as_data(in_shapes, out_shapes, '%s: input data' % self.name)
        shapes = [data]
        if p.act_type == 'prelu':
            gamma = in_shapes[1]
            if gamma is None and data is not None:
                if len(data) < 2:
                    raise ShapeError("%s: act_type='prelu' needs data with a channel axis 1 to size gamma, "
                                     "got shape %s (or give gamma shape (1,))" % (self.name, _fmt_shape(data)))
                gamma = (data[1],)
            shapes.append(gamma)
        return shapes, [data] * len(out_shapes), aux_shapes

    def _prelu_gamma(self, data, gamma):
        """gamma shaped to broadcast against data: one slope, one per channel of axis 1, or,
        with 2 or more dims, one per element of data's leading dims (MXNet's test_prelu:
        gamma (N, C) for data (N, C, H, W))."""
        if gamma.size == 1:
            return gamma.reshape((1,) * data.ndim)
        if gamma.ndim >= 2 and gamma.shape == data.shape[:gamma.ndim]:
            return gamma.reshape(gamma.shape + (1,) * (data.ndim - gamma.ndim))
        if data.ndim < 2 or gamma.shape != (data.shape[1],):
            raise ShapeError("%s: input 'gamma' must have shape (1,), (channels,)=(%s,) or data's leading "
                             "dims, got %s" % (self.name, data.shape[1] if data.ndim > 1 else '?',
                                               _fmt_shape(gamma.shape)))
        return gamma.reshape((1, -1) + (1,) * (data.ndim - 2))

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        act = p.act_type
        positive = x > 0
        if act == 'leaky':
            return [xp.where(positive, x, x * x.dtype.type(p.slope))]
        if act == 'elu':
            return [xp.where(positive, x, x.dtype.type(p.slope) * xp.expm1(xp.minimum(x, 0)))]
        if act == 'selu':
            neg = x.dtype.type(_SELU_ALPHA) * xp.expm1(xp.minimum(x, 0))
            return [x.dtype.type(_SELU_LAMBDA) * xp.where(positive, x, neg)]
        if act == 'gelu':
            return [(0.5 * x * (1 + erf_array(xp, x / math.sqrt(2)))).astype(x.dtype, copy=False)]
        if act == 'prelu':
            gamma = self._prelu_gamma(x, inputs[1])
            return [xp.where(positive, x, gamma * x)]
        # rrelu
        if env.is_train:
            u = env.rng.random(x.shape)
            slopes = xp.asarray(p.lower_bound + (p.upper_bound - p.lower_bound) * u, dtype=x.dtype)
        else:
            slopes = xp.full(x.shape, (p.lower_bound + p.upper_bound) / 2, dtype=x.dtype)
        return [xp.where(positive, x, slopes * x), slopes]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x, g = env.xp, inputs[0], out_grads[0]
        act = p.act_type
        positive = x > 0
        if act == 'leaky':
            return [g * xp.where(positive, 1, x.dtype.type(p.slope)).astype(x.dtype)]
        if act == 'elu':
            return [g * xp.where(positive, 1, x.dtype.type(p.slope) * xp.exp(xp.minimum(x, 0)))]
        if act == 'selu':
            # d/dx lambda*alpha*(e^x - 1) = y + lambda*alpha for x <= 0.  MXNet 1.9.1 computes
            # lambda*(y + alpha) there, which is wrong by (lambda - 1)*y (up to 0.08); reflib
            # keeps the true derivative, and tests/test_op_nn.py records MXNet's deviation.
            y = outputs[0]
            lam, alpha = x.dtype.type(_SELU_LAMBDA), x.dtype.type(_SELU_ALPHA)
            return [g * xp.where(positive, lam, y + lam * alpha)]
        if act == 'gelu':
            cdf = 0.5 * (1 + erf_array(xp, x / math.sqrt(2)))
            pdf = xp.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
            return [(g * (cdf + x * pdf)).astype(x.dtype, copy=False)]
        if act == 'prelu':
            gamma = inputs[1]
            shaped = self._prelu_gamma(x, gamma)
            d_x = g * xp.where(positive, 1, shaped)
            contrib = xp.where(positive, 0, g * x)
            if gamma.size == 1:
                d_gamma = contrib.sum().reshape(gamma.shape)
            elif gamma.ndim >= 2:
                d_gamma = contrib.sum(axis=tuple(range(gamma.ndim, x.ndim)))
            else:
                d_gamma = contrib.sum(axis=(0,) + tuple(range(2, x.ndim)))
            return [d_x, d_gamma.astype(gamma.dtype, copy=False)]
        # rrelu: the slopes of the forward pass are its mask output
        return [g * xp.where(positive, 1, outputs[1])]


# =====================================================================
# Dropout
# =====================================================================

@register
class Dropout(Operator):
    """Zero each element with probability p and scale the survivors by 1/(1-p).

    Active in training (``env.is_train``), or always with ``mode='always'``;
    otherwise the identity.  ``axes`` lists axes along which one random draw
    is shared (variational dropout: e.g. ``axes=(1,)`` on (batch, time)
    drops whole rows).  The hidden second output ``mask`` holds the factor
    each element was multiplied by (0 or 1/(1-p)) for backward.  p = 1
    drops everything (MXNet produces NaN there: 0 * inf).
    """
    eliminable = False
    name = 'Dropout'
    params = {
        'p': Param('float', 0.5, doc='probability of dropping an element', low=0, high=1),
        'mode': Param('enum', 'training', choices=('always', 'training'),
                      doc="'training': only while training; 'always': also at inference"),
        'axes': Param('shape', (), doc='axes sharing one random draw'),
        'cudnn_off': Param('bool_or_none', False, doc='unused here'),
    }

    def outputs(self, p):
        return ['output', 'mask']

    def visible_outputs(self, p):
        return 1

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = same_as_data(in_shapes, out_shapes, '%s: input data' % self.name)
        return [data], [data] * len(out_shapes), aux_shapes

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        if not (env.is_train or p.mode == 'always') or p.p == 0:
            return [x.copy(), xp.ones_like(x)]
        if p.p >= 1:
            return [xp.zeros_like(x), xp.zeros_like(x)]
        draw_shape = list(x.shape)
        for a in p.axes:
            if not -x.ndim <= a < x.ndim:
                raise ParamError('%s: axes entry %d is out of range for %d-d input %r' % (self.name, a, x.ndim, 'data'))
            draw_shape[a] = 1
        keep = env.rng.random(tuple(draw_shape)) >= p.p
        scale = x.dtype.type(1 / (1 - p.p))
        mask = xp.broadcast_to(xp.asarray(keep).astype(x.dtype) * scale, x.shape)
        mask = xp.ascontiguousarray(mask)
        return [x * mask, mask]

    def backward_reads(self, p):
        return [], [1]                     # the mask

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [out_grads[0] * outputs[1]]


# =====================================================================
# Embedding
# =====================================================================

@register
class Embedding(Operator):
    """Look up rows of ``weight`` (input_dim, output_dim) by the integer values in data.

    Output shape is ``data.shape + (output_dim,)``.  Indices are truncated to
    integers and clipped into [0, input_dim - 1] (so -1 reads row 0), as in
    MXNet.  Backward adds each output row's gradient into the weight row it
    came from (repeated indices accumulate); data gets no gradient.  With
    ``sparse_grad=True`` the weight's gradient is row_sparse: only the rows the data
    looked up are stored (``SparseRows``), as MXNet stores them.
    """
    name = 'Embedding'
    sparse_grad_only = True
    params = {
        'input_dim': Param('int', doc='vocabulary size: number of weight rows', low=1),
        'output_dim': Param('int', doc='length of each embedding vector', low=1),
        'dtype': Param('enum', 'float32',
                       choices=('bfloat16', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8'),
                       doc='dtype of weight and output'),
        'sparse_grad': Param('bool', False, doc="the weight's gradient is row_sparse: the looked-up rows only"),
    }

    def inputs(self, p):
        return ['data', 'weight']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is None and out is not None:
            data = tuple(out[:-1])
        if data is not None:
            out = merge_shape(out, tuple(data) + (p.output_dim,), '%s: output' % self.name)
        weight = merge_shape(in_shapes[1], (p.input_dim, p.output_dim), '%s: input weight' % self.name)
        return [data, weight], [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        if p.dtype == 'bfloat16':
            raise ParamError("%s: dtype='bfloat16' is not supported (numpy has no bfloat16)" % self.name)
        dtype = np.dtype(p.dtype)
        weight = merge_dtype(in_types[1], dtype, '%s: input weight' % self.name)
        out = merge_dtype(out_types[0], dtype, '%s: output' % self.name)
        data = in_types[0] if in_types[0] is not None else np.dtype(np.float32)
        return [data, weight], [out], aux_types

    def _sparse_grad(self, p):
        return p.sparse_grad

    def grad_stype(self, p, k, in_stypes):
        return 'row_sparse' if k == 1 and self._sparse_grad(p) else 'default'

    def sparse_inputs(self, p):
        # a row_sparse weight holding some rows (a KVStore's, fetched by Module.prepare) is read
        # as it is: a row it does not store reads as zeros
        return {1: ('row_sparse',)}

    def _indices(self, p, xp, data, weight):
        if tuple(weight.shape) != (p.input_dim, p.output_dim):
            raise ShapeError("%s: input 'weight' must have shape (%d,%d) (input_dim, output_dim), got %s"
                             % (self.name, p.input_dim, p.output_dim, _fmt_shape(weight.shape)))
        return xp.clip(data, 0, p.input_dim - 1).astype(np.int64)

    def forward(self, p, env, inputs, aux):
        data, weight = inputs
        index = self._indices(p, env.xp, data, weight)
        if isinstance(weight, SparseRows):
            return [weight.lookup(env.xp, index)]
        return [weight[index]]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, (data, weight) = env.xp, inputs
        index = self._indices(p, xp, data, weight).reshape(-1)
        rows = out_grads[0].reshape(-1, p.output_dim).astype(weight.dtype)
        if self._sparse_grad(p):
            return [None, summed_rows(xp, index, rows, weight.shape)]
        d_weight = xp.zeros(weight.shape, dtype=weight.dtype)
        scatter_add(xp, d_weight, index, rows)
        return [None, d_weight]


@register
class SparseEmbedding(Embedding):
    """``mx.sym.contrib.SparseEmbedding``: MXNet's older name for an Embedding whose weight
    gradient is always row_sparse (today's ``Embedding(sparse_grad=True)``); the same
    parameters, ``sparse_grad`` accepted and ignored."""
    name = '_contrib_SparseEmbedding'
    aliases = ()
    # MXNet's kernel may sum a row's gradients in any order unless asked; reflib's backward
    # always sums them in one order, so the flag changes nothing here
    params = dict(Embedding.params, deterministic=Param('bool', False, doc='sum gradients in a fixed order '
                                                                           '(reflib always does)'))

    def _sparse_grad(self, p):
        return True
