"""Tests for amp_cast and amp_multicast, the casts of MXNet's AMP (reflib/operator/amp.py).

1. forward and backward through a bound executor against MXNet 1.9.1's numbers
   (tests/golden/gen_ops_amp.py -> ops_amp.npz, MXNet's plain CPU kernels): values, dtypes,
   gradients converted back to the input's dtype;
2. the output dtypes MXNet infers, for every pair of input dtypes (and triples, and partly
   known inputs: amp_multicast's quirk of following the first input included);
3. names, parameters, and the same numbers as Cast;
4. gradients against finite differences (``check_op_gradient``, float64 passes through);
5. bad input.
"""

import json
import os

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError, ParamError, TypeInferError
from reflib.test_utils import check_op_gradient
from device import CTX, MODE, get

HERE = os.path.dirname(os.path.abspath(__file__))
with np.load(os.path.join(HERE, 'golden', 'ops_amp.npz')) as _npz:
    GOLDEN = {k: _npz[k] for k in _npz.files}
META = json.loads(str(GOLDEN['meta']))
DTYPES = ['float16', 'float32', 'float64', 'int32', 'int8', 'uint8', 'int64']


def assert_same(got, want, what):
    """Equal values and dtype (NaN equal to NaN); float16 and float32 exactly, as casts are exact."""
    assert got.dtype == want.dtype, '%s: reflib %s, MXNet %s' % (what, got.dtype, want.dtype)
    assert got.shape == want.shape, what
    np.testing.assert_array_equal(got, want, err_msg=what)


# ============================================================ 1. golden values from MXNet
@pytest.mark.parametrize('i', range(len(META['cast_cases'])),
                         ids=['%s->%s' % tuple(c) for c in META['cast_cases']])
def test_amp_cast_as_mxnet(i):
    ind, dt = META['cast_cases'][i]
    x = GOLDEN['cast%d_in' % i]
    exe = mx.sym.amp_cast(mx.sym.var('x'), dtype=dt).simple_bind(CTX, x=x.shape, type_dict={'x': ind})
    exe.arg_dict['x'][:] = x
    assert exe.outputs[0].dtype == GOLDEN['cast%d_out' % i].dtype        # known before forward
    got, want = exe.forward(is_train=True)[0].asnumpy(), GOLDEN['cast%d_out' % i]
    if MODE == 'gpu' and np.dtype(dt).kind in 'iu':
        # NaN, infinities and values outside the integer type convert as the hardware does (C++
        # leaves them undefined): MXNet's golden values are x86's, a GPU saturates instead, as
        # MXNet's own GPU kernel would.  The values that fit must agree exactly.
        fits = np.isfinite(x) & (x > np.iinfo(dt).min - 1) & (x < np.iinfo(dt).max + 1)
        got, want = got[fits], want[fits]
    assert_same(got, want, 'output')
    head = GOLDEN['cast%d_head' % i]
    exe.backward([mx.nd.array(head, dtype=head.dtype)])
    assert_same(exe.grad_dict['x'].asnumpy(), GOLDEN['cast%d_grad' % i], 'gradient')


@pytest.mark.parametrize('i', range(len(META['multi_cases'])),
                         ids=['%s%s' % (c[0], '-narrow' if c[2] else '') for c in META['multi_cases']])
def test_amp_multicast_as_mxnet(i):
    dtypes, shapes, narrow = META['multi_cases'][i]
    names = ['x%d' % k for k in range(len(dtypes))]
    sym = mx.sym.amp_multicast(*[mx.sym.var(n) for n in names], num_outputs=len(names), cast_narrow=narrow)
    exe = sym.simple_bind(CTX, type_dict=dict(zip(names, dtypes)),
                          **{n: tuple(s) for n, s in zip(names, shapes)})
    for k, n in enumerate(names):
        exe.arg_dict[n][:] = GOLDEN['multi%d_in%d' % (i, k)]
    outs = exe.forward(is_train=True)
    assert len(outs) == len(names)
    for k, out in enumerate(outs):
        assert_same(out.asnumpy(), GOLDEN['multi%d_out%d' % (i, k)], 'output %d' % k)
    exe.backward([mx.nd.array(GOLDEN['multi%d_head%d' % (i, k)], dtype=GOLDEN['multi%d_head%d' % (i, k)].dtype)
                  for k in range(len(names))])
    for k, n in enumerate(names):
        assert_same(exe.grad_dict[n].asnumpy(), GOLDEN['multi%d_grad%d' % (i, k)], 'gradient %d' % k)


