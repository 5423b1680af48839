"""Tests for the assignment and encoding operators (reflib/operator/assign.py): _slice_assign
(_crop_assign), _slice_assign_scalar (_crop_assign_scalar), fill_element_0index, _onehot_encode.

1. forward results against MXNet 1.9.1's, recorded by tests/golden/gen_ops_assign.py
   (ops_assign.npz) in every dtype MXNet accepts, on the operator and through mx.nd;
2. no gradient, as in MXNet 1.9.1: binding a graph that needs one is refused, autograd's
   backward fails, and behind BlockGrad (or with grad_req='null') the graph runs;
3. shape and type inference (partial shapes included) against MXNet's, and a clear error,
   naming the operator and the input, for every call MXNet refuses;
4. the calls MXNet's own test_ndarray makes (``out=`` the input), and computing in place.
"""

import json
import os

import numpy as np
import pytest

import reflib as mx
from reflib.base import BindError, MXNetError, ParamError, ShapeError, TypeInferError
from reflib.operator import OpEnv
from device import CTX, get
from op_golden import GOLDEN_DIR, infer_shapes

with np.load(os.path.join(GOLDEN_DIR, 'ops_assign.npz')) as _npz:
    ARRAYS = {k: _npz[k] for k in _npz.files}
META = json.loads(str(ARRAYS['meta']))
CASES = META['cases']
OPERATORS = ['_slice_assign', '_slice_assign_scalar', 'fill_element_0index', '_onehot_encode']


def inputs_of(i):
    return [ARRAYS['c%d_in%d' % (i, j)] for j in range(CASES[i]['n_in'])]


def python_params(case):
    """The parameters as the case passed them to MXNet (JSON turned tuples into lists)."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in case['params'].items()}


def same(got, want, what):
    got = np.asarray(got)
    assert got.dtype == want.dtype, '%s: dtype %s, MXNet gives %s' % (what, got.dtype, want.dtype)
    assert got.shape == want.shape, '%s: shape %s, MXNet gives %s' % (what, got.shape, want.shape)
    np.testing.assert_array_equal(got, want, err_msg=what)


IDS = ['%d-%s%s-%s' % (i, c['call'], c['params'], inputs_of(i)[0].dtype) for i, c in enumerate(CASES)]


# ============================================================ golden values from MXNet
@pytest.mark.parametrize('i', range(len(CASES)), ids=IDS)
def test_operator_gives_mxnets_result(i):
    """The operator itself, from the parameter strings MXNet writes into a symbol's JSON."""
    case = CASES[i]
    op = get(case['call'])
    assert op is get(case['op']) and op.name == case['op']
    p = op.parse_params(case['attrs'])
    xs = inputs_of(i)
    before = [x.copy() for x in xs]
    want = ARRAYS['c%d_out' % i]
    assert infer_shapes(case['call'], case['attrs'], [x.shape for x in xs])[1] == [want.shape]
    outs = op.forward(p, OpEnv(CTX), xs, [])
    same(outs[0], want, case['call'])
    for x, x0 in zip(xs, before):          # a new array: the inputs are left alone
        np.testing.assert_array_equal(x, x0)


@pytest.mark.parametrize('i', range(len(CASES)), ids=IDS)
def test_nd_call_gives_mxnets_result(i):
    """The same call through mx.nd._internal / mx.nd, with the parameters as Python values."""
    case = CASES[i]
    front = mx.nd._internal if case['call'].startswith('_') else mx.nd
    arrays = [mx.nd.array(x, dtype=x.dtype) for x in inputs_of(i)]
    got = getattr(front, case['call'])(*arrays, **python_params(case))
    same(got.asnumpy(), ARRAYS['c%d_out' % i], case['call'])


def test_golden_covers_every_operator_and_dtype():
    assert {c['op'] for c in CASES} == set(OPERATORS)
    dtypes = {inputs_of(i)[0].dtype.name for i, c in enumerate(CASES) if c['op'].startswith('_slice')}
    assert {'float32', 'float64', 'int32', 'int64', 'uint8', 'float16'} <= dtypes
    assert {c['call'] for c in CASES} >= {'_crop_assign', '_crop_assign_scalar'}


@pytest.mark.parametrize('alias,name', [('_crop_assign', '_slice_assign'),
                                        ('_crop_assign_scalar', '_slice_assign_scalar')])
def test_aliases(alias, name):
    assert get(alias) is get(name) and get(alias).name == name


