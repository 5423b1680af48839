"""reflib/threads.py: BLAS gets the cores other processes leave free."""

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
