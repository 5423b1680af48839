#!/usr/bin/env python3
"""One command that proves (or disproves) reflib on a real GPU, and times it next to PyTorch.

    python3 bench/gpu_check.py --out "$OUT"            # on the lent GPU machine
    .venv/bin/python bench/gpu_check.py --out /tmp/gc   # here: a dry run, GPU parts skipped

It installs nothing and needs no network: reflib is imported from this checkout, and the
machine's own numpy, cupy, pytest (with xdist) and torch are used.  It writes, under --out:

* ``gpu_check.json``: the device, the versions, the test counts and every failure, the
  speed table (reflib's Module.fit next to PyTorch eager, samples/s) and the GEMM peak;
* ``gpu_check.log``: everything printed, the pytest output included;
* ``gpu_tests.xml``: pytest's JUnit report of the device test run.

Parts, each with its own time limit so that the whole stays well under 10 minutes:

1. **tests**: the files of tests/device_tests.txt (every operator, optimizers, stores,
   executor, Module, training steps) with ``REFLIB_TEST_DEVICE=gpu``: the same tests as on
   the CPU, on ``mx.gpu(0)`` with real cupy, and no synchronising copy allowed inside an
   operator's forward or backward (cupyx.allow_synchronize(False)).
2. **speed**: Module.fit samples/s of an MLP (784-256-128-10), LeNet and a GEMM-heavy MLP
   (4096 wide, batch 1024) on gpu(0), next to the same model, data, initial weights and SGD
   in PyTorch eager; the GEMM-heavy MLP's FLOP/s as a fraction of the measured float32
   matrix-product peak (cupy, 8192^3, TF32 off in both libraries).

Without a GPU the tests run under the strict stand-in on tests/test_device.py only and the
speed part runs tiny sizes on the CPU: the plumbing is checked, no number is a GPU's.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import traceback
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [ROOT, HERE]

LOG = []


def say(*parts):
    line = ' '.join(str(p) for p in parts)
    print(line, flush=True)
    LOG.append(line)


# ---------------------------------------------------------------- the machine
def machine():
    facts = {'python': platform.python_version(), 'host': platform.node()}
    try:
        import numpy
        facts['numpy'] = numpy.__version__
    except ImportError:
        pass
    try:
        import cupy
        facts['cupy'] = cupy.__version__
        count = cupy.cuda.runtime.getDeviceCount()
        facts['gpus'] = count
        if count:
            props = cupy.cuda.runtime.getDeviceProperties(0)
            name = props['name']
            facts['device'] = name.decode() if isinstance(name, bytes) else str(name)
            facts['device_memory_gib'] = round(props['totalGlobalMem'] / 2 ** 30, 1)
            facts['multiprocessors'] = props.get('multiProcessorCount')
            facts['cuda_runtime'] = cupy.cuda.runtime.runtimeGetVersion()
            facts['cudnn'] = _cudnn_version()
    except Exception as err:        # no cupy, or no driver: a dry run
        facts['gpus'] = 0
        facts['cupy_error'] = '%s: %s' % (type(err).__name__, err)
    try:
        import torch
        facts['torch'] = torch.__version__
        facts['torch_cuda'] = bool(torch.cuda.is_available())
    except ImportError:
        facts['torch'] = None
    return facts


def _cudnn_version():
    try:
        from cupy.cuda import cudnn
        return cudnn.getVersion()
    except Exception:
        return None


# ---------------------------------------------------------------- part 1: the tests
def device_test_files():
    with open(os.path.join(ROOT, 'tests', 'device_tests.txt')) as f:
        return [line.split('#')[0].strip() for line in f if line.split('#')[0].strip()]


def run_tests(out, on_gpu, limit_s, workers):
    files = device_test_files() if on_gpu else ['tests/test_device.py']
    xml_path = os.path.join(out, 'gpu_tests.xml')
    env = dict(os.environ, REFLIB_TEST_DEVICE='gpu' if on_gpu else 'strict', PYTHONPATH=ROOT,
               PYTHONUNBUFFERED='1')
    cmd = [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-o', 'addopts=-ra',
           '--junitxml', xml_path, '-n', str(workers)] + files
    say('$', 'REFLIB_TEST_DEVICE=%s' % env['REFLIB_TEST_DEVICE'], ' '.join(cmd[1:]))
    tic = time.time()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=limit_s)
        output, rc = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as err:
        output = (err.stdout or b'').decode() if isinstance(err.stdout, bytes) else (err.stdout or '')
        rc = 'timeout after %d s' % limit_s
    seconds = time.time() - tic
    for line in output.splitlines()[-60:]:
        LOG.append('  | ' + line)
    print('\n'.join(output.splitlines()[-15:]), flush=True)
    result = {'mode': env['REFLIB_TEST_DEVICE'], 'files': files, 'returncode': rc,
              'seconds': round(seconds, 1)}
    result.update(_junit(xml_path))
    say('tests: %(passed)s passed, %(failed)s failed, %(skipped)s skipped' % result,
        'in %.0f s' % seconds)
    return result


def _junit(path):
    counts = {'passed': 0, 'failed': 0, 'skipped': 0, 'failures': []}
    if not os.path.exists(path):
        return counts
    for case in ET.parse(path).getroot().iter('testcase'):
        name = '%s::%s' % (case.get('classname'), case.get('name'))
        bad = case.find('failure')
        if bad is None:
            bad = case.find('error')
        if bad is not None:
            counts['failed'] += 1
            counts['failures'].append({'test': name, 'message': (bad.get('message') or '')[:400]})
        elif case.find('skipped') is not None:
            counts['skipped'] += 1
        else:
            counts['passed'] += 1
    return counts


# ---------------------------------------------------------------- part 2: speed
def gemm_symbol(mx, width, layers):
    net = mx.sym.Variable('data')
    for i in range(layers):
        net = mx.sym.FullyConnected(net, num_hidden=width, name='fc%d' % (i + 1))
        net = mx.sym.Activation(net, act_type='relu', name='relu%d' % (i + 1))
    net = mx.sym.FullyConnected(net, num_hidden=10, name='out')
    return mx.sym.SoftmaxOutput(net, name='softmax')


def speed_cases(on_gpu):
    """(name, model, input shape per sample, batch, samples per epoch, flops per sample)."""
    if not on_gpu:     # the dry run: tiny, only to walk every code path
        return [('mlp', 'mlp', (784,), 64, 256, None), ('lenet', 'cnn', (1, 28, 28), 64, 128, None),
                ('gemm', ('gemm', 256, 3), (256,), 64, 256, None)]
    width, layers = 4096, 3
    gemm_flops = 3 * 2 * (width * width * layers + width * 10)     # forward + two backward GEMMs
    return [('mlp', 'mlp', (784,), 64, 64 * 400, None),
            ('lenet', 'cnn', (1, 28, 28), 64, 64 * 200, None),
            ('gemm', ('gemm', width, layers), (width,), 1024, 1024 * 40, gemm_flops)]


def reflib_fit(model, shape, batch, samples, ctx, epochs, seed=0):
    import warnings
    import numpy as np
    warnings.filterwarnings('ignore', 'Parameters already initialized')   # fit again, on purpose
    import reflib as mx
    from fit_throughput import build_symbol
    symbol = gemm_symbol(mx, *model[1:]) if isinstance(model, tuple) else build_symbol(mx, model)
    rng = np.random.RandomState(seed)
    x = rng.uniform(0, 1, size=(samples,) + shape).astype(np.float32)
    y = rng.randint(0, 10, size=samples).astype(np.float32)
    train = mx.io.NDArrayIter(x, y, batch, shuffle=False, label_name='softmax_label')
    mod = mx.mod.Module(symbol, context=ctx)
    mx.random.seed(seed)
    args = dict(eval_metric='acc', kvstore='local', optimizer='sgd',
                optimizer_params={'learning_rate': 0.01, 'momentum': 0.9},
                initializer=mx.init.Xavier(magnitude=2.0))
    mod.fit(train, num_epoch=1, **args)            # warm-up: bind, kernels compiled, pools filled
    mx.nd.waitall()
    initial = {k: v.asnumpy() for k, v in mod.get_params()[0].items()}
    times = []
    for e in range(epochs):
        train.reset()
        tic = time.perf_counter()
        mod.fit(train, begin_epoch=1 + e, num_epoch=2 + e, **args)
        mx.nd.waitall()
        times.append(time.perf_counter() - tic)
    return {'samples_per_s': samples / min(times), 'epoch_s': [round(t, 4) for t in times]}, (x, y, initial)


def torch_fit(model, shape, batch, samples, data, epochs, device):
    """The same model, data, starting weights and SGD in PyTorch eager (host data, copied per
    batch, accuracy read each batch, as Module.fit's metric does)."""
    import torch
    x, y, initial = data
    torch.backends.cuda.matmul.allow_tf32 = False       # float32 products, as cupy's
    torch.backends.cudnn.allow_tf32 = False
    nn = torch.nn
    if isinstance(model, tuple):
        _, width, layers = model
        mods, last = [], shape[0]
        for _ in range(layers):
            mods += [nn.Linear(last, width), nn.ReLU()]
            last = width
        net = nn.Sequential(*mods, nn.Linear(last, 10))
        names = ['fc%d' % (i + 1) for i in range(layers)] + ['out']
    elif model == 'mlp':
        net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
        names = ['fc1', 'fc2', 'fc3']
    else:
        net = nn.Sequential(nn.Conv2d(1, 20, 5), nn.Tanh(), nn.MaxPool2d(2, 2), nn.Conv2d(20, 50, 5), nn.Tanh(),
                            nn.MaxPool2d(2, 2), nn.Flatten(), nn.Linear(800, 500), nn.Tanh(), nn.Linear(500, 10))
        names = ['conv1', 'conv2', 'fc1', 'fc2']
    layers_with_weights = [m for m in net if hasattr(m, 'weight')]
    with torch.no_grad():
        for name, layer in zip(names, layers_with_weights):
            layer.weight.copy_(torch.from_numpy(initial[name + '_weight']))
            layer.bias.copy_(torch.from_numpy(initial[name + '_bias']))
    net = net.to(device)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y).long()

    def epoch():
        correct = 0
        for start in range(0, samples, batch):
            xb = xt[start:start + batch].to(device)
            yb = yt[start:start + batch].to(device)
            opt.zero_grad(set_to_none=True)
            out = net(xb)
            loss_fn(out, yb).backward()
            opt.step()
            correct += int((out.argmax(1) == yb).sum().item())
        return correct

    epoch()                                              # warm-up
    times = []
    for _ in range(epochs):
        if device != 'cpu':
            torch.cuda.synchronize()
        tic = time.perf_counter()
        epoch()
        if device != 'cpu':
            torch.cuda.synchronize()
        times.append(time.perf_counter() - tic)
    return {'samples_per_s': samples / min(times), 'epoch_s': [round(t, 4) for t in times]}


