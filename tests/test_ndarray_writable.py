"""NDArray.writable: True for ordinary arrays (MXNet 1.9.1 prints True for mx.nd.ones((2,)).writable),
False over a read-only numpy buffer, which then refuses ``x[...] = v`` with an MXNetError."""

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError


def _read_only(shape=(2, 3)):
    raw = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    raw.flags.writeable = False
    return raw


def test_ordinary_arrays_are_writable():
    for a in (mx.nd.ones((2,)), mx.nd.zeros((2, 3)), mx.nd.array([1, 2]), mx.nd.ones((4, 2))[1:3],
              mx.nd.ones((2, 3)).copy(), mx.nd.ones((2, 3)).reshape((3, 2))):
        assert a.writable is True


def test_from_numpy_zero_copy_stays_writable():
    # as MXNet: the numpy array turns read-only, the NDArray sharing its memory does not
    raw = np.ones((2, 3), dtype=np.float32)
    a = mx.nd.from_numpy(raw, zero_copy=True)
    assert not raw.flags.writeable
    assert a.writable
    a[:] = 3
    assert (raw == 3).all()


def test_read_only_buffer_is_not_writable():
    raw = _read_only()
    a = mx.nd.from_xp(raw)
    assert a.writable is False
    assert a[0].writable is False                  # a view of the same read-only memory
    assert a.copy().writable is True
    np.testing.assert_array_equal(a.asnumpy(), raw)   # reading works as usual


@pytest.mark.parametrize('key', [slice(None), 0, (1, 2), Ellipsis])
def test_writing_into_read_only_raises(key):
    raw = _read_only()
    a = mx.nd.from_xp(raw)
    with pytest.raises(MXNetError, match=r'read-only.*'):
        a[key] = 7
    with pytest.raises(MXNetError, match=r'\(2, 3\)'):      # the message names the shape
        a[key] = mx.nd.ones((2, 3))[key] if key is not Ellipsis else mx.nd.ones((2, 3))
    np.testing.assert_array_equal(a.asnumpy(), np.arange(6, dtype=np.float32).reshape(2, 3))


def test_read_only_from_dlpack():
    raw = _read_only((3,))
    try:
        capsule = raw.__dlpack__(max_version=(1, 0))
    except TypeError:
        pytest.skip('this numpy makes no DLPack 1.0 capsule')
    assert mx.nd.from_dlpack(capsule).writable is False


def test_copy_of_read_only_can_be_written():
    b = mx.nd.from_xp(_read_only()).copy()
    b[:] = 1
    assert (b.asnumpy() == 1).all()
