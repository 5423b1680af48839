"""Record golden values for reflib/operator/update.py (the fused optimizer operators) from MXNet 1.9.1.

Run with a Python that has ``mxnet==1.9.1`` (the tests do not need it):

    cd tests/golden && python gen_ops_update.py

MXNet 1.9.1 refuses to compose these operators into a symbol ("Not enough argument to call
operator sgd_update"), so they are called imperatively, as its optimizers do: ``mx.nd.<op>(weight,
grad, states..., **params)``.  Each case runs two steps.  Between the steps the weight becomes the
operator's output (except for lamb_update_phase1, whose output is the update direction ``g``),
and the states stay the objects MXNet updated in place.  For case ``i`` the file holds
``in<j>`` (the inputs before step 1), ``grad<s>`` (the gradient fed at step ``s``), ``s<s>_out``
(the output of step ``s``) and ``s<s>_in<j>`` (every input after step ``s``), all flattened into
one float32 array ``c<i>`` (float16 values convert exactly) to keep the file small;
``meta['cases']`` lists the operator, its parameters (a list: one value per step), the input
kinds and the layout of ``c<i>``: (key, shape, dtype) of each piece in order.
"""

import json
import os

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_update.npz')
SHAPE = (3, 4)

# kind of each input: 'w' weight, 'g' gradient (redrawn per step), 'm' any state, 'p' a
# positive state (a second moment), 's' a small state, 'r' a (1,)-shaped norm
CLIP = {'wd': 0.1, 'rescale_grad': 0.5, 'clip_gradient': 0.6}
CASES = [
    ('sgd_update', {'lr': 0.1}, 'w g'),
    ('sgd_update', dict(CLIP, lr=0.05), 'w g'),
    ('sgd_update', {'lr': 0.1, 'clip_gradient': 0.0, 'wd': 0.01}, 'w g'),
    ('sgd_mom_update', {'lr': 0.1, 'momentum': 0.9}, 'w g m'),
    ('sgd_mom_update', dict(CLIP, lr=0.1, momentum=0.5), 'w g m'),
    ('mp_sgd_update', dict(CLIP, lr=0.1), 'w16 g16 w32'),
    ('mp_sgd_mom_update', dict(CLIP, lr=0.1, momentum=0.9), 'w16 g16 m w32'),
    ('nag_mom_update', {'lr': 0.1, 'momentum': 0.9}, 'w g m'),
    ('nag_mom_update', dict(CLIP, lr=0.1, momentum=0.8), 'w g m'),
    ('mp_nag_mom_update', dict(CLIP, lr=0.1, momentum=0.8), 'w16 g16 m w32'),
    ('adam_update', {'lr': 0.01}, 'w g m p'),
    ('adam_update', dict(CLIP, lr=0.01, beta1=0.8, beta2=0.9, epsilon=1e-3), 'w g m p'),
    ('rmsprop_update', {'lr': 0.01}, 'w g p'),
    ('rmsprop_update', dict(CLIP, lr=0.01, gamma1=0.8, epsilon=1e-4, clip_weights=1.0), 'w g p'),
    ('rmspropalex_update', {'lr': 0.01}, 'w g p s m'),
    ('rmspropalex_update', dict(CLIP, lr=0.01, gamma1=0.8, gamma2=0.7, epsilon=1e-4, clip_weights=1.0),
     'w g p s m'),
    ('ftrl_update', {'lr': 0.1}, 'w g m p'),
    ('ftrl_update', dict(CLIP, lr=0.1, lamda1=0.2, beta=0.5), 'w g m p'),
    ('ftml_update', {'lr': 0.01, 't': [1, 2]}, 'w g p p m'),
    ('ftml_update', {'lr': 0.01, 'wd': 0.1, 'rescale_grad': 0.5, 'clip_grad': 0.6, 'beta1': 0.5,
                     'beta2': 0.9, 'epsilon': 1e-4, 't': [3, 4]}, 'w g p p m'),
    ('signsgd_update', {'lr': 0.1}, 'w g'),
    ('signsgd_update', dict(CLIP, lr=0.1), 'w g'),
    ('signum_update', {'lr': 0.1, 'momentum': 0.9}, 'w g m'),
    ('signum_update', dict(CLIP, lr=0.1, momentum=0.8, wd_lh=0.05), 'w g m'),
    ('lamb_update_phase1', {'wd': 0.0, 't': [1, 2]}, 'w g m p'),
    ('lamb_update_phase1', dict(CLIP, beta1=0.8, beta2=0.9, epsilon=1e-4, t=[5, 6]), 'w g m p'),
    ('lamb_update_phase1', {'wd': 0.1, 'bias_correction': False, 't': [1, 2]}, 'w g m p'),
    ('mp_lamb_update_phase1', dict(CLIP, t=[1, 2]), 'w16 g16 m p w32'),
    ('lamb_update_phase2', {'lr': 0.1}, 'w g r r'),
    ('lamb_update_phase2', {'lr': 0.1, 'lower_bound': 2.0, 'upper_bound': 3.0}, 'w g r r'),
    ('lamb_update_phase2', {'lr': 0.1, 'upper_bound': 0.5}, 'w g r r'),
    ('lamb_update_phase2', {'lr': 0.1}, 'w g r0 r'),
    ('mp_lamb_update_phase2', {'lr': 0.1}, 'w16 g r r w32'),
]
OUTPUT_IS_NOT_THE_WEIGHT = ('lamb_update_phase1', 'mp_lamb_update_phase1')


