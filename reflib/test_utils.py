"""Tools to check operators and graphs: finite differences and friends.

``check_op_gradient`` checks one operator straight from the registry (no
graph needed); ``check_numeric_gradient`` checks a whole Symbol through
bind/forward/backward, like MXNet's function of the same name.
"""

import numpy as np

from . import random as _random
from .context import cpu

__all__ = ['check_op_gradient', 'op_forward', 'numeric_grad', 'assert_almost_equal',
           'check_numeric_gradient', 'default_context', 'same']


def default_context():
    return cpu()


def same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b))


def assert_almost_equal(a, b, rtol=1e-5, atol=1e-6, names=('a', 'b')):
    a = a.asnumpy() if hasattr(a, 'asnumpy') else np.asarray(a)
    b = b.asnumpy() if hasattr(b, 'asnumpy') else np.asarray(b)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg='%s vs %s' % names)


def op_forward(op_name, inputs, params=None, aux=None, is_train=False, seed=0):
    """Run one registered operator on raw numpy inputs; returns (outputs, aux_after)."""
    from .operator import get, OpEnv
    op = get(op_name)
    p = op.parse_params(params or {})
    aux = [np.array(a, copy=True) for a in (aux or [])]
    _random.seed(seed)
    outs = op.forward(p, OpEnv(cpu(), is_train), list(inputs), aux)
    return outs, aux


def numeric_grad(f, x, eps=1e-4):
    """Central differences of scalar ``f()`` w.r.t. array ``x`` (perturbed in place)."""
    grad = np.zeros_like(x, dtype=np.float64)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        plus = f()
        flat[i] = old - eps
        minus = f()
        flat[i] = old
        gflat[i] = (plus - minus) / (2 * eps)
    return grad


def check_op_gradient(op_name, inputs, params=None, aux=None, grad_inputs=None,
                      is_train=True, eps=1e-4, rtol=1e-4, atol=1e-6, seed=0):
    """Compare an operator's backward with finite differences, in float64.

    The scalar being differentiated is ``sum_k <head_k, out_k>`` over the
    visible outputs with fixed random head gradients, so every output
    element's gradient is exercised.  ``grad_inputs`` lists the input indices
    to check (default: all).  Random operators are re-seeded before every
    forward so the perturbed runs see the same randomness.
    """
    from .operator import get, OpEnv
    op = get(op_name)
    p = op.parse_params(params or {})
    xs = [np.array(x, dtype=np.float64, copy=True) for x in inputs]
    aux0 = [np.array(a, dtype=np.float64, copy=True) for a in (aux or [])]
    env = OpEnv(cpu(), is_train)
    nvis = op.visible_outputs(p)

    def run():
        _random.seed(seed)
        return op.forward(p, env, xs, [a.copy() for a in aux0])

    outs = run()
    rng = np.random.default_rng(seed + 1)
    heads = [rng.normal(size=o.shape) for o in outs[:nvis]]

    def loss():
        return float(sum((h * o).sum() for h, o in zip(heads, run()[:nvis])))

    out_grads = heads + [None] * (len(outs) - nvis)
    analytic = op.backward(p, env, out_grads, xs, outs, [a.copy() for a in aux0])
    which = range(len(xs)) if grad_inputs is None else grad_inputs
    for i in which:
        numeric = numeric_grad(loss, xs[i], eps)
        got = np.zeros_like(numeric) if analytic[i] is None else np.asarray(analytic[i])
        np.testing.assert_allclose(
            got, numeric, rtol=rtol, atol=atol,
            err_msg='%s%s: gradient of input %d (%s) differs from finite differences'
                    % (op_name, params or '', i, op.inputs(p)[i] if i < len(op.inputs(p)) else i))
    return analytic
