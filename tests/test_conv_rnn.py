"""mx.rnn.ConvRNNCell, ConvLSTMCell and ConvGRUCell against MXNet 1.9.1 (tests/golden/gen_conv_rnn.py):
the same unrolled graph node for node, the same arguments, outputs, shapes and states, the
same numbers forward and backward on the same weights, and the same errors on bad input."""

import builtins
import functools
import json
import os
import sys
import warnings

import numpy as np
import pytest

import reflib as mx

GOLDEN = os.path.join(os.path.dirname(__file__), 'golden')
sys.path.insert(0, GOLDEN)
from conv_rnn_cases import CASES, ERRORS, GRAPH_ONLY, STEP_SHAPE, build  # noqa: E402

with open(os.path.join(GOLDEN, 'conv_rnn.json')) as _f:
    DOC = json.load(_f)
ARRAYS = np.load(os.path.join(GOLDEN, 'conv_rnn.npz'))
NUMERIC = [name for name in CASES if name not in GRAPH_ONLY]


def _build(name):
    with mx.name.NameManager():
        return build(mx, name)


def _cells(cell):
    inner = getattr(cell, '_cells', None)
    return [c for sub in inner for c in _cells(sub)] if inner else [cell]


@pytest.mark.parametrize('name', CASES)
def test_the_unrolled_graph_is_mxnets_node_for_node(name):
    cell, net, _ = _build(name)
    want = DOC['cases'][name]
    got = [[n['op'], n['name'], n.get('attrs', {}), [i[:2] for i in n['inputs']]]
           for n in json.loads(net.tojson())['nodes']]
    assert got == want['nodes']
    assert net.list_arguments() == want['arguments']
    assert net.list_outputs() == want['outputs']
    assert sorted(cell.params._params) == want['params']
    assert [[list(i['shape']), i['__layout__']] for c in _cells(cell) for i in c.state_info] == want['state_info']


@pytest.mark.parametrize('name', NUMERIC)
def test_inferred_shapes_are_mxnets(name):
    _, net, shapes = _build(name)
    arg_shapes, out_shapes, aux_shapes = net.infer_shape(**shapes)
    assert [list(s) for s in arg_shapes] == DOC['cases'][name]['arg_shapes']
    assert [list(s) for s in out_shapes] == DOC['cases'][name]['out_shapes']
    assert aux_shapes == []


@pytest.mark.parametrize('name', NUMERIC)
def test_forward_and_backward_match_mxnet(name):
    _, net, _ = _build(name)
    args = {n: mx.nd.array(ARRAYS['%s/arg/%s' % (name, n)]) for n in net.list_arguments()}
    grads = {n: mx.nd.zeros(a.shape) for n, a in args.items()}
    exe = net.bind(mx.cpu(), args=args, args_grad=grads)
    exe.forward(is_train=True)
    for k, out in enumerate(exe.outputs):
        np.testing.assert_allclose(out.asnumpy(), ARRAYS['%s/out/%d' % (name, k)], rtol=1e-5, atol=1e-5,
                                   err_msg='output %d' % k)
    exe.backward([mx.nd.array(ARRAYS['%s/head/%d' % (name, k)]) for k in range(len(exe.outputs))])
    for n, g in grads.items():
        np.testing.assert_allclose(g.asnumpy(), ARRAYS['%s/grad/%s' % (name, n)], rtol=1e-4, atol=1e-5,
                                   err_msg=n)


@pytest.mark.parametrize('name', NUMERIC)
def test_unpack_and_pack_weights_split_the_gates_along_the_filters(name):
    cell, net, _ = _build(name)
    params = {n: mx.nd.array(ARRAYS['%s/arg/%s' % (name, n)]) for n in cell.params._params}
    unpacked = cell.unpack_weights(params)
    assert sorted(unpacked) == DOC['cases'][name]['unpacked']
    packed = cell.pack_weights(unpacked)
    assert sorted(packed) == sorted(params)
    for n, a in params.items():
        np.testing.assert_array_equal(packed[n].asnumpy(), a.asnumpy())


def test_building_a_cell_uses_up_one_convolution_name_as_in_mxnet():
    with mx.name.NameManager():
        mx.rnn.ConvLSTMCell(STEP_SHAPE, 2)
        name = mx.sym.Convolution(mx.sym.Variable('x'), kernel=(1, 1), num_filter=1).name
    assert name == DOC['next_convolution_name'] == 'convolution1'


