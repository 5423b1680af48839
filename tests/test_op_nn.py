"""Tests of the layers in reflib/operator (nn, conv, pooling, norm) added after FullyConnected/Activation:
Convolution, Pooling, BatchNorm, LeakyReLU, Dropout, Embedding.

Three kinds of evidence per operator:

1. forward against a plain-numpy reference written here with loops (slow,
   obvious, independent of the vectorised implementation);
2. backward against finite differences (``check_op_gradient``, float64);
3. golden numbers from MXNet 1.9.1 itself, stored in golden/ops_nn.npz by
   golden/gen_ops_nn.py (outputs, input gradients, aux states after a
   training step, and shape-inference answers).  MXNet is not needed here.
"""

import json
import math
import os

import numpy as np
import pytest

from reflib import random as mx_random
from reflib.base import MXNetError, ParamError, ShapeError
from reflib.context import cpu
from reflib.operator import OpEnv
import device
from device import get
from reflib.operator.common import scatter_add
from reflib.test_utils import check_op_gradient, op_forward

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden', 'ops_nn.npz')
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_LAMBDA = 1.0507009873554804934193349852946


def rng(seed=0):
    return np.random.default_rng(seed)


def run_backward(op_name, params, inputs, heads, aux=None, is_train=True, seed=0):
    """Forward then backward of one operator; returns (outputs, grads, aux_after)."""
    op = get(op_name)
    p = op.parse_params(params)
    env = OpEnv(cpu(), is_train)
    aux = [np.array(a, copy=True) for a in (aux or [])]
    mx_random.seed(seed)
    outs = op.forward(p, env, list(inputs), aux)
    nvis = op.visible_outputs(p)
    heads = list(heads) + [None] * (len(outs) - nvis)
    grads = op.backward(p, env, heads, list(inputs), outs, aux)
    return outs, grads, aux


# =========================================================== plain-numpy references

