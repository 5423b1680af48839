"""Bad input gets a clear MXNetError that names the culprit: regression tests for the misuse
cases a hostile reader found (one group per kind of input).  Where reflib is stricter than
MXNet 1.9.1, the test says so."""

import copy
import json
import os

import numpy as np
import pytest

import reflib as mx
from reflib.base import GraphFormatError, MXNetError, ParamError, ShapeError

GOLDEN = os.path.join(os.path.dirname(__file__), 'golden')


def fc_graph(inputs, attrs=None, op='FullyConnected', name='fc'):
    """data, fc_weight, fc_bias, extra, then one operator node reading ``inputs``."""
    nodes = [{'op': 'null', 'name': n, 'inputs': []} for n in ('data', 'fc_weight', 'fc_bias', 'extra')]
    nodes.append({'op': op, 'name': name, 'attrs': attrs or {'num_hidden': '3'}, 'inputs': inputs})
    return {'nodes': nodes, 'arg_nodes': [0, 1, 2, 3], 'heads': [[4, 0, 0]]}


FULL = [[0, 0, 0], [1, 0, 0], [2, 0, 0]]


# ---------------------------------------------------------------------------- 1. symbol JSON


def test_a_well_formed_graph_loads():
    sym = mx.sym.load_json(json.dumps(fc_graph(FULL)))
    assert sym.list_arguments() == ['data', 'fc_weight', 'fc_bias']
    assert sym.infer_shape(data=(2, 5))[1] == [(2, 3)]


def test_a_missing_trailing_input_becomes_a_variable_as_in_mxnet():
    # MXNet 1.9.1 creates fc_bias (with the node's attributes); it does not drop the bias
    sym = mx.sym.load_json(json.dumps(fc_graph(FULL[:2], {'num_hidden': '3', '__lr_mult__': '2'})))
    assert sym.list_arguments() == ['data', 'fc_weight', 'fc_bias']
    assert sym.attr_dict()['fc_bias']['__lr_mult__'] == '2'


def test_a_batchnorm_without_its_states_gets_them_as_auxiliary_variables():
    graph = {'nodes': [{'op': 'null', 'name': 'data', 'inputs': []},
                       {'op': 'BatchNorm', 'name': 'bn', 'inputs': [[0, 0, 0]]}],
             'arg_nodes': [0], 'heads': [[1, 0, 0]]}
    sym = mx.sym.load_json(json.dumps(graph))
    assert sym.list_arguments() == ['data', 'bn_gamma', 'bn_beta']
    assert sym.list_auxiliary_states() == ['bn_moving_mean', 'bn_moving_var']


def test_nodes_may_come_in_any_order_as_in_mxnet():
    graph = {'nodes': [{'op': 'FullyConnected', 'name': 'fc', 'attrs': {'num_hidden': '3', 'no_bias': 'True'},
                        'inputs': [[1, 0, 0], [2, 0, 0]]},
                       {'op': 'null', 'name': 'data', 'inputs': []}, {'op': 'null', 'name': 'w', 'inputs': []}],
             'arg_nodes': [1, 2], 'heads': [[0, 0, 0]]}
    assert mx.sym.load_json(json.dumps(graph)).list_arguments() == ['data', 'w']


