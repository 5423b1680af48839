"""Gluon's core against MXNet 1.9.1 (golden/gluon.json from golden/gen_gluon.py): names and
scopes, Parameter/ParameterDict, deferred initialisation, hybridize (same outputs and
gradients as the imperative run, MXNet's graph), export (the files MXNet writes, loaded by
Module and SymbolBlock), save/load_parameters, the Trainer over each kind of store, and the
readers' Gluon linear regression."""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
import gluon_cases  # noqa: E402

with open(os.path.join(HERE, 'golden', 'gluon.json')) as _f:
    GOLDEN = json.load(_f)


def _same(got, want, path='', rtol=1e-5, atol=2e-5):
    """Equal structure and values (numbers within float32 rounding); the first difference's
    path otherwise.  An error must be of each builtin kind MXNet's is (reflib's are all
    MXNetErrors, RuntimeErrors, as MXNet's own are; where MXNet raises a bare MXNetError,
    reflib's may say more, a ShapeError being a ValueError too)."""
    if isinstance(want, dict) and set(want) == {'error'}:
        kinds = got.get('error') if isinstance(got, dict) else None
        extra = {'RuntimeError'} if want['error'] != ['RuntimeError'] else {'RuntimeError', 'ValueError', 'TypeError'}
        ok = kinds is not None and set(want['error']) <= set(kinds) <= set(want['error']) | extra
        return None if ok else path + ': raised %r, MXNet %r' % (got, want)
    if isinstance(want, dict):
        if not isinstance(got, dict) or sorted(got) != sorted(want):
            return path + ': keys %s vs %s' % (sorted(got) if isinstance(got, dict) else got, sorted(want))
        for key in want:
            diff = _same(got[key], want[key], '%s.%s' % (path, key), rtol, atol)
            if diff:
                return diff
        return None
    if isinstance(want, (list, tuple)):
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            return path + ': %r vs %r' % (got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            diff = _same(g, w, '%s[%d]' % (path, i), rtol, atol)
            if diff:
                return diff
        return None
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return None if np.isclose(got, want, rtol=rtol, atol=atol) else path + ': %r vs %r' % (got, want)
    return None if got == want else path + ': %r vs %r' % (got, want)


@pytest.mark.parametrize('case', sorted(GOLDEN))
def test_same_as_mxnet(case, tmp_path):
    diff = _same(gluon_cases.CASES[case](mx, str(tmp_path)), GOLDEN[case], case)
    assert diff is None, diff


def test_a_hybridized_block_called_from_several_threads_at_once():
    """Each call takes an executor of its own from the pool (a DataLoader's worker threads
    run a Compose of hybridized transforms this way): no call sees another's values."""
    from concurrent.futures import ThreadPoolExecutor
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(64, activation='tanh', in_units=256), mx.gluon.nn.Dense(8))
    net.initialize(mx.init.Xavier())
    inputs = [mx.nd.array(np.random.RandomState(i).uniform(size=(32, 256))) for i in range(8)]
    expected = [net(x).asnumpy() for x in inputs]
    net.hybridize()

    def run(i):
        return all(np.allclose(net(inputs[i % 8]).asnumpy(), expected[i % 8], rtol=1e-5, atol=1e-6)
                   for _ in range(30))
    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(run, range(16)))
    assert len(net._cached_op.executors()) <= 4
