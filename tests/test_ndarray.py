"""NDArray API and MXNet's binary NDArray file format.

Expected values follow MXNet 1.9.1 (checked against the real library); the
golden files in tests/golden/ were written by MXNet with
tests/golden/gen_ndarray_files.py.
"""

import importlib.util
import json
import os
import stat
import pathlib
import struct
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import reflib as mx
from reflib.base import ContextError, MXNetError
from reflib.ndarray import serialize
from reflib.ndarray.serialize import NDArrayFileError

nd = mx.nd
GOLDEN = pathlib.Path(__file__).parent / 'golden'
MXNET_PYTHON = os.environ.get('REFLIB_MXNET_PYTHON', '/tmp/mxv/bin/python')


def _load_generator():
    spec = importlib.util.spec_from_file_location('gen_ndarray_files', GOLDEN / 'gen_ndarray_files.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _load_generator()


@pytest.fixture
def gpu():
    """gpu(0), or skip when cupy or a CUDA device is missing."""
    pytest.importorskip('cupy')
    if mx.num_gpus() == 0:
        pytest.skip('no CUDA device')
    return mx.gpu(0)


def same(arr, expected, dtype=None):
    """NDArray ``arr`` holds exactly ``expected`` (values, shape, dtype)."""
    expected = np.asarray(expected, dtype=dtype or arr.dtype)
    got = arr.asnumpy()
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected)


# ===================================================================== creation
class TestCreation:
    def test_array_from_list_is_float32(self):
        a = nd.array([[1, 2], [3, 4]])
        assert a.dtype is np.float32
        same(a, [[1, 2], [3, 4]])

    @pytest.mark.parametrize('src', [np.ones(3), np.arange(3), np.array([True, False, True])])
    def test_array_from_numpy_defaults_to_float32(self, src):
        # MXNet 1.x: only an NDArray source keeps its dtype
        a = nd.array(src)
        assert a.dtype is np.float32
        same(a, src.astype(np.float32))

    def test_array_from_ndarray_keeps_dtype(self):
        src = nd.ones((2,), dtype='float64')
        b = nd.array(src)
        assert b.dtype is np.float64
        b[:] = 5
        same(src, [1, 1])                     # a copy

    def test_array_explicit_dtype(self):
        same(nd.array([1.7, -1.7], dtype='int32'), [1, -1])
        same(nd.array(np.array([1.7, 2.0]), dtype=np.float64), [1.7, 2.0])
        assert nd.array((1, 2), dtype=np.int8).dtype is np.int8

    def test_array_copies_numpy_source(self):
        src = np.zeros(3, dtype=np.float32)
        a = nd.array(src)
        src[0] = 9
        same(a, [0, 0, 0])

    def test_array_of_scalar_is_0d(self):
        a = nd.array(3)
        assert a.shape == ()
        assert a.asscalar() == 3.0 and a.dtype is np.float32

    def test_zeros_ones_empty_full(self):
        same(nd.zeros((2, 3)), np.zeros((2, 3), np.float32))
        same(nd.ones(4), np.ones(4, np.float32))
        assert nd.zeros(3).shape == (3,)
        assert nd.empty((2, 2)).shape == (2, 2) and nd.empty((2, 2)).dtype is np.float32
        same(nd.ones((2,), dtype=np.int64), [1, 1], np.int64)
        same(nd.zeros((2,), dtype='float16'), [0, 0], np.float16)
        same(nd.full((2,), 7), [7, 7], np.float32)
        same(nd.full((2,), 7.5, dtype='int32'), [7, 7], np.int32)
        assert nd.zeros((np.int64(2), 1)).shape == (2, 1)

    def test_zeros_like_ones_like(self):
        x = nd.ones((2, 3), dtype='int32', ctx=mx.cpu(1))
        z = nd.zeros_like(x)
        assert z.shape == (2, 3) and z.dtype is np.int32 and z.context == mx.cpu(1)
        same(nd.ones_like(z), np.ones((2, 3), np.int32))

    def test_arange(self):
        same(nd.arange(5), [0, 1, 2, 3, 4], np.float32)
        same(nd.arange(2, 6, 2), [2, 4], np.float32)
        same(nd.arange(0, 1, 0.25), [0, 0.25, 0.5, 0.75], np.float32)
        same(nd.arange(3, 0, -1), [3, 2, 1], np.float32)
        same(nd.arange(3, repeat=2), [0, 0, 1, 1, 2, 2], np.float32)
        same(nd.arange(5, dtype='int32'), [0, 1, 2, 3, 4], np.int32)
        same(nd.arange(0.5, 3, 1, dtype='int32'), [0, 1, 2], np.int32)
        same(nd.arange(0, 1, 0.5, dtype='float64'), [0, 0.5], np.float64)

    def test_arange_uses_mxnet_float32_formula(self):
        # element i is float32(start) + float32(i) * float32(step); numpy's arange differs here
        start, stop, step = 1e6, 1e6 + 50, 0.01
        got = nd.arange(start, stop, step).asnumpy()
        i = np.arange(5000).astype(np.float32)
        expected = np.float32(start) + i * np.float32(step)
        np.testing.assert_array_equal(got, expected)
        assert not np.array_equal(got, np.arange(start, stop, step, dtype=np.float32))


# =================================================================== properties
class TestProperties:
    def test_shape_dtype_size_ndim(self):
        a = nd.zeros((2, 3, 4), dtype='float16')
        assert a.shape == (2, 3, 4) and isinstance(a.shape, tuple)
        assert a.dtype is np.float16                # a numpy type object, as in MXNet
        assert a.size == 24 and a.ndim == 3
        assert a.stype == 'default'
        assert len(a) == 2

    def test_context(self):
        a = nd.ones(2)
        assert a.context == mx.cpu(0) and a.ctx == mx.cpu(0)
        assert isinstance(a.context, mx.Context)

    def test_repr(self):
        assert repr(nd.array([[1, 2, 3], [4, 5, 6]])) == '\n[[1. 2. 3.]\n [4. 5. 6.]]\n<NDArray 2x3 @cpu(0)>'
        assert repr(nd.array([1, 2], dtype='int32')) == '\n[1 2]\n<NDArray 2 @cpu(0)>'
        assert repr(nd.ones((1,), ctx=mx.cpu(1))).endswith('<NDArray 1 @cpu(1)>')
        assert str(nd.array(3)) == '\n3.0\n<NDArray  @cpu(0)>'

    def test_bool(self):
        assert not nd.array([0])
        assert nd.array([2])
        with pytest.raises(ValueError):
            bool(nd.array([0, 1]))


