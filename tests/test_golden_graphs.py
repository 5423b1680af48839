"""reflib against golden values recorded from real MXNet 1.9.1.

The graphs are defined once in tests/golden/graph_defs.py; tests/golden/gen_graphs.py
built them with MXNet and stored names, shapes, JSON texts (graphs.json) and every
array (graphs.npz).  Here the same graphs are built with ``import reflib as mx``, given
the same parameters and data, and must give the same answers.  MXNet is not needed.

Arrays are compared at float32 tolerance, rtol=1e-5 and atol=1e-6: MXNet's own
results with and without its MKLDNN kernels differ by up to 1.4e-6 absolute on these
graphs and stay inside that tolerance.
"""

import functools
import json
import os
import sys
import warnings

import numpy as np
import pytest

import reflib as mx

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden')
sys.path.insert(0, GOLDEN)
import graph_defs as G  # noqa: E402

with open(os.path.join(GOLDEN, 'graphs.json')) as _f:
    FACTS = json.load(_f)
_NPZ = np.load(os.path.join(GOLDEN, 'graphs.npz'))
ARRAYS = {k: _NPZ[k] for k in _NPZ.files}

RTOL = 1e-5
ATOL = 1e-6


# --------------------------------------------------------------------- helpers
def golden(key):
    return ARRAYS[key]


def to_numpy(value):
    if isinstance(value, np.ndarray):
        return value
    return value.asnumpy()


def assert_close(actual, key, what=''):
    """Compare an NDArray (or numpy array) with the golden array stored under ``key``."""
    expected = golden(key)
    assert actual is not None, '%s: got None, expected an array (%s)' % (what or key, key)
    actual = to_numpy(actual)
    assert tuple(actual.shape) == tuple(expected.shape), \
        '%s: shape %s, MXNet %s' % (what or key, actual.shape, expected.shape)
    assert actual.dtype == expected.dtype, \
        '%s: dtype %s, MXNet %s' % (what or key, actual.dtype, expected.dtype)
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL, err_msg=what or key)


def shape_list(shapes):
    return None if shapes is None else [list(s) for s in shapes]


def dtype_names(types):
    return None if types is None else [np.dtype(t).name for t in types]


def names_of(sym):
    return {
        'arguments': sym.list_arguments(),
        'outputs': sym.list_outputs(),
        'auxiliary_states': sym.list_auxiliary_states(),
        'inputs': sym.list_inputs(),
        'internals': sym.get_internals().list_outputs(),
    }


def json_structure(text):
    """What must agree between two symbol JSON texts: nodes (op, name, attrs,
    inputs as [node, output]), arg_nodes and heads."""
    graph = json.loads(text)
    nodes = [{'op': n['op'], 'name': n['name'], 'attrs': n.get('attrs', {}),
              'inputs': [list(i[:2]) for i in n['inputs']]} for n in graph['nodes']]
    return {'nodes': nodes, 'arg_nodes': list(graph['arg_nodes']),
            'heads': [list(h[:2]) for h in graph['heads']]}


def assert_json_structure_equal(actual_text, expected_text):
    actual = json_structure(actual_text)
    expected = json_structure(expected_text)
    assert [n['name'] for n in actual['nodes']] == [n['name'] for n in expected['nodes']], \
        'node order/names differ'
    for got, want in zip(actual['nodes'], expected['nodes']):
        assert got == want, 'node %r differs' % want['name']
    assert actual['arg_nodes'] == expected['arg_nodes']
    assert actual['heads'] == expected['heads']


