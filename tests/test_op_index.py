"""Tests for indexing, slicing, layout, ordering, the newer reductions and the range creators
(reflib/operator/{indexing,slicing,layout,ordering,reduce,creation}.py).

1. forward outputs, input gradients, output names and inferred shapes against golden values
   recorded from MXNet 1.9.1 by tests/golden/gen_ops_index.py (ops_index.npz);
2. backward against finite differences (``check_op_gradient``, float64) for every input that
   has a gradient;
3. shape and dtype inference, and clear errors for bad input;
4. MXNet's particular choices (index rules per mode, tie order, NaN handling) pinned.
"""

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError, ParamError, ShapeError
from reflib.context import cpu
from reflib.operator import OpEnv
from device import get
from reflib.operator.indexing import IndexRangeError
from reflib.test_utils import check_op_gradient, op_forward
from op_golden import GoldenCases, infer_shapes

GOLDEN = GoldenCases('ops_index.npz')
ENV = OpEnv(cpu(), is_train=True)


def rand(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


def distinct(*shape, seed=0):
    """Values well apart: no ties for sort/topk, no element near 0."""
    n = int(np.prod(shape))
    return np.random.default_rng(seed).permutation((np.arange(n) - n / 2.0 + 0.5) * 0.37).reshape(shape)


def run(name, inputs, params=None):
    return op_forward(name, [np.asarray(x, dtype=np.float32) for x in inputs], params)[0]


def error_of(name, inputs, params=None, kind=MXNetError):
    with pytest.raises(kind) as info:
        run(name, inputs, params)
    return str(info.value)


# ============================================================ golden values from MXNet
@pytest.mark.parametrize('i', GOLDEN.indices(), ids=GOLDEN.ids())
def test_golden_case(i):
    GOLDEN.check(i)


ADDED = ['take', 'pick', 'one_hot', 'gather_nd', 'scatter_nd', 'slice', 'slice_axis', 'slice_like', 'Crop',
         'tile', 'repeat', 'stack', 'squeeze', 'reshape_like', 'diag', 'depth_to_space', 'space_to_depth',
         'sort', 'argsort', 'topk', 'argmax', 'argmin', 'argmax_channel', 'norm', 'moments', 'prod',
         'nansum', 'nanprod', '_np_cumsum', '_arange', '_linspace', '_eye', '_histogram']


def test_golden_covers_every_operator():
    missing = set(ADDED) - GOLDEN.operator_names()
    assert not missing, missing


@pytest.mark.parametrize('alias,name', [('crop', 'slice'), ('choose_element_0index', 'pick')])
def test_aliases(alias, name):
    assert get(alias) is get(name) and get(alias).name == name


def test_every_added_operator_is_in_both_front_ends():
    for name in ADDED + ['batch_take']:
        front = mx.sym._internal if name.startswith('_') else mx.sym
        assert hasattr(front, name) and hasattr(mx.nd, name), name


# ============================================================ gradients vs finite differences
IDX = np.array([2.0, 0.0, 2.7, 1.0])          # repeats, and a fraction cut toward zero
GRADIENTS = [
    ('take', {}, [rand(3, 2), IDX], [0]),
    ('take', {'axis': 1, 'mode': 'wrap'}, [rand(2, 3, 2), np.array([[-1.0, 4.0], [0.0, 3.5]])], [0]),
    ('take', {'axis': -1, 'mode': 'clip'}, [rand(2, 3), np.array([-2.0, 5.0, 1.0])], [0]),
    ('pick', {}, [rand(3, 4), np.array([0.0, 3.0, 1.0])], [0]),
    ('pick', {'axis': 0, 'keepdims': True, 'mode': 'wrap'}, [rand(3, 2, 2), np.array([[4.0, -1.0], [0.0, 2.0]])], [0]),
    ('gather_nd', {}, [rand(3, 4, 2), np.array([[0.0, 2.0, 2.0], [1.0, -1.0, 1.0]])], [0]),
    ('scatter_nd', {'shape': (3, 2)}, [rand(3), np.array([[0.0, 2.0, 1.0], [1.0, 0.0, 1.0]])], [0]),
    ('slice', {'begin': (None, 2), 'end': (-1, None), 'step': (None, -1)}, [rand(3, 4)], None),
    ('slice', {'begin': (1,), 'end': (3,)}, [rand(4, 2)], None),
    ('slice_axis', {'axis': 1, 'begin': -2, 'end': None}, [rand(2, 3)], None),
    ('slice_like', {'axes': (0,)}, [rand(3, 2), rand(2, 5)], [0]),
    ('Crop', {'num_args': 1, 'h_w': (2, 2), 'offset': (1, 0)}, [rand(1, 2, 3, 3)], None),
    ('Crop', {'num_args': 2, 'center_crop': True}, [rand(1, 1, 4, 3), rand(1, 1, 2, 1)], [0]),
    ('tile', {'reps': (2, 1, 3)}, [rand(2, 2)], None),
    ('repeat', {'repeats': 2}, [rand(2, 3)], None),
    ('repeat', {'repeats': 3, 'axis': -1}, [rand(2, 2)], None),
    ('stack', {'axis': 1, 'num_args': 3}, [rand(2, 2), rand(2, 2, seed=1), rand(2, 2, seed=2)], None),
    ('squeeze', {'axis': (0,)}, [rand(1, 3, 1)], None),
    ('reshape_like', {'lhs_begin': 1, 'rhs_begin': 1}, [rand(2, 6), rand(5, 3, 2)], [0]),
    ('diag', {'k': -1}, [rand(3)], None),
    ('diag', {'k': 1}, [rand(3, 4)], None),
    ('diag', {'axis1': 2, 'axis2': 0}, [rand(2, 3, 3)], None),
    ('depth_to_space', {'block_size': 2}, [rand(1, 8, 2, 1)], None),
    ('space_to_depth', {'block_size': 2}, [rand(1, 2, 2, 4)], None),
    ('sort', {}, [distinct(3, 4)], None),
    ('sort', {'axis': None, 'is_ascend': False}, [distinct(2, 3)], None),
    ('topk', {'k': 2, 'ret_typ': 'value'}, [distinct(3, 4)], None),
    ('topk', {'k': 2, 'axis': 0, 'ret_typ': 'both', 'is_ascend': True}, [distinct(3, 2)], None),
    ('norm', {}, [rand(2, 3)], None),
    ('norm', {'axis': (1,), 'keepdims': True}, [rand(2, 3)], None),
    ('norm', {'ord': 1, 'axis': (0,)}, [distinct(3, 2)], None),
    ('moments', {'axes': (1,)}, [rand(2, 3)], None),
    ('_np_cumsum', {}, [rand(2, 3)], None),
    ('_np_cumsum', {'axis': 2}, [rand(2, 3, 2)], None),
    ('moments', {'axes': (0, 2), 'keepdims': True}, [rand(2, 3, 2)], None),
    ('prod', {'axis': (1,)}, [rand(2, 3, low=0.5)], None),
    ('prod', {}, [distinct(2, 3)], None),
    ('nansum', {'axis': (1,)}, [np.array([[1.0, np.nan, -2.0], [np.nan, 0.5, 3.0]])], None),
    ('nanprod', {'axis': (0,)}, [np.array([[1.5, np.nan, -2.0], [np.nan, 0.5, 3.0]])], None),
]


@pytest.mark.parametrize('name,params,inputs,which', GRADIENTS, ids=['%s%s' % (g[0], g[1]) for g in GRADIENTS])
def test_gradient_matches_finite_differences(name, params, inputs, which):
    # index inputs are positions, not differentiable: only the data inputs are checked
    check_op_gradient(name, inputs, params, grad_inputs=which)


def test_batch_take_has_no_gradient_as_in_mxnet():
    """MXNet 1.9.1 registers no gradient for batch_take (its test_zero_prop2): binding a graph
    that needs one through it is refused; behind BlockGrad it binds and runs."""
    taken = mx.sym.batch_take(mx.sym.var('x'), mx.sym.var('idx'), name='bt')
    shapes = dict(x=(3, 4), idx=(3,), type_dict={'x': np.float32, 'idx': np.int32})
    with pytest.raises(mx.base.BindError, match=r"operator 'bt' \(batch_take\), which has none"):
        taken.simple_bind(mx.cpu(), **shapes)
    exe = mx.sym.stop_gradient(taken).simple_bind(mx.cpu(), **shapes)
    exe.forward(is_train=True, x=mx.nd.array(np.arange(12).reshape(3, 4)), idx=mx.nd.array([0, 5, 2]))
    exe.backward()
    assert exe.outputs[0].asnumpy().tolist() == [0, 7, 10]       # 5 is clipped to the last column
    assert not exe.grad_dict['x'].asnumpy().any()
    assert taken.simple_bind(mx.cpu(), grad_req='null', **shapes).outputs[0].shape == (3,)


@pytest.mark.parametrize('name,params,inputs', [
    ('take', {}, [rand(3, 2), IDX]),
    ('pick', {}, [rand(3, 4), np.array([0.0, 3.0, 1.0])]),
    ('one_hot', {'depth': 3}, [IDX]),
    ('argsort', {}, [distinct(2, 3)]),
    ('argmax', {'axis': 1}, [distinct(2, 3)]),
    ('topk', {'k': 2}, [distinct(2, 3)]),
    ('topk', {'k': 2, 'ret_typ': 'mask'}, [distinct(2, 3)]),
], ids=lambda v: v if isinstance(v, str) else '')
def test_index_and_position_gradients_are_zero(name, params, inputs):
    op = get(name)
    p = op.parse_params(params)
    outs = op.forward(p, ENV, inputs, [])
    grads = op.backward(p, ENV, [np.ones_like(o) for o in outs], inputs, outs, [])
    assert all(g is None or not np.any(g) for g in grads[len(inputs) - 1 if name in ('take', 'pick') else 0:])


# ============================================================ index rules, pinned from MXNet 1.9.1
A34 = np.arange(12, dtype=np.float32).reshape(3, 4)
ODD = [-1, 0, 3, 5, 2.7, -4.5]


def test_take_clip_and_wrap_out_of_range():
    assert run('take', [A34, ODD])[0][:, 0].tolist() == [0, 0, 8, 8, 8, 0]
    assert run('take', [A34, ODD], {'mode': 'wrap'})[0][:, 0].tolist() == [8, 0, 0, 8, 8, 8]


def test_take_raise_checks_the_index_before_cutting_it():
    assert run('take', [A34, [1.5, 0, 2]], {'mode': 'raise'})[0][:, 0].tolist() == [4, 0, 8]
    for bad in ([2.5], [-0.5], [3]):
        msg = error_of('take', [A34, bad], {'mode': 'raise'}, IndexRangeError)
        assert msg.startswith('take:') and "'indices'" in msg and 'size 3' in msg


def test_pick_clip_wrap_and_fractions():
    assert run('pick', [A34, [0, 5, -1]], {'axis': 1})[0].tolist() == [0, 7, 8]
    assert run('pick', [A34, [0, 5, -1]], {'axis': 1, 'mode': 'wrap'})[0].tolist() == [0, 5, 11]
    assert run('pick', [A34, [0.7, 2.5, -1.5]], {'axis': 1, 'mode': 'wrap'})[0].tolist() == [0, 6, 11]


def test_one_hot_out_of_range_rows_are_off():
    out = run('one_hot', [[0, 2, -1, 3, 1.7, -0.5]], {'depth': 3})[0]
    assert out.tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0], [0, 1, 0], [1, 0, 0]]