# ====================================================================== copying
class TestCopying:
    def test_asnumpy_is_a_copy(self):
        a = nd.ones(3)
        host = a.asnumpy()
        host[:] = 7
        same(a, [1, 1, 1])

    def test_asscalar(self):
        v = nd.array([3.5]).asscalar()
        assert v == 3.5 and type(v) is np.float32
        assert type(nd.array([3], dtype='int32').asscalar()) is np.int32
        with pytest.raises(ValueError):
            nd.array([3, 4]).asscalar()

    def test_copy_is_independent(self):
        a = nd.ones(3)
        b = a.copy()
        b[:] = 0
        same(a, [1, 1, 1])

    def test_copyto_ndarray_writes_in_place(self):
        a = nd.array([1.7, 2.2])
        target = nd.zeros(2, dtype='int32')
        buf = target._data
        assert a.copyto(target) is target
        assert target._data is buf
        same(target, [1, 2], np.int32)
        with pytest.raises(MXNetError):
            a.copyto(nd.zeros(3))

    def test_copyto_context(self):
        a = nd.array([1, 2])
        b = a.copyto(mx.cpu(1))
        assert b.context == mx.cpu(1)
        b[:] = 0
        same(a, [1, 2])
        with pytest.raises(TypeError):
            a.copyto('cpu')

    def test_as_in_context(self):
        a = nd.ones(2)
        assert a.as_in_context(mx.cpu(0)) is a
        b = a.as_in_context(mx.cpu(1))
        assert b is not a and b.context == mx.cpu(1)
        same(b, [1, 1])

    def test_astype(self):
        same(nd.array([1.7, -1.7]).astype('int32'), [1, -1], np.int32)
        same(nd.array([1.5]).astype(np.float16), [1.5], np.float16)
        a = nd.ones(2)
        assert a.astype('float32', copy=False) is a
        assert a.astype('float32') is not a


class TestReshape:
    def test_reshape_forms(self):
        a = nd.arange(6)
        same(a.reshape((2, 3)), np.arange(6, dtype=np.float32).reshape(2, 3))
        assert a.reshape(3, 2).shape == (3, 2)
        assert a.reshape(shape=(-1, 2)).shape == (3, 2)

    def test_reshape_special_codes(self):
        a = nd.ones((2, 3, 4))
        assert a.reshape((0, -1)).shape == (2, 12)
        assert a.reshape((-1, 4)).shape == (6, 4)
        assert a.reshape((0, 0, -1)).shape == (2, 3, 4)

    def test_reshape_shares_memory(self):
        a = nd.zeros((2, 3))
        a.reshape((3, 2))[0] = 5
        same(a, [[5, 5, 0], [0, 0, 0]])

    def test_reshape_bad_size(self):
        with pytest.raises(MXNetError):
            nd.ones((2, 3)).reshape((4, 2))


# ===================================================================== indexing
class TestIndexing:
    def test_int_index_on_1d_gives_shape_1_view(self):
        a = nd.array([1, 2, 3])
        b = a[1]
        assert b.shape == (1,)
        same(a[-1], [3])
        b[:] = 9
        same(a, [1, 9, 3])

    def test_int_index_on_2d_is_a_view(self):
        a = nd.array([[1, 2], [3, 4]])
        row = a[1]
        assert row.shape == (2,)
        row[:] = 9
        same(a, [[1, 2], [9, 9]])

    def test_element_index_is_a_view_of_shape_1(self):
        a = nd.array([[1, 2], [3, 4]])
        e = a[1, 1]
        assert e.shape == (1,)
        e[:] = 0
        same(a, [[1, 2], [3, 0]])

    def test_basic_slice_shares_memory(self):
        a = nd.array([1, 2, 3, 4])
        s = a[1:3]
        same(s, [2, 3])
        s[:] = 9
        same(a, [1, 9, 9, 4])

    @pytest.mark.parametrize('key', [(slice(None), 1), slice(None, None, 2)])
    def test_non_contiguous_slice_is_a_copy(self, key):
        # MXNet only shares memory when the selected block is contiguous
        a = nd.array(np.arange(6).reshape(2, 3)) if isinstance(key, tuple) else nd.arange(5)
        before = a.asnumpy()
        b = a[key]
        b[:] = -1
        same(a, before)

    def test_out_of_range(self):
        with pytest.raises(IndexError):
            nd.array([1, 2, 3])[5]

    def test_advanced_index_is_a_copy(self):
        a = nd.array([10, 20, 30])
        b = a[nd.array([2, 0])]
        same(b, [30, 10])
        b[:] = 0
        same(a, [10, 20, 30])
        same(nd.array(np.arange(6).reshape(2, 3))[[0, 1], [1, 2]], [1, 5])

    def test_iteration(self):
        assert [x.shape for x in nd.ones((2, 3))] == [(3,), (3,)]

    def test_setitem_forms(self):
        a = nd.zeros((2, 3))
        buf = a._data
        a[1] = 3
        a[0, 1] = 5
        a[:, 2] = nd.array([7, 8])
        same(a, [[0, 5, 7], [3, 3, 8]])
        assert a._data is buf
        a[:] = np.arange(6).reshape(2, 3)
        same(a, np.arange(6).reshape(2, 3))
        a[:] = nd.array([1, 2, 3])                 # broadcast
        same(a, [[1, 2, 3], [1, 2, 3]])
        a[:] = [[0, 0, 0], [1, 1, 1]]
        same(a, [[0, 0, 0], [1, 1, 1]])
        a[nd.array([0])] = 4
        same(a, [[4, 4, 4], [1, 1, 1]])

    def test_setitem_casts_to_target_dtype(self):
        a = nd.zeros(2, dtype='int32')
        a[:] = 2.7
        same(a, [2, 2], np.int32)
        b = nd.zeros(2)
        b[:] = nd.array([1.5, 2], dtype='float64')
        same(b, [1.5, 2], np.float32)

    def test_setitem_shape_mismatch(self):
        with pytest.raises(MXNetError, match='shape'):
            nd.zeros((2, 2))[1] = nd.array([7, 8, 9])


