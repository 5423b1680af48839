"""reflib's mx.np subset against MXNet 1.9.1's answers (tests/golden/gen_numpy_subset.py),
autograd through mx.np functions, and the per-thread NumPy array switch."""

import json
import os
import threading

import numpy as onp
import pytest

import reflib as mx

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, 'golden', 'numpy_subset.json')) as _f:
    GOLDEN = json.load(_f)

# values reflib's operators compute with numpy's float32 functions, which may differ from
# MXNet's in the last place: compared by value, not by repr
_BY_VALUE = ('mx.np.exp(', 'mx.np.log(', 'mx.np.sqrt(')


def _evaluate(expression, np_on):
    import sys
    sys.path.insert(0, os.path.join(HERE, 'golden'))
    try:
        import gen_numpy_subset     # the generator's evaluate, run here with reflib
    finally:
        sys.path.pop(0)
    return gen_numpy_subset.evaluate(mx, onp, expression, np_on)


@pytest.mark.parametrize('case', GOLDEN,
                         ids=[c['expression'] + (' [np]' if c['np_on'] else '') for c in GOLDEN])
def test_matches_mxnet(case):
    want = case['result']
    got = _evaluate(case['expression'], case['np_on'])
    if 'error' in want:
        assert 'error' in got, got
        mxnet_error = want['error'] == 'MXNetError'
        assert got['error'] == want['error'] or (mxnet_error and got['error'].endswith('Error')
                                                 and issubclass(getattr(mx.base, got['error'], Exception),
                                                                mx.base.MXNetError)), (got, want)
        return
    assert 'error' not in got, got
    if case['expression'].startswith(_BY_VALUE):
        value = eval(case['expression'], {'mx': mx, 'onp': onp})
        expected = eval(want['repr'].replace('array', 'onp.array'), {'onp': onp})
        onp.testing.assert_allclose(value.asnumpy(), expected, rtol=1e-6)
        assert got['shape'] == want['shape'] and got['dtype'] == want['dtype']
        return
    assert got == want


def test_autograd_through_np_matches_the_nd_path():
    data = onp.array([[0.5, 1.0, 2.0], [1.5, -1.0, 0.25]], dtype=onp.float32)
    a = mx.np.array(data)
    a.attach_grad()
    with mx.autograd.record():
        y = mx.np.sum(mx.np.exp(a) * mx.np.sqrt(mx.np.maximum(a, 0.5)), axis=1)
        z = mx.np.mean(mx.np.dot(y.reshape(1, 2), mx.np.log(a + 2)))
    z.backward()
    b = mx.nd.array(data)
    b.attach_grad()
    with mx.autograd.record():
        y = mx.nd.sum(mx.nd.exp(b) * mx.nd.sqrt(mx.nd.maximum(b, 0.5)), axis=1)
        z = mx.nd.mean(mx.nd.dot(y.reshape((1, 2)), mx.nd.log(b + 2)))
    z.backward()
    assert isinstance(a.grad, mx.np.ndarray) and a.grad.shape == (2, 3)
    onp.testing.assert_allclose(a.grad.asnumpy(), b.grad.asnumpy(), rtol=1e-6)


def test_autograd_through_concatenate_split_and_indexing():
    a = mx.np.arange(6).reshape(2, 3)
    a.attach_grad()
    with mx.np_shape(), mx.autograd.record():
        parts = mx.np.split(a, 3, axis=1)
        joined = mx.np.concatenate([parts[2], parts[0]], axis=1) * mx.np.array([[1, 2]])
        total = mx.np.stack([joined, joined]).sum() + a[1, 2] * 10
    total.backward()
    assert total.shape == ()
    onp.testing.assert_array_equal(a.grad.asnumpy(), [[4, 0, 2], [4, 0, 12]])


def test_results_stay_np_arrays_and_share_memory_with_legacy_views():
    x = mx.np.ones((2, 3))
    for value in (x + 1, x[0], x.T, x.copy(), x.astype('float64'), -x, x.reshape(-1), x == 1):
        assert isinstance(value, mx.np.ndarray)
    assert (x == 1).dtype == onp.bool_
    legacy = x.as_nd_ndarray()
    legacy[0, 0] = 7
    assert type(legacy) is mx.nd.NDArray and x.asnumpy()[0, 0] == 7
    back = legacy.as_np_ndarray()
    back[1, 1] = 3
    assert x.asnumpy()[1, 1] == 3


def test_random_is_seeded_by_mx_random_seed():
    mx.random.seed(7)
    first = mx.np.random.uniform(size=(3,)).asnumpy()
    mx.random.seed(7)
    assert (mx.np.random.uniform(size=(3,)).asnumpy() == first).all()
    picks = mx.np.random.choice(mx.np.arange(10, 20), size=4, replace=False).asnumpy()
    assert len(set(picks.tolist())) == 4 and all(10 <= v < 20 for v in picks)
    assert mx.np.random.randint(5).shape == () and mx.np.random.choice(4).shape == ()
    assert mx.np.random.choice(mx.np.arange(3), p=mx.np.array([0, 1, 0])).asnumpy() == 1


def test_array_switch_is_per_thread_and_scoped():
    seen = []

    def look():
        seen.append((mx.is_np_array(), mx.is_np_shape()))
    assert not mx.is_np_array()
    with mx.np_array():
        assert mx.is_np_array() and not mx.is_np_shape()
        thread = threading.Thread(target=look)
        thread.start(), thread.join()
        with mx.np_array(False):
            assert not mx.is_np_array()
        assert mx.is_np_array()
    assert not mx.is_np_array()
    mx.npx.set_np()
    try:
        assert mx.is_np_array() and mx.is_np_shape()
        thread = threading.Thread(target=look)
        thread.start(), thread.join()
    finally:
        mx.npx.reset_np()
    assert seen == [(False, False), (False, False)]
    assert not mx.is_np_array() and not mx.is_np_shape()
    with pytest.raises(ValueError):
        mx.util.set_np(shape=False, array=True)

    @mx.use_np
    def both():
        return mx.is_np_array(), mx.is_np_shape()

    @mx.use_np_array
    def array_only():
        return mx.is_np_array(), mx.is_np_shape()
    assert both() == (True, True) and array_only() == (True, False)
    assert not mx.is_np_array()


def test_split_data_gives_np_slices_under_array_semantics():
    with mx.np_shape(), mx.np_array():
        x = mx.np.random.uniform(size=(8, 9, 2))
        for axis, count, even in ((0, 4, True), (1, 3, True), (1, 4, False)):
            parts = mx.gluon.utils.split_data(x, count, axis, even_split=even)
            assert all(isinstance(p, mx.np.ndarray) for p in parts)
            onp.testing.assert_array_equal(mx.np.concatenate(parts, axis=axis).asnumpy(), x.asnumpy())
        loaded = mx.gluon.utils.split_and_load(onp.ones((4, 2)), [mx.cpu(0), mx.cpu(1)])
        assert all(isinstance(p, mx.np.ndarray) for p in loaded)
