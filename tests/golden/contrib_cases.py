"""contrib's small operators and older APIs (mx.nd.contrib.quadratic ... mx.nd.CachedOp,
mx.contrib.autograd) and recorded advanced indexing: the same calls under MXNet 1.9.1
(gen_contrib.py records contrib.json) and under reflib (test_contrib.py).  Each case gives
a JSON-able value: arrays as [shape, dtype, rounded values]."""

import numpy as np


def _arr(a):
    a = a.asnumpy() if hasattr(a, 'asnumpy') else np.asarray(a)
    return [list(a.shape), np.dtype(a.dtype).name, np.round(a.astype(np.float64), 5).tolist()]


def _forward_backward(mx, fn, inputs, head=None, want=None):
    """fn's result on ``inputs`` and the gradients of the inputs marked in ``want``."""
    arrays = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
    want = range(len(arrays)) if want is None else want
    for k in want:
        arrays[k].attach_grad()
    with mx.autograd.record():
        out = fn(*arrays)
    out.backward(None if head is None else mx.nd.array(head(out.shape), dtype=out.dtype))
    return {'out': _arr(out), 'grads': [_arr(arrays[k].grad) for k in want]}


def _ramp(shape):
    return np.arange(1, 1 + int(np.prod(shape)), dtype=np.float32).reshape(shape) / 4


def _cached_op(mx):
    sym = mx.sym.Convolution(kernel=(2, 2), num_filter=3, name='conv') + 2
    op = mx.nd.CachedOp(sym)
    rng = np.random.RandomState(0)
    data, weight = mx.nd.array(rng.uniform(-1, 1, (2, 2, 4, 4))), mx.nd.array(rng.uniform(-1, 1, (3, 2, 2, 2)))
    bias = mx.nd.array([0.5, -1, 2])
    first = op(data, weight, bias)
    out = mx.nd.zeros(first.shape)
    op(data, weight, bias * 2, out=out)
    weight.attach_grad()
    with mx.autograd.record():
        y = op(data, weight, bias) * 2
    y.backward()
    return {'inputs': sym.list_inputs(), 'first': _arr(first), 'out=': _arr(out), 'weight grad': _arr(weight.grad)}


def _sync_batch_norm(mx):
    rng = np.random.RandomState(1)
    x = mx.nd.array(rng.uniform(-1, 2, (4, 3, 2, 2)))
    gamma, beta = mx.nd.array([1.5, 0.5, 2]), mx.nd.array([0, 1, -1])
    mean, var = mx.nd.zeros(3), mx.nd.ones(3)
    for a in (x, gamma, beta):
        a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.SyncBatchNorm(x, gamma, beta, mean, var, key='bn', fix_gamma=False, momentum=0.8)
    y.backward(mx.nd.array(_ramp(y.shape)))
    with mx.autograd.train_mode():
        stats = mx.nd.contrib.SyncBatchNorm(x, gamma, beta, mean, var, key='bn', output_mean_var=True)
    return {'out': _arr(y), 'grads': [_arr(a.grad) for a in (x, gamma, beta)],
            'moving': [_arr(mean), _arr(var)], 'mean and var outputs': [_arr(stats[1]), _arr(stats[2])]}


def _advanced_indexing(mx, key):
    x = mx.nd.array(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    x.attach_grad()
    with mx.autograd.record():
        y = x[key]
    y.backward(mx.nd.array(_ramp(y.shape)))
    return {'out': _arr(y), 'grad': _arr(x.grad)}


def _contrib_autograd(mx):
    old = mx.contrib.autograd
    a, b = mx.nd.array([[1., 2], [3, 4]]), mx.nd.array([[0.5, -1], [2, 0]])
    grads, loss = old.grad_and_loss(lambda x, y: x * y + x, argnum=[0, 1])(a, b)
    only = old.grad(lambda x, y: mx.nd.exp(x) * y, argnum=1)(a, b)
    x = mx.nd.ones((3, 2))
    dx = mx.nd.zeros_like(x)
    old.mark_variables([x], [dx])
    with old.train_section():
        training = mx.autograd.is_training() and mx.autograd.is_recording()
        parts = mx.nd.split(x, axis=0, num_outputs=3, squeeze_axis=True)
        old.backward(list(parts), [None, mx.nd.array([2, 3]), mx.nd.array([4, 5])])
    with old.test_section():
        testing = mx.autograd.is_training() or mx.autograd.is_recording()
    return {'grads': [_arr(g) for g in grads], 'loss': _arr(loss), 'grad only': [_arr(g) for g in only],
            'split backward': _arr(dx), 'train_section': training, 'test_section': testing}


def run(mx):
    nd = mx.nd
    rng = np.random.RandomState(2)
    x = rng.uniform(-2, 2, (3, 4)).astype(np.float32)
    cases = {
        'quadratic': lambda: _forward_backward(mx, lambda a: nd.contrib.quadratic(a, a=1.5, b=-2, c=0.25), [x],
                                               _ramp),
        'quadratic float16': lambda: _forward_backward(
            mx, lambda a: nd.contrib.quadratic(a, a=0.7, b=3), [x.astype(np.float16)], _ramp),
        'div_sqrt_dim': lambda: _forward_backward(mx, nd.contrib.div_sqrt_dim, [rng.uniform(-1, 1, (2, 3, 5))
                                                                              .astype(np.float32)], _ramp),
        'index_array': lambda: _arr(nd.contrib.index_array(nd.ones((2, 3, 2)))),
        'index_array axes': lambda: _arr(nd.contrib.index_array(nd.ones((2, 3, 2)), axes=(-1, 0))),
        'index_copy': lambda: _forward_backward(
            mx, nd.contrib.index_copy, [x, np.array([2, 0], np.float32), np.ones((2, 4), np.float32) * 7],
            _ramp, want=[0, 2]),
        'boolean_mask': lambda: _forward_backward(mx, nd.contrib.boolean_mask, [x, np.array([1, 0, -2], np.float32)],
                                                  _ramp, want=[0]),
        'allclose equal': lambda: _arr(nd.contrib.allclose(nd.array(x), nd.array(x * (1 + 1e-7)))),
        'allclose apart': lambda: _arr(nd.contrib.allclose(nd.array(x), nd.array(x + 1e-3))),
        'allclose loose': lambda: _arr(nd.contrib.allclose(nd.array(x), nd.array(x + 1e-3), rtol=0, atol=2e-3)),
        'allclose nan': lambda: [_arr(nd.contrib.allclose(nd.array([np.nan, 1]), nd.array([np.nan, 1]), equal_nan=e))
                                 for e in (True, False)],
        'isnan isinf isfinite': lambda: [_arr(getattr(nd.contrib, f)(nd.array([1, np.nan, np.inf, -np.inf, 0])))
                                         for f in ('isnan', 'isinf', 'isfinite')],
        'SyncBatchNorm on one device': lambda: _sync_batch_norm(mx),
        'CachedOp': lambda: _cached_op(mx),
        'recorded x[1, [2, 0]]': lambda: _advanced_indexing(mx, (1, [2, 0])),
        'recorded x[[0, 1, 1], :, [3, 0, 3]]': lambda: _advanced_indexing(mx, ([0, 1, 1], slice(None), [3, 0, 3])),
        'recorded x[:, [[0, 1], [2, 2]]]': lambda: _advanced_indexing(mx, (slice(None), [[0, 1], [2, 2]])),
        'contrib.autograd': lambda: _contrib_autograd(mx),
    }
    return {name: fn() for name, fn in cases.items()}
