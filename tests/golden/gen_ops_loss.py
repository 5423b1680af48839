"""Generate tests/golden/ops_loss.npz from real MXNet 1.9.1.

Run with an interpreter that has mxnet 1.9.1 installed (CI never runs this):

    python tests/golden/gen_ops_loss.py

Every case runs one operator through mx.sym + simple_bind + forward(is_train=True)
+ backward and stores its inputs, its first output, the head gradient (for
operators that are not loss heads) and the gradients of the non-label inputs.
The case list itself is stored as JSON under the key ``cases``.
"""

import json
import os

import numpy as np
import mxnet as mx

rng = np.random.RandomState(1234)


def randn(*shape):
    return rng.randn(*shape).astype(np.float32)


def labels(high, *shape):
    return rng.randint(0, high, shape).astype(np.float32)


# (key, operator, params, [(input name, array)], indices of inputs whose gradient is kept, head grad?)
CASES = []


def case(key, op, params, inputs, grads=(0,), head=False):
    CASES.append((key, op, params, inputs, list(grads), head))


# ------------------------------------------------------------ SoftmaxOutput
x45 = randn(4, 5)
l4 = np.array([0, 2, 4, 2], np.float32)
for key, params in [
        ('sm_basic', {}),
        ('sm_grad_scale', {'grad_scale': 2.5}),
        ('sm_batch', {'normalization': 'batch'}),
        ('sm_ignore_null', {'use_ignore': True, 'ignore_label': 2}),
        ('sm_valid_ignore', {'use_ignore': True, 'ignore_label': 2, 'normalization': 'valid'}),
        ('sm_valid_noignore', {'ignore_label': 2, 'normalization': 'valid'}),
        ('sm_smooth', {'smooth_alpha': 0.1}),
        ('sm_smooth_ignore', {'smooth_alpha': 0.2, 'use_ignore': True, 'ignore_label': 0,
                              'normalization': 'valid', 'grad_scale': 3.0}),
        ('sm_out_grad', {'out_grad': True, 'grad_scale': 2.0})]:
    case(key, 'SoftmaxOutput', params, [('data', x45), ('label', l4)])
case('sm_label_cast', 'SoftmaxOutput', {'use_ignore': True, 'ignore_label': 1.5, 'normalization': 'valid'},
     [('data', x45), ('label', np.array([-1, 5, 1.7, -0.5], np.float32))])
case('sm_soft_label', 'SoftmaxOutput', {'grad_scale': 2.0, 'normalization': 'batch', 'smooth_alpha': 0.3},
     [('data', x45), ('label', rng.rand(4, 5).astype(np.float32))])
x2345 = randn(2, 3, 4, 5)
l245 = labels(3, 2, 4, 5)
case('sm_multi', 'SoftmaxOutput', {'multi_output': True}, [('data', x2345), ('label', l245)])
case('sm_multi_flat_batch', 'SoftmaxOutput', {'multi_output': True, 'normalization': 'batch', 'grad_scale': 3.0},
     [('data', x2345), ('label', l245.reshape(2, 20))])
case('sm_multi_valid_ignore', 'SoftmaxOutput', {'multi_output': True, 'use_ignore': True, 'ignore_label': 1,
                                                'normalization': 'valid'}, [('data', x2345), ('label', l245)])
case('sm_multi_valid_noignore', 'SoftmaxOutput', {'multi_output': True, 'ignore_label': 1,
                                                  'normalization': 'valid'}, [('data', x2345), ('label', l245)])
case('sm_multi_smooth', 'SoftmaxOutput', {'multi_output': True, 'smooth_alpha': 0.3},
     [('data', x2345), ('label', l245)])
case('sm_multi_out_grad', 'SoftmaxOutput', {'multi_output': True, 'out_grad': True},
     [('data', x2345), ('label', l245)])
x234 = randn(2, 3, 4)
l23 = np.array([[1, 0, 1], [2, 3, 1]], np.float32)
case('sm_preserve_batch', 'SoftmaxOutput', {'preserve_shape': True, 'normalization': 'batch'},
     [('data', x234), ('label', l23)])
