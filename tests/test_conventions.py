"""MXNet's call conventions and behaviours, against MXNet 1.9.1's own answers.

tests/golden/gen_conventions.py ran the calls in tests/golden/conventions_cases.py under
MXNet and recorded the answers (conventions.json), with every operator function's
signature.  Here the same calls run under reflib and must give the same answers:
positional parameters, graph attributes given as keywords (``lr_mult=2``), ``out=``,
shape inference backwards, head gradients, ``get_children``, a PReLU's initial slope,
negative seeds.  The last part checks the executor conventions (reshape, monitor,
debug_str) and the fluent methods.
"""
import json
import os
import sys
import warnings

import numpy as np
import pytest

import reflib as mx
from reflib.operator.registry import canonical_operators
from reflib.symbol.positional import auxiliary_inputs, declared_inputs

GOLDEN_DIR = os.path.join(os.path.dirname(__file__), 'golden')
sys.path.insert(0, GOLDEN_DIR)
from conventions_cases import CASES  # noqa: E402

with open(os.path.join(GOLDEN_DIR, 'conventions.json')) as f:
    GOLDEN = json.load(f)


def same(got, want, where='answer'):
    """Equal as JSON values, numbers to float32 precision (NaNs equal)."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), '%s: keys %s, MXNet %s' % (
            where, sorted(got) if isinstance(got, dict) else got, sorted(want))
        for key in want:
            same(got[key], want[key], '%s[%r]' % (where, key))
    elif isinstance(want, list):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), '%s: %r, MXNet %r' % (where, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            same(g, w, '%s[%d]' % (where, i))
    elif isinstance(want, float) and not isinstance(got, bool):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, equal_nan=True, err_msg=where)
    else:
        assert got == want, '%s: reflib %r, MXNet %r' % (where, got, want)


@pytest.mark.parametrize('name', sorted(CASES))
def test_same_answers_as_mxnet(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        got = json.loads(json.dumps(CASES[name](mx)))
    same(got, GOLDEN['cases'][name], name)


def test_golden_has_every_case():
    assert set(GOLDEN['cases']) == set(CASES)


# ------------------------------------------------------------------ signatures
def _mxnet_signature(op):
    for key in (op.name,) + tuple(op.aliases):
        if key in GOLDEN['signatures']:
            return GOLDEN['signatures'][key]
    return None


# MXNet 1.9.1's generated _linspace takes _arange's parameters (start, stop, step, repeat,
# infer_range, ...), which its operator then refuses: it works by keyword only, in MXNet too
_BROKEN_IN_MXNET = {'_linspace'}

# Parameters MXNet 1.9.1 takes by keyword though its generated signature leaves them out
# (checked with the oracle venv: potrf(A, lower=False) returns the upper factor)
_KEYWORD_ONLY = {'_linalg_potrf': ['lower'], '_linalg_potri': ['lower']}


def test_every_operator_takes_positional_values_in_mxnet_order():
    """Inputs, then parameters, in the order of MXNet's generated function, for every
    registered operator MXNet has (a variadic one takes inputs only)."""
    checked, wrong = 0, []
    for op in canonical_operators():
        sig = _mxnet_signature(op)
        if sig is None or op.name in _BROKEN_IN_MXNET or not op.has_function:
            continue
        inputs, params = sig
        checked += 1
        if inputs == '*':
            if not op.key_var_num_args:
                wrong.append('%s: variadic in MXNet' % op.name)
            continue
        # MXNet lists some operators' auxiliary states (BatchNorm's) and not others'
        declared, aux = declared_inputs(op), auxiliary_inputs(op)
        if declared[:len(inputs)] != inputs or not set(declared[len(inputs):]) <= set(aux):
            wrong.append('%s inputs: reflib %s, MXNet %s' % (op.name, declared, inputs))
        if [k for k in op.params if k not in _KEYWORD_ONLY.get(op.name, ())] != params:
            wrong.append('%s parameters: reflib %s, MXNet %s' % (op.name, list(op.params), params))
    assert checked > 80
    assert not wrong, '\n'.join(wrong)


def test_positional_parameter_errors_name_the_slot():
    x = mx.sym.var('x')
    with pytest.raises(TypeError, match="goes to input 'weight'"):
        mx.sym.FullyConnected(x, 10)
    with pytest.raises(TypeError, match="multiple values for argument 'a_min'"):
        mx.sym.clip(x, 0, 6, a_min=1)
    with pytest.raises(TypeError, match='at most 6 positional'):
        mx.sym.clip(x, 0, 6, 'n', None, None, 7)
    with pytest.raises(TypeError, match='variadic'):
        mx.sym.Concat(x, x, 1)
    with pytest.raises(TypeError, match="goes to input 'weight'"):
        mx.nd.FullyConnected(mx.nd.ones((1, 2)), 3)


def test_positional_parameters_reach_the_computation():
    x = mx.sym.var('x')
    out = mx.sym.clip(x, 0, 6).eval(x=mx.nd.array([-1, 3, 9]))[0]
    assert out.asnumpy().tolist() == [0, 3, 6]
    # Dropout(x, 0.5) trains with p=0.5: the survivors are doubled
    kept = mx.sym.Dropout(x, 0.5).bind(mx.cpu(), {'x': mx.nd.ones((1000,))}).forward(is_train=True)[0].asnumpy()
    assert set(np.unique(kept)) <= {0.0, 2.0} and 350 < (kept > 0).sum() < 650


# ------------------------------------------------------------------ more behaviour
def test_plot_network_warns_about_repeated_names():
    pytest.importorskip('graphviz')
    x = mx.sym.var('x')
    net = mx.sym.FullyConnected(mx.sym.FullyConnected(x, num_hidden=2, name='same'), num_hidden=2, name='same')
    with pytest.warns(RuntimeWarning, match='Repeated names: same_weight,same_bias,same'):
        mx.viz.plot_network(net)


def test_negative_seed_is_its_low_32_bits():
    mx.random.seed(-1)
    a = mx.random.uniform(shape=(3,)).asnumpy()
    mx.random.seed(2 ** 32 - 1)
    b = mx.random.uniform(shape=(3,)).asnumpy()
    assert np.array_equal(a, b)


def test_dropout_p1_gives_zeros_not_mxnets_nan():
    """MXNet 1.9.1 scales the kept values by 1/(1-p): with p=1 that is inf * 0 = NaN in
    training, for the output and the gradient.  reflib drops everything (zeros), the limit
    of p -> 1; inference passes the data through, as in MXNet."""
    x = mx.sym.var('x')
    exe = mx.sym.Dropout(x, p=1.0).bind(mx.cpu(), {'x': mx.nd.ones((2, 3))}, args_grad={'x': mx.nd.zeros((2, 3))})
    assert not exe.forward(is_train=True)[0].asnumpy().any()
    exe.backward(mx.nd.ones((2, 3)))
    assert not exe.grad_dict['x'].asnumpy().any()
    assert exe.forward(is_train=False)[0].asnumpy().tolist() == [[1.0] * 3] * 2


# ------------------------------------------------------------------ fluent methods
def test_fluent_methods_are_mxnets():
    from reflib.fluent import FLUENT_METHODS
    assert FLUENT_METHODS == set(GOLDEN['fluent'])


@pytest.mark.parametrize('name', sorted(GOLDEN['fluent']))
def test_every_fluent_method_whose_operator_exists_works(name):
    """Each method is there once its operator is registered, on arrays and symbols alike."""
    from reflib.operator import registry
    try:
        registry.get(name)
    except mx.MXNetError:
        assert not hasattr(mx.nd.ones((2, 2)), name) or name in vars(mx.nd.NDArray)
        return
    assert callable(getattr(mx.nd.ones((2, 2)), name))
    assert callable(getattr(mx.sym.var('x'), name))


def test_fluent_method_of_a_missing_operator_says_so():
    a = mx.nd.ones((2,))
    with pytest.raises(AttributeError, match='no attribute'):
        a.FullyConnected
    assert not hasattr(a, 'no_such_method') and not hasattr(mx.sym.var('x'), 'Convolution')


def test_tostype_makes_each_storage_type():
    a = mx.nd.array([1, 0])
    dense = a.tostype('default')
    assert dense is not a and dense.asnumpy().tolist() == [1, 0]
    assert a.tostype('row_sparse').indices.asnumpy().tolist() == [0]
    with pytest.raises(mx.base.ShapeError, match='CSR the array must be 2-D'):
        a.tostype('csr')
    with pytest.raises(mx.MXNetError, match='unknown storage type'):
        a.tostype('dense')


def test_repr_of_one_node_with_several_outputs_is_its_name():
    x = mx.sym.var('x')
    assert repr(mx.sym.split(x, num_outputs=2, name='sp')) == '<Symbol sp>'      # as MXNet prints it
    assert repr(mx.sym.Group([x, mx.sym.relu(x, name='r')])) == '<Symbol group [x, r]>'


@pytest.mark.parametrize('name,args,kwargs,expected', [
    ('argmax', (), {'axis': 1}, lambda a: a.argmax(axis=1).astype(np.float32)),
    ('sum', (), {'axis': 0, 'exclude': True}, lambda a: a.sum(axis=1)),
    ('max', (), {'axis': 1}, lambda a: a.max(axis=1)),
    ('abs', (), {}, np.abs),
    ('clip', (1, 4), {}, lambda a: np.clip(a, 1, 4)),
    ('transpose', (), {}, lambda a: a.T),
])
def test_methods_ndarray_defines_itself_also_take_out_as_mxnets_do(name, args, kwargs, expected):
    """x.argmax(axis=1, out=y): methods with a numpy path of their own take the operator's
    path for out= and the operator's other parameters (exclude=), writing into out."""
    a = np.array([[1, -5, 2], [7, 0, 3]], dtype=np.float32)
    want = expected(a)
    out = mx.nd.zeros(want.shape)
    got = getattr(mx.nd.array(a), name)(*args, out=out, **kwargs)
    assert got is out
    np.testing.assert_array_equal(out.asnumpy(), want)
    np.testing.assert_array_equal(getattr(mx.nd.array(a), name)(*args, **kwargs).asnumpy(), want)
