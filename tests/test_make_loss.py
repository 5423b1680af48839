"""``make_loss``: MXNet 1.9.1's parameterless loss marker, a separate operator from MakeLoss.

Facts from MXNet 1.9.1: the node's op is ``make_loss`` in JSON, its output is named
``<name>_loss``, forward is the identity in the data's dtype, and the gradient is 1 for
every element whatever the head gradient (``(x*x)`` at [3, 4] with head gradient [5, 7]
gives [6, 8]).
"""

import json

import numpy as np
import pytest

import reflib as mx


def test_json_name_and_output():
    x = mx.sym.Variable('x')
    loss = mx.sym.make_loss(x, name='l1')
    assert loss.list_outputs() == ['l1_loss']
    assert mx.sym.MakeLoss(x, name='q').list_outputs() == ['q_output']
    nodes = json.loads(loss.tojson())['nodes']
    assert [n['op'] for n in nodes] == ['null', 'make_loss']
    assert 'attrs' not in nodes[1]
    assert mx.sym.load_json(loss.tojson()).tojson() == loss.tojson()


@pytest.mark.parametrize('dtype', ['float16', 'float32', 'float64', 'int32'])
def test_gradient_is_one_whatever_the_head_gradient(dtype):
    x = mx.sym.Variable('x')
    loss = mx.sym.make_loss(x * x)
    exe = loss.simple_bind(mx.cpu(), x=(2,), type_dict={'x': dtype})
    exe.forward(is_train=True, x=mx.nd.array([3, 4], dtype=dtype))
    assert exe.outputs[0].dtype == np.dtype(dtype)
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [9, 16])
    exe.backward(mx.nd.array([5, 7], dtype=dtype))
    np.testing.assert_array_equal(exe.grad_dict['x'].asnumpy(), [6, 8])
    exe.backward()
    np.testing.assert_array_equal(exe.grad_dict['x'].asnumpy(), [6, 8])


def test_ndarray_front_end_and_refused_parameter():
    out = mx.nd.make_loss(mx.nd.array([1, 2], dtype='float16'))
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out.asnumpy(), [1, 2])
    # MXNet keeps grad_scale as an attribute and ignores it (MakeLoss has it): reflib too, saying so
    with pytest.warns(UserWarning, match='make_loss.*takes no parameters: grad_scale'):
        loss = mx.sym.make_loss(mx.sym.Variable('x'), grad_scale=2.0)
    exe = loss.simple_bind(mx.cpu(), x=(2,))
    exe.forward(is_train=True)
    exe.backward()
    np.testing.assert_array_equal(exe.grad_dict['x'].asnumpy(), [1, 1])
