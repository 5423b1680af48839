"""Tests for reflib/operator/{shape,reduce,broadcast,unary,creation,sequence}.py: shape ops, reductions, broadcasting, unary math.

Three kinds of checks per operator:

1. forward against a plain numpy expression;
2. backward against finite differences (``check_op_gradient``, in float64);
3. forward outputs and input gradients against golden values recorded from
   MXNet 1.9.1 by tests/golden/gen_ops_tensor.py (tests/golden/ops_tensor.npz),
   compared at float32 tolerance.  The same file holds MXNet's answers for
   hundreds of reshape code combinations, for partial shape inference and for
   shapes MXNet rejects.  MXNet itself is not needed here.
"""


import numpy as np
import pytest
from hypothesis import given, strategies as st

import reflib as mx
from reflib.base import ParamError, ShapeError
from reflib.context import cpu
from reflib.operator import OpEnv
from device import get
from reflib.operator.shape import reshape_target
from reflib.test_utils import check_op_gradient, op_forward
from op_golden import GoldenCases, infer_shapes

GOLDEN = GoldenCases('ops_tensor.npz')
ARRAYS, META = GOLDEN.arrays, GOLDEN.meta
RTOL, ATOL = 1e-5, 1e-6
ENV = OpEnv(cpu(), is_train=True)