# =================================================================== arithmetic
class TestArithmetic:
    def test_broadcasting(self):
        same(nd.ones((2, 3)) + nd.array([1, 2, 3]), [[2, 3, 4], [2, 3, 4]])
        same(nd.ones((2, 3)) * nd.array([[1], [2]]), [[1, 1, 1], [2, 2, 2]])
        same(nd.ones((2, 3)) + nd.ones((1,)), np.full((2, 3), 2))
        with pytest.raises(MXNetError, match='broadcast'):
            nd.ones((2, 3)) + nd.ones((2,))

    def test_scalar_ops_both_sides(self):
        a = nd.array([1, 2, 4])
        same(a + 1, [2, 3, 5])
        same(1 - a, [0, -1, -3])
        same(2 * a, [2, 4, 8])
        same(4 / a, [4, 2, 1])
        same(a / 2, [0.5, 1, 2])
        same(a ** 2, [1, 4, 16])
        same(2 ** a, [2, 4, 16])
        same(-a, [-1, -2, -4])
        same(abs(nd.array([-1, 2])), [1, 2])

    def test_scalar_is_cast_to_array_dtype_first(self):
        i = nd.array([7, -7], dtype='int32')
        same(i * 1.5, [7, -7], np.int32)           # 1.5 -> 1
        same(i + 0.5, [7, -7], np.int32)
        same(2.5 - i, [-5, 9], np.int32)
        same(i / 2.5, [3, -3], np.int32)
        same(nd.array([1, 2], dtype='int32') < 1.5, [0, 0], np.int32)
        same(nd.array([1, 2], dtype='int32') == 1.5, [1, 0], np.int32)
        # a float64 scalar does not promote a float32 array
        same(nd.array([1, 2]) + np.float64(0.1), np.array([1, 2], np.float32) + np.float32(0.1))
        same(nd.array([1, 2], dtype='float16') + 0.1, [1.0996, 2.0996], np.float16)

    def test_integer_division_truncates(self):
        i = nd.array([7, -7], dtype='int32')
        same(i / 2, [3, -3], np.int32)
        same(i / nd.array([2, 2], dtype='int32'), [3, -3], np.int32)
        same(7 / nd.array([2], dtype='int32'), [3], np.int32)
        with pytest.raises(MXNetError, match='division by zero'):
            i / 0
        with pytest.raises(TypeError):
            i // 2                                   # MXNet NDArray has no floor division

    def test_mod_and_power(self):
        same(nd.array([7, -7], dtype='int32') % 3, [1, 2], np.int32)
        same(nd.array([7, -7]) % 3, [1, 2])
        same(nd.array([7, -7]) % -3, [-2, -1])
        same(nd.array([7, -7], dtype='int32') ** 2, [49, 49], np.int32)
        same(nd.array([2], dtype='int32') ** -1, [0], np.int32)

    def test_integer_overflow_wraps(self):
        same(nd.array([250], dtype='uint8') + 10, [4], np.uint8)
        same(nd.array([0], dtype='uint8') - 1, [255], np.uint8)

    def test_mixed_dtypes_raise(self):
        with pytest.raises(MXNetError, match='dtype'):
            nd.array([1, 2]) + nd.array([1, 2], dtype='float64')
        with pytest.raises(MXNetError, match='dtype'):
            nd.ones(2) == nd.ones(2, dtype='int32')

    def test_unsupported_operand(self):
        with pytest.raises(TypeError):
            nd.ones(2) + np.ones(2)
        with pytest.raises(TypeError):
            nd.ones(2) + [1, 2]

    def test_comparisons_give_0_1_of_same_dtype(self):
        a, b = nd.array([1, 2, 3]), nd.array([1, 3, 2])
        for got, expected in [(a == b, [1, 0, 0]), (a != b, [0, 1, 1]), (a > b, [0, 0, 1]),
                              (a >= b, [1, 0, 1]), (a < b, [0, 1, 0]), (a <= b, [1, 1, 0]),
                              (a == 2, [0, 1, 0])]:
            same(got, expected, np.float32)
        same(nd.array([1, 2], dtype='int8') > 1, [0, 1], np.int8)

    def test_inplace_mutates_same_buffer(self):
        w = nd.ones(2)
        alias, buf = w, w._data
        w -= nd.array([0.5, 1])
        assert w is alias and w._data is buf
        same(alias, [0.5, 0])
        w += 1
        w *= 2
        w /= 4
        same(alias, [0.75, 0.5])

    def test_rebinding_leaves_old_array(self):
        w = nd.ones(2)
        alias = w
        w = w - nd.array([0.5, 1])
        assert w is not alias
        same(alias, [1, 1])
        same(w, [0.5, 0])

    def test_inplace_on_a_view_writes_through(self):
        a = nd.array([1, 2, 3])
        v = a[1:]
        v += 10
        same(a, [1, 12, 13])

    def test_inplace_integer_rules(self):
        a = nd.array([7, -7], dtype='int32')
        a += 1.5                                     # 1.5 -> 1
        same(a, [8, -6], np.int32)
        a /= 4
        same(a, [2, -1], np.int32)

    def test_inplace_cannot_grow(self):
        with pytest.raises(MXNetError):
            a = nd.ones(2)
            a += nd.ones((2, 2))

    def test_reductions_keep_dtype(self):
        i = nd.array([[3, -1], [2, 5]], dtype='int32')
        same(i.sum(), [9], np.int32)
        same(i.sum(axis=0), [5, 4], np.int32)
        same(i.mean(axis=0), [2, 2], np.int32)          # integer mean truncates
        same(i.max(), [5], np.int32)
        same(i.argmax(axis=1), [0, 1], np.int32)
        same(nd.ones((2, 3)).sum(axis=1, keepdims=True), [[3], [3]])
        same(nd.ones((1, 2, 3)).T, np.ones((3, 2, 1)))
        same(i.clip(0, 2.5), [[2, 0], [2, 2]], np.int32)


