"""Gluon under ``npx.set_np()`` (reflib/gluon/block.py's _NumpyFront, Parameter._np_arrays,
the DataLoader's batches): training against MXNet 1.9.1 (golden/gluon_numpy_mode.json, from
golden/gen_gluon_numpy_mode.py over golden/gluon_numpy_mode_cases.py), and the kinds of array."""

import json
import os
import sys

import numpy as onp
import pytest

import reflib as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
import gluon_numpy_mode_cases as cases  # noqa: E402

with open(os.path.join(HERE, 'golden', 'gluon_numpy_mode.json')) as _f:
    GOLDEN = json.load(_f)


@pytest.mark.parametrize('key', sorted(k for k in GOLDEN if '/' in k))
def test_training_as_mxnet_trains(key):
    task, mode = key.split('/')
    got = json.loads(json.dumps(cases.run_case(mx, mode == 'hybridized', task)))
    want = GOLDEN[key]
    assert got['kinds'] == want['kinds'] == {k: 'np' for k in want['kinds']}
    onp.testing.assert_allclose(got['losses'], want['losses'], rtol=1e-5, atol=2e-6)
    assert sorted(got['params']) == sorted(want['params'])
    for name in want['params']:
        onp.testing.assert_allclose(got['params'][name], want['params'][name], rtol=1e-5, atol=3e-6, err_msg=name)
    assert not mx.npx.is_np_array()          # the case switched the semantics back off


def test_softmax_regression_from_scratch_as_mxnet():
    got, want = cases.softmax_from_scratch(mx), GOLDEN['softmax_from_scratch']
    assert [s[1:] for s in got['steps']] == [s[1:] for s in want['steps']]     # accuracies, kinds
    onp.testing.assert_allclose([s[0] for s in got['steps']], [s[0] for s in want['steps']], rtol=1e-5)
    onp.testing.assert_allclose(got['W'], want['W'], atol=2e-6)
    onp.testing.assert_allclose(got['b'], want['b'], atol=2e-6)


def test_d2l_hybrid_net_with_f_npx_hybridizes_as_in_mxnet():
    # d2l's hybridize section: hybrid_forward calls F.npx.relu, so tracing needs mx.sym.npx
    got, want = json.loads(json.dumps(cases.d2l_hybrid_net(mx))), GOLDEN['d2l_hybrid_net']
    assert got['F'] == want['F'] == ['ndarray', 'ndarray', 'symbol']
    for mode in ('imperative', 'hybridized'):
        assert got[mode]['kind'] == want[mode]['kind'] == 'np'
        onp.testing.assert_allclose(got[mode]['out'], want[mode]['out'], rtol=1e-5, atol=1e-6)
        for g, w in zip(got[mode]['grads'], want[mode]['grads']):
            onp.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    assert mx.sym.npx.relu.__name__ == 'relu' and set(mx.sym.npx.__all__) == set(mx.npx.OPERATORS)


def test_the_switch_decides_when_the_values_are_made():
    legacy = mx.gluon.nn.Dense(2, in_units=3)
    legacy.initialize()
    mx.npx.set_np()
    try:
        numpy_kind = mx.gluon.nn.Dense(2, in_units=3)
        numpy_kind.initialize()
        assert type(numpy_kind.weight.data()) is mx.np.ndarray
        assert type(legacy.weight.data()) is mx.nd.NDArray     # made before the switch
        out = numpy_kind(mx.np.ones((1, 3)))
        assert type(out) is mx.np.ndarray and out.shape == (1, 2)
    finally:
        mx.npx.reset_np()
    out = legacy(mx.nd.ones((1, 3)))
    assert type(out) is mx.nd.NDArray


def test_hybrid_forward_sees_mx_np_as_f_np():
    seen = {}

    class Probe(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            seen['np'], seen['npx'] = F.np, F.npx
            return F.np.dot(x, x.T) + F.relu(x).sum()

    mx.npx.set_np()
    try:
        x = mx.np.array([[1.0, -2.0]])
        out = Probe()(x)
    finally:
        mx.npx.reset_np()
    assert seen['np'] is mx.np and seen['npx'] is mx.npx
    assert type(out) is mx.np.ndarray and out.item() == 6.0
    assert not hasattr(mx.sym, 'np')         # no NumPy symbols: F.np cannot be traced


def test_use_np_on_a_block_class_covers_its_inherited_call_and_forward():
    """MXNet's class decorator wraps inherited methods too: parameters made by the first call
    (deferred initialization, inside Block.__call__/forward) are mx.np arrays, and F.np in the
    imperative hybrid_forward is mx.nd.np, which is mx.np."""
    @mx.util.use_np
    class Product(mx.gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.w = self.params.get('w', shape=(3, 2), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return F.np.dot(x, w)

    block = Product()
    block.initialize(mx.init.One())
    out = block(mx.np.ones((4, 3)))
    assert not mx.npx.is_np_array()                       # only inside the block's methods
    assert type(block.w.data()) is mx.np.ndarray and type(out) is mx.np.ndarray
    assert out.asnumpy().tolist() == [[3.0, 3.0]] * 4
    assert mx.nd.np is mx.np and mx.nd.npx is mx.npx
    assert mx.gluon.HybridBlock.forward is not Product.forward   # the base class is left as it was
