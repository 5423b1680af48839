"""Record golden values for reflib/operator/multi_update.py (and update.py's AdamW) from MXNet 1.9.1.

Run with a Python that has ``mxnet==1.9.1`` (the tests do not need it):

    cd tests/golden && /tmp/mxv/bin/python gen_multi_update.py

Writes multi_update.npz.  Each *update* case calls one operator twice, as MXNet's optimizers do:
``mx.nd.<op>(*arrays, out=weights, **params)`` with the arrays in MXNet's order (interleaved
weight by weight, then the trailing ones) and the weights themselves as ``out``; a fresh
gradient is drawn before the second step.  For case ``i`` the file holds ``in<j>`` (array ``j``
before step 0), ``grad<s>_<k>`` (the gradient of weight ``k`` fed at step ``s``), ``s<s>_out<k>``
(output ``k`` of step ``s``) and ``s<s>_in<j>`` (array ``j`` after step ``s``), flattened into one
float32 array ``c<i>`` (float16 values convert exactly); ``meta['cases']`` lists the operator,
its parameters at each step (``steps``), the kind of each array and the layout of ``c<i>`` (key, shape,
dtype).  *Reduction* cases (multi_sum_sq, multi_lars) call once, without ``out``.

``meta['arguments']`` holds mx.operator.get_operator_arguments of each operator, and
``meta['graph']`` the JSON MXNet writes for a multi_mp_sgd_update node, whose states sit among
its inputs.
"""

import json
import os

import numpy as np
import mxnet as mx
from mxnet.operator import get_operator_arguments

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'multi_update.npz')
SHAPES = [(3, 4), (5,), (2, 1, 3)]       # weight k has shape SHAPES[k]

OPERATORS = ['multi_sgd_update', 'multi_sgd_mom_update', 'multi_mp_sgd_update', 'multi_mp_sgd_mom_update',
             'preloaded_multi_sgd_update', 'preloaded_multi_sgd_mom_update', 'preloaded_multi_mp_sgd_update',
             'preloaded_multi_mp_sgd_mom_update', 'multi_sum_sq', 'multi_lars', '_adamw_update',
             '_mp_adamw_update', '_multi_adamw_update', '_multi_mp_adamw_update', '_multi_lamb_update',
             '_multi_mp_lamb_update']