def conv_reference(x, w, b, stride, pad, dilate, groups):
    """Direct definition: every output is the sum of one window times one filter."""
    nd = x.ndim - 2
    padded = np.pad(x, [(0, 0), (0, 0)] + [(q, q) for q in pad])
    n_batch, channels = x.shape[:2]
    filters, kernel = w.shape[0], w.shape[2:]
    out_size = [(padded.shape[2 + i] - dilate[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    per_group_in, per_group_out = channels // groups, filters // groups
    out = np.zeros((n_batch, filters) + tuple(out_size))
    for n in range(n_batch):
        for f in range(filters):
            g = f // per_group_out
            block = padded[n, g * per_group_in:(g + 1) * per_group_in]
            for o in np.ndindex(*out_size):
                window = block[(slice(None),) + tuple(
                    slice(o[i] * stride[i], o[i] * stride[i] + dilate[i] * (kernel[i] - 1) + 1, dilate[i])
                    for i in range(nd))]
                out[(n, f) + o] = np.sum(window * w[f]) + (0 if b is None else b[f])
    return out


def pool_reference(x, kernel, stride, pad, pool_type='max', convention='valid', count_include_pad=True,
                   p_value=None):
    """Window by window, with MXNet's border rules spelled out per window."""
    nd = x.ndim - 2
    sizes = x.shape[2:]
    if convention == 'valid':
        out_size = [(sizes[i] + 2 * pad[i] - kernel[i]) // stride[i] + 1 for i in range(nd)]
    else:
        out_size = [int(math.ceil((sizes[i] + 2 * pad[i] - kernel[i]) / stride[i])) + 1 for i in range(nd)]
    out = np.zeros(x.shape[:2] + tuple(out_size))
    for o in np.ndindex(*out_size):
        start = [o[i] * stride[i] - pad[i] for i in range(nd)]
        end = [start[i] + kernel[i] for i in range(nd)]
        lo = [max(s, 0) for s in start]
        hi = [min(e, n) for e, n in zip(end, sizes)]
        window = x[(slice(None), slice(None)) + tuple(slice(a, max(a, b)) for a, b in zip(lo, hi))]
        empty = window.size == 0
        if pool_type == 'max':
            axes = tuple(range(2, 2 + nd))
            value = np.full(x.shape[:2], np.finfo(np.float32).min) if empty else window.max(axis=axes)
        elif pool_type == 'lp':
            total = (window.astype(np.float64) ** p_value).sum(axis=tuple(range(2, 2 + nd)))
            value = np.sign(total) * np.abs(total) ** (1.0 / p_value)
        else:
            value = window.sum(axis=tuple(range(2, 2 + nd)))
            if pool_type == 'avg':
                if count_include_pad:
                    count = np.prod([min(e, n + q) - s for s, e, n, q in zip(start, end, sizes, pad)])
                else:
                    count = np.prod([max(b - a, 0) for a, b in zip(lo, hi)])
                value = value / max(count, 1)
        out[(slice(None), slice(None)) + o] = value
    return out


def batchnorm_reference(x, gamma, beta, moving_mean, moving_var, eps, momentum, fix_gamma, batch_stats, axis=1):
    x = x.astype(np.float64)
    axes = tuple(a for a in range(x.ndim) if a != axis % x.ndim)
    shape = [1] * x.ndim
    shape[axis] = -1
    if batch_stats:
        mean, var = x.mean(axis=axes), x.var(axis=axes)
        new_mean = moving_mean * momentum + mean * (1 - momentum)
        new_var = moving_var * momentum + var * (1 - momentum)
    else:
        mean, var = moving_mean, moving_var
        new_mean, new_var = moving_mean, moving_var
    g = np.ones_like(gamma) if fix_gamma else gamma
    inv_std = 1 / np.sqrt(var + eps)
    out = (x - mean.reshape(shape)) * inv_std.reshape(shape) * g.reshape(shape) + beta.reshape(shape)
    return out, mean, inv_std, new_mean, new_var


def leaky_reference(x, act_type, slope=0.25, gamma=None):
    def one(v, c):
        if act_type == 'leaky':
            return v if v > 0 else slope * v
        if act_type == 'elu':
            return v if v > 0 else slope * (math.exp(v) - 1)
        if act_type == 'selu':
            return SELU_LAMBDA * (v if v > 0 else SELU_ALPHA * (math.exp(v) - 1))
        if act_type == 'gelu':
            return 0.5 * v * (1 + math.erf(v / math.sqrt(2)))
        if act_type == 'prelu':
            return v if v > 0 else gamma[c if gamma.size > 1 else 0] * v
        raise AssertionError(act_type)
    out = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        out[idx] = one(float(x[idx]), idx[1] if x.ndim > 1 else 0)
    return out


# ==================================================================== Convolution

CONV_CASES = [
    # (data shape, params)
    ((2, 3, 6, 6), dict(kernel=(3, 3), num_filter=4)),
    ((2, 3, 7, 6), dict(kernel=(3, 2), num_filter=2, stride=(2, 1), pad=(1, 2))),
    ((1, 2, 7, 7), dict(kernel=(2, 3), num_filter=3, dilate=(2, 1), stride=(1, 2))),
    ((2, 4, 5, 5), dict(kernel=(3, 3), num_filter=6, num_group=2, pad=(1, 1))),
    ((1, 3, 4, 4), dict(kernel=(3, 3), num_filter=3, num_group=3, pad=(1, 1), no_bias=True)),
    ((2, 2, 9), dict(kernel=(3,), num_filter=3, stride=(2,), pad=(1,), dilate=(2,))),
    ((1, 2, 3, 4, 4), dict(kernel=(2, 2, 3), num_filter=2, pad=(1, 0, 1), stride=(1, 2, 1))),
]


def conv_inputs(shape, params, r):
    nd = len(params['kernel'])
    groups = params.get('num_group', 1)
    x = r.normal(size=shape)
    w = r.normal(size=(params['num_filter'], shape[1] // groups) + tuple(params['kernel']))
    b = None if params.get('no_bias') else r.normal(size=params['num_filter'])
    stride = params.get('stride', (1,) * nd)
    pad = params.get('pad', (0,) * nd)
    dilate = params.get('dilate', (1,) * nd)
    return x, w, b, stride, pad, dilate, groups


@pytest.mark.parametrize('shape,params', CONV_CASES)
def test_convolution_forward_matches_reference(shape, params):
    x, w, b, stride, pad, dilate, groups = conv_inputs(shape, params, rng(1))
    inputs = [x, w] + ([] if b is None else [b])
    (out,), _ = op_forward('Convolution', inputs, params)
    np.testing.assert_allclose(out, conv_reference(x, w, b, stride, pad, dilate, groups), rtol=1e-10, atol=1e-10)
    # float32 in, float32 out
    (out32,), _ = op_forward('Convolution', [a.astype(np.float32) for a in inputs], params)
    assert out32.dtype == np.float32


@pytest.mark.parametrize('shape,params', CONV_CASES)
def test_convolution_gradient(shape, params):
    x, w, b, *_ = conv_inputs(shape, params, rng(2))
    check_op_gradient('Convolution', [x, w] + ([] if b is None else [b]), params)


def test_convolution_structure_and_shape():
    op = get('Convolution')
    p = op.parse_params(dict(kernel=(3, 3), num_filter=8, num_group=2, pad=(1, 1)))
    assert op.inputs(p) == ['data', 'weight', 'bias']
    assert op.inputs(op.parse_params(dict(kernel=(3, 3), num_filter=8, no_bias=True))) == ['data', 'weight']
    ins, outs, _ = op.infer_shape(p, [(5, 4, 8, 7), None, None], [None], [])
    assert ins == [(5, 4, 8, 7), (8, 2, 3, 3), (8,)] and outs == [(5, 8, 8, 7)]
    # before data's rank is known nothing is inferred, as in MXNet 1.9.1
    ins, outs, _ = op.infer_shape(p, [None, None, None], [None], [])
    assert ins == [None, None, None] and outs == [None]
    # defaults and the JSON string forms MXNet writes
    p = op.parse_params({'kernel': '(3, 3)', 'num_filter': '4', 'stride': '()', 'no_bias': 'False',
                         'cudnn_tune': 'None', 'workspace': '512', 'layout': 'NCHW'})
    assert (p.kernel, p.stride, p.num_group, p.no_bias, p.cudnn_tune, p.workspace) == \
        ((3, 3), (), 1, False, None, 512)
    p = op.parse_params(dict(kernel=(3,), num_filter=1))
    assert (p.dilate, p.pad, p.workspace, p.cudnn_off, p.layout) == ((), (), 1024, False, None)


def test_convolution_errors():
    op = get('Convolution')

    def infer(params, data, weight=None):
        return op.infer_shape(op.parse_params(params), [data, weight, None], [None], [])

    conv = dict(kernel=(3, 3), num_filter=4)
    grouped = dict(conv, num_group=2)
    with pytest.raises(ShapeError, match=r"Convolution: input 'data' must be 4-d"):
        infer(conv, (2, 3, 10))
    with pytest.raises(ShapeError, match=r"Convolution: input 'data' must be 4-d"):
        op_forward('Convolution', [np.zeros((2, 3, 10)), np.zeros((4, 3, 3, 3)), np.zeros(4)], conv)
    with pytest.raises(ShapeError, match=r"Convolution: input 'data' has 3 channels, not divisible by num_group=2"):
        infer(grouped, (2, 3, 10, 10))
    with pytest.raises(ParamError, match=r'Convolution: num_filter \(3\) must be a positive multiple of num_group'):
        infer(dict(grouped, num_filter=3), (2, 4, 9, 9))
    with pytest.raises(ShapeError, match=r'Convolution: dilated kernel size 3 exceeds'):
        infer(grouped, (2, 4, 2, 10))
    with pytest.raises(ShapeError, match=r"Convolution: input weight: inconsistent shape"):
        infer(grouped, (2, 4, 9, 9), (4, 4, 3, 3))
    with pytest.raises(ShapeError, match=r"Convolution: input 'weight' must have shape \(4,3,3,3\)"):
        op_forward('Convolution', [np.zeros((1, 3, 5, 5)), np.zeros((4, 3, 2, 2)), np.zeros(4)], conv)
    with pytest.raises(ParamError, match=r"Convolution: parameter 'stride' must have 2 entries"):
        infer(dict(conv, stride=(2,)), (1, 1, 5, 5))
    # channel-last: shapes inferred (tests/test_channel_last.py), computing refused, as MXNet 1.9.1 on CPU
    with pytest.raises(ParamError, match=r"Convolution: layout 'NHWC' is not computed"):
        op_forward('Convolution', [np.zeros((1, 5, 5, 3)), np.zeros((4, 3, 3, 3)), np.zeros(4)],
                   dict(conv, layout='NHWC'))
    with pytest.raises(ParamError, match=r"Convolution: layout 'NHWC' does not fit 1 spatial axes"):
        infer(dict(kernel=(3,), num_filter=4, layout='NHWC'), (1, 5, 3))
    with pytest.raises(ParamError, match=r"Convolution: required parameter 'num_filter' is missing"):
        op.parse_params(dict(kernel=(3, 3)))


# ======================================================================== Pooling

POOL_CASES = [
    ((2, 2, 6, 6), dict(kernel=(2, 2), stride=(2, 2))),
    ((1, 2, 7, 7), dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1))),
    ((1, 2, 6, 7), dict(kernel=(3, 3), stride=(2, 2), pooling_convention='full')),
    ((1, 1, 6, 7), dict(kernel=(2, 3), stride=(3, 3), pad=(1, 1), pooling_convention='full')),
    ((1, 2, 7, 7), dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type='avg')),
    ((1, 2, 7, 7), dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type='avg', count_include_pad=False)),
    ((1, 2, 5, 6), dict(kernel=(2, 2), stride=(2, 2), pool_type='avg', pooling_convention='full')),
    ((1, 1, 6, 6), dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type='avg', pooling_convention='full')),
    ((1, 1, 5, 5), dict(kernel=(2, 2), stride=(3, 3), pad=(1, 1), pool_type='avg', pooling_convention='full',
                        count_include_pad=False)),
    ((1, 2, 4, 5), dict(kernel=(2, 2), pool_type='sum', pad=(1, 0))),
    ((2, 2, 9), dict(kernel=(3,), stride=(2,))),
    ((2, 2, 8), dict(kernel=(3,), stride=(2,), pad=(1,), pool_type='avg')),
    ((1, 1, 4, 4, 4), dict(kernel=(2, 2, 2), stride=(2, 1, 2))),
    ((1, 1, 3, 3, 3), dict(kernel=(2, 2, 2), pad=(1, 1, 1), pool_type='avg')),
    ((1, 2, 4, 4), dict(kernel=(2, 2), stride=(2, 2), pool_type='lp', p_value=1)),
    ((1, 2, 4, 4), dict(kernel=(2, 2), stride=(2, 2), pool_type='lp', p_value=2)),
    ((1, 2, 4, 4), dict(kernel=(2, 2), stride=(1, 1), pool_type='lp', p_value=3)),
]


def pool_reference_for(x, params):
    nd = len(params['kernel'])
    return pool_reference(x, params['kernel'], params.get('stride', (1,) * nd), params.get('pad', (0,) * nd),
                          params.get('pool_type', 'max'), params.get('pooling_convention', 'valid'),
                          params.get('count_include_pad', True), params.get('p_value'))


@pytest.mark.parametrize('shape,params', POOL_CASES)
def test_pooling_forward_matches_reference(shape, params):
    x = rng(3).normal(size=shape).astype(np.float32)
    if params.get('pool_type') == 'lp':
        x = np.abs(x) + 0.5   # keep Lp sums away from 0, where the root is not smooth
    (out,), _ = op_forward('Pooling', [x], params)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, pool_reference_for(x, params), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('shape,params', POOL_CASES)
def test_pooling_gradient(shape, params):
    x = rng(4).normal(size=shape)
    if params.get('pool_type') == 'lp':
        x = np.abs(x) + 0.5
    check_op_gradient('Pooling', [x], params)


@pytest.mark.parametrize('pool_type', ['max', 'avg', 'sum'])
def test_pooling_global(pool_type):
    x = rng(5).normal(size=(2, 3, 4, 5)).astype(np.float32)
    # kernel, stride and pad are all ignored with global_pool
    (out,), _ = op_forward('Pooling', [x], dict(global_pool=True, pool_type=pool_type, kernel=(2, 2), pad=(1, 1)))
    expected = {'max': x.max(axis=(2, 3)), 'avg': x.mean(axis=(2, 3)), 'sum': x.sum(axis=(2, 3))}[pool_type]
    np.testing.assert_allclose(out, expected[:, :, None, None], rtol=1e-5, atol=1e-6)
    check_op_gradient('Pooling', [x.astype(np.float64)[:1, :2]], dict(global_pool=True, pool_type=pool_type))
    (out1d,), _ = op_forward('Pooling', [x[:, :, 0]], dict(global_pool=True, pool_type=pool_type))
    assert out1d.shape == (2, 3, 1)


def test_pooling_max_ties_go_to_first_element():
    x = np.array([[[1., 3., 3., 1., 3.]]])
    _, grads, _ = run_backward('Pooling', dict(kernel=(3,), stride=(1,)), [x], [np.ones((1, 1, 3))])
    np.testing.assert_array_equal(grads[0], [[[0, 2, 1, 0, 0]]])   # MXNet 1.9.1 gives the same


def max_pool_backward_reference(x, head, kernel, stride, pad):
    """Window by window: the head gradient goes to the window's first maximal element
    (row-major order, padding included: a padding winner sends it nowhere), or to its
    first NaN when it holds one."""
    nd = x.ndim - 2
    sizes = x.shape[2:]
    lowest = np.finfo(x.dtype).min
    grad = np.zeros_like(x)
    for b, c in np.ndindex(*x.shape[:2]):
        for o in np.ndindex(*head.shape[2:]):
            start = [o[i] * stride[i] - pad[i] for i in range(nd)]
            positions = list(np.ndindex(*kernel))
            values = []
            for offset in positions:
                at = tuple(s + k for s, k in zip(start, offset))
                inside = all(0 <= a < n for a, n in zip(at, sizes))
                values.append(x[(b, c) + at] if inside else lowest)
            values = np.array(values)
            nan = np.isnan(values)
            first = int(np.argmax(nan)) if nan.any() else int(np.flatnonzero(values == values.max())[0])
            at = tuple(s + k for s, k in zip(start, positions[first]))
            if all(0 <= a < n for a, n in zip(at, sizes)):
                grad[(b, c) + at] += head[(b, c) + o]
    return grad


@pytest.mark.parametrize('shape,params', [
    ((2, 2, 6, 6), dict(kernel=(2, 2), stride=(2, 2))),
    ((1, 2, 7, 7), dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1))),
    ((1, 2, 6, 7), dict(kernel=(3, 3), stride=(1, 2), pooling_convention='full')),
    ((2, 1, 9), dict(kernel=(3,), stride=(1,), pad=(2,))),
    ((1, 1, 4, 4, 4), dict(kernel=(2, 2, 2), stride=(1, 2, 1))),
])
def test_pooling_max_backward_matches_first_max_reference(shape, params):
    # few distinct values: many ties, inside a window and between overlapping windows
    x = rng(6).integers(-2, 3, size=shape).astype(np.float32)
    (out,), _ = op_forward('Pooling', [x], params)
    # whole-number heads: where overlapping windows pick the same element, its sum is exact
    head = rng(7).integers(-9, 10, size=out.shape).astype(np.float32)
    _, grads, _ = run_backward('Pooling', params, [x], [head])
    nd = len(params['kernel'])
    expected = max_pool_backward_reference(x, head, params['kernel'], params['stride'], params.get('pad', (0,) * nd))
    np.testing.assert_array_equal(grads[0], expected)