def assert_json_exact_format(actual_text, expected_text):
    """The details MXNet writes beyond the structure: input/head version fields,
    node_row_ptr and the top-level mxnet_version attribute."""
    actual = json.loads(actual_text)
    expected = json.loads(expected_text)
    assert [n['inputs'] for n in actual['nodes']] == [n['inputs'] for n in expected['nodes']]
    assert actual['heads'] == expected['heads']
    # node_row_ptr: outputs per node.  One known build artifact is allowed: the
    # oracle is an MKLDNN build, where max Pooling has a hidden second output
    # (its workspace); without MKLDNN MXNet gives it one output, as reflib may.
    got_ptr, want_ptr = actual.get('node_row_ptr'), expected['node_row_ptr']
    assert got_ptr is not None and len(got_ptr) == len(want_ptr), 'node_row_ptr length'
    for k, node in enumerate(expected['nodes']):
        got_rows, want_rows = got_ptr[k + 1] - got_ptr[k], want_ptr[k + 1] - want_ptr[k]
        if node['op'] == 'Pooling' and node.get('attrs', {}).get('pool_type') == 'max':
            assert got_rows in (1, want_rows), 'outputs of node %r' % node['name']
        else:
            assert got_rows == want_rows, 'outputs of node %r' % node['name']
    assert actual.get('attrs') == expected['attrs']
    assert sorted(actual) == sorted(expected)


def set_values(exe, args=None, aux=None):
    for name, value in (args or {}).items():
        exe.arg_dict[name][:] = value
    for name, value in (aux or {}).items():
        exe.aux_dict[name][:] = value


GRAPHS = {
    'mlp': G.mlp,
    'fc6': G.fc6,
    'c': G.two_a_plus_b,
    'alias': G.x_plus_one,
    'convnet': G.convnet,
}


# ------------------------------------------------------------ names, shapes, JSON
def test_name_manager_gives_fresh_counters():
    # graph_defs builds every graph in a fresh mx.name.NameManager() scope so
    # that automatic names (activation0, _plus0, ...) are reproducible.
    assert hasattr(mx, 'name') and hasattr(mx.name, 'NameManager')
    with mx.name.NameManager():
        first = (2 * mx.sym.Variable('a')).name
    with mx.name.NameManager():
        second = (2 * mx.sym.Variable('a')).name
    assert first == second == '_mulscalar0'


@pytest.mark.parametrize('case', sorted(GRAPHS))
def test_names(case):
    sym = GRAPHS[case](mx)
    facts = FACTS[case]
    got = names_of(sym)
    for kind in ('arguments', 'outputs', 'auxiliary_states', 'inputs', 'internals'):
        assert got[kind] == facts[kind], kind


@pytest.mark.parametrize('case', sorted(GRAPHS))
def test_infer_shape(case):
    sym = GRAPHS[case](mx)
    facts = FACTS[case]['infer_shape']
    kwargs = {k: tuple(v) for k, v in facts['kwargs'].items()}
    arg, out, aux = sym.infer_shape(**kwargs)
    assert shape_list(arg) == facts['arg_shapes']
    assert shape_list(out) == facts['out_shapes']
    assert shape_list(aux) == facts['aux_shapes']
    for shape in list(arg) + list(out) + list(aux):
        assert isinstance(shape, tuple)


@pytest.mark.parametrize('case', sorted(GRAPHS))
def test_json_structure(case):
    sym = GRAPHS[case](mx)
    assert_json_structure_equal(sym.tojson(), FACTS[case]['json'])


@pytest.mark.parametrize('case', sorted(GRAPHS))
def test_json_exact_format(case):
    sym = GRAPHS[case](mx)
    assert_json_exact_format(sym.tojson(), FACTS[case]['json'])


@pytest.mark.parametrize('case', sorted(GRAPHS))
def test_json_round_trip(case):
    sym = GRAPHS[case](mx)
    again = mx.sym.load_json(sym.tojson())
    assert again.list_arguments() == sym.list_arguments()
    assert again.list_outputs() == sym.list_outputs()
    assert again.list_auxiliary_states() == sym.list_auxiliary_states()
    assert_json_structure_equal(again.tojson(), FACTS[case]['json'])


# ------------------------------------------------------------------- (a) the MLP
def mlp_params():
    return {k: golden(key) for k, key in FACTS['mlp']['param_keys'].items()}


def mlp_batch(i):
    keys = FACTS['mlp']['batches'][i]
    return golden(keys['data']), golden(keys['softmax_label'])


