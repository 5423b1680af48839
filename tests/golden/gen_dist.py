"""Regenerate dist.npz: MXNet 1.9.1's own parameter server (ps-lite) on a small dist_sync training.

Run from the repository root with a Python that has the real MXNet 1.9.1 (this file
itself imports only the standard library and numpy; the tests only read the .npz):

    /tmp/mxv/bin/python tests/golden/gen_dist.py

The training is tests/dist_scripts/train_mlp.py (an MLP trained with Module.fit, each
worker on its own shard of a fixed data set), run with ``--mxnet``.

How MXNet's distributed processes are launched here (all on this machine): one process per
role, every one running the SAME command
``python tests/dist_scripts/train_mlp.py --mxnet --kvstore dist_sync ...``, told its role
by environment variables:

* ``DMLC_ROLE``: ``scheduler`` (one process), ``server`` (S processes), ``worker`` (W);
* ``DMLC_PS_ROOT_URI=127.0.0.1``, ``DMLC_PS_ROOT_PORT=<a free port>`` (the scheduler's);
* ``DMLC_NUM_SERVER=S``, ``DMLC_NUM_WORKER=W``, ``DMLC_INTERFACE=lo``, ``PS_VERBOSE=0``;
* ``MXNET_KVSTORE_BIGARRAY_BOUND`` where a scenario sets it (arrays with at least that many
  elements are cut into one slice per server), given to every process.

The scheduler and the servers never get past ``import mxnet`` (MXNet runs their loop at
import time and exits when the workers finish); each worker writes ``OUT.rankR.npz``.
Every process gets a time limit and is killed (its process group) if it runs past it.

Scenarios, all with W=2 workers, ``--batch-size 8`` per worker, ``--epochs 3``:

* ``sgd_s1``: SGD (lr 0.1, momentum 0.9, wd 1e-4), one server;
* ``sgd_s2``: the same on two servers with ``MXNET_KVSTORE_BIGARRAY_BOUND=20``, so that
  fc1_weight (160 elements) and fc2_weight (48) are split across both servers and the
  biases (16 and 3 elements) are not;
* ``adam_s1``, ``adam_s2``: the same with Adam (lr 0.01).

For each, rank 0's and rank 1's parameters must be identical; rank 0's are stored under
``<scenario>/<param>``.  For reference, the single-process run with ``--kvstore local
--batch-size 16`` (one worker with the two workers' batches together) is stored under
``sgd_local16/<param>`` and ``adam_local16/<param>``.  The script prints the max abs
differences (rank 0 vs rank 1; each scenario vs its local16 run).
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, 'dist.npz')
SCRIPT = os.path.join(ROOT, 'tests', 'dist_scripts', 'train_mlp.py')

WORKERS, BATCH, EPOCHS = 2, 8, 3
TIME_LIMIT = 180  # seconds for one whole job

SCENARIOS = [  # name, optimizer, servers, MXNET_KVSTORE_BIGARRAY_BOUND (None: MXNet's default)
    ('sgd_s1', 'sgd', 1, None),
    ('sgd_s2', 'sgd', 2, 20),
    ('adam_s1', 'adam', 1, None),
    ('adam_s2', 'adam', 2, 20),
]


def base_env():
    """This environment without any DMLC_*/PS_* variable, on one OpenMP thread."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('DMLC_', 'PS_', 'MXNET_KVSTORE_'))}
    env['OMP_NUM_THREADS'] = '1'
    return env


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def train_command(kvstore, optimizer, batch, out):
    return [sys.executable, SCRIPT, '--mxnet', '--kvstore', kvstore, '--optimizer', optimizer,
            '--batch-size', str(batch), '--epochs', str(EPOCHS), '--out', out]


