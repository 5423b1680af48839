"""Control flow (mx.nd.contrib / mx.sym.contrib foreach, while_loop, cond): the same calls
under MXNet 1.9.1 (gen_control_flow.py records control_flow.json) and under reflib
(test_control_flow.py).  Every case runs once imperatively under autograd.record and once
as a graph bound to an executor, on fixed values.  Arrays are recorded as
[shape, dtype, rounded values]."""

import numpy as np


def _arr(a):
    a = a.asnumpy() if hasattr(a, 'asnumpy') else np.asarray(a)
    return [list(a.shape), np.dtype(a.dtype).name, np.round(a.astype(np.float64), 5).tolist()]


def _values(shape, scale=0.5, shift=0.0):
    """Fixed, varied numbers: a ramp folded through sin."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(1, n + 1) * 0.7 + shift) * scale).astype(np.float32).reshape(shape)


SEQ, BATCH, IN, HID = 4, 2, 3, 5
RNN_INPUTS = {'seq': _values((SEQ, BATCH, IN), 1.0), 'h0': _values((BATCH, HID), 0.3, 1.0),
              'i2h': _values((HID, IN), 0.6, 2.0), 'h2h': _values((HID, HID), 0.4, 3.0),
              'bias': _values((HID,), 0.2, 4.0)}
RNN_ORDER = ['seq', 'h0', 'i2h', 'h2h', 'bias']


def _rnn_step(F, i2h, h2h, bias):
    """One tanh RNN step as a foreach body: the new hidden state is both output and state."""
    def step(x, states):
        h = F.tanh(F.FullyConnected(x, i2h, bias, num_hidden=HID)
                   + F.FullyConnected(states[0], h2h, no_bias=True, num_hidden=HID))
        return h * 2, [h]
    return step


def _head(shape, k):
    return _values(shape, 1.0, 5.0 + k)


def _imperative(mx, names, inputs, fn):
    """fn(*arrays) under autograd.record; the loss is sum(out_k * head_k); the outputs and
    every input's gradient."""
    arrays = [mx.nd.array(inputs[n]) for n in names]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        outs = fn(*arrays)
        loss = sum(((o * mx.nd.array(_head(o.shape, k))).sum() for k, o in enumerate(outs)))
    loss.backward()
    return {'outputs': [_arr(o) for o in outs], 'grads': {n: _arr(a.grad) for n, a in zip(names, arrays)}}


def _symbolic(mx, names, inputs, fn):
    """The graph fn(*variables) bound to an executor: forward, then backward with the same
    head gradients as _imperative."""
    out = mx.sym.Group(fn(*[mx.sym.var(n) for n in names]))
    out = mx.sym.load_json(out.tojson())            # the loop survives a save and a load
    args = {n: mx.nd.array(inputs[n]) for n in names}
    grads = {n: mx.nd.zeros(inputs[n].shape) for n in names}
    exe = out.bind(mx.cpu(), args, args_grad=grads)
    outs = exe.forward(is_train=True)
    exe.backward([mx.nd.array(_head(o.shape, k)) for k, o in enumerate(outs)])
    return {'outputs': [_arr(o) for o in outs], 'grads': {n: _arr(grads[n]) for n in names}}


def _foreach_rnn(F):
    def fn(seq, h0, i2h, h2h, bias):
        outs, states = F.contrib.foreach(_rnn_step(F, i2h, h2h, bias), seq, [h0])
        return [outs, states[0]]
    return fn


WHILE_INPUTS = {'x': np.array([0.5, 1.0, -0.25], np.float32), 'w': np.array([1.5, 0.5, 2.0], np.float32)}


def _while(F):
    """x <- x * w + 1 while sum(x) < 20, at most 6 times: it stops after 4 steps for these
    values.  Rows 4 and 5 of the stacked output are padding, which MXNet leaves
    uninitialised, so only the 4 rows computed are compared."""
    def fn(x, w):
        outs, final = F.contrib.while_loop(
            cond=lambda x: x.sum() < 20,
            func=lambda x: (x * x, [x * w + 1]),
            loop_vars=[x], max_iterations=6)
        return [outs.slice_axis(axis=0, begin=0, end=4), final[0]]
    return fn


COND_INPUTS = {'a': np.array([0.5, -1.0, 2.0], np.float32), 'b': np.array([1.5, 0.25, -0.5], np.float32)}


def _cond(F, sign):
    """a * b * 3 if sum(a * sign) > 0, else a + b * b."""
    def fn(a, b):
        out = F.contrib.cond((a * sign).sum() > 0, lambda: a * b * 3, lambda: a + b * b)
        return [out]
    return fn


def run(mx):
    cases = {
        'foreach rnn, autograd': lambda: _imperative(mx, RNN_ORDER, RNN_INPUTS, _foreach_rnn(mx.nd)),
        'foreach rnn, executor': lambda: _symbolic(mx, RNN_ORDER, RNN_INPUTS, _foreach_rnn(mx.sym)),
        'while_loop stops early, autograd': lambda: _imperative(mx, ['x', 'w'], WHILE_INPUTS, _while(mx.nd)),
        'while_loop stops early, executor': lambda: _symbolic(mx, ['x', 'w'], WHILE_INPUTS, _while(mx.sym)),
    }
    for sign, branch in ((1, 'then'), (-1, 'else')):
        cases['cond %s, autograd' % branch] = (lambda s=sign: _imperative(mx, ['a', 'b'], COND_INPUTS, _cond(mx.nd, s)))
        cases['cond %s, executor' % branch] = (lambda s=sign: _symbolic(mx, ['a', 'b'], COND_INPUTS, _cond(mx.sym, s)))
    return {name: case() for name, case in cases.items()}
