#!/usr/bin/env python3
"""Samples per second of ``Module.fit`` on CPU: reflib next to real MXNet 1.9.1.

    .venv/bin/python bench/fit_throughput.py                 # both models, 5 runs each
    .venv/bin/python bench/fit_throughput.py --quick         # smaller data, 1 s runs, 3 runs
    .venv/bin/python bench/fit_throughput.py --models cnn --repeat 7 --json out.json

The same script is the driver and the worker.  The driver starts one worker process per
(model, library) pair, each with the same thread settings in its environment
(OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MKL_NUM_THREADS; ``--threads``, default
os.cpu_count()), and prints a table.  A worker imports ``reflib as mx`` (run by this
interpreter) or ``mxnet as mx`` (run by MXNet's interpreter: $MXNET_PYTHON, else
/tmp/mxv/bin/python when it exists) and times the very same code:

* synthetic MNIST-shaped data, seeded: float32 images in [0, 1), labels 0..9;
  784-vectors for the MLP, 1x28x28 images for the CNN; NDArrayIter with shuffle=True;
* ``Module.fit`` with SGD (learning_rate 0.01, momentum 0.9), Xavier initialisation,
  the 'acc' metric, kvstore 'local', on mx.cpu();
* a warm-up epoch (bind, initialisation, first allocations) and a calibration epoch
  are not timed; then each of ``--repeat`` runs is one ``fit`` call of k epochs, with k
  chosen so that a run lasts at least ``--min-time`` seconds, ended by ``nd.waitall()``
  (MXNet's engine is asynchronous).  samples/s = k * samples / run time; the table shows
  the median over runs;
* peak RSS is the worker's ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` at the end.

MXNet is measured twice: with its defaults (the pip wheel is built with MKLDNN/oneDNN and
by default fuses the graph with the MKLDNN subgraph backend) and with
MXNET_SUBGRAPH_BACKEND=NONE (no fusion; oneDNN kernels are still used per operator).

This file must stay runnable by both interpreters: standard library + numpy only.
"""

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import importlib.util
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _book_module(name):
    """reflib/book/<name>.py, loaded by its path: it takes the library as ``mx`` and imports
    nothing, so MXNet's interpreter (without reflib) runs it too."""
    spec = importlib.util.spec_from_file_location(
        'book_' + name, os.path.join(HERE, '..', 'reflib', 'book', name + '.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_symbol = _book_module('models').build_symbol      # the models, defined once
DEFAULT_MXNET_PYTHON = '/tmp/mxv/bin/python'
THREAD_VARS = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')

# name -> (samples per epoch, samples per epoch with --quick); both multiples of 256
MODELS = {
    'mlp': (5120, 2560),
    'cnn': (1280, 768),
    'resnet': (768, 512),
}
MODEL_TITLES = {
    'mlp': 'MLP 784-256-128-10 relu',
    'cnn': 'LeNet CNN (conv20-pool-conv50-pool-fc500-fc10, tanh), input 1x28x28',
    'resnet': 'ResNet-style: conv16-BN-relu, 2 residual blocks (conv-BN-relu-conv-BN + x, relu; the second '
              'with stride 2 and a 1x1 projection), global avg pool, fc10; input 3x32x32',
}
DEFAULT_BATCHES = '16,64,256'

# label, library, extra environment
CONFIGS = [
    ('reflib', 'reflib', {}),
    ('mxnet', 'mxnet', {}),
    ('mxnet-nosubgraph', 'mxnet', {'MXNET_SUBGRAPH_BACKEND': 'NONE'}),
]


# ----------------------------------------------------------------------------- worker

def fit_arguments(mx):
    """Everything passed to Module.fit besides the data and the epochs.

    The learning rate is kept small on purpose: with 0.05 the MLP saturates on the random
    labels after some tens of epochs (its gradients die) and from then on every epoch gets
    slower, in reflib and MXNet alike, so the throughput would depend on how long it ran.
    """
    return dict(eval_metric='acc', kvstore='local', optimizer='sgd',
                optimizer_params={'learning_rate': 0.01, 'momentum': 0.9},
                initializer=mx.init.Xavier(magnitude=2.0))


def synthetic_data(np, model, samples, seed):
    rng = np.random.RandomState(seed)
    shape = {'mlp': (samples, 784), 'cnn': (samples, 1, 28, 28), 'resnet': (samples, 3, 32, 32)}[model]
    images = rng.uniform(0, 1, size=shape).astype(np.float32)
    labels = rng.randint(0, 10, size=samples).astype(np.float32)
    return images, labels


def cpu_snapshot():
    """(whole machine's busy CPU seconds, its steal seconds, this process's CPU seconds).

    The machine's numbers come from /proc/stat (None where there is none).  Busy minus our own
    is what other processes used while we ran: on a shared machine that is the noise to watch.
    """
    import resource
    own = resource.getrusage(resource.RUSAGE_SELF)
    busy = steal = None
    try:
        with open('/proc/stat') as f:
            fields = [int(v) for v in f.readline().split()[1:]]
        tick = float(os.sysconf('SC_CLK_TCK'))
        # user nice system idle iowait irq softirq steal ...
        busy = (fields[0] + fields[1] + fields[2] + fields[5] + fields[6]) / tick
        steal = fields[7] / tick if len(fields) > 7 else 0.0
    except (OSError, ValueError, IndexError):
        pass
    return busy, steal, own.ru_utime + own.ru_stime


def peak_rss_mib():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def run_worker(args):
    import logging
    import numpy as np
    logging.basicConfig(level=logging.ERROR)  # keep 'Epoch[..] Train-acc' and 'Already bound' quiet
    t_import = time.perf_counter()
    if args.lib == 'mxnet':
        import mxnet as mx
    else:
        import reflib as mx
    t_import = time.perf_counter() - t_import

    batch_size = args.batch
    np.random.seed(args.seed)
    mx.random.seed(args.seed)
    images, labels = synthetic_data(np, args.model, args.samples, args.seed)
    train = mx.io.NDArrayIter(images, labels, batch_size, shuffle=True, label_name='softmax_label')
    mod = mx.mod.Module(build_symbol(mx, args.model), context=mx.cpu())
    fit_args = fit_arguments(mx)
    rss_before_fit = peak_rss_mib()
    epoch = [0]

    def fit_epochs(k):
        train.reset()
        before = cpu_snapshot()
        tic = time.perf_counter()
        mod.fit(train, begin_epoch=epoch[0], num_epoch=epoch[0] + k, **fit_args)
        mx.nd.waitall()
        seconds = time.perf_counter() - tic
        after = cpu_snapshot()
        epoch[0] += k
        run = {'seconds': seconds, 'samples_per_s': k * args.samples / seconds,
               'cpu_s': after[2] - before[2]}
        if before[0] is not None:
            run['others_cpu_s'] = max(0.0, (after[0] - before[0]) - run['cpu_s'])
            run['steal_s'] = after[1] - before[1]
        return run

    warmup = fit_epochs(1)
    calibration = fit_epochs(1)
    epochs_per_run = max(1, int(math.ceil(args.min_time / calibration['seconds'])))
    runs = [fit_epochs(epochs_per_run) for _ in range(args.repeat)]
    acc = dict(mod.score(train, 'acc'))['accuracy']  # sanity: both learned something comparable

    rates = [r['samples_per_s'] for r in runs]
    return {
        'lib': args.lib,
        'version': getattr(mx, '__version__', '?'),
        'numpy': np.__version__,
        'python': platform.python_version(),
        'model': args.model,
        'batch_size': batch_size,
        'samples_per_epoch': args.samples,
        'epochs_per_run': epochs_per_run,
        'import_s': t_import,
        'warmup_epoch_s': warmup['seconds'],
        'calibration_epoch_s': calibration['seconds'],
        'runs': runs,
        'median_samples_per_s': statistics.median(rates),
        'min_samples_per_s': min(rates),
        'max_samples_per_s': max(rates),
        # CPU seconds per wall second: about 1 single-threaded, up to --threads
        'cpu_per_wall': sum(r['cpu_s'] for r in runs) / sum(r['seconds'] for r in runs),
        # share of the machine's CPU (all cores) that other processes used during the runs
        'others_load': (sum(r.get('others_cpu_s', 0) + r.get('steal_s', 0) for r in runs)
                        / (sum(r['seconds'] for r in runs) * (os.cpu_count() or 1))),
        'train_accuracy_after': float(acc),
        'rss_before_fit_mib': rss_before_fit,
        'peak_rss_mib': peak_rss_mib(),
        'env': {k: os.environ.get(k) for k in THREAD_VARS + ('MXNET_SUBGRAPH_BACKEND',)},
    }


# ----------------------------------------------------------------------------- driver

def mxnet_python(explicit):
    """The interpreter that has mxnet, or None (with the reason)."""
    path = explicit or os.environ.get('MXNET_PYTHON') or DEFAULT_MXNET_PYTHON
    if not os.path.exists(path):
        return None, '%s not found (set MXNET_PYTHON or --mxnet-python)' % path
    probe = subprocess.run([path, '-c', 'import mxnet; print(mxnet.__version__)'],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return None, '%s cannot import mxnet: %s' % (path, probe.stderr.strip().splitlines()[-1:])
    return path, probe.stdout.strip()


def run_json_worker(python, script, args, env):
    """Run ``script --worker ...`` under the interpreter ``python``; its last stdout line is JSON.

    Returns (result, None), or (None, the tail of stderr) when the worker failed.
    """
    done = subprocess.run([python, os.path.abspath(script)] + list(args), env=env, capture_output=True, text=True)
    if done.returncode != 0:
        return None, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), None


def checkout_env(env=None):
    """``env`` (default os.environ) with this checkout first on PYTHONPATH: its reflib, installed or not."""
    env = dict(os.environ if env is None else env)
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [os.path.dirname(HERE), env.get('PYTHONPATH')]))
    return env


