#!/usr/bin/env python3
"""Gluon's speed, reflib next to MXNet 1.9.1: one imperative call, and training steps.

    .venv/bin/python bench/gluon_throughput.py                 # both parts, 1 thread and all cores
    .venv/bin/python bench/gluon_throughput.py --part calls --threads 1

**calls**: microseconds per imperative operator call on a 1x4 array (``x * 2``, ``relu``,
``FullyConnected`` of 4 units), outside ``autograd.record()`` and inside it (the tape's
cost), the median of ``--repeat`` timings.

**train**: samples per second of training steps (record, forward, loss, backward,
``trainer.step``) on synthetic MNIST-shaped data, batch 64, SGD with momentum 0.9,
SoftmaxCrossEntropyLoss, for an MLP (784-256-128-10, relu) and LeNet (conv 5x5x20 tanh,
max-pool, conv 5x5x50 tanh, max-pool, dense 500 tanh, dense 10): the Gluon net run
imperatively, the same net and its loss hybridized, and -- for reflib -- the same graph as a Symbol
through ``Module`` (forward_backward + update, the step ``fit`` takes).  Each (library,
setting) runs in its own process with OMP/OpenBLAS/MKL threads set to the thread count.
The summary compares best against best (each library at its faster thread count).
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

MODELS = ('mlp', 'lenet')
BATCH = 64


# ------------------------------------------------------------------ the workers
def _lib(name):
    if name == 'mxnet':
        import mxnet as mx
    else:
        import reflib as mx
    return mx


def measure_calls(lib, repeat, n=2000):
    mx = _lib(lib)
    x = mx.nd.ones((1, 4))
    w, b = mx.nd.ones((4, 4)), mx.nd.zeros((4,))
    calls = {
        'x * 2': lambda: x * 2,
        'relu(x)': lambda: mx.nd.relu(x),
        'FullyConnected': lambda: mx.nd.FullyConnected(x, w, b, num_hidden=4),
    }
    out = {}
    for recording in (False, True):
        if recording:
            x.attach_grad()
        for name, call in calls.items():
            times = []
            for _ in range(repeat):
                if recording:
                    with mx.autograd.record():
                        tic = time.perf_counter()
                        for _ in range(n):
                            call()
                        mx.nd.waitall()
                        times.append((time.perf_counter() - tic) / n * 1e6)
                else:
                    tic = time.perf_counter()
                    for _ in range(n):
                        call()
                    mx.nd.waitall()
                    times.append((time.perf_counter() - tic) / n * 1e6)
            out['%s%s' % (name, ' (recording)' if recording else '')] = statistics.median(times)
    return out


def _gluon_net(mx, model):
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        if model == 'mlp':
            net.add(nn.Dense(256, activation='relu'), nn.Dense(128, activation='relu'), nn.Dense(10))
        else:
            net.add(nn.Conv2D(20, 5, activation='tanh'), nn.MaxPool2D(2, 2),
                    nn.Conv2D(50, 5, activation='tanh'), nn.MaxPool2D(2, 2),
                    nn.Dense(500, activation='tanh'), nn.Dense(10))
    return net


def _data(np, model, samples):
    rs = np.random.RandomState(0)
    shape = (samples, 784) if model == 'mlp' else (samples, 1, 28, 28)
    return rs.uniform(size=shape).astype(np.float32), rs.randint(0, 10, samples).astype(np.float32)


def measure_train(lib, model, mode, samples, rounds):
    import numpy as np
    mx = _lib(lib)
    X, Y = _data(np, model, samples)
    batches = [(mx.nd.array(X[i:i + BATCH]), mx.nd.array(Y[i:i + BATCH])) for i in range(0, samples, BATCH)]
    mx.random.seed(0)
    net = _gluon_net(mx, model)
    net.initialize(mx.init.Xavier())
    net(batches[0][0])
    if mode == 'module':
        # the same graph, traced once, as a Symbol with a softmax head, trained by Module
        data = mx.sym.var('data')
        sym = mx.sym.SoftmaxOutput(net(data), name='softmax')
        mod = mx.mod.Module(sym, context=mx.cpu())
        mod.bind(data_shapes=[('data', batches[0][0].shape)], label_shapes=[('softmax_label', (BATCH,))])
        mod.init_params(mx.init.Xavier())
        mod.init_optimizer(kvstore='local', optimizer='sgd',
                           optimizer_params={'learning_rate': 0.01, 'momentum': 0.9})

        def epoch():
            for x, y in batches:
                mod.forward_backward(mx.io.DataBatch([x], [y]))
                mod.update()
            mx.nd.waitall()
    else:
        loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()
        if mode == 'hybrid':                    # the net and the loss, each one graph
            net.hybridize()
            loss.hybridize()
        trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.01, 'momentum': 0.9},
                                   kvstore='local')

        def epoch():
            for x, y in batches:
                with mx.autograd.record():
                    l = loss(net(x), y)
                l.backward()
                trainer.step(BATCH)
            mx.nd.waitall()
    epoch()                                         # warm-up: binding, deferred shapes, first plans
    rates = []
    for _ in range(rounds):
        tic = time.perf_counter()
        epoch()
        rates.append(samples / (time.perf_counter() - tic))
    return {'samples_per_s': statistics.median(rates), 'range': [min(rates), max(rates)]}


def measure_steps(model, batches_per_round=20, rounds=15):
    """reflib only: the hybridized Gluon step and the Module step of the same graph, in one
    process and interleaved round by round, so that both meet the same machine; per phase,
    microseconds per step, the mean of the faster half of the rounds.  (Separate processes
    minutes apart differ by up to 40% on a shared machine; the ratio here holds better.)"""
    import numpy as np
    import reflib as mx
    X, Y = _data(np, model, BATCH * batches_per_round)
    batches = [(mx.nd.array(X[i:i + BATCH]), mx.nd.array(Y[i:i + BATCH])) for i in range(0, len(X), BATCH)]
    mx.random.seed(0)
    net = _gluon_net(mx, model)
    net.initialize(mx.init.Xavier())
    net(batches[0][0])
    loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    net.hybridize()
    loss.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.01, 'momentum': 0.9},
                               kvstore='local')
    data = mx.sym.var('data')
    mod = mx.mod.Module(mx.sym.SoftmaxOutput(net(data), name='softmax'), context=mx.cpu())
    mod.bind(data_shapes=[('data', batches[0][0].shape)], label_shapes=[('softmax_label', (BATCH,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(kvstore='local', optimizer='sgd', optimizer_params={'learning_rate': 0.01, 'momentum': 0.9})
    clock = time.perf_counter
    hybrid, module = [], []
    for _ in range(rounds):
        phases = np.zeros(4)
        for x, y in batches:
            t0 = clock()
            with mx.autograd.record():
                out = net(x)
                t1 = clock()
                l = loss(out, y)
            t2 = clock()
            l.backward()
            t3 = clock()
            trainer.step(BATCH)
            phases += [t1 - t0, t2 - t1, t3 - t2, clock() - t3]
        mx.nd.waitall()
        hybrid.append(phases / len(batches) * 1e6)
        phases = np.zeros(3)
        for x, y in batches:
            batch = mx.io.DataBatch([x], [y])
            t0 = clock()
            mod.forward(batch, is_train=True)
            t1 = clock()
            mod.backward()
            t2 = clock()
            mod.update()
            phases += [t1 - t0, t2 - t1, clock() - t2]
        mx.nd.waitall()
        module.append(phases / len(batches) * 1e6)

    def faster_half(rows):
        rows = np.array(rows)
        return rows[np.argsort(rows.sum(axis=1))[:max(1, len(rows) // 2)]].mean(axis=0)
    h, m = faster_half(hybrid), faster_half(module)
    return {'hybridized_us': dict(zip(('net', 'loss', 'backward', 'trainer_step'), h.round(1).tolist())),
            'module_us': dict(zip(('forward', 'backward', 'update'), m.round(1).tolist())),
            'hybridized_over_module_speed': round(float(m.sum() / h.sum()), 3)}


# ------------------------------------------------------------------ the driver
def _env(threads):
    n = str(threads)
    return ft.checkout_env(dict(os.environ, OMP_NUM_THREADS=n, OPENBLAS_NUM_THREADS=n, MKL_NUM_THREADS=n))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--part', choices=('calls', 'train', 'steps', 'all'), default='all',
                        help="steps: reflib's hybridized and Module steps interleaved in one process")
    parser.add_argument('--threads', default='1,%d' % os.cpu_count())
    parser.add_argument('--samples', type=int, default=2560)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--models', default=','.join(MODELS))
    parser.add_argument('--mxnet-python', default=os.environ.get('MXNET_PYTHON', ft.DEFAULT_MXNET_PYTHON))
    parser.add_argument('--json', help='also write the results to this file')
    parser.add_argument('--worker', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        spec = json.loads(args.worker)
        if spec['part'] == 'calls':
            print(json.dumps(measure_calls(spec['lib'], args.repeat)))
        elif spec['part'] == 'steps':
            print(json.dumps(measure_steps(spec['model'])))
        else:
            print(json.dumps(measure_train(spec['lib'], spec['model'], spec['mode'], args.samples, args.rounds)))
        return 0
    libs = [('reflib', sys.executable)]
    if os.path.exists(args.mxnet_python):
        libs.append(('mxnet', args.mxnet_python))
    print('load average %.2f, %d cores' % (os.getloadavg()[0], os.cpu_count()))
    results = {'load_average': os.getloadavg()[0]}

    def worker(python, spec, threads):
        extra = ['--samples', str(args.samples), '--rounds', str(args.rounds), '--repeat', str(args.repeat)]
        result, error = ft.run_json_worker(python, __file__, ['--worker', json.dumps(spec)] + extra, _env(threads))
        if error is not None:
            print('  failed: %s %s\n%s' % (spec, threads, error))
        return result

    if args.part in ('calls', 'all'):
        print('\nmicroseconds per imperative call on a 1x4 array, one thread')
        calls = {lib: worker(python, {'part': 'calls', 'lib': lib}, 1) for lib, python in libs}
        results['calls'] = calls
        for name in calls['reflib'] or {}:
            row = '  %-28s reflib %7.1f' % (name, calls['reflib'][name])
            if calls.get('mxnet'):
                row += '   MXNet %7.1f   reflib/MXNet %.2f' % (calls['mxnet'][name],
                                                                calls['reflib'][name] / calls['mxnet'][name])
            print(row)
    if args.part in ('steps', 'all'):
        print('\nreflib, hybridized Gluon step next to the Module step, interleaved in one process')
        steps = {}
        for model in args.models.split(','):
            for threads in [int(t) for t in args.threads.split(',')]:
                got = worker(sys.executable, {'part': 'steps', 'lib': 'reflib', 'model': model}, threads)
                if got:
                    steps['%s/%d' % (model, threads)] = got
                    print('  %-6s %d thread(s): hybridized %s us, Module %s us, hybridized/Module %.2f'
                          % (model, threads, got['hybridized_us'], got['module_us'],
                             got['hybridized_over_module_speed']))
        results['steps'] = steps
    if args.part in ('train', 'all'):
        threads_list = [int(t) for t in args.threads.split(',')]
        train = {}
        for model in args.models.split(','):
            for lib, python in libs:
                for mode in (('imperative', 'hybrid', 'module') if lib == 'reflib' else ('imperative', 'hybrid')):
                    for threads in threads_list:
                        got = worker(python, {'part': 'train', 'lib': lib, 'model': model, 'mode': mode}, threads)
                        if got:
                            train['%s/%s/%s/%d' % (model, lib, mode, threads)] = got
        results['train'] = train
        print('\nsamples/s, batch %d (median of %d epochs of %d samples)' % (BATCH, args.rounds, args.samples))
        for key, got in sorted(train.items()):
            print('  %-34s %9.0f' % (key, got['samples_per_s']))

        def best(model, lib, mode):
            found = [v['samples_per_s'] for k, v in train.items() if k.startswith('%s/%s/%s/' % (model, lib, mode))]
            return max(found) if found else None
        print('\nbest vs best')
        for model in args.models.split(','):
            hybrid, module = best(model, 'reflib', 'hybrid'), best(model, 'reflib', 'module')
            mx_hybrid = best(model, 'mxnet', 'hybrid')
            if hybrid and module:
                print('  %-6s reflib hybridized / reflib Module: %.2f' % (model, hybrid / module))
            if hybrid and mx_hybrid:
                print('  %-6s reflib hybridized / MXNet hybridized: %.2f' % (model, hybrid / mx_hybrid))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