def gemm_peak(on_gpu):
    """Measured float32 matrix-product rate: cupy, 8192^3, median of 10 after 3 warm-ups."""
    if not on_gpu:
        return None
    import cupy
    n = 8192
    a = cupy.random.random((n, n), dtype=cupy.float32)
    b = cupy.random.random((n, n), dtype=cupy.float32)
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    for _ in range(3):
        a @ b
    times = []
    for _ in range(10):
        start.record()
        a @ b
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
    times.sort()
    return 2 * n ** 3 / times[len(times) // 2]


def run_speed(on_gpu, epochs):
    import logging
    import reflib as mx
    logging.getLogger().setLevel(logging.ERROR)   # no 'Already bound' per repeated fit
    ctx = mx.gpu(0) if on_gpu else mx.cpu()
    rows = []
    peak = gemm_peak(on_gpu)
    if peak:
        say('float32 GEMM peak (cupy, 8192^3): %.1f TFLOP/s' % (peak / 1e12))
    for name, model, shape, batch, samples, flops in speed_cases(on_gpu):
        row = {'model': name, 'batch': batch, 'samples_per_epoch': samples}
        try:
            row['reflib'], data = reflib_fit(model, shape, batch, samples, ctx, epochs)
            try:
                import torch  # noqa: F401
                row['torch'] = torch_fit(model, shape, batch, samples, data, epochs,
                                         'cuda' if on_gpu else 'cpu')
                row['ratio'] = row['reflib']['samples_per_s'] / row['torch']['samples_per_s']
            except ImportError:
                row['torch'] = None
            if flops and peak:
                achieved = row['reflib']['samples_per_s'] * flops
                row['reflib_tflops'] = achieved / 1e12
                row['fraction_of_peak'] = achieved / peak
                if row.get('torch'):
                    row['torch_fraction_of_peak'] = row['torch']['samples_per_s'] * flops / peak
        except Exception:
            row['error'] = traceback.format_exc()[-2000:]
        say('speed %-6s batch %5d: reflib %s samples/s, torch %s, ratio %s'
            % (name, batch, _num(row.get('reflib')), _num(row.get('torch')),
               '%.2f' % row['ratio'] if 'ratio' in row else '-'))
        if 'error' in row:
            say(row['error'])
        rows.append(row)
    return {'context': str(ctx), 'gemm_peak_flops': peak, 'rows': rows}


def run_profile(limit_s):
    """Where LeNet's fit spends its time on the GPU, from the host's side (bench/profile_fit.py)."""
    cmd = [sys.executable, os.path.join(HERE, 'profile_fit.py'), '--models', 'cnn,mlp', '--context', 'gpu',
           '--top', '25']
    say('$', ' '.join(cmd[1:]))
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True,
                              text=True, timeout=limit_s)
        output = proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as err:
        output = 'timeout after %d s\n%s' % (limit_s, err.stdout or '')
    for line in output.splitlines():
        LOG.append('  | ' + line)
    return output[-20000:]


