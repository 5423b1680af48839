#!/usr/bin/env python3
"""Gluon on a GPU: the same training on gpu(0) and on the CPU, imperative and hybridized.

    python3 bench/gluon_gpu_check.py --out "$OUT"      # on the lent GPU machine
    .venv/bin/python bench/gluon_gpu_check.py --cpu     # here: both runs on the CPU (plumbing only)

Trains an MLP, a small CNN (BatchNorm, Dropout off), an LSTM with projection_size and a
deformable convolution (gluon.contrib.cnn; its offsets start non-zero) with a Trainer for a few steps from
the same initial parameters and data, four ways -- CPU imperative, CPU hybridized, GPU
imperative, GPU hybridized -- and reports the largest difference of every parameter from
the CPU imperative run (float32 rounding is expected, nothing more), that the GPU runs'
arrays and executors live on the GPU, an export/import round trip on the GPU, and the time
of one training step each way.  The MLP is also trained under ``npx.set_np()`` (every array
an mx.np array) and by gluon.contrib.estimator from a CPU DataLoader.  Writes ``gluon_gpu_check.json`` under --out.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import reflib as mx  # noqa: E402


def build(kind):
    nn = mx.gluon.nn
    net = nn.HybridSequential(prefix='%s_' % kind)
    with net.name_scope():
        if kind == 'mlp':
            net.add(nn.Dense(64, activation='relu'), nn.Dense(32, activation='tanh'), nn.Dense(10))
        elif kind == 'lstmp':
            net.add(mx.gluon.rnn.LSTM(8, num_layers=2, layout='NTC', projection_size=4, bidirectional=True),
                    nn.Dense(10))
        elif kind == 'deform':
            net.add(mx.gluon.contrib.cnn.DeformableConvolution(8, kernel_size=3, padding=1), nn.Activation('relu'),
                    nn.GlobalAvgPool2D(), nn.Dense(10))
        else:
            net.add(nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation('relu'), nn.MaxPool2D(2),
                    nn.Conv2D(16, 3), nn.Activation('relu'), nn.GlobalAvgPool2D(), nn.Dense(10))
    return net


def data(kind):
    rs = np.random.RandomState(0)
    shape = {'mlp': (32, 50), 'lstmp': (16, 5, 6)}.get(kind, (16, 3, 12, 12))
    return rs.uniform(-1, 1, shape).astype(np.float32), rs.randint(0, 10, shape[0]).astype(np.float32)


def set_params(net, ctx, array=mx.nd.array):
    """The same starting values on every run, whatever the context."""
    rs = np.random.RandomState(1)
    for name in sorted(net.collect_params().keys()):
        param = net.collect_params()[name]
        value = rs.uniform(-0.3, 0.3, param.shape)
        if name.endswith('running_var'):
            value = np.abs(value) + 0.5
        param.set_data(array(value.astype(np.float32), ctx=ctx))


def train(kind, ctx, hybrid, steps=5, array=mx.nd.array):
    """``array``: mx.nd.array, or mx.np.array for a run under npx.set_np()."""
    x_np, y_np = data(kind)
    x, y = array(x_np, ctx=ctx), array(y_np, ctx=ctx)
    net = build(kind)
    net.initialize(ctx=ctx)
    net(x)
    set_params(net, ctx, array)
    loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    if hybrid:
        net.hybridize()
        loss.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    losses = []
    for _ in range(steps):
        with mx.autograd.record():
            l = loss(net(x), y)
        l.backward()
        trainer.step(x.shape[0])
        losses.append(float(l.mean().asscalar()))
    tic = time.perf_counter()
    for _ in range(20):
        with mx.autograd.record():
            l = loss(net(x), y)
        l.backward()
        trainer.step(x.shape[0])
    mx.nd.waitall()
    step_ms = (time.perf_counter() - tic) / 20 * 1e3
    params = {k: p.data().asnumpy() for k, p in net.collect_params().items()}
    where = sorted({str(p.data().context) for p in net.collect_params().values()})
    if hybrid:
        where += sorted({str(e._ctx) for e in net._cached_op.executors()})
    kinds = sorted({type(p.data()).__name__ for p in net.collect_params().values()} | {type(l).__name__})
    return net, x, {'losses': losses, 'params': params, 'contexts': where, 'step_ms': step_ms, 'kinds': kinds}


def train_numpy_mode(kind, ctx, hybrid):
    """``train`` under npx.set_np(): parameters, batches and outputs are mx.np arrays."""
    mx.npx.set_np()
    try:
        return train(kind, ctx, hybrid, array=mx.np.array)
    finally:
        mx.npx.reset_np()


def train_estimator(ctx, epochs=2):
    """The MLP trained by gluon.contrib.estimator from a DataLoader on the CPU: the estimator
    splits each batch onto ``ctx``."""
    x_np, y_np = data('mlp')
    loader = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(x_np, y_np), 8, shuffle=False)
    net = build('mlp')
    net.initialize(ctx=ctx)
    net(mx.nd.array(x_np[:1], ctx=ctx))
    set_params(net, ctx)
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    est = mx.gluon.contrib.estimator.Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer,
                                               context=ctx)
    est.logger.handlers = []
    est.fit(loader, epochs=epochs)
    return {k: p.data().asnumpy() for k, p in net.collect_params().items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--out', default='.')
    parser.add_argument('--cpu', action='store_true', help='no GPU: run the "GPU" side on the CPU too')
    args = parser.parse_args()
    gpu = mx.cpu(0) if args.cpu else mx.gpu(0)
    report, ok = {'device': str(gpu)}, True
    for kind in ('mlp', 'cnn', 'lstmp', 'deform', 'mlp-numpy-mode'):
        runs = {}
        for ctx in (mx.cpu(0), gpu):
            for hybrid in (False, True):
                if kind == 'mlp-numpy-mode':
                    net, x, runs[str(ctx), hybrid] = train_numpy_mode('mlp', ctx, hybrid)
                    ok &= runs[str(ctx), hybrid]['kinds'] == ['ndarray']        # mx.np's class only
                else:
                    net, x, runs[str(ctx), hybrid] = train(kind, ctx, hybrid)
        base = runs[str(mx.cpu(0)), False]
        for key, run in runs.items():
            diff = max(float(np.abs(run['params'][k] - base['params'][k]).max()) for k in base['params'])
            good = diff < 1e-4
            ok &= good
            label = '%s %s %s' % (kind, key[0], 'hybridized' if key[1] else 'imperative')
            print('%-28s max |param - cpu imperative| %.2e  %s  step %.2f ms  on %s'
                  % (label, diff, 'ok' if good else 'DIFFERENT', run['step_ms'], run['contexts']))
            report[label] = {'max_param_diff': diff, 'step_ms': run['step_ms'], 'contexts': run['contexts'],
                             'losses': run['losses']}
        if kind == 'mlp-numpy-mode':
            continue
        # export on the GPU, imported back on the GPU: the same outputs
        prefix = os.path.join(args.out, kind)
        net.export(prefix)
        block = mx.gluon.SymbolBlock.imports(prefix + '-symbol.json', ['data'], prefix + '-0000.params', ctx=gpu)
        same = float(np.abs(block(x).asnumpy() - net(x).asnumpy()).max())
        ok &= same < 1e-5
        print('%s export -> imports on %s: max difference %.2e' % (kind, gpu, same))
        report['%s export' % kind] = same
    on_cpu, on_gpu = train_estimator(mx.cpu(0)), train_estimator(gpu)
    diff = max(float(np.abs(on_gpu[k] - on_cpu[k]).max()) for k in on_cpu)
    ok &= diff < 1e-4
    print('estimator on %s: max |param - on cpu| %.2e  %s' % (gpu, diff, 'ok' if diff < 1e-4 else 'DIFFERENT'))
    report['estimator max_param_diff'] = diff
    report['ok'] = bool(ok)
    with open(os.path.join(args.out, 'gluon_gpu_check.json'), 'w') as f:
        json.dump(report, f, indent=1)
    print('all good' if ok else 'DIFFERENCES FOUND')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
