"""Regenerate optimizer_sparse.npz: MXNet 1.9.1's optimizers given row_sparse gradients for
dense weights (tests/test_optimizer_sparse.py reads it; MXNet is not needed there).

Run with a Python that has the real MXNet 1.9.1:

    python tests/golden/gen_optimizer_sparse.py

Every case updates a dense weight for five steps, each step's gradient a row_sparse array
with a different row pattern (two rows; every row; no row at all; the last row alone;
every other row), through ``get_updater`` (``updater``), through
``create_state_multi_precision`` + ``update_multi_precision`` (``direct``), or through one
Updater call that hands over two weights, a dense gradient for the first and the row_sparse
one for the second (``mixed``: SGD then updates both by its one-weight kernels).

Stored (keys ``<case>/...``; ``<case>/meta`` a JSON string): the weights after each step
stacked over the steps (``w0``, and ``w1`` in mixed mode), every state array (``s<p>_<j>``;
the meta records the state's structure, as ``T[A,A]``, and each array's storage type), the
gradient after the update as a dense array (``g<p>``: AdaDelta scales it in place).  A case
MXNet refuses records ``error`` in its meta (and no arrays).  The inputs are stored too:
``init/<shape>``, ``grads/<shape>/<step>/rows`` and ``.../values``, ``dense/<step>``.
"""

import json
import os
import warnings

import numpy as np
import mxnet as mx

warnings.simplefilter('ignore')

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'optimizer_sparse.npz')
SHAPES = {'2d': (6, 4), '3d': (5, 2, 3)}
ROW_PATTERNS = [[1, 3], 'all', [], 'last', [0, 2, 4]]
STEPS = len(ROW_PATTERNS)
rng = np.random.default_rng(20240923)

rec = {}
for key, shape in SHAPES.items():
    rec['init/%s' % key] = rng.normal(size=shape).astype(np.float32)
    for k, pattern in enumerate(ROW_PATTERNS):
        rows = {'all': list(range(shape[0])), 'last': [shape[0] - 1]}[pattern] if isinstance(pattern, str) \
            else pattern
        rec['grads/%s/%d/rows' % (key, k)] = np.array(rows, dtype=np.int64)
        rec['grads/%s/%d/values' % (key, k)] = (rng.normal(size=(len(rows),) + shape[1:]) * 2).astype(np.float32)
for k in range(STEPS):
    rec['dense/%d' % k] = (rng.normal(size=SHAPES['2d']) * 2).astype(np.float32)

CASES = []


def case(name, opt, kwargs, mode='updater', dtype='float32', shape='2d', no_noise=False):
    CASES.append(dict(name=name, opt=opt, kwargs=kwargs, mode=mode, dtype=dtype, shape=shape,
                      no_noise=no_noise))


# --- SGD: lazy (the default) and standard, with and without momentum
case('sgd_lazy', 'sgd', dict(learning_rate=0.1))
case('sgd_lazy_wd_clip_rescale', 'sgd', dict(learning_rate=0.1, wd=0.05, clip_gradient=1.0, rescale_grad=0.5))
case('sgd_lazy_clip_zero', 'sgd', dict(learning_rate=0.1, wd=0.05, clip_gradient=0))
case('sgd_std_wd', 'sgd', dict(learning_rate=0.1, wd=0.05, rescale_grad=0.5, lazy_update=False))
case('sgd_std_wd_clip', 'sgd', dict(learning_rate=0.2, wd=0.1, clip_gradient=0.8, lazy_update=False))
case('sgd_mom_lazy_wd', 'sgd', dict(learning_rate=0.1, momentum=0.9, wd=0.05))
case('sgd_mom_lazy_clip_rescale', 'sgd', dict(learning_rate=0.1, momentum=0.9, wd=0.01, clip_gradient=1.0,
                                              rescale_grad=0.5))
case('sgd_mom_std_wd', 'sgd', dict(learning_rate=0.1, momentum=0.9, wd=0.05, lazy_update=False))
case('sgd_mom_std_clip_rescale', 'sgd', dict(learning_rate=0.1, momentum=0.8, wd=0.02, clip_gradient=0.7,
                                             rescale_grad=0.5, lazy_update=False))
case('sgd_mom_lazy_3d', 'sgd', dict(learning_rate=0.1, momentum=0.9, wd=0.05), shape='3d')
case('sgd_std_3d', 'sgd', dict(learning_rate=0.1, wd=0.05, lazy_update=False), shape='3d')
case('sgd_direct_lazy_wd', 'sgd', dict(learning_rate=0.1, wd=0.05), mode='direct')
case('sgd_direct_mom_std', 'sgd', dict(learning_rate=0.1, momentum=0.9, wd=0.05, lazy_update=False), mode='direct')
case('sgd_fp16_mp_nomom', 'sgd', dict(learning_rate=0.1, wd=0.05, multi_precision=True), dtype='float16')
case('sgd_fp16_mp_mom', 'sgd', dict(learning_rate=0.1, momentum=0.9, wd=0.05, multi_precision=True),
     dtype='float16')