# Each weight's arrays by kind: 'w' weight, 'g' gradient (redrawn for step 1), 'm' a state,
# 'p' a positive state (a second moment), 'w32' the float32 master copy of the weight; a '16'
# makes it float16.  Trailing arrays: ('lrs', values) / ('wds', values), float32 arrays of the
# preloaded rates; ('scale', [value at step 0, value at step 1]), AdamW's rescale_grad.
CLIP = {'rescale_grad': 0.5, 'clip_gradient': 0.6}
UPDATES = [
    ('multi_sgd_update', {'lrs': (0.1, 0.2), 'wds': (0.0, 0.0)}, 'w g', 2, []),
    ('multi_sgd_update', dict(CLIP, lrs=(0.1, 0.05, 0.2), wds=(0.1, 0.0, 0.01)), 'w g', 3, []),
    ('multi_sgd_update', {'lrs': (0.1,), 'wds': (0.01,), 'clip_gradient': 0.0}, 'w g', 1, []),
    ('multi_sgd_mom_update', {'lrs': (0.1, 0.2), 'wds': (0.0, 0.0), 'momentum': 0.9}, 'w g m', 2, []),
    ('multi_sgd_mom_update', dict(CLIP, lrs=(0.1, 0.05, 0.2), wds=(0.1, 0.0, 0.01), momentum=0.5),
     'w g m', 3, []),
    ('multi_mp_sgd_update', dict(CLIP, lrs=(0.1, 0.2), wds=(0.1, 0.01)), 'w16 g16 w32', 2, []),
    ('multi_mp_sgd_mom_update', dict(CLIP, lrs=(0.1, 0.2, 0.3), wds=(0.1, 0.0, 0.01), momentum=0.9),
     'w16 g16 m w32', 3, []),
    ('preloaded_multi_sgd_update', dict(CLIP), 'w g', 2, [('lrs', (0.1, 0.2)), ('wds', (0.1, 0.01))]),
    ('preloaded_multi_sgd_mom_update', dict(CLIP, momentum=0.9), 'w g m', 3,
     [('lrs', (0.1, 0.05, 0.2)), ('wds', (0.1, 0.0, 0.01))]),
    ('preloaded_multi_mp_sgd_update', {'rescale_grad': 2.0}, 'w16 g16 w32', 2,
     [('lrs', (0.1, 0.2)), ('wds', (0.0, 0.01))]),
    ('preloaded_multi_mp_sgd_mom_update', dict(CLIP, momentum=0.8), 'w16 g16 m w32', 2,
     [('lrs', (0.1, 0.2)), ('wds', (0.1, 0.01))]),
    ('_adamw_update', {'lr': 0.01, 'eta': 1.0}, 'w g m p', 1, [('scale', [1.0, 1.0])]),
    ('_adamw_update', {'lr': 0.1, 'eta': 0.5, 'wd': 0.1, 'clip_gradient': 0.6, 'beta1': 0.8, 'beta2': 0.9,
                       'epsilon': 1e-3}, 'w g m p', 1, [('scale', [2.0, 0.5])]),
    ('_adamw_update', {'lr': 0.1, 'eta': 1.0, 'wd': 0.1}, 'w g m p', 1, [('scale', [float('nan'), 2.0])]),
    ('_adamw_update', {'lr': 0.1, 'eta': 1.0, 'wd': 0.1}, 'w g m p', 1, [('scale', [float('inf'), 0.0])]),
    ('_mp_adamw_update', {'lr': 0.1, 'eta': 0.5, 'wd': 0.1, 'clip_gradient': 0.6}, 'w16 g16 m p w32', 1,
     [('scale', [2.0, float('nan')])]),
    ('_multi_adamw_update', {'lrs': (0.1, 0.01), 'wds': (0.1, 0.0), 'etas': (1.0, 0.5), 'clip_gradient': 0.6},
     'w g m p', 2, [('scale', [2.0, 0.5])]),
    ('_multi_adamw_update', {'lrs': (0.1, 0.01, 0.05), 'wds': (0.1, 0.0, 0.01), 'etas': (1.0, 0.5, 0.9)},
     'w g m p', 3, [('scale', [float('-inf'), 1.0])]),
    ('_multi_mp_adamw_update', {'lrs': (0.1, 0.01), 'wds': (0.1, 0.0), 'etas': (1.0, 0.5), 'beta1': 0.8},
     'w16 g16 m p w32', 2, [('scale', [1.0, 0.0])]),
    ('_multi_lamb_update', {'learning_rates': (0.1, 0.01), 'wds': (0.0, 0.01),
                            'step_count': [(1, 3), (2, 4)]}, 'w g m p', 2, []),
    ('_multi_lamb_update', dict(CLIP, learning_rates=(0.1, 0.01, 0.05), wds=(0.1, 0.0, 0.01), beta1=0.8,
                                beta2=0.9, epsilon=1e-4, lower_bound=0.5, upper_bound=2.0,
                                step_count=[(1, 5, 2), (2, 6, 3)]), 'w g m p', 3, []),
    ('_multi_lamb_update', {'learning_rates': (0.1, 0.2), 'wds': (0.1, 0.0), 'bias_correction': False,
                            'step_count': [(1, 1), (2, 2)]}, 'w g m p', 2, []),
    ('_multi_mp_lamb_update', dict(CLIP, learning_rates=(0.1, 0.01), wds=(0.1, 0.01),
                                   step_count=[(1, 3), (2, 4)]), 'w16 g16 m p w32', 2, []),
]
COUNT = {'_multi_lamb_update': 'num_tensors', '_multi_mp_lamb_update': 'num_tensors'}
SINGLE = ('_adamw_update', '_mp_adamw_update')      # one weight, no count parameter

# (operator, parameters, arrays): called once, without out=
REDUCTIONS = [
    ('multi_sum_sq', {}, [np.arange(12, dtype=np.float32).reshape(3, 4) / 7,
                          np.array([0.5, -1.5], np.float32), np.zeros((2, 2), np.float32)]),
    ('multi_sum_sq', {}, [np.array([1.001, -3.5, 0.25], np.float16), np.array([[256.0, 1.0]], np.float16)]),
    ('multi_sum_sq', {}, [np.linspace(-2, 2, 9).reshape(3, 3), np.array([1e-3])]),
    ('multi_lars', {'eta': 0.5, 'eps': 1e-3, 'rescale_grad': 2.0},
     [np.array(v, np.float32) for v in ([0.1, 0.2, 0.3, 0.4], [4.0, 0.0, 9.0, 2.5], [1.0, 1.0, 0.0, 0.3],
                                         [0.01, 0.0, 0.5, 0.1])]),
    ('multi_lars', {'eta': 0.001, 'eps': 0.0},
     [np.array(v, np.float32).reshape(2, 2) for v in ([1.0, 0.5, 0.25, 2.0], [3.0, 7.0, 1e-4, 100.0],
                                                      [0.5, 2.0, 1e-6, 4.0], [1e-4, 0.0, 0.1, 5e-4])]),
]


def make(rng, kind, shape, weight32=None):
    base = kind.replace('16', '')
    if base == 'w':
        x = rng.uniform(-1.5, 1.5, size=shape)
    elif base == 'g':
        x = rng.uniform(-2, 2, size=shape)
    elif base == 'w32':
        return weight32.astype(np.float32)
    elif base == 'm':
        x = rng.uniform(-0.5, 0.5, size=shape)
    elif base == 'p':
        x = rng.uniform(0.5, 1.5, size=shape)
    else:
        raise ValueError(kind)
    return x.astype(np.float16 if kind.endswith('16') else np.float32)


