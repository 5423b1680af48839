"""contrib's small operators (quadratic, div_sqrt_dim, index_array, index_copy, boolean_mask,
allclose, SyncBatchNorm), the Python functions isnan/isinf/isfinite, mx.nd.CachedOp,
mx.contrib.autograd and advanced indexing inside autograd.record(): against MXNet 1.9.1
(golden/contrib.json, from golden/gen_contrib.py), plus finite-difference gradients and
the errors reflib gives where MXNet's behaviour is a silent surprise."""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError, ParamError
from reflib.test_utils import check_op_gradient

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
from contrib_cases import run  # noqa: E402

with open(os.path.join(HERE, 'golden', 'contrib.json')) as _f:
    GOLDEN = json.load(_f)
RESULTS = run(mx)


def _close(mine, theirs):
    """Recorded arrays ([shape, dtype, values]) equal in shape and dtype, values to float32's
    precision (float16's to 1e-2, as MXNet's own tests allow: its half-precision arithmetic
    rounds a few results one step apart from numpy's); everything else equal."""
    if isinstance(theirs, list) and len(theirs) == 3 and isinstance(theirs[1], str) and isinstance(theirs[0], list):
        return (mine[:2] == theirs[:2]
                and np.allclose(np.array(mine[2], dtype=float), np.array(theirs[2], dtype=float),
                                rtol=1e-5 if theirs[1] != 'float16' else 1e-2, atol=1e-5))
    if isinstance(theirs, list):
        return len(mine) == len(theirs) and all(_close(a, b) for a, b in zip(mine, theirs))
    if isinstance(theirs, dict):
        return mine.keys() == theirs.keys() and all(_close(mine[k], theirs[k]) for k in theirs)
    return mine == theirs


@pytest.mark.parametrize('name', sorted(GOLDEN))
def test_same_result_as_mxnet(name):
    assert _close(RESULTS[name], GOLDEN[name]), (RESULTS[name], GOLDEN[name])


@pytest.mark.parametrize('name,params,inputs', [
    ('_contrib_quadratic', {'a': 1.5, 'b': -2, 'c': 0.5}, [np.random.RandomState(0).uniform(-1, 1, (2, 3))]),
    ('_contrib_div_sqrt_dim', {}, [np.random.RandomState(1).uniform(-1, 1, (2, 3, 4))]),
])
def test_gradient_matches_finite_differences(name, params, inputs):
    check_op_gradient(name, inputs, params)


def test_sync_batch_norm_gradient_matches_finite_differences():
    moving = [np.zeros(2), np.ones(2)]
    check_op_gradient('_contrib_SyncBatchNorm', [np.random.RandomState(2).uniform(-1, 1, (3, 2, 2)),
                                                 np.array([1.5, 0.5]), np.array([0.1, -0.2])],
                      {'key': 'k', 'fix_gamma': False}, aux=moving)


def test_index_copy_and_boolean_mask_gradients_match_finite_differences():
    rng = np.random.RandomState(3)
    old, new = rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, (2, 3))
    check_op_gradient('_contrib_index_copy', [old, np.array([3.0, 1.0]), new], grad_inputs=[0, 2])
    check_op_gradient('_contrib_boolean_mask', [old, np.array([1.0, 0.0, 0.0, 2.0])], grad_inputs=[0])


def test_index_copy_refuses_an_index_past_the_rows():
    """MXNet 1.9.1 skips such a row without a word (the write the caller asked for is lost)."""
    with pytest.raises(MXNetError, match='index_vector holds 5, outside the 4 rows'):
        mx.nd.contrib.index_copy(mx.nd.zeros((4, 2)), mx.nd.array([5, 1]), mx.nd.ones((2, 2))).asnumpy()


def test_boolean_mask_refuses_another_axis_and_a_mask_of_the_wrong_length():
    with pytest.raises(ParamError, match='only axis=0'):
        mx.nd.contrib.boolean_mask(mx.nd.ones((2, 3)), mx.nd.array([1, 0, 1]), axis=1)
    with pytest.raises(MXNetError, match='one entry per row'):
        mx.nd.contrib.boolean_mask(mx.nd.ones((2, 3)), mx.nd.array([1, 0, 1]))


def test_sync_batch_norm_across_devices_is_refused_rather_than_computed_per_device():
    x = mx.sym.contrib.SyncBatchNorm(mx.sym.var('x'), key='bn', ndev=2)
    with pytest.raises(ParamError, match='ndev=2'):
        x.infer_shape(x=(4, 3))


def test_contrib_ndarray_and_symbol_are_the_contrib_namespaces():
    assert mx.contrib.ndarray.CTCLoss is mx.nd.contrib.CTCLoss
    assert mx.contrib.nd is mx.contrib.ndarray and mx.contrib.sym is mx.contrib.symbol
    assert mx.contrib.symbol.quadratic is mx.sym.contrib.quadratic


def test_cached_op_calls_with_wrong_arguments_name_the_inputs():
    op = mx.nd.CachedOp(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc'))
    with pytest.raises(TypeError, match="'data', 'fc_weight', 'fc_bias'"):
        op(mx.nd.ones((1, 3)))


def test_unique_zipfian_rows_hold_distinct_classes_and_count_their_draws():
    mx.random.seed(7)
    samples, tries = mx.nd._internal._sample_unique_zipfian(1000, shape=(3, 200))
    assert samples.dtype == np.int64 and tries.shape == (3,)
    for row, count in zip(samples.asnumpy(), tries.asnumpy()):
        assert len(np.unique(row)) == 200 and row.min() >= 0 and row.max() < 1000
        assert count >= 200
    # the small classes come first: the log-uniform distribution favours them
    assert np.median(samples.asnumpy()) < 250


def test_rand_zipfian_follows_the_log_uniform_distribution_in_both_front_ends():
    mx.random.seed(3)
    true = mx.nd.array([0, 4, 19], dtype='int64')
    samples, count_true, count_sampled = mx.nd.contrib.rand_zipfian(true, 20000, 20)
    want = np.log((np.arange(20) + 2.0) / (np.arange(20) + 1.0)) / np.log(21)
    seen = np.bincount(samples.asnumpy(), minlength=20) / 20000.0
    assert np.abs(seen - want).max() < 0.01
    np.testing.assert_allclose(count_true.asnumpy(), want[[0, 4, 19]] * 20000, rtol=1e-12)
    np.testing.assert_allclose(count_sampled.asnumpy(), want[samples.asnumpy()] * 20000, rtol=1e-12)
    outs = mx.sym.Group(list(mx.sym.contrib.rand_zipfian(mx.sym.var('t'), 50, 20)))
    exe = outs.bind(mx.cpu(), {'t': true})
    exe.forward()
    assert [o.shape for o in exe.outputs] == [(50,), (3,), (50,)]
    np.testing.assert_allclose(exe.outputs[1].asnumpy(), want[[0, 4, 19]] * 50, rtol=1e-12)