@pytest.mark.parametrize('graph, message', [
    # MXNet 1.9.1 loads the first three and fails (or crashes) only later: reflib is stricter
    (fc_graph(FULL + [[3, 0, 0]]), r"node 4 \('fc', FullyConnected\): 4 inputs, but FullyConnected takes 3"),
    (fc_graph([[0, 1, 0]] + FULL[1:]), r"input 0 \(data\) reads output 1 of node 0 \('data'\), which has 1"),
    (dict(fc_graph(FULL), heads=[[4, 1, 0]]), r"head 0 reads output 1 of node 4 \('fc'\), which has 1"),
    (fc_graph([[-1, 0, 0]] + FULL[1:]), r'input 0 \(data\) refers to node -1'),
    (fc_graph(FULL, op=None), r"""node 4 \('fc'\): "op" must be a string"""),
    (fc_graph(FULL, name=None), r'node 4: "name" must be a string, got None'),
    (fc_graph(FULL, {'num_hidden': 3}), r"attribute 'num_hidden' must be a string"),
    (fc_graph(FULL, {'num_hidden': '3', 'bogus': '1'}), r"node 4: FullyConnected 'fc': unknown parameter 'bogus'"),
    (fc_graph(FULL, {'num_hidden': '2.7'}), r"node 4: .*'num_hidden' expects a whole number"),
    (fc_graph(FULL, {'num_hidden': '0'}), r"node 4: .*'num_hidden' must be at least 1, got 0"),
    (fc_graph([[0, 0], [1, 0], 'x']), r"input 2 \(bias\) must be \[node index, output index\]"),
    (dict(fc_graph(FULL), heads=[[9, 0, 0]]), r'head 0 refers to node 9; the graph has nodes 0 to 4'),
    (dict(fc_graph(FULL), heads=[]), r'no heads'),
    ({'nodes': []}, r"no 'heads' list"),
    ({'nodes': [], 'heads': []}, r'no nodes'),
    ({'nodes': [{'op': 'null', 'name': 'a', 'inputs': []}, {'op': 'null', 'name': 'b', 'inputs': [[0, 0, 0]]}],
      'heads': [[1, 0, 0]]}, r"node 1 \('b', variable\): a variable has no inputs"),
    ({'nodes': [{'op': 'null', 'name': 'a', 'attrs': {'__shape__': 'garbage'}, 'inputs': []}],
      'heads': [[0, 0, 0]]}, r"variable 'a': attribute __shape__='garbage' is not a shape"),
    ({'nodes': [{'op': 'null', 'name': 'a', 'attrs': {'__dtype__': '99'}, 'inputs': []}],
      'heads': [[0, 0, 0]]}, r"variable 'a': attribute __dtype__='99'"),
    ({'nodes': [{'op': 'null', 'name': 'a', 'attrs': {'__init__': '[1, 2, 3]'}, 'inputs': []}],
      'heads': [[0, 0, 0]]}, r"variable 'a': attribute __init__='\[1, 2, 3\]' is not an initializer"),
    ({'nodes': [{'op': 'Nope', 'name': 'n', 'inputs': []}], 'heads': [[0, 0, 0]]},
     r"node 0 \('n'\): uses operator 'Nope', which reflib does not implement"),
])
def test_a_malformed_graph_is_refused_naming_the_node(graph, message):
    with pytest.raises(MXNetError, match=message):
        mx.sym.load_json(json.dumps(graph))


def test_an_auxiliary_state_must_be_a_variable():
    graph = {'nodes': [{'op': 'null', 'name': 'data', 'inputs': []},
                       {'op': 'Activation', 'name': 'act', 'attrs': {'act_type': 'relu'}, 'inputs': [[0, 0, 0]]},
                       {'op': 'BatchNorm', 'name': 'bn', 'inputs': [[0, 0, 0]] * 3 + [[1, 0, 0]] * 2}],
             'heads': [[2, 0, 0]]}
    with pytest.raises(GraphFormatError, match=r'input 3 \(moving_mean\) is an auxiliary state and must be a '
                                               r'variable'):
        mx.sym.load_json(json.dumps(graph))


def test_a_cycle_is_refused_at_load():
    # stricter than MXNet, which accepts the file and hangs or crashes when the graph is used
    graph = {'nodes': [{'op': 'Activation', 'name': 'a', 'attrs': {'act_type': 'relu'}, 'inputs': [[1, 0, 0]]},
                       {'op': 'Activation', 'name': 'b', 'attrs': {'act_type': 'relu'}, 'inputs': [[0, 0, 0]]}],
             'heads': [[1, 0, 0]]}
    with pytest.raises(GraphFormatError, match='cycle'):
        mx.sym.load_json(json.dumps(graph))


