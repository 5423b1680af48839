"""Tests for the contrib layers: BilinearResize2D, AdaptiveAvgPooling2D (resize.py), the
interleaved multi-head attention products (attention.py) and quantize, quantize_v2,
dequantize, requantize (quantize.py).

1. golden values recorded from MXNet 1.9.1 by tests/golden/gen_ops_contrib_nn.py:
   forward, input gradients and the shapes MXNet refuses;
2. backward against finite differences (``check_op_gradient``, float64) for every input
   that has a gradient;
3. independent references (a resize to the same size is the identity, pooling by a
   divisor is a block mean, the attention products are einsums) and clear messages for
   bad input.
"""

import numpy as np
import pytest

import reflib as mx
from reflib.base import ParamError, ShapeError, TypeInferError
from reflib.context import cpu
from reflib.operator import OpEnv
from device import get
from reflib.test_utils import check_op_gradient, op_forward
from op_golden import GoldenCases, infer_shapes

GOLDEN = GoldenCases('ops_contrib_nn.npz')
META = GOLDEN.meta

OPERATORS = ['_contrib_BilinearResize2D', '_contrib_AdaptiveAvgPooling2D',
             '_contrib_interleaved_matmul_selfatt_qk', '_contrib_interleaved_matmul_selfatt_valatt',
             '_contrib_interleaved_matmul_encdec_qk', '_contrib_interleaved_matmul_encdec_valatt',
             '_contrib_quantize', '_contrib_quantize_v2', '_contrib_dequantize', '_contrib_requantize']
RESIZE, POOL = '_contrib_BilinearResize2D', '_contrib_AdaptiveAvgPooling2D'
SELF_QK, SELF_VAL = '_contrib_interleaved_matmul_selfatt_qk', '_contrib_interleaved_matmul_selfatt_valatt'
ENCDEC_QK, ENCDEC_VAL = '_contrib_interleaved_matmul_encdec_qk', '_contrib_interleaved_matmul_encdec_valatt'


