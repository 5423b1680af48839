"""Tests for the math family: reflib/operator/{unary,trig,special,rounding,elemwise,broadcast,compare}.py
and the front-end helpers mx.sym.maximum/pow/..., mx.nd.maximum/equal/modulo/... and Symbol's ``== < %``.

1. forward, shapes and input gradients against MXNet 1.9.1's numbers, recorded by
   tests/golden/gen_ops_math.py (tests/golden/ops_math.npz), NaN/inf edge values included;
2. backward against finite differences (``check_op_gradient``, float64) for every
   differentiable operator, away from kinks and poles;
3. shape inference (partial, both directions), shapes MXNet refuses, bad parameters, and
   what the Python front ends build (node names, scalar-vs-tensor operator, dtypes).
"""

import json
import math

import numpy as np
import pytest

import reflib as mx
from reflib.base import ParamError, ShapeError, TypeInferError
from reflib.context import cpu
from reflib.operator import OpEnv
import device
from device import get
from reflib.symbol import NameManager
from reflib.test_utils import check_op_gradient
from op_golden import GoldenCases, infer_shapes

GOLDEN = GoldenCases('ops_math.npz')
META = GOLDEN.meta
ENV = OpEnv(cpu(), is_train=True)


def rand(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


def away_from_kinks(*shape, seed=0, low=-2.0, high=2.0, step=0.5):
    """Values at least 0.05 from every multiple of ``step`` (rounding steps, poles, ties)."""
    x = rand(*shape, seed=seed, low=low, high=high)
    frac = np.mod(x, step)
    return np.where(frac < 0.05, x + 0.1, np.where(frac > step - 0.05, x - 0.1, x))


# ============================================================ golden values from MXNet
@pytest.mark.parametrize('i', GOLDEN.indices(), ids=GOLDEN.ids())
def test_golden_case(i):
    GOLDEN.check(i)


UNARY = ['rsqrt', 'cbrt', 'rcbrt', 'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'arcsinh',
         'arccosh', 'arctanh', 'degrees', 'radians', 'log2', 'log10', 'log1p', 'expm1', 'gamma', 'gammaln', 'erf',
         'erfinv', 'softsign', 'hard_sigmoid', 'smooth_l1', 'round', 'rint', 'fix', 'trunc', 'floor', 'ceil',
         'logical_not']
BINARY = ['maximum', 'minimum', 'power', 'hypot', 'mod']
COMPARE = ['equal', 'not_equal', 'greater', 'greater_equal', 'lesser', 'lesser_equal',
           'logical_and', 'logical_or', 'logical_xor']
SCALAR = (['_%s_scalar' % f for f in ['maximum', 'minimum', 'hypot', 'mod', 'rmod', 'power', 'rpower']]
          + ['_%s_scalar' % f for f in COMPARE])
ALL_OPERATORS = (UNARY + ['_' + f for f in BINARY + COMPARE] + ['broadcast_' + f for f in BINARY + COMPARE]
                 + SCALAR + ['add_n', '_grad_add', 'Cast', 'broadcast_like'])


def test_golden_covers_every_operator():
    recorded = GOLDEN.operator_names()
    missing = [name for name in ALL_OPERATORS if name not in recorded]
    assert not missing


def test_golden_records_edge_values_for_every_unary_operator():
    edge_ops = {c['op'] for i, c in enumerate(GOLDEN.cases) if c['n_in'] == 1 and np.isinf(GOLDEN.inputs(i)[0]).any()}
    assert set(UNARY) <= edge_ops


@pytest.mark.parametrize('alias,name', [
    ('_Maximum', '_maximum'), ('_Minimum', '_minimum'), ('_Power', '_power'), ('_Hypot', '_hypot'), ('_Mod', '_mod'),
    ('_MaximumScalar', '_maximum_scalar'), ('_MinimumScalar', '_minimum_scalar'), ('_HypotScalar', '_hypot_scalar'),
    ('_ModScalar', '_mod_scalar'), ('_RModScalar', '_rmod_scalar'), ('_PowerScalar', '_power_scalar'),
    ('_RPowerScalar', '_rpower_scalar'), ('_Equal', '_equal'), ('_Not_Equal', '_not_equal'),
    ('_Greater', '_greater'), ('_Greater_Equal', '_greater_equal'), ('_Lesser', '_lesser'),
    ('_Lesser_Equal', '_lesser_equal'), ('_Logical_And', '_logical_and'), ('_Logical_Or', '_logical_or'),
    ('_Logical_Xor', '_logical_xor'), ('_EqualScalar', '_equal_scalar'), ('_NotEqualScalar', '_not_equal_scalar'),
    ('_GreaterScalar', '_greater_scalar'), ('_GreaterEqualScalar', '_greater_equal_scalar'),
    ('_LesserScalar', '_lesser_scalar'), ('_LesserEqualScalar', '_lesser_equal_scalar'),
    ('_LogicalAndScalar', '_logical_and_scalar'), ('_LogicalOrScalar', '_logical_or_scalar'),
    ('_LogicalXorScalar', '_logical_xor_scalar'), ('ElementWiseSum', 'add_n'), ('cast', 'Cast')])
def test_aliases(alias, name):
    """MXNet 1.9.1's legacy names (its _sparse_/_npi_ aliases are not part of the symbolic API)."""
    assert get(alias) is get(name) and get(alias).name == name


@pytest.mark.parametrize('case', META['partial'], ids=lambda c: '%s%s' % (c['op'], c['given']))
def test_golden_partial_inference(case):
    n_in = len(case['inputs'])
    given = [tuple(case['given']['in%d' % j]) if 'in%d' % j in case['given'] else None for j in range(n_in)]
    known = case['given'].get('known')
    ins, outs = infer_shapes(case['op'], case['params'], given, [tuple(known)] if known else None)
    # MXNet writes () for unknown; 0 dims are unknown in both
    assert ins == [tuple(s) if s else None for s in case['inputs']]
    assert outs == [tuple(s) if s else None for s in case['outputs']]


@pytest.mark.parametrize('case', META['errors'], ids=lambda c: '%s%s%s' % (c['op'], c['params'], c['shapes']))
def test_golden_shape_errors(case):
    """Shapes MXNet refuses are refused here too, naming the operator and both shapes."""
    with pytest.raises((ShapeError, ParamError)) as info:
        infer_shapes(case['op'], case['params'], [tuple(s) for s in case['shapes']])
    message = str(info.value)
    assert message.startswith(get(case['op']).name + ':'), message
    if 'axes' not in message:
        for shape in case['shapes']:
            assert '(%s' % ','.join(str(d) for d in shape) in message, message


# ============================================================ gradients vs finite differences
GRADIENTS = [
    ('rsqrt', {}, [rand(2, 3, low=0.5)]),
    ('cbrt', {}, [rand(2, 3, low=0.3)]),
    ('rcbrt', {}, [rand(2, 3, low=0.3)]),
    ('sin', {}, [rand(2, 3)]),
    ('cos', {}, [rand(2, 3)]),
    ('tan', {}, [rand(2, 3, low=-1.2, high=1.2)]),
    ('arcsin', {}, [rand(2, 3, low=-0.9, high=0.9)]),
    ('arccos', {}, [rand(2, 3, low=-0.9, high=0.9)]),
    ('arctan', {}, [rand(2, 3)]),
    ('sinh', {}, [rand(2, 3)]),
    ('cosh', {}, [rand(2, 3)]),
    ('arcsinh', {}, [rand(2, 3)]),
    ('arccosh', {}, [rand(2, 3, low=1.2, high=3)]),
    ('arctanh', {}, [rand(2, 3, low=-0.9, high=0.9)]),
    ('degrees', {}, [rand(2, 3)]),
    ('radians', {}, [rand(2, 3)]),
    ('log2', {}, [rand(2, 3, low=0.5)]),
    ('log10', {}, [rand(2, 3, low=0.5)]),
    ('log1p', {}, [rand(2, 3, low=-0.5)]),
    ('expm1', {}, [rand(2, 3)]),
    ('gamma', {}, [away_from_kinks(2, 3, low=-2.5, high=3, step=1.0)]),
    ('gammaln', {}, [away_from_kinks(2, 3, low=-2.5, high=3, step=1.0)]),
    ('erf', {}, [rand(2, 3)]),
    ('erfinv', {}, [rand(2, 3, low=-0.9, high=0.9)]),
    ('softsign', {}, [rand(2, 3)]),
    ('hard_sigmoid', {}, [away_from_kinks(2, 4, low=-4, high=4, step=2.5)]),
    ('hard_sigmoid', {'alpha': 0.3, 'beta': 0.6}, [rand(2, 4)]),
    ('smooth_l1', {}, [away_from_kinks(2, 4, step=1.0)]),
    ('smooth_l1', {'scalar': 2.0}, [away_from_kinks(2, 4, step=0.25)]),
    ('Cast', {'dtype': 'float64'}, [rand(2, 3)]),
    ('_maximum', {}, [rand(2, 3), rand(2, 3, seed=1)]),
    ('_minimum', {}, [rand(2, 3), rand(2, 3, seed=1)]),
    ('_power', {}, [rand(2, 3, low=0.5), rand(2, 3, seed=1)]),
    ('_hypot', {}, [rand(2, 3), rand(2, 3, seed=1)]),
    ('_mod', {}, [away_from_kinks(2, 3, step=0.7), np.full((2, 3), 0.7)]),
    ('_mod', {}, [rand(2, 3, low=0.1, high=0.6), rand(2, 3, seed=1, low=0.7, high=1.0)]),
    ('broadcast_maximum', {}, [rand(2, 3), rand(1, 3, seed=1)]),
    ('broadcast_minimum', {}, [rand(2, 1, 3), rand(4, 1, seed=1)]),
    ('broadcast_power', {}, [rand(2, 3, low=0.5), rand(3, seed=1)]),
    ('broadcast_hypot', {}, [rand(2, 3), rand(2, 1, seed=1)]),
    ('broadcast_mod', {}, [rand(2, 3, low=0.1, high=0.6), rand(1, 3, seed=1, low=0.7, high=1.0)]),
    ('_maximum_scalar', {'scalar': 0.3}, [rand(2, 3)]),
    ('_minimum_scalar', {'scalar': -0.3}, [rand(2, 3)]),
    ('_hypot_scalar', {'scalar': 1.5}, [rand(2, 3)]),
    ('_mod_scalar', {'scalar': 0.7}, [away_from_kinks(2, 3, step=0.7)]),
    ('_rmod_scalar', {'scalar': 0.5}, [rand(2, 3, low=0.6, high=2)]),
    ('_power_scalar', {'scalar': 2.5}, [rand(2, 3, low=0.5)]),
    ('_rpower_scalar', {'scalar': 1.7}, [rand(2, 3)]),
    ('add_n', {'num_args': 3}, [rand(2, 3), rand(2, 3, seed=1), rand(2, 3, seed=2)]),
    ('_grad_add', {}, [rand(2, 3), rand(2, 3, seed=1)]),
    ('broadcast_like', {}, [rand(1, 3), rand(2, 3, seed=1)]),
    ('broadcast_like', {'lhs_axes': (0, 2), 'rhs_axes': (1, 0)}, [rand(1, 3, 1), rand(4, 5, seed=1)]),
]
# piecewise-constant functions: finite differences of a step are zero away from the steps
GRADIENTS += [(name, {}, [away_from_kinks(2, 3)]) for name in ['round', 'rint', 'fix', 'trunc', 'floor', 'ceil',
                                                                  'logical_not']]
GRADIENTS += [('_' + f, {}, [away_from_kinks(2, 3), away_from_kinks(2, 3, seed=1)]) for f in COMPARE]
GRADIENTS += [('broadcast_' + f, {}, [away_from_kinks(2, 3), away_from_kinks(3, seed=1)]) for f in COMPARE]
GRADIENTS += [('_%s_scalar' % f, {'scalar': 0.25}, [away_from_kinks(2, 3)]) for f in COMPARE]


@pytest.mark.parametrize('name,params,inputs', GRADIENTS, ids=['%s%s' % (g[0], g[1]) for g in GRADIENTS])
def test_gradient_matches_finite_differences(name, params, inputs):
    check_op_gradient(name, inputs, params)


def test_every_operator_has_a_finite_difference_check():
    checked = {get(name).name for name, _, _ in GRADIENTS}
    assert set(ALL_OPERATORS) <= checked


def test_cast_gradient_goes_back_to_the_input_dtype():
    op = get('Cast')
    p = op.parse_params({'dtype': 'int32'})
    x = np.array([1.7, -2.5], np.float32)
    out = op.forward(p, ENV, [x], [])[0]
    assert out.dtype == np.int32 and out.tolist() == [1, -2]
    grad = op.backward(p, ENV, [np.array([3, -4], np.int32)], [x], [out], [])[0]
    assert grad.dtype == np.float32 and grad.tolist() == [3, -4]


def test_maximum_and_minimum_ties_give_lhs_the_gradient():
    a, b, g = np.array([1, 2, 3], np.float32), np.array([1, 3, 2], np.float32), np.ones(3, np.float32)
    for name, want_lhs, want_rhs in [('_maximum', [1, 0, 1], [0, 1, 0]), ('_minimum', [1, 1, 0], [0, 0, 1])]:
        op = get(name)
        p = op.parse_params({})
        grads = op.backward(p, ENV, [g], [a, b], op.forward(p, ENV, [a, b], []), [])
        assert grads[0].tolist() == want_lhs and grads[1].tolist() == want_rhs, name


def test_scipy_free_special_functions_match_mxnet(monkeypatch):
    """Without scipy, gamma/gammaln/erfinv and digamma use reflib's own code: same golden numbers."""
    if device.ON_DEVICE:
        pytest.skip('host-only fallback: on a GPU cupyx.scipy.special is always there')
    import reflib.operator.special as special
    monkeypatch.setattr(special, '_special', lambda xp: None)
    cases = [i for i, c in enumerate(GOLDEN.cases) if c['op'] in ('gamma', 'gammaln', 'erfinv')]
    assert len(cases) >= 7
    for i in cases:
        GOLDEN.check(i)


# ============================================================ shapes and parameters
def test_same_shape_operators_infer_in_both_directions():
    assert infer_shapes('_maximum', {}, [None, (2, 3)]) == ([(2, 3), (2, 3)], [(2, 3)])
    assert infer_shapes('_equal', {}, [None, None], [(4, 0)]) == ([(4, 0), (4, 0)], [(4, 0)])
    assert infer_shapes('add_n', {}, [(2, 0), None, (0, 3)]) == ([(2, 3)] * 3, [(2, 3)])


def test_same_shape_error_names_both_inputs_and_the_broadcast_form():
    with pytest.raises(ShapeError) as info:
        infer_shapes('_maximum', {}, [(2, 3), (3, 2)])
    msg = str(info.value)
    assert "_maximum: input 'rhs' has shape (3,2) but input 'lhs' has shape (2,3)" in msg
    assert 'broadcast_maximum' in msg
    with pytest.raises(ShapeError, match=r"add_n: input 'arg2' has shape \(3,3\) but input 'arg0'"):
        infer_shapes('add_n', {}, [(2, 3), (2, 3), (3, 3)])


def test_forward_refuses_shapes_that_do_not_broadcast():
    op = get('broadcast_mod')
    with pytest.raises(ShapeError, match="broadcast_mod: inputs 'lhs' \\(2,3\\) and 'rhs' \\(3,2\\)"):
        op.forward(op.parse_params({}), ENV, [np.zeros((2, 3)), np.ones((3, 2))], [])


def test_bad_parameters_name_the_operator():
    with pytest.raises(ParamError, match="Cast: parameter 'dtype' expects one of"):
        get('Cast').parse_params({'dtype': 'complex64'})
    with pytest.raises(ParamError, match="Cast: required parameter 'dtype'"):
        get('Cast').parse_params({})
    with pytest.raises(ParamError, match="add_n: parameter 'num_args' must be at least 1"):
        get('add_n').parse_params({'num_args': 0})
    with pytest.raises(ParamError, match="_equal_scalar: parameter 'scalar' expects float, got 'x'"):
        get('_equal_scalar').parse_params({'scalar': 'x'})
    with pytest.raises(TypeInferError, match='Cast: dtype bfloat16 is not supported'):
        get('Cast').infer_type(get('Cast').parse_params({'dtype': 'bfloat16'}), [np.float32], [None], [])


def test_types_follow_mxnet():
    cast = get('Cast')
    assert cast.infer_type(cast.parse_params({'dtype': 'float16'}), [None], [None], []) == (
        [None], [np.dtype('float16')], [])
    eq = get('broadcast_equal')
    assert eq.infer_type(eq.parse_params({}), [np.dtype('int32'), None], [None], [])[1] == [np.dtype('int32')]


@pytest.mark.parametrize('case', META['dtypes'], ids=lambda c: '%s-%s' % (c['op'], c['dtype']))
def test_golden_dtypes(case):
    """Integer, float64 and float16 inputs: MXNet's output dtype and values (an int32 array compares
    with the scalar 2.5 as with 2; int mod and power; Cast to bool)."""
    arrays = [mx.nd.array(v, dtype=case['dtype']) for v in case['inputs']]
    out = getattr(mx.nd, case['op'])(*arrays, **case['params'])
    assert np.dtype(out.dtype).name == case['out_dtype']
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), case['out'], rtol=1e-6)