def run_job(procs, workdir):
    """Start (label, cmd, env) processes, each in its own process group; wait for all.

    Returns {label: (returncode, log text)}; past TIME_LIMIT every process still running is
    killed and the job counts as failed."""
    running = []
    for label, cmd, env in procs:
        log = open(os.path.join(workdir, label + '.log'), 'w+')
        p = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        running.append((label, p, log))
    deadline = time.time() + TIME_LIMIT
    timed_out = False
    for label, p, log in running:
        try:
            p.wait(timeout=max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            timed_out = True
            break
    results = {}
    for label, p, log in running:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        log.seek(0)
        results[label] = (p.returncode, log.read())
        log.close()
    if timed_out or any(rc != 0 for rc, _ in results.values()):
        for label, (rc, text) in results.items():
            sys.stderr.write('--- %s (exit %s) ---\n%s\n' % (label, rc, text[-3000:]))
        raise RuntimeError('job failed%s' % (' (time limit)' if timed_out else ''))
    return results


def load(path):
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def max_diff(a, b):
    assert sorted(a) == sorted(b), (sorted(a), sorted(b))
    return max(float(np.max(np.abs(a[k].astype(np.float64) - b[k]))) for k in a)


def run_dist(name, optimizer, servers, bound, workdir):
    out = os.path.join(workdir, name)
    env = base_env()
    env.update({'DMLC_PS_ROOT_URI': '127.0.0.1', 'DMLC_PS_ROOT_PORT': str(free_port()),
                'DMLC_NUM_SERVER': str(servers), 'DMLC_NUM_WORKER': str(WORKERS),
                'DMLC_INTERFACE': 'lo', 'PS_VERBOSE': '0'})
    if bound is not None:
        env['MXNET_KVSTORE_BIGARRAY_BOUND'] = str(bound)
    cmd = train_command('dist_sync', optimizer, BATCH, out)
    roles = [('scheduler', 'scheduler')] + [('server%d' % i, 'server') for i in range(servers)] \
        + [('worker%d' % i, 'worker') for i in range(WORKERS)]
    procs = [('%s.%s' % (name, label), cmd, dict(env, DMLC_ROLE=role)) for label, role in roles]
    logs = run_job(procs, workdir)
    ranks = [load('%s.rank%d.npz' % (out, r)) for r in range(WORKERS)]
    return ranks, logs


def run_local(optimizer, workdir):
    name = '%s_local16' % optimizer
    out = os.path.join(workdir, name)
    logs = run_job([(name, train_command('local', optimizer, WORKERS * BATCH, out), base_env())],
                   workdir)
    return load(out + '.rank0.npz'), logs


def notable_lines(logs):
    """Log lines other than the usual ones (warnings and the like), once each."""
    seen = []
    for _, text in logs.values():
        for line in text.splitlines():
            if (line.strip() and 'Subgraph backend MKLDNN is activated' not in line
                    and not line.startswith('rank ') and line not in seen):
                seen.append(line)
    return seen


def main():
    t0 = time.time()
    workdir = tempfile.mkdtemp(prefix='gen_dist_')
    store, report, notes = {}, [], []
    try:
        local = {}
        for optimizer in ('sgd', 'adam'):
            params, logs = run_local(optimizer, workdir)
            local[optimizer] = params
            notes += notable_lines(logs)
            for k, v in params.items():
                store['%s_local16/%s' % (optimizer, k)] = v
        for name, optimizer, servers, bound in SCENARIOS:
            ranks, logs = run_dist(name, optimizer, servers, bound, workdir)
            notes += notable_lines(logs)
            rank_diff = max(max_diff(ranks[0], r) for r in ranks[1:])
            local_diff = max_diff(ranks[0], local[optimizer])
            report.append((name, rank_diff, local_diff))
            for k, v in ranks[0].items():
                store['%s/%s' % (name, k)] = v
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for name, rank_diff, local_diff in report:
        print('%-8s max|rank0 - rank1| = %.3g   max|rank0 - local16| = %.3g'
              % (name, rank_diff, local_diff))
    for a, b in (('sgd_s1', 'sgd_s2'), ('adam_s1', 'adam_s2')):
        d = max(float(np.max(np.abs(store['%s/%s' % (a, k)] - store['%s/%s' % (b, k)])))
                for k in local['sgd'])
        print('max|%s - %s| = %.3g' % (a, b, d))
    for line in dict.fromkeys(notes):
        print('log: ' + line)
    bad = [name for name, rank_diff, _ in report if rank_diff != 0]
    if bad:
        raise SystemExit('rank 0 and rank 1 differ in %s; nothing written' % bad)
    np.savez(OUT, **store)
    print('wrote %s (%d arrays) in %.1f s' % (OUT, len(store), time.time() - t0))


if __name__ == '__main__':
    main()