def rand(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


def run(op_name, inputs, params=None):
    """Forward one operator on float32 copies of ``inputs``; returns the outputs."""
    outs, _ = op_forward(op_name, [np.asarray(x, dtype=np.float32) for x in inputs], params)
    return outs


infer = infer_shapes


# ============================================================ golden values from MXNet
CASES = META['cases']


@pytest.mark.parametrize('i', range(len(CASES)),
                         ids=['%d-%s%s' % (i, c['alias'], c['attrs']) for i, c in enumerate(CASES)])
def test_golden_case(i):
    GOLDEN.check(i, rtol=RTOL, atol=ATOL)


def test_golden_covers_every_operator():
    names = {c['op'] for c in CASES}
    for name in ['Flatten', 'Reshape', 'Concat', 'SliceChannel', 'transpose', 'expand_dims', 'BlockGrad',
                 '_copy', 'sum', 'mean', 'max', 'min', 'broadcast_add', 'broadcast_sub', 'broadcast_mul',
                 'broadcast_div', 'broadcast_to', 'broadcast_axis', 'exp', 'log', 'sqrt', 'square', 'abs',
                 'negative', 'reciprocal', 'sign', 'relu', 'sigmoid', 'tanh', 'clip', 'reverse', 'SwapAxis', 'SequenceMask', 'SequenceLast',
                 'SequenceReverse', 'ones_like', 'zeros_like', 'where']:
        assert name in names, name


@pytest.mark.parametrize('alias,name', [
    ('flatten', 'Flatten'), ('reshape', 'Reshape'), ('concat', 'Concat'), ('split', 'SliceChannel'),
    ('stop_gradient', 'BlockGrad'), ('identity', '_copy'), ('sum_axis', 'sum'), ('max_axis', 'max'),
    ('min_axis', 'min'), ('broadcast_plus', 'broadcast_add'), ('broadcast_minus', 'broadcast_sub'),
    ('broadcast_axes', 'broadcast_axis'), ('flip', 'reverse'), ('swapaxes', 'SwapAxis')])
def test_aliases(alias, name):
    assert get(alias) is get(name)
    assert get(alias).name == name


def test_golden_reshape_table():
    """Hundreds of (shape, codes, reverse) combinations against MXNet's NDArray.reshape."""
    assert len(META['reshape']) > 250
    for src, codes, reverse, want in META['reshape']:
        if want is None:
            with pytest.raises(ShapeError):
                reshape_target(src, codes, reverse)
        else:
            assert reshape_target(src, codes, reverse) == tuple(want), (src, codes, reverse)


@pytest.mark.parametrize('case', META['partial'], ids=lambda c: '%s%s' % (c['op'], c['params']))
def test_golden_partial_inference(case):
    n_in = len(case['inputs'])
    given_in = [tuple(case['given']['in%d' % j]) if 'in%d' % j in case['given'] else None
                for j in range(n_in)]
    n_out = len(infer(case['op'], case['params'], given_in)[1])
    known = case['given'].get('known')
    out_shapes = [tuple(known)] + [None] * (n_out - 1) if known else None
    ins, outs = infer(case['op'], case['params'], given_in, out_shapes)
    assert ins == [tuple(s) if s else None for s in case['inputs']]
    assert outs == [tuple(s) if s else None for s in case['outputs']]


@pytest.mark.parametrize('case', META['errors'], ids=lambda c: '%s%s%s' % (c['op'], c['params'], c['shapes']))
def test_golden_shape_errors(case):
    """Shapes MXNet rejects in infer_shape are rejected here too, with a message naming the operator."""
    with pytest.raises((ShapeError, ParamError)) as info:
        infer(case['op'], case['params'], [tuple(s) for s in case['shapes']])
    assert get(case['op']).name in str(info.value)


# ============================================================ forward vs numpy
X = rand(2, 3, 4, seed=1)
A23 = rand(2, 3, seed=2)

FORWARD = [
    ('Flatten', {}, [X], lambda x: x.reshape(2, 12)),
    ('Flatten', {}, [rand(5)], lambda x: x.reshape(5, 1)),
    ('Reshape', {'shape': (4, -1)}, [X], lambda x: x.reshape(4, 6)),
    ('Reshape', {'shape': (0, -1)}, [X], lambda x: x.reshape(2, 12)),
    ('Reshape', {'shape': (-3, 0)}, [X], lambda x: x.reshape(6, 4)),
    ('Reshape', {'shape': (-4, 2, -1, 4, 3), 'reverse': False}, [rand(4, 4, 3)], lambda x: x.reshape(2, 2, 4, 3)),
    ('Reshape', {'shape': (-1, 0), 'reverse': True}, [X], lambda x: x.reshape(6, 4)),
    ('Concat', {'num_args': 2}, [A23, rand(2, 5)], lambda a, b: np.concatenate([a, b], axis=1)),
    ('Concat', {'num_args': 3, 'dim': 0}, [A23, A23, rand(1, 3)], lambda a, b, c: np.concatenate([a, b, c])),
    ('SliceChannel', {'num_outputs': 2, 'axis': 2}, [X], lambda x: [x[:, :, :2], x[:, :, 2:]]),
    ('SliceChannel', {'num_outputs': 2, 'axis': 0, 'squeeze_axis': True}, [X], lambda x: [x[0], x[1]]),
    ('transpose', {}, [X], lambda x: x.transpose()),
    ('transpose', {'axes': (0, 2, 1)}, [X], lambda x: x.transpose(0, 2, 1)),
    ('expand_dims', {'axis': 0}, [A23], lambda x: x[None]),
    ('expand_dims', {'axis': -2}, [A23], lambda x: x[:, None, :]),
    ('BlockGrad', {}, [A23], lambda x: x),
    ('_copy', {}, [A23], lambda x: x),
    ('sum', {}, [X], lambda x: x.sum().reshape(1)),
    ('sum', {'axis': (0, -1)}, [X], lambda x: x.sum(axis=(0, 2))),
    ('sum', {'axis': 1, 'keepdims': True, 'exclude': True}, [X], lambda x: x.sum(axis=(0, 2), keepdims=True)),
    ('mean', {'axis': 2}, [X], lambda x: x.mean(axis=2)),
    ('max', {'axis': (1,)}, [X], lambda x: x.max(axis=1)),
    ('min', {'keepdims': True}, [X], lambda x: x.min(keepdims=True)),
    ('broadcast_add', {}, [A23, rand(3)], lambda a, b: a + b),
    ('broadcast_sub', {}, [rand(2, 1, 4), rand(3, 1)], lambda a, b: a - b),
    ('broadcast_mul', {}, [A23, rand(2, 1)], lambda a, b: a * b),
    ('broadcast_div', {}, [A23, rand(1, 3, low=0.5)], lambda a, b: a / b),
    ('broadcast_to', {'shape': (2, 0, 4)}, [rand(1, 3, 1)], lambda x: np.broadcast_to(x, (2, 3, 4))),
    ('broadcast_axis', {'axis': (0,), 'size': (3,)}, [rand(1, 3)], lambda x: np.broadcast_to(x, (3, 3))),
    ('exp', {}, [A23], np.exp),
    ('log', {}, [rand(2, 3, low=0.1)], np.log),
    ('sqrt', {}, [rand(2, 3, low=0.1)], np.sqrt),
    ('square', {}, [A23], np.square),
    ('abs', {}, [A23], np.abs),
    ('negative', {}, [A23], np.negative),
    ('reciprocal', {}, [rand(2, 3, low=0.5)], np.reciprocal),
    ('sign', {}, [np.array([-2.0, 0.0, 3.0, np.nan])], lambda x: np.array([-1.0, 0.0, 1.0, 0.0])),
    ('relu', {}, [A23], lambda x: np.maximum(x, 0)),
    ('sigmoid', {}, [A23], lambda x: 1 / (1 + np.exp(-x))),
    ('tanh', {}, [A23], np.tanh),
    ('clip', {'a_min': -0.5, 'a_max': 1.0}, [A23], lambda x: np.clip(x, -0.5, 1.0)),
]


@pytest.mark.parametrize('name,params,inputs,ref', FORWARD,
                         ids=['%s%s' % (f[0], f[1]) for f in FORWARD])
def test_forward_matches_numpy(name, params, inputs, ref):
    outs = run(name, inputs, params)
    want = ref(*[np.asarray(x, dtype=np.float32) for x in inputs])
    want = want if isinstance(want, list) else [want]
    assert len(outs) == len(want)
    for got, w in zip(outs, want):
        assert got.dtype == np.float32
        assert got.shape == np.shape(w)
        np.testing.assert_allclose(got, w, rtol=1e-6, atol=1e-7)
    # the inferred output shapes are the shapes forward produces
    _, shapes = infer(name, params, [np.shape(x) for x in inputs])
    assert shapes == [o.shape for o in outs]


def test_forward_outputs_do_not_alias_inputs():
    for name, params, inputs, _ in FORWARD:
        xs = [np.asarray(x, dtype=np.float32) for x in inputs]
        for out in run(name, xs, params):
            assert not any(np.shares_memory(out, x) for x in xs), name


# ============================================================ gradients vs finite differences
def distinct(*shape, seed=0):
    """Values well apart (no ties for max/min, nothing near 0 for abs/relu/sign)."""
    n = int(np.prod(shape))
    vals = (np.arange(n) - n / 2.0 + 0.5) * 0.37
    return np.random.default_rng(seed).permutation(vals).reshape(shape)


GRADIENTS = [
    ('Flatten', {}, [rand(2, 3, 2)]),
    ('Reshape', {'shape': (-1, 0), 'reverse': True}, [rand(2, 3, 2)]),
    ('Reshape', {'shape': (-4, 1, 2, -2)}, [rand(2, 3)]),
    ('Concat', {'num_args': 3, 'dim': -1}, [rand(2, 1), rand(2, 3, seed=1), rand(2, 2, seed=2)]),
    ('_rnn_param_concat', {'num_args': 3, 'dim': 0}, [rand(6), rand(4, seed=1), rand(4, seed=2)]),
    ('SliceChannel', {'num_outputs': 3, 'axis': 0}, [rand(3, 2)]),
    ('SliceChannel', {'num_outputs': 2, 'axis': -1, 'squeeze_axis': True}, [rand(3, 2)]),
    ('transpose', {'axes': (2, 0, 1)}, [rand(2, 3, 2)]),
    ('expand_dims', {'axis': 1}, [rand(2, 3)]),
    ('reverse', {'axis': (0, 2)}, [rand(2, 3, 2)]),
    ('SwapAxis', {'dim1': 0, 'dim2': 2}, [rand(2, 3, 4)]),
    ('ones_like', {}, [rand(2, 3)]),
    ('zeros_like', {}, [rand(2, 3)]),
    ('_copy', {}, [rand(2, 3)]),
    ('sum', {'axis': (0, 2)}, [rand(2, 3, 2)]),
    ('sum', {'axis': 1, 'exclude': True, 'keepdims': True}, [rand(2, 3, 2)]),
    ('mean', {}, [rand(2, 3)]),
    ('mean', {'axis': -1}, [rand(2, 3)]),
    ('max', {'axis': 1}, [distinct(3, 4)]),
    ('max', {}, [distinct(3, 4)]),
    ('min', {'axis': 0, 'keepdims': True}, [distinct(3, 4)]),
    ('broadcast_add', {}, [rand(2, 3), rand(3, seed=1)]),
    ('broadcast_sub', {}, [rand(2, 1, 3), rand(4, 1, seed=1)]),
    ('broadcast_mul', {}, [rand(2, 3), rand(2, 1, seed=1)]),
    ('broadcast_div', {}, [rand(2, 3), rand(1, 3, seed=1, low=0.5)]),
    ('broadcast_to', {'shape': (2, 0, 3)}, [rand(1, 2, 1)]),
    ('broadcast_axis', {'axis': (0, 2), 'size': (2, 3)}, [rand(1, 2, 1)]),
    ('exp', {}, [rand(2, 3)]),
    ('log', {}, [rand(2, 3, low=0.5)]),
    ('sqrt', {}, [rand(2, 3, low=0.5)]),
    ('square', {}, [rand(2, 3)]),
    ('abs', {}, [distinct(2, 3)]),
    ('negative', {}, [rand(2, 3)]),
    ('reciprocal', {}, [rand(2, 3, low=0.5)]),
    ('sign', {}, [distinct(2, 3)]),
    ('relu', {}, [distinct(2, 3)]),
    ('sigmoid', {}, [rand(2, 3)]),
    ('tanh', {}, [rand(2, 3)]),
    ('clip', {'a_min': -0.5, 'a_max': 0.6}, [distinct(2, 3)]),
]


@pytest.mark.parametrize('name,params,inputs', GRADIENTS, ids=['%s%s' % (g[0], g[1]) for g in GRADIENTS])
def test_gradient_matches_finite_differences(name, params, inputs):
    check_op_gradient(name, inputs, params)


def test_where_gradient_matches_finite_differences():
    # the condition is a choice, not a differentiable input: x and y are checked
    condition = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 1.0]])
    check_op_gradient('where', [condition, rand(2, 3), rand(2, 3, seed=1)], {}, grad_inputs=[1, 2])