def run_one(python, label, lib, extra_env, model, batch, threads, samples, args):
    env = dict(os.environ)
    for var in THREAD_VARS:
        env[var] = str(threads)
    env.pop('MXNET_SUBGRAPH_BACKEND', None)
    env.setdefault('REFLIB_ADAPTIVE_THREADS', '1')      # reflib at its best under load: the governor on
    env.update(extra_env)
    if lib == 'reflib':  # this checkout's reflib, even where it is not installed
        env = checkout_env(env)
    with tempfile.NamedTemporaryFile(suffix='.json', delete=False) as tmp:
        result_path = tmp.name
    cmd = [python, os.path.abspath(__file__), '--worker', '--lib', lib, '--models', model, '--batch', str(batch),
           '--samples', str(samples), '--repeat', str(args.repeat), '--min-time', str(args.min_time),
           '--seed', str(args.seed), '--result', result_path]
    print('  %-6s batch %-3d %d thread%s %-17s ...' % (model, batch, threads, 's' if threads > 1 else ' ', label),
          end='', flush=True)
    tic = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    try:
        if proc.returncode != 0:
            print(' FAILED (exit %d)' % proc.returncode)
            sys.stderr.write(proc.stderr[-4000:])
            return None
        with open(result_path) as f:
            result = json.load(f)
    finally:
        os.unlink(result_path)
    result['config'] = label
    result['threads'] = threads
    result['extra_env'] = extra_env
    result['wall_s'] = time.perf_counter() - tic
    print(' %9.0f samples/s  (median of %d runs of %d epoch(s); range %.0f-%.0f; %.1f CPUs busy; '
          'others used %.0f%% of the machine; %.0f s)'
          % (result['median_samples_per_s'], len(result['runs']), result['epochs_per_run'],
             result['min_samples_per_s'], result['max_samples_per_s'], result['cpu_per_wall'],
             100 * result['others_load'], result['wall_s']))
    return result