case('sgd_fp16_lazy_nomp', 'sgd', dict(learning_rate=0.1, momentum=0.9, wd=0.05), dtype='float16')
case('sgd_mixed_nomom_wd', 'sgd', dict(learning_rate=0.1, wd=0.05, rescale_grad=0.5), mode='mixed')
case('sgd_mixed_mom_wd', 'sgd', dict(learning_rate=0.1, momentum=0.9, wd=0.05), mode='mixed')
case('sgd_mixed_std', 'sgd', dict(learning_rate=0.1, wd=0.05, lazy_update=False), mode='mixed')
case('sgd_fp16_mp_mixed', 'sgd', dict(learning_rate=0.1, wd=0.05, multi_precision=True), mode='mixed',
     dtype='float16')
# --- NAG: without momentum MXNet's sgd_update, lazily; with momentum the dense kernel
case('nag_nomom_wd', 'nag', dict(learning_rate=0.1, wd=0.05, rescale_grad=0.5))
case('nag_mom_wd_clip', 'nag', dict(learning_rate=0.1, momentum=0.9, wd=0.05, clip_gradient=1.0))
case('nag_fp16_mp_nomom', 'nag', dict(learning_rate=0.1, wd=0.05, multi_precision=True), dtype='float16')
# --- the optimizers whose kernels (or NDArray arithmetic) make the gradient dense
case('signum_wd', 'signum', dict(learning_rate=0.01, wd=0.05, rescale_grad=0.5))
case('signsgd_wd', 'signum', dict(learning_rate=0.01, momentum=0.0, wd=0.05))
case('sgld_nonoise_wd_clip', 'sgld', dict(learning_rate=0.1, wd=0.05, clip_gradient=1.0), no_noise=True)
case('dcasgd_wd_clip', 'dcasgd', dict(learning_rate=0.1, wd=0.05, clip_gradient=1.0, rescale_grad=0.5))
case('test_rescale', 'test', dict(rescale_grad=0.5))
case('adamax_wd', 'adamax', dict(learning_rate=0.01, wd=0.05, clip_gradient=1.0))
case('nadam_wd', 'nadam', dict(learning_rate=0.01, wd=0.05, rescale_grad=0.5))
case('ftml_wd', 'ftml', dict(learning_rate=0.01, wd=0.05, clip_gradient=1.0))
case('rmsprop_wd', 'rmsprop', dict(learning_rate=0.01, wd=0.05))
case('rmsprop_centered_clip', 'rmsprop', dict(learning_rate=0.01, centered=True, clip_gradient=1.0,
                                             clip_weights=2.0))
case('adadelta_wd_rescale', 'adadelta', dict(wd=0.05, rescale_grad=0.5, clip_gradient=1.0))
case('ftrl_default', 'ftrl', dict())
case('ftrl_wd_clip', 'ftrl', dict(learning_rate=0.2, lamda1=0.05, wd=0.05, clip_gradient=1.0))
case('lamb_wd', 'lamb', dict(learning_rate=0.01, wd=0.05))
case('lamb_direct', 'lamb', dict(learning_rate=0.01, wd=0.05, clip_gradient=1.0), mode='direct')
# --- Adam: lazy (the default) and standard
case('adam_lazy', 'adam', dict(learning_rate=0.01))
case('adam_lazy_wd_clip_rescale', 'adam', dict(learning_rate=0.01, wd=0.05, clip_gradient=1.0, rescale_grad=0.5))
case('adam_std_wd', 'adam', dict(learning_rate=0.01, wd=0.05, lazy_update=False))
case('adam_std_wd_clip', 'adam', dict(learning_rate=0.01, wd=0.05, clip_gradient=0.8, lazy_update=False))
case('adam_lazy_3d', 'adam', dict(learning_rate=0.01, wd=0.05), shape='3d')
case('adam_direct_std', 'adam', dict(learning_rate=0.01, wd=0.05, rescale_grad=0.5, lazy_update=False),
     mode='direct')