def test_gather_nd_negative_coordinates_and_bounds():
    d = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    assert run('gather_nd', [d, [[1, 0], [2, -1]]])[0][:, 0].tolist() == [20, 8]
    msg = error_of('gather_nd', [d, [[1, 5], [2, 7]]], kind=IndexRangeError)
    assert 'gather_nd' in msg and 'axis 0 with size 2' in msg


def test_scatter_nd_refuses_what_mxnet_writes_outside_the_array():
    msg = error_of('scatter_nd', [[1, 2], [[0, 5], [1, 1]]], {'shape': (2, 3)}, IndexRangeError)
    assert 'scatter_nd' in msg and 'axis 0' in msg


def test_argmax_first_of_ties_and_nan_wins():
    t = np.array([[3, 1, 2, 1, 3], [0, 0, 5, 5, -1]], np.float32)
    assert run('argmax', [t], {'axis': 1})[0].tolist() == [0, 2]
    assert run('argmin', [t], {'axis': 1})[0].tolist() == [1, 4]
    assert run('argmax', [t])[0].tolist() == [7]
    nan = np.array([1, np.nan, 3], np.float32)
    assert run('argmax', [nan], {'axis': 0})[0].tolist() == [1] == run('argmin', [nan], {'axis': 0})[0].tolist()