# ===================================================================== contexts
class TestContexts:
    def test_cpu1_arrays(self):
        a = nd.ones(2, ctx=mx.cpu(1))
        assert a.context == mx.cpu(1)
        assert (a * 2).context == mx.cpu(1)
        assert nd.array([1], mx.cpu(1)).context == mx.cpu(1)
        with mx.cpu(2):
            assert nd.zeros(2).context == mx.cpu(2)
        assert nd.zeros(2).context == mx.cpu(0)

    def test_cpu_contexts_mix_like_mxnet(self):
        # MXNet lets cpu(0) and cpu(1) arrays meet in one op; the result
        # lives on the left operand's context
        a, b = nd.ones(2, ctx=mx.cpu(1)), nd.ones(2)
        assert (a + b).context == mx.cpu(1)
        assert (b + a).context == mx.cpu(0)
        same(a + b, [2, 2])

    @pytest.mark.skipif(mx.num_gpus() > 0, reason='a GPU is usable here')
    def test_gpu_without_cupy_raises_context_error(self):
        with pytest.raises(ContextError, match='cupy'):
            nd.ones(2, ctx=mx.gpu(0))
        with pytest.raises(ContextError):
            nd.array([1, 2], ctx=mx.gpu(0))
        with pytest.raises(ContextError):
            nd.ones(2).as_in_context(mx.gpu(0))

    def test_gpu_arrays(self, gpu):
        a = nd.array([1, 2], ctx=gpu)
        assert a.context == gpu
        same(a * 2 + 1, [3, 5])
        same(a.as_in_context(mx.cpu()), [1, 2])

    def test_gpu_cpu_mix_raises(self, gpu):
        with pytest.raises(MXNetError, match='context'):
            nd.ones(2, ctx=gpu) + nd.ones(2)


# ================================================================ save and load
ALL_DTYPES = [np.float32, np.float64, np.float16, np.uint8, np.int32, np.int8, np.int64, np.bool_]


def nd_exact(x, ctx=None):
    """An NDArray with x's exact dtype (nd.array alone would give float32)."""
    return nd.array(x, ctx=ctx, dtype=x.dtype)


def assert_loaded(arr, expected):
    assert isinstance(arr, nd.NDArray)
    assert arr.shape == expected.shape
    assert arr.dtype is expected.dtype.type
    assert arr.context == mx.cpu(0)
    assert arr.asnumpy().tobytes() == expected.tobytes()