def test_reachable_where_mxnet_reaches_them():
    for name in ['_slice_assign', '_crop_assign', '_slice_assign_scalar', '_crop_assign_scalar', '_onehot_encode']:
        assert hasattr(mx.nd._internal, name) and hasattr(mx.sym._internal, name), name
    assert hasattr(mx.nd, 'fill_element_0index') and hasattr(mx.sym, 'fill_element_0index')


def test_parameters_in_mxnets_order():
    """Positional parameters follow MXNet's generated signatures."""
    assert list(get('_slice_assign').params) == ['begin', 'end', 'step']
    assert list(get('_slice_assign_scalar').params) == ['scalar', 'begin', 'end', 'step']
    assert get('fill_element_0index').inputs(None) == ['lhs', 'mhs', 'rhs']
    assert get('_onehot_encode').inputs(None) == ['lhs', 'rhs']


def test_symbol_json_matches_mxnets():
    """The node MXNet writes for _crop_assign: its canonical name and parameter strings."""
    case = next(c for c in CASES if c['call'] == '_crop_assign')
    sym = mx.sym._internal._crop_assign(mx.sym.var('in0'), mx.sym.var('in1'), **python_params(case))
    node = json.loads(sym.tojson())['nodes'][-1]
    assert node['op'] == '_slice_assign' and node['attrs'] == case['attrs']
    assert sym.list_arguments() == ['in0', 'in1']


# ============================================================ index rules pinned
def test_index_rules_of_the_row_operators():
    """An index is cut toward zero; -1 or less, the width or more and NaN leave the row alone
    (fill) or give a row of zeros (onehot), as the golden cases show MXNet doing."""
    lhs = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([-0.99, 3.99, -1.0], np.float32)
    out = get('fill_element_0index').forward(None, OpEnv(CTX), [lhs, np.float32([7, 8, 9]), idx], [])[0]
    assert np.asarray(out).tolist() == [[7, 1, 2, 3], [4, 5, 6, 8], [8, 9, 10, 11]]
    idx = np.array([np.nan, 4.0, 2.5], np.float32)
    out = get('_onehot_encode').forward(None, OpEnv(CTX), [idx, np.ones((3, 4), np.float32)], [])[0]
    assert np.asarray(out).tolist() == [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 0]]


def test_scalar_is_cast_as_c_casts_it():
    """Toward zero, then wrapped into an integer type's range (MXNet: 300 -> 44 in uint8)."""
    x = mx.nd.zeros((4,), dtype='uint8')
    got = mx.nd._internal._slice_assign_scalar(x, scalar=-3, begin=(0,), end=(2,))
    got = mx.nd._internal._slice_assign_scalar(got, scalar=300.9, begin=(2,), end=(None,))
    assert got.asnumpy().tolist() == [253, 253, 44, 44]
    got = mx.nd._internal._slice_assign_scalar(mx.nd.zeros((2,), dtype='int32'), scalar=-2.7, begin=(1,), end=(2,))
    assert got.asnumpy().tolist() == [0, -2]


# ============================================================ no gradient, as in MXNet
@pytest.mark.parametrize('name', OPERATORS)
def test_mxnet_registers_no_gradient(name):
    assert not get(name).differentiable
    assert 'non-differentiable' in META['no_gradient']['autograd_' + name]


@pytest.mark.parametrize('name', ['_slice_assign', '_slice_assign_scalar'])
def test_binding_a_gradient_through_is_refused(name):
    assert 'non-differentiable' in META['no_gradient']['bind_' + name]
    if name == '_slice_assign':
        sym = mx.sym._internal._slice_assign(mx.sym.var('lhs'), mx.sym.var('rhs'), begin=(0,), end=(1,), name='sa')
        shapes = {'lhs': (2, 3), 'rhs': (1, 3)}
    else:
        sym = mx.sym._internal._slice_assign_scalar(mx.sym.var('data'), scalar=1, begin=(0,), end=(1,), name='sa')
        shapes = {'data': (2, 3)}
    with pytest.raises(BindError, match=r"operator 'sa' \(%s\), which has none" % name):
        sym.simple_bind(CTX, **shapes)
    assert META['no_gradient']['bind_null_' + name]
    exe = sym.simple_bind(CTX, grad_req='null', **shapes)
    assert exe.forward()[0].shape == (2, 3)