def test_sort_keeps_ties_in_input_order_both_ways():
    """MXNet 1.9.1 on short rows: [1,1,1,2,2,0,0,1] argsorts stably, ascending and descending."""
    x = [[1, 1, 1, 2, 2, 0, 0, 1]]
    assert run('argsort', [x])[0].tolist() == [[5, 6, 0, 1, 2, 7, 3, 4]]
    assert run('argsort', [x], {'is_ascend': False})[0].tolist() == [[3, 4, 0, 1, 2, 7, 5, 6]]


def test_topk_k_zero_keeps_all_and_too_large_is_refused():
    x = distinct(2, 4)
    assert run('topk', [x], {'k': 0, 'ret_typ': 'mask'})[0].sum() == 8
    with pytest.raises(ShapeError, match='k=5'):
        infer_shapes('topk', {'k': 5}, [(2, 4)])


def test_prod_gradient_at_zeros_is_nan_as_in_mxnet():
    x = np.array([[2, 0, 3], [0, 0, 1], [1, 2, 3]], np.float32)
    op = get('prod')
    p = op.parse_params({'axis': 1})
    grad = op.backward(p, ENV, [np.ones(3, np.float32)], [x], op.forward(p, ENV, [x], []), [])[0]
    np.testing.assert_array_equal(grad, [[0, np.nan, 0], [np.nan, np.nan, 0], [6, 3, 2]])