def test_pooling_max_nan_window_sends_its_gradient_to_the_first_nan():
    # reflib's max propagates NaN (xp.maximum), so a window holding NaN outputs NaN, and its
    # gradient goes to its first NaN; the other windows keep the first-maximum rule.  (MXNet
    # 1.9.1 on CPU differs here: its max skips NaN, giving 3, 3, 3, 5, 5, 5.)
    x = np.array([[[1., np.nan, 3., np.nan, 2., 5., 4., 5.]]], dtype=np.float32)
    outs, grads, _ = run_backward('Pooling', dict(kernel=(3,), stride=(1,)), [x], [np.ones((1, 1, 6), np.float32)])
    np.testing.assert_array_equal(outs[0], [[[np.nan, np.nan, np.nan, np.nan, 5, 5]]])
    np.testing.assert_array_equal(grads[0], [[[0, 2, 0, 2, 0, 2, 0, 0]]])
    expected = max_pool_backward_reference(x, np.ones((1, 1, 6), np.float32), (3,), (1,), (0,))
    np.testing.assert_array_equal(grads[0], expected)


def test_pooling_full_convention_all_padding_window():
    # the last 'full' window lies beyond the input: max returns the lowest float, avg and sum 0 (as MXNet)
    x = np.arange(1, 6, dtype=np.float32).reshape(1, 1, 5)
    for pool_type, last in [('max', np.finfo(np.float32).min), ('avg', 0.0), ('sum', 0.0)]:
        (out,), _ = op_forward('Pooling', [x], dict(kernel=(1,), stride=(3,), pool_type=pool_type,
                                                    pooling_convention='full'))
        np.testing.assert_array_equal(out.ravel(), [1, 4, last])


