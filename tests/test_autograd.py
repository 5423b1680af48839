"""mx.autograd (reflib/autograd.py over reflib/ndarray/tape.py) against MXNet 1.9.1
(golden/autograd.json, from golden/gen_autograd.py): recording, the operators' own backward
passes, head gradients, grad_req, retain_graph, pause/detach, autograd.grad, Function,
mark_variables, the writes MXNet refuses while recording, train/predict mode, and the readers'
linear regression trained with nd + autograd."""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
from autograd_cases import run  # noqa: E402

with open(os.path.join(HERE, 'golden', 'autograd.json')) as _f:
    GOLDEN = json.load(_f)
RESULTS = run(mx)


def _same(got, want):
    """Equal structure and values; numbers within float32 rounding (the cases round to 5
    decimals, and a GPU's sums may land on the other side of a rounding boundary)."""
    if isinstance(want, dict):
        return isinstance(got, dict) and sorted(got) == sorted(want) and all(_same(got[k], want[k]) for k in want)
    if isinstance(want, (list, tuple)):
        return isinstance(got, (list, tuple)) and len(got) == len(want) and all(map(_same, got, want))
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return bool(np.isclose(got, want, rtol=1e-5, atol=2e-5, equal_nan=True))
    return got == want


@pytest.mark.parametrize('case', sorted(GOLDEN))
def test_same_result_as_mxnet(case):
    assert _same(RESULTS[case], GOLDEN[case]), (RESULTS[case], GOLDEN[case])


def test_errors_name_what_to_do():
    x = mx.nd.array([1., 2.])
    with pytest.raises(MXNetError, match='retain_graph=True'):
        x.backward()
    x.attach_grad()
    with mx.autograd.record():
        with pytest.raises(MXNetError, match='Inplace operations'):
            x[:] = 3
        y = x * 2
    with pytest.raises(MXNetError, match='head gradient has shape'):
        y.backward(mx.nd.ones((5,)))        # MXNet 1.9.1 accepts it and computes garbage
    with pytest.raises(MXNetError, match='create_graph'):
        mx.autograd.grad(y, [x], create_graph=True)
    with pytest.raises(MXNetError, match="grad_req must be"):
        x.attach_grad(grad_req='sum')


def test_the_tape_keeps_nothing_after_backward():
    x = mx.nd.ones((100, 100))
    x.attach_grad()
    with mx.autograd.record():
        y = (x * 2).sum()
    node = y._entry[0]
    assert node.ins is not None
    y.backward()
    assert node.ins is None and node.outs is None       # the recorded arrays are released


def test_nothing_is_recorded_outside_record_or_for_constants():
    a, b = mx.nd.ones((2,)), mx.nd.ones((2,))
    assert getattr(a + b, '_entry', None) is None
    with mx.autograd.record():
        c = a + b                         # no input needs a gradient
    assert getattr(c, '_entry', None) is None


def test_a_sparse_embedding_gradient_arrives_dense_in_grad():
    weight = mx.nd.array(np.arange(12).reshape(4, 3))
    weight.attach_grad()
    with mx.autograd.record():
        e = mx.nd.Embedding(mx.nd.array([1, 3, 1]), weight, input_dim=4, output_dim=3, sparse_grad=True)
    e.backward()
    np.testing.assert_array_equal(weight.grad.asnumpy(), [[0, 0, 0], [2, 2, 2], [0, 0, 0], [1, 1, 1]])


def test_ctc_loss_gives_zero_gradient_to_padded_steps_even_if_they_hold_nan():
    # MXNet's test_ctc_loss_grad pads the sequences with NaN past data_lengths
    rng = np.random.RandomState(0)
    data = rng.randn(4, 2, 5).astype(np.float32)
    data[3] = np.nan
    x = mx.nd.array(data)
    x.attach_grad()
    with mx.autograd.record():
        loss = mx.nd.CTCLoss(x, mx.nd.array([[1, 2], [3, 3]]), use_data_lengths=True,
                             data_lengths=mx.nd.array([3, 3]))
    loss.backward()
    grad = x.grad.asnumpy()
    assert np.isfinite(loss.asnumpy()).all() and np.isfinite(grad).all()
    np.testing.assert_array_equal(grad[3], 0)


def test_sparse_variables_take_part_through_their_dense_values():
    # MXNet 1.9.1's test_autograd: attach_grad keeps a sparse array's storage for the gradient
    # buffer, and an operator without a sparse form sees the variable's dense values
    x = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3)).tostype('csr')
    x.attach_grad()
    assert x.grad.stype == 'csr' and x.detach().stype == 'csr'
    with mx.autograd.record():
        y = mx.nd.exp(x) * 2
    y.backward(out_grad=mx.nd.ones((2, 3)).tostype('csr'))
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * np.exp(np.arange(6).reshape(2, 3)), rtol=1e-6)
    lhs = mx.nd.array([[0, 1, 0], [2, 0, 0]]).tostype('csr')
    w = mx.nd.ones((3, 2))
    w.attach_grad(stype='row_sparse')
    with mx.autograd.record():
        out = mx.nd.dot(lhs, w)
    out.backward()
    assert w.grad.stype == 'row_sparse' and w.grad.indices.asnumpy().tolist() == [0, 1]
    np.testing.assert_array_equal(w.grad.asnumpy(), [[2, 2], [1, 1], [0, 0]])


def test_rows_picked_by_a_list_or_int_array_are_recorded():
    x = mx.nd.array(np.arange(6).reshape(3, 2))
    x.attach_grad()
    with mx.autograd.record():
        y = x[[2, 0, 2]] * 1 + x[np.array([[1], [1]])].sum()
    y.backward()
    # row 1 is summed twice, and the sum reaches all 6 elements of y: 12 each
    np.testing.assert_array_equal(x.grad.asnumpy(), [[1, 1], [12, 12], [2, 2]])


def test_an_inlined_hybridized_call_binds_and_computes_the_block_and_a_cached_op_node_is_refused():
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(3, in_units=4, activation='relu'), mx.gluon.nn.Dense(2, in_units=3))
    net.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.arange(8).reshape(2, 4) / 8)
    net.hybridize(inline_limit=4)
    with mx.autograd.record():
        y = net(x)
    graph = mx.autograd.get_symbol(y)
    ops = [n['op'] for n in json.loads(graph.tojson())['nodes'] if n['op'] != 'null']
    assert ops == ['FullyConnected', 'Activation', 'FullyConnected']
    # the inputs in the order the operators read them: data, then each layer's weight and bias
    names = graph.list_arguments()
    params = [p.data() for p in net.collect_params().values()]
    out = graph.bind(mx.cpu(), dict(zip(names, [x] + params))).forward()[0]
    assert np.allclose(out.asnumpy(), y.asnumpy(), rtol=1e-6)
    net.hybridize(inline_limit=2)          # (MXNet's default: three operators are more)
    with mx.autograd.record():
        y = net(x)
    opaque = mx.autograd.get_symbol(y)
    assert [n.op.name for n, _ in opaque._outputs] == ['_CachedOp']
    with pytest.raises(MXNetError, match='inline_limit'):
        opaque.infer_shape(**{opaque.list_arguments()[0]: (2, 4)})