# ============================================================ 2. inferred dtypes
def _names(types):
    return [None if t is None else np.dtype(t).name for t in types]


def test_amp_cast_types_as_mxnet():
    """float16 and float32 become ``dtype`` (any of them); every other dtype passes through."""
    x = mx.sym.var('x')
    for ind in DTYPES:
        for dt in DTYPES:
            got = _names(mx.sym.amp_cast(x, dtype=dt).infer_type(x=ind)[1])[0]
            assert got == META['cast_types']['%s->%s' % (ind, dt)], (ind, dt)


def test_amp_multicast_types_as_mxnet():
    x, y, z = mx.sym.var('x'), mx.sym.var('y'), mx.sym.var('z')
    for narrow in (False, True):
        sym = mx.sym.amp_multicast(x, y, num_outputs=2, cast_narrow=narrow)
        for a in DTYPES:
            for b in DTYPES:
                got = _names(sym.infer_type(x=a, y=b)[1])
                assert got == META['multicast_types']['%s,%s,%s' % (a, b, narrow)], (a, b, narrow)
    for key, want in META['multicast_triples'].items():
        a, b, c, narrow = key.split(',')
        sym = mx.sym.amp_multicast(x, y, z, num_outputs=3, cast_narrow=narrow == 'True')
        assert _names(sym.infer_type(x=a, y=b, z=c)[1]) == want, key


def test_amp_multicast_follows_its_first_input_as_mxnet_does():
    """Without float32 among the inputs, float16 ones take the first input's dtype."""
    x, y = mx.sym.var('x'), mx.sym.var('y')
    sym = mx.sym.amp_multicast(x, y, num_outputs=2)
    assert _names(sym.infer_type(x='int32', y='float16')[1]) == ['int32', 'int32']
    assert _names(sym.infer_type(x='float16', y='int32')[1]) == ['float16', 'int32']
    assert _names(sym.infer_type(x='float64', y='float16')[1]) == ['float64', 'float64']
    out = mx.nd.amp_multicast(mx.nd.array([1.75, -2.5], dtype='int32'), mx.nd.array([1.75, -2.5], dtype='float16'),
                              num_outputs=2)
    assert out[1].dtype == np.int32 and out[1].asnumpy().tolist() == [1, -2]


def test_amp_multicast_partial_types_as_mxnet():
    x, y, z = mx.sym.var('x'), mx.sym.var('y'), mx.sym.var('z')
    for key, want in META['multicast_partial'].items():
        *known, narrow = key.split(',')
        sym = mx.sym.amp_multicast(x, y, z, num_outputs=3, cast_narrow=narrow == 'True')
        kwargs = dict(k.split('=') for k in known)
        assert _names(sym.infer_type_partial(**kwargs)[1]) == want, key


# ============================================================ 3. names and parameters
def test_names_and_arguments_as_mxnet():
    x, y = mx.sym.var('x'), mx.sym.var('y')
    assert mx.sym.amp_cast(name='c', dtype='float16').list_arguments() == META['cast_names']['arguments']
    assert mx.sym.amp_cast(x, name='c', dtype='float16').list_outputs() == META['cast_names']['outputs']
    names = META['multicast_names']
    assert mx.sym.amp_multicast(name='m', num_outputs=2).list_arguments() == names['arguments']
    m = mx.sym.amp_multicast(x, y, name='m', num_outputs=2)
    assert m.list_outputs() == names['outputs']
    assert json.loads(m.tojson())['nodes'][-1]['attrs'] == names['attrs']
    for op in ('amp_cast', 'amp_multicast'):
        got = mx.operator.get_operator_arguments(op)
        assert [got.names, got.types] == [META['operator_arguments'][op][k] for k in ('names', 'types')], op
    assert get('amp_cast').monitor_input_names(get('amp_cast').parse_params({'dtype': 'float16'})) == ['input0']


@pytest.mark.parametrize('dt', DTYPES)
def test_amp_cast_of_float32_gives_the_numbers_cast_gives(dt):
    x = mx.nd.array(GOLDEN['cast0_in'])
    assert_same(mx.nd.amp_cast(x, dtype=dt).asnumpy(), mx.nd.Cast(x, dtype=dt).asnumpy(), dt)


