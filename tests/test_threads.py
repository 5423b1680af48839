"""reflib/threads.py: BLAS gets the cores other processes leave free."""

import os

import numpy as np
import pytest

from reflib.threads import ThreadGovernor, threads_for


@pytest.mark.parametrize('cpus,others,most,expected', [
    (2, 0.0, 2, 2),       # idle machine: every thread BLAS started with
    (2, 1.0, 2, 1),       # one busy process on two cores: one thread
    (2, 0.4, 2, 2),       # a little noise changes nothing
    (2, 2.0, 2, 1),       # never fewer than one
    (8, 2.2, 8, 6),
    (8, 0.0, 4, 4),       # never more than OMP_NUM_THREADS/OPENBLAS_NUM_THREADS allowed
])
def test_threads_for(cpus, others, most, expected):
    assert threads_for(cpus, others, most) == expected


class FakeMachine:
    """A clock, the machine's busy seconds and this process's CPU seconds, advanced by hand."""

    def __init__(self):
        self.now, self.busy, self.own = 100.0, 1000.0, 10.0

    def run(self, seconds, own_cores, other_cores):
        self.now += seconds
        self.own += seconds * own_cores
        self.busy += seconds * (own_cores + other_cores)


def test_the_governor_follows_the_other_processes(monkeypatch):
    monkeypatch.delenv('REFLIB_ADAPTIVE_THREADS', raising=False)
    m = FakeMachine()
    gov = ThreadGovernor(read_stat=lambda: m.busy, own_cpu=lambda: m.own, clock=lambda: m.now, cpus=2)
    limits = []

    class Controller:
        def limit(self, limits=None, user_api=None):
            given.append(limits)

    given = limits
    gov.enabled, gov.controller, gov.most, gov.threads = True, Controller(), 2, 2
    gov.check()                       # first look: nothing to compare with yet
    m.run(0.6, own_cores=2, other_cores=0)
    gov.check()
    assert (gov.threads, limits) == (2, [])           # reflib alone, using both cores
    m.run(0.6, own_cores=1.2, other_cores=1.0)
    gov.check()
    assert gov.threads == 1 and limits == [1] and gov.others == pytest.approx(1.0)
    m.run(0.1, own_cores=1, other_cores=0)
    gov.check()                       # too soon: no new look
    assert limits == [1]
    m.run(0.6, own_cores=1, other_cores=0)
    gov.check()
    assert gov.threads == 2 and limits == [1, 2]      # the other process has gone


def test_the_governor_can_be_turned_off(monkeypatch):
    monkeypatch.setenv('REFLIB_ADAPTIVE_THREADS', '0')
    gov = ThreadGovernor(read_stat=lambda: 1 / 0)
    gov.check()                       # never reads anything
    assert gov.status()['enabled'] is False


def test_the_real_governor_starts_on_this_machine():
    gov = ThreadGovernor()
    gov.check()
    status = gov.status()
    if status['enabled']:             # Linux with threadpoolctl and a BLAS
        assert status['most'] >= 1 and status['threads'] == status['most']


def test_the_governor_is_off_unless_asked_for(monkeypatch):
    monkeypatch.delenv('REFLIB_ADAPTIVE_THREADS', raising=False)
    assert ThreadGovernor().enabled is False
    monkeypatch.setenv('REFLIB_ADAPTIVE_THREADS', '1')
    assert ThreadGovernor().enabled is True


def test_openblas_rounds_some_products_differently_on_one_thread_and_two():
    """Why the governor is opt-in: the thread count can change the bits of a product."""
    from threadpoolctl import threadpool_info, threadpool_limits
    if not any(lib.get('user_api') == 'blas' and lib['num_threads'] >= 2 for lib in threadpool_info()):
        pytest.skip('BLAS runs on one thread here')
    rng = np.random.default_rng(0)
    a = rng.standard_normal((640, 1002)).astype(np.float32)
    b = rng.standard_normal((1002, 64)).astype(np.float32)
    with threadpool_limits(1, user_api='blas'):
        one = a @ b
    with threadpool_limits(2, user_api='blas'):
        two = a @ b
    np.testing.assert_allclose(one, two, rtol=1e-5, atol=1e-4)     # the same product, other rounding


FIT_DIGEST = r'''
import hashlib, sys
import numpy as np
import reflib as mx
rng = np.random.RandomState(0)
x = rng.standard_normal((640 * 4, 1002)).astype(np.float32)
y = rng.randint(0, 10, 640 * 4).astype(np.float32)
net = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=64, name='fc1')
net = mx.sym.FullyConnected(mx.sym.Activation(net, act_type='relu'), num_hidden=10, name='fc2')
mod = mx.mod.Module(mx.sym.SoftmaxOutput(net, name='softmax'), context=mx.cpu())
mx.random.seed(0)
mod.fit(mx.io.NDArrayIter(x, y, batch_size=640), num_epoch=int(sys.argv[1]), optimizer='sgd',
        optimizer_params={'learning_rate': 0.01, 'momentum': 0.9}, initializer=mx.init.Xavier())
args, _ = mod.get_params()
print(hashlib.sha256(b''.join(args[k].asnumpy().tobytes() for k in sorted(args))).hexdigest())
'''


def test_the_same_seed_gives_the_same_bits_next_to_a_busy_process():
    """A short fit alone and next to a process that keeps a core busy: the same parameters.
    (With the governor on by default, as before, the busy run took one BLAS thread and its
    640x1002 products rounded differently.)"""
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != 'REFLIB_ADAPTIVE_THREADS'}
    env.pop('OMP_NUM_THREADS', None)
    env.pop('OPENBLAS_NUM_THREADS', None)

    def digest():
        done = subprocess.run([sys.executable, '-c', FIT_DIGEST, '20'], capture_output=True, text=True,
                              env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.strip()

    alone = digest()
    busy = subprocess.Popen([sys.executable, '-c', 'while True: pass'])
    try:
        loaded = digest()
    finally:
        busy.kill()
        busy.wait()
    assert loaded == alone