def combine(workers):
    """One result per (model, config): the runs of every round pooled, peak RSS the largest."""
    combined = {}
    for w in workers:
        key = (w['model'], w['batch_size'], w['threads'], w['config'])
        if key not in combined:
            combined[key] = dict(w, runs=[], rounds=0, others_cpu=0.0, total_s=0.0)
        c = combined[key]
        c['runs'] += w['runs']
        c['rounds'] += 1
        c['peak_rss_mib'] = max(c['peak_rss_mib'], w['peak_rss_mib'])
        seconds = sum(r['seconds'] for r in w['runs'])
        c['others_cpu'] += w['others_load'] * seconds
        c['total_s'] += seconds
    results = []
    for c in combined.values():
        rates = [r['samples_per_s'] for r in c['runs']]
        c['median_samples_per_s'] = statistics.median(rates)
        c['min_samples_per_s'], c['max_samples_per_s'] = min(rates), max(rates)
        c['others_load'] = c.pop('others_cpu') / c.pop('total_s')
        for k in ('round', 'wall_s', 'epochs_per_run', 'warmup_epoch_s', 'calibration_epoch_s',
                  'import_s', 'cpu_per_wall', 'train_accuracy_after', 'rss_before_fit_mib'):
            c.pop(k, None)
        results.append(c)
    return results


def fmt(value, spec):
    return format(value, spec) if value is not None else '-'