def test_nd_and_symbol_round_trip():
    a = mx.nd.array([[1.5, 2.25]], dtype='float16')
    b = mx.nd.array([3.0, 4.5, 6.0], dtype='float32')
    lo, hi = mx.nd.amp_multicast(a, b)            # num_outputs filled in (MXNet wants it given)
    assert (lo.dtype, hi.dtype, lo.shape, hi.shape) == (np.float32, np.float32, (1, 2), (3,))
    lo, hi = mx.nd.amp_multicast(a, b, num_outputs=2, cast_narrow=True)
    assert lo.dtype == hi.dtype == np.float16 and hi.asnumpy().tolist() == [3.0, 4.5, 6.0]
    sym = mx.sym.amp_cast(mx.sym.amp_cast(mx.sym.var('x'), dtype='float16'), dtype='float32', name='back')
    loaded = mx.sym.load_json(sym.tojson(remove_amp_cast=False))
    out = loaded.eval(x=mx.nd.array([1 / 3.0]))[0]
    assert out.dtype == np.float32 and out.asnumpy()[0] == np.float32(np.float16(1 / 3.0))
    # by default, as MXNet's, the JSON leaves out a cast that feeds another node
    assert [n['op'] for n in json.loads(sym.tojson())['nodes']] == ['null', 'amp_cast']


# ============================================================ 4. finite differences
def test_gradients_against_finite_differences():
    rng = np.random.RandomState(2)
    # float64 passes through both operators: the gradient is the head's, exactly
    check_op_gradient('amp_cast', [rng.uniform(-2, 2, (3, 4))], {'dtype': 'float16'})
    check_op_gradient('amp_multicast', [rng.uniform(-2, 2, (2, 3)), rng.uniform(-2, 2, (4,))],
                      {'num_outputs': 2})
    check_op_gradient('amp_multicast', [rng.uniform(-2, 2, (5,))], {'num_outputs': 1, 'cast_narrow': True})


def test_gradient_goes_back_in_the_input_dtype():
    op = get('amp_multicast')
    p = op.parse_params({'num_outputs': 2})
    env = mx.operator.OpEnv(mx.cpu(), True)
    ins = [np.array([1.0, 2.0], np.float16), np.array([3.0], np.float32)]
    outs = op.forward(p, env, ins, [])
    assert [o.dtype for o in outs] == [np.float32, np.float32]
    grads = op.backward(p, env, [np.array([0.1, 1 / 3.0], np.float32), np.array([0.5], np.float32)], ins, outs, [])
    assert grads[0].dtype == np.float16 and grads[0].tolist() == np.array([0.1, 1 / 3.0], np.float16).tolist()
    assert grads[1].dtype == np.float32


# ============================================================ 5. bad input
def test_bad_input():
    x = mx.nd.ones((2,))
    assert 'dtype' in META['errors']['cast_no_dtype']
    with pytest.raises(ParamError, match="required parameter 'dtype'"):
        mx.nd.amp_cast(x)
    assert 'bool' in META['errors']['cast_bad_dtype']
    with pytest.raises(ParamError, match="amp_cast: parameter 'dtype' expects one of"):
        mx.nd.amp_cast(x, dtype='bool')
    assert 'expects 3 inputs' in META['errors']['multi_wrong_num_outputs']
    with pytest.raises(MXNetError, match='missing inputs'):
        mx.nd.amp_multicast(x, x, num_outputs=3)
    with pytest.raises(ParamError, match="'num_outputs' must be at least 1"):
        mx.sym.amp_multicast(num_outputs=0)           # MXNet 1.9.1 crashes (segfault) on it
    assert 'inferring shapes failed' in META['errors']['cast_zero_size']
    with pytest.raises(MXNetError, match='legacy shapes'):
        mx.nd.amp_cast(mx.nd.array(np.zeros((2, 0))), dtype='float16')


def test_bfloat16_is_refused_only_where_it_would_convert():
    x = mx.sym.var('x')
    sym = mx.sym.amp_cast(x, dtype='bfloat16')
    with pytest.raises(TypeInferError, match='bfloat16'):
        sym.infer_type(x='float32')
    # float64 and integers pass through amp_cast, whatever dtype says
    assert _names(sym.infer_type(x='float64')[1]) == ['float64']
    out = mx.nd.amp_cast(mx.nd.array([1, 2], dtype='int32'), dtype='bfloat16')
    assert out.dtype == np.int32 and out.asnumpy().tolist() == [1, 2]
