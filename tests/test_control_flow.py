"""Control flow: mx.nd.contrib and mx.sym.contrib foreach, while_loop and cond.

Against MXNet 1.9.1 (golden/control_flow.json, from golden/gen_control_flow.py): a tanh RNN
scanned by foreach, a while_loop that stops on its data, and both branches of a cond, each
imperatively under autograd and as a graph bound to an executor.  Then what the graph
form is -- one node holding its body, saved in the JSON -- and the errors a wrong body gets.
"""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
from control_flow_cases import run  # noqa: E402

with open(os.path.join(HERE, 'golden', 'control_flow.json')) as _f:
    GOLDEN = json.load(_f)
RESULTS = run(mx)


def _close(mine, theirs):
    """Recorded arrays equal in shape and dtype, values to float32's precision."""
    if isinstance(theirs, list) and len(theirs) == 3 and isinstance(theirs[1], str) and isinstance(theirs[0], list):
        return mine[:2] == theirs[:2] and np.allclose(np.array(mine[2], dtype=float),
                                                      np.array(theirs[2], dtype=float), rtol=1e-4, atol=1e-4)
    if isinstance(theirs, list):
        return len(mine) == len(theirs) and all(_close(a, b) for a, b in zip(mine, theirs))
    if isinstance(theirs, dict):
        return mine.keys() == theirs.keys() and all(_close(mine[k], theirs[k]) for k in theirs)
    return mine == theirs


@pytest.mark.parametrize('name', sorted(GOLDEN))
def test_same_result_as_mxnet(name):
    assert _close(RESULTS[name], GOLDEN[name]), (RESULTS[name], GOLDEN[name])


def test_graph_and_imperative_forms_agree():
    for name in RESULTS:
        if name.endswith(', executor'):
            assert _close(RESULTS[name], RESULTS[name.replace('executor', 'autograd')]), name


def _scan():
    data, state, free = mx.sym.var('data'), mx.sym.var('state'), mx.sym.var('free')
    return mx.sym.contrib.foreach(lambda x, s: (x * free + s[0], [x + s[0]]), data, [state])


def test_foreach_is_one_node_holding_its_body():
    outs, states = _scan()
    graph = json.loads(mx.sym.Group([outs, states[0]]).tojson())
    ops = [n['op'] for n in graph['nodes'] if n['op'] != 'null']
    assert ops == ['_foreach']                     # not unrolled: the body runs at execution time
    body = json.loads([n for n in graph['nodes'] if n['op'] == '_foreach'][0]['attrs']['subgraph'])
    body_ops = sorted(n['op'] for n in body['nodes'] if n['op'] != 'null')
    assert body_ops == ['elemwise_add', 'elemwise_add', 'elemwise_mul']


def test_foreach_infers_shapes_through_the_body_and_keeps_unknown_length():
    outs, states = _scan()
    _, out_shapes, _ = mx.sym.Group([outs, states[0]]).infer_shape(data=(7, 2, 3), state=(2, 3))
    assert out_shapes == [(7, 2, 3), (2, 3)]
    _, out_shapes, _ = outs.infer_shape_partial(data=(0, 2, 3), state=(2, 3))
    assert out_shapes == [(0, 2, 3)]


def test_foreach_runs_under_a_hybridized_block():
    class Scan(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, seq, h):
            outs, states = F.contrib.foreach(lambda x, s: (x + s[0], [x + s[0]]), seq, [h])
            return outs
    seq, h = mx.nd.array(np.arange(6).reshape(3, 2)), mx.nd.array([1, -1])
    plain = Scan()(seq, h)
    block = Scan()
    block.hybridize()
    seq.attach_grad()
    with mx.autograd.record():
        hybrid = block(seq, h)
    hybrid.backward()
    np.testing.assert_allclose(hybrid.asnumpy(), plain.asnumpy())
    np.testing.assert_allclose(hybrid.asnumpy(), np.cumsum(np.arange(6).reshape(3, 2), 0) + [1, -1])
    np.testing.assert_allclose(seq.grad.asnumpy(), [[3, 3], [2, 2], [1, 1]])


def test_while_loop_pads_to_max_iterations_with_zeros():
    outs, final = mx.nd.contrib.while_loop(lambda i: i < 3, lambda i: (i * 10, [i + 1]),
                                           [mx.nd.array([0])], max_iterations=5)
    assert outs.asnumpy().ravel().tolist() == [0, 10, 20, 0, 0]
    assert final[0].asscalar() == 3


# ------------------------------------------------------------------ errors
def _two_states(x, states):
    return x, [states[0], states[0]]


def test_foreach_names_the_body_and_counts_a_wrong_number_of_states():
    with pytest.raises(ValueError, match=r'_two_states returned 2 states, but init_states has 1'):
        mx.nd.contrib.foreach(_two_states, mx.nd.ones((3, 2)), [mx.nd.ones(2)])
    with pytest.raises(AssertionError, match=r'_two_states returned 2 states, but init_states has 1'):
        mx.sym.contrib.foreach(_two_states, mx.sym.var('x'), [mx.sym.var('s')])


def _drops_a_var(i, s):
    return i, [i + 1]


def test_while_loop_names_the_body_and_counts_a_wrong_number_of_loop_vars():
    for F, make in ((mx.nd, lambda n: mx.nd.array([0])), (mx.sym, mx.sym.var)):
        with pytest.raises(ValueError, match=r'_drops_a_var returned 1 loop_vars, but loop_vars has 2'):
            F.contrib.while_loop(lambda i, s: i < 3, _drops_a_var, [make('i'), make('s')], max_iterations=4)


def test_while_loop_wants_max_iterations_and_cond_branches_the_same_count():
    with pytest.raises(ValueError, match='max_iterations'):
        mx.nd.contrib.while_loop(lambda i: i < 3, lambda i: (i, [i]), [mx.nd.array([0])])
    x = mx.sym.var('x')
    with pytest.raises(ValueError, match='returns 2 outputs .* returns 1'):
        mx.sym.contrib.cond(x.sum() > 0, lambda: [x, x], lambda: x)


def test_foreach_graph_refuses_an_unused_state():
    # MXNet's rule (and its class: AssertionError): the node feeds every state to the body
    with pytest.raises(AssertionError, match='does not use its state'):
        mx.sym.contrib.foreach(lambda x, s: (x, [x]), mx.sym.var('x'), [mx.sym.var('s')])


def test_foreach_body_infers_the_shapes_of_deferred_gluon_parameters():
    # the cell's i2h_weight is (4, 0) until the body's shapes say its input has 5 features
    class Layer(mx.gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.cell = mx.gluon.rnn.RNNCell(4, prefix='rnn_')

        def hybrid_forward(self, F, seq, states):
            return F.contrib.foreach(self.cell, seq, states)[0]
    layer = Layer()
    layer.initialize()
    layer.hybridize()
    assert layer(mx.nd.ones((3, 2, 5)), [mx.nd.ones((2, 4))]).shape == (3, 2, 4)
    assert layer.cell.i2h_weight.shape == (4, 5)
