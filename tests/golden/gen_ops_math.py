"""Record golden values for reflib's math family from real MXNet 1.9.1: unary math
(unary.py, trig.py, special.py, rounding.py), maximum/minimum/power/hypot/mod in
their same-shape, broadcast and scalar forms (elemwise.py, broadcast.py), the
comparisons and logic (compare.py), add_n, Cast, smooth_l1 and broadcast_like.

Run with a Python that has ``mxnet==1.9.1`` (the tests do not need it):

    cd tests/golden && python gen_ops_math.py

It writes tests/golden/ops_math.npz holding, besides the per-case arrays of
``op_cases.record_cases``, in ``meta``:

* ``partial``: partial shape inference results, ``errors``: shapes MXNet refuses;
* ``symbols``: for Python expressions on two Symbols (``a == 2``, ``2 % a``,
  ``mx.sym.maximum(2, a)``, ...) the node name, operator and parameters MXNet
  makes, or the Python value it returns for two numbers;
* ``helpers``: ``mx.nd.equal/maximum/power/modulo/...`` on numbers and arrays;
* ``dtypes``: operators on integer, float64 and float16 arrays (output dtype and values).
"""

import json
import os
import warnings

import numpy as np
import mxnet as mx

import op_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_math.npz')

nan, inf = np.nan, np.inf
f32 = np.float32
# IEEE edge values: every unary operator is recorded on them too (NaN and inf included)
EDGE = np.array([-2, -1, -0.5, 0, 0.5, 1, 2, nan, inf, -inf], f32)
# halves (where the rounding rules differ), whole numbers, and the float just below 0.5
HALVES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.7, 0.7, -0.0, 3.0, -3.0, 0.49999997], f32)
ABOVE1 = np.array([[1.1, 1.5, 2.0], [2.5, 3.0, 4.0]], f32)
NEAR_ONE = np.array([-0.999, -0.5, 0, 0.3, 0.9, 0.9999], f32)
STEPS = np.array([[-3, -2.5, -1, 0, 0.5, 1], [2.4, 2.5, 3, -2.6, 0.1, -0.1]], f32)   # hard_sigmoid's kinks
# two operands with ties and NaNs on either side
NAN_A = np.array([nan, 1, nan, 2, 0, 1, 2, -1], f32)
NAN_B = np.array([1, nan, nan, 2, 0, 2, 2, 0], f32)
# power: negative and zero bases, zero exponents
POW_BASE = np.array([-2, 2, 0, -1, 0, 1.5, -0.5, 3], f32)
POW_EXP = np.array([2, 2, 2, 0.5, 0, -1, 3, 0], f32)
# mod: every sign combination, a zero divisor, exact multiples
MOD_A = np.array([5, -5, 5, -5, 3, 0, 5.5, -5.5, 6, -6], f32)
MOD_B = np.array([3, 3, -3, -3, 0, 2, 2, 2, 3, -2], f32)
SIGNED = np.array([[0.7, -1.3, 1.9], [-0.6, 1.1, -2.0]], f32)
CAST_VALUES = np.array([[-1.7, -0.5, 0.5], [1.7, 100.6, -100.5]], f32)
CAST_SMALL = np.array([[0.3, 1.7, 2.5], [100.2, 200.9, 0.0]], f32)

UNARY_ON_EDGES = ['rsqrt', 'cbrt', 'rcbrt', 'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh',
                  'arcsinh', 'arccosh', 'arctanh', 'degrees', 'radians', 'log2', 'log10', 'log1p', 'expm1',
                  'gamma', 'gammaln', 'erf', 'erfinv', 'softsign', 'logical_not', 'hard_sigmoid', 'round',
                  'rint', 'fix', 'trunc', 'floor', 'ceil', 'smooth_l1']

