#!/usr/bin/env python3
"""Where reflib's Module.fit spends its time, per model (cProfile).

    .venv/bin/python bench/profile_fit.py                  # both models
    .venv/bin/python bench/profile_fit.py --models cnn --epochs 2 --top 30 --dump cnn.prof

Same models, data and fit arguments as fit_throughput.py.  After one warm-up epoch, fit runs
``--epochs`` epochs under cProfile, and the inclusive time of reflib's own functions is
grouped: each operator's forward and backward, what the Executor adds around them, loading a
batch into the bound arrays, the optimizer step (Module.update), the metric, the data
iterator, the end-of-epoch get_params/set_params.  cProfile adds a cost per Python call, so
the Python-heavy parts look somewhat bigger than they are; the unprofiled epoch time is
printed alongside for scale.  numpy's own C routines (matmul, ufuncs) show up inside the
Python function that calls them.
"""

import argparse
import cProfile
import logging
import os
import pstats
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_throughput as ft  # noqa: E402  (same directory)


def key(func):
    code = func.__code__
    return (code.co_filename, code.co_firstlineno, code.co_name)


def profile_model(mx, model, batch_size, samples, epochs, top, dump, ctx=None):
    import numpy as np
    from reflib.operator import registry
    from reflib.executor.executor import Executor
    from reflib.module import executor_group
    from reflib.io import NDArrayIter
    from reflib.module.module import Module
    from reflib.module.base_module import BaseModule

    np.random.seed(42)
    mx.random.seed(42)
    images, labels = ft.synthetic_data(np, model, samples, 42)
    train = mx.io.NDArrayIter(images, labels, batch_size, shuffle=True, label_name='softmax_label')
    mod = mx.mod.Module(ft.build_symbol(mx, model), context=ctx or mx.cpu())
    fit_args = ft.fit_arguments(mx)
    mod.fit(train, num_epoch=1, **fit_args)                      # warm-up, not profiled
    tic = time.perf_counter()
    mod.fit(train, begin_epoch=1, num_epoch=2, **fit_args)        # unprofiled reference epoch
    plain_epoch = time.perf_counter() - tic

    prof = cProfile.Profile()
    prof.enable()
    mod.fit(train, begin_epoch=2, num_epoch=2 + epochs, **fit_args)
    prof.disable()
    if dump:
        prof.dump_stats(dump)
    stats = pstats.Stats(prof)
    table = stats.stats  # (file, line, name) -> (cc, nc, tottime, cumtime, callers)

    def cum(func):
        entry = table.get(key(func))
        return entry[3] if entry else 0.0

    total = cum(BaseModule.fit)
    rows = []
    op_fwd = op_bwd = 0.0
    seen = set()  # aliases (Softmax = SoftmaxOutput) and inherited methods share one code object
    for name in registry.list_operators():
        cls = type(registry.get(name))
        for phase in ('forward', 'backward'):
            func = getattr(cls, phase, None)
            if func is None or not hasattr(func, '__code__') or key(func) in seen:
                continue
            seen.add(key(func))
            name = getattr(cls, 'name', name)
            seconds = cum(func)
            if seconds:
                rows.append(('%s.%s' % (name, phase), seconds))
                if phase == 'forward':
                    op_fwd += seconds
                else:
                    op_bwd += seconds
    rows.sort(key=lambda r: -r[1])
    exe_fwd, exe_bwd = cum(Executor.forward), cum(Executor.backward)
    load = cum(executor_group._load)
    update = cum(Module.update)
    metric = cum(Module.update_metric)
    it_next = cum(NDArrayIter.next)
    it_reset = cum(NDArrayIter.reset)
    params = cum(Module.get_params) + cum(Module.set_params)
    module_fwd_other = cum(Module.forward) - exe_fwd - load
    module_bwd_other = cum(Module.backward) - exe_bwd
    groups = rows + [
        ('Executor.forward around the operators', exe_fwd - op_fwd),
        ('Executor.backward around the operators (grad sums, zeros, copies)', exe_bwd - op_bwd),
        ('Module.forward: copy batch into bound arrays (_load)', load),
        ('Module.forward/backward: other checks', module_fwd_other + module_bwd_other),
        ('Module.update (optimizer: SGD momentum, updater)', update),
        ('Module.update_metric (acc)', metric),
        ('NDArrayIter.next (slicing a batch)', it_next),
        ('NDArrayIter.reset (shuffle copy)', it_reset),
        ('get_params + set_params at epoch end', params),
    ]
    accounted = sum(s for _, s in groups)
    groups.append(('rest of fit (loop, callbacks, logging)', total - accounted))

    steps = epochs * (-(-samples // batch_size))
    print('== %s: %s' % (model, ft.MODEL_TITLES[model]))
    print('%d samples/epoch, %d epoch(s) profiled (%d batches); unprofiled epoch %.2f s (%.0f samples/s); '
          'profiled fit %.2f s (%.2f s/epoch)' % (samples, epochs, steps, plain_epoch, samples / plain_epoch,
                                                 total, total / epochs))
    print('%-66s %9s %7s %9s' % ('where (inclusive time)', 'seconds', '% fit', 'ms/batch'))
    for name, seconds in groups:
        if seconds >= 0.0005 * total:
            print('%-66s %9.3f %6.1f%% %9.2f' % (name, seconds, 100 * seconds / total, 1000 * seconds / steps))
    print('%-66s %9.3f %6.1f%%' % ('operators forward, all', op_fwd, 100 * op_fwd / total))
    print('%-66s %9.3f %6.1f%%' % ('operators backward, all', op_bwd, 100 * op_bwd / total))
    print()
    print('top %d functions by own time (tottime):' % top)
    stats.sort_stats('tottime').print_stats(top)
    return total


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--models', default='mlp,cnn,resnet')
    parser.add_argument('--batch', type=int, default=64, help='batch size (default 64)')
    parser.add_argument('--epochs', type=int, default=1, help='epochs profiled per model')
    parser.add_argument('--samples', type=int, default=None, help='samples per epoch (default: per model)')
    parser.add_argument('--top', type=int, default=20, help='functions listed by own time')
    parser.add_argument('--dump', default=None, help='write the raw profile (with a .MODEL suffix)')
    parser.add_argument('--context', default='cpu', choices=('cpu', 'gpu'),
                        help="where fit runs; on 'gpu' the times are the host's (kernels launch "
                             'asynchronously): what Python costs around them')
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    import reflib as mx
    for model in args.models.split(','):
        samples = args.samples or ft.MODELS[model][1]
        profile_model(mx, model, args.batch, samples, args.epochs, args.top,
                      args.dump and '%s.%s' % (args.dump, model), ctx=mx.Context(args.context, 0))


if __name__ == '__main__':
    main()