def test_behind_blockgrad_the_graph_trains():
    x, r = mx.sym.var('x'), mx.sym.var('r')
    net = mx.sym.BlockGrad(mx.sym._internal._slice_assign(x * 2, r, begin=(None, 1), end=(None, 2))) + x
    exe = net.simple_bind(CTX, x=(2, 3), r=(2, 1))
    exe.forward(is_train=True, x=mx.nd.array([[1, 2, 3], [4, 5, 6]]), r=mx.nd.array([[-1], [-2]]))
    assert exe.outputs[0].asnumpy().tolist() == [[3, 1, 9], [12, 3, 18]]
    exe.backward(mx.nd.ones((2, 3)))
    assert exe.grad_dict['x'].asnumpy().tolist() == [[1, 1, 1], [1, 1, 1]]
    assert not exe.grad_dict['r'].asnumpy().any()


@pytest.mark.parametrize('name', OPERATORS)
def test_autograd_backward_through_them_fails(name):
    idx, vals = mx.nd.array([0, 3, 1]), mx.nd.array([5, 6, 7])
    calls = {
        '_slice_assign': lambda a: mx.nd._internal._slice_assign(a, mx.nd.zeros((1, 4)), begin=(0,), end=(1,)),
        '_slice_assign_scalar': lambda a: mx.nd._internal._slice_assign_scalar(a, scalar=2, begin=(0,), end=(1,)),
        'fill_element_0index': lambda a: mx.nd.fill_element_0index(a, vals, idx),
        '_onehot_encode': lambda a: mx.nd._internal._onehot_encode(idx, a),
    }
    a = mx.nd.ones((3, 4))
    a.attach_grad()
    with mx.autograd.record():
        y = calls[name](a)
    with pytest.raises(MXNetError, match='%s is not differentiable' % name):
        y.backward()


# ============================================================ inference
def _sym_infer(key):
    lhs, rhs, data, y = mx.sym.var('lhs'), mx.sym.var('rhs'), mx.sym.var('data'), mx.sym.var('y')
    assign = mx.sym._internal._slice_assign(lhs, rhs, begin=(0, 1), end=(2, None), step=(1, 2))
    scalar = mx.sym._internal._slice_assign_scalar(data, scalar=3.5, begin=(None, -1), end=(None, None))
    return {
        'lhs': lambda: assign.infer_shape_partial(lhs=(2, 3, 4)),
        'rhs_only': lambda: assign.infer_shape_partial(rhs=(2, 1, 4)),
        'lhs_batch_unknown': lambda: assign.infer_shape_partial(lhs=(0, 3, 4)),
        'lhs_sliced_axis_unknown': lambda: assign.infer_shape_partial(lhs=(2, 0, 4)),
        'from_output': lambda: (assign + y).infer_shape_partial(y=(2, 3)),
        'scalar': lambda: scalar.infer_shape_partial(data=(2, 3)),
        'scalar_from_output': lambda: (scalar + y).infer_shape_partial(y=(2, 3)),
        'lhs_float64': lambda: assign.infer_type(lhs='float64'),
        'rhs_int32': lambda: assign.infer_type(rhs='int32'),
        'scalar_int32': lambda: scalar.infer_type(data='int32'),
        'mixed_refused': lambda: assign.infer_type(lhs='float16', rhs='float32'),
    }[key]()


@pytest.mark.parametrize('key', sorted(META['infer']['shapes']))
def test_shape_inference_as_mxnet(key):
    got = [[list(s) if s is not None else [] for s in group] for group in _sym_infer(key)]
    assert got == META['infer']['shapes'][key]


@pytest.mark.parametrize('key', sorted(META['infer']['types']))
def test_type_inference_as_mxnet(key):
    want = META['infer']['types'][key]
    if isinstance(want, str):               # MXNet refuses it
        with pytest.raises(TypeInferError):
            _sym_infer(key)
        return
    got = [[np.dtype(t).name for t in group] for group in _sym_infer(key)]
    assert got == want