def test_nan_reductions_of_all_nan_rows():
    x = np.array([[np.nan, np.nan], [1, np.nan]], np.float32)
    assert run('nansum', [x], {'axis': 1})[0].tolist() == [0, 1]
    assert run('nanprod', [x], {'axis': 1})[0].tolist() == [1, 1]


def test_histogram_values_on_edges_match_mxnet():
    h = GOLDEN.meta['histogram_edges']
    counts, bounds = run('_histogram', [h['data']], {'bin_cnt': h['bin_cnt'], 'range': tuple(h['range'])})
    assert counts.dtype == np.int64 and counts.tolist() == h['counts']
    np.testing.assert_array_equal(bounds, np.float32(h['bounds']))


def test_histogram_counts_as_numpy_does_and_skips_nan_and_outliers():
    # the counts come from positions in the sorted data (no mask, no bincount): the same
    # bins as numpy's, right edge in the last bin, NaN and values outside the range nowhere
    rng = np.random.RandomState(4)
    x = np.round(rng.uniform(-1.5, 3.5, 400), 1).astype(np.float32)
    x[::37] = np.nan
    counts, _ = run('_histogram', [x], {'bin_cnt': 5, 'range': (0, 2)})
    expected, _ = np.histogram(x[~np.isnan(x)], bins=5, range=(0, 2))
    assert counts.tolist() == expected.tolist()
    counts, _ = run('_histogram', [x, np.float32([-1, 0, 0.5, 3])], {})
    expected, _ = np.histogram(x[~np.isnan(x)], bins=np.float32([-1, 0, 0.5, 3]))
    assert counts.tolist() == expected.tolist()


def test_arange_infer_range_takes_the_length_from_the_graph():
    case = GOLDEN.meta['infer_range']
    x = mx.sym.Variable('x')
    sym = mx.sym.arange(start=case['start'], step=case['step'], infer_range=True, repeat=case['repeat']) * x
    exe = sym.simple_bind(mx.cpu(), x=(case['length'],))
    exe.arg_dict['x'][:] = 1
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), np.float32(case['values']))


def test_creation_helpers_match_the_operators():
    np.testing.assert_array_equal(mx.nd.linspace(2, 3, 5).asnumpy(), np.float32([2, 2.25, 2.5, 2.75, 3]))
    assert mx.nd.eye(2, 3, 1, dtype='int32').asnumpy().tolist() == [[0, 1, 0], [0, 0, 1]]
    counts, edges = mx.nd.histogram(mx.nd.array([0.1, 0.5, 1, 2, 2.5, -1, 3]), bins=3, range=(0, 3))
    assert counts.asnumpy().tolist() == [2, 1, 3] and edges.asnumpy().tolist() == [0, 1, 2, 3]
    assert mx.sym.eye(3, k=1).infer_shape()[1] == [(3, 3)]
    assert mx.sym.histogram(mx.sym.var('x'), bins=4, range=(0, 2)).infer_shape(x=(5,))[1] == [(4,), (5,)]
    with pytest.raises(ValueError, match='range'):
        mx.sym.histogram(mx.sym.var('x'), bins=4)


