"""MXNet's smaller test_utils helpers (reflib/test_helpers.py): the values MXNet 1.9.1 gives
(checked with the oracle venv when written), and the star import MXNet's tests rely on."""

import numpy as np
import pytest

import reflib as mx
from reflib import test_utils as tu


def test_star_import_gives_what_mxnets_tests_use():
    names = {}
    exec('from reflib.test_utils import *', names)
    for name in ('np', 'mx', 'os', 'sys', 'rnd', 'npt', 'time', 'assert_almost_equal', 'DummyIter',
                 'check_numeric_gradient', 'gen_buckets_probs_with_ppf', 'array'):
        assert name in names, name
    assert names['mx'] is mx and '_random' not in names


def test_buckets_of_equal_probability():
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda q: 2 * q, 4)
    assert buckets == [(0.0, 0.5), (0.5, 1.0), (1.0, 1.5), (1.5, 2.0)] and probs == [0.25] * 4


def test_same_array_is_same_memory_and_shape():
    a = mx.nd.ones((2, 3))
    assert tu.same_array(a, a) and tu.same_array(a, mx.nd.NDArray(a._data, a.context))
    assert not tu.same_array(a, a.copy())
    assert not tu.same_array(a, a[0:1]) and not tu.same_array(a, a.reshape((3, 2)))


def test_small_array_makers_and_collapse_sum_like():
    assert tu.create_vector(4).asnumpy().tolist() == [0, 1, 2, 3]
    assert tu.create_vector(3, np.float32).dtype == np.float32
    assert tu.create_2d_tensor(2, 3).asnumpy().tolist() == [[0, 0, 0], [1, 1, 1]]
    assert tu.collapse_sum_like(np.ones((2, 3, 4)), (3, 1)).tolist() == [[8.0]] * 3
    with pytest.raises(ValueError, match='does not broadcast'):
        tu.collapse_sum_like(np.ones((2, 3)), (2,))
    assert [a.dtype for a in tu.random_uniform_arrays((2,), (3,))] == [np.float32] * 2
    assert tu.effective_dtype(mx.nd.ones(2, dtype='float16')) == np.float16
    assert list(tu.list_gpus()) == list(range(mx.num_gpus()))
    assert tu.get_etol() == 0 and tu.get_etol(0.1) == 0.1
    assert tu.get_im2rec_path().endswith('im2rec.py')


def test_comparisons_that_tolerate_none_and_nan():
    tu.compare_ndarray_tuple((mx.nd.ones(2), None), (mx.nd.ones(2), None))
    with pytest.raises(AssertionError):
        tu.compare_ndarray_tuple((mx.nd.ones(2),), (mx.nd.zeros(2),))
    tu.assert_almost_equal_ignore_nan(np.array([1, np.nan]), np.array([1, 5.0]))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_ignore_nan(np.array([2, np.nan]), np.array([1, 5.0]))


def test_dummy_iter_repeats_the_first_batch():
    it = tu.DummyIter(mx.io.NDArrayIter(np.arange(8.0).reshape(4, 2), np.ones(4), 2))
    batches = [b for b, _ in zip(it, range(5))]
    assert it.batch_size == 2 and all(b is batches[0] for b in batches)
    assert batches[0].data[0].asnumpy().tolist() == [[0, 1], [2, 3]]
    assert it.provide_data[0].shape == (2, 2)


def test_same_symbol_structure_compares_every_node():
    s1 = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=3)
    s2 = mx.sym.FullyConnected(mx.sym.var('y'), num_hidden=4)
    assert tu.same_symbol_structure(s1, s2)
    # MXNet 1.9.1 says True here (it stops at the shorter graph): reflib compares all nodes
    assert not tu.same_symbol_structure(s1, mx.sym.relu(s1))


def test_rand_sparse_ndarray_makes_what_it_is_asked_for():
    np.random.seed(3)
    rsp, (values, rows) = mx.test_utils.rand_sparse_ndarray((6, 2), 'row_sparse', density=0.5, data_init=7)
    assert rsp.stype == 'row_sparse' and rsp.indices.asnumpy().tolist() == list(rows)
    assert (values == 7).all() and (rsp.asnumpy()[rows] == 7).all()
    csr, (indptr, indices, data) = mx.test_utils.rand_sparse_ndarray((4, 10), 'csr', density=0.3)
    assert csr.stype == 'csr' and csr.data.shape == data.shape == (12,)
    power, _ = mx.test_utils.rand_sparse_ndarray((4, 16), 'csr', density=0.5, distribution='powerlaw')
    assert np.diff(power.indptr.asnumpy()).tolist() == [2, 4, 8, 16]      # 1, 2, 4... more a row
    assert mx.test_utils.rand_ndarray((3, 3), 'csr', density=1.0).asnumpy().all()
    assert mx.test_utils.assign_each(np.array([1, 2]), lambda v: v * 10).tolist() == [10.0, 20.0]