@pytest.mark.parametrize('name,params,in_shapes,want', [
    ('_slice_assign', {'begin': (0, 1), 'end': (2, None), 'step': (1, 2)}, [(2, 3, 4), None],
     ([(2, 3, 4), (2, 1, 4)], [(2, 3, 4)])),
    ('_slice_assign', {'begin': (None,), 'end': (None,), 'step': (-2,)}, [(5, 2), None],
     ([(5, 2), (3, 2)], [(5, 2)])),
    ('_slice_assign', {'begin': (), 'end': ()}, [(2, 3), (2, 3)], ([(2, 3), (2, 3)], [(2, 3)])),
    ('_slice_assign', {'begin': (0,), 'end': (1,)}, [None, (1, 3)], ([None, (1, 3)], [None])),
    ('_slice_assign_scalar', {'begin': (-1,), 'end': (None,)}, [(4, 2)], ([(4, 2)], [(4, 2)])),
    ('fill_element_0index', {}, [(3, 4), None, None], ([(3, 4), (3,), (3,)], [(3, 4)])),
    ('fill_element_0index', {}, [None, (3,), None], ([None, (3,), (3,)], [None])),
    ('_onehot_encode', {}, [None, (5, 7)], ([(5,), (5, 7)], [(5, 7)])),
    ('_onehot_encode', {}, [(5,), None], ([(5,), None], [None])),
])
def test_shape_inference_fills_in(name, params, in_shapes, want):
    assert infer_shapes(name, params, in_shapes) == want


def test_row_operators_are_float32_only():
    sym = mx.sym.fill_element_0index(mx.sym.var('a'), mx.sym.var('b'), mx.sym.var('c'))
    assert [np.dtype(t).name for t in sym.infer_type(a='float32')[0]] == ['float32'] * 3
    with pytest.raises(TypeInferError, match="fill_element_0index: input 'lhs' is float64.*float32 only"):
        sym.infer_type(a='float64')
    onehot = mx.sym._internal._onehot_encode(mx.sym.var('i'), mx.sym.var('t'))
    assert [np.dtype(t).name for t in onehot.infer_type()[1]] == ['float32']


# ============================================================ errors
X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
L, V, I = np.arange(12, dtype=np.float32).reshape(3, 4), np.float32([-1, -2, -3]), np.float32([0, 3, 1])
ONES = np.ones((3, 4), np.float32)


def zeros(*shape):
    return np.zeros(shape, np.float32)