@pytest.mark.parametrize('batch', [0, 1])
def test_mlp_grad_req_write(batch):
    sym = G.mlp(mx)
    facts = FACTS['mlp']['write'][batch]
    exe = sym.simple_bind(mx.cpu(), grad_req='write', data=G.MLP_DATA_SHAPE)
    set_values(exe, mlp_params())
    data, label = mlp_batch(batch)
    outs = exe.forward(is_train=True, data=data, softmax_label=label)
    assert len(outs) == 1
    assert_close(outs[0], facts['output'], 'forward output')
    assert_close(exe.outputs[0], facts['output'], 'exe.outputs[0]')
    exe.backward()
    assert sorted(exe.grad_dict) == sorted(facts['grads'])
    for name, key in facts['grads'].items():
        assert_close(exe.grad_dict[name], key, 'grad of ' + name)
    # grad_arrays follows list_arguments()
    for name, grad in zip(sym.list_arguments(), exe.grad_arrays):
        assert_close(grad, facts['grads'][name], 'grad_arrays entry for ' + name)


def test_mlp_grad_req_add():
    sym = G.mlp(mx)
    facts = FACTS['mlp']['add']
    exe = sym.simple_bind(mx.cpu(), grad_req='add', data=G.MLP_DATA_SHAPE)
    set_values(exe, mlp_params())
    for i in range(2):
        data, label = mlp_batch(i)
        outs = exe.forward(is_train=True, data=data, softmax_label=label)
        assert_close(outs[0], facts['output%d' % i], 'output of step %d' % i)
        exe.backward()
        expected = facts['grads_after_%d' % (i + 1)]
        assert sorted(exe.grad_dict) == sorted(expected)
        for name, key in expected.items():
            assert_close(exe.grad_dict[name], key, 'grad of %s after %d backward calls' % (name, i + 1))


def test_mlp_args_are_the_bound_arrays():
    sym = G.mlp(mx)
    exe = sym.simple_bind(mx.cpu(), grad_req='write', data=G.MLP_DATA_SHAPE)
    for name, arr in zip(sym.list_arguments(), exe.arg_arrays):
        assert exe.arg_dict[name] is arr
    for name, arr in zip(sym.list_arguments(), exe.grad_arrays):
        assert exe.grad_dict[name] is arr


# ------------------------------------------------------------- (b) fc(6) on ones
def test_fc6_docstring_example():
    sym = G.fc6(mx)
    facts = FACTS['fc6']
    args = {'data': mx.nd.ones(G.FC6_DATA_SHAPE), 'fc_weight': mx.nd.ones((6, 4)),
            'fc_bias': mx.nd.array((1, 4, 4, 4, 5, 6)), 'softmax_label': mx.nd.ones((1,))}
    for name, key in facts['args'].items():
        assert_close(args[name], key, 'argument ' + name)
    args_grad = {'fc_weight': mx.nd.zeros((6, 4)), 'fc_bias': mx.nd.zeros((6,))}
    exe = sym.bind(ctx=mx.cpu(), args=args, args_grad=args_grad)
    out = exe.forward(is_train=True)[0].copy()
    np.testing.assert_allclose(
        out.asnumpy()[0],
        [0.00378404, 0.07600445, 0.07600445, 0.07600445, 0.20660152, 0.5616011], rtol=1e-6)
    assert_close(out, facts['output'], 'output')
    exe.backward()
    assert [g is None for g in exe.grad_arrays] == facts['grad_arrays_is_none']
    by_name = dict(zip(sym.list_arguments(), exe.grad_arrays))
    for name, key in facts['grads'].items():
        assert_close(by_name[name], key, 'grad of ' + name)
        # bind keeps args_grad by reference: the caller's arrays hold the gradients
        assert_close(args_grad[name], key, 'args_grad[%r] after backward' % name)
    assert (exe.grad_arrays[1] is args_grad['fc_weight']) == facts['args_grad_is_grad_array']


# ------------------------------------------------------------------ (c) 2a + b
def test_two_a_plus_b_names():
    sym = G.two_a_plus_b(mx)
    assert [n['name'] for n in json.loads(sym.tojson())['nodes']] == FACTS['c']['node_names']
    assert sym.name == '_plus0'