@pytest.mark.parametrize('data, message', [
    (b'\xff\xfe{', 'not UTF-8'),
    ('{"nodes": [', 'not valid JSON'),
    ('[1, 2]', 'a symbol file is a JSON object, got list'),
    ('[' * 50000 + ']' * 50000, 'nested too deeply|a symbol file is a JSON object'),
])
def test_text_that_is_not_a_symbol_is_refused(data, message):
    with pytest.raises(GraphFormatError, match=message):
        mx.sym.load_json(data)


def test_sym_load_reads_bytes_and_refuses_binary_files(tmp_path):
    path = tmp_path / 'net-symbol.json'
    path.write_bytes(b'\x00\x01\x02\xff')
    with pytest.raises(GraphFormatError):
        mx.sym.load(str(path))


# ---------------------------------------------------------------------------- 3. operator parameters


@pytest.mark.parametrize('op, kwargs, message', [
    ('FullyConnected', {'num_hidden': 0}, "'num_hidden' must be at least 1, got 0"),
    ('FullyConnected', {'num_hidden': -1}, "'num_hidden' must be at least 1, got -1"),
    ('FullyConnected', {'num_hidden': 2.7}, "'num_hidden' expects a whole number"),
    ('FullyConnected', {'num_hidden': '2.7'}, "'num_hidden' expects a whole number"),
    ('FullyConnected', {'num_hidden': 3.0}, "'num_hidden' expects a whole number"),   # as MXNet
    ('FullyConnected', {'num_hidden': True}, "'num_hidden' expects a whole number"),  # as MXNet
    ('FullyConnected', {'num_hidden': 2 ** 40}, "'num_hidden' expects a whole number \\(int32\\)"),
    ('Dropout', {'p': 1.5}, r"'p' must be in \[0, 1\], got 1.5"),
    ('Dropout', {'p': -0.1}, r"'p' must be in \[0, 1\], got -0.1"),
    ('Convolution', {'num_filter': 0, 'kernel': (3, 3)}, "'num_filter' must be at least 1"),
    ('Convolution', {'num_filter': 2, 'kernel': (0, 3)}, "every element of parameter 'kernel' must be at least 1"),
    ('Convolution', {'num_filter': 2, 'kernel': (3, 3), 'num_group': 0}, "'num_group' must be at least 1"),
    ('Convolution', {'num_filter': 2, 'kernel': (3, 3), 'stride': (0, 1)}, "'stride' must be at least 1"),
    ('Convolution', {'num_filter': 2, 'kernel': (3, 3), 'pad': (-1, 0)}, "'pad' must be at least 0"),
    ('Pooling', {'kernel': (0, 2)}, "'kernel' must be at least 1"),
    ('SliceChannel', {'num_outputs': 0}, "'num_outputs' must be at least 1"),
    ('Embedding', {'input_dim': 0, 'output_dim': 3}, "'input_dim' must be at least 1"),
    ('SoftmaxOutput', {'smooth_alpha': 1.5}, r"'smooth_alpha' must be in \[0, 1\]"),
    ('Reshape', {'shape': (0, -5)}, "every element of parameter 'shape' must be at least -4"),
])
def test_an_out_of_range_parameter_is_refused_naming_operator_node_and_parameter(op, kwargs, message):
    with pytest.raises(ParamError, match=message) as info:
        getattr(mx.sym, op)(mx.sym.Variable('data'), name='the_node', **kwargs)
    assert "'the_node'" in str(info.value) and op in str(info.value)


def test_boundary_values_are_accepted():
    data = mx.sym.Variable('data')
    mx.sym.Dropout(data, p=0.0)
    mx.sym.Dropout(data, p=1.0)
    mx.sym.FullyConnected(data, num_hidden=np.int64(1))
    mx.sym.FullyConnected(data, num_hidden='7')
    mx.sym.Reshape(data, shape=(0, -4, 2, -1))


@pytest.mark.parametrize('shape', [(4, -3), (-1, 5), (4, True)])
def test_infer_shape_refuses_a_negative_or_non_integer_dimension(shape):
    net = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3)
    with pytest.raises(ShapeError, match="shape of 'data'"):
        net.infer_shape(data=shape)