# label in META['errors'] -> (operator, inputs, params, error class, what the message says)
ERRORS = {
    'rhs_wrong_shape': ('_slice_assign', [X, zeros(2, 2, 3)], {'begin': (0, 0, 0), 'end': (2, 1, 3)},
                        ShapeError, r"input 'rhs' has shape \(2,2,3\), but .* region of shape \(2,1,3\)"),
    'rhs_not_broadcast': ('_slice_assign', [X, zeros(1, 1, 1)], {'begin': (0, 0), 'end': (2, 3)},
                          ShapeError, r"'rhs' has shape \(1,1,1\), but .* shape \(2,3,4\) of input 'lhs'"),
    'rhs_fewer_dims': ('_slice_assign', [X, zeros(2, 3)], {'begin': (0, 0), 'end': (2, 3)},
                       ShapeError, r"'rhs' has shape \(2,3\)"),
    'region_clipped': ('_slice_assign', [X, zeros(2, 1, 3)], {'begin': (0, 0, 0), 'end': (2, 1, 7)},
                       ShapeError, r"end=\(2, 1, 7\) select a region of shape \(2,1,4\)"),
    'region_past_end': ('_slice_assign', [X, zeros(2, 1, 4)], {'begin': (0, 5), 'end': (2, 6)},
                        ShapeError, r"region of shape \(2,0,4\)"),
    'begin_after_end': ('_slice_assign', [X, zeros(2, 1, 4)], {'begin': (0, 2), 'end': (2, 1)},
                        ShapeError, r"region of shape \(2,0,4\)"),
    'too_many_axes': ('_slice_assign', [X, zeros(2, 1, 3)], {'begin': (0, 0, 0, 0), 'end': (2, 1, 3, 1)},
                      ShapeError, r"_slice_assign: begin=\(0, 0, 0, 0\) addresses 4 axes, but input 'lhs'"),
    'begin_end_lengths': ('_slice_assign', [X, zeros(2, 1, 4)], {'begin': (0, 0, 0), 'end': (2, 1)},
                          ParamError, 'same length'),
    'step_length': ('_slice_assign', [X, zeros(2, 1, 4)], {'begin': (0, 0), 'end': (2, 1), 'step': (1,)},
                    ParamError, 'length of begin'),
    'step_zero': ('_slice_assign', [X, zeros(2, 1, 3)], {'begin': (0, 0, 0), 'end': (2, 1, 3),
                                                             'step': (1, 0, 1)}, ParamError, 'nonzero'),
    'rhs_other_dtype': ('_slice_assign', [X, zeros(2, 1, 3).astype(np.float64)], {'begin': (0, 0, 0),
                                                                                'end': (2, 1, 3)},
                        TypeInferError, "input 'rhs' is float64"),
    'scalar_step_zero': ('_slice_assign_scalar', [X], {'scalar': 1, 'begin': (0,), 'end': (1,), 'step': (0,)},
                         ParamError, '_slice_assign_scalar: step=.* nonzero'),
    'scalar_too_many_axes': ('_slice_assign_scalar', [X], {'scalar': 1, 'begin': (0, 0, 0, 0), 'end': (1, 1, 1, 1)},
                             ShapeError, "input 'data'"),
    'scalar_past_end_accepted': ('_slice_assign_scalar', [X], {'scalar': 1, 'begin': (5,), 'end': (6,)}, None, None),
    'fill_mhs_2d': ('fill_element_0index', [L, V[None], I], {}, ShapeError, "input 'mhs' must be 1-d"),
    'fill_lhs_1d': ('fill_element_0index', [V, V, I], {}, ShapeError, "input 'lhs' must be 2-d"),
    'fill_lhs_3d': ('fill_element_0index', [np.ones((3, 2, 2), np.float32), V, I], {}, ShapeError,
                    "input 'lhs' must be 2-d"),
    'fill_rhs_short': ('fill_element_0index', [L, V, I[:2]], {}, ShapeError, 'one row count'),
    'fill_mhs_short': ('fill_element_0index', [L, V[:2], I], {}, ShapeError, 'one row count'),
    'fill_float64': ('fill_element_0index', [L.astype(np.float64), V.astype(np.float64), I.astype(np.float64)], {},
                     TypeInferError, "input 'lhs' is float64"),
    'fill_int32_index': ('fill_element_0index', [L, V, I.astype(np.int32)], {}, TypeInferError,
                         "input 'rhs' is int32"),
    'onehot_float64_index': ('_onehot_encode', [I.astype(np.float64), ONES], {}, TypeInferError,
                             "input 'lhs' is float64"),
    'onehot_float64_target': ('_onehot_encode', [I, ONES.astype(np.float64)], {}, TypeInferError,
                              "input 'rhs' is float64"),
    'onehot_int32_index': ('_onehot_encode', [I.astype(np.int32), ONES], {}, TypeInferError, "input 'lhs' is int32"),
    'onehot_short': ('_onehot_encode', [I[:2], ONES], {}, ShapeError, r"holds 2 indices, but input 'rhs' \(3,4\)"),
    'onehot_2d_index': ('_onehot_encode', [I[None], ONES], {}, ShapeError, "input 'lhs' must be 1-d"),
    'onehot_3d_target': ('_onehot_encode', [I, np.ones((3, 2, 2), np.float32)], {}, ShapeError,
                         "input 'rhs' must be 2-d"),
    'onehot_1d_target': ('_onehot_encode', [I, np.ones((3,), np.float32)], {}, ShapeError, "input 'rhs' must be 2-d"),
}


def test_error_table_covers_mxnets():
    assert set(META['errors']) == set(ERRORS) | {'fill_out_float64', 'fill_out_wrong_shape'}


@pytest.mark.parametrize('label', sorted(ERRORS))
def test_refused_where_mxnet_refuses(label):
    name, xs, params, kind, message = ERRORS[label]
    arrays = [mx.nd.array(x, dtype=x.dtype) for x in xs]
    front = mx.nd._internal if name.startswith('_') else mx.nd
    if kind is None:                          # MXNet accepts it
        assert META['errors'][label] is None
        getattr(front, name)(*arrays, **params).wait_to_read()
        return
    assert META['errors'][label] is not None, 'MXNet accepts %s' % label
    with pytest.raises(kind, match=message) as info:
        getattr(front, name)(*arrays, **params).wait_to_read()
    assert name in str(info.value)


def test_out_of_the_wrong_dtype_or_shape_is_refused():
    assert META['errors']['fill_out_float64'] and META['errors']['fill_out_wrong_shape']
    lhs, v, i = mx.nd.array(L), mx.nd.array(V), mx.nd.array(I)
    with pytest.raises(TypeInferError, match='out= has dtype float64'):
        mx.nd.fill_element_0index(lhs, v, i, out=mx.nd.zeros((3, 4), dtype='float64'))
    with pytest.raises(ShapeError, match=r'out= has shape \(3, 5\)'):
        mx.nd.fill_element_0index(lhs, v, i, out=mx.nd.zeros((3, 5)))