def test_pooling_structure_and_shape():
    op = get('Pooling')
    p = op.parse_params({})
    assert (p.kernel, p.pool_type, p.global_pool, p.pooling_convention, p.stride, p.pad, p.p_value,
            p.count_include_pad, p.cudnn_off, p.layout) == ((), 'max', False, 'valid', (), (), None, None, False, None)
    assert op.inputs(p) == ['data'] and op.outputs(p) == ['output'] and op.aux(p) == []
    p = op.parse_params(dict(kernel=(3, 3), stride=(2, 2), pooling_convention='full'))
    assert op.infer_shape(p, [(1, 1, 6, 6)], [None], [])[1] == [(1, 1, 3, 3)]
    # unknown batch stays unknown, the rest is still computed
    assert op.infer_shape(p, [(0, 3, 6, 6)], [None], [])[1] == [(0, 3, 3, 3)]


def test_pooling_errors():
    op = get('Pooling')
    with pytest.raises(ShapeError, match=r"Pooling: input 'data' must be 4-d"):
        op.infer_shape(op.parse_params(dict(kernel=(2, 2))), [(1, 2, 6)], [None], [])
    with pytest.raises(ShapeError, match=r"Pooling: input 'data' must be 5-d"):
        op_forward('Pooling', [np.zeros((1, 2, 6, 6))], dict(kernel=(2, 2, 2)))
    with pytest.raises(ShapeError, match=r'Pooling: kernel size 7 exceeds the padded input size 6'):
        op.infer_shape(op.parse_params(dict(kernel=(7, 7))), [(1, 2, 6, 6)], [None], [])
    with pytest.raises(ShapeError, match=r"Pooling: input 'data' must be 3-d, 4-d or 5-d"):
        op.infer_shape(op.parse_params(dict(global_pool=True)), [(2, 3)], [None], [])
    with pytest.raises(ParamError, match=r'Pooling: kernel must have 1, 2 or 3 entries'):
        op.infer_shape(op.parse_params({}), [(1, 2, 6, 6)], [None], [])
    with pytest.raises(ParamError, match=r"Pooling: pool_type='lp' needs p_value"):
        op_forward('Pooling', [np.zeros((1, 2, 6, 6))], dict(kernel=(2, 2), pool_type='lp'))
    # 'same' runs with pad=(0, 0, 0) only, as in MXNet 1.9.1 (tests/test_op_pooling_same.py)
    with pytest.raises(ParamError, match=r"Pooling: pooling_convention='same' needs pad spelled out"):
        op.infer_shape(op.parse_params(dict(kernel=(2,), pooling_convention='same')), [(1, 2, 6)], [None], [])
    with pytest.raises(ParamError, match=r"Pooling: parameter 'pad' must have 2 entries"):
        op.infer_shape(op.parse_params(dict(kernel=(2, 2), pad=(1,))), [(1, 2, 6, 6)], [None], [])
    with pytest.raises(ParamError, match=r"Pooling: parameter 'pool_type' expects one of"):
        op.parse_params(dict(kernel=(2, 2), pool_type='median'))


# ====================================================================== BatchNorm

def bn_inputs(shape, axis=1, seed=6):
    r = rng(seed)
    c = shape[axis]
    x = r.normal(size=shape) * 2 + 1
    gamma, beta = r.normal(size=c) * 0.5 + 1, r.normal(size=c)
    moving_mean, moving_var = r.normal(size=c), r.uniform(0.5, 2, size=c)
    return x, gamma, beta, moving_mean, moving_var


