"""The strict cupy stand-in (tests/strict_cupy.py) itself: it must refuse what a GPU refuses,
count what a GPU copies, and have cupy's names only, or the strict pass proves nothing.

These tests import the stand-in as a module; they never install it into sys.modules, so
they run the same way in the plain and the strict pass.
"""

import numpy as np
import pytest

import strict_cupy

cp = strict_cupy.cupy
cupyx = strict_cupy.cupyx


@pytest.fixture(autouse=True)
def fresh_counts():
    strict_cupy.TRANSFERS.reset()
    yield


def device(values):
    return cp.asarray(np.asarray(values, dtype=np.float32))


@pytest.mark.parametrize('convert', [
    np.asarray, np.array, float, int, bool, list, lambda x: x.item(), lambda x: x.tolist(),
    lambda x: [v for v in x], lambda x: x.tobytes(),
])
def test_implicit_copies_to_the_host_are_refused(convert):
    x = device([1.0]) if convert in (float, int, bool) else device([1.0, 2.0])
    with pytest.raises(strict_cupy.TransferError, match='implicitly'):
        convert(x)


def test_explicit_copies_are_counted_both_ways():
    x = device([1.0, 2.0])                             # one host-to-device copy
    assert (strict_cupy.TRANSFERS.d2h, strict_cupy.TRANSFERS.h2d) == (0, 1)
    assert x.get().tolist() == [1.0, 2.0]
    assert cp.asnumpy(x * 2).tolist() == [2.0, 4.0]
    assert (strict_cupy.TRANSFERS.d2h, strict_cupy.TRANSFERS.h2d) == (2, 1)
    with strict_cupy.TRANSFERS.forbidden():
        y = x + 1                                      # device work: allowed
        with pytest.raises(strict_cupy.TransferError, match='d2h copy'):
            y.get()
        with pytest.raises(strict_cupy.TransferError, match='h2d copy'):
            cp.asarray(np.ones(2))
        with pytest.raises(strict_cupy.TransferError, match='h2d copy'):
            y[np.array([0])]                            # a host index array is copied over


def test_numpy_functions_go_where_cupy_sends_them():
    x = device([1.0, 4.0])
    assert isinstance(np.sqrt(x), cp.ndarray)           # __array_ufunc__ -> cupy.sqrt
    assert isinstance(np.sum(x), cp.ndarray)            # __array_function__ -> cupy.sum
    assert np.sum(x).shape == ()                        # a 0-d array, never a numpy scalar
    with pytest.raises(TypeError, match='no implementation found'):
        np.insert(x, 0, 1.0)                            # cupy has no insert
    with pytest.raises(TypeError, match='Unsupported type'):
        x + np.ones(2)                                  # a numpy array in a cupy kernel
    with pytest.raises(TypeError, match='Unsupported type'):
        np.ones(2) + x
    assert (np.float32(2) * x).get().tolist() == [2.0, 8.0]   # numpy scalars are fine


def test_only_cupys_names_and_signatures_exist():
    for missing in ('errstate', 'frompyfunc', 'matrix'):
        with pytest.raises(AttributeError, match='real cupy has none'):
            getattr(cp, missing)
    gen = cp.random.Generator(cp.random.XORWOW(0))
    with pytest.raises(AttributeError, match="no attribute 'normal'"):
        gen.normal(size=3)
    with pytest.raises(AttributeError, match="no attribute 'permutation'"):
        gen.permutation(3)
    with pytest.raises(TypeError, match='unexpected keyword argument'):
        gen.poisson(1.0, size=3, dtype=np.float32)      # cupy's poisson takes no dtype
    with pytest.raises(TypeError, match='unexpected keyword argument'):
        cp.sum(device([1.0]), where=True)
    assert not hasattr(device([1.0]), 'itemset')


def test_arrays_keep_to_their_device():
    a = device([1.0])
    with cp.cuda.Device(1):
        b = cp.zeros(1, dtype=np.float32)
    assert (a.device.id, b.device.id) == (0, 1)
    with pytest.raises(ValueError, match='device 1 used on device 0'):
        a + b
    with cp.cuda.Device(1):
        moved = cp.asarray(a)                          # a copy across devices is explicit
    assert moved.device.id == 1


def test_views_write_through_and_scatter_add_accumulates():
    x = cp.zeros(4, dtype=np.float32)
    x[1:3] += 1
    view = x[2:]
    view[...] = 5
    cupyx.scatter_add(x, cp.asarray(np.array([0, 0, 3])), 1.0)
    assert x.get().tolist() == [2.0, 1.0, 5.0, 6.0]