CASES = [
    ('rsqrt', {}, [((2, 3), 'positive')]),
    ('cbrt', {}, [(2, 3)]),
    ('rcbrt', {}, [((2, 3), 'positive')]),
    ('sin', {}, [(2, 3)]),
    ('cos', {}, [(2, 3)]),
    ('tan', {}, [((2, 3), 'unit')]),
    ('arcsin', {}, [((2, 3), 'unit')]),
    ('arccos', {}, [((2, 3), 'unit')]),
    ('arctan', {}, [(2, 3)]),
    ('sinh', {}, [(2, 3)]),
    ('cosh', {}, [(2, 3)]),
    ('arcsinh', {}, [(2, 3)]),
    ('arccosh', {}, [ABOVE1]),
    ('arctanh', {}, [((2, 3), 'unit')]),
    ('degrees', {}, [(2, 3)]),
    ('radians', {}, [(2, 3)]),
    ('log2', {}, [((2, 3), 'positive')]),
    ('log10', {}, [((2, 3), 'positive')]),
    ('log1p', {}, [((2, 3), 'positive')]),
    ('expm1', {}, [(2, 3)]),
    ('gamma', {}, [((2, 3), 'positive')]),
    ('gamma', {}, [HALVES]),
    ('gammaln', {}, [((2, 3), 'positive')]),
    ('gammaln', {}, [HALVES]),
    ('erf', {}, [(2, 3)]),
    ('erfinv', {}, [((2, 3), 'unit')]),
    ('erfinv', {}, [NEAR_ONE]),
    ('softsign', {}, [(2, 3)]),
    ('hard_sigmoid', {}, [STEPS]),
    ('hard_sigmoid', {'alpha': 0.3, 'beta': 0.6}, [STEPS]),
    ('smooth_l1', {}, [(2, 4)]),
    ('smooth_l1', {'scalar': 2.0}, [(2, 4)]),
    ('smooth_l1', {'scalar': 0.5}, [(2, 4)]),
    ('round', {}, [HALVES]),
    ('rint', {}, [HALVES]),
    ('fix', {}, [HALVES]),
    ('trunc', {}, [HALVES]),
    ('floor', {}, [HALVES]),
    ('ceil', {}, [HALVES]),
    ('rint', {}, [(2, 4)]),
    ('logical_not', {}, [((2, 3), 'zeros')]),
    # two operands, one shape
    ('_maximum', {}, [((2, 4), 'ties'), ((2, 4), 'ties')]),
    ('_minimum', {}, [((2, 4), 'ties'), ((2, 4), 'ties')]),
    ('_maximum', {}, [NAN_A, NAN_B]),
    ('_minimum', {}, [NAN_A, NAN_B]),
    ('_power', {}, [((2, 3), 'positive'), (2, 3)]),
    ('_power', {}, [POW_BASE, POW_EXP]),
    ('_hypot', {}, [(2, 3), (2, 3)]),
    ('_hypot', {}, [np.array([3, 0, -3, 0], f32), np.array([4, 0, 4, -1], f32)]),
    ('_mod', {}, [(2, 3), SIGNED]),
    ('_mod', {}, [MOD_A, MOD_B]),
    # broadcast forms
    ('broadcast_maximum', {}, [((2, 3), 'ties'), ((1, 3), 'ties')]),
    ('broadcast_minimum', {}, [((2, 1, 3), 'ties'), ((4, 1), 'ties')]),
    ('broadcast_maximum', {}, [NAN_A, NAN_B]),
    ('broadcast_power', {}, [((2, 3), 'positive'), (3,)]),
    ('broadcast_hypot', {}, [(2, 3), (2, 1)]),
    ('broadcast_mod', {}, [(2, 3), SIGNED[:1]]),
    ('broadcast_mod', {}, [MOD_A, MOD_B]),
    # scalar forms
    ('_maximum_scalar', {'scalar': 1.0}, [((2, 4), 'ties')]),
    ('_minimum_scalar', {'scalar': 1}, [((2, 4), 'ties')]),
    ('_maximum_scalar', {'scalar': 1.5}, [NAN_A]),
    ('_minimum_scalar', {'scalar': nan}, [NAN_A]),
    ('_hypot_scalar', {'scalar': -2.0}, [(2, 3)]),
    ('_hypot_scalar', {'scalar': 0.0}, [np.array([0, 1, -1], f32)]),
    ('_mod_scalar', {'scalar': 1.5}, [(2, 4)]),
    ('_mod_scalar', {'scalar': -3}, [MOD_A]),
    ('_mod_scalar', {'scalar': 0}, [MOD_A]),
    ('_rmod_scalar', {'scalar': 3.0}, [SIGNED]),
    ('_rmod_scalar', {'scalar': -5.5}, [MOD_B]),
    ('_power_scalar', {'scalar': 3}, [(2, 3)]),
    ('_power_scalar', {'scalar': 0.5}, [POW_BASE]),
    ('_rpower_scalar', {'scalar': 2.0}, [(2, 3)]),
    ('_rpower_scalar', {'scalar': -2.0}, [POW_BASE]),
    ('_rpower_scalar', {'scalar': 0.0}, [POW_BASE]),
    # sums, casts, broadcast_like
    ('add_n', {}, [(2, 3), (2, 3), (2, 3)]),
    ('ElementWiseSum', {}, [(2, 3), (2, 3)]),
    ('add_n', {}, [(4,)]),
    ('_grad_add', {}, [(2, 3), (2, 3)], {'grad': False}),     # MXNet registers no gradient for it
    ('Cast', {'dtype': 'float64'}, [(2, 3)]),
    ('cast', {'dtype': 'float16'}, [CAST_VALUES]),
    ('Cast', {'dtype': 'int32'}, [CAST_VALUES]),
    ('Cast', {'dtype': 'int8'}, [CAST_VALUES]),
    ('Cast', {'dtype': 'int64'}, [CAST_VALUES]),
    ('Cast', {'dtype': 'uint8'}, [CAST_SMALL]),
    ('Cast', {'dtype': 'float32'}, [(2, 3)]),
    ('broadcast_like', {}, [(1, 3), (2, 3)]),
    ('broadcast_like', {}, [(1, 3, 1), (2, 3, 4)]),
    ('broadcast_like', {'lhs_axes': (0,), 'rhs_axes': (2,)}, [(1, 3), (4, 5, 6)]),
    ('broadcast_like', {'lhs_axes': (0, 2), 'rhs_axes': (1, 0)}, [(1, 3, 1), (4, 5)]),
    ('broadcast_like', {'lhs_axes': (-1,), 'rhs_axes': (-2,)}, [(2, 1), (7, 5)]),
    ('broadcast_like', {'lhs_axes': (0,)}, [(1, 3), (4, 3)]),
]
CASES += [(name, {}, [EDGE]) for name in UNARY_ON_EDGES]