@pytest.mark.parametrize('name,params,inputs', [
    ('SequenceMask', {'use_sequence_length': True, 'value': 3.0}, [rand(3, 2, 2), np.array([1.0, 3.0])]),
    ('SequenceLast', {'use_sequence_length': True, 'axis': 1}, [rand(2, 3, 2), np.array([2.0, 3.0])]),
    ('SequenceReverse', {'use_sequence_length': True}, [rand(3, 2), np.array([2.0, 1.0])]),
], ids=['SequenceMask', 'SequenceLast', 'SequenceReverse'])
def test_sequence_gradients_match_finite_differences(name, params, inputs):
    # the lengths are whole numbers, not a differentiable input: only the data is checked
    check_op_gradient(name, inputs, params, grad_inputs=[0])


def test_blockgrad_blocks_the_gradient():
    x = rand(2, 3)
    grads = get('BlockGrad').backward(get('BlockGrad').parse_params({}), ENV, [np.ones((2, 3))], [x], [x], [])
    assert grads[0] is None or not np.any(grads[0])


def test_max_ties_each_get_the_full_gradient():
    """MXNet 1.9.1 does not split the gradient between tied maxima: each gets all of it."""
    x = np.array([[1, 3, 3], [2, 2, 0]], np.float32)
    op = get('max')
    p = op.parse_params({'axis': 1})
    out = op.forward(p, ENV, [x], [])
    grad = op.backward(p, ENV, [np.array([1, 10], np.float32)], [x], out, [])[0]
    np.testing.assert_array_equal(grad, [[0, 1, 1], [10, 10, 0]])