case('sm_preserve_valid_ignore', 'SoftmaxOutput', {'preserve_shape': True, 'use_ignore': True, 'ignore_label': 1,
                                                   'normalization': 'valid', 'smooth_alpha': 0.1},
     [('data', x234), ('label', l23)])
case('sm_plain3d_batch', 'SoftmaxOutput', {'normalization': 'batch'}, [('data', x234), ('label', l23)])
case('sm_plain3d_valid_ignore', 'SoftmaxOutput', {'use_ignore': True, 'ignore_label': 0, 'normalization': 'valid'},
     [('data', x234), ('label', l23)])

# --------------------------------------------------------- regression heads
for op in ('LinearRegressionOutput', 'LogisticRegressionOutput', 'MAERegressionOutput'):
    short = op[:3].lower()
    case(short + '_2d', op, {}, [('data', randn(4, 3)), ('label', rng.rand(4, 3).astype(np.float32))])
    case(short + '_3d_scale', op, {'grad_scale': 2.5},
         [('data', randn(2, 3, 4)), ('label', rng.rand(2, 3, 4).astype(np.float32))])
    case(short + '_n1', op, {}, [('data', randn(4, 1)), ('label', rng.rand(4).astype(np.float32))])
    case(short + '_reshaped_label', op, {'grad_scale': 0.5},
         [('data', randn(4, 6)), ('label', rng.rand(4, 3, 2).astype(np.float32))])
    case(short + '_1d', op, {}, [('data', randn(5)), ('label', rng.rand(5).astype(np.float32))])
tie = np.array([[1.0, 2.0, -3.0]], np.float32)
case('mae_tie', 'MAERegressionOutput', {}, [('data', tie), ('label', tie.copy())])
case('log_big', 'LogisticRegressionOutput', {},
     [('data', np.array([[-100., -20., 0., 20., 100.]], np.float32)), ('label', np.array([[0, 1, 0.5, 0, 1]], np.float32))])

# ----------------------------------------------------------------- MakeLoss
case('ml_null', 'MakeLoss', {'grad_scale': 2.0}, [('data', randn(3, 4))])
case('ml_batch', 'MakeLoss', {'normalization': 'batch'}, [('data', randn(2, 3, 4))])
case('ml_batch_1d', 'MakeLoss', {'normalization': 'batch', 'grad_scale': 3.0}, [('data', randn(7))])
case('ml_valid', 'MakeLoss', {'normalization': 'valid', 'valid_thresh': 0.5, 'grad_scale': 3.0},
     [('data', rng.rand(3, 4).astype(np.float32))])
case('ml_valid_exact', 'MakeLoss', {'normalization': 'valid', 'valid_thresh': 0.5},
     [('data', np.array([[0, 0.5, 0.7], [0.2, 0.5, -1]], np.float32))])
case('ml_valid_none', 'MakeLoss', {'normalization': 'valid', 'valid_thresh': 5.0},
     [('data', rng.rand(2, 3).astype(np.float32))])

# --------------------------------------------------------- softmax family
for fn in ('softmax', 'log_softmax'):
    case(fn + '_default', fn, {}, [('data', randn(2, 3, 4))], head=True)
    case(fn + '_axis1_t2', fn, {'axis': 1, 'temperature': 2.0}, [('data', randn(2, 3, 4))], head=True)
    case(fn + '_axis0_t05', fn, {'axis': 0, 'temperature': 0.5}, [('data', randn(3, 4))], head=True)
    case(fn + '_f64', fn, {'dtype': 'float64', 'axis': -2}, [('data', randn(2, 3, 4))], head=True)
    case(fn + '_big', fn, {}, [('data', np.array([[1000., 0., -1000.], [50., 50., 49.]], np.float32))], head=True)
