"""A hybridized call writes a parameter's gradient straight into its ``.grad`` (no copy),
and every case where that would be wrong still gets MXNet's gradients: a block applied twice
in one step, two blocks sharing a parameter, ``grad_req='add'``, and ``autograd.grad``,
which must leave ``.grad`` alone.  Each case is checked against the same net run
imperatively (not hybridized), where every gradient goes through the tape."""

import numpy as np
import pytest

import reflib as mx
from reflib.gluon import nn


def _net(hybridize, prefix='net_'):
    net = nn.HybridSequential(prefix=prefix)
    with net.name_scope():
        net.add(nn.Dense(5, activation='tanh', in_units=6), nn.Dense(3, in_units=5))
    net.initialize(mx.init.Uniform(0.5))
    rng = np.random.RandomState(0)
    for _, p in sorted(net.collect_params().items()):
        p.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, p.shape)))
    if hybridize:
        net.hybridize()
    return net


def _x(seed=1, shape=(4, 6)):
    return mx.nd.array(np.random.RandomState(seed).uniform(-1, 1, shape))


def _grads(net):
    return {k: p.grad().asnumpy().copy() for k, p in sorted(net.collect_params().items())}


def _same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=1e-5, atol=1e-6, err_msg=k)


def _step(net, xs):
    with mx.autograd.record():
        loss = sum((net(x) ** 2).sum() for x in xs)
    loss.backward()
    return _grads(net)


def test_the_gradient_is_computed_in_the_parameters_grad_array():
    net = _net(True)
    _step(net, [_x()])
    exe = net._cached_op.executors()[0]
    dense0 = net[0].weight
    k = exe._arg_names.index(dense0.name)
    assert exe._grads[k] is dense0.grad()       # bound by reference: nothing to copy afterwards


@pytest.mark.parametrize('times', [1, 2, 3])
def test_a_block_applied_several_times_in_one_step_sums_the_gradients(times):
    xs = [_x(seed) for seed in range(times)]
    want = _step(_net(False), xs)
    net = _net(True)
    for _ in range(2):              # the second step reuses the runners and what they claimed
        _same(_step(net, xs), want)


def test_two_hybridized_blocks_sharing_a_parameter():
    def build(hybridize):
        a = _net(hybridize, 'a_')
        b = nn.HybridSequential(prefix='b_', params=a.collect_params())
        with b.name_scope():
            b.add(nn.Dense(5, activation='tanh', in_units=6), nn.Dense(3, in_units=5))
        if hybridize:
            b.hybridize()
        return a, b

    def step(a, b):
        with mx.autograd.record():
            loss = (a(_x(1)) ** 2).sum() + (b(_x(2)) * 3).sum()
        loss.backward()
        return _grads(a)
    want = step(*build(False))
    a, b = build(True)
    for _ in range(2):
        _same(step(a, b), want)


def test_grad_req_add_accumulates_after_write_steps():
    def run(hybridize):
        net = _net(hybridize)
        _step(net, [_x(1)])                     # a 'write' step first: the runner takes .grad
        net.collect_params().setattr('grad_req', 'add')
        _step(net, [_x(2)])
        return _step(net, [_x(3)])
    _same(run(True), run(False))


def test_autograd_grad_returns_the_gradient_and_leaves_grad_alone():
    net = _net(True)
    before = _step(net, [_x(1)])
    weight = net[0].weight.data()
    with mx.autograd.record():
        loss = (net(_x(2)) ** 2).sum()
    got = mx.autograd.grad(loss, [weight])[0].asnumpy()
    _same(_grads(net), before)
    want = _step(_net(False), [_x(2)])[net[0].weight.name]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
