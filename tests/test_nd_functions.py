"""mx.nd functions MXNet's own tests call, with MXNet 1.9.1's values (from the oracle venv)."""

import numpy as np
import pytest

import reflib as mx


def test_arithmetic_functions_broadcast_and_take_numbers():
    a, b = mx.nd.array([[1, 2]]), mx.nd.array([[3], [4]])
    assert mx.nd.add(a, b).asnumpy().tolist() == [[4, 5], [5, 6]]
    assert mx.nd.subtract(2, a).asnumpy().tolist() == [[1, 0]]
    assert mx.nd.multiply(a, 3).asnumpy().tolist() == [[3, 6]]
    np.testing.assert_allclose(mx.nd.divide(a, b).asnumpy(), [[1 / 3, 2 / 3], [0.25, 0.5]], rtol=1e-6)
    assert mx.nd.true_divide(a, 2).asnumpy().tolist() == [[0.5, 1.0]]
    assert mx.nd.add(1, 2) == 3


def test_an_explicit_none_is_mxnets_none():
    x = mx.nd.array([[3, 1, 2], [0, 5, 4]])
    assert mx.nd.sort(x, axis=None).asnumpy().tolist() == [0, 1, 2, 3, 4, 5]
    assert mx.nd.argsort(x, axis=None).asnumpy().tolist() == [3, 1, 2, 0, 5, 4]
    assert mx.nd.topk(x, axis=None, k=2).asnumpy().tolist() == [4, 5]
    assert mx.sym.sort(mx.sym.var('a'), axis=None).attr_dict() == {'sort0': {'axis': 'None'}}
    assert mx.nd.sum(x, axis=None).asnumpy().tolist() == [15]


def test_moveaxis_from_numpy_and_abs_of_a_symbol():
    assert mx.nd.moveaxis(mx.nd.arange(24).reshape((2, 3, 4)), [0, 1], [2, 0]).shape == (3, 4, 2)
    host = np.ones((2, 2), np.float32)
    shared = mx.nd.from_numpy(host)
    assert not host.flags.writeable             # MXNet makes the numpy side read-only
    shared[:] = 3
    assert host.tolist() == [[3, 3], [3, 3]]
    host = np.ones((2, 2), np.float32)
    copy = mx.nd.from_numpy(host, zero_copy=False)
    host[0, 0] = 5
    assert copy.asnumpy().tolist() == [[1, 1], [1, 1]]
    with pytest.raises(ValueError, match='C-contiguous'):
        mx.nd.from_numpy(np.ones((2, 3), np.float32).T)
    assert abs(mx.sym.var('a')).eval(a=mx.nd.array([-1, 2]))[0].asnumpy().tolist() == [1, 2]
