"""MXNet's checks of whole symbols (``mx.test_utils.check_symbolic_forward`` and friends).

Each binds a symbol to numpy values and compares what the executor computes with what
the caller expects: forward outputs, backward gradients, finite differences, the same
graph on other contexts or dtypes.  ``reflib.test_utils`` exports them with MXNet's
other test helpers; the comparisons (``assert_almost_equal``, dtype-based tolerances)
live there.
"""

import time

import numpy as np

from .base import MXNetError
from .test_tolerances import assert_almost_equal, default_context, _NUMERIC_EPS, _numpy
from .ndarray import array, NDArray, waitall
from . import symbol as _sym
from .symbol import Symbol

__all__ = ['simple_forward', 'check_symbolic_forward', 'check_symbolic_backward', 'check_numeric_gradient',
           'check_speed', 'check_consistency']


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Forward ``sym`` on numpy ``inputs`` (by name); numpy output(s) back (one: the array)."""
    exe = sym.bind(ctx or default_context(), args={k: array(v) for k, v in inputs.items()})
    outs = [o.asnumpy() for o in exe.forward(is_train=is_train)]
    return outs[0] if len(outs) == 1 else outs


def _arrays(names, values, what, ctx, dtype):
    """``{name: NDArray}`` from a list in ``names`` order or a dict with exactly ``names``;
    numpy values become NDArrays of ``dtype`` (``'asnumpy'``: their own dtype)."""
    if isinstance(values, dict):
        if set(values) != set(names):
            raise ValueError('the %s given (%s) do not match the symbol\'s (%s)'
                             % (what, sorted(values), sorted(names)))
    elif isinstance(values, (list, tuple)):
        values = dict(zip(names, values))
    else:
        raise TypeError('%s must be a list or a dict, got %s' % (what, type(values).__name__))
    out = {}
    for key, value in values.items():
        if not isinstance(value, NDArray):
            value = np.asarray(value)
            value = array(value, ctx=ctx, dtype=value.dtype if dtype == 'asnumpy' else dtype)
        out[key] = value
    return out


def _head_arrays(values, ctx, dtype):
    def one(v):
        if isinstance(v, np.ndarray):
            return array(v, ctx=ctx, dtype=v.dtype if dtype == 'asnumpy' else dtype)
        return v
    if isinstance(values, dict):
        return {k: one(v) for k, v in values.items()}
    return None if values is None else [one(v) for v in values]


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None, ctx=None,
                           equal_nan=False, dtype=np.float32):
    """Bind ``sym`` at ``location`` (a list in ``list_arguments()`` order or a dict), run
    forward (not training) and compare each output with ``expected`` (a list, or a dict by
    output name); returns the outputs."""
    ctx = ctx or default_context()
    args = _arrays(sym.list_arguments(), location, 'arguments', ctx, dtype)
    aux = None if aux_states is None else _arrays(sym.list_auxiliary_states(), aux_states,
                                                  'auxiliary states', ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    exe = sym.bind(ctx, args=args, aux_states=aux, grad_req='null')
    outputs = exe.forward(is_train=False)
    for name, want, got in zip(sym.list_outputs(), expected, outputs):
        assert_almost_equal(want, got, rtol, atol, ('EXPECTED_%s' % name, 'FORWARD_%s' % name),
                            equal_nan=equal_nan)
    return outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None, aux_states=None,
                            grad_req='write', ctx=None, grad_stypes=None, equal_nan=False, dtype=np.float32):
    """Forward (training) and backward with head gradients ``out_grads``, then compare the
    gradients of the arguments named in ``expected`` (a list in argument order or a dict).

    The gradient arrays start out holding random numbers, so that ``'write'`` must overwrite
    them, ``'add'`` is checked as (result - start) and ``'null'`` must leave them alone.
    Returns ``{name: gradient NDArray}``.
    """
    if grad_stypes and any(s not in (None, 'default') for s in grad_stypes.values()):
        raise MXNetError('check_symbolic_backward: reflib has dense gradients only, got %s' % grad_stypes)
    ctx = ctx or default_context()
    arg_names = sym.list_arguments()
    args = _arrays(arg_names, location, 'arguments', ctx, dtype)
    aux = None if aux_states is None else _arrays(sym.list_auxiliary_states(), aux_states,
                                                  'auxiliary states', ctx, dtype)
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(arg_names, expected))
    rng = np.random.default_rng(0)
    start = {k: rng.normal(size=np.shape(v)) for k, v in sorted(expected.items())}
    grads = {k: array(v, ctx=ctx, dtype=np.asarray(expected[k]).dtype if dtype == 'asnumpy' else dtype)
             for k, v in start.items()}
    if isinstance(grad_req, str):
        grad_req = {k: grad_req for k in arg_names}
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(arg_names, grad_req))
    exe = sym.bind(ctx, args=args, args_grad=grads, grad_req=grad_req, aux_states=aux)
    exe.forward(is_train=True)
    exe.backward(_head_arrays(out_grads, ctx, dtype))
    for name, want in expected.items():
        labels = ('EXPECTED_%s' % name, 'BACKWARD_%s' % name)
        req = grad_req.get(name, 'null')
        got = grads[name].asnumpy()
        if req == 'write':
            assert_almost_equal(want, grads[name], rtol, atol, labels, equal_nan=equal_nan)
        elif req == 'add':
            assert_almost_equal(want, got - start[name].astype(got.dtype), rtol, atol, labels,
                                equal_nan=equal_nan)
        elif req == 'null':
            assert_almost_equal(start[name].astype(got.dtype), got, rtol, atol, labels, equal_nan=equal_nan)
        else:
            raise ValueError('grad_req %r for argument %r is not write, add or null' % (req, name))
    return grads


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None, atol=None,
                           grad_nodes=None, use_forward_train=True, ctx=None, grad_stype_dict=None,
                           dtype=np.float32):
    """Check a whole symbol's backward against finite differences, as MXNet's function does.

    The outputs are reduced to one number, ``sum_k sum(out_k * proj_k)`` with fixed random
    projections ``proj_k`` in [0.1, 1.1) (MXNet's ``MakeLoss(out * proj)``); its gradient
    w.r.t. each argument in ``grad_nodes`` (default: all; a dict gives each one's grad_req)
    is compared with finite differences, element by element: the outputs at ``x + eps/2``
    and ``x - eps/2`` are differenced in float64, projected, summed and divided by ``eps``.
    ``numeric_eps`` defaults to 2**-9 in float32, 2**-14 in float64; the tolerances follow
    the dtype as in ``assert_almost_equal`` (pass ``dtype=np.float64`` for tight ones).
    (Loss heads such as SoftmaxOutput make their own gradient, so they cannot be checked
    this way, in MXNet or here.)  Returns ``{name: backward's gradient as numpy}``.
    """
    if dtype not in (np.float16, np.float32, np.float64):
        raise ValueError('check_numeric_gradient: dtype must be float16, float32 or float64, got %r' % (dtype,))
    ctx = ctx or default_context()
    arg_names = sym.list_arguments()
    # own C-ordered copies: the perturbation writes into them (a transposed or sliced input
    # would otherwise be perturbed in a temporary copy, and the check would see nothing)
    points = {k: np.array(_numpy(v), dtype=dtype, order='C', copy=True)
              for k, v in _arrays(arg_names, location, 'arguments', ctx, dtype).items()}
    aux_names = sym.list_auxiliary_states()
    aux0 = {} if aux_states is None else {
        k: _numpy(v) for k, v in _arrays(aux_names, aux_states, 'auxiliary states', ctx, dtype).items()}
    if grad_nodes is None:
        grad_req = {k: 'write' for k in arg_names}
    elif isinstance(grad_nodes, dict):
        grad_req = dict(grad_nodes)
    else:
        grad_req = {k: 'write' for k in grad_nodes}
    eps = numeric_eps if numeric_eps is not None else _NUMERIC_EPS[np.dtype(dtype)]
    if dtype != np.float64 and eps < 1e-5:
        raise ValueError('check_numeric_gradient: numeric_eps=%g is too small for %s finite differences'
                         % (eps, np.dtype(dtype).name))

    _, out_shapes, _ = sym.infer_shape(**{k: v.shape for k, v in points.items()})
    rng = np.random.default_rng(0)
    projections = {'__random_proj%d' % i: rng.random(size=s) + 0.1 for i, s in enumerate(out_shapes)}
    terms = [_sym.sum(out * _sym.Variable(name)) for out, name in zip(sym, projections)]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    loss = _sym.MakeLoss(total)
    start = {k: rng.normal(0, 0.01, size=points[k].shape) for k in grad_req}

    args = {k: array(v, ctx=ctx, dtype=dtype) for k, v in points.items()}
    args.update({k: array(v, ctx=ctx, dtype=dtype) for k, v in projections.items()})
    grads = {k: array(v, ctx=ctx, dtype=dtype) for k, v in start.items()}
    aux = {k: array(v, ctx=ctx, dtype=dtype) for k, v in aux0.items()}
    exe = loss.bind(ctx, args, args_grad=grads, grad_req=grad_req, aux_states=aux or None)
    exe.forward(is_train=True)
    exe.backward()
    analytic = {k: grads[k].asnumpy() for k in grad_req}
    # the finite differences run the symbol itself, over the same argument arrays: its outputs
    # are differenced element by element in float64 and only then projected, as MXNet does
    # (differencing the float32 sum(out * proj) loses the small changes to rounding)
    plain = sym.bind(ctx, {k: args[k] for k in arg_names}, grad_req='null', aux_states=aux or None)
    proj64 = [p.astype(np.float64) for p in projections.values()]

    def outputs():
        for k, v in aux0.items():      # BatchNorm's training forward moves its statistics
            plain.aux_dict[k][:] = v
        return [o.asnumpy().astype(np.float64) for o in plain.forward(is_train=use_forward_train)]

    for name, req in grad_req.items():
        point, arr = points[name], exe.arg_dict[name]
        numeric = np.zeros(point.shape, dtype=np.float64)
        flat, nflat = point.reshape(-1), numeric.reshape(-1)
        for i in range(flat.size):
            old = flat[i]
            flat[i] = old + eps / 2
            arr[:] = point
            plus = outputs()
            flat[i] = old - eps / 2
            arr[:] = point
            minus = outputs()
            flat[i] = old
            nflat[i] = sum(((p - m) * w).sum() for p, m, w in zip(plus, minus, proj64)) / eps
        arr[:] = point
        labels = ('NUMERICAL_%s' % name, 'BACKWARD_%s' % name)
        got = analytic[name]
        if req not in ('write', 'add', 'null'):
            raise ValueError('grad_req %r for argument %r is not write, add or null' % (req, name))
        try:
            if req == 'write':
                assert_almost_equal(numeric, got, rtol, atol, labels)
            elif req == 'add':
                assert_almost_equal(numeric, got - start[name].astype(got.dtype), rtol, atol, labels)
            else:
                assert_almost_equal(start[name].astype(got.dtype), got, rtol, atol, labels)
        except AssertionError as err:
            raise AssertionError('check_numeric_gradient: the gradient of %r (grad_req=%r) differs from '
                                 'finite differences: %s' % (name, req, err)) from None
    return analytic


def check_speed(sym, location=None, ctx=None, N=20, grad_req=None, typ='whole', **kwargs):
    """Seconds per forward+backward (``typ='whole'``) or per forward (``'forward'``), averaged
    over ``N`` runs after one warm-up; inputs from ``location`` (a dict of numpy arrays) or
    random normal ones of the shapes in ``kwargs``."""
    if typ not in ('whole', 'forward'):
        raise ValueError("check_speed: typ must be 'whole' or 'forward', got %r" % (typ,))
    ctx = ctx or default_context()
    if location is None:
        exe = sym.simple_bind(ctx, grad_req=grad_req or 'write', **kwargs)
        location = {k: np.random.normal(size=a.shape) for k, a in exe.arg_dict.items()}
    else:
        if not isinstance(location, dict):
            raise TypeError('check_speed: location must be a dict, got %s' % type(location).__name__)
        exe = sym.simple_bind(ctx, grad_req=grad_req or 'write', **{k: v.shape for k, v in location.items()})
    for name, value in location.items():
        exe.arg_dict[name][:] = np.asarray(value).astype(exe.arg_dict[name].dtype)

    def once():
        exe.forward(is_train=typ == 'whole')
        if typ == 'whole':
            exe.backward(out_grads=exe.outputs)
    once()
    tic = time.time()
    for _ in range(N):
        once()
    waitall()
    return (time.time() - tic) / N


def check_consistency(sym, ctx_list, scale=1.0, grad_req='write', arg_params=None, aux_params=None,
                      rtol=None, atol=None, raise_on_err=True, ground_truth=None, equal_nan=False,
                      use_uniform=False, rand_type=np.float64):
    """Run one symbol (or one per entry) under every entry of ``ctx_list`` -- each a dict of
    simple_bind's arguments: ``ctx``, input shapes, ``type_dict`` -- on the same random
    inputs, and compare outputs (and, unless ``grad_req='null'``, gradients) with those of the
    most precise entry, or with ``ground_truth``.  Returns the reference values by name."""
    if len(ctx_list) < 2:
        raise ValueError('check_consistency: ctx_list needs at least two entries')
    syms = [sym] * len(ctx_list) if isinstance(sym, Symbol) else list(sym)
    if len(syms) != len(ctx_list):
        raise ValueError('check_consistency: %d symbols for %d contexts' % (len(syms), len(ctx_list)))
    out_names, arg_names = syms[0].list_outputs(), syms[0].list_arguments()
    exes = []
    for s, spec in zip(syms, ctx_list):
        if s.list_arguments() != arg_names or s.list_outputs() != out_names:
            raise ValueError('check_consistency: the symbols differ in their arguments or outputs')
        spec = dict(spec)
        exes.append(s.simple_bind(spec.pop('ctx'), grad_req=grad_req, **spec))
    arg_params = {} if arg_params is None else arg_params
    aux_params = {} if aux_params is None else aux_params
    for name, arr in sorted(exes[0].arg_dict.items()):
        if name not in arg_params:
            if use_uniform:
                values = np.random.uniform(-0.92 * scale, 0.92 * scale, size=arr.shape)
            else:
                values = np.random.normal(size=arr.shape, scale=scale)
            arg_params[name] = values.astype(rand_type)
    for name in exes[0].aux_dict:
        aux_params.setdefault(name, 0)
    for exe in exes:
        for name, arr in exe.arg_dict.items():
            arr[:] = arg_params[name]
        for name, arr in exe.aux_dict.items():
            arr[:] = aux_params[name]
        if grad_req == 'add':
            for arr in exe.grad_arrays:
                if arr is not None:
                    arr[:] = 0

    out_dtypes = [np.dtype(exe.outputs[0].dtype) for exe in exes]
    ref = max(range(len(exes)), key=lambda i: (out_dtypes[i].itemsize, -i))
    truth = ground_truth
    if truth is None:
        truth = dict(exes[ref].output_dict)
        if grad_req != 'null':
            truth.update(exes[ref].grad_dict)

    def compare(i, names, arrays, what):
        for name, arr in zip(names, arrays):
            if truth.get(name) is None:
                continue
            try:
                assert_almost_equal(arr, truth[name], rtol=rtol, atol=atol, equal_nan=equal_nan,
                                    names=('%s[%d]' % (name, i), '%s[%d]' % (name, ref)))
            except AssertionError as err:
                if raise_on_err:
                    raise AssertionError('%s differs between ctx_list[%d] and ctx_list[%d]: %s'
                                         % (what, i, ref, err)) from None
                print('%s differs between ctx_list[%d] and ctx_list[%d] at %s: %s' % (what, i, ref, name, err))

    for exe in exes:
        exe.forward(is_train=False)
    for i, exe in enumerate(exes):
        if i != ref:
            compare(i, out_names, exe.outputs, 'forward')
    if grad_req != 'null':
        for exe in exes:
            exe.forward(is_train=True)
        # one set of head gradients for all: the first entry's outputs at the least precise dtype
        least = [min((e.outputs[j].dtype for e in exes), key=lambda t: np.dtype(t).itemsize)
                 for j in range(len(out_names))]
        heads = [o.asnumpy().astype(t) for o, t in zip(exes[0].outputs, least)]
        for exe in exes:
            exe.backward([array(h, ctx=o.context, dtype=o.dtype) for h, o in zip(heads, exe.outputs)])
        for i, exe in enumerate(exes):
            if i != ref:
                compare(i, out_names + arg_names, exe.outputs + list(exe.grad_arrays), 'training')
    return truth