def test_a_variable_with_an_unreadable_shape_is_refused_when_made():
    # -1 is an unknown dimension (MXNet accepts it in both shape semantics); -2 is nothing
    with pytest.raises(ParamError, match="variable 'x': attribute __shape__"):
        mx.sym.Variable('x', shape=(2, -2))


# ---------------------------------------------------------------------------- 6. binding


def _softmax_net():
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3, name='fc'),
                                name='softmax')


def test_a_label_batch_other_than_the_data_batch_is_refused_at_bind():
    mod = mx.mod.Module(_softmax_net(), context=mx.cpu())
    with pytest.raises(ShapeError, match=r"label 'softmax_label' has shape \(6,\), a batch of 6, but the data "
                                         r"batch is 4"):
        mod.bind([('data', (4, 5))], [('softmax_label', (6,))])
    assert not mod.binded


def test_two_variables_of_one_name_are_refused_at_bind():
    twice = mx.sym.Variable('x') + mx.sym.Variable('x')
    with pytest.raises(mx.base.BindError, match="two different variables named 'x'"):
        twice.simple_bind(mx.cpu(), x=(2,))
    with pytest.raises(mx.base.BindError, match="two different variables named 'x'"):
        twice.bind(mx.cpu(), {'x': mx.nd.ones(2)})
    once = mx.sym.Variable('x')
    out = (once + once).bind(mx.cpu(), {'x': mx.nd.ones(2)}).forward()[0]    # one variable used twice: fine
    np.testing.assert_array_equal(out.asnumpy(), [2, 2])


@pytest.mark.parametrize('grad_req', [5, None, 1.5])
def test_a_grad_req_of_the_wrong_type_is_refused(grad_req):
    with pytest.raises(MXNetError, match="grad_req must be 'write', 'add' or 'null'"):
        _softmax_net().simple_bind(mx.cpu(), grad_req=grad_req, data=(2, 5))


# ---------------------------------------------------------------------------- 8. the API's edges


@pytest.mark.parametrize('make, message', [
    (lambda: mx.nd.ones((-1, 3)), r'shape \(-1, 3\) has a negative dimension'),
    (lambda: mx.nd.zeros('abc'), 'shape must be an int or a tuple of ints'),
    (lambda: mx.nd.full((2, -2), 1.0), 'negative dimension'),
    (lambda: mx.nd.array([[1, 2], [3]]), 'rectangular nest of numbers'),
    (lambda: mx.random.seed('abc'), "seed_state must be an int, got 'abc'"),
    (lambda: mx.init.Normal(sigma=-1), 'Normal: sigma must be a number >= 0, got -1'),
    (lambda: mx.init.Uniform(scale='big'), 'Uniform: scale must be a number >= 0'),
    (lambda: mx.optimizer.SGD(learning_rate='fast'), "SGD: learning_rate must be a number, got 'fast'"),
    (lambda: mx.optimizer.Adam(beta1=None), 'Adam: beta1 must be a number'),
    (lambda: mx.optimizer.SGD(momentum=True), 'SGD: momentum must be a number'),
])
def test_a_bad_argument_at_the_api_edge_is_an_mxnet_error(make, message):
    with pytest.raises(MXNetError, match=message):
        make()


def test_a_numeric_string_hyperparameter_is_a_number_as_in_mxnet():
    # MXNet hands hyperparameters to C++ as strings, so learning_rate='0.1' trains there
    opt = mx.optimizer.SGD(learning_rate='0.1', momentum='0.9')
    assert opt.lr == 0.1 and opt.momentum == 0.9
    weight, grad = mx.nd.ones(2), mx.nd.ones(2)
    mx.optimizer.get_updater(opt)(0, grad, weight)
    np.testing.assert_allclose(weight.asnumpy(), [0.9, 0.9], rtol=1e-6)


# ---------------------------------------------------------------------------- 7. optimizer states


def _states_of(optimizer, shape=(3, 5)):
    updater = mx.optimizer.get_updater(optimizer)
    updater(0, mx.nd.ones(shape), mx.nd.ones(shape))
    return updater.get_states()


