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


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=1e-3, rtol=1e-2,
                           atol=None, grad_nodes=None, use_forward_train=True, ctx=None,
                           dtype=np.float32):
    """Check a whole symbol's backward against central differences, like MXNet's function.

    The symbol's outputs are reduced to one number, ``sum_k sum(out_k * proj_k)``
    with fixed random projections ``proj_k``, by wrapping the graph in
    ``MakeLoss(sum(out * proj))``; its gradient w.r.t. every argument in
    ``grad_nodes`` (default: every argument given in ``location``) is compared
    with finite differences of that number.  Use ``dtype=np.float64`` for
    tight tolerances.  (Loss heads such as SoftmaxOutput make their own
    gradient, so they cannot be checked this way, in MXNet or here.)
    """
    from . import symbol as _sym
    from .ndarray import array
    ctx = ctx or default_context()
    arg_names = sym.list_arguments()
    if isinstance(location, (list, tuple)):
        location = dict(zip(arg_names, location))
    location = {k: np.asarray(v.asnumpy() if hasattr(v, 'asnumpy') else v, dtype=dtype)
                for k, v in location.items()}
    missing = [n for n in arg_names if n not in location]
    if missing:
        raise ValueError('check_numeric_gradient: no values for arguments %s' % missing)
    aux_names = sym.list_auxiliary_states()
    if isinstance(aux_states, (list, tuple)):
        aux_states = dict(zip(aux_names, aux_states))
    aux_states = {k: np.asarray(v.asnumpy() if hasattr(v, 'asnumpy') else v, dtype=dtype)
                  for k, v in (aux_states or {}).items()}
    grad_nodes = list(grad_nodes) if grad_nodes is not None else list(arg_names)

    _, out_shapes, _ = sym.infer_shape(**{k: v.shape for k, v in location.items()})
    rng = np.random.default_rng(0)
    projections = {'__random_proj%d' % i: rng.normal(size=s).astype(dtype) for i, s in enumerate(out_shapes)}
    terms = [_sym.sum(out * _sym.Variable(name)) for out, name in zip(sym, projections)]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    loss = _sym.MakeLoss(total)

    def bind():
        args = {k: array(v, ctx=ctx, dtype=dtype) for k, v in location.items()}
        args.update({k: array(v, ctx=ctx, dtype=dtype) for k, v in projections.items()})
        grads = {k: array(np.zeros_like(location[k]), ctx=ctx, dtype=dtype) for k in grad_nodes}
        aux = {k: array(v, ctx=ctx, dtype=dtype) for k, v in aux_states.items()}
        return loss.bind(ctx, args, args_grad=grads, grad_req='write', aux_states=aux or None)

    exe = bind()
    exe.forward(is_train=use_forward_train)
    exe.backward()
    analytic = {k: exe.grad_dict[k].asnumpy() for k in grad_nodes}

    def value():
        probe = bind()
        for k in grad_nodes:
            probe.arg_dict[k][:] = location[k]
        return float(probe.forward(is_train=use_forward_train)[0].asnumpy().sum())

    for name in grad_nodes:
        numeric = numeric_grad(value, location[name], eps=numeric_eps)
        np.testing.assert_allclose(
            analytic[name], numeric, rtol=rtol, atol=atol if atol is not None else 1e-6,
            err_msg='check_numeric_gradient: gradient of %r differs from finite differences' % name)
    return analytic
