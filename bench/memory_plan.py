#!/usr/bin/env python3
"""Bytes a bound executor holds: reflib's memory_report() next to MXNet 1.9.1's "Total N MB allocated".

    .venv/bin/python bench/memory_plan.py                  # reflib, and MXNet if /tmp/mxv has it
    .venv/bin/python bench/memory_plan.py --batch 256

For each model of fit_throughput.py (same symbols) the script binds one executor with
``simple_bind`` twice: for training (``grad_req='write'`` on every argument but the data and
the label) and for inference (``grad_req='null'``).  MXNet's figure is the last line of
``Executor.debug_str()``: what its graph executor's memory plan allocated for the graph's
intermediate entries (outputs, and for training the gradients and what backward keeps),
after sharing storage between entries whose lifetimes do not overlap and computing in
place where an operator allows it.  It does not count the arguments, their gradients or
the auxiliary states, which the caller allocates.  reflib's columns, from
``Executor.memory_report()``, count the same entries:

* ``kept``: every forward intermediate, which a training forward keeps for backward
  (reflib computes backward's gradients on the fly, and they are not counted);
* ``inference peak``: the largest set of intermediates alive at once when each is dropped
  after its last reader and activations, BatchNorm and residual sums are computed in place,
  which is what reflib's inference forward really holds;
* ``train peak``: ``kept`` plus the most gradient bytes backward holds at once (the
  gradients of a step's outputs while it computes its inputs' ones): the figure to set
  next to MXNet's training total.
"""

import argparse
import json
import os
import re
import subprocess
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
            result[mode] = {k: report[k] / 2 ** 20 for k in ('naive', 'inference_peak', 'pooled', 'training_peak')}
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--models', default=','.join(ft.MODELS))
    parser.add_argument('--batch', type=int, default=64)
    parser.add_argument('--mxnet-python', default=os.environ.get('MXNET_PYTHON', ft.DEFAULT_MXNET_PYTHON))
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
        done = subprocess.run([python, os.path.abspath(__file__), '--worker', lib, '--models', args.models,
                               '--batch', str(args.batch)], env=dict(env, **extra), capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit('%s failed:\n%s' % (label, done.stderr[-3000:]))
        results[label] = json.loads(done.stdout.strip().splitlines()[-1])
    print('intermediate memory of one bound executor, batch %d, MB (MXNet rounds down to whole MB)' % args.batch)
    header = '%-7s %-9s %12s %12s %12s %14s %16s' % ('model', 'mode', 'MXNet total', 'MXNet noSG', 'reflib kept',
                                                    'reflib train pk', 'reflib inf. peak')
    print(header)
    print('-' * len(header))
    for model in models:
        for mode in ('train', 'inference'):
            mxd, mxn = (results.get(k, {}).get(model, {}).get(mode, {}).get('total_mb') for k in ('mxnet', 'mxnet-nosg'))
            ref = results['reflib'][model][mode]
            train = mode == 'train'        # each executor shows the figures that apply to it
            print('%-7s %-9s %12s %12s %12s %14s %16s'
                  % (model, mode, '-' if mxd is None else mxd, '-' if mxn is None else mxn,
                     '%.1f' % ref['naive'] if train else '-', '%.1f' % ref['training_peak'] if train else '-',
                     '-' if train else '%.1f' % ref['inference_peak']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