@pytest.mark.parametrize('saved_with, loaded_into, message', [
    (lambda: mx.optimizer.Adam(), lambda: mx.optimizer.SGD(momentum=0.9),
     r"state loaded for weight 'w' \(index 0\) does not fit SGD on a weight of shape \(3, 5\): it is \(an array "
     r"of shape \(3, 5\), an array of shape \(3, 5\)\), SGD expects an array of shape \(3, 5\)"),
    (lambda: mx.optimizer.SGD(momentum=0.9), lambda: mx.optimizer.Adam(), 'does not fit Adam'),
    (lambda: mx.optimizer.SGD(momentum=0.9), lambda: mx.optimizer.SGD(), 'SGD expects no state'),
])
def test_states_of_another_optimizer_are_refused_naming_the_weight(saved_with, loaded_into, message):
    opt = loaded_into()
    opt.idx2name = {0: 'w'}
    updater = mx.optimizer.get_updater(opt)
    updater.set_states(_states_of(saved_with()))
    with pytest.raises(mx.optimizer.OptimizerError, match=message):
        updater(0, mx.nd.ones((3, 5)), mx.nd.ones((3, 5)))


def test_states_of_another_shape_are_refused():
    updater = mx.optimizer.get_updater(mx.optimizer.SGD(momentum=0.9))
    updater.set_states(_states_of(mx.optimizer.SGD(momentum=0.9), shape=(4,)))
    with pytest.raises(mx.optimizer.OptimizerError, match=r'it is an array of shape \(4,\), SGD expects an '
                                                          r'array of shape \(3, 5\)'):
        updater(0, mx.nd.ones((3, 5)), mx.nd.ones((3, 5)))


@pytest.mark.parametrize('data', [
    b'\x80\x04\x95' + b'\xff' * 8,                                  # a frame longer than memory
    b'\x80\x04\x8e' + (2 ** 62).to_bytes(8, 'little') + b'x',       # BINBYTES8 of 2**62 bytes
    b'\x80\x04K\x01.',                                             # the int 1, not a dict
    b'\x80\x04}\x94K\x00\x8c\x03abc\x94s.',                         # {0: 'abc'}: not arrays
    b'garbage',
])
def test_set_states_turns_every_failure_into_an_optimizer_error(data):
    updater = mx.optimizer.get_updater(mx.optimizer.SGD(momentum=0.9))
    with pytest.raises(mx.optimizer.OptimizerError, match='set_states'):
        updater.set_states(data)


def test_a_states_file_cannot_call_arbitrary_code(tmp_path):
    # pickle can call any importable function; a states file may only build arrays and an optimizer
    marker = tmp_path / 'ran'
    hostile = b'\x80\x04cos\nsystem\n\x8c\x0ctouch ' + str(marker).encode() + b'\x85R.'
    hostile = hostile.replace(b'\x8c\x0ctouch ' + str(marker).encode(),
                              b'\x8c' + bytes([len('touch ' + str(marker))]) + b'touch ' + str(marker).encode())
    with pytest.raises(mx.optimizer.OptimizerError, match='not os.system'):
        mx.optimizer.get_updater(mx.optimizer.SGD()).set_states(hostile)
    assert not marker.exists()
    huge = b'\x80\x04cbuiltins\nbytearray\n\x8a\x06\x00\x00\x00\x00\x00\x01\x85R.'    # bytearray(2**40)
    with pytest.raises(mx.optimizer.OptimizerError, match='only bytes are expected'):
        mx.optimizer.get_updater(mx.optimizer.SGD()).set_states(huge)


# ---------------------------------------------------------------------------- MXNet's conventions


def test_mxnet_error_is_a_runtime_error_as_in_mxnet():
    assert issubclass(MXNetError, RuntimeError)
    assert issubclass(ParamError, ValueError) and issubclass(ParamError, RuntimeError)