@pytest.mark.parametrize('shape,params,is_train', [
    ((4, 3, 2, 2), {}, True),
    ((4, 3, 2, 2), dict(fix_gamma=False), True),
    ((5, 3), dict(fix_gamma=False, eps=1e-5, momentum=0.7), True),
    ((2, 4, 3), dict(fix_gamma=False, axis=-1), True),
    ((2, 3, 2, 2, 2), dict(fix_gamma=False, axis=2), True),
    ((4, 3, 2, 2), dict(fix_gamma=False, use_global_stats=True), True),
    ((4, 3, 2, 2), dict(fix_gamma=False), False),
    ((4, 3, 2, 2), dict(), False),
])
def test_batchnorm_forward_and_moving_stats(shape, params, is_train):
    op = get('BatchNorm')
    p = op.parse_params(params)
    axis = p.axis % len(shape)
    x, gamma, beta, mm, mv = bn_inputs(shape, axis)
    p = op.parse_params(dict(params, output_mean_var=True))
    env, aux = OpEnv(cpu(), is_train), [mm.copy(), mv.copy()]
    outs = op.forward(p, env, [x, gamma, beta], aux)
    # the moving statistics move in backward (MXNet 1.9.1 on CPU), never in forward
    np.testing.assert_array_equal(aux[0], mm)
    np.testing.assert_array_equal(aux[1], mv)
    if is_train:
        op.backward(p, env, [np.ones_like(x), None, None], [x, gamma, beta], outs, aux)
    batch_stats = is_train and not p.use_global_stats
    out, mean, inv_std, new_mm, new_mv = batchnorm_reference(x, gamma, beta, mm, mv, p.eps, p.momentum,
                                                             p.fix_gamma, batch_stats, axis)
    for got, want in zip(outs + aux, [out, mean, inv_std, new_mm, new_mv]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_batchnorm_backward_updates_the_callers_aux_arrays_in_place():
    op = get('BatchNorm')
    p = op.parse_params(dict(momentum=0.8))
    x, gamma, beta, mm, mv = bn_inputs((6, 2, 3))
    aux = [mm.copy(), mv.copy()]
    ids = [id(a) for a in aux]
    env = OpEnv(cpu(), True)
    outs = op.forward(p, env, [x, gamma, beta], aux)
    np.testing.assert_array_equal(aux[0], mm)  # MXNet 1.9.1 (CPU): untouched by forward...
    op.backward(p, env, [np.ones_like(x), None, None], [x, gamma, beta], outs, aux)
    assert [id(a) for a in aux] == ids          # ... and updated in place by backward
    np.testing.assert_allclose(aux[0], 0.8 * mm + 0.2 * x.mean(axis=(0, 2)))
    # biased (divide by N) batch variance goes into the moving variance, as in MXNet
    np.testing.assert_allclose(aux[1], 0.8 * mv + 0.2 * x.var(axis=(0, 2)))
    for params, train in [({}, False), (dict(use_global_stats=True), True)]:
        aux = [mm.copy(), mv.copy()]
        op.forward(op.parse_params(params), OpEnv(cpu(), train), [x, gamma, beta], aux)
        np.testing.assert_array_equal(aux[0], mm)
        np.testing.assert_array_equal(aux[1], mv)


@pytest.mark.parametrize('shape,params,is_train', [
    ((4, 3, 2, 2), dict(fix_gamma=False), True),
    ((4, 3, 2, 2), dict(), True),
    ((6, 2), dict(fix_gamma=False, eps=1e-5), True),
    ((2, 3, 4), dict(fix_gamma=False, axis=-1), True),
    ((4, 3, 2, 2), dict(fix_gamma=False, use_global_stats=True), True),
    ((4, 3, 2), dict(fix_gamma=False), False),
])
def test_batchnorm_gradient(shape, params, is_train):
    axis = params.get('axis', 1) % len(shape)
    x, gamma, beta, mm, mv = bn_inputs(shape, axis, seed=7)
    grads = check_op_gradient('BatchNorm', [x, gamma, beta], params, aux=[mm, mv], is_train=is_train)
    if params.get('fix_gamma', True):
        assert not np.any(grads[1])


def test_batchnorm_structure():
    op = get('BatchNorm')
    p = op.parse_params({})
    assert (p.eps, p.momentum, p.fix_gamma, p.use_global_stats, p.output_mean_var, p.axis, p.cudnn_off) == \
        (1e-3, 0.9, True, False, False, 1, False)
    assert op.inputs(p) == ['data', 'gamma', 'beta']
    assert op.aux(p) == ['moving_mean', 'moving_var']
    assert op.aux_init(p) == {'moving_mean': 'zero', 'moving_var': 'one'}
    assert op.outputs(p) == ['output', 'mean', 'var'] and op.visible_outputs(p) == 1
    assert op.visible_outputs(op.parse_params(dict(output_mean_var=True))) == 3
    ins, outs, aux = op.infer_shape(op.parse_params(dict(axis=-1)), [(4, 3, 5), None, None],
                                    [None, None, None], [None, None])
    assert ins == [(4, 3, 5), (5,), (5,)] and outs == [(4, 3, 5), (5,), (5,)] and aux == [(5,), (5,)]
    ins, outs, aux = op.infer_type(p, [np.dtype('float16'), None, None], [None] * 3, [None, None])
    assert ins == [np.float16, np.float32, np.float32] and outs == [np.float16, np.float32, np.float32]
    assert aux == [np.float32, np.float32]


def test_batchnorm_errors():
    op = get('BatchNorm')
    with pytest.raises(ParamError, match=r"BatchNorm: axis 3 is out of range for 3-d input 'data'"):
        op.infer_shape(op.parse_params(dict(axis=3)), [(2, 3, 4), None, None], [None] * 3, [None, None])
    with pytest.raises(ShapeError, match=r"BatchNorm: input gamma: inconsistent shape"):
        op.infer_shape(op.parse_params({}), [(2, 3, 4), (4,), None], [None] * 3, [None, None])
    x, gamma, beta, mm, mv = bn_inputs((4, 3, 2))
    with pytest.raises(ShapeError, match=r"BatchNorm: 'moving_var' must have shape \(3,\)"):
        op_forward('BatchNorm', [x, gamma, beta], {}, aux=[mm, mv[:2]], is_train=True)


# ====================================================================== LeakyReLU

@pytest.mark.parametrize('act_type,slope', [('leaky', 0.25), ('leaky', 0.1), ('elu', 0.25), ('elu', 0.7),
                                            ('selu', 0.25), ('gelu', 0.25)])
def test_leaky_family_forward(act_type, slope):
    x = np.concatenate([rng(8).normal(size=12) * 2, [0.0, -0.0, 1e-3, -1e-3]]).reshape(4, 4)
    (out,), _ = op_forward('LeakyReLU', [x], dict(act_type=act_type, slope=slope))
    np.testing.assert_allclose(out, leaky_reference(x, act_type, slope), rtol=1e-12, atol=1e-14)
    (out32,), _ = op_forward('LeakyReLU', [x.astype(np.float32)], dict(act_type=act_type, slope=slope))
    assert out32.dtype == np.float32


@pytest.mark.parametrize('act_type', ['leaky', 'elu', 'gelu'])
def test_leaky_family_gradient(act_type):
    x = rng(9).normal(size=(3, 4)) * 2
    x[np.abs(x) < 1e-2] = 0.5   # finite differences need to stay on one side of the kink
    check_op_gradient('LeakyReLU', [x], dict(act_type=act_type, slope=0.3))


def test_gelu_without_scipy(monkeypatch):
    """reflib needs only numpy: without scipy, erf falls back to math.erf per element."""
    import sys
    x = rng(21).normal(size=(3, 4)).astype(np.float32)
    (with_scipy,), _ = op_forward('LeakyReLU', [x], dict(act_type='gelu'))
    monkeypatch.setitem(sys.modules, 'scipy.special', None)   # makes the import fail
    (without,), _ = op_forward('LeakyReLU', [x], dict(act_type='gelu'))
    assert without.dtype == np.float32
    np.testing.assert_allclose(without, with_scipy, rtol=1e-6, atol=1e-7)


def test_selu_gradient_is_the_true_derivative_not_mxnets():
    # both sides checked by finite differences (values kept away from the kink at 0)
    x = rng(10).normal(size=(3, 4))
    x += np.sign(x) * 0.1
    check_op_gradient('LeakyReLU', [x], dict(act_type='selu'))
    # MXNet 1.9.1 computes lambda * (y + alpha) for x <= 0 instead of y + lambda * alpha;
    # the golden file holds MXNet's numbers, so the difference is pinned there too
    z = _golden()
    data, head, mx_grad = z['selu/in/data'], z['selu/head/0'], z['selu/grad/data']
    neg = data <= 0
    y = SELU_LAMBDA * SELU_ALPHA * np.expm1(data)
    np.testing.assert_allclose(mx_grad[neg], (head * SELU_LAMBDA * (y + SELU_ALPHA))[neg], rtol=1e-5)
    outs, grads, _ = run_backward('LeakyReLU', dict(act_type='selu'), [data], [head])
    np.testing.assert_allclose(grads[0][~neg], mx_grad[~neg], rtol=1e-5)
    assert not np.allclose(grads[0][neg], mx_grad[neg], rtol=1e-3)


@pytest.mark.parametrize('shape,gamma', [((2, 3, 4), [0.1, 0.5, -0.3]), ((3, 2), [0.2, 0.7]),
                                         ((2, 3, 2), [0.2]), ((6,), [0.4])])
def test_prelu(shape, gamma):
    x = rng(13).normal(size=shape) * 2
    gamma = np.array(gamma)
    (out,), _ = op_forward('LeakyReLU', [x, gamma], dict(act_type='prelu'))
    np.testing.assert_allclose(out, leaky_reference(x, 'prelu', gamma=gamma), rtol=1e-12)
    check_op_gradient('LeakyReLU', [x, gamma], dict(act_type='prelu'))


def test_rrelu():
    x = rng(14).normal(size=(40, 50))
    params = dict(act_type='rrelu', lower_bound=0.1, upper_bound=0.3)
    (out, mask), _ = op_forward('LeakyReLU', [x], params, is_train=False)
    np.testing.assert_allclose(out, np.where(x > 0, x, 0.2 * x))
    (out, mask), _ = op_forward('LeakyReLU', [x], params, is_train=True, seed=3)
    neg = x <= 0
    slopes = out[neg] / x[neg]
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    np.testing.assert_allclose(slopes, mask[neg])
    np.testing.assert_array_equal(out[~neg], x[~neg])
    check_op_gradient('LeakyReLU', [x[:3, :4]], params, grad_inputs=[0], is_train=True, seed=5)


def test_leaky_structure_and_errors():
    op = get('LeakyReLU')
    p = op.parse_params({})
    assert (p.act_type, p.slope, p.lower_bound, p.upper_bound) == ('leaky', 0.25, 0.125, 0.334)
    assert op.inputs(p) == ['data'] and op.outputs(p) == ['output']
    p = op.parse_params(dict(act_type='prelu'))
    assert op.inputs(p) == ['data', 'gamma']
    assert op.infer_shape(p, [(2, 3, 4, 5), None], [None], [])[0] == [(2, 3, 4, 5), (3,)]
    p = op.parse_params(dict(act_type='rrelu'))
    assert op.outputs(p) == ['output', 'mask'] and op.visible_outputs(p) == 2
    with pytest.raises(ShapeError, match=r"LeakyReLU: input 'gamma' must have shape \(1,\), \(channels,\)=\(3,\) or data's leading dims"):
        op_forward('LeakyReLU', [np.zeros((2, 3)), np.zeros(2)], dict(act_type='prelu'))
    with pytest.raises(ShapeError, match=r"LeakyReLU: act_type='prelu' needs data with a channel axis"):
        op.infer_shape(op.parse_params(dict(act_type='prelu')), [(5,), None], [None], [])
    with pytest.raises(ParamError, match=r"LeakyReLU: parameter 'act_type' expects one of"):
        op.parse_params(dict(act_type='swish'))


# ======================================================================== Dropout

def test_dropout_eval_is_identity_and_always_mode_is_not():
    x = rng(15).normal(size=(20, 30)).astype(np.float32)
    (out, mask), _ = op_forward('Dropout', [x], dict(p=0.5), is_train=False)
    np.testing.assert_array_equal(out, x)
    (out, mask), _ = op_forward('Dropout', [x], dict(p=0.5, mode='always'), is_train=False)
    assert np.any(out == 0) and np.any(out != 0)


@pytest.mark.parametrize('p', [0.2, 0.5, 0.8])
def test_dropout_training_mask(p):
    x = rng(16).normal(size=(100, 100)).astype(np.float32) + 3   # no zeros in x itself
    (out, mask), _ = op_forward('Dropout', [x], dict(p=p), is_train=True, seed=1)
    assert out.dtype == np.float32 and mask.shape == x.shape
    kept = out != 0
    np.testing.assert_allclose(out[kept], x[kept] / (1 - p), rtol=1e-6)
    np.testing.assert_allclose(mask, np.where(kept, 1 / (1 - p), 0), rtol=1e-6)
    assert abs(kept.mean() - (1 - p)) < 0.02
    # same seed, same mask; other seed, other mask
    (out2, _), _ = op_forward('Dropout', [x], dict(p=p), is_train=True, seed=1)
    (out3, _), _ = op_forward('Dropout', [x], dict(p=p), is_train=True, seed=2)
    np.testing.assert_array_equal(out, out2)
    assert not np.array_equal(out, out3)


def test_dropout_axes_share_the_draw():
    x = np.ones((50, 4, 6))
    (out, _), _ = op_forward('Dropout', [x], dict(p=0.5, axes=(1,)), is_train=True)
    np.testing.assert_array_equal(out, np.broadcast_to(out[:, :1], out.shape))
    assert np.any(out == 0) and np.any(out == 2)
    (out, _), _ = op_forward('Dropout', [x], dict(p=0.5, axes=(0, 2)), is_train=True)
    np.testing.assert_array_equal(out, np.broadcast_to(out[:1, :, :1], out.shape))


def test_dropout_gradient_and_edges():
    x = rng(17).normal(size=(4, 5))
    grads = check_op_gradient('Dropout', [x], dict(p=0.4), is_train=True, seed=3)
    assert np.any(grads[0] == 0)
    check_op_gradient('Dropout', [x], dict(p=0.4, axes=(0,)), is_train=True, seed=3)
    (out, _), _ = op_forward('Dropout', [x], dict(p=1.0), is_train=True)   # MXNet: NaN (0 * inf)
    np.testing.assert_array_equal(out, 0)
    (out, _), _ = op_forward('Dropout', [x], dict(p=0.0), is_train=True)
    np.testing.assert_array_equal(out, x)


def test_dropout_structure():
    op = get('Dropout')
    p = op.parse_params({})
    assert (p.p, p.mode, p.axes, p.cudnn_off) == (0.5, 'training', (), False)
    assert op.outputs(p) == ['output', 'mask'] and op.visible_outputs(p) == 1
    assert op.infer_shape(p, [(2, 3)], [None, None], []) == ([(2, 3)], [(2, 3), (2, 3)], [])
    with pytest.raises(ParamError, match=r"Dropout: axes entry 2 is out of range for 2-d input 'data'"):
        op_forward('Dropout', [np.ones((2, 3))], dict(axes=(2,)), is_train=True)


# ====================================================================== Embedding

def test_embedding_forward_backward():
    weight = rng(18).normal(size=(5, 3))
    data = np.array([[0, 3.7, -1], [7, 1.2, 1], [4, 4, 2]])
    (out,), _ = op_forward('Embedding', [data, weight], dict(input_dim=5, output_dim=3))
    expected = np.zeros(data.shape + (3,))
    for idx in np.ndindex(*data.shape):
        row = min(max(int(data[idx]), 0), 4)      # truncate, then clip into the vocabulary
        expected[idx] = weight[row]
    np.testing.assert_array_equal(out, expected)
    head = rng(19).normal(size=out.shape)
    _, grads, _ = run_backward('Embedding', dict(input_dim=5, output_dim=3), [data, weight], [head])
    assert grads[0] is None
    d_weight = np.zeros_like(weight)
    for idx in np.ndindex(*data.shape):
        d_weight[min(max(int(data[idx]), 0), 4)] += head[idx]
    np.testing.assert_allclose(grads[1], d_weight, rtol=1e-12)
    check_op_gradient('Embedding', [data, weight], dict(input_dim=5, output_dim=3), grad_inputs=[1])


def test_embedding_structure_types_and_errors():
    op = get('Embedding')
    p = op.parse_params(dict(input_dim=10, output_dim=3))
    assert (p.dtype, p.sparse_grad) == ('float32', False)
    assert op.inputs(p) == ['data', 'weight']
    assert op.infer_shape(p, [(2, 4), None], [None], []) == ([(2, 4), (10, 3)], [(2, 4, 3)], [])
    assert op.infer_shape(p, [None, None], [(2, 4, 3)], [])[0] == [(2, 4), (10, 3)]
    ins, outs, _ = op.infer_type(op.parse_params(dict(input_dim=10, output_dim=3, dtype='float64')),
                                 [np.dtype('int32'), None], [None], [])
    assert ins == [np.int32, np.float64] and outs == [np.float64]
    with pytest.raises(ShapeError, match=r'Embedding: input weight: inconsistent shape'):
        op.infer_shape(p, [(2,), (5, 3)], [None], [])
    with pytest.raises(ShapeError, match=r"Embedding: input 'weight' must have shape \(10,3\)"):
        op_forward('Embedding', [np.zeros(2), np.zeros((5, 3))], dict(input_dim=10, output_dim=3))
    with pytest.raises(ParamError, match=r"Embedding: required parameter 'output_dim' is missing"):
        op.parse_params(dict(input_dim=10))


def test_sparse_embedding_is_embedding_with_a_row_sparse_gradient():
    # MXNet's _contrib_SparseEmbedding: Embedding's parameters and numbers, the weight's
    # gradient always row_sparse (sparse_grad given or not)
    weight = rng(20).normal(size=(5, 3))
    data = np.array([[0, 3.7, -1], [4, 1.2, 1]])
    params = dict(input_dim=5, output_dim=3)
    (out,), _ = op_forward('_contrib_SparseEmbedding', [data, weight], params)
    (want,), _ = op_forward('Embedding', [data, weight], params)
    np.testing.assert_array_equal(out, want)
    head = rng(21).normal(size=out.shape)
    _, grads, _ = run_backward('_contrib_SparseEmbedding', params, [data, weight], [head])
    _, dense, _ = run_backward('Embedding', params, [data, weight], [head])
    sparse = grads[1]
    if isinstance(sparse, np.ndarray) and sparse.dtype == object:    # a device run wraps it
        sparse = sparse.item()
    full = np.zeros(weight.shape)          # the SparseRows' (unique) rows, written out in full
    full[device.to_host(sparse.rows)] = device.to_host(sparse.values)
    np.testing.assert_allclose(full, dense[1], rtol=1e-12)
    op = get('_contrib_SparseEmbedding')
    assert op.grad_stype(op.parse_params(dict(params, sparse_grad=False)), 1, None) == 'row_sparse'
    # (Embedding's own gradient, which this one equals, is checked by finite differences above)
    # as MXNet builds it: mx.sym.contrib.SparseEmbedding, a node named sparseembedding<n>
    import reflib as mx        # (the namespace lives above the operator layer this file tests)
    with mx.name.NameManager():
        sym = mx.sym.contrib.SparseEmbedding(mx.sym.var('d'), input_dim=3, output_dim=2)
    node = json.loads(sym.tojson())['nodes'][-1]
    assert (node['op'], node['name'], node['attrs']) == ('_contrib_SparseEmbedding', 'sparseembedding0',
                                                         {'input_dim': '3', 'output_dim': '2'})
    # MXNet takes deterministic=True (a fixed summing order) on SparseEmbedding only, and
    # writes it into the JSON; reflib's sum always has one order, so the numbers are the same
    flagged = mx.sym.contrib.SparseEmbedding(mx.sym.var('d'), input_dim=3, output_dim=2, deterministic=True)
    assert json.loads(flagged.tojson())['nodes'][-1]['attrs']['deterministic'] == 'True'
    (out_flagged,), _ = op_forward('_contrib_SparseEmbedding', [data, weight], dict(params, deterministic=True))
    np.testing.assert_array_equal(out_flagged, want)
    with pytest.raises(mx.base.ParamError, match='deterministic'):
        mx.sym.Embedding(mx.sym.var('d'), input_dim=3, output_dim=2, deterministic=True)


def test_scatter_add_accumulates_repeated_indices():
    target = np.zeros((3, 2))
    scatter_add(np, target, np.array([0, 2, 0, 0]), np.ones((4, 2)))
    np.testing.assert_array_equal(target, [[3, 3], [0, 0], [1, 1]])


# ============================================================ golden values: MXNet 1.9.1

def _golden():
    return np.load(GOLDEN)


GOLDEN_CASES = sorted({k.split('/')[0] for k in _golden().files if not k.startswith('_')})


def test_golden_file_is_small_and_complete():
    assert os.path.getsize(GOLDEN) < 300 * 1024
    ops = {json.loads(str(_golden()['%s/meta' % c]))['op'] for c in GOLDEN_CASES}
    assert ops == {'Convolution', 'Pooling', 'BatchNorm', 'LeakyReLU', 'Dropout', 'Embedding'}


@pytest.mark.parametrize('case', GOLDEN_CASES)
def test_golden(case):
    z = _golden()
    meta = json.loads(str(z[case + '/meta']))
    op = get(meta['op'])
    p = op.parse_params(meta['params'])

    # structure: MXNet's argument, aux and output names are reflib's, prefixed by the node name
    assert ['data' if n == 'data' else 'op_' + n for n in op.inputs(p)] == meta['arguments']
    assert ['op_' + n for n in op.aux(p)] == meta['aux_states']
    visible = ['op_' + n for n in op.outputs(p)[:op.visible_outputs(p)]]
    assert visible[:len(meta['outputs'])] == meta['outputs']

    inputs = [z['%s/in/%s' % (case, n)] for n in meta['inputs']]
    aux = [z['%s/aux_in/%s' % (case, n)].copy() for n in meta['aux']]
    env = OpEnv(cpu(), meta['is_train'])
    outs = op.forward(p, env, inputs, aux)
    # float32 throughout; MXNet's reductions and ours sum in different orders
    for i in range(len(meta['outputs'])):
        np.testing.assert_allclose(outs[i], z['%s/out/%d' % (case, i)], rtol=1e-5, atol=1e-6,
                                   err_msg='%s output %d' % (case, i))
        assert outs[i].dtype == np.float32
    # like MXNet 1.9.1 on CPU, a forward alone never moves BatchNorm's moving statistics
    for name, got in zip(meta['aux'], aux):
        np.testing.assert_array_equal(got, z['%s/aux_in/%s' % (case, name)],
                                      err_msg='%s aux %s changed in forward' % (case, name))
    grads = None
    if meta['grads']:
        nvis = op.visible_outputs(p)
        heads = [z['%s/head/%d' % (case, i)] for i in range(nvis)] + [None] * (len(outs) - nvis)
        grads = op.backward(p, env, heads, inputs, outs, aux)
    # ... the backward of a training step does
    for name, got in zip(meta['aux'], aux):
        np.testing.assert_allclose(got, z['%s/aux_out/%s' % (case, name)], rtol=1e-5, atol=1e-6,
                                   err_msg='%s aux %s' % (case, name))
    if grads is None:
        return
    for name, got in zip(meta['inputs'], grads):
        key = '%s/grad/%s' % (case, name)
        if key not in z.files:      # MXNet has no gradient for it (Embedding's data)
            continue
        if case == 'selu':          # MXNet's negative side is wrong: see test_selu_gradient_...
            keep = inputs[0] > 0
            got, want = got[keep], z[key][keep]
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg='selu, x > 0')
            continue
        np.testing.assert_allclose(got, z[key], rtol=1e-5, atol=1e-5 if meta['op'] == 'BatchNorm' else 1e-6,
                                   err_msg='%s gradient of %s' % (case, name))