def test_two_a_plus_b_backward_with_head_gradient():
    sym = G.two_a_plus_b(mx)
    facts = FACTS['c']
    args = {'a': mx.nd.array([1, 2]), 'b': mx.nd.array([2, 3])}
    args_grad = {'a': mx.nd.zeros((2,)), 'b': mx.nd.zeros((2,))}
    exe = sym.bind(ctx=mx.cpu(), args=args, args_grad=args_grad)
    out = exe.forward(is_train=True)[0].copy()
    assert_close(out, facts['output'], 'output')
    exe.backward(out)
    assert_close(exe.grad_arrays[0], facts['grads']['a'], 'grad of a')
    assert_close(exe.grad_arrays[1], facts['grads']['b'], 'grad of b')
    assert to_numpy(exe.grad_arrays[0]).tolist() == [8, 14]
    assert to_numpy(exe.grad_arrays[1]).tolist() == [4, 7]
    exe.backward([mx.nd.array([1, 1])])          # grad_req='write' overwrites
    assert_close(exe.grad_dict['a'], facts['grads_ones_head']['a'], 'grad of a, ones head')
    assert_close(exe.grad_dict['b'], facts['grads_ones_head']['b'], 'grad of b, ones head')


# -------------------------------------------------------- (d) bind by reference
def test_bind_uses_arrays_by_reference():
    sym = G.x_plus_one(mx)
    facts = FACTS['alias']
    x_array = mx.nd.array([1., 2.])
    exe = sym.bind(ctx=mx.cpu(), args=[x_array])
    assert (exe.arg_arrays[0] is x_array) == facts['arg_arrays_is_given_array']
    assert (exe.arg_dict['x'] is x_array) == facts['arg_dict_is_given_array']
    keys = dict(facts['steps'])
    exe.forward()
    assert_close(exe.outputs[0], keys['initial'], 'first forward')
    x_array[1] = 3.
    exe.forward()
    assert_close(exe.outputs[0], keys['after_setitem'], 'after x_array[1] = 3')
    x_array[:] = mx.nd.array([5., 7.])
    exe.forward()
    assert_close(exe.outputs[0], keys['after_slice_assign'], 'after x_array[:] = ...')
    bound = x_array
    x_array = mx.nd.array([100., 200.])  # noqa: F841  rebinding the name changes nothing
    exe.forward()
    assert_close(exe.outputs[0], keys['after_rebind_name'], 'after rebinding the Python name')
    exe.forward(x=mx.nd.array([10., 20.]))
    assert_close(exe.outputs[0], keys['after_forward_kwargs'], 'after forward(x=...)')
    assert_close(bound, facts['bound_after_forward_kwargs'], 'bound array after forward(x=...)')


def test_bind_without_args_grad_has_no_grad_arrays():
    # MXNet 1.9.1 keeps args_grad as given: bind(args=[...]) with no args_grad
    # leaves exe.grad_arrays None (not a list of None).
    sym = G.x_plus_one(mx)
    exe = sym.bind(ctx=mx.cpu(), args=[mx.nd.array([1., 2.])])
    assert (exe.grad_arrays is None) == FACTS['alias']['grad_arrays_is_none']


# --------------------------------------------------------------- (e) conv net
def convnet_inputs():
    facts = FACTS['convnet']
    params = {k: golden(key) for k, key in facts['param_keys'].items()}
    aux = {k: golden(key) for k, key in facts['aux_keys'].items()}
    return params, aux, golden(facts['data']), golden(facts['softmax_label'])


@functools.lru_cache(maxsize=None)
def convnet_run():
    """eval forward, train forward, backward, eval forward on one executor;
    a snapshot (numpy copies) after each step."""
    sym = G.convnet(mx)
    params, aux, data, label = convnet_inputs()
    exe = sym.simple_bind(mx.cpu(), grad_req='write', data=G.CONV_DATA_SHAPE)
    set_values(exe, params, aux)
    feed = {'data': mx.nd.array(data), 'softmax_label': mx.nd.array(label)}

    def aux_now():
        return {k: to_numpy(v).copy() for k, v in exe.aux_dict.items()}

    run = {'aux_names': sorted(exe.aux_dict)}
    run['eval_before'] = {'output': to_numpy(exe.forward(is_train=False, **feed)[0]).copy(),
                          'aux': aux_now()}
    run['train_forward'] = {'output': to_numpy(exe.forward(is_train=True, **feed)[0]).copy(),
                            'aux': aux_now()}
    exe.backward()
    # MXNet's engine does not order reads of the aux arrays after BatchNorm's
    # backward writes them; waitall() (a no-op for a synchronous executor) does.
    getattr(mx.nd, 'waitall', lambda: None)()
    run['train_backward'] = {'aux': aux_now(),
                             'grads': {k: to_numpy(v).copy() for k, v in exe.grad_dict.items()}}
    run['eval_after'] = {'output': to_numpy(exe.forward(is_train=False, **feed)[0]).copy(),
                         'aux': aux_now()}
    return run


