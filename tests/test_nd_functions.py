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


def test_softmin_is_the_softmax_of_minus_x():
    from reflib.test_utils import check_op_gradient
    np.testing.assert_allclose(mx.nd.softmin(mx.nd.array([1, 2, 3])).asnumpy(),
                               [0.66524094, 0.24472848, 0.09003057], rtol=1e-6)   # MXNet 1.9.1
    np.testing.assert_allclose(mx.nd.softmin(mx.nd.array([[1, 2], [3, 0]]), axis=0, temperature=2).asnumpy(),
                               [[0.7310586, 0.26894143], [0.26894143, 0.7310586]], rtol=1e-6)
    check_op_gradient('softmin', [np.random.RandomState(0).normal(size=(3, 4))], {'axis': 0, 'temperature': 2.0})
    with pytest.raises(mx.base.ParamError, match="softmin: use_length=True needs a 'length' input"):
        mx.sym.softmin(mx.sym.var('x'), use_length=True)


def test_ravel_and_unravel_as_mxnet():
    from reflib.test_utils import check_op_gradient
    coords = mx.nd.array([[1, 2, 5], [0, 1, 7]])
    assert mx.nd.ravel_multi_index(coords, shape=(3, 4)).asnumpy().tolist() == [4, 9, 27]
    assert mx.nd.unravel_index(mx.nd.array([4, 9, 22]), shape=(3, 4)).asnumpy().tolist() == [[1, 2, 5], [0, 1, 2]]
    assert mx.nd.unravel_index(mx.nd.array([4, 9]), shape=(-1, 4)).asnumpy().tolist() == [[1, 2], [0, 1]]
    assert mx.nd.unravel_index(mx.nd.array([4, 9], dtype='int64'), shape=(3, 4)).dtype == np.int64
    assert mx.sym.ravel_multi_index(mx.sym.var('x'), shape=(3, 4)).infer_shape(x=(2, 5))[1] == [(5,)]
    assert mx.sym.unravel_index(mx.sym.var('x'), shape=(3, 4)).infer_shape(x=(5,))[1] == [(2, 5)]
    with pytest.raises(mx.base.ShapeError, match='one row per axis'):
        mx.sym.ravel_multi_index(mx.sym.var('x'), shape=(3, 4)).infer_shape(x=(3, 5))
    # the indices are truncated to integers: away from them nothing changes, so no gradient
    check_op_gradient('_ravel_multi_index', [np.array([[1.3, 2.4], [0.2, 1.6]])], {'shape': (3, 4)})
    check_op_gradient('_unravel_index', [np.array([4.3, 9.6])], {'shape': (3, 4)})


def test_flatten_squeeze_expand_dims_copy_unless_inplace():
    """MXNet 1.9.1 (oracle): the methods return copies; inplace=True returns a view."""
    for make, method, kwargs in ((lambda: mx.nd.ones((2, 3, 4)), 'flatten', {}),
                                 (lambda: mx.nd.ones((2, 1, 4)), 'squeeze', {}),
                                 (lambda: mx.nd.ones((2, 4)), 'expand_dims', {'axis': 1})):
        x = make()
        copy = getattr(x, method)(**kwargs)
        copy[:] = 5
        assert x.asnumpy().max() == 1, method
        view = getattr(x, method)(inplace=True, **kwargs)
        view[:] = 7
        assert x.asnumpy().min() == 7, method
    assert mx.nd.ones((2, 1, 4)).squeeze(axis=1).shape == (2, 4)


def test_round_leaves_integers_exact():
    big = mx.nd.array([16777217, 2147483000, -16777219], dtype='int32')
    assert mx.nd.round(big).asnumpy().tolist() == [16777217, 2147483000, -16777219]   # MXNet 1.9.1
    assert mx.nd.round(big).dtype == np.int32


def test_split_v2_as_numpys_split():
    """MXNet 1.9.1's shapes (oracle): equal sections, or pieces starting at the given indices."""
    from reflib.test_utils import check_op_gradient
    assert [a.shape for a in mx.nd.split_v2(mx.nd.ones((6, 4)), (1, 3), axis=0)] == [(1, 4), (2, 4), (3, 4)]
    assert [a.shape for a in mx.nd.split_v2(mx.nd.ones((6, 4)), 3, axis=0)] == [(2, 4)] * 3
    assert mx.sym.split_v2(mx.sym.var('x'), (1, 4), axis=1).infer_shape(x=(2, 6))[1] == [(2, 1), (2, 3), (2, 2)]
    assert [a.shape for a in mx.nd.split_v2(mx.nd.ones((6, 1)), (1, 2, 3, 4, 5), squeeze_axis=True)] == [(1,)] * 6
    x = mx.nd.array(np.arange(12).reshape(2, 6))
    assert [a.asnumpy().tolist() for a in mx.nd.split_v2(x, (1, 4), axis=1)] == [
        [[0], [6]], [[1, 2, 3], [7, 8, 9]], [[4, 5], [10, 11]]]
    with pytest.raises(ValueError, match='equal'):
        mx.nd.split_v2(mx.nd.ones((5, 2)), 2)
    check_op_gradient('_split_v2', [np.random.RandomState(0).normal(size=(3, 6))], {'indices': (0, 1, 4), 'axis': 1})


def test_underscore_operators_are_in_nd_internal_as_in_mxnet():
    assert mx.nd._internal._plus_scalar(mx.nd.ones(2), scalar=3).asnumpy().tolist() == [4, 4]
    assert mx.nd._internal._copy is mx.nd._copy