case('softmax_length', 'softmax', {'use_length': True},
     [('data', randn(2, 3, 4)), ('length', np.array([[1, 4, 2], [0, 3, 4]], np.int32))], head=True)
case('softmax_length_axis1', 'softmax', {'use_length': True, 'axis': 1},
     [('data', randn(2, 3, 4)), ('length', np.array([[1, 3, 2, 0], [2, 2, 3, 1]], np.int32))], head=True)

# -------------------------------------------------------------- dot family
for ta, tb, sa, sb in [(0, 0, (3,), (3,)), (0, 0, (2, 3), (3,)), (0, 0, (3,), (3, 4)), (0, 0, (2, 3), (3, 4)),
                       (1, 0, (3, 2), (3, 4)), (0, 1, (2, 3), (4, 3)), (1, 1, (3, 2), (4, 3)),
                       (0, 0, (2, 3, 4), (4, 5, 2)), (1, 0, (4, 2, 3), (4, 5)), (0, 1, (2, 3, 4), (5, 4)),
                       (1, 1, (4, 2, 3), (2, 5, 4)), (1, 0, (3,), (3, 4)), (0, 1, (3,), (4, 3)),
                       (1, 0, (3, 2), (3,))]:
    key = 'dot_%d%d_%s_%s' % (ta, tb, 'x'.join(map(str, sa)), 'x'.join(map(str, sb)))
    case(key, 'dot', {'transpose_a': bool(ta), 'transpose_b': bool(tb)},
         [('lhs', randn(*sa)), ('rhs', randn(*sb))], grads=(0, 1), head=True)
for ta, tb, sa, sb in [(0, 0, (2, 3, 4), (2, 4, 5)), (1, 0, (2, 4, 3), (2, 4, 5)), (0, 1, (2, 3, 4), (2, 5, 4)),
                       (1, 1, (2, 4, 3), (2, 5, 4)), (1, 0, (2, 3, 4, 2), (2, 3, 4, 5))]:
    key = 'batch_dot_%d%d_%s_%s' % (ta, tb, 'x'.join(map(str, sa)), 'x'.join(map(str, sb)))
    case(key, 'batch_dot', {'transpose_a': bool(ta), 'transpose_b': bool(tb)},
         [('lhs', randn(*sa)), ('rhs', randn(*sb))], grads=(0, 1), head=True)


def run_case(op, params, inputs, head):
    syms = [mx.sym.Variable(name) for name, _ in inputs]
    sym = getattr(mx.sym, op)(*syms, **params)
    shapes = {name: a.shape for name, a in inputs}
    types = {name: a.dtype for name, a in inputs}
    ex = sym.simple_bind(mx.cpu(), grad_req='write', type_dict=types, **shapes)
    for name, a in inputs:
        ex.arg_dict[name][:] = a
    ex.forward(is_train=True)
    out = ex.outputs[0].asnumpy()
    head_grad = None
    if head:
        head_grad = rng.randn(*out.shape).astype(out.dtype)
        ex.backward([mx.nd.array(head_grad, dtype=out.dtype)])
    else:
        ex.backward()
    grads = [ex.grad_dict[name].asnumpy() for name, _ in inputs]
    return out, head_grad, grads


def main():
    arrays, meta = {}, []
    for key, op, params, inputs, keep, head in CASES:
        out, head_grad, grads = run_case(op, params, inputs, head)
        for i, (_, a) in enumerate(inputs):
            arrays['%s:in%d' % (key, i)] = a
        arrays['%s:out' % key] = out
        if head_grad is not None:
            arrays['%s:head' % key] = head_grad
        for i in keep:
            arrays['%s:grad%d' % (key, i)] = grads[i]
        meta.append({'key': key, 'op': op, 'params': params, 'inputs': [n for n, _ in inputs],
                     'grads': keep, 'head': head})
    arrays['cases'] = np.array(json.dumps(meta))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'ops_loss.npz')
    np.savez_compressed(path, **arrays)
    print('wrote %d cases to %s' % (len(meta), path))


if __name__ == '__main__':
    main()