def convnet_step(name):
    for step in FACTS['convnet']['sequence']:
        if step['step'] == name:
            return step
    raise KeyError(name)


def test_convnet_simple_bind_aux():
    assert convnet_run()['aux_names'] == FACTS['convnet']['simple_bind_aux_names']


@pytest.mark.parametrize('step', ['eval_before', 'train_forward', 'eval_after'])
def test_convnet_outputs(step):
    assert_close(convnet_run()[step]['output'], convnet_step(step)['output'], step + ' output')


@pytest.mark.parametrize('step', ['eval_before', 'train_forward', 'train_backward', 'eval_after'])
def test_convnet_aux_states(step):
    # MXNet 1.9.1 leaves the moving statistics alone in the training forward and
    # updates them (momentum 0.9, biased batch variance) in BatchNorm's backward.
    got = convnet_run()[step]['aux']
    want = convnet_step(step)['aux']
    assert sorted(got) == sorted(want)
    for name, key in want.items():
        assert_close(got[name], key, '%s after %s' % (name, step))


def test_convnet_gradients():
    got = convnet_run()['train_backward']['grads']
    want = convnet_step('train_backward')['grads']
    assert sorted(got) == sorted(want)
    for name, key in want.items():
        assert_close(got[name], key, 'grad of ' + name)


@pytest.mark.parametrize('is_train', [True, False], ids=['train', 'eval'])
@pytest.mark.parametrize('layer', FACTS['convnet']['layer_names'])
def test_convnet_layer_outputs(layer, is_train):
    """Each internal output on its own executor (pinpoints the first layer that differs)."""
    sym = G.convnet(mx)
    params, aux, data, label = convnet_inputs()
    head = sym.get_internals()[layer]
    exe = head.simple_bind(mx.cpu(), grad_req='null', data=G.CONV_DATA_SHAPE)
    set_values(exe, {k: v for k, v in params.items() if k in exe.arg_dict},
               {k: v for k, v in aux.items() if k in exe.aux_dict})
    feed = {k: v for k, v in (('data', data), ('softmax_label', label)) if k in exe.arg_dict}
    out = exe.forward(is_train=is_train, **feed)[0]
    tag = 'internals_train' if is_train else 'internals_eval'
    assert_close(out, FACTS['convnet'][tag][layer], '%s (is_train=%s)' % (layer, is_train))


# ----------------------------------------------------- (f) type and shape inference
INF = FACTS['inference']


@pytest.mark.parametrize('case', ['sum_float16', 'sum_float64'])
def test_infer_type_from_one_argument(case):
    facts = INF[case]
    sym = G.typed_sum(mx)
    assert sym.list_arguments() == facts['arguments']
    arg, out, aux = sym.infer_type(**{k: v if case == 'sum_float16' else np.dtype(v).type
                                      for k, v in facts['kwargs'].items()})
    assert dtype_names(arg) == facts['arg_types']
    assert dtype_names(out) == facts['out_types']
    assert dtype_names(aux) == facts['aux_types']


def test_variable_declaring_dtype_and_shape():
    facts = INF['declared_variable']
    sym = G.typed_variable(mx)
    assert sym.list_arguments() == facts['arguments']
    arg, out, _ = sym.infer_type()
    assert dtype_names(arg) == facts['arg_types']
    assert dtype_names(out) == facts['out_types']
    arg, out, _ = sym.infer_shape()
    assert shape_list(arg) == facts['arg_shapes']
    assert shape_list(out) == facts['out_shapes']
    assert_json_structure_equal(sym.tojson(), facts['json'])