def test_a_symbol_has_no_truth_value():
    with pytest.raises(mx.base.NotImplementedForSymbol, match='bool.*not implemented for Symbol'):
        bool(mx.sym.Variable('x'))


def test_creation_functions_fill_out_in_place():
    a = mx.nd.zeros((2, 2))
    assert mx.nd.ones((2, 2), out=a) is a
    np.testing.assert_array_equal(a.asnumpy(), np.ones((2, 2)))
    assert mx.nd.zeros((2, 2), out=a) is a and not a.asnumpy().any()
    with pytest.raises(ShapeError, match=r'out= has shape \(2, 2\)'):
        mx.nd.ones((3,), out=a)


# ---------------------------------------------------------------------------- round two: no raw tracebacks
def test_states_nested_too_deeply_are_an_optimizer_error():
    import io
    blob = io.BytesIO()
    blob.write(b'\x80\x04}K\x00N' + b'\x85' * 200000 + b's.')      # {0: ((((None,),),)...)}
    updater = mx.optimizer.get_updater(mx.optimizer.SGD())
    with pytest.raises(MXNetError, match='nested too deeply'):
        updater.set_states(blob.getvalue())


@pytest.mark.parametrize('build, named', [
    (lambda: mx.sym.zeros(shape=(10 ** 6, 10 ** 6)).simple_bind(mx.cpu()), r"output '_zeros\d+_output'"),
    (lambda: (mx.sym.var('data', shape=(10 ** 6, 10 ** 6)) * 2).simple_bind(mx.cpu()), "'data'"),
    (lambda: mx.sym.Pad(mx.sym.var('x'), mode='constant', pad_width=(0, 0, 0, 0) + (10 ** 5,) * 4).simple_bind(
        mx.cpu(), x=(1, 1, 10, 10)), "output 'pad"),
])
def test_a_bind_that_cannot_fit_in_memory_is_refused_naming_the_largest_array(build, named):
    with pytest.raises(MXNetError, match=r'the arrays need [\d.]+ [TG]iB on cpu\(0\), but .* available; the '
                                         r'largest is .*%s' % named):
        build()


def test_a_negative_offset_in_an_idx_file_is_refused_naming_the_line(tmp_path):
    rec, idx = str(tmp_path / 'a.rec'), str(tmp_path / 'a.idx')
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, 'w')
    writer.write_idx(0, b'hello')
    writer.close()
    with open(idx, 'w') as f:
        f.write('0\t-5\n')
    with pytest.raises(MXNetError, match=r"a.idx' line 1: offset -5 of key 0 is negative"):
        mx.recordio.MXIndexedRecordIO(idx, rec, 'r')


def _module():
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
    return mx.mod.Module(mx.sym.SoftmaxOutput(net, name='softmax'), context=mx.cpu())


@pytest.mark.parametrize('data_shapes', [('data', (2, 3)), (2, 3), 'data', [('data', 3)]])
def test_data_shapes_that_are_no_list_of_pairs_are_refused(data_shapes):
    with pytest.raises(MXNetError, match=r"data_shapes must be a list of \(name, shape\) pairs"):
        _module().bind(data_shapes=data_shapes)


@pytest.mark.parametrize('data, label', [([[1, 2], [3, 4]], np.array([0, 1])),
                                         (np.ones((2, 2)), [0, 1])])
def test_ndarrayiter_over_python_lists_says_what_a_list_means(data, label):
    with pytest.raises(MXNetError, match=r'is a Python list of (list|int); a list means one array per input'):
        mx.io.NDArrayIter(data, label, batch_size=1)


def test_fit_on_an_exhausted_iterator_or_a_generator_says_so():
    it = mx.io.NDArrayIter(np.ones((4, 3), np.float32), np.zeros(4, np.float32), batch_size=2)
    for _ in it:
        pass
    with pytest.raises(MXNetError, match=r'fit: epoch 0 has no batch: train_data is exhausted .*reset\(\)'):
        _module().fit(it, num_epoch=1)
    with pytest.raises(MXNetError, match='fit: train_data must be a DataIter'):
        _module().fit((b for b in []), num_epoch=1)