COMPARE_A = np.array([0, 1, 2, nan, -1, 2, 0.5, -0.5], f32)
COMPARE_B = np.array([0, 2, 2, nan, 0, nan, -3, -0.5], f32)
for fn in ['equal', 'not_equal', 'greater', 'greater_equal', 'lesser', 'lesser_equal',
           'logical_and', 'logical_or', 'logical_xor']:
    CASES += [
        ('_' + fn, {}, [COMPARE_A, COMPARE_B]),                         # ties and NaNs
        ('broadcast_' + fn, {}, [((2, 3), 'ties'), ((1, 3), 'ties')]),
        ('_%s_scalar' % fn, {'scalar': 2}, [COMPARE_A]),
    ]
    if fn.startswith('logical'):
        CASES.append(('_%s_scalar' % fn, {'scalar': 0.0}, [COMPARE_A]))


def record_cases(arrays, meta):
    op_cases.record_cases(mx, CASES, arrays, meta)


# partial inference: (name, params, {input: shape} with 0 = unknown, output shape known from elsewhere)
PARTIAL = [
    ('_maximum', {}, {'in0': (2, 0)}, None),
    ('_maximum', {}, {}, (2, 3)),
    ('_hypot', {}, {'in0': (2, 0), 'in1': (0, 3)}, None),
    ('_equal', {}, {'in1': (4, 5)}, None),
    ('_mod_scalar', {'scalar': 2}, {}, (2, 3)),
    ('_greater_scalar', {'scalar': 2}, {'in0': (3, 0)}, None),
    ('broadcast_maximum', {}, {'in0': (2, 0), 'in1': (1, 3)}, None),
    ('broadcast_equal', {}, {'in0': (2, 1), 'in1': (1, 3)}, None),
    ('add_n', {}, {'in0': (2, 0), 'in2': (0, 3)}, None),
    ('add_n', {}, {}, (4, 2)),
    ('Cast', {'dtype': 'int32'}, {}, (2, 3)),
    ('smooth_l1', {}, {}, (2, 3)),
    ('sin', {}, {}, (5,)),
    ('broadcast_like', {}, {'in0': (1, 3)}, None),
    ('broadcast_like', {}, {'in1': (2, 3)}, None),
]