def test_mxnets_defaults():
    for cls, prefix in [(mx.rnn.ConvRNNCell, 'ConvRNN_'), (mx.rnn.ConvLSTMCell, 'ConvLSTM_'),
                        (mx.rnn.ConvGRUCell, 'ConvGRU_')]:
        cell = cls((1, 3, 16, 10), 10)
        assert isinstance(cell, mx.rnn.BaseConvRNNCell) and isinstance(cell, mx.rnn.BaseRNNCell)
        assert cell._prefix == prefix
        assert (cell._h2h_kernel, cell._h2h_dilate, cell._h2h_pad) == ((3, 3), (1, 1), (1, 1))
        assert (cell._i2h_kernel, cell._i2h_stride, cell._i2h_pad, cell._i2h_dilate) == ((3, 3),) + ((1, 1),) * 3
        assert cell._conv_layout == 'NCHW'
        act = cell._activation
        assert isinstance(act, functools.partial) and act.keywords == {'act_type': 'leaky', 'slope': 0.2}
        assert cell.state_shape[0] == (0, 10, 16, 10)
        attrs = mx.sym.Group(cell.begin_state()).attr_dict()
        assert attrs['%sbegin_state_0' % prefix] == {'__layout__': 'NCHW', 'dtype': 'float32',
                                                     'shape': '(0, 10, 16, 10)'}
        params = cell.params._params
        assert list(params) == [prefix + n for n in ('i2h_weight', 'h2h_weight', 'i2h_bias', 'h2h_bias')]
        assert params[prefix + 'i2h_weight'].attr('__init__') is None
        assert params[prefix + 'i2h_bias'].attr('__init__') == 'zeros'


def test_the_base_cell_has_mxnets_two_states_and_no_gates():
    cell = mx.rnn.BaseConvRNNCell(STEP_SHAPE, 2, (3, 3), (1, 1), (3, 3), (1, 1), (1, 1), (1, 1), None, None,
                                  'zeros', 'zeros', 'tanh')
    assert cell._prefix == '' and cell._num_gates == 0
    assert cell.state_info == [{'shape': (0, 2, 5, 4), '__layout__': 'NCHW'}] * 2
    assert sorted(cell.params._params) == ['h2h_bias', 'h2h_weight', 'i2h_bias', 'i2h_weight']


def test_the_h2h_padding_keeps_the_state_size():
    cell = mx.rnn.ConvGRUCell(STEP_SHAPE, 2, h2h_kernel=(5, 3), h2h_dilate=(2, 3))
    assert cell._h2h_pad == (4, 3)
    out, _ = cell.unroll(2, [mx.sym.Variable('a'), mx.sym.Variable('b')])
    assert out[1].infer_shape(a=STEP_SHAPE, b=STEP_SHAPE)[1] == [(2, 2, 5, 4)]


def test_begin_states_as_variables_carry_shape_and_layout():
    cell = mx.rnn.ConvLSTMCell((2, 3, 8, 6), 4, i2h_stride=(2, 2), prefix='v_')
    states = cell.begin_state(func=mx.sym.Variable)
    assert [s.name for s in states] == ['v_begin_state_0', 'v_begin_state_1']
    assert states[0].attr_dict()['v_begin_state_0'] == {'__layout__': 'NCHW', '__shape__': '(0, 4, 4, 3)'}


def test_a_shared_params_container_names_the_weights():
    shared = mx.rnn.RNNParams('shared_')
    first = mx.rnn.ConvRNNCell(STEP_SHAPE, 2, prefix='a_', params=shared)
    second = mx.rnn.ConvRNNCell(STEP_SHAPE, 2, prefix='b_', params=shared)
    assert sorted(shared._params) == ['shared_h2h_bias', 'shared_h2h_weight', 'shared_i2h_bias', 'shared_i2h_weight']
    out_a, _ = first.unroll(1, [mx.sym.Variable('x')])
    out_b, _ = second.unroll(1, [mx.sym.Variable('x')])
    assert out_a[0].list_arguments() == out_b[0].list_arguments()
    assert out_b[0].name == 'b_t0_out'


@pytest.mark.parametrize('name', sorted(ERRORS))
def test_bad_input_raises_what_mxnet_raises(name):
    kind, _ = DOC['errors'][name]
    want = mx.base.MXNetError if kind == 'MXNetError' else getattr(builtins, kind)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')     # infer_shape warns before the cell gives up on an unknown shape
        with mx.name.NameManager(), pytest.raises(want):
            ERRORS[name](mx)


def test_mxnets_own_conv_cell_tests_shape():
    # MXNet's test_convrnn/test_convlstm/test_convgru, in short
    for cls in (mx.rnn.ConvRNNCell, mx.rnn.ConvLSTMCell, mx.rnn.ConvGRUCell):
        cell = cls(input_shape=(1, 3, 16, 10), num_hidden=10, prefix='rnn_')
        outputs, _ = cell.unroll(3, [mx.sym.Variable('rnn_t%d_data' % i) for i in range(3)])
        outputs = mx.sym.Group(outputs)
        assert outputs.list_outputs() == ['rnn_t0_out_output', 'rnn_t1_out_output', 'rnn_t2_out_output']
        shapes = {'rnn_t%d_data' % i: (1, 3, 16, 10) for i in range(3)}
        assert outputs.infer_shape(**shapes)[1] == [(1, 10, 16, 10)] * 3