class TestSaveLoad:
    def test_list_round_trip(self, tmp_path):
        arrays = [nd.array([[1, 2], [3, 4]]), nd.arange(5, dtype='int64')]
        path = tmp_path / 'x.nd'
        nd.save(str(path), arrays)
        back = nd.load(str(path))
        assert isinstance(back, list) and len(back) == 2
        for a, b in zip(arrays, back):
            assert_loaded(b, a.asnumpy())

    def test_dict_round_trip_keeps_order(self, tmp_path):
        params = {'z': nd.ones(1), 'a': nd.zeros((2, 2)), 'poids_\u00e9': nd.array([3])}
        nd.save(str(tmp_path / 'p.params'), params)
        back = nd.load(str(tmp_path / 'p.params'))
        assert isinstance(back, dict) and list(back) == ['z', 'a', 'poids_\u00e9']
        for k in params:
            assert_loaded(back[k], params[k].asnumpy())

    def test_single_array_loads_as_list(self, tmp_path):
        nd.save(str(tmp_path / 's.nd'), nd.ones((2,)))
        back = nd.load(str(tmp_path / 's.nd'))
        assert isinstance(back, list) and len(back) == 1

    @pytest.mark.parametrize('empty', [[], {}])
    def test_empty_containers_load_as_empty_list(self, tmp_path, empty):
        nd.save(str(tmp_path / 'e.nd'), empty)
        assert nd.load(str(tmp_path / 'e.nd')) == []

    @pytest.mark.parametrize('dtype', ALL_DTYPES)
    def test_every_dtype(self, tmp_path, dtype):
        x = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
        nd.save(str(tmp_path / 'd.nd'), [nd_exact(x)])
        assert_loaded(nd.load(str(tmp_path / 'd.nd'))[0], x)

    def test_zero_size_and_0d(self, tmp_path):
        with mx.np_shape():
            arrays = [nd.zeros((2, 0)), nd.array(2.5)]
            nd.save(str(tmp_path / 'z.nd'), arrays)
            a, b = nd.load(str(tmp_path / 'z.nd'))
        assert a.shape == (2, 0)
        assert b.shape == () and b.asscalar() == 2.5

    def test_a_0d_array_outside_np_shape_is_refused(self, tmp_path):
        with pytest.raises(mx.MXNetError, match=r"0-d array\(s\) \['b'\].*mx.np_shape"):
            nd.save(str(tmp_path / 's.nd'), {'a': nd.ones(2), 'b': nd.array(2.5)})
        assert not (tmp_path / 's.nd').exists()

    def test_each_semantics_loads_only_its_own_files(self, tmp_path):
        """MXNet 1.9.1's record magic follows the shape semantics (0xF993FAC9 legacy,
        0xF993FACA numpy-shape), and a file is loaded only in the semantics it was saved in."""
        legacy, numpy_shape = str(tmp_path / 'legacy.nd'), str(tmp_path / 'np.nd')
        nd.save(legacy, [nd.array([[1, 2, 3]]), nd.array(np.zeros((0, 4)))])
        with mx.np_shape():
            nd.save(numpy_shape, [nd.array([[1, 2, 3]]), nd.zeros((0, 4))])
        assert struct.unpack_from('<I', open(legacy, 'rb').read(), 24) == (0xF993FAC9,)
        assert struct.unpack_from('<I', open(numpy_shape, 'rb').read(), 24) == (0xF993FACA,)
        assert [a.shape for a in nd.load(legacy)] == [(1, 3), (0, 4)]
        with pytest.raises(mx.MXNetError, match='saved inside NumPy shape semantics.*np_shape\\(True\\)'):
            nd.load(numpy_shape)
        with mx.np_shape():
            assert [a.shape for a in nd.load(numpy_shape)] == [(1, 3), (0, 4)]
            with pytest.raises(mx.MXNetError, match='np_shape\\(False\\)'):
                nd.load(legacy)

    def test_pathlike_and_bad_fname(self, tmp_path):
        nd.save(tmp_path / 'p.nd', [nd.ones(1)])
        assert len(nd.load(tmp_path / 'p.nd')) == 1
        with pytest.raises(TypeError):
            nd.save(3, [nd.ones(1)])
        with pytest.raises(TypeError):
            nd.load(3)

    def test_other_contexts_load_to_cpu0(self, tmp_path):
        nd.save(str(tmp_path / 'c.nd'), [nd.ones(2, ctx=mx.cpu(1)), nd.ones(2, ctx=mx.cpu_pinned(0))])
        assert [a.context for a in nd.load(str(tmp_path / 'c.nd'))] == [mx.cpu(0), mx.cpu(0)]

    def test_gpu_array_saved_from_host(self, tmp_path, gpu):
        nd.save(str(tmp_path / 'g.nd'), {'w': nd.array([1, 2], ctx=gpu)})
        raw = (tmp_path / 'g.nd').read_bytes()
        assert struct.unpack_from('<ii', raw, 44) == (2, 0)     # record says gpu(0)
        back = nd.load(str(tmp_path / 'g.nd'))['w']
        assert back.context == gpu
        same(back, [1, 2])

    def test_bad_data_types(self, tmp_path):
        path = str(tmp_path / 'bad.nd')
        with pytest.raises(TypeError):
            nd.save(path, [np.ones(2)])
        with pytest.raises(TypeError):
            nd.save(path, {1: nd.ones(1)})
        with pytest.raises(ValueError):
            nd.save(path, (nd.ones(1),))         # MXNet rejects tuples too
        with pytest.raises(MXNetError, match='dtype'):
            nd.save(path, [nd.NDArray(np.ones(2, np.uint16))])
        assert not os.path.exists(path)

    def test_load_frombuffer_and_save_to_bytes(self, tmp_path):
        data = {'a': nd.ones((2, 3)), 'b': nd.arange(4, dtype='int8')}
        path = tmp_path / 'b.nd'
        nd.save(str(path), data)
        raw = path.read_bytes()
        assert serialize.save_to_bytes(data) == raw
        for buf in (raw, bytearray(raw), memoryview(raw)):
            back = nd.load_frombuffer(buf)
            assert list(back) == ['a', 'b']
            assert_loaded(back['b'], np.arange(4, dtype=np.int8))
        with pytest.raises(TypeError):
            nd.load_frombuffer('not bytes')

    def test_saving_does_not_change_the_arrays(self, tmp_path):
        a = nd.array([1, 2])
        nd.save(str(tmp_path / 'x.nd'), [a])
        a[:] = 5
        same(nd.load(str(tmp_path / 'x.nd'))[0], [1, 2])


