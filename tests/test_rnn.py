"""mx.rnn cells against MXNet 1.9.1 (tests/golden/gen_rnn.py): the same unrolled graph, node
for node, the same outputs and gradients on the same parameters; and the pieces an unrolled
graph needs (zeros as a symbol, the batch inferred backwards through FullyConnected)."""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx

GOLDEN = os.path.join(os.path.dirname(__file__), 'golden')
sys.path.insert(0, GOLDEN)
from rnn_cases import CASES, DATA_SHAPE, INFERENCE_ONLY, build  # noqa: E402

with open(os.path.join(GOLDEN, 'rnn.json')) as _f:
    DOC = json.load(_f)
ARRAYS = np.load(os.path.join(GOLDEN, 'rnn.npz'))


def _build(name):
    with mx.name.NameManager():
        return build(mx, name)


@pytest.mark.parametrize('name', CASES)
def test_the_unrolled_graph_is_mxnets_node_for_node(name):
    cell, net = _build(name)
    got = [[n['op'], n['name'], n.get('attrs', {})] for n in json.loads(net.tojson())['nodes']]
    assert got == DOC[name]['nodes']
    assert net.list_arguments() == DOC[name]['arguments']
    assert [list(s) for s in net.infer_shape(data=DATA_SHAPE)[0]] == DOC[name]['arg_shapes']


@pytest.mark.parametrize('name', CASES)
def test_forward_and_backward_match_mxnet(name):
    _, net = _build(name)
    args = {n: mx.nd.array(ARRAYS['%s/arg/%s' % (name, n)]) for n in net.list_arguments()}
    grads = {n: mx.nd.zeros(a.shape) for n, a in args.items()}
    exe = net.bind(mx.cpu(), args=args, args_grad=grads)
    train = name not in INFERENCE_ONLY
    exe.forward(is_train=train)
    heads = [mx.nd.array(ARRAYS['%s/head/%d' % (name, k)]) for k in range(len(exe.outputs))]
    for k, out in enumerate(exe.outputs):
        np.testing.assert_allclose(out.asnumpy(), ARRAYS['%s/out/%d' % (name, k)], rtol=1e-5, atol=1e-6)
    if not train:
        return
    exe.backward(heads)
    for n, g in grads.items():
        np.testing.assert_allclose(g.asnumpy(), ARRAYS['%s/grad/%s' % (name, n)], rtol=1e-4, atol=1e-6,
                                   err_msg=n)


@pytest.mark.parametrize('name', CASES)
def test_unpack_and_pack_weights_use_mxnets_names_and_layout(name):
    cell, net = _build(name)
    params = {n: mx.nd.array(ARRAYS['%s/arg/%s' % (name, n)]) for n in net.list_arguments() if n != 'data'}
    unpacked = cell.unpack_weights(params)
    assert sorted(unpacked) == DOC[name]['unpacked']
    packed = cell.pack_weights(unpacked)
    assert sorted(packed) == sorted(params)
    for n, a in params.items():
        np.testing.assert_array_equal(packed[n].asnumpy(), a.asnumpy())


def test_lstm_gates_come_out_in_mxnets_order():
    cell = mx.rnn.LSTMCell(2, prefix='l_')
    weight = mx.nd.array(np.arange(8 * 3).reshape(8, 3))
    parts = cell.unpack_weights({'l_i2h_weight': weight, 'l_i2h_bias': mx.nd.arange(8),
                                 'l_h2h_weight': mx.nd.zeros((8, 2)), 'l_h2h_bias': mx.nd.zeros(8)})
    for k, gate in enumerate(['_i', '_f', '_c', '_o']):     # input, forget, candidate, output
        np.testing.assert_array_equal(parts['l_i2h%s_bias' % gate].asnumpy(), [2 * k, 2 * k + 1])


def test_the_forget_bias_is_an_initializer_on_i2h_bias():
    cell = mx.rnn.LSTMCell(3, prefix='l_', forget_bias=2.0)
    out, _ = cell.unroll(1, mx.sym.Variable('data'))
    assert out[0].attr_dict()['l_i2h_bias']['__init__'] == '["lstmbias", {"forget_bias": 2.0}]'
    mod = mx.mod.Module(mx.sym.MakeLoss(mx.sym.sum(out[0])), data_names=['data'], label_names=None)
    mod.bind([('data', (2, 1, 4))])
    mod.init_params(mx.init.Xavier())
    bias = mod.get_params()[0]['l_i2h_bias'].asnumpy()
    np.testing.assert_array_equal(bias, [0, 0, 0, 2, 2, 2, 0, 0, 0, 0, 0, 0])


def test_a_symbol_of_zeros_takes_its_batch_from_the_layer_that_reads_it():
    state = mx.sym.zeros(shape=(0, 4), name='begin')
    net = mx.sym.FullyConnected(mx.sym.Variable('x'), num_hidden=4, name='i2h') + \
        mx.sym.FullyConnected(state, num_hidden=4, name='h2h')
    arg_shapes, out_shapes, _ = net.infer_shape(x=(3, 5))
    assert out_shapes == [(3, 4)] and arg_shapes[3] == (4, 4)      # h2h_weight: (num_hidden, 4)
    exe = net.simple_bind(mx.cpu(), x=(3, 5))
    exe.arg_dict['h2h_bias'][:] = 1.5
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), np.full((3, 4), 1.5, np.float32))


def test_ones_and_full_symbols():
    ones = mx.sym.ones(shape=(2, 3))
    full = mx.sym.full(shape=(2, 3), val=2.5, dtype='float64')
    out = mx.sym.Group([ones, full]).bind(mx.cpu(), {}).forward()
    np.testing.assert_array_equal(out[0].asnumpy(), np.ones((2, 3)))
    assert out[1].dtype == np.float64 and out[1].asnumpy()[0, 0] == 2.5


def test_a_dropout_cell_adds_one_dropout_per_merged_sequence_or_per_step():
    merged, _ = mx.rnn.DropoutCell(0.3).unroll(3, mx.sym.Variable('data'), merge_outputs=True)
    ops = [(n['op'], n.get('attrs', {}).get('p')) for n in json.loads(merged.tojson())['nodes']]
    assert ops.count(('Dropout', '0.3')) == 1
    steps, _ = mx.rnn.DropoutCell(0.3).unroll(3, mx.sym.Variable('data'), merge_outputs=False)
    assert len(steps) == 3 and all(s.get_internals().list_outputs()[-1].startswith('dropout') for s in steps)


def test_a_modified_cell_refuses_to_be_called_alone():
    base = mx.rnn.GRUCell(4, prefix='g_')
    residual = mx.rnn.ResidualCell(base)
    with pytest.raises(ValueError, match='modifier'):
        base.begin_state()
    assert len(residual.begin_state()) == 1


def test_zoneout_keeps_previous_values_in_training():
    # zoneout_outputs=1: in training every unit keeps its previous output, zeros before the first step
    cell = mx.rnn.ZoneoutCell(mx.rnn.RNNCell(3, prefix='z_'), zoneout_outputs=1.0)
    outputs, _ = cell.unroll(2, mx.sym.Variable('data'), merge_outputs=True)
    exe = outputs.simple_bind(mx.cpu(), data=(2, 2, 4))
    for arr in exe.arg_dict.values():
        arr[:] = 0.5
    np.testing.assert_array_equal(exe.forward(is_train=True)[0].asnumpy(), np.zeros((2, 2, 3)))
    assert exe.forward(is_train=False)[0].asnumpy().min() > 0.5        # inference: the RNN's own outputs