def test_symbol_shape_errors_name_the_input():
    sym = mx.sym._internal._slice_assign(mx.sym.var('lhs'), mx.sym.var('rhs'), begin=(0,), end=(1,))
    with pytest.raises(ShapeError, match=r"input 'rhs' has shape \(2,3\), but begin=\(0,\), end=\(1,\) select "
                                         r"a region of shape \(1,3\) of input 'lhs' \(2,3\)"):
        sym.infer_shape(lhs=(2, 3), rhs=(2, 3))


# ============================================================ out=, in place
def test_mxnets_test_ndarray_calls():
    """test_ndarray's crop assignments, written back into the input with out=."""
    calls = META['out_calls']
    x = mx.nd.ones((2, 3, 4))
    returned = mx.nd._internal._crop_assign(x, mx.nd.zeros((2, 1, 3)), begin=(0, 0, 0), end=(2, 1, 3), out=x)
    assert returned is x and x.asnumpy().tolist() == calls['crop_assign']
    x = mx.nd.ones((2, 3, 4))
    mx.nd._internal._crop_assign_scalar(x, scalar=5, begin=(0, 0, 0), end=(2, 1, 3), out=x)
    assert x.asnumpy().tolist() == calls['crop_assign_scalar']
    lhs = mx.nd.array(np.arange(12).reshape(3, 4))
    mx.nd.fill_element_0index(lhs, mx.nd.array([5, 6, 7]), mx.nd.array([0, 0, 3]), out=lhs)
    assert lhs.asnumpy().tolist() == calls['fill_into_lhs']
    other = mx.nd.zeros((3, 4))
    mx.nd.fill_element_0index(lhs, mx.nd.array([-5, -6, -7]), mx.nd.array([1, 1, 1]), out=other)
    assert other.asnumpy().tolist() == calls['fill_into_other']


def test_onehot_encode_internal_call():
    """What mx.nd.onehot_encode(indices, out) runs: the target is both the input and out=."""
    target = mx.nd.ones((3, 4)) * 9
    returned = mx.nd._internal._onehot_encode(mx.nd.array([2, 0, 3]), target, out=target)
    assert returned is target and target.asnumpy().tolist() == META['out_calls']['onehot_encode']


def test_onehot_encode_function():
    target = mx.nd.ones((3, 4)) * 9
    returned = mx.nd.onehot_encode(mx.nd.array([2, 0, 3]), target)
    assert target.asnumpy().tolist() == META['out_calls']['onehot_encode']
    assert (returned is target) == META['out_calls']['onehot_encode_returns_out']


@pytest.mark.parametrize('name,params,xs', [
    ('_slice_assign', {'begin': (None, 1), 'end': (None, None), 'step': (None, 2)},
     [np.arange(8, dtype=np.float32).reshape(2, 4), -np.ones((2, 2), np.float32)]),
    ('_slice_assign_scalar', {'scalar': 7, 'begin': (-1,), 'end': (None,)},
     [np.arange(8, dtype=np.int32).reshape(2, 4)]),
])
def test_computes_into_the_planned_memory_even_when_it_is_lhs(name, params, xs):
    op = get(name)
    assert op.inplace(None) == [(0, 0)]
    p = op.parse_params(params)
    want = np.asarray(op.forward(p, OpEnv(CTX), [x.copy() for x in xs], [])[0])
    for shared in (True, False):
        ins = [x.copy() for x in xs]
        env = OpEnv(CTX)
        env.out = [ins[0] if shared else np.zeros_like(xs[0])]
        got = op.forward(p, env, ins, [])[0]
        assert got is env.out[0]
        np.testing.assert_array_equal(got, want)


def test_an_executor_may_run_it_in_place():
    x, r = mx.sym.var('x'), mx.sym.var('r')
    net = mx.sym._internal._slice_assign(x + 1, r, begin=(None, -1), end=(None, None)) * 2
    exe = net.simple_bind(CTX, grad_req='null', x=(2, 3), r=(2, 1))
    exe.forward(x=mx.nd.array([[1, 2, 3], [4, 5, 6]]), r=mx.nd.array([[0], [-1]]))
    assert exe.outputs[0].asnumpy().tolist() == [[4, 6, 0], [10, 12, -2]]
