"""Tests for Pooling with pooling_convention='same' (reflib/operator/pooling.py).

1. forward and backward against MXNet 1.9.1's plain CPU kernel (tests/golden/
   gen_ops_pooling_same.py -> ops_pooling_same.npz): max, avg, sum, lp, windows that
   overhang the end, ties, global pooling;
2. output shapes ceil(in / stride), as MXNet infers them;
3. backward against finite differences (``check_op_gradient``);
4. what MXNet 1.9.1 fails on is refused, exactly: data that is not 3-d, a pad that is
   shorter than three entries (the default included) or nonzero in them, a kernel longer
   than the input; what it runs is not.
"""

import math

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError, ParamError, ShapeError
from reflib.test_utils import check_op_gradient
from op_golden import GoldenCases, infer_shapes

GOLDEN = GoldenCases('ops_pooling_same.npz')
META = GOLDEN.meta
SAME = {'pooling_convention': 'same', 'pad': (0, 0, 0)}
rng = np.random.RandomState(5)


# ============================================================ 1. golden values from MXNet
@pytest.mark.parametrize('i', GOLDEN.indices(), ids=GOLDEN.ids())
def test_golden_case(i):
    GOLDEN.check(i)


def test_golden_covers_every_pool_type_and_what_onednn_fails_on():
    types = {c['attrs'].get('pool_type', 'max') for c in GOLDEN.cases}
    assert types == {'max', 'avg', 'sum', 'lp'}
    # the oracle's oneDNN kernels fail on these cases (max/avg windows overhanging the end);
    # its plain kernel, which the golden values come from, runs them, and so does reflib
    assert len(META['onednn_fails']) >= 10
    assert all(GOLDEN.cases[i]['attrs'].get('pool_type', 'max') in ('max', 'avg') for i in META['onednn_fails'])


def test_mxnets_own_case():
    """test_valid_max_pooling_pad_type_same: 10 wide, kernel 2, stride 2 -> ceil(10 / 2) = 5."""
    x = mx.nd.array(np.random.rand(1, 1, 10))
    out = mx.nd.Pooling(x, kernel=2, stride=2, pad=(0, 0, 0), pool_type='max', name='pooling',
                        pooling_convention='same')
    assert out.shape[2] == math.ceil(10 / 2)
    np.testing.assert_array_equal(out.asnumpy().ravel(), x.asnumpy().reshape(5, 2).max(axis=1))


def test_windows_are_cut_at_the_end_not_padded_in_front():
    x = mx.nd.array(np.arange(1, 11, dtype=np.float32).reshape(1, 1, 10))
    pool = lambda **kw: mx.nd.Pooling(x, **dict(SAME, **kw)).asnumpy().ravel().tolist()
    assert pool(kernel=(3,), stride=(2,), pool_type='max') == [3, 5, 7, 9, 10]
    assert pool(kernel=(3,), stride=(2,), pool_type='avg') == [2, 4, 6, 8, 9.5]
    assert pool(kernel=(3,), stride=(1,), pool_type='sum') == [6, 9, 12, 15, 18, 21, 24, 27, 19, 10]
    assert pool(kernel=(6,), stride=(4,), pool_type='avg', count_include_pad=False) == [3.5, 7.5, 9.5]


