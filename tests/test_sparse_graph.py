"""Sparse storage in bound graphs against MXNet 1.9.1 (golden/sparse_graph.json, from
golden/gen_sparse_graph.py): CSR arguments, row_sparse gradients from Embedding(sparse_grad=True)
and dot(csr, w), storage fallback, and what the executor plans (no dense gradient array)."""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.base import BindError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
from sparse_graph_cases import run  # noqa: E402

with open(os.path.join(HERE, 'golden', 'sparse_graph.json')) as _f:
    GOLDEN = json.load(_f)
RESULTS = run(mx)

@pytest.mark.parametrize('case', sorted(GOLDEN))
def test_same_result_as_mxnet(case):
    assert RESULTS[case] == GOLDEN[case]


def _embedding_net(rows, dim):
    data = mx.sym.var('data')
    return mx.sym.MakeLoss(mx.sym.sum(mx.sym.Embedding(data, mx.sym.var('w'), input_dim=rows, output_dim=dim,
                                                       sparse_grad=True, name='emb')))


def test_a_sparse_gradient_gets_no_dense_memory():
    """A 100,000 x 64 table (25.6 MB) and its gradient: simple_bind plans no dense gradient,
    and backward stores the 3 rows the batch looked up."""
    exe = _embedding_net(100000, 64).simple_bind(mx.cpu(), data=(4,), grad_req={'data': 'null', 'w': 'write'})
    exe.arg_dict['data'][:] = np.array([7, 99999, 7, 12])
    exe.forward(is_train=True)
    exe.backward()
    grad = exe.grad_dict['w']
    assert grad.stype == 'row_sparse'
    assert grad.indices.asnumpy().tolist() == [7, 12, 99999]
    np.testing.assert_array_equal(grad.data.asnumpy(), [[2] * 64, [1] * 64, [1] * 64])
    table_bytes = 100000 * 64 * 4
    assert exe.memory_plan.total_bytes < 4096          # the plan holds nothing table-sized
    assert grad._data.nbytes == 3 * 64 * 4 < table_bytes // 1000


def test_the_same_graph_with_a_dense_gradient_gives_the_same_values():
    net = mx.sym.MakeLoss(mx.sym.sum(mx.sym.Embedding(mx.sym.var('data'), mx.sym.var('w'), input_dim=6,
                                                      output_dim=2) * mx.sym.var('k')))
    sparse_net = mx.sym.MakeLoss(mx.sym.sum(mx.sym.Embedding(mx.sym.var('data'), mx.sym.var('w'), input_dim=6,
                                                             output_dim=2, sparse_grad=True) * mx.sym.var('k')))
    grads = []
    for graph in (net, sparse_net):
        exe = graph.simple_bind(mx.cpu(), data=(3,), k=(3, 2), grad_req={'data': 'null', 'w': 'write', 'k': 'null'})
        exe.arg_dict['data'][:] = np.array([5, 0, 5])
        exe.arg_dict['k'][:] = np.array([[1, 2], [3, 4], [5, 6]])
        exe.forward(is_train=True)
        exe.backward()
        grads.append(exe.grad_dict['w'].asnumpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_the_weight_through_an_operator_gets_a_dense_gradient_of_the_same_values():
    """MXNet keeps this gradient row_sparse (its scalar multiply passes sparse gradients on);
    reflib's turns dense at ``w * 2``: the values are MXNet's."""
    data, w = mx.sym.var('data'), mx.sym.var('w')
    net = mx.sym.MakeLoss(mx.sym.sum(mx.sym.Embedding(data, w * 2, input_dim=6, output_dim=3, sparse_grad=True)))
    exe = net.simple_bind(mx.cpu(), data=(2, 2), grad_req={'data': 'null', 'w': 'write'})
    exe.arg_dict['data'][:] = np.array([[1, 4], [1, 0]])
    exe.forward(is_train=True)
    exe.backward()
    # MXNet 1.9.1: row_sparse, dense value [[2]*3, [4]*3, 0, 0, [2]*3, 0]
    np.testing.assert_array_equal(exe.grad_dict['w'].asnumpy(),
                                  [[2] * 3, [4] * 3, [0] * 3, [0] * 3, [2] * 3, [0] * 3])


def test_bad_sparse_bindings_name_the_argument():
    net = _embedding_net(4, 2)
    with pytest.raises(BindError, match="'w'.*Embedding 'emb'.*dense"):
        net.bind(mx.cpu(), args={'data': mx.nd.array([1, 2]), 'w': mx.nd.ones((4, 2))},
                 args_grad={'w': mx.nd.zeros((4, 2))}, grad_req={'data': 'null', 'w': 'write'})
    with pytest.raises(BindError, match="row_sparse gradient of 'w'.*'add'"):
        net.bind(mx.cpu(), args={'data': mx.nd.array([1, 2]), 'w': mx.nd.ones((4, 2))},
                 args_grad={'w': mx.nd.sparse.zeros('row_sparse', (4, 2))}, grad_req={'data': 'null', 'w': 'add'})
    with pytest.raises(mx.base.ParamError, match="'x'.*stype"):
        mx.sym.var('x', stype='coo')


def test_stype_dict_makes_an_argument_sparse():
    net = mx.sym.dot(mx.sym.var('x'), mx.sym.var('w'))
    exe = net.simple_bind(mx.cpu(), x=(3, 4), w=(4, 2), stype_dict={'x': 'csr'}, grad_req={'x': 'null', 'w': 'write'})
    assert exe.arg_dict['x'].stype == 'csr' and exe.grad_dict['w'].stype == 'row_sparse'