# --- AdaGrad's sparse kernel (no weight decay: MXNet refuses wd with it)
case('adagrad', 'adagrad', dict(learning_rate=0.1))
case('adagrad_clip_rescale', 'adagrad', dict(learning_rate=0.1, clip_gradient=1.0, rescale_grad=0.5))
case('adagrad_clip_zero', 'adagrad', dict(learning_rate=0.1, clip_gradient=0))
case('adagrad_clip_negative', 'adagrad', dict(learning_rate=0.1, clip_gradient=-1.0))
case('adagrad_wd_refused', 'adagrad', dict(learning_rate=0.1, wd=0.01))
case('groupadagrad', 'groupadagrad', dict(learning_rate=0.1))
case('groupadagrad_clip_rescale', 'groupadagrad', dict(learning_rate=0.1, clip_gradient=1.0, rescale_grad=0.5))
# --- LARS and LBSGD run the one-weight SGD kernels for a sparse gradient
case('lars_mom_lazy', 'lars', dict(learning_rate=0.1, momentum=0.9, wd=0.01, eta=0.01))
case('lars_std', 'lars', dict(learning_rate=0.1, wd=0.01, eta=0.01, rescale_grad=0.5, lazy_update=False))
case('lbsgd_default', 'lbsgd', dict(learning_rate=0.1, wd=0.05))
case('lbsgd_batch2_mom', 'lbsgd', dict(learning_rate=0.1, momentum=0.9, wd=0.05, batch_scale=2,
                                       warmup_epochs=1, updates_per_epoch=2))


def rsp_grad(shape_key, k, dtype):
    values = rec['grads/%s/%d/values' % (shape_key, k)].astype(dtype)
    rows = rec['grads/%s/%d/rows' % (shape_key, k)]
    return mx.nd.sparse.row_sparse_array((values, rows), shape=SHAPES[shape_key], dtype=dtype)


def state_layout(state):
    """T[...] tuple, L[...] list, N None, A array; and the arrays, in order."""
    if state is None:
        return 'N', []
    if isinstance(state, mx.nd.NDArray):
        return 'A', [state]
    parts = [state_layout(s) for s in state]
    tag = 'T' if isinstance(state, tuple) else 'L'
    return tag + '[' + ','.join(p[0] for p in parts) + ']', [a for p in parts for a in p[1]]


def zero_noise(loc, scale, shape=None, dtype=None, ctx=None, **kwargs):
    return mx.nd.zeros(shape, ctx=ctx, dtype=dtype)


def run_steps(c, opt):
    """The weights, gradients and states of every step (a dict of lists), and the states' layout."""
    dtype, shape = c['dtype'], c['shape']
    updater = mx.optimizer.get_updater(opt)
    mixed = c['mode'] == 'mixed'
    weights = [mx.nd.array(rec['init/%s' % shape], dtype=dtype)]
    if mixed:
        weights = [mx.nd.array(rec['init/2d'] * 0.5, dtype=dtype)] + weights
    sparse_index = len(weights) - 1
    states, hist = {}, {}
    for k in range(STEPS):
        grads = [rsp_grad(shape, k, dtype)]
        if mixed:
            grads = [mx.nd.array(rec['dense/%d' % k], dtype=dtype)] + grads
        if c['mode'] == 'direct':
            if 0 not in states:
                states[0] = opt.create_state_multi_precision(0, weights[0])
            opt.update_multi_precision(0, weights[0], grads[0], states[0])
        elif mixed:
            updater([0, 1], grads, weights)
            states = updater.states
        else:
            updater(0, grads[0], weights[0])
            states = updater.states
        layout = []
        for p, (w, g) in enumerate(zip(weights, grads)):
            hist.setdefault('w%d' % p, []).append(w.asnumpy())
            hist.setdefault('g%d' % p, []).append(g.asnumpy())
            tag, arrays = state_layout(states[p])
            layout.append([tag, [a.stype for a in arrays]])
            for j, a in enumerate(arrays):
                hist.setdefault('s%d_%d' % (p, j), []).append(a.asnumpy())
    return hist, layout, sparse_index


def record_case(c):
    name = c['name']
    opt = mx.optimizer.create(c['opt'], **c['kwargs'])
    meta = dict(c)
    real_normal = mx.optimizer.optimizer.normal
    if c['no_noise']:
        mx.optimizer.optimizer.normal = zero_noise
    try:
        hist, layout, sparse_index = run_steps(c, opt)
    except mx.base.MXNetError as err:
        lines = [line for line in str(err).split('\n') if 'Check failed' in line] or ['MXNetError']
        meta['error'] = lines[0][:200]
    else:
        for key, values in hist.items():
            rec['%s/%s' % (name, key)] = np.stack(values)
        meta.update(layout=layout, sparse_index=sparse_index)
    finally:
        mx.optimizer.optimizer.normal = real_normal
    rec['%s/meta' % name] = np.array(json.dumps(meta))


for c in CASES:
    record_case(c)
rec['index/cases'] = np.array(json.dumps([c['name'] for c in CASES]))
np.savez_compressed(OUT, **rec)
print('wrote %s: %d cases, %d arrays' % (OUT, len(CASES), len(rec)))