def make(rng, kind, weight32=None):
    if kind in ('w', 'w16'):
        x = rng.uniform(-1.5, 1.5, size=SHAPE).astype(np.float32)
    elif kind in ('g', 'g16'):
        x = rng.uniform(-2, 2, size=SHAPE).astype(np.float32)
    elif kind == 'w32':
        return weight32.copy()
    elif kind == 'm':
        x = rng.uniform(-0.5, 0.5, size=SHAPE).astype(np.float32)
    elif kind == 'p':
        x = rng.uniform(0.5, 1.5, size=SHAPE).astype(np.float32)
    elif kind == 's':
        x = rng.uniform(-0.2, 0.2, size=SHAPE).astype(np.float32)
    elif kind == 'r':
        x = rng.uniform(0.5, 4, size=(1,)).astype(np.float32)
    elif kind == 'r0':
        x = np.zeros((1,), dtype=np.float32)
    else:
        raise ValueError(kind)
    return x.astype(np.float16) if kind.endswith('16') else x


def step_params(params, step):
    return {k: (v[step] if isinstance(v, list) else v) for k, v in params.items()}


def main():
    rng = np.random.RandomState(7)
    arrays, described = {}, []
    for i, (name, params, kinds) in enumerate(CASES):
        kinds = kinds.split()
        xs = []
        for kind in kinds:
            xs.append(make(rng, kind, weight32=xs[0].astype(np.float32) if xs else None))
        pieces = []

        def put(key, value):
            pieces.append((key, value.shape, value.dtype.name, value.astype(np.float32).ravel()))
        for j, x in enumerate(xs):
            put('in%d' % j, x)
        nds = [mx.nd.array(x, dtype=x.dtype) for x in xs]
        fn = getattr(mx.nd, name)
        for step in range(2):
            if step:   # a fresh gradient for the second step
                grad = make(rng, kinds[1])
                nds[1][:] = mx.nd.array(grad, dtype=grad.dtype)
            put('grad%d' % step, nds[1].asnumpy())
            out = fn(*nds, **step_params(params, step))
            put('s%d_out' % step, out.asnumpy())
            for j, x in enumerate(nds):
                put('s%d_in%d' % (step, j), x.asnumpy())
            if name not in OUTPUT_IS_NOT_THE_WEIGHT:
                nds[0][:] = out
        arrays['c%d' % i] = np.concatenate([flat for _, _, _, flat in pieces])
        described.append({'op': name, 'params': params, 'kinds': kinds, 'n_in': len(xs),
                          'layout': [(key, shape, dtype) for key, shape, dtype, _ in pieces]})
    meta = {'mxnet_version': mx.__version__, 'cases': described, 'shape': SHAPE,
            'output_is_not_the_weight': OUTPUT_IS_NOT_THE_WEIGHT}
    arrays['meta'] = np.array(json.dumps(meta, sort_keys=True))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d bytes' % (OUT, len(described), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