def test_clip_gradient_includes_the_bounds():
    x = np.array([-1, -0.5, 0, 0.5, 1], np.float32)
    op = get('clip')
    p = op.parse_params({'a_min': -0.5, 'a_max': 0.5})
    grad = op.backward(p, ENV, [np.ones(5, np.float32)], [x], op.forward(p, ENV, [x], []), [])[0]
    np.testing.assert_array_equal(grad, [0, 1, 1, 1, 0])


def test_unary_kinks_follow_mxnet():
    z = np.zeros(1, np.float32)
    g = [np.ones(1, np.float32)]
    for name, want in [('relu', 0), ('abs', 0), ('sign', 0)]:
        op = get(name)
        p = op.parse_params({})
        assert op.backward(p, ENV, g, [z], op.forward(p, ENV, [z], []), [])[0][0] == want, name


# ============================================================ reshape codes
def test_reshape_target_examples():
    assert reshape_target((2, 3, 4), (4, 0, 2)) == (4, 3, 2)
    assert reshape_target((2, 3, 4), (6, 1, -1)) == (6, 1, 4)
    assert reshape_target((2, 3, 4), (-2,)) == (2, 3, 4)
    assert reshape_target((2, 3, 4), (-2, 1, 1)) == (2, 3, 4, 1, 1)
    assert reshape_target((2, 3, 4, 5), (-3, -3)) == (6, 20)
    assert reshape_target((2, 3, 4), (-4, 1, 2, -2)) == (1, 2, 3, 4)
    assert reshape_target((2, 3, 4), (2, -4, -1, 3, -2)) == (2, 1, 3, 4)
    assert reshape_target((10, 5, 4), (-1, 0)) == (40, 5)
    assert reshape_target((10, 5, 4), (-1, 0), reverse=True) == (50, 4)
    # MXNet 1.9.1 writes the inferred size at the -1's index in the code list
    assert reshape_target((2, 3, 4), (-4, 1, 2, -1, 1)) == (1, 2, 1, 12)