def _num(part):
    return '%.0f' % part['samples_per_s'] if part else '-'


# ---------------------------------------------------------------- driver
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--out', required=True, help='folder for gpu_check.json, .log and the JUnit XML')
    parser.add_argument('--tests-limit', type=int, default=330, help='seconds for the test run')
    parser.add_argument('--workers', type=int, default=8, help='pytest-xdist workers')
    parser.add_argument('--epochs', type=int, default=3, help='timed epochs per speed case')
    parser.add_argument('--skip-tests', action='store_true')
    parser.add_argument('--skip-speed', action='store_true')
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    tic = time.time()
    facts = machine()
    on_gpu = bool(facts.get('gpus'))
    say('gpu_check:', json.dumps(facts))
    if not on_gpu:
        say('no CUDA device here: a dry run (strict stand-in tests, CPU speed at tiny sizes)')
    results = {'machine': facts, 'on_gpu': on_gpu, 'started': time.strftime('%Y-%m-%d %H:%M:%S')}
    try:
        if not args.skip_tests:
            results['tests'] = run_tests(args.out, on_gpu, args.tests_limit, args.workers)
        if not args.skip_speed:
            results['speed'] = run_speed(on_gpu, args.epochs)
        if on_gpu and not args.skip_speed:
            results['profile'] = run_profile(120)
    finally:
        results['seconds'] = round(time.time() - tic, 1)
        with open(os.path.join(args.out, 'gpu_check.json'), 'w') as f:
            json.dump(results, f, indent=1, sort_keys=True)
        with open(os.path.join(args.out, 'gpu_check.log'), 'w') as f:
            f.write('\n'.join(LOG) + '\n')
        say('wrote', os.path.join(args.out, 'gpu_check.json'), 'after %.0f s' % results['seconds'])
    tests = results.get('tests', {})
    return 0 if not tests.get('failed') else 1


if __name__ == '__main__':
    sys.exit(main())
