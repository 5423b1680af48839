"""Sparse arrays meeting Gluon: a hybridized block called on CSR data binds its graph with
a CSR input (one signature per storage type) and gives the imperative run's outputs and
gradients, whatever the number of stored values; a SymbolBlock refuses a sparse parameter
up front, as MXNet 1.9.1's does (an AssertionError naming it)."""

import numpy as np
import pytest

import reflib as mx


class _Linear(mx.gluon.HybridBlock):
    def __init__(self, units):
        super().__init__()
        with self.name_scope():
            self.w = self.params.get('w', shape=(units, units))

    def hybrid_forward(self, F, x, w):
        return F.dot(x, w) * 2


def _pair():
    blocks = [_Linear(3), _Linear(3)]
    rng = np.random.RandomState(0)
    w = mx.nd.array(rng.uniform(-1, 1, (3, 3)))
    for block in blocks:
        block.initialize()
        block.w.set_data(w)
    blocks[1].hybridize()
    return blocks


@pytest.mark.parametrize('rows', [[[0, 2, 0], [0, 0, 0]], [[1, 0, 3], [0, -1, 0]], [[0, 0, 0], [0, 0, 0]]])
def test_a_hybridized_block_on_csr_data_matches_the_imperative_run(rows):
    imperative, hybridized = _pair()
    x = mx.nd.array(np.array(rows, dtype=np.float32)).tostype('csr')
    got = []
    for block in (imperative, hybridized):
        with mx.autograd.record():
            out = block(x) + block(x)       # twice: two executors of the same signature
        out.backward()
        got.append((out.asnumpy(), block.w.grad().asnumpy()))
    # (to float32 rounding: the bound graph may multiply the densified matrix)
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-6)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-6)
    # d(sum of 2 * 2 * x.w)/dw = 4 * x^T . ones
    np.testing.assert_allclose(got[1][1], 4 * np.array(rows).T.dot(np.ones((2, 3))), rtol=1e-6)


def test_dense_and_csr_calls_of_one_block_are_bound_apart():
    _, block = _pair()
    dense = mx.nd.array([[1, 0, 3], [0, -1, 0]])
    first = block(dense).asnumpy()
    np.testing.assert_allclose(block(dense.tostype('csr')).asnumpy(), first, rtol=1e-6)
    stypes = sorted(sig for sig in {k[5] for k in block._cached_op._pools})
    assert stypes == [('csr',), ('default',)]


def test_a_symbol_block_refuses_a_sparse_parameter():
    data = mx.sym.var('data')
    weight = mx.sym.var('weight', stype='row_sparse')
    out = mx.sym.broadcast_add(mx.sym.dot(data, weight), mx.sym.var('bias'))
    with pytest.raises(AssertionError, match="'weight' is declared row_sparse"):
        mx.gluon.SymbolBlock(out, data)
