"""Training with sparse storage through Module against MXNet 1.9.1 (golden/sparse_training.npz,
from golden/gen_sparse_training.py): row_sparse gradients from an embedding and from dot(csr, w),
under SGD (lazy and not), Adam and AdaGrad, on one and two devices, with the optimizer on the
devices or in the store, and a row_sparse weight fetched by Module.prepare."""

import os
import sys
import warnings

import numpy as np
import pytest

import reflib as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
from sparse_training_cases import cases  # noqa: E402

with np.load(os.path.join(HERE, 'golden', 'sparse_training.npz')) as _npz:
    GOLDEN = {k: _npz[k] for k in _npz.files}
CASES = cases()


@pytest.mark.parametrize('case', sorted(CASES))
def test_trained_weights_equal_mxnets(case):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')     # the store's "row_sparse outputs left unchanged", as MXNet's
        got = CASES[case](mx)
    want = {k.split(' | ')[1]: v for k, v in GOLDEN.items() if k.split(' | ')[0] == case}
    assert sorted(got) == sorted(want)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6, err_msg='%s: %s' % (case, name))


def test_a_row_sparse_weight_must_store_every_row():
    """MXNet 1.9.1: "... only implemented for RowSparse weights with all rows containing non-zeros"."""
    weight = mx.nd.sparse.row_sparse_array((np.ones((2, 2), np.float32), np.array([0, 2])), shape=(3, 2))
    grad = mx.nd.sparse.row_sparse_array((np.ones((1, 2), np.float32), np.array([1])), shape=(3, 2))
    updater = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    with pytest.raises(mx.optimizer.OptimizerError, match='SGD.update.*every row.*2 of 3'):
        updater(0, grad, weight)
    full = mx.nd.array(np.ones((3, 2))).tostype('row_sparse')
    updater(0, grad, full)          # MXNet: rows 0 and 2 unchanged, row 1 = 1 - 0.1
    assert full.stype == 'row_sparse' and full.indices.asnumpy().tolist() == [0, 1, 2]
    np.testing.assert_array_equal(full.data.asnumpy(), np.array([[1, 1], [0.9, 0.9], [1, 1]], np.float32))
