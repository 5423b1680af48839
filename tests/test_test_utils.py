"""The gradient checkers themselves: they pass correct gradients and catch wrong ones."""
import numpy as np
import pytest

import reflib as mx
from reflib.operator.registry import Operator, register, _REGISTRY
from reflib.test_utils import check_numeric_gradient, check_op_gradient


def test_symbol_level_check_passes_a_real_network():
    x = mx.sym.Variable('x')
    hidden = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=3, name='fc'), act_type='tanh')
    y = mx.sym.broadcast_add(hidden * 2, x.sum())
    r = np.random.default_rng(1)
    loc = {'x': r.normal(size=(2, 4)), 'fc_weight': r.normal(size=(3, 4)), 'fc_bias': r.normal(size=3)}
    grads = check_numeric_gradient(y, loc, dtype=np.float64, rtol=1e-5, numeric_eps=1e-5)
    assert set(grads) == {'x', 'fc_weight', 'fc_bias'}


def test_symbol_level_check_handles_groups_and_float32():
    x = mx.sym.Variable('x')
    g = mx.sym.Group([mx.sym.exp(x), mx.sym.square(x)])
    check_numeric_gradient(g, {'x': np.array([0.1, -0.5, 1.0])})


@pytest.fixture
def broken_op():
    @register
    class _BrokenSquare(Operator):
        name = '_test_broken_square'

        def forward(self, p, env, inputs, aux):
            return [inputs[0] ** 2]

        def backward(self, p, env, out_grads, inputs, outputs, aux):
            return [out_grads[0] * inputs[0]]   # wrong: should be 2 * x
    yield '_test_broken_square'
    del _REGISTRY['_test_broken_square']


def test_both_checkers_catch_a_wrong_backward(broken_op):
    x = np.array([[0.5, -1.0, 2.0]])
    with pytest.raises(AssertionError, match='differs from finite differences'):
        check_op_gradient(broken_op, [x])
    sym = mx.sym.invoke(broken_op, mx.sym.Variable('x'))
    with pytest.raises(AssertionError, match="gradient of 'x'"):
        check_numeric_gradient(sym, {'x': x}, dtype=np.float64)