def test_outputs_never_alias_inputs():
    x = rand(2, 3).astype(np.float32)
    for name, params in [('Cast', {'dtype': 'float32'}), ('add_n', {'num_args': 1}), ('_maximum_scalar', {}),
                         ('broadcast_like', {}), ('round', {})]:
        op = get(name)
        p = op.parse_params(params)
        inputs = [x] * len(op.inputs(p))
        out = op.forward(p, ENV, inputs, [])[0]
        assert not np.shares_memory(out, x), name


# ============================================================ the front ends
def _build(expr):
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    with NameManager():
        return eval(expr, {'mx': mx, 'np': np, 'a': a, 'b': b})


@pytest.mark.parametrize('case', META['symbols'], ids=lambda c: c['expr'])
def test_golden_symbol_expressions(case):
    """Symbol's == != < <= > >= % ** and mx.sym.maximum/minimum/hypot/pow/power build MXNet's node
    (name, operator, scalar string), or give MXNet's Python number for two numbers."""
    value = _build(case['expr'])
    if 'value' in case:
        assert not isinstance(value, mx.sym.Symbol)
        assert type(value).__name__ == case['type'] and value == case['value']
        return
    doc = json.loads(value.tojson())['nodes'][-1]
    assert value.name == case['name'] and doc['op'] == case['op']
    assert doc.get('attrs', {}) == case['attrs']
    assert value.list_arguments() == case['inputs']