# ============================================================ shape and dtype inference
@pytest.mark.parametrize('name,params,given,want_in,want_out', [
    ('take', {'axis': 1}, [(3, 4), (2, 5)], [(3, 4), (2, 5)], [(3, 2, 5)]),
    ('pick', {'axis': 1}, [(2, 3, 4), None], [(2, 3, 4), (2, 4)], [(2, 4)]),
    ('one_hot', {'depth': 3}, [(0, 2)], [(0, 2)], [(0, 2, 3)]),
    ('scatter_nd', {'shape': (2, 3, 4)}, [None, (2, 5)], [(5, 4), (2, 5)], [(2, 3, 4)]),
    ('slice', {'begin': (0, 1), 'end': (None, 3)}, [(0, 4)], [(0, 4)], [(0, 2)]),
    ('slice_like', {'axes': (1,)}, [(3, 4), (0, 2)], [(3, 4), (0, 2)], [(3, 2)]),
    ('repeat', {'repeats': 2, 'axis': 1}, [(0, 3)], [(0, 3)], [(0, 6)]),
    ('stack', {'axis': 1}, [(2, 3), (0, 3)], [(2, 3), (2, 3)], [(2, 2, 3)]),
    ('squeeze', {}, [(1, 0, 3)], [(1, 0, 3)], [None]),
    ('topk', {'k': 2, 'axis': None, 'ret_typ': 'both'}, [(3, 4)], [(3, 4)], [(2,), (2,)]),
    ('argmax', {'keepdims': True}, [(2, 3, 4)], [(2, 3, 4)], [(1, 1, 1)]),
    ('argmax_channel', {}, [(2, 3, 4, 5)], [(2, 3, 4, 5)], [(2, 4, 5)]),
    ('moments', {'axes': (0, 1)}, [(2, 3)], [(2, 3)], [(1,), (1,)]),
    ('norm', {'axis': (0, 2)}, [(2, 3, 4)], [(2, 3, 4)], [(3,)]),
])
def test_shape_inference(name, params, given, want_in, want_out):
    ins, outs = infer_shapes(name, params, given)
    assert ins == want_in and outs == want_out


def test_stack_infers_inputs_from_the_output():
    ins, _ = infer_shapes('stack', {'axis': -1}, [None, None], [(2, 3, 2)])
    assert ins == [(2, 3), (2, 3)]


@pytest.mark.parametrize('name,params,in_types,want', [
    ('argsort', {'dtype': 'int64'}, ['float32'], ['int64']),
    ('topk', {'ret_typ': 'both', 'dtype': 'int32'}, ['float64'], ['float64', 'int32']),
    ('topk', {'ret_typ': 'mask', 'dtype': 'int32'}, ['float64'], ['float64']),
    ('argmax', {'axis': 0}, ['float64'], ['float64']),
    ('one_hot', {'depth': 3, 'dtype': 'int64'}, ['float32'], ['int64']),
    ('norm', {'out_dtype': 'float64'}, ['float32'], ['float64']),
    ('_histogram', {'bin_cnt': 3, 'range': (0, 1)}, ['float32'], ['int64', 'float32']),
    ('take', {}, ['float64', None], ['float64']),
])
def test_type_inference(name, params, in_types, want):
    op = get(name)
    p = op.parse_params(params)
    _, outs, _ = op.infer_type(p, [None if t is None else np.dtype(t) for t in in_types], [None] * len(want), [])
    assert [np.dtype(t).name for t in outs] == want


def test_sort_and_topk_output_names_follow_mxnet():
    x = mx.sym.var('x')
    assert mx.sym.sort(x, name='s').list_outputs() == ['s_output0']
    assert mx.sym.topk(x, name='t', ret_typ='value').list_outputs() == ['t_output0']
    assert mx.sym.topk(x, name='t', ret_typ='both').list_outputs() == ['t_output0', 't_output1']
    assert mx.sym.topk(x, name='t').list_outputs() == ['t_output']
    assert mx.sym.moments(x, axes=(0,), name='m').list_outputs() == ['m_output0', 'm_output1']