SHAPE_CASES = json.loads(str(_golden()['_shapes']))


@pytest.mark.parametrize('case', SHAPE_CASES, ids=lambda c: '%s-%s-%s' % (c['op'], c['params'], c['data']))
def test_golden_shape_inference(case):
    op = get(case['op'])
    p = op.parse_params(case['params'])
    data = tuple(case['data'])
    n_in, n_out, n_aux = len(op.inputs(p)), len(op.outputs(p)), len(op.aux(p))
    if case['error']:
        with pytest.raises(MXNetError):
            op.infer_shape(p, [data] + [None] * (n_in - 1), [None] * n_out, [None] * n_aux)
        return
    ins, outs, aux = op.infer_shape(p, [data] + [None] * (n_in - 1), [None] * n_out, [None] * n_aux)
    names = ['data' if n == 'data' else 'op_' + n for n in op.inputs(p)]
    assert dict(zip(names, ins)) == {k: tuple(v) for k, v in case['args'].items()}
    assert {'op_' + n: s for n, s in zip(op.outputs(p), outs) if 'op_' + n in case['outputs']} == \
        {k: tuple(v) for k, v in case['outputs'].items()}
    assert dict(zip(['op_' + n for n in op.aux(p)], aux)) == {k: tuple(v) for k, v in case['aux'].items()}