@pytest.mark.parametrize('expr', META['symbol_type_errors'])
def test_symbol_operands_that_mxnet_refuses(expr):
    with pytest.raises(TypeError):
        _build(expr)


def test_symbols_are_not_hashable_as_in_mxnet():
    assert META['symbol_hashable'] is False
    with pytest.raises(TypeError):
        hash(mx.sym.Variable('a'))


def test_comparison_symbols_evaluate_to_numbers():
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    x, y = np.array([1, 2, 3], np.float32), np.array([3, 2, 1], np.float32)
    expr = mx.sym.Group([a == b, a < 2, 2 < a, a % b, 7 % a, a >= b])
    exe = expr.bind(mx.cpu(), {'a': mx.nd.array(x), 'b': mx.nd.array(y)})
    outs = [o.asnumpy() for o in exe.forward()]
    assert [o.dtype for o in outs] == [np.float32] * 6
    want = [x == y, x < 2, x > 2, np.mod(x, y), np.mod(7, x), x >= y]
    for got, w in zip(outs, want):
        np.testing.assert_array_equal(got, np.asarray(w, np.float32))


@pytest.mark.parametrize('case', META['helpers'], ids=lambda c: '%s(%s,%s)' % (c['fn'], c['lhs'], c['rhs']))
def test_golden_nd_helpers(case):
    """mx.nd.maximum/power/modulo/equal/...: broadcasting op, scalar op or the mirrored scalar op
    by the operands' kinds, as MXNet; two numbers give MXNet's Python number."""
    args = [mx.nd.array(v) if isinstance(v, list) else v for v in (case['lhs'], case['rhs'])]
    value = getattr(mx.nd, case['fn'])(*args)
    if 'value' in case:
        assert type(value).__name__ == case['type'] and value == case['value']
    else:
        assert value.dtype == np.float32
        np.testing.assert_array_equal(value.asnumpy(), np.array(case['array'], np.float32))