# ========================================================= golden MXNet files
class TestGoldenFiles:
    def test_list_written_by_mxnet(self):
        back = nd.load(str(GOLDEN / 'mx_list.nd'))
        expected = list(gen.golden_arrays().values())
        assert len(back) == len(expected)
        for arr, x in zip(back, expected):
            assert_loaded(arr, x)

    def test_dict_written_by_mxnet(self):
        back = nd.load(str(GOLDEN / 'mx_dict.nd'))
        expected = gen.golden_arrays()
        assert list(back) == list(expected)
        for k, x in expected.items():
            assert_loaded(back[k], x)

    def test_model_params_written_by_mxnet(self):
        back = nd.load(str(GOLDEN / 'mx_model.params'))
        expected = gen.params_arrays()
        assert list(back) == list(expected)
        for k, x in expected.items():
            assert_loaded(back[k], x)

    def test_single_empty_ctx_npshape(self):
        arrays = gen.golden_arrays()
        (single,) = nd.load(str(GOLDEN / 'mx_single.nd'))
        assert_loaded(single, arrays['f32_2x3'])
        assert nd.load(str(GOLDEN / 'mx_empty.nd')) == []
        a, b = nd.load(str(GOLDEN / 'mx_ctx.nd'))            # saved from cpu(1), cpu_pinned(0)
        assert_loaded(a, arrays['f32_2x3'])
        assert_loaded(b, arrays['i32_3x1'])
        with mx.np_shape():       # MXNet saved it in numpy-shape form, which loads only there
            (scalar,) = nd.load(str(GOLDEN / 'mx_npshape_scalar.nd'))
        assert_loaded(scalar, np.array(2.5, dtype=np.float32))

    # reflib writes exactly the bytes MXNet wrote (MXNet's output is deterministic)
    @pytest.mark.parametrize('fname, build', [
        ('mx_list.nd', lambda: [nd_exact(x) for x in gen.golden_arrays().values()]),
        ('mx_dict.nd', lambda: {k: nd_exact(x) for k, x in gen.golden_arrays().items()}),
        ('mx_model.params', lambda: {k: nd_exact(x) for k, x in gen.params_arrays().items()}),
        ('mx_single.nd', lambda: nd_exact(gen.golden_arrays()['f32_2x3'])),
        ('mx_empty.nd', lambda: []),
        ('mx_ctx.nd', lambda: [nd_exact(gen.golden_arrays()['f32_2x3'], mx.cpu(1)),
                               nd_exact(gen.golden_arrays()['i32_3x1'], mx.cpu_pinned(0))]),
        ('mx_npshape_scalar.nd', lambda: [nd.array(2.5)]),
    ])
    def test_reflib_bytes_equal_mxnet_bytes(self, tmp_path, fname, build):
        out = tmp_path / fname
        with mx.np_shape('npshape' in fname):
            nd.save(str(out), build())
        assert out.read_bytes() == (GOLDEN / fname).read_bytes()

    def test_load_then_save_reproduces_mxnet_bytes(self, tmp_path):
        for fname in ('mx_list.nd', 'mx_dict.nd', 'mx_model.params'):
            nd.save(str(tmp_path / fname), nd.load(str(GOLDEN / fname)))
            assert (tmp_path / fname).read_bytes() == (GOLDEN / fname).read_bytes()

    def test_older_record_forms(self):
        # MXNet 1.9.1 still reads these two older record layouts (checked); so does reflib
        header, tail = struct.pack('<QQQ', 0x112, 0, 1), struct.pack('<Q', 0)
        data = np.arange(6, dtype=np.float32).reshape(2, 3)
        v1 = struct.pack('<IIqqiii', 0xF993FAC8, 2, 2, 3, 1, 0, 0)       # int64 dims
        v0 = struct.pack('<IIIiii', 2, 2, 3, 1, 0, 0)                      # no magic, uint32 dims
        for record in (v1, v0):
            (arr,) = nd.load_frombuffer(header + record + data.tobytes() + tail)
            assert_loaded(arr, data)

    def test_gpu_record_loads_on_cpu_without_gpu(self):
        if mx.num_gpus() > 0:
            pytest.skip('a GPU is usable here; the array would go to it')
        buf = (struct.pack('<QQQ', 0x112, 0, 1) + struct.pack('<IiIqiii', 0xF993FAC9, 0, 1, 2, 2, 0, 0)
               + np.array([7, 8], np.float32).tobytes() + struct.pack('<Q', 0))
        (arr,) = nd.load_frombuffer(buf)
        assert_loaded(arr, np.array([7, 8], np.float32))

    def test_mxnets_row_sparse_file_loads_and_saves_back_byte_for_byte(self, tmp_path):
        (rsp,) = nd.load(str(GOLDEN / 'mx_row_sparse.nd'))
        assert isinstance(rsp, nd.RowSparseNDArray) and rsp.stype == 'row_sparse'
        nd.save(str(tmp_path / 'again.nd'), [rsp])
        assert (tmp_path / 'again.nd').read_bytes() == (GOLDEN / 'mx_row_sparse.nd').read_bytes()

    @pytest.mark.skipif(not os.path.exists(MXNET_PYTHON), reason='no MXNet interpreter at %s' % MXNET_PYTHON)
    def test_mxnet_reads_reflib_files(self, tmp_path):
        """The real MXNet loads reflib's files (skipped where no MXNet interpreter is around)."""
        plain = gen.golden_arrays()
        # a file with a 0-d array is saved in numpy-shape form; MXNet reads it inside np_shape(True)
        with_0d = dict(plain, f32_0d=np.array(1.5, dtype=np.float32))
        script = ('import sys, json, numpy as np, mxnet as mx\n'
                  'with mx.util.np_shape(sys.argv[2] == "np"):\n'
                  '    d = mx.nd.load(sys.argv[1])\n'
                  '    print(json.dumps({k: [np.dtype(v.dtype).name, list(v.shape), v.asnumpy().tobytes().hex()]'
                  ' for k, v in d.items()}))\n')
        for arrays, mode in ((plain, 'legacy'), (with_0d, 'np')):
            path = tmp_path / ('reflib_%s.params' % mode)
            with mx.np_shape(mode == 'np'):
                nd.save(str(path), {k: nd_exact(x) for k, x in arrays.items()})
            proc = subprocess.run([MXNET_PYTHON, '-c', script, str(path), mode], capture_output=True,
                                  text=True, timeout=300)
            assert proc.returncode == 0, proc.stderr[-2000:]
            got = json.loads(proc.stdout.strip().splitlines()[-1])
            assert list(got) == list(arrays)
            for k, x in arrays.items():
                assert got[k] == [x.dtype.name, list(x.shape), x.tobytes().hex()], k


# ================================================================ bad files
def _golden_bytes():
    return (GOLDEN / 'mx_dict.nd').read_bytes()


