"""Record golden values for BatchNorm_v1 (reflib/operator/norm.py) from real MXNet 1.9.1.

Run with MXNet's interpreter (not needed by the tests):

    cd tests/golden && /tmp/mxv/bin/python gen_ops_batchnorm_v1.py

It writes tests/golden/ops_batchnorm_v1.npz.  For every case in CASES (data shape,
parameters, training or not) it binds ``BatchNorm_v1(data, output_mean_var=True)`` with
given gamma, beta and moving statistics, runs one forward and one backward (fixed random
head gradients for all three outputs) and keeps, under ``c<i>_*``: the inputs, the
outputs, gamma and the moving statistics after forward and after backward, the heads and
the input gradients.  ``meta`` holds the cases, the names MXNet gives, its
get_operator_arguments, the dtypes it infers, and the errors it raises (``errors``: data of
other ranks and dtypes, which MXNet accepts at bind and fails on when it runs).
"""

import json
import os
import re

import numpy as np
import mxnet as mx
from mxnet.operator import get_operator_arguments

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_batchnorm_v1.npz')

CASES = [
    ((4, 3), {}, True),
    ((4, 3), {'fix_gamma': False}, True),
    ((2, 3, 2, 2), {}, True),
    ((2, 3, 2, 2), {'fix_gamma': False}, True),
    ((2, 3, 2, 2), {'fix_gamma': False, 'eps': 0.1, 'momentum': 0.5}, True),
    ((2, 3, 2, 2), {'use_global_stats': True}, True),
    ((2, 3, 2, 2), {'use_global_stats': True, 'fix_gamma': False}, True),
    ((3, 5, 1, 4), {'fix_gamma': False, 'momentum': 0.0}, True),
    # inference forward, then backward (allowed): the gradient at the moving statistics
    ((2, 3, 2, 2), {}, False),
    ((2, 3, 2, 2), {'fix_gamma': False}, False),
    ((5, 2), {'fix_gamma': False, 'eps': 0.01}, False),
    ((2, 3, 2, 2), {'use_global_stats': True, 'fix_gamma': False}, False),
]


def first_error_line(err):
    lines = [line for line in str(err).splitlines() if 'Check failed' in line or 'Error' in line]
    line = lines[-1].strip() if lines else str(err).splitlines()[0]
    return re.sub(r'\[\d\d:\d\d:\d\d\] ', '', line)        # no time of day


def record_case(i, shape, params, train, rng, arrays):
    sym = mx.sym.BatchNorm_v1(mx.sym.Variable('data'), name='bn', output_mean_var=True, **params)
    exe = sym.simple_bind(mx.cpu(), data=shape)
    channels = shape[1]
    values = {'data': rng.uniform(-2, 2, shape), 'bn_gamma': rng.uniform(0.5, 2, channels),
              'bn_beta': rng.uniform(-1, 1, channels)}
    aux = {'bn_moving_mean': rng.uniform(-0.5, 0.5, channels), 'bn_moving_var': rng.uniform(0.5, 2, channels)}
    for name, value in values.items():
        exe.arg_dict[name][:] = value.astype(np.float32)
        arrays['c%d_%s' % (i, name)] = exe.arg_dict[name].asnumpy()
    for name, value in aux.items():
        exe.aux_dict[name][:] = value.astype(np.float32)
        arrays['c%d_%s' % (i, name)] = exe.aux_dict[name].asnumpy()
    outs = [o.asnumpy() for o in exe.forward(is_train=train)]
    for k, o in enumerate(outs):
        arrays['c%d_out%d' % (i, k)] = o
    arrays['c%d_gamma_fwd' % i] = exe.arg_dict['bn_gamma'].asnumpy()
    for name in aux:
        arrays['c%d_%s_fwd' % (i, name)] = exe.aux_dict[name].asnumpy()
    heads = [rng.normal(size=o.shape).astype(np.float32) for o in outs]
    exe.backward([mx.nd.array(h) for h in heads])
    for k, h in enumerate(heads):
        arrays['c%d_head%d' % (i, k)] = h
    for name in values:
        arrays['c%d_grad_%s' % (i, name)] = exe.grad_dict[name].asnumpy()
    for name in aux:
        arrays['c%d_%s_bwd' % (i, name)] = exe.aux_dict[name].asnumpy()


def errors():
    """What MXNet says of data it cannot normalise: bound fine, failing when run."""
    found = {}
    for label, shape, dtype in [('1d', (4,), 'float32'), ('3d', (2, 3, 4), 'float32'),
                                ('5d', (2, 3, 2, 2, 2), 'float32'), ('float64', (2, 3), 'float64'),
                                ('float16', (2, 3), 'float16')]:
        try:
            sym = mx.sym.BatchNorm_v1(mx.sym.Variable('data'), name='bn')
            exe = sym.simple_bind(mx.cpu(), data=shape, type_dict={'data': dtype})
            exe.forward(is_train=True)[0].asnumpy()
            found[label] = None
        except (mx.base.MXNetError, RuntimeError) as err:     # simple_bind wraps its own
            found[label] = first_error_line(err)
    return found


def main():
    rng = np.random.RandomState(11)
    arrays = {}
    for i, (shape, params, train) in enumerate(CASES):
        record_case(i, shape, params, train, rng, arrays)
    sym = mx.sym.BatchNorm_v1(mx.sym.Variable('data'), name='bn')
    shown = mx.sym.BatchNorm_v1(mx.sym.Variable('data'), name='bn', output_mean_var=True)
    node_attrs = {n['name']: n.get('attrs', {}) for n in json.loads(sym.tojson())['nodes']}
    arguments = get_operator_arguments('BatchNorm_v1')
    meta = {
        'cases': [{'shape': list(shape), 'params': params, 'train': train} for shape, params, train in CASES],
        'arguments': sym.list_arguments(), 'aux_states': sym.list_auxiliary_states(),
        'outputs': sym.list_outputs(), 'outputs_shown': shown.list_outputs(),
        'aux_init': {k: node_attrs[k].get('__init__') for k in sym.list_auxiliary_states()},
        'operator_arguments': {'names': list(arguments.names), 'types': list(arguments.types)},
        'infer_type': {dt: [[np.dtype(t).name for t in group] for group in
                            shown.infer_type(data=dt)] for dt in ('float16', 'float32', 'float64')},
        'infer_shape_2d': [list(map(list, g)) for g in shown.infer_shape(data=(4, 3))],
        'errors': errors(),
    }
    arrays['meta'] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d bytes' % (OUT, len(CASES), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