N_INPUTS = {'_maximum': 2, '_hypot': 2, '_equal': 2, 'broadcast_maximum': 2, 'broadcast_equal': 2,
            'add_n': 3, 'broadcast_like': 2}


def record_partial(meta):
    table = []
    for name, params, given, out in PARTIAL:
        variables = [mx.sym.Variable('in%d' % j) for j in range(N_INPUTS.get(name, 1))]
        sym = op_cases.sym_function(mx, name)(*variables, **params)
        head = sym
        if out is not None:
            head = sym + mx.sym.Variable('known')
            given = dict(given, known=out)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            arg_shapes, out_shapes, _ = head.infer_shape_partial(**given)
            args = dict(zip(head.list_arguments(), arg_shapes))
            if out is None:
                _, out_shapes, _ = sym.infer_shape_partial(**given)
        table.append({'op': name, 'params': params, 'given': {k: list(v) for k, v in given.items()},
                      'inputs': [list(args['in%d' % j]) for j in range(len(variables))],
                      'outputs': [list(s) for s in out_shapes]})
    meta['partial'] = table


# shapes MXNet refuses
ERRORS = [
    ('_maximum', {}, [(2, 3), (3, 2)]),
    ('_power', {}, [(2, 3), (2,)]),
    ('_equal', {}, [(2, 3), (2, 4)]),
    ('add_n', {}, [(2, 3), (2, 3), (3, 3)]),
    ('broadcast_maximum', {}, [(2, 3), (3, 2)]),
    ('broadcast_greater', {}, [(2, 3), (4,)]),
    ('broadcast_like', {}, [(2, 3), (4, 3)]),
    ('broadcast_like', {}, [(3,), (2, 3)]),
    ('broadcast_like', {'lhs_axes': (1,), 'rhs_axes': (0,)}, [(1, 3), (4, 3)]),
    ('broadcast_like', {'lhs_axes': (0,), 'rhs_axes': (0,)}, [(2, 3), (2, 3)]),
    ('broadcast_like', {'lhs_axes': (5,), 'rhs_axes': (0,)}, [(1, 3), (4, 3)]),
    ('broadcast_like', {'lhs_axes': (0,), 'rhs_axes': (5,)}, [(1, 3), (4, 3)]),
    ('broadcast_like', {'lhs_axes': (0,), 'rhs_axes': (0, 1)}, [(1, 3), (4, 3)]),
    ('broadcast_like', {'lhs_axes': (), 'rhs_axes': ()}, [(1, 3), (4, 3)]),
]


def record_errors(meta):
    table = []
    for name, params, shapes in ERRORS:
        variables = [mx.sym.Variable('in%d' % j) for j in range(len(shapes))]
        sym = op_cases.sym_function(mx, name)(*variables, **params)
        try:
            sym.infer_shape(**{'in%d' % j: s for j, s in enumerate(shapes)})
        except mx.base.MXNetError as err:
            message = str(err).split('\n')[0]
        else:
            raise AssertionError('MXNet accepted %s %s %s' % (name, params, shapes))
        table.append({'op': name, 'params': params, 'shapes': [list(s) for s in shapes],
                      'mxnet_message': message[-300:]})
    meta['errors'] = table