class TestBadFiles:
    def test_every_truncation_is_a_clear_error(self, tmp_path):
        raw = _golden_bytes()
        path = tmp_path / 'cut.nd'
        for n in range(len(raw)):
            path.write_bytes(raw[:n])
            with pytest.raises(NDArrayFileError) as info:
                nd.load(str(path))
            assert str(path) in str(info.value)
            assert 'truncated' in str(info.value) or n == 0
            with pytest.raises(NDArrayFileError):
                nd.load_frombuffer(raw[:n])

    def test_truncation_names_the_array(self, tmp_path):
        raw = (GOLDEN / 'mx_list.nd').read_bytes()
        path = tmp_path / 'cut.nd'
        path.write_bytes(raw[:200])
        with pytest.raises(MXNetError, match=r'truncated.*array \d+ of 10'):
            nd.load(str(path))

    @pytest.mark.parametrize('content', [b'', b'\x89PNG\r\n\x1a\n' + bytes(64), b'hello, this is a text file\n' * 4,
                                         b'PK\x03\x04' + bytes(100)])
    def test_foreign_files(self, tmp_path, content):
        path = tmp_path / 'foreign.params'
        path.write_bytes(content)
        with pytest.raises(MXNetError, match='foreign.params') as info:
            nd.load(str(path))
        assert ('bad magic' in str(info.value)) or ('truncated' in str(info.value) and not content)

    def test_corrupt_fields(self):
        raw = _golden_bytes()
        header = 24                                  # list magic, reserved, count
        cases = {
            'bad magic': b'\x13' + raw[1:],
            # first record: magic +0, storage +4, ndim +8, two int64 dims +12, device +28, +32, dtype +36
            'unknown or unsupported dtype flag 99': raw[:header + 36] + struct.pack('<i', 99) + raw[header + 40:],
            'unknown device type 9': raw[:header + 28] + struct.pack('<i', 9) + raw[header + 32:],
            'unknown storage type 7': raw[:header + 4] + struct.pack('<i', 7) + raw[header + 8:],
            'implausible ndim': raw[:header + 8] + struct.pack('<i', 1000) + raw[header + 12:],
            'announces 1099511627776 arrays': raw[:16] + struct.pack('<Q', 2 ** 40) + raw[24:],
        }
        for message, buf in cases.items():
            with pytest.raises(NDArrayFileError, match=message):
                nd.load_frombuffer(buf)

    def test_implausible_shape(self):
        # a zero dimension next to a huge one: no data bytes, but no array either
        buf = (struct.pack('<QQQ', 0x112, 0, 1) + struct.pack('<IiIqqiii', 0xF993FAC9, 0, 2, 0, 2 ** 61, 1, 0, 0)
               + struct.pack('<Q', 0))
        with pytest.raises(NDArrayFileError, match='implausible shape'):
            nd.load_frombuffer(buf)

    def test_name_count_mismatch(self):
        raw = (GOLDEN / 'mx_single.nd').read_bytes()
        buf = raw[:-8] + struct.pack('<Q', 2) + struct.pack('<Q', 1) + b'a' + struct.pack('<Q', 1) + b'b'
        with pytest.raises(NDArrayFileError, match='2 names for 1 arrays'):
            nd.load_frombuffer(buf)

    def test_trailing_bytes_are_ignored_like_mxnet(self):
        back = nd.load_frombuffer(_golden_bytes() + b'junk')
        assert list(back) == list(gen.golden_arrays())

    def test_missing_file(self, tmp_path):
        with pytest.raises(MXNetError, match='nope.nd'):
            nd.load(str(tmp_path / 'nope.nd'))

    @settings(max_examples=200, deadline=None)
    @given(st.data())
    def test_random_corruption_never_leaks_raw_errors(self, data):
        raw = bytearray(_golden_bytes())
        for _ in range(data.draw(st.integers(1, 4))):
            pos = data.draw(st.integers(0, len(raw) - 1))
            raw[pos] = data.draw(st.integers(0, 255))
        try:
            back = nd.load_frombuffer(bytes(raw))
        except MXNetError:
            return
        assert isinstance(back, (list, dict))


# ================================================================ atomic save
class TestAtomicSave:
    def _crash_after_first_array(self, monkeypatch):
        real = serialize._record
        calls = []

        def crashing(arr, *rest):
            calls.append(arr)
            if len(calls) == 2:
                raise RuntimeError('simulated crash mid-write')
            return real(arr, *rest)

        monkeypatch.setattr(serialize, '_record', crashing)

    def test_crash_mid_write_keeps_old_file(self, tmp_path, monkeypatch):
        path = tmp_path / 'model.params'
        nd.save(str(path), {'w': nd.ones((2, 2))})
        before = path.read_bytes()
        self._crash_after_first_array(monkeypatch)
        with pytest.raises(RuntimeError, match='simulated crash'):
            nd.save(str(path), {'w': nd.zeros((50, 50)), 'b': nd.zeros(50)})
        assert path.read_bytes() == before
        assert sorted(os.listdir(tmp_path)) == ['model.params']      # no temp file left
        assert_loaded(nd.load(str(path))['w'], np.ones((2, 2), np.float32))

    def test_crash_without_previous_file_leaves_nothing(self, tmp_path, monkeypatch):
        self._crash_after_first_array(monkeypatch)
        with pytest.raises(RuntimeError):
            nd.save(str(tmp_path / 'new.nd'), [nd.ones(1), nd.ones(1)])
        assert os.listdir(tmp_path) == []

    def test_failed_replace_is_an_mxnet_error_and_cleans_up(self, tmp_path, monkeypatch):
        path = tmp_path / 'model.params'
        nd.save(str(path), [nd.ones(1)])
        before = path.read_bytes()

        def failing_replace(src, dst):
            raise OSError(28, 'No space left on device')

        monkeypatch.setattr(serialize.os, 'replace', failing_replace)
        with pytest.raises(MXNetError, match='model.params'):
            nd.save(str(path), [nd.zeros(3)])
        assert path.read_bytes() == before
        assert os.listdir(tmp_path) == ['model.params']

    def test_missing_directory(self, tmp_path):
        with pytest.raises(MXNetError, match='no_such_dir'):
            nd.save(str(tmp_path / 'no_such_dir' / 'x.nd'), [nd.ones(1)])

    def test_save_writes_through_symlink(self, tmp_path):
        real = tmp_path / 'real.params'
        link = tmp_path / 'link.params'
        nd.save(str(real), [nd.ones(1)])
        link.symlink_to(real)
        nd.save(str(link), [nd.zeros(3)])
        assert link.is_symlink()
        same(nd.load(str(real))[0], [0, 0, 0])
        assert sorted(os.listdir(tmp_path)) == ['link.params', 'real.params']

    def test_save_into_a_named_pipe_or_dev_null_writes_into_it(self, tmp_path):
        # a rename over a target that is no regular file would replace the pipe (or the
        # device: /dev/null became a plain file once, breaking every later '> /dev/null')
        pipe = tmp_path / 'pipe'
        os.mkfifo(pipe)
        got = []
        reader = threading.Thread(target=lambda: got.append(pipe.read_bytes()))
        reader.start()
        nd.save(str(pipe), [nd.ones(2)])
        reader.join(timeout=10)
        assert stat.S_ISFIFO(os.stat(pipe).st_mode)
        assert got and got[0].startswith(b'\x12\x01\x00\x00\x00\x00\x00\x00')   # MXNet's list magic
        before = os.stat(os.devnull)
        nd.save(os.devnull, [nd.ones(2)])
        after = os.stat(os.devnull)
        assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino

    def test_overwrite_and_permissions(self, tmp_path):
        path = tmp_path / 'x.nd'
        reference = tmp_path / 'plain'
        reference.write_bytes(b'')
        nd.save(str(path), [nd.ones(1)])
        assert os.stat(path).st_mode & 0o777 == os.stat(reference).st_mode & 0o777
        os.chmod(path, 0o640)
        nd.save(str(path), [nd.zeros(2)])
        assert os.stat(path).st_mode & 0o777 == 0o640
        same(nd.load(str(path))[0], [0, 0])
        assert sorted(os.listdir(tmp_path)) == ['plain', 'x.nd']


