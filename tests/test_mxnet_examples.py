"""MXNet 1.9.1's example scripts run under reflib (tests/examples/: example/numpy-ops,
example/profiler, example/svrg_module, shortened the same way for both libraries) give what
they give under MXNet (golden/examples.json, from golden/gen_examples.py).

Each script runs in a subprocess through tests/examples/run_under_reflib.py, which makes
`import mxnet` import reflib.  What is compared depends on the script: the numbers it prints
where it is deterministic (to float32 precision); where it draws random numbers (the two
libraries' generators differ), what it prints and logs (epochs, metric names), that the loss
falls, and the operators its profiler trace records."""

import json
import math
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, 'golden'))
from gen_examples import SCRIPTS, run_script, summarize  # noqa: E402

with open(os.path.join(HERE, 'golden', 'examples.json')) as _f:
    GOLDEN = json.load(_f)

RUNNER = os.path.join(HERE, 'examples', 'run_under_reflib.py')

# operators whose counts in the profiler's trace must be MXNet's (the others differ by design:
# MXNet's engine records WaitForVar, DeleteVariable, CopyCPU2CPU, its bulked segments cut
# names, and some of its older operators run as BinaryOp/TernaryOp)
SAME_COUNTS = {
    'profiler_matmul': ['dot'],
    'profiler_executor': ['FullyConnected', 'Activation', '_backward_SoftmaxOutput'],
    'profiler_ndarray': ['broadcast_add', 'broadcast_sub', 'broadcast_mul', 'broadcast_div', 'broadcast_to',
                         'sum', 'max', 'min', 'norm', 'sqrt', 'square', 'dot', 'clip', 'slice', 'pick',
                         '_random_uniform', '_plus_scalar', '_div_scalar'],
}

_RUNS = {}


def _run(name, tmp_path_factory):
    """The script run once under reflib: (summary, stderr)."""
    if name not in _RUNS:
        cwd = str(tmp_path_factory.mktemp(name))
        rc, out, err = run_script([sys.executable, RUNNER], name, cwd, pythonpath=ROOT)
        _RUNS[name] = (summarize(name, rc, out, err, cwd), err)
    return _RUNS[name]


def _shape(lines):
    # numpy's printing spaces columns by its version: compare without the spaces
    return [''.join(line.split()) for line in lines]


@pytest.mark.parametrize('name', sorted(SCRIPTS))
def test_runs_and_prints_what_mxnet_prints(name, tmp_path_factory):
    got, err = _run(name, tmp_path_factory)
    want = GOLDEN[name]
    assert want['rc'] == 0
    assert got['rc'] == 0, err[-3000:]
    assert _shape(got['printed']) == _shape(want['printed'])
    assert [m[:3] for m in got['metrics']] == [m[:3] for m in want['metrics']]
    assert all(math.isfinite(m[3]) for m in got['metrics'])


def test_deterministic_numbers_are_mxnet_s(tmp_path_factory):
    got, _ = _run('weighted_logistic_regression', tmp_path_factory)
    want = GOLDEN['weighted_logistic_regression']['numbers']
    assert len(got['numbers']) == len(want) == 80
    np.testing.assert_allclose(got['numbers'], want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('name', ['numpy_softmax', 'custom_softmax'])
def test_softmax_examples_report_accuracies(name, tmp_path_factory):
    got, _ = _run(name, tmp_path_factory)
    for lib in (got['metrics'], GOLDEN[name]['metrics']):
        assert all(0 <= m[3] <= 1 for m in lib)


def test_svrg_loss_falls_as_in_mxnet(tmp_path_factory):
    got, _ = _run('example_api_train', tmp_path_factory)
    for lib in (got['metrics'], GOLDEN['example_api_train']['metrics']):
        for metric in ('cost', 'mse'):
            values = [m[3] for m in lib if m[2] == metric]
            assert len(values) == 4 and values[-1] < values[0] / 10, (metric, values)


@pytest.mark.parametrize('name', sorted(SAME_COUNTS))
def test_profiler_trace_records_mxnet_s_operators(name, tmp_path_factory):
    got, err = _run(name, tmp_path_factory)
    want = GOLDEN[name]['profile']
    assert got['profile'] is not None, err[-3000:]
    for op in SAME_COUNTS[name]:
        assert got['profile'].get(op) == want[op], (op, got['profile'].get(op), want[op])


@pytest.mark.parametrize('name', sorted(SAME_COUNTS))
def test_profiler_writes_its_file_at_exit(name, tmp_path_factory):
    """The scripts never call dump(): the trace is written when the process ends, as MXNet does."""
    _, err = _run(name, tmp_path_factory)
    assert 'Traceback' not in err