def print_table(results, models, batches, threads_list, have_mxnet, load):
    by = {(r['model'], r['batch_size'], r['threads'], r['config']): r for r in results}
    rate = lambda r: r['median_samples_per_s'] if r else None
    ratio = lambda a, b: a / b if a and b else None
    header = ('%-6s %5s %7s %11s %11s %7s %14s %7s %10s %10s'
              % ('model', 'batch', 'threads', 'reflib s/s', 'MXNet s/s', 'ratio', 'MXNet-noSG s/s', 'ratio',
                 'RSS reflib', 'RSS MXNet'))
    print(header)
    print('-' * len(header))
    for model in models:
        for batch in batches:
            for threads in threads_list:
                ref, mxd, mxn = (by.get((model, batch, threads, c[0])) for c in CONFIGS)
                rss = lambda r: '%.0f MiB' % r['peak_rss_mib'] if r else '-'
                print('%-6s %5d %7d %11s %11s %7s %14s %7s %10s %10s'
                      % (model, batch, threads, fmt(rate(ref), '.0f'), fmt(rate(mxd), '.0f'),
                         fmt(ratio(rate(ref), rate(mxd)), '.3f'), fmt(rate(mxn), '.0f'),
                         fmt(ratio(rate(ref), rate(mxn)), '.3f'), rss(ref), rss(mxd)))
    if have_mxnet:
        print()
        print('best vs best: each library at its fastest thread count (MXNet: either configuration)')
        header = '%-6s %5s %22s %32s %7s' % ('model', 'batch', 'reflib best s/s', 'MXNet best s/s', 'ratio')
        print(header)
        print('-' * len(header))
        for model in models:
            for batch in batches:
                refs = [(rate(by.get((model, batch, t, 'reflib'))) or 0, t) for t in threads_list]
                mxs = [(rate(by.get((model, batch, t, c[0]))) or 0, t, c[0]) for t in threads_list
                       for c in CONFIGS[1:]]
                (r_best, r_t), (m_best, m_t, m_c) = max(refs), max(mxs)
                print('%-6s %5d %22s %32s %7s'
                      % (model, batch, '%.0f (%d thr)' % (r_best, r_t), '%.0f (%d thr, %s)' % (m_best, m_t, m_c),
                         fmt(ratio(r_best, m_best), '.3f')))
    print()
    for model in models:
        print('%-6s %s' % (model, MODEL_TITLES[model]))
    print('s/s: samples per second, median of all runs (of every round); ratio: reflib / MXNet (higher is better for reflib)')
    print('MXNet: the 1.9.1 defaults (MKLDNN subgraph backend on); MXNet-noSG: MXNET_SUBGRAPH_BACKEND=NONE')
    print('RSS: peak resident set size of each worker process (ru_maxrss)')
    if load:
        print('measured under a background load: %d busy process%s started by this script' % (load, 'es' if load > 1 else ''))
    if not have_mxnet:
        print('MXNet columns are empty: no MXNet interpreter (see above)')
    busy = [r for r in results if r['others_load'] > 0.10]
    if busy and not load:
        print('WARNING: other processes (or the hypervisor, as steal time) took more than 10%% of the CPU '
              'during %s: those numbers are noisy; rerun on a quiet machine'
              % ', '.join('%s/%d/%d/%s' % (r['model'], r['batch_size'], r['threads'], r['config']) for r in busy))