# ======================================================================== speed

def test_small_cnn_step_is_fast():
    """Forward+backward of conv-pool-conv on a 64 x 1 x 8 x 8 batch.

    Takes ~20 ms on one idle core; the generous bound only catches a
    per-element Python loop sneaking in (that would take seconds).
    """
    import time
    r = rng(20)
    x = r.normal(size=(64, 1, 8, 8)).astype(np.float32)
    w = r.normal(size=(16, 1, 3, 3)).astype(np.float32)
    w2 = r.normal(size=(32, 16, 3, 3)).astype(np.float32)
    b, b2 = np.zeros(16, np.float32), np.zeros(32, np.float32)
    conv1 = dict(kernel=(3, 3), num_filter=16, pad=(1, 1))
    conv2 = dict(kernel=(3, 3), num_filter=32, pad=(1, 1))
    pool = dict(kernel=(2, 2), stride=(2, 2))
    start = time.perf_counter()
    (h,), _ = op_forward('Convolution', [x, w, b], conv1)
    (h2,), _ = op_forward('Pooling', [h], pool)
    (h3,), _ = op_forward('Convolution', [h2, w2, b2], conv2)
    run_backward('Convolution', conv2, [h2, w2, b2], [np.ones_like(h3)])
    run_backward('Pooling', pool, [h], [np.ones_like(h2)])
    run_backward('Convolution', conv1, [x, w, b], [np.ones_like(h)])
    assert time.perf_counter() - start < 2.0