@pytest.mark.parametrize('src,codes,reverse,fragment', [
    ((2, 3, 4), (5, -1), False, '24 elements'),
    ((2, 3, 4), (-1, -1), False, 'more than one -1'),
    ((2, 3, 4), (0, 0, 0, 0), False, 'code 0'),
    ((2, 3, 4), (-3, -3), False, '-3'),
    ((2, 3, 4), (-4, 2), False, 'two split sizes'),
    ((2, 3, 4), (-4, 3, -1, -2), False, 'do not fit'),
    ((2, 3, 4), (-4, -1, -1, -2), False, 'both be -1'),
    ((2, 3, 4), (-5, 4), False, 'unknown code'),
    ((2, 3, 4), (-4, 1, 2, -2), True, '-4'),
])
def test_reshape_target_errors_name_source_and_request(src, codes, reverse, fragment):
    with pytest.raises(ShapeError) as info:
        reshape_target(src, codes, reverse)
    msg = str(info.value)
    assert '(2,3,4)' in msg and str(tuple(codes)) in msg and fragment in msg, msg


small_shapes = st.lists(st.integers(1, 5), min_size=1, max_size=5).map(tuple)


@given(small_shapes, st.data())
def test_reshape_zero_and_minus_one_keep_element_count(src, data):
    """Codes 0 (copy) and -1 (infer) at the input's own positions give numpy's reshape."""
    keep = data.draw(st.lists(st.booleans(), min_size=len(src), max_size=len(src)))
    codes = [0 if k else d for k, d in zip(keep, src)]
    infer_at = data.draw(st.one_of(st.none(), st.integers(0, len(src) - 1)))
    if infer_at is not None:
        codes[infer_at] = -1
    extra = data.draw(st.integers(0, 2))                  # trailing 1s are allowed
    codes += [1] * extra
    out = reshape_target(src, codes)
    assert out == tuple(src) + (1,) * extra
    assert np.prod(out) == np.prod(src)
    numpy_codes = [src[i] if c == 0 else c for i, c in enumerate(codes)]
    assert np.zeros(src).reshape(numpy_codes).shape == out


