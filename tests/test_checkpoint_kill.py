"""A checkpoint survives ``kill -9`` at any moment of ``Module.save_checkpoint``.

A child process saves the same checkpoint (prefix, epoch 1) over and over, with every
parameter and every optimizer state set to the number of the save, and prints that number
once the save has returned.  The parent kills it at a random moment and then loads the
checkpoint: it must load, its parameters and states must come from one save (the same
number), and that save must be the last one reported or the one after it.  The next save
must leave no temporary file behind.

CI kills 4 savers (a few seconds); REFLIB_KILL_RUNS=60 runs as many as a hostile reader did.
"""

import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import reflib as mx
import reflib.checkpoint

RUNS = int(os.environ.get('REFLIB_KILL_RUNS', '4'))

SAVER = textwrap.dedent('''
    import sys
    import reflib as mx
    prefix = sys.argv[1]
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=1024, name='fc'),
                               name='softmax')
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.bind([('data', (2, 512))], [('softmax_label', (2,))])
    mod.init_params()
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})
    batch = mx.io.DataBatch([mx.nd.ones((2, 512))], [mx.nd.zeros(2)])
    mod.forward_backward(batch)
    mod.update()                     # the momentum states exist from the first update on
    arg, aux = mod.get_params()
    for i in range(1, 100000):
        mod.set_params({k: mx.nd.full(v.shape, i) for k, v in arg.items()}, aux)
        for state in mod._updater.states.values():
            state[:] = i
        mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
        print(i, flush=True)
''')


def _values_in(states_bytes):
    """Every value in a .states file's arrays."""
    updater = mx.optimizer.get_updater(mx.optimizer.SGD(momentum=0.9))
    updater.set_states(states_bytes)
    return {float(x) for v in updater.states.values() for x in np.unique(v.asnumpy())}


@pytest.mark.parametrize('run', range(RUNS))
def test_a_save_killed_at_any_moment_leaves_one_whole_checkpoint(tmp_path, run):
    prefix = str(tmp_path / 'net')
    child = subprocess.Popen([sys.executable, '-c', SAVER, prefix], stdout=subprocess.PIPE, text=True)
    try:
        first = child.stdout.readline()                 # one save has completed
        assert first.strip() == '1', first
        time.sleep(random.Random(run).uniform(0.0, 0.4))
    finally:
        child.send_signal(signal.SIGKILL)
        rest = child.communicate(timeout=30)[0]
    reported = [int(line) for line in (first + rest).split()]
    last = reported[-1]

    listed = sorted(os.listdir(str(tmp_path)))
    mod = mx.mod.Module.load(prefix, 1, load_optimizer_states=True)
    values = {float(x) for v in mod._arg_params.values() for x in np.unique(v.asnumpy())}
    assert len(values) == 1, values                     # every parameter from one save
    saved = values.pop()
    assert saved in (last, last + 1), (saved, last)
    prefix_, epoch_, states_ = mod._preload_opt_states
    source = reflib.checkpoint.files_to_read(prefix_, epoch_, [states_])[states_]
    with open(source, 'rb') as f:
        assert _values_in(f.read()) == {saved}          # the states from that same save
    # a reader moves nothing (a journal stays for the next writer); it only sweeps the
    # temporary files of a killed save when no save is pending
    if os.path.exists(prefix + '-0001.checkpoint-pending'):
        assert sorted(os.listdir(str(tmp_path))) == listed
    reflib.checkpoint.recover(prefix, 1)                # what the next save does first
    assert not os.path.exists(prefix + '-0001.checkpoint-pending')
    with open(prefix + '-0001.states', 'rb') as f:
        assert _values_in(f.read()) == {saved}

    # the next save sweeps what the killed one left
    mod.bind([('data', (2, 512))], [('softmax_label', (2,))])
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})
    mod.save_checkpoint(prefix, 1)
    left = [f for f in os.listdir(str(tmp_path)) if f.endswith('.tmp')]
    assert not left, left