# ------------------------------------------------------------------ Convolution in batch chunks
@pytest.mark.parametrize('kwargs, shape', [
    ({'kernel': (3, 3), 'pad': (1, 1), 'num_filter': 4}, (5, 4, 7, 7)),
    ({'kernel': (3, 3), 'stride': (2, 2), 'num_filter': 6, 'num_group': 2}, (5, 4, 9, 9)),
    ({'kernel': (2,), 'num_filter': 3, 'no_bias': True}, (5, 2, 9)),
])
def test_convolution_in_batch_chunks_equals_one_piece(kwargs, shape, monkeypatch):
    op = get('Convolution')
    p = op.parse_params(kwargs)
    rng = np.random.RandomState(0)
    channels = shape[1] // p.num_group
    ins = [rng.randn(*shape).astype(np.float32),
           rng.randn(p.num_filter, channels, *p.kernel).astype(np.float32)]
    if not p.no_bias:
        ins.append(rng.randn(p.num_filter).astype(np.float32))
    env = OpEnv(cpu(), True)
    out_size = op._out_size(p, shape, op._geometry(p))
    assert len(op._chunks(p, shape, out_size, 4)) == 1
    whole = op.forward(p, env, ins, [])
    head = [rng.randn(*whole[0].shape).astype(np.float32)]
    whole_grads = op.backward(p, env, head, ins, whole, [])
    # a workspace that holds the scratch memory of exactly two samples: chunks of 2, 2 and 1
    per_sample = (2 * shape[1] * int(np.prod(p.kernel)) + 2 * p.num_filter) * int(np.prod(out_size)) * 4
    monkeypatch.setattr(type(device.real_operator(op)), 'max_workspace_mb', 2 * per_sample / (1 << 20))
    assert [(c.start, c.stop) for c in op._chunks(p, shape, out_size, 4)] == [(0, 2), (2, 4), (4, 5)]
    pieces = op.forward(p, env, ins, [])
    np.testing.assert_allclose(pieces[0], whole[0], rtol=1e-6, atol=1e-6)
    for got, want in zip(op.backward(p, env, head, ins, pieces, []), whole_grads):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_convolution_workspace_parameter_caps_the_chunks():
    op = get('Convolution')
    p = op.parse_params({'kernel': (3, 3), 'num_filter': 16, 'workspace': 1})
    # (2*16*9 + 2*16) * 30*30 * 4 bytes = 1.15 MB per sample: 1 MB allows one at a time
    assert len(op._chunks(p, (4, 16, 32, 32), (30, 30), 4)) == 4


def test_convolution_results_never_live_in_its_scratch_memory():
    op = get('Convolution')
    p = op.parse_params({'kernel': (3, 3), 'pad': (1, 1), 'num_filter': 4})
    env = OpEnv(cpu(), True)
    rng = np.random.RandomState(0)
    first_in = [rng.randn(2, 3, 5, 5).astype(np.float32), rng.randn(4, 3, 3, 3).astype(np.float32),
                rng.randn(4).astype(np.float32)]
    first = op.forward(p, env, first_in, [])
    head = [np.ones_like(first[0])]
    first_grads = op.backward(p, env, head, first_in, first, [])
    kept = [a.copy() for a in first + first_grads]
    second_in = [x * 3 + 1 for x in first_in]               # same shapes: the same scratch buffers
    op.backward(p, env, head, second_in, op.forward(p, env, second_in, []), [])
    for a, b in zip(first + first_grads, kept):
        assert np.array_equal(a, b)


@pytest.mark.parametrize('params', [{'kernel': (2, 2), 'stride': (2, 2), 'pool_type': 'max'},
                                    {'kernel': (3, 3), 'stride': (2, 2), 'pad': (1, 1), 'pool_type': 'max'},
                                    {'kernel': (2, 2), 'stride': (2, 2), 'pool_type': 'avg'}])
def test_pooling_results_never_live_in_its_scratch_memory(params):
    op = get('Pooling')
    p = op.parse_params(params)
    env = OpEnv(cpu(), True)
    x = np.random.RandomState(0).randn(2, 3, 6, 6).astype(np.float32)
    first = op.forward(p, env, [x], [])
    first_grads = op.backward(p, env, [np.ones_like(first[0])], [x], first, [])
    kept = [a.copy() for a in first + first_grads]
    y = x * 3 + 1                                           # same shapes: the same scratch buffers
    op.backward(p, env, [np.full_like(first[0], 2.0)], [y], op.forward(p, env, [y], []), [])
    for a, b in zip(first + first_grads, kept):
        assert np.array_equal(a, b)


@pytest.mark.parametrize('shape', [(3, 4), (3, 4, 2, 2)])
def test_prelu_gamma_over_the_leading_dims(shape):
    """MXNet's test_prelu: a gamma of 2 or more dims covers data's leading dims (one slope
    per element of (N, C)) and broadcasts over the rest."""
    x = rng(14).normal(size=shape)
    gamma = rng(15).uniform(0.1, 0.5, size=(3, 4))
    (out,), _ = op_forward('LeakyReLU', [x, gamma], dict(act_type='prelu'))
    slopes = gamma.reshape(gamma.shape + (1,) * (len(shape) - 2))
    np.testing.assert_allclose(out, np.where(x > 0, x, slopes * x), rtol=1e-12)
    check_op_gradient('LeakyReLU', [x, gamma], dict(act_type='prelu'))