@given(small_shapes, st.integers(1, 3), st.data())
def test_reshape_minus_one_infers_the_rest(src, k, data):
    total = int(np.prod(src))
    divisors = [d for d in range(1, total + 1) if total % d == 0]
    lead = data.draw(st.lists(st.sampled_from(divisors), min_size=k, max_size=k))
    if total % int(np.prod(lead)):
        with pytest.raises(ShapeError):
            reshape_target(src, tuple(lead) + (-1,))
        return
    out = reshape_target(src, tuple(lead) + (-1,))
    assert out == np.zeros(src).reshape(tuple(lead) + (-1,)).shape


@given(small_shapes, st.lists(st.sampled_from([0, -1, -2, -3, 1, 2, 3]), min_size=1, max_size=5),
       st.booleans())
def test_reshape_random_codes_raise_or_keep_size(src, codes, reverse):
    try:
        out = reshape_target(src, codes, reverse)
    except ShapeError as err:
        assert str(src).replace(' ', '') in str(err)
        return
    assert np.prod(out) == np.prod(src)


@given(small_shapes, st.lists(st.sampled_from([0, -1, -3, 1, 2]), min_size=1, max_size=4))
def test_reshape_reverse_is_reversed_forward(src, codes):
    try:
        want = reshape_target(src[::-1], codes[::-1])[::-1]
    except ShapeError:
        with pytest.raises(ShapeError):
            reshape_target(src, codes, reverse=True)
        return
    assert reshape_target(src, codes, reverse=True) == want


def test_ndarray_reshape_uses_the_codes():
    x = mx.nd.zeros((2, 3, 4))
    assert x.reshape((-1, 0)).shape == (8, 3)
    assert x.reshape(0, -3).shape == (2, 12)
    with pytest.raises(ShapeError):
        x.reshape((5, -1))


# ============================================================ shape inference details
def test_reshape_infer_rejects_a_changed_size():
    """MXNet 1.9.1's infer_shape lets (2,3,4)->(5,-1) through as (5,4) and then reads past the
    input; reflib refuses with a clear message."""
    with pytest.raises(ShapeError) as info:
        infer('Reshape', {'shape': (5, -1)}, [(2, 3, 4)])
    msg = str(info.value)
    assert "'data'" in msg and '(2,3,4)' in msg and '(5, -1)' in msg and '20 elements' in msg


def test_reshape_forward_error_names_the_operator():
    with pytest.raises(ShapeError) as info:
        run('Reshape', [A23], {'shape': (4, -1)})
    msg = str(info.value)
    assert msg.startswith("Reshape: input 'data'") and '(2,3)' in msg and '(4, -1)' in msg


def test_reshape_backward_inference_checks_divisibility():
    with pytest.raises(ShapeError):
        infer('Reshape', {'shape': (-1,)}, [(0, 5, 4)], [(24,)])


def test_reshape_legacy_target_shape():
    assert infer('Reshape', {'target_shape': (0, 12)}, [(2, 3, 4)])[1] == [(2, 12)]
    assert infer('Reshape', {'target_shape': (5, 0), 'keep_highest': True}, [(2, 3, 4)])[1] == [(2, 12)]
    assert run('Reshape', [X], {'target_shape': (4, 0)})[0].shape == (4, 6)


def test_reshape_without_target():
    assert infer('Reshape', {}, [(0, 3, 4)], [(2, 12)]) == ([(2, 3, 4)], [(2, 12)])
    with pytest.raises(ParamError):
        run('Reshape', [X], {})


def test_concat_fills_the_one_unknown_input():
    ins, outs = infer('Concat', {'num_args': 3}, [(2, 3), (0, 0), (2, 1)], [(2, 7)])
    assert ins == [(2, 3), (2, 3), (2, 1)] and outs == [(2, 7)]
    ins, outs = infer('Concat', {'num_args': 2}, [(2, 3), None])
    assert ins == [(2, 3), (2, 0)] and outs == [(2, 0)]
    with pytest.raises(ShapeError):
        infer('Concat', {'num_args': 2}, [(2, 3), (0, 0)], [(2, 3)])
    with pytest.raises(ShapeError):
        infer('Concat', {'num_args': 2}, [(2, 3), (2, 4)], [(2, 8)])


