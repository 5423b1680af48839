#!/usr/bin/env python3
"""Bytes a bound executor holds: reflib's memory_report() next to MXNet 1.9.1's "Total N MB allocated".

    .venv/bin/python bench/memory_plan.py                  # reflib, and MXNet if /tmp/mxv has it
    .venv/bin/python bench/memory_plan.py --batch 256

For each model of fit_throughput.py (same symbols) the script binds one executor with
``simple_bind`` twice: for training (``grad_req='write'`` on every argument but the data and
the label) and for inference (``grad_req='null'``).  MXNet's figure is the last line of
``Executor.debug_str()``: what its graph executor's memory plan allocated for the graph's
entries (forward outputs, and for training backward's gradients), after sharing storage
between entries whose lifetimes do not overlap and computing in place where an operator
allows it.  It does not count the arguments, their gradients or the auxiliary states,
which the caller allocates, and it is rounded *down* to whole MB.  reflib's figure is
``Executor.memory_report()['total']``: the blocks its memory plan allocated
(reflib/executor/memory.py) plus the output arrays, the same entries.  Because MXNet's
figure is rounded down, ``ratio`` (reflib / MXNet) is an upper bound.
"""

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fit_throughput as ft  # noqa: E402  (same directory)

SHAPES = {'mlp': (784,), 'cnn': (1, 28, 28), 'resnet': (3, 32, 32)}


def measure(lib, model, batch):
    if lib == 'mxnet':
        import mxnet as mx
    else:
        import reflib as mx
    sym = ft.build_symbol(mx, model)
    shapes = {'data': (batch,) + SHAPES[model], 'softmax_label': (batch,)}
    result = {}
    for mode in ('train', 'inference'):
        req = {name: ('null' if mode == 'inference' or name in shapes else 'write') for name in sym.list_arguments()}
        ex = sym.simple_bind(mx.cpu(), grad_req=req, **shapes)
        if lib == 'mxnet':
            found = re.search(r'Total (\d+) MB allocated', ex.debug_str())
            result[mode] = {'total_mb': int(found.group(1)) if found else None}
        else:
            report = ex.memory_report()
            result[mode] = {k: report[k] / 2 ** 20 for k in ('total', 'planned', 'outputs', 'unshared')}
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--models', default=','.join(ft.MODELS))
    parser.add_argument('--batch', type=int, default=64)
    parser.add_argument('--mxnet-python', default=os.environ.get('MXNET_PYTHON', ft.DEFAULT_MXNET_PYTHON))
    parser.add_argument('--json', help='also write every figure to this file')
    parser.add_argument('--worker', choices=('reflib', 'mxnet'), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    models = args.models.split(',')
    if args.worker:
        print(json.dumps({m: measure(args.worker, m, args.batch) for m in models}))
        return 0
    env = ft.checkout_env()
    results = {}
    # MXNet twice: its defaults fuse conv+BN+relu into one MKLDNN node (fewer entries to hold),
    # MXNET_SUBGRAPH_BACKEND=NONE plans the graph as written, as reflib does
    for label, lib, python, extra in (('reflib', 'reflib', sys.executable, {}),
                                      ('mxnet', 'mxnet', args.mxnet_python, {}),
                                      ('mxnet-nosg', 'mxnet', args.mxnet_python, {'MXNET_SUBGRAPH_BACKEND': 'NONE'})):
        if lib == 'mxnet' and not os.path.exists(python):
            print('MXNet skipped: %s not found' % python)
            continue
        results[label], error = ft.run_json_worker(
            python, __file__, ['--worker', lib, '--models', args.models, '--batch', str(args.batch)],
            dict(env, **extra))
        if error is not None:
            sys.exit('%s failed:\n%s' % (label, error))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'batch': args.batch, 'results': results}, f, indent=1)
    print('memory of one bound executor, batch %d, MB (MXNet rounds down to whole MB)' % args.batch)
    header = '%-7s %-9s %11s %11s %13s %15s %16s' % ('model', 'mode', 'MXNet total', 'MXNet noSG', 'reflib total',
                                                    'reflib unshared', 'ratio (at most)')
    print(header)
    print('-' * len(header))
    for model in models:
        for mode in ('train', 'inference'):
            mxd, mxn = (results.get(k, {}).get(model, {}).get(mode, {}).get('total_mb') for k in ('mxnet', 'mxnet-nosg'))
            ref = results['reflib'][model][mode]
            # the graph as written (noSG) is the one reflib plans; MXNet's default fuses it
            base = mxn if mxn is not None else mxd
            ratio = '-' if not base else '%.2f' % (ref['total'] / base)
            print('%-7s %-9s %11s %11s %13.1f %15.1f %16s'
                  % (model, mode, '-' if mxd is None else mxd, '-' if mxn is None else mxn,
                     ref['total'], ref['unshared'] + ref['outputs'], ratio))
    return 0


if __name__ == '__main__':
    sys.exit(main())