def step_params(params, step):
    """The parameters of step ``step``: a list holds one value per step."""
    return {k: (v[step] if isinstance(v, list) else v) for k, v in params.items()}


def record_update(rng, name, params, kinds, n, trailing):
    kinds = kinds.split()
    arrays, array_kinds = [], []
    for k in range(n):
        group = []
        for kind in kinds:
            group.append(make(rng, kind, SHAPES[k], weight32=group[0] if group else None))
            array_kinds.append('%s_%d' % (kind, k))
        arrays.extend(group)
    for kind, values in trailing:
        arrays.append(np.array(values if kind != 'scale' else [values[0]], np.float32))
        array_kinds.append(kind)
    pieces = []

    def put(key, value):
        pieces.append((key, value.shape, value.dtype.name, value.astype(np.float32).ravel()))
    for j, x in enumerate(arrays):
        put('in%d' % j, x)
    nds = [mx.nd.array(x, dtype=x.dtype) for x in arrays]
    weights = [nds[k * len(kinds)] for k in range(n)]
    grads = [nds[k * len(kinds) + 1] for k in range(n)]
    fn = getattr(mx.nd, name) if hasattr(mx.nd, name) else getattr(mx.nd._internal, name)
    for step in range(2):
        if step:                         # a fresh gradient, and the scale of step 1
            for k, g in enumerate(grads):
                g[:] = mx.nd.array(make(rng, kinds[1], SHAPES[k]), dtype=g.dtype)
            for (kind, values), nd in zip(trailing, nds[n * len(kinds):]):
                if kind == 'scale':
                    nd[:] = values[1]
        for k, g in enumerate(grads):
            put('grad%d_%d' % (step, k), g.asnumpy())
        extra = {} if name in SINGLE else {COUNT.get(name, 'num_weights'): n}
        fn(*nds, out=weights[0] if name in SINGLE else weights, **dict(step_params(params, step), **extra))
        for k, w in enumerate(weights):
            put('s%d_out%d' % (step, k), w.asnumpy())
        for j, x in enumerate(nds):
            put('s%d_in%d' % (step, j), x.asnumpy())
    return pieces, array_kinds


def record_reduction(name, params, arrays):
    pieces = []
    for j, x in enumerate(arrays):
        pieces.append(('in%d' % j, x.shape, x.dtype.name, x.astype(np.float32).ravel()))
    extra = {'num_arrays': len(arrays)} if name == 'multi_sum_sq' else {}
    # float64 inputs are stored rounded to float32, and fed so: the values MXNet saw
    nds = [mx.nd.array(x.astype(np.float32).astype(x.dtype), dtype=x.dtype) for x in arrays]
    out = getattr(mx.nd, name)(*nds, **dict(params, **extra)).asnumpy()
    pieces.append(('out', out.shape, out.dtype.name, out.astype(np.float32).ravel()))
    return pieces


def graph_json():
    """MXNet's JSON for multi_mp_sgd_update over two weights: its weight32 states sit among the inputs."""
    v = [mx.sym.var(n) for n in ('w0', 'g0', 'm0', 'w1', 'g1', 'm1')]
    sym = mx.sym.multi_mp_sgd_update(*v, lrs=(0.1, 0.2), wds=(0.0, 0.01), num_weights=2, name='up')
    return {'json': sym.tojson(), 'arguments': sym.list_arguments(), 'aux': sym.list_auxiliary_states()}


def main():
    rng = np.random.RandomState(11)
    arrays, described = {}, []
    for name, params, kinds, n, trailing in UPDATES:
        pieces, array_kinds = record_update(rng, name, params, kinds, n, trailing)
        arrays['c%d' % len(described)] = np.concatenate([flat for _, _, _, flat in pieces])
        described.append({'op': name, 'steps': [step_params(params, s) for s in range(2)],
                          'kinds': array_kinds, 'n_weights': n, 'form': 'update',
                          'layout': [(key, shape, dtype) for key, shape, dtype, _ in pieces]})
    for name, params, values in REDUCTIONS:
        pieces = record_reduction(name, params, values)
        arrays['c%d' % len(described)] = np.concatenate([flat for _, _, _, flat in pieces])
        described.append({'op': name, 'params': params, 'n_in': len(values), 'form': 'reduction',
                          'layout': [(key, shape, dtype) for key, shape, dtype, _ in pieces]})
    meta = {'mxnet_version': mx.__version__, 'cases': described, 'shapes': SHAPES,
            'arguments': {op: get_operator_arguments(op)._asdict() for op in OPERATORS},
            'graph': graph_json()}
    arrays['meta'] = np.array(json.dumps(meta, sort_keys=True))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d bytes' % (OUT, len(described), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