def test_rnn_param_concat_shares_the_rest_among_the_unknown_inputs():
    # the two directions of a bidirectional layer: same (unknown) size, the total known
    ins, outs = infer('_rnn_param_concat', {'num_args': 3, 'dim': 0}, [(6,), (0,), (0,)], [(14,)])
    assert ins == [(6,), (4,), (4,)] and outs == [(14,)]
    with pytest.raises(ShapeError, match='equally'):
        infer('_rnn_param_concat', {'num_args': 3, 'dim': 0}, [(6,), (0,), (0,)], [(13,)])
    with pytest.raises(ShapeError):       # known sizes that do not add up: Concat's own check
        infer('_rnn_param_concat', {'num_args': 2, 'dim': 0}, [(6,), (9,)], [(14,)])
    ins, _ = infer('Concat', {'num_args': 3, 'dim': 0}, [(6,), (0,), (0,)], [(14,)])
    assert ins[1:] == [(0,), (0,)]          # plain Concat fills one unknown input only


def test_concat_error_names_the_input_and_both_shapes():
    with pytest.raises(ShapeError) as info:
        infer('Concat', {'num_args': 3, 'dim': 0}, [(2, 3), (1, 3), (4, 5)])
    msg = str(info.value)
    assert "'arg2'" in msg and '(4,5)' in msg and '(2,3)' in msg and 'Concat' in msg, msg
    with pytest.raises(ShapeError) as info:
        run('Concat', [A23, rand(2, 2, 2)], {'num_args': 2})
    assert "'arg1'" in str(info.value)


def test_concat_needs_num_args():
    op = get('Concat')
    assert op.key_var_num_args == 'num_args'
    with pytest.raises(ParamError):
        op.parse_params({})


def test_split_error_message():
    with pytest.raises(ShapeError) as info:
        infer('SliceChannel', {'num_outputs': 2}, [(2, 3, 4)])
    assert "'data'" in str(info.value) and '(2,3,4)' in str(info.value)


def test_broadcast_error_names_both_inputs():
    with pytest.raises(ShapeError) as info:
        run('broadcast_mul', [A23, rand(2, 4)])
    msg = str(info.value)
    assert "'lhs'" in msg and "'rhs'" in msg and '(2,3)' in msg and '(2,4)' in msg


def test_transpose_and_expand_dims_infer_backwards():
    assert infer('transpose', {}, [None], [(2, 3, 4)]) == ([(4, 3, 2)], [(2, 3, 4)])
    assert infer('expand_dims', {'axis': -1}, [None], [(2, 3, 1)]) == ([(2, 3)], [(2, 3, 1)])
    with pytest.raises(ShapeError):
        infer('transpose', {'axes': (0, 0, 1)}, [(2, 3, 4)])


def test_reduction_axis_forms():
    assert infer('sum', {'axis': '()'}, [(2, 3)])[1] == [(1,)]
    assert infer('sum', {'axis': 'None', 'exclude': 'True'}, [(2, 3)])[1] == [(1,)]
    assert infer('max', {'axis': '(0, 1)', 'exclude': 'True'}, [(2, 3)])[1] == [(2, 3)]
    assert infer('mean', {'axis': '-2', 'keepdims': '1'}, [(2, 3)])[1] == [(1, 3)]


def test_float32_stays_float32():
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    for name, params in [('clip', {'a_min': -0.3, 'a_max': 0.3}), ('mean', {}), ('mean', {'axis': 1}),
                         ('sigmoid', {}), ('reciprocal', {}), ('sqrt', {}), ('sign', {}), ('abs', {})]:
        op = get(name)
        p = op.parse_params(params)
        outs = op.forward(p, ENV, [np.abs(x) + 0.5 if name in ('sqrt', 'reciprocal') else x], [])
        grads = op.backward(p, ENV, [np.ones_like(o) for o in outs], [x], outs, [])
        assert outs[0].dtype == np.float32 and grads[0].dtype == np.float32, name