def test_slice_params_round_trip_through_json():
    s = mx.sym.slice(mx.sym.var('x'), begin=(0, None), end=(None, -1), step=(1, None))
    back = mx.sym.load_json(s.tojson())
    assert back.infer_shape(x=(3, 4))[1] == [(3, 3)]


# ============================================================ bad input: clear messages
@pytest.mark.parametrize('name,params,shapes,fragment', [
    ('take', {'axis': 2}, [(3, 4), (2,)], 'axis=2'),
    ('pick', {'axis': None}, [(3, 4), (3,)], 'axis=None'),
    ('gather_nd', {}, [(2, 3), (3, 4)], 'M=3'),
    ('slice', {'begin': (0, 0), 'end': (1,)}, [(2, 3)], 'same length'),
    ('slice', {'begin': (0,), 'end': (1,), 'step': (0,)}, [(2, 3)], 'step'),
    ('slice', {'begin': (0, 0, 0), 'end': (1, 1, 1)}, [(2, 3)], '3 axes'),
    ('slice_axis', {'axis': 1, 'begin': 2, 'end': 1}, [(2, 3)], 'non-empty'),
    ('slice_axis', {'axis': 1, 'begin': 0, 'end': 5}, [(2, 3)], 'within'),
    ('slice_like', {}, [(2, 3), (2,)], 'one ndim'),
    ('slice_like', {'axes': (0,)}, [(2, 3), (3, 3)], 'longer'),
    ('Crop', {'num_args': 1, 'h_w': (2, 3), 'offset': (4, 0)}, [(2, 1, 5, 6)], 'offset'),
    ('Crop', {'num_args': 1}, [(2, 1, 5, 6)], 'h_w'),
    ('Crop', {'num_args': 1, 'h_w': (2, 2)}, [(1, 5, 6)], '4-d'),
    ('stack', {'axis': 3}, [(2, 3), (2, 3)], 'axis=3'),
    ('squeeze', {'axis': (1,)}, [(1, 3)], 'size 3'),
    ('reshape_like', {}, [(2, 3), (5,)], '6 elements'),
    ('diag', {'k': 5}, [(3, 4)], 'k=5'),
    ('diag', {'axis1': 1, 'axis2': 1}, [(3, 4)], 'same axis'),
    ('depth_to_space', {'block_size': 2}, [(1, 6, 2, 2)], 'block_size**2'),
    ('space_to_depth', {'block_size': 2}, [(1, 6, 3, 2)], 'divide'),
    ('depth_to_space', {'block_size': 2}, [(6, 2, 2)], '4-d'),
    ('argmax', {'axis': 3}, [(2, 3, 4)], 'axis=3'),
    ('argmax_channel', {}, [(3,)], 'axis=1'),
    ('norm', {'ord': 3}, [(2, 3)], 'ord=3'),
    ('moments', {}, [(2, 3)], 'axes'),
    ('_np_cumsum', {'axis': -1}, [(2, 3)], 'not a negative one'),
    ('_np_cumsum', {'axis': 2}, [(2, 3)], 'axis'),
    ('_histogram', {'bin_cnt': 3}, [(4,)], 'range'),
])
def test_bad_shapes_and_params_are_refused_clearly(name, params, shapes, fragment):
    with pytest.raises((ShapeError, ParamError)) as info:
        infer_shapes(name, params, shapes)
    msg = str(info.value)
    assert get(name).name in msg and fragment in msg, msg


@pytest.mark.parametrize('params,fragment', [
    ({'start': 1, 'stop': 1}, 'empty range'), ({'start': 3, 'stop': 1}, 'empty range'),
    ({'start': 0, 'step': 0}, 'step'),
])
def test_arange_refuses_empty_ranges(params, fragment):
    with pytest.raises(ParamError, match=fragment):
        infer_shapes('_arange', params, [])


@pytest.mark.parametrize('name,params', [
    ('repeat', {'repeats': -1}), ('tile', {'reps': (0, 2)}), ('one_hot', {'depth': -1}),
    ('topk', {'ret_typ': 'values'}), ('take', {'mode': 'nearest'}),
])
def test_bad_parameter_values_name_the_operator(name, params):
    with pytest.raises(ParamError) as info:
        get(name).parse_params(params)
    assert name in str(info.value)