# ============================================================ property test
_dtypes = st.sampled_from(ALL_DTYPES)
_arrays = _dtypes.flatmap(lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0,
                                                                     max_side=4)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.lists(_arrays, max_size=5),
                 st.dictionaries(st.text(min_size=0, max_size=12), _arrays, max_size=5)))
def test_round_trip_property(tmp_path, data):
    wrapped = ({k: nd_exact(x) for k, x in data.items()} if isinstance(data, dict)
               else [nd_exact(x) for x in data])
    path = tmp_path / 'prop.nd'
    # a 0-d array has only the numpy-shape record form, which saves and loads inside np_shape
    scalars = any(arr.ndim == 0 for arr in (wrapped.values() if isinstance(wrapped, dict) else wrapped))
    with mx.np_shape(scalars):
        nd.save(str(path), wrapped)
        back = nd.load(str(path))
        assert nd.load_frombuffer(path.read_bytes()).__class__ is back.__class__
    if isinstance(data, dict) and data:
        assert list(back) == list(data)
        pairs = [(back[k], data[k]) for k in data]
    else:
        assert isinstance(back, list) and len(back) == len(data)
        pairs = list(zip(back, data.values() if isinstance(data, dict) else data))
    for arr, x in pairs:
        assert_loaded(arr, x.copy(order="C"))
    # saving what was loaded reproduces the file byte for byte
    with mx.np_shape(scalars):
        assert serialize.save_to_bytes(back) == path.read_bytes()


def test_norm_function_and_method_match_mxnet():
    # MXNet 1.9.1: nd.norm([[3,4],[6,8]]) = [11.18034]; axis=1 -> [5, 10]
    a = mx.nd.array([[3, 4], [6, 8]])
    np.testing.assert_allclose(mx.nd.norm(a).asnumpy(), [11.18034], rtol=1e-6)
    np.testing.assert_allclose(mx.nd.norm(a, axis=1).asnumpy(), [5, 10])
    np.testing.assert_allclose(a.norm(ord=1).asnumpy(), [21])
    assert mx.nd.norm(a).dtype == np.float32


def test_nd_random_namespace_is_mx_random():
    mx.random.seed(7)
    first = mx.nd.random.uniform(shape=(3,)).asnumpy()
    mx.random.seed(7)
    np.testing.assert_array_equal(first, mx.random.uniform(shape=(3,)).asnumpy())


# ---------------------------------------------------------------- operator calls infer dtypes as MXNet
def test_an_operator_call_with_disagreeing_dtypes_is_refused_naming_the_input():
    from reflib.base import TypeInferError
    data = mx.nd.array(np.ones((2, 3)), dtype=np.int32)
    with pytest.raises(TypeInferError, match=r"nd.FullyConnected: input 'weight' is float32, but FullyConnected "
                                             r"needs int32"):
        mx.nd.FullyConnected(data, mx.nd.ones((2, 3)), mx.nd.ones((2,)), num_hidden=2)
    with pytest.raises(TypeInferError, match=r"nd.elemwise_add: input 'rhs' is float32"):
        mx.nd.elemwise_add(data, mx.nd.ones((2, 3)))


def test_an_operator_call_returns_the_dtypes_type_inference_gives():
    data = mx.nd.array(np.ones((2, 3)), dtype=np.int32)
    out = mx.nd.FullyConnected(data, mx.nd.ones((2, 3), dtype=np.int32), mx.nd.ones((2,), dtype=np.int32),
                               num_hidden=2)
    assert out.dtype == np.int32 and out.asnumpy().tolist() == [[4, 4], [4, 4]]
    assert mx.nd.argmax(mx.nd.array([[1, 3, 2]]), axis=1).dtype == np.float32     # MXNet: the input's dtype
    assert mx.nd.Cast(data, dtype='float16').dtype == np.float16


# MXNet 1.9.1's mx.nd.arange(1).__getstate__() (a CPU array), and the same array saved on gpu(0)
MXNET_STATE_ARANGE_1 = bytes.fromhex('c9fa93f9000000000100000001000000000000000100000000000000'
                                     '0000000000000000')
MXNET_STATE_GPU_ARANGE_1 = bytes.fromhex('c9fa93f9000000000100000001000000000000000200000000000000'
                                         '0000000000000000')


def test_pickle_state_is_mxnets():
    """An NDArray pickles as MXNet's does: {'handle': its .nd record}, so pickles travel both
    ways; a record saved on a GPU loads on the CPU where there is none."""
    assert mx.nd.arange(1).__getstate__() == {'handle': bytearray(MXNET_STATE_ARANGE_1)}
    a = mx.nd.arange(3)
    a.__setstate__({'handle': bytearray(MXNET_STATE_GPU_ARANGE_1)})
    assert a.shape == (1,) and a.asnumpy().tolist() == [0.0]
    with pytest.raises(mx.base.MXNetError, match='pickled NDArray'):
        a.__setstate__({'handle': bytearray(MXNET_STATE_ARANGE_1[:-3])})


def test_dlpack_shares_memory_both_ways():
    a = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    read = mx.nd.from_dlpack(a.to_dlpack_for_read())
    np.testing.assert_array_equal(read.asnumpy(), a.asnumpy())
    written = mx.nd.from_dlpack(mx.nd.to_dlpack_for_write(a))
    written[:] = 7                                   # the same memory
    assert a.asnumpy().tolist() == [[7.0] * 3] * 2
    host = np.arange(4, dtype=np.int32)
    from_numpy = mx.nd.from_dlpack(host)             # any producer with __dlpack__
    assert from_numpy.dtype == np.int32 and from_numpy.asnumpy().tolist() == [0, 1, 2, 3]