# Python expressions over Symbols a and b (and numbers): what MXNet's front end builds
SYMBOL_EXPRESSIONS = [
    'a == b', 'a == 2', 'a != b', 'a != 2', 'a > b', 'a > 2', 'a >= b', 'a >= 2', 'a < b', 'a < 2',
    'a <= b', 'a <= 2', '2 < a', '2 == a', '2.5 >= a', 'a % b', 'a % 2', '2 % a', 'a ** b', 'a ** 2',
    '2 ** a', 'a == np.float32(2)',
    'mx.sym.maximum(a, b)', 'mx.sym.maximum(a, 2)', 'mx.sym.maximum(2, a)', 'mx.sym.minimum(a, b)',
    'mx.sym.minimum(3, a)', 'mx.sym.minimum(a, 0.5)', 'mx.sym.hypot(a, b)', 'mx.sym.hypot(3, a)',
    'mx.sym.hypot(a, 3)', 'mx.sym.pow(a, b)', 'mx.sym.pow(2, a)', 'mx.sym.pow(a, 3)', 'mx.sym.power(a, b)',
    'mx.sym.power(2, a)', 'mx.sym.power(a, 2)',
    'mx.sym.maximum(2, 3)', 'mx.sym.minimum(2, 3.5)', 'mx.sym.maximum(2.5, 2.5)', 'mx.sym.hypot(3, 4)',
    'mx.sym.pow(2, 3)', 'mx.sym.power(2.0, -1)',
]
# expressions MXNet refuses with a TypeError
SYMBOL_TYPE_ERRORS = ['a == None', 'a == "x"', 'a < [1]', 'a % "x"', 'mx.sym.maximum(a, "x")',
                      'mx.sym.pow("x", a)', 'mx.sym.hypot(None, 2)']


def record_symbols(meta):
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    table = []
    for expr in SYMBOL_EXPRESSIONS:
        mx.name.NameManager._current.value = mx.name.NameManager()     # fresh counters: _equal0 ...
        value = eval(expr, {'mx': mx, 'np': np, 'a': a, 'b': b})
        if isinstance(value, mx.sym.Symbol):
            node = json.loads(value.tojson())['nodes'][-1]
            table.append({'expr': expr, 'name': value.name, 'op': node['op'], 'attrs': node.get('attrs', {}),
                          'inputs': value.list_arguments()})
        else:
            table.append({'expr': expr, 'value': float(value), 'type': type(value).__name__})
    for expr in SYMBOL_TYPE_ERRORS:
        try:
            eval(expr, {'mx': mx, 'a': a})
        except TypeError:
            continue
        raise AssertionError('MXNet accepted ' + expr)
    meta['symbols'] = table
    meta['symbol_type_errors'] = SYMBOL_TYPE_ERRORS
    meta['symbol_hashable'] = _hashable(a)


def _hashable(obj):
    try:
        hash(obj)
    except TypeError:
        return False
    return True


# mx.nd's helpers on numbers and arrays: (function, lhs, rhs) with arrays given as lists
HELPERS = [
    ('maximum', 2, 3), ('maximum', 2.5, 1), ('minimum', 1, 2.0), ('power', 2, 3), ('power', 2.0, -1),
    ('modulo', 7, 3), ('modulo', -7, 3), ('modulo', 7.5, -2), ('equal', 2, 2), ('equal', 2, 3.0),
    ('not_equal', 1, 1), ('greater', 1, 2), ('greater_equal', 2, 2), ('lesser', 1, 2), ('lesser_equal', 3, 2),
    ('logical_and', 2, 0), ('logical_or', 0, 0.5), ('logical_xor', 2, 0),
    ('maximum', [[1, 5]], [[2], [3]]), ('minimum', [1, 5, 3], 2), ('minimum', 2, [1, 5, 3]),
    ('power', [1, 2, 3], 2), ('power', 2, [1, 2, 3]), ('power', [[1, 2]], [[2], [3]]),
    ('modulo', [5, -5, 7], 3), ('modulo', 7, [2, -3, 4]), ('modulo', [[5, -5]], [[3], [-3]]),
    ('modulo', [5, -5, 7, 0], [3, 0, -2, 0]), ('modulo', 7, [3, 0, -2, 0]), ('modulo', [5, -5], 0),
    ('equal', [1, 2, 3], 2), ('equal', 2, [1, 2, 3]), ('equal', [[1, 2, 3]], [[1], [2]]),
    ('not_equal', [1, 2, 3], 2), ('greater', [1, 2, 3], 2), ('greater', 2, [1, 2, 3]),
    ('greater_equal', [1, 2, 3], 2), ('greater_equal', 2, [1, 2, 3]), ('lesser', [1, 2, 3], 2),
    ('lesser', 2, [1, 2, 3]), ('lesser_equal', [1, 2, 3], 2), ('lesser_equal', 2, [1, 2, 3]),
    ('logical_and', [0, 1, 2], 1), ('logical_or', [0, 1, 0], [[0], [1]]), ('logical_xor', 1, [0, 1, 2]),
]