NDARRAY_OPERATORS = {'power': '**', 'modulo': '%', 'equal': '==', 'not_equal': '!=', 'greater': '>',
                     'greater_equal': '>=', 'lesser': '<', 'lesser_equal': '<='}


@pytest.mark.parametrize('case', [c for c in META['helpers'] if c['fn'] in NDARRAY_OPERATORS and 'array' in c],
                         ids=lambda c: '%s(%s,%s)' % (c['fn'], c['lhs'], c['rhs']))
def test_ndarray_operators_match_the_helpers(case):
    """MXNet's NDArray ``** % == != > >= < <=`` are its nd.power/modulo/equal/... helpers: the same
    numbers (a zero divisor gives 0, not numpy's NaN)."""
    lhs, rhs = [mx.nd.array(v) if isinstance(v, list) else v for v in (case['lhs'], case['rhs'])]
    value = eval('lhs %s rhs' % NDARRAY_OPERATORS[case['fn']])
    assert value.dtype == np.float32
    np.testing.assert_array_equal(value.asnumpy(), np.array(case['array'], np.float32))


def test_nd_helpers_refuse_other_operands():
    with pytest.raises(TypeError):
        mx.nd.maximum(mx.nd.array([1, 2]), 'a')
    with pytest.raises(TypeError):
        mx.sym.maximum(mx.sym.Variable('a'), 'a')