def start_load(count):
    """``count`` processes that keep one core busy each (pure Python, no threads), until stopped."""
    return [subprocess.Popen([sys.executable, '-c', 'while True: pass']) for _ in range(count)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--models', default=','.join(MODELS), help='comma-separated subset of: %s' % ','.join(MODELS))
    parser.add_argument('--batches', default=DEFAULT_BATCHES, help='comma-separated batch sizes (default %s)'
                        % DEFAULT_BATCHES)
    parser.add_argument('--load', type=int, default=0,
                        help='run the sweep with this many busy background processes (default 0: idle)')
    parser.add_argument('--repeat', type=int, default=None, help='timed runs per model (default 5, --quick 3)')
    parser.add_argument('--min-time', type=float, default=None,
                        help='seconds a run lasts at least (default 3, --quick 1)')
    parser.add_argument('--quick', action='store_true', help='half the samples, 1 s runs, 3 runs')
    parser.add_argument('--samples', type=int, default=None, help='samples per epoch (default: per model)')
    parser.add_argument('--threads', default='1,%d' % os.cpu_count(),
                        help='comma-separated thread counts; OMP/OPENBLAS/MKL_NUM_THREADS for every worker '
                        '(default 1 and os.cpu_count())')
    parser.add_argument('--mxnet-python', default=None, help='interpreter with mxnet (default $MXNET_PYTHON, '
                        'else %s)' % DEFAULT_MXNET_PYTHON)
    parser.add_argument('--no-mxnet', action='store_true', help='measure reflib only')
    parser.add_argument('--rounds', type=int, default=1,
                        help='repeat the whole sweep this many times, alternating the libraries, and pool '
                        'the runs (evens out a machine whose background load drifts)')
    parser.add_argument('--seed', type=int, default=42)
    parser.add_argument('--json', default=None, help='write every result to this file')
    # worker-only arguments
    parser.add_argument('--worker', action='store_true', help=argparse.SUPPRESS)
    parser.add_argument('--lib', choices=('reflib', 'mxnet'), help=argparse.SUPPRESS)
    parser.add_argument('--result', help=argparse.SUPPRESS)
    parser.add_argument('--batch', type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    batches = [int(b) for b in args.batches.split(',') if b.strip()]
    threads_list = sorted({int(t) for t in str(args.threads).split(',') if t.strip()})
    if args.repeat is None:
        args.repeat = 3 if args.quick else 5
    if args.min_time is None:
        args.min_time = 1.0 if args.quick else 3.0
    models = [m.strip() for m in args.models.split(',') if m.strip()]
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        parser.error('unknown model(s) %s; choose from %s' % (unknown, list(MODELS)))

    if args.worker:
        args.model = models[0]
        result = run_worker(args)
        with open(args.result, 'w') as f:
            json.dump(result, f)
        return 0

    mx_python, mx_info = (None, 'disabled with --no-mxnet') if args.no_mxnet else mxnet_python(args.mxnet_python)
    print('Module.fit throughput on CPU: %s, %d CPU(s), Python %s'
          % (platform.platform(), os.cpu_count(), platform.python_version()))
    print('threads: %s = %s for every process (each count measured separately, same for reflib and MXNet)'
          % ('/'.join(THREAD_VARS), ' and '.join(map(str, threads_list))))
    print('reflib: %s' % sys.executable)
    print('MXNet:  %s' % ('%s (mxnet %s)' % (mx_python, mx_info) if mx_python else 'skipped: ' + mx_info))
    print('runs: %d per model, each >= %.1f s, after 1 warm-up + 1 calibration epoch (not timed)'
          % (args.repeat, args.min_time))
    if hasattr(os, 'getloadavg'):
        print('load average before starting: %.2f %.2f %.2f (a busy machine makes every number noisy)'
              % os.getloadavg())
    if args.load:
        print('background load: %d busy process%s started now, stopped at the end'
              % (args.load, 'es' if args.load > 1 else ''))
    print()
    workers = []
    load = start_load(args.load)
    try:
        for rnd in range(args.rounds):
            if args.rounds > 1:
                print('round %d of %d' % (rnd + 1, args.rounds))
            for model in models:
                samples = args.samples or MODELS[model][1 if args.quick else 0]
                for batch in batches:
                    for threads in threads_list:
                        for label, lib, extra_env in CONFIGS:
                            python = sys.executable if lib == 'reflib' else mx_python
                            if python is None:
                                continue
                            result = run_one(python, label, lib, extra_env, model, batch, threads, samples, args)
                            if result:
                                result['round'] = rnd
                                workers.append(result)
    finally:
        for proc in load:
            proc.kill()
    results = combine(workers)
    print()
    print_table(results, models, batches, threads_list, mx_python is not None, args.load)
    if args.json:
        meta = {'date': time.strftime('%Y-%m-%d %H:%M:%S %z'), 'command': ' '.join(sys.argv),
                'platform': platform.platform(), 'cpu_count': os.cpu_count(), 'threads': threads_list,
                'batches': batches, 'load': args.load,
                'repeat': args.repeat, 'rounds': args.rounds, 'min_time': args.min_time, 'quick': args.quick}
        with open(args.json, 'w') as f:
            json.dump({'meta': meta, 'results': results, 'workers': workers}, f, indent=1)
        print('wrote %s' % args.json)
    expected = len(models) * len(batches) * len(threads_list) * (1 + (2 if mx_python else 0))
    return 0 if len(results) == expected else 1


if __name__ == '__main__':
    sys.exit(main())