def rand(*shape, seed=0, low=-1.0, high=1.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


# ============================================================ golden values from MXNet
@pytest.mark.parametrize('i', GOLDEN.indices(), ids=GOLDEN.ids())
def test_golden_case(i):
    GOLDEN.check(i)


def test_golden_covers_every_operator():
    assert GOLDEN.operator_names() == set(OPERATORS)


@pytest.mark.parametrize('case', META['errors'], ids=lambda c: '%s%s%s' % (c['op'], c['params'], c['shapes']))
def test_golden_shape_errors(case):
    """What MXNet refuses, reflib refuses too, naming the operator."""
    with pytest.raises((ShapeError, ParamError)) as info:
        infer_shapes(case['op'], case['params'], [tuple(s) for s in case['shapes']])
    assert case['op'] in str(info.value)


def test_reached_as_mx_nd_contrib():
    x = mx.nd.array(rand(1, 2, 3, 4))
    assert mx.nd.contrib.BilinearResize2D(x, height=5, width=6).shape == (1, 2, 5, 6)
    assert mx.nd.contrib.AdaptiveAvgPooling2D(x, output_size=(2, 2)).shape == (1, 2, 2, 2)
    q, low, high = mx.nd.contrib.quantize_v2(x)
    assert q.dtype == np.int8 and low.shape == high.shape == (1,)
    # the optional second input may be given as None outside mode 'like'
    sym = mx.sym.contrib.BilinearResize2D(mx.sym.var('data'), None, scale_height=2.0, scale_width=0.5)
    assert sym.list_arguments() == ['data']
    assert sym.infer_shape(data=(1, 2, 3, 4))[1] == [(1, 2, 6, 2)]


# ============================================================ BilinearResize2D
RESIZE_CASES = [
    ((1, 2, 3, 4), dict(height=5, width=7)),
    ((1, 1, 5, 6), dict(height=2, width=3, align_corners=False)),
    ((2, 1, 3, 3), dict(height=7, width=1, align_corners=False)),
    ((1, 2, 4, 5), dict(scale_height=1.5, scale_width=0.6)),
    ((1, 1, 5, 4), dict(mode='odd_scale', scale_height=2.0, scale_width=1.5, align_corners=False)),
    ((1, 1, 5, 4), dict(mode='to_odd_up')),
]


@pytest.mark.parametrize('shape,params', RESIZE_CASES)
def test_bilinear_resize_gradient(shape, params):
    check_op_gradient(RESIZE, [rand(*shape)], params)


def test_bilinear_resize_like_gradient_is_zero_for_like():
    grads = check_op_gradient(RESIZE, [rand(1, 2, 3, 4), rand(1, 2, 5, 2, seed=1)], {'mode': 'like'})
    assert not np.any(grads[1])


@pytest.mark.parametrize('align_corners', [True, False])
def test_bilinear_resize_to_the_same_size_is_the_identity(align_corners):
    x = rand(2, 3, 4, 5)
    (out,), _ = op_forward(RESIZE, [x], dict(height=4, width=5, align_corners=align_corners))
    np.testing.assert_array_equal(out, x)


def test_bilinear_resize_corners_and_centres():
    """align_corners keeps the corner pixels; without it a 2x enlargement repeats the
    outer pixels and puts quarter/three-quarter mixes in between."""
    x = np.array([[[[0.0, 4.0], [8.0, 12.0]]]])
    (out,), _ = op_forward(RESIZE, [x], dict(height=3, width=3))
    np.testing.assert_allclose(out[0, 0], [[0, 2, 4], [4, 6, 8], [8, 10, 12]])
    (out,), _ = op_forward(RESIZE, [x[:, :, :1]], dict(height=1, width=4, align_corners=False))
    np.testing.assert_allclose(out[0, 0, 0], [0, 1, 3, 4])


def test_bilinear_resize_output_sizes():
    def size(params, shape=(1, 2, 7, 6)):
        return infer_shapes(RESIZE, params, [shape] + ([(1, 1, 3, 9)] if params.get('mode') == 'like' else []))[1][0]
    assert size({}) == (1, 2, 1, 1)
    assert size(dict(height=3, width=4, scale_width=9.0)) == (1, 2, 3, 4)      # scale_width alone: ignored
    assert size(dict(scale_height=0.5, scale_width=1.5)) == (1, 2, 3, 9)
    assert size(dict(mode='odd_scale', scale_height=2.0, scale_width=0.5)) == (1, 2, 13, 3)
    assert size(dict(mode='like')) == (1, 2, 3, 9)
    assert size(dict(mode='to_even_down')) == (1, 2, 6, 6)
    assert size(dict(mode='to_even_up')) == (1, 2, 8, 6)
    assert size(dict(mode='to_odd_down')) == (1, 2, 7, 5)
    assert size(dict(mode='to_odd_up')) == (1, 2, 7, 7)


def test_bilinear_resize_structure_and_errors():
    op = get(RESIZE)
    assert list(op.params) == ['height', 'width', 'scale_height', 'scale_width', 'mode', 'align_corners']
    assert op.inputs(op.parse_params({})) == ['data']
    assert op.inputs(op.parse_params({'mode': 'like'})) == ['data', 'like']
    with pytest.raises(ShapeError, match=r"_contrib_BilinearResize2D: input 'data' must be 4-d"):
        infer_shapes(RESIZE, {}, [(2, 3, 4)])
    with pytest.raises(ShapeError, match=r"_contrib_BilinearResize2D: input 'like' must be 4-d"):
        infer_shapes(RESIZE, {'mode': 'like'}, [(1, 2, 3, 4), (3, 4)])
    with pytest.raises(ParamError, match=r"_contrib_BilinearResize2D: mode 'size' with scale_height needs both"):
        infer_shapes(RESIZE, {'scale_height': 2.0}, [(1, 2, 3, 4)])
    with pytest.raises(ParamError, match=r"_contrib_BilinearResize2D: parameter 'width' must be in \[1, 10000\]"):
        infer_shapes(RESIZE, {'width': 0}, [(1, 2, 3, 4)])
    with pytest.raises(TypeInferError, match=r"_contrib_BilinearResize2D: input 'data' has dtype int32"):
        op_forward(RESIZE, [np.ones((1, 1, 2, 2), dtype=np.int32)], {'height': 3, 'width': 3})


# ============================================================ AdaptiveAvgPooling2D
@pytest.mark.parametrize('shape,size', [((1, 2, 5, 7), (3, 4)), ((2, 1, 3, 4), (5, 6)), ((1, 1, 4, 4), ())])
def test_adaptive_pooling_gradient(shape, size):
    check_op_gradient(POOL, [rand(*shape)], {'output_size': size})


def test_adaptive_pooling_by_a_divisor_is_a_block_mean():
    x = rand(2, 3, 6, 8)
    (out,), _ = op_forward(POOL, [x], {'output_size': (3, 2)})
    np.testing.assert_allclose(out, x.reshape(2, 3, 3, 2, 2, 4).mean(axis=(3, 5)), rtol=1e-12)


def test_adaptive_pooling_windows_overlap_and_cover():
    """5 rows into 3 cells: rows [0, 2), [1, 4), [3, 5); an inf stays in its own windows."""
    x = np.arange(5.0).reshape(1, 1, 5, 1)
    (out,), _ = op_forward(POOL, [x], {'output_size': (3, 1)})
    np.testing.assert_allclose(out.ravel(), [0.5, 2.0, 3.5])
    x[0, 0, 0, 0] = np.inf
    (out,), _ = op_forward(POOL, [x], {'output_size': (3, 1)})
    assert np.isinf(out.ravel()[0]) and np.isfinite(out.ravel()[1:]).all()


def test_adaptive_pooling_errors():
    assert infer_shapes(POOL, {'output_size': 4}, [(2, 3, 7, 7)])[1] == [(2, 3, 4, 4)]
    with pytest.raises(ShapeError, match=r"_contrib_AdaptiveAvgPooling2D: input 'data' must be 4-d"):
        infer_shapes(POOL, {}, [(2, 3, 4)])
    with pytest.raises(ParamError, match=r"_contrib_AdaptiveAvgPooling2D: output_size must be one size or "
                                         r"\(height, width\), got \(1,2,3\)"):
        infer_shapes(POOL, {'output_size': (1, 2, 3)}, [(2, 3, 4, 4)])


# ============================================================ attention products
def heads_of(x, heads, parts, part):
    """Reference slicing: (seq, batch, heads*parts*d) -> (batch, heads, seq, d)."""
    seq, batch, features = x.shape
    return x.reshape(seq, batch, heads, parts, -1)[:, :, :, part].transpose(1, 2, 0, 3)


ATTENTION = [
    (SELF_QK, [(3, 2, 12)], 2),
    (SELF_VAL, [(3, 2, 12), (4, 3, 3)], 2),
    (ENCDEC_QK, [(4, 2, 6), (3, 2, 12)], 3),
    (ENCDEC_VAL, [(3, 2, 12), (6, 5, 3)], 3),
]


@pytest.mark.parametrize('name,shapes,heads', ATTENTION, ids=[a[0] for a in ATTENTION])
def test_attention_gradients(name, shapes, heads):
    check_op_gradient(name, [rand(*s, seed=k) for k, s in enumerate(shapes)], {'heads': heads})


def test_attention_products_are_einsums():
    heads = 2
    qkv = rand(3, 2, heads * 3 * 4)
    q, k, v = (heads_of(qkv, heads, 3, j) for j in range(3))
    (scores,), _ = op_forward(SELF_QK, [qkv], {'heads': heads})
    want = np.einsum('bhqd,bhkd->bhqk', q, k) / 2.0
    np.testing.assert_allclose(scores, want.reshape(4, 3, 3), rtol=1e-12)
    att = rand(4, 3, 3, seed=1)
    (out,), _ = op_forward(SELF_VAL, [qkv, att], {'heads': heads})
    want = np.einsum('bhqk,bhkd->qbhd', att.reshape(2, heads, 3, 3), v)
    np.testing.assert_allclose(out, want.reshape(3, 2, heads * 4), rtol=1e-12)

    queries, kv = rand(5, 2, heads * 4, seed=2), rand(3, 2, heads * 2 * 4, seed=3)
    (scores,), _ = op_forward(ENCDEC_QK, [queries, kv], {'heads': heads})
    want = np.einsum('bhqd,bhkd->bhqk', heads_of(queries, heads, 1, 0), heads_of(kv, heads, 2, 0)) / 2.0
    np.testing.assert_allclose(scores, want.reshape(4, 5, 3), rtol=1e-12)
    att = rand(4, 5, 3, seed=4)
    (out,), _ = op_forward(ENCDEC_VAL, [kv, att], {'heads': heads})
    want = np.einsum('bhqk,bhkd->qbhd', att.reshape(2, heads, 5, 3), heads_of(kv, heads, 2, 1))
    np.testing.assert_allclose(out, want.reshape(5, 2, heads * 4), rtol=1e-12)


def test_attention_errors():
    assert infer_shapes(SELF_VAL, {'heads': 2}, [(3, 2, 12), None]) == ([(3, 2, 12), (4, 3, 3)], [(3, 2, 4)])
    with pytest.raises(ShapeError, match=r"selfatt_qk: input 'queries_keys_values' must be 3-d"):
        infer_shapes(SELF_QK, {'heads': 2}, [(3, 12)])
    # MXNet 1.9.1 accepts a width that is no multiple of 3 * heads and drops the rest
    with pytest.raises(ShapeError, match=r"selfatt_qk: the last axis of input 'queries_keys_values' must be "
                                         r"heads \* 3 \* head_dim, a multiple of 6 \(heads=2\), got shape \(3,2,10\)"):
        infer_shapes(SELF_QK, {'heads': 2}, [(3, 2, 10)])
    with pytest.raises(ShapeError, match=r"selfatt_valatt: input 'attention' must be \(batch \* heads, seq_q, "
                                         r"seq_k\) = \(4,3,3\), got shape \(4,3,2\)"):
        infer_shapes(SELF_VAL, {'heads': 2}, [(3, 2, 12), (4, 3, 2)])
    with pytest.raises(ShapeError, match=r"encdec_qk: inputs 'queries' \(3,2,4\) and 'keys_values' \(5,3,8\) "
                                         r"must have one batch size and one head_dim"):
        infer_shapes(ENCDEC_QK, {'heads': 2}, [(3, 2, 4), (5, 3, 8)])
    with pytest.raises(ParamError, match=r"selfatt_qk: parameter 'heads' must be at least 1"):
        get(SELF_QK).parse_params({'heads': 0})
    with pytest.raises(ParamError, match=r"selfatt_qk: required parameter 'heads' is missing"):
        get(SELF_QK).parse_params({})


# ============================================================ quantization
def test_quantize_dequantize_round_trip_is_within_one_step():
    x = rand(4, 50, low=-2.0, high=3.0).astype(np.float32)
    for out_type, levels in (('int8', 127.5), ('uint8', 255.5)):
        q, low, high = op_forward('_contrib_quantize_v2', [x], {'out_type': out_type})[0]
        (back,), _ = op_forward('_contrib_dequantize', [q, low, high], {})
        step = 3.0 / levels
        kept = x if out_type == 'int8' else np.maximum(x, 0)     # uint8 has no negatives
        assert back.dtype == np.float32 and np.abs(back - kept).max() <= step / 2 + 1e-6


def test_quantize_levels_and_ranges():
    x = np.array([[-2.0, -0.5, 0.0, 0.26, 3.0]], dtype=np.float32)
    r = [np.array([v], dtype=np.float32) for v in (-1.0, 2.0)]
    (q, low, high), _ = op_forward('_contrib_quantize', [x] + r, {'out_type': 'int8'})
    assert q.dtype == np.int8 and q.tolist() == [[-127, -32, 0, 17, 127]] and (low, high) == (-2.0, 2.0)
    (q, low, high), _ = op_forward('_contrib_quantize', [x] + r, {'out_type': 'uint8'})
    assert q.dtype == np.uint8 and q.tolist() == [[0, 0, 0, 33, 255]] and (low, high) == (-1.0, 2.0)
    (q, low, high), _ = op_forward('_contrib_quantize_v2', [x], {'out_type': 'auto', 'min_calib_range': 0.0,
                                                                 'max_calib_range': 2.0})
    assert q.dtype == np.uint8 and (low, high) == (0.0, 2.0)
    i32 = np.array([[2 ** 31 - 1, -(2 ** 30), 0]], dtype=np.int32)
    (q, low, high), _ = op_forward('_contrib_requantize', [i32] + [np.array([v], np.float32) for v in (-4., 8.)],
                                   {'min_calib_range': -4.0, 'max_calib_range': 2.0})
    assert q.tolist() == [[127, -127, 0]] and (low, high) == (-4.0, 4.0)


@pytest.mark.parametrize('name,inputs', [
    ('_contrib_quantize', [np.ones((2, 3), np.float32), np.zeros(1, np.float32), np.ones(1, np.float32)]),
    ('_contrib_dequantize', [np.ones((2, 3), np.int8), np.zeros(1, np.float32), np.ones(1, np.float32)]),
])
def test_quantization_has_zero_gradient(name, inputs):
    op = get(name)
    p = op.parse_params({})
    assert op.gradient_blocked(p)
    outs, _ = op_forward(name, inputs, {})
    grads = op.backward(p, OpEnv(cpu()), [np.ones_like(o) for o in outs], inputs, outs, [])
    assert all(g.shape == x.shape and not np.any(g) for g, x in zip(grads, inputs))


def test_quantization_errors():
    with pytest.raises(ShapeError, match=r"_contrib_quantize: input 'min_range' must hold one number, shape "
                                         r"\(1\), got shape \(2\)"):
        infer_shapes('_contrib_quantize', {}, [(2, 3), (2,), (1,)])
    with pytest.raises(TypeInferError, match=r"_contrib_dequantize: input 'data' must be int8 or uint8, got int32"):
        op_forward('_contrib_dequantize', [np.ones(3, np.int32), np.zeros(1, np.float32),
                                           np.ones(1, np.float32)], {})
    with pytest.raises(TypeInferError, match=r"_contrib_requantize: input 'data' must be int32, got float32"):
        op_forward('_contrib_requantize', [np.ones(3, np.float32), np.zeros(1, np.float32),
                                           np.ones(1, np.float32)], {})
    with pytest.raises(ParamError, match=r"_contrib_quantize_v2: give both min_calib_range and max_calib_range"):
        op_forward('_contrib_quantize_v2', [np.ones(3, np.float32)], {'min_calib_range': -1.0})
    with pytest.raises(ParamError, match=r"_contrib_quantize: parameter 'out_type' expects one of"):
        get('_contrib_quantize').parse_params({'out_type': 'int32'})


def test_dtypes():
    op = get(RESIZE)
    p = op.parse_params({'mode': 'like'})
    f64, f16 = np.dtype(np.float64), np.dtype(np.float16)
    assert op.infer_type(p, [f64, None], [None], []) == ([f64, f64], [f64], [])
    (out,), _ = op_forward(RESIZE, [rand(1, 1, 2, 3).astype(np.float16)], {'height': 3, 'width': 2})
    assert out.dtype == f16
    (out,), _ = op_forward(POOL, [rand(1, 1, 4, 3).astype(np.float16)], {'output_size': 2})
    assert out.dtype == f16
    q = get('_contrib_quantize_v2')
    assert q.infer_type(q.parse_params({'out_type': 'auto', 'min_calib_range': 0.0, 'max_calib_range': 1.0}),
                        [np.dtype(np.float32)], [None] * 3, [])[1] == [np.dtype(np.uint8)] + [np.dtype(np.float32)] * 2
