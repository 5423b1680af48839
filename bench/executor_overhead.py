#!/usr/bin/env python3
"""What one forward + backward costs when the arithmetic is nothing: the executor's own overhead.

    .venv/bin/python bench/executor_overhead.py            # reflib, and MXNet 1.9.1 if /tmp/mxv has it

The graph is four operators on 1x1 data: ``y = MakeLoss(sum(relu(x * w)))``, bound once
with ``simple_bind``.  One step is ``forward(is_train=True)`` + ``backward()`` (+ for MXNet
``waitall``, since its engine is asynchronous).  Numbers are microseconds per step, the
median of ``--repeat`` timings of ``--steps`` steps each, one thread.  This is the fixed cost
a training step pays in Python (reflib) or in MXNet's engine, however small the model.
"""

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fit_throughput as ft  # noqa: E402  (same directory)


def measure(lib, steps, repeat):
    if lib == 'mxnet':
        import mxnet as mx
    else:
        import reflib as mx
    import numpy as np
    x, w = mx.sym.Variable('x'), mx.sym.Variable('w')
    net = mx.sym.MakeLoss(mx.sym.sum(mx.sym.Activation(x * w, act_type='relu')))
    ex = net.simple_bind(mx.cpu(), x=(1, 1), w=(1, 1))
    ex.arg_dict['x'][:] = np.ones((1, 1))
    ex.arg_dict['w'][:] = np.full((1, 1), 2.0)

    def run(n):
        tic = time.perf_counter()
        for _ in range(n):
            ex.forward(is_train=True)
            ex.backward()
        mx.nd.waitall()
        return (time.perf_counter() - tic) / n * 1e6

    run(max(1, steps // 10))                         # warm-up
    times = [run(steps) for _ in range(repeat)]
    assert float(ex.grad_dict['w'].asnumpy()[0, 0]) == 1.0
    return {'lib': lib, 'us_per_step': statistics.median(times), 'range': [min(times), max(times)]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--steps', type=int, default=2000)
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--mxnet-python', default=os.environ.get('MXNET_PYTHON', ft.DEFAULT_MXNET_PYTHON))
    parser.add_argument('--json', help='also write the results to this file')
    parser.add_argument('--worker', choices=('reflib', 'mxnet'), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(measure(args.worker, args.steps, args.repeat)))
        return 0
    env = ft.checkout_env(dict(os.environ, OMP_NUM_THREADS='1', OPENBLAS_NUM_THREADS='1', MKL_NUM_THREADS='1'))
    print('forward + backward of y = MakeLoss(sum(relu(x * w))) on 1x1 data, one thread; load average %.2f'
          % os.getloadavg()[0])
    results = {}
    for lib, python in (('reflib', sys.executable), ('mxnet', args.mxnet_python)):
        if lib == 'mxnet' and not os.path.exists(python):
            print('  mxnet : skipped (%s not found)' % python)
            continue
        result, error = ft.run_json_worker(python, __file__, ['--worker', lib, '--steps', str(args.steps),
                                                             '--repeat', str(args.repeat)], env)
        if error is not None:
            print('  %-6s: failed\n%s' % (lib, error))
            continue
        results[lib] = result
        print('  %-6s: %7.1f us per step (median of %d x %d steps; range %.1f-%.1f)'
              % (lib, result['us_per_step'], args.repeat, args.steps, *result['range']))
    if len(results) == 2:
        print('  reflib / MXNet time: %.2f' % (results['reflib']['us_per_step'] / results['mxnet']['us_per_step']))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(dict(results, load_average=os.getloadavg()[0]), f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