def record_helpers(meta):
    table = []
    for fn, lhs, rhs in HELPERS:
        args = [mx.nd.array(v) if isinstance(v, list) else v for v in (lhs, rhs)]
        value = getattr(mx.nd, fn)(*args)
        if isinstance(value, mx.nd.NDArray):
            table.append({'fn': fn, 'lhs': lhs, 'rhs': rhs, 'array': value.asnumpy().tolist(),
                          'dtype': value.dtype.__name__})
        else:
            table.append({'fn': fn, 'lhs': lhs, 'rhs': rhs, 'value': value, 'type': type(value).__name__})
    meta['helpers'] = table


# operators on other dtypes: (operator, params, dtype, inputs as lists)
DTYPES = [
    ('_equal_scalar', {'scalar': 2.5}, 'int32', [[1, 2, 3]]),
    ('_greater_scalar', {'scalar': 2.5}, 'int32', [[1, 2, 3]]),
    ('_lesser_scalar', {'scalar': -1.5}, 'int32', [[-2, -1, 0]]),
    ('_maximum_scalar', {'scalar': 1.7}, 'int32', [[0, 1, 2]]),
    ('_equal', {}, 'int32', [[1, 2, 3], [1, 0, 3]]),
    ('broadcast_greater', {}, 'int64', [[[1, 2, 3]], [[2], [1]]]),
    ('_logical_xor', {}, 'int32', [[0, 1, 2], [0, 0, 5]]),
    ('logical_not', {}, 'int32', [[0, 1, -2]]),
    ('_equal', {}, 'float64', [[1, 2, 3], [1, 0, 3]]),
    ('_greater_scalar', {'scalar': 0.1}, 'float16', [[0.0, 0.1, 0.2]]),
    ('_mod', {}, 'int32', [[5, -5, 5, -5, 7], [3, 3, -3, -3, 0]]),
    ('_mod_scalar', {'scalar': 3}, 'int32', [[5, -5, 7]]),
    ('_power', {}, 'int32', [[2, 3, 2, -2], [3, 2, 0, 3]]),
    ('_maximum', {}, 'int32', [[1, 5], [3, 2]]),
    ('floor', {}, 'float64', [[-1.5, 0.5, 2.7]]),
    ('rint', {}, 'float64', [[-2.5, 0.5, 1.5]]),
    ('round', {}, 'float16', [[-2.5, 0.5, 1.5]]),
    ('sin', {}, 'float64', [[0.5, 1.0]]),
    ('Cast', {'dtype': 'bool'}, 'float32', [[0.0, -0.5, 2.0, nan]]),
    ('Cast', {'dtype': 'float32'}, 'int32', [[1, -2, 3]]),
    ('Cast', {'dtype': 'int32'}, 'float64', [[-2.7, 2.7, 0.5]]),
    ('add_n', {}, 'float64', [[1, 2], [3, 4], [5, 6]]),
    ('smooth_l1', {'scalar': 1.0}, 'float64', [[-2.0, 0.5]]),
]


def record_dtypes(meta):
    table = []
    for name, params, dtype, inputs in DTYPES:
        arrays = [mx.nd.array(v, dtype=dtype) for v in inputs]
        fn = getattr(mx.nd, name, None) or getattr(mx.nd._internal, name)
        out = fn(*arrays, **params)
        table.append({'op': name, 'params': params, 'dtype': dtype, 'inputs': inputs,
                      'out': out.asnumpy().astype(np.float64).tolist(), 'out_dtype': np.dtype(out.dtype).name})
    meta['dtypes'] = table


def main():
    assert mx.__version__ == '1.9.1', mx.__version__
    arrays, meta = {}, {'mxnet_version': mx.__version__}
    with np.errstate(all='ignore'):
        record_cases(arrays, meta)
    record_partial(meta)
    record_errors(meta)
    record_symbols(meta)
    record_helpers(meta)
    record_dtypes(meta)
    arrays['meta'] = np.array(json.dumps(meta, sort_keys=True))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d partial, %d errors, %d symbols, %d helpers, %d dtypes, %d bytes'
          % (OUT, len(meta['cases']), len(meta['partial']), len(meta['errors']), len(meta['symbols']),
             len(meta['helpers']), len(meta['dtypes']), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