def test_ndarray_comparisons_agree_with_the_operators():
    x = mx.nd.array([1, 2, 3], dtype='int32')
    assert (x == 2.5).dtype == np.int32 and (x == 2.5).asnumpy().tolist() == [0, 1, 0]
    assert mx.nd.equal(x, 2.5).asnumpy().tolist() == [0, 1, 0]
    assert mx.nd.greater(2, x).asnumpy().tolist() == [1, 0, 0]
    f = mx.nd.array([0.5, math.nan])
    assert (f != f).asnumpy().tolist() == [0, 1]


def test_math_graph_through_the_executor():
    """Several of the operators in one bound graph (a float64 stretch between two Casts, a comparison
    as a mask, a scalar maximum, mod, broadcast_like): forward and gradients against numpy and
    central differences of the same formula."""
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    widened = mx.sym.Cast(mx.sym.Cast(mx.sym.maximum(a, 0.5), dtype=np.float64) * 3, dtype='float32')
    out = (mx.sym.smooth_l1(mx.sym.hypot(a, b), scalar=2.0) * (a > 0) + widened + a % b
           + mx.sym.broadcast_like(mx.sym.sum(a, axis=0, keepdims=True), b))

    def reference(x, y):
        h = np.hypot(x, y)
        smooth = np.where(h < 0.25, 2 * h * h, h - 0.125)
        return smooth * (x > 0) + np.maximum(x, 0.5) * 3 + np.mod(x, y) + x.sum(0, keepdims=True) + 0 * y

    x = np.array([[0.3, -1.2, 0.9], [1.4, 0.2, -0.6]])
    y = np.array([[0.7, 1.1, -0.8], [0.5, -1.3, 0.9]])
    exe = out.simple_bind(mx.cpu(), a=x.shape, b=y.shape)
    exe.arg_dict['a'][:], exe.arg_dict['b'][:] = x, y
    np.testing.assert_allclose(exe.forward(is_train=True)[0].asnumpy(), reference(x, y), rtol=1e-5)
    exe.backward([mx.nd.ones(x.shape)])
    eps = 1e-4
    for name, wrt in (('a', 0), ('b', 1)):
        numeric = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            step = np.zeros_like(x)
            step[idx] = eps
            plus = reference(*[(x, y)[k] + (step if k == wrt else 0) for k in (0, 1)]).sum()
            minus = reference(*[(x, y)[k] - (step if k == wrt else 0) for k in (0, 1)]).sum()
            numeric[idx] = (plus - minus) / (2 * eps)
        np.testing.assert_allclose(exe.grad_dict[name].asnumpy(), numeric, rtol=1e-4, atol=1e-5, err_msg=name)


@pytest.mark.parametrize('dtype,grad_a,grad_b', [('int32', [0, 0, 0], [0, 0, 0]),
                                                 ('float32', [1, 1, 1], [-2, 3, 3])])
def test_mod_has_no_gradient_for_integers(dtype, grad_a, grad_b):
    # MXNet 1.9.1 on a = [7, -7, 5], b = [3, 3, -2], a head gradient of ones
    a, b = mx.sym.var('a'), mx.sym.var('b')
    for net in (mx.sym.cast(a, dtype=dtype) % mx.sym.cast(b, dtype=dtype),
                mx.sym.broadcast_mod(mx.sym.cast(a, dtype=dtype), mx.sym.cast(b, dtype=dtype))):
        exe = net.simple_bind(mx.cpu(), a=(3,), b=(3,))
        exe.forward(is_train=True, a=mx.nd.array([7, -7, 5]), b=mx.nd.array([3, 3, -2]))
        exe.backward(mx.nd.ones(3, dtype=dtype))
        assert exe.outputs[0].asnumpy().tolist() == [1, 2, -1]
        assert exe.grad_dict['a'].asnumpy().tolist() == grad_a
        assert exe.grad_dict['b'].asnumpy().tolist() == grad_b