# ============================================================ 2. shapes
def test_inferred_shapes_as_mxnet():
    for shape, k, s, want in META['infer_shape']:
        _, outs = infer_shapes('Pooling', dict(SAME, kernel=(k,), stride=(s,)), [tuple(shape)])
        assert outs[0] == tuple(want) == tuple(shape[:2]) + (-(-shape[2] // s),), (shape, k, s)
    sym = mx.sym.Pooling(mx.sym.var('d'), kernel=(3,), stride=(2,), **SAME)
    assert sym.infer_shape(d=(2, 3, 11))[1] == [(2, 3, 6)]


# ============================================================ 3. finite differences
@pytest.mark.parametrize('params', [
    {'kernel': (3,), 'stride': (2,), 'pool_type': 'max'},
    {'kernel': (4,), 'stride': (3,), 'pool_type': 'max'},
    {'kernel': (3,), 'stride': (2,), 'pool_type': 'avg'},
    {'kernel': (5,), 'stride': (1,), 'pool_type': 'avg', 'count_include_pad': False},
    {'kernel': (2,), 'stride': (3,), 'pool_type': 'sum'},
    {'kernel': (3,), 'stride': (2,), 'pool_type': 'lp', 'p_value': 2},
    {'kernel': (3,), 'stride': (2,), 'pool_type': 'lp', 'p_value': 3},
])
def test_gradient_against_finite_differences(params):
    # distinct values at least 0.05 apart: no max ties for the differences to straddle
    x = (rng.permutation(2 * 2 * 9).reshape(2, 2, 9) * 0.1 + 0.5)
    check_op_gradient('Pooling', [x], dict(SAME, **params))


# ============================================================ 4. what MXNet fails on
ERROR_CALLS = {
    'default_pad': ((1, 1, 10), {'kernel': (2,), 'stride': (2,)}),
    'pad_1': ((1, 1, 10), {'kernel': (2,), 'stride': (2,), 'pad': (0,)}),
    'pad_2': ((1, 1, 10), {'kernel': (2,), 'stride': (2,), 'pad': (0, 0)}),
    'pad_nonzero': ((1, 1, 10), {'kernel': (2,), 'stride': (2,), 'pad': (0, 0, 1)}),
    'pad_2_int': ((1, 1, 10), {'kernel': (2,), 'stride': (2,), 'pad': 2}),
    'pad_fourth_nonzero': ((1, 1, 10), {'kernel': (2,), 'stride': (2,), 'pad': (0, 0, 0, 3)}),
    '2d': ((1, 1, 6, 6), {'kernel': (2, 2), 'stride': (2, 2), 'pad': (0, 0, 0)}),
    '2d_default_pad': ((1, 1, 6, 6), {'kernel': (2, 2), 'stride': (2, 2)}),
    '3d': ((1, 1, 4, 4, 4), {'kernel': (2, 2, 2), 'stride': (2, 2, 2)}),
    'global_2d': ((1, 1, 6, 6), {'global_pool': True}),
    'kernel_too_big': ((1, 1, 10), {'kernel': (11,), 'pad': (0, 0, 0)}),
    'kernel_equal': ((1, 1, 10), {'kernel': (10,), 'pad': (0, 0, 0)}),
    'global_3d_default_pad': ((1, 1, 10), {'global_pool': True}),
}
MESSAGES = {
    'default_pad': "needs pad spelled out as pad=\\(0, 0, 0\\)", 'pad_1': 'needs pad spelled out',
    'pad_2': 'needs pad spelled out', 'pad_nonzero': 'the first three entries of pad must be 0',
    'pad_2_int': 'the first three entries of pad must be 0',
    '2d': "'same' pools 1-D data only: input 'data' must be 3-d", '2d_default_pad': 'must be 3-d',
    '3d': 'must be 3-d', 'global_2d': 'must be 3-d', 'kernel_too_big': 'kernel size 11 exceeds',
}


def test_error_calls_are_mxnets():
    assert set(ERROR_CALLS) == set(META['errors'])


@pytest.mark.parametrize('label', sorted(ERROR_CALLS))
def test_refused_exactly_where_mxnet_fails(label):
    shape, params = ERROR_CALLS[label]
    mxnet_fails = META['errors'][label] is not None
    assert mxnet_fails == (label in MESSAGES)
    call = lambda: mx.nd.Pooling(mx.nd.ones(shape), pooling_convention='same', **params)
    if mxnet_fails:
        with pytest.raises((ParamError, ShapeError), match=MESSAGES[label]):
            call()
        # refused at shape inference, as MXNet does
        with pytest.raises(MXNetError, match=MESSAGES[label]):
            mx.sym.Pooling(mx.sym.var('d'), pooling_convention='same', **params).infer_shape(d=shape)
    else:
        out = call()
        assert out.shape[2] == (1 if params.get('global_pool') else -(-shape[2] // params.get('stride', (1,))[0]))


def test_refusal_is_documented():
    doc = mx.nd.Pooling.__doc__
    assert "pooling_convention='same'" in doc and 'pad=(0, 0, 0)' in doc and '3-d' in doc
    assert 'ceil(in / stride)' in doc