def test_infer_type_float64_through_fully_connected():
    facts = INF['two_fc_float64']
    sym = G.two_fc(mx)
    assert sym.list_arguments() == facts['arguments']
    arg, out, _ = sym.infer_type(data='float64')
    assert dtype_names(arg) == facts['arg_types']
    assert dtype_names(out) == facts['out_types']


def test_infer_type_unknown_gives_none():
    sym = G.two_fc(mx)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        result = sym.infer_type()
    assert [x is None for x in result] == INF['two_fc_no_type']['result_is_none']


def test_infer_shape_incomplete_gives_none():
    sym = G.two_fc(mx)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        result = sym.infer_shape(fc1_weight=(10, 7))
    assert [x is None for x in result] == INF['two_fc_incomplete_infer_shape_is_none']


@pytest.mark.parametrize('case,builder,method', [
    ('two_fc_full', G.two_fc, 'infer_shape'),
    ('two_fc_partial_nothing', G.two_fc, 'infer_shape_partial'),
    ('group_partial', G.partial_group, 'infer_shape_partial'),
    ('group_full', G.partial_group, 'infer_shape'),
    ('backward_shape', G.scaled_fc, 'infer_shape'),
    ('convnet_partial_known', G.convnet, 'infer_shape_partial'),
])
def test_shape_inference_cases(case, builder, method):
    facts = INF[case]
    sym = builder(mx)
    for kind in ('arguments', 'outputs'):
        if kind in facts:
            assert getattr(sym, 'list_' + kind)() == facts[kind]
    kwargs = {k: tuple(v) for k, v in facts['kwargs'].items()}
    arg, out, aux = getattr(sym, method)(**kwargs)
    assert shape_list(arg) == facts['arg_shapes']
    assert shape_list(out) == facts['out_shapes']
    if 'aux_shapes' in facts:
        assert shape_list(aux) == facts['aux_shapes']


def test_convnet_infer_type():
    facts = INF['convnet_types']
    arg, out, aux = G.convnet(mx).infer_type(data='float32')
    assert dtype_names(arg) == facts['arg_types']
    assert dtype_names(out) == facts['out_types']
    assert dtype_names(aux) == facts['aux_types']


# ----------------------------------------------------- (g) MXNet's symbol files
SYMBOL_FILES = {'mlp': 'mlp-symbol.json', 'convnet': 'convnet-symbol.json'}


@pytest.mark.parametrize('case', sorted(SYMBOL_FILES))
def test_load_mxnet_symbol_file(case):
    path = os.path.join(GOLDEN, SYMBOL_FILES[case])
    with open(path) as f:
        text = f.read()
    for sym in (mx.sym.load(path), mx.sym.load_json(text)):
        assert names_of(sym) == names_of(GRAPHS[case](mx))
        assert_json_structure_equal(sym.tojson(), text)


def test_mxnet_mlp_file_runs():
    sym = mx.sym.load(os.path.join(GOLDEN, 'mlp-symbol.json'))
    facts = FACTS['mlp']['write'][0]
    exe = sym.simple_bind(mx.cpu(), grad_req='write', data=G.MLP_DATA_SHAPE)
    set_values(exe, mlp_params())
    data, label = mlp_batch(0)
    exe.forward(is_train=True, data=data, softmax_label=label)
    assert_close(exe.outputs[0], facts['output'], 'output of the loaded MLP')
    exe.backward()
    for name, key in facts['grads'].items():
        assert_close(exe.grad_dict[name], key, 'grad of ' + name)


def test_mxnet_convnet_file_runs():
    sym = mx.sym.load(os.path.join(GOLDEN, 'convnet-symbol.json'))
    params, aux, data, label = convnet_inputs()
    exe = sym.simple_bind(mx.cpu(), grad_req='write', data=G.CONV_DATA_SHAPE)
    set_values(exe, params, aux)
    exe.forward(is_train=False, data=data, softmax_label=label)
    assert_close(exe.outputs[0], convnet_step('eval_before')['output'], 'eval output')
    exe.forward(is_train=True, data=data, softmax_label=label)
    assert_close(exe.outputs[0], convnet_step('train_forward')['output'], 'train output')
