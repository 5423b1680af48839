"""Tools to test operators and graphs: MXNet's ``mx.test_utils``, plus two of reflib's own.

reflib's own: ``check_op_gradient`` checks one operator straight from the registry
against finite differences (no graph needed) and ``op_forward`` runs one operator on
numpy arrays; every operator test uses them.

MXNet's, with its names, arguments and defaults: comparisons whose tolerances follow
the dtype (``assert_almost_equal``: float32 ``rtol=1e-4, atol=1e-3``, float64
``1e-5, 1e-20``), random test data (``random_arrays``, ``rand_ndarray``,
``rand_shape_nd``), whole-symbol checks (``check_symbolic_forward``,
``check_symbolic_backward``, ``check_numeric_gradient``, ``check_consistency``,
``check_speed``) and small helpers for tests (``environment``, ``retry``,
``discard_stderr``, ``verify_generator``, ``compare_optimizer``).
"""

import bz2  # noqa: F401  (the imports marked F401 are for `from mx.test_utils import *`, as MXNet's)
import contextlib
import errno  # noqa: F401
import functools
import gzip  # noqa: F401
import json  # noqa: F401
import logging  # noqa: F401
import math
import numbers  # noqa: F401
import os
import platform
import struct  # noqa: F401
import sys
import time  # noqa: F401
import traceback  # noqa: F401
import zipfile  # noqa: F401
from collections import OrderedDict  # noqa: F401
from contextlib import contextmanager  # noqa: F401

import numpy as np
import numpy.random as rnd  # noqa: F401
import numpy.testing as npt  # noqa: F401

import reflib as mx  # noqa: F401  (the package this module belongs to: MXNet's has `mx` too)

from . import random as _random
from .base import MXNetError
from .context import Context
from .ndarray import NDArray, array
from .ndarray.ndarray import move, to_numpy
from .operator import OpEnv, get
from .test_helpers import *  # noqa: F401,F403
from .util import use_np, getenv, setenv  # noqa: F401  (as MXNet's test_utils imports them)
from .test_tolerances import (  # noqa: F401  (mx.test_utils has them all)
    default_context, set_default_context, default_dtype, default_rtols, default_atols, default_numeric_eps,
    get_rtol, get_atol, same, almost_equal, assert_almost_equal, assert_allclose, assert_exception)

# No __all__, as MXNet's test_utils has none: ``from mxnet.test_utils import *`` hands a test
# file every public name here, the modules this file imports included (MXNet's tests use
# ``np``, ``mx``, ``os``, ``sys``... from it), and the smaller helpers of test_helpers.py.


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """``numpy_reduce_func`` over one axis, several (an int or a sequence) or all (None)."""
    axes = [axis] if isinstance(axis, int) else (list(range(dat.ndim)) if axis is None else list(axis))
    out = dat
    for ax in sorted(axes, reverse=True):   # last axis first, so the others keep their numbers
        out = numpy_reduce_func(out, axis=ax)
    if keepdims:
        out = np.reshape(out, tuple(1 if i in axes else d for i, d in enumerate(dat.shape)))
    return out


# ------------------------------------------------------------------ random test data
def random_arrays(*shapes):
    """Standard normal float32 numpy arrays (numpy's global generator), one per shape; one
    shape gives the array itself."""
    arrays = [np.array(np.random.randn(), dtype=default_dtype()) if len(s) == 0
              else np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_sample(population, k):
    """``k`` distinct elements of the list ``population``, in random order."""
    if not 0 <= k <= len(population):
        raise ValueError('random_sample: k=%d is not in [0, %d]' % (k, len(population)))
    pool = list(population)
    np.random.shuffle(pool)
    return pool[:k]


def rand_ndarray(shape, stype='default', density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A random NDArray of ``shape``: standard normal when dense, else as ``rand_sparse_ndarray``."""
    if stype == 'default':
        return array(random_arrays(shape), ctx=ctx or default_context(), dtype=dtype)
    return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, distribution=distribution,
                               modifier_func=modifier_func, shuffle_csr_indices=shuffle_csr_indices, ctx=ctx)[0]


def assign_each(the_input, function):
    """``function`` applied to every element of ``the_input`` (a float64 numpy array back);
    None gives a copy."""
    if function is None:
        return np.array(the_input)
    return np.vectorize(function, otypes=[np.float64])(np.asarray(the_input))


def assign_each2(input1, input2, function):
    """``function`` applied to every pair of elements of two same-shaped arrays (float64)."""
    if function is None:
        return np.array(input1)
    return np.vectorize(function, otypes=[np.float64])(np.asarray(input1), np.asarray(input2))


def _powerlaw_csr(rows, cols, density, dtype):
    """A dense matrix whose rows hold 1, then 2, 4, 8... non-zeros (capped at a full row),
    ``rows * cols * density`` of them in all, each 1 + uniform(0.001, 2)."""
    budget = int(rows * cols * density)
    if budget < 2 * rows:
        raise ValueError('rand_sparse_ndarray: a powerlaw CSR needs at least two non-zeros a row '
                         '(rows * cols * density = %d for %d rows)' % (budget, rows))
    out = np.zeros((rows, cols), dtype=dtype)
    for r in range(rows):
        out[r, 0] = 1 + np.random.uniform(0.001, 2)
    budget -= rows
    for r in range(rows):
        width = min(cols, 2 ** (r + 1))
        take = min(width - 1, budget)
        out[r, 1:1 + take] = 1 + np.random.uniform(0.001, 2, size=take)
        budget -= take
        if budget <= 0:
            break
    return out


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None, data_init=None,
                        rsp_indices=None, modifier_func=None, shuffle_csr_indices=False, ctx=None):
    """A random sparse array and its parts, as MXNet's helper makes them.

    ``'row_sparse'``: each row is kept with probability ``density`` (or the rows
    ``rsp_indices``), its values uniform in [0, 1) (or ``data_init``, then ``modifier_func``
    on each); returns ``(array, (values, indices))``.  ``'csr'``: a 2-D matrix of that
    density, ``distribution`` 'uniform' (values uniform in [0, 1), or ``data_init``) or
    'powerlaw' (rows of 1, 2, 4... non-zeros); ``shuffle_csr_indices`` leaves each row's
    columns unsorted; returns ``(array, (indptr, indices, data))`` as NDArrays.
    """
    ctx = ctx or default_context()
    density = np.random.rand() if density is None else density
    dtype = default_dtype() if dtype is None else dtype
    distribution = distribution or 'uniform'
    if stype == 'row_sparse':
        if distribution != 'uniform':
            raise ValueError('rand_sparse_ndarray: row_sparse has only the uniform distribution')
        indices = (np.asarray(rsp_indices) if rsp_indices is not None
                   else np.flatnonzero(np.random.rand(shape[0]) < density))
        if len(indices) == 0:
            return mx.nd.sparse.zeros('row_sparse', shape, ctx=ctx, dtype=dtype), (np.array([], dtype=dtype),
                                                                                     np.array([]))
        values = np.random.rand(len(indices), *shape[1:]).astype(dtype)
        if data_init is not None:
            values.fill(data_init)
        if modifier_func is not None:
            values = assign_each(values, modifier_func)
        arr = mx.nd.sparse.row_sparse_array((values, indices), shape=shape, dtype=dtype, ctx=ctx)
        return arr, (values, indices)
    if stype != 'csr':
        raise ValueError('rand_sparse_ndarray: unknown storage type %r' % (stype,))
    if len(shape) != 2:
        raise ValueError('rand_sparse_ndarray: a CSR array is 2-D, got shape %s' % (shape,))
    if distribution == 'powerlaw':
        arr = mx.nd.sparse.csr_matrix(_powerlaw_csr(shape[0], shape[1], density, dtype), ctx=ctx, dtype=dtype)
    elif distribution == 'uniform':
        import scipy.sparse as sparse_module     # only the sparse helpers need scipy
        matrix = sparse_module.random(shape[0], shape[1], density=density, format='csr',
                                      random_state=np.random.randint(2 ** 31), dtype=np.float64)
        matrix.data = matrix.data.astype(dtype)
        if data_init is not None:
            matrix.data.fill(data_init)
        if shuffle_csr_indices:
            for r in range(shape[0]):
                np.random.shuffle(matrix.indices[matrix.indptr[r]:matrix.indptr[r + 1]])
        arr = mx.nd.sparse.csr_matrix((matrix.data, matrix.indices, matrix.indptr), shape=shape, dtype=dtype,
                                      ctx=ctx)
    else:
        raise ValueError('rand_sparse_ndarray: unknown distribution %r' % (distribution,))
    return arr, (arr.indptr, arr.indices, arr.data)


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None, modifier_func=None,
                        density=0.5, shuffle_csr_indices=False):
    """A random sparse array alone (``rand_sparse_ndarray``'s first result), density 0.5 by
    default; given row numbers for a row_sparse array are sorted and made distinct first,
    the canonical form its indices must have."""
    if stype == 'row_sparse' and rsp_indices is not None:
        rsp_indices = np.unique(np.asarray(rsp_indices))
    arr, _ = rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, data_init=data_init,
                                 rsp_indices=rsp_indices, modifier_func=modifier_func,
                                 shuffle_csr_indices=shuffle_csr_indices)
    return arr


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None, dtype=None,
                           modifier_func=None, shuffle_csr_indices=False):
    """``create_sparse_array`` with the density given first (0 allowed: nothing stored)."""
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices, dtype=dtype,
                               modifier_func=modifier_func, density=density,
                               shuffle_csr_indices=shuffle_csr_indices)


def _dims(highs, allow_zero_size):
    low = 0 if allow_zero_size else 1
    return tuple(np.random.randint(low, high + 1) for high in highs)


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    """A random 2-d shape ``(d0, d1)`` with ``1 <= d0 <= dim0`` and ``1 <= d1 <= dim1`` (from 0
    with ``allow_zero_size``), drawn from numpy's global generator.

    >>> len(mx.test_utils.rand_shape_2d(3, 4))
    2
    """
    return _dims((dim0, dim1), allow_zero_size)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    """A random 3-d shape, each size ``d_i`` drawn from numpy's global generator with
    ``1 <= d_i <= dim_i`` (from 0 with ``allow_zero_size``).
    """
    return _dims((dim0, dim1, dim2), allow_zero_size)


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    """A random shape of ``num_dim`` dimensions, each size drawn from numpy's global generator
    in ``[1, dim]`` (``[0, dim]`` with ``allow_zero_size``).
    """
    return tuple(np.random.randint(0 if allow_zero_size else 1, dim + 1, size=num_dim))


# ------------------------------------------------------------------ one operator (reflib's own)
def op_forward(op_name, inputs, params=None, aux=None, is_train=False, seed=0, ctx=None):
    """Run one registered operator on raw numpy inputs; returns (outputs, aux_after) in numpy.

    It runs on ``ctx`` (default: ``default_context()``): on a gpu the inputs are copied to
    the device and the results back.
    """
    ctx = default_context() if ctx is None else Context(ctx)
    op = get(op_name)
    p = op.parse_params(params or {})
    aux = [move(np.array(a, copy=True), ctx) for a in (aux or [])]
    _random.seed(seed)
    with ctx.device_scope():
        outs = op.forward(p, OpEnv(ctx, is_train), [move(x, ctx) for x in inputs], aux)
    return [_host(o) for o in outs], [_host(a) for a in aux]


def _host(x):
    return None if x is None else to_numpy(x)


def numeric_grad(f, x, eps=1e-4):
    """Central differences of scalar ``f()`` w.r.t. array ``x`` (perturbed in place)."""
    grad = np.zeros_like(x, dtype=np.float64)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    if not np.shares_memory(flat, x):
        raise ValueError('numeric_grad: x must be contiguous, since it is perturbed in place; '
                         'pass np.ascontiguousarray(x)')
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
                      is_train=True, eps=1e-4, rtol=1e-4, atol=1e-6, seed=0, ctx=None):
    """Compare an operator's backward with finite differences, in float64.

    The scalar being differentiated is ``sum_k <head_k, out_k>`` over the
    visible outputs with fixed random head gradients, so every output
    element's gradient is exercised.  ``grad_inputs`` lists the input indices
    to check (default: all).  Random operators are re-seeded before every
    forward so the perturbed runs see the same randomness.
    """
    ctx = default_context() if ctx is None else Context(ctx)
    op = get(op_name)
    p = op.parse_params(params or {})
    xs = [np.array(x, dtype=np.float64, copy=True) for x in inputs]
    aux0 = [np.array(a, dtype=np.float64, copy=True) for a in (aux or [])]
    env = OpEnv(ctx, is_train)
    nvis = op.visible_outputs(p)

    def on_device(arrays):
        return [move(a.copy(), ctx) for a in arrays]

    def run():
        _random.seed(seed)
        with ctx.device_scope():
            return op.forward(p, env, on_device(xs), on_device(aux0))

    outs = run()
    rng = np.random.default_rng(seed + 1)
    heads = [rng.normal(size=o.shape) for o in outs[:nvis]]

    def loss():
        return float(sum((h * _host(o)).sum() for h, o in zip(heads, run()[:nvis])))

    out_grads = on_device(heads) + [None] * (len(outs) - nvis)
    with ctx.device_scope():
        analytic = op.backward(p, env, out_grads, on_device(xs), outs, on_device(aux0))
    analytic = [_host(g) for g in analytic]
    which = range(len(xs)) if grad_inputs is None else grad_inputs
    for i in which:
        numeric = numeric_grad(loss, xs[i], eps)
        got = np.zeros_like(numeric) if analytic[i] is None else np.asarray(analytic[i])
        np.testing.assert_allclose(
            got, numeric, rtol=rtol, atol=atol,
            err_msg='%s%s: gradient of input %d (%s) differs from finite differences'
                    % (op_name, params or '', i, op.inputs(p)[i] if i < len(op.inputs(p)) else i))
    return analytic


# ------------------------------------------------------------------ helpers for tests
def compare_optimizer(opt1, opt2, shape, dtype, w_stype='default', g_stype='default',
                      rtol=1e-4, atol=1e-5, compare_states=True, ntensors=1):
    """One update of the same random weight and gradient by two optimizers must agree
    (states before and after, and the weights).  A list of shapes updates ``ntensors``
    weights, ``opt2`` all at once (index, weight, grad and state lists).  With a sparse
    ``w_stype``/``g_stype`` (one shape), ``opt2`` gets the sparse arrays (a weight storing
    every row) and ``opt1`` their dense copies."""
    for what, stype in (('w_stype', w_stype), ('g_stype', g_stype)):
        if stype not in ('default', 'row_sparse', 'csr'):
            raise MXNetError("compare_optimizer: %s must be 'default', 'row_sparse' or 'csr', got %r"
                             % (what, stype))
    if w_stype != 'default' or g_stype != 'default':
        if isinstance(shape, list):
            raise MXNetError('compare_optimizer: sparse arrays take one shape, got a list')
        return _compare_sparse_optimizer(opt1, opt2, shape, dtype, w_stype, g_stype, rtol, atol, compare_states)

    def compare_states_of(s1, s2, **tols):
        if s1 is None or s2 is None:
            return
        if isinstance(s1, (tuple, list)):
            for a, b in zip(s1, s2):
                compare_states_of(a, b, **tols)
        else:
            assert_almost_equal(s1, s2, **tols)

    ctx = default_context()
    if not isinstance(shape, list):
        if ntensors != 1:
            raise ValueError('compare_optimizer: one shape means one tensor, got ntensors=%d' % ntensors)
        shape = [shape]
    w1 = [_random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape]
    g1 = [_random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape]
    w2, g2 = [w.copy() for w in w1], [g.copy() for g in g1]
    state1 = [opt1.create_state_multi_precision(i, w) for i, w in enumerate(w1)]
    state2 = [opt2.create_state_multi_precision(i, w) for i, w in enumerate(w2)]
    if compare_states:
        for s1, s2 in zip(state1, state2):
            compare_states_of(s1, s2)
    for i in range(len(shape)):
        opt1.update_multi_precision(i, w1[i], g1[i], state1[i])
    if len(shape) == 1:
        opt2.update_multi_precision(0, w2[0], g2[0], state2[0])
    else:
        opt2.update_multi_precision(list(range(len(shape))), w2, g2, state2)
    for i in range(len(shape)):
        if compare_states:
            compare_states_of(state1[i], state2[i], rtol=rtol, atol=atol)
        assert isinstance(w1[i], NDArray)
        assert_almost_equal(w1[i], w2[i], rtol=rtol, atol=atol)


def _compare_sparse_optimizer(opt1, opt2, shape, dtype, w_stype, g_stype, rtol, atol, compare_states):
    """compare_optimizer's sparse case: the same values, dense for ``opt1``, sparse for ``opt2``."""
    def pair(stype, density):
        if stype == 'default':
            dense = _random.uniform(shape=shape, ctx=default_context(), dtype=dtype)
            return dense.copy(), dense
        sparse = rand_ndarray(shape, stype, density=density, dtype=dtype)
        return sparse.todense(), sparse
    w1, w2 = pair(w_stype, 1)          # a sparse weight stores every row, as MXNet's test makes it
    g1, g2 = pair(g_stype, None)
    state1, state2 = opt1.create_state_multi_precision(0, w1), opt2.create_state_multi_precision(0, w2)
    if compare_states:
        compare_ndarray_tuple(state1, state2)
    opt1.update_multi_precision(0, w1, g1, state1)
    opt2.update_multi_precision(0, w2, g2, state2)
    if compare_states:
        compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
    assert_almost_equal(w1, w2, rtol=rtol, atol=atol)


def is_aarch64_run():
    """Whether this runs on an aarch64 (ARM 64-bit) machine: MXNet's tests skip a few cases there."""
    return platform.machine() == 'aarch64'


@contextlib.contextmanager
def environment(*args):
    """Set environment variables for the ``with`` block, then restore them (also on error):
    ``environment('NAME', 'value')`` or ``environment({'A': '1', 'B': None})``, None unsets."""
    if len(args) == 1 and isinstance(args[0], dict):
        wanted = dict(args[0])
    elif len(args) == 2:
        wanted = {args[0]: args[1]}
    else:
        raise TypeError('environment: pass a name and a value, or one dict of them')
    before = {name: os.environ.get(name) for name in wanted}

    def apply(settings):
        for name, value in settings.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    apply(wanted)
    try:
        yield
    finally:
        apply(before)


@contextlib.contextmanager
def discard_stderr():
    """Send everything written to the process's stderr (file descriptor 2) nowhere for the block.

    Descriptor 2 itself, not ``sys.stderr``'s: in a notebook or under pytest ``sys.stderr`` is
    no file, while C code (and MXNet's engine) still writes to descriptor 2.
    """
    fd = 2
    try:
        sys.stderr.flush()
    except (AttributeError, ValueError):
        pass
    saved = os.dup(fd)
    try:
        with open(os.devnull, 'w') as devnull:
            os.dup2(devnull.fileno(), fd)
            try:
                yield
            finally:
                try:
                    sys.stderr.flush()
                except (AttributeError, ValueError):
                    pass
                os.dup2(saved, fd)
    finally:
        os.close(saved)


def retry(n):
    """Decorator: run a test up to ``n`` times, until it raises no AssertionError (random tests)."""
    if n <= 0:
        raise ValueError('retry: n must be positive, got %r' % (n,))

    def decorate(test):
        @functools.wraps(test)
        def wrapper(*args, **kwargs):
            for attempt in range(n):
                try:
                    return test(*args, **kwargs)
                except AssertionError:
                    if attempt == n - 1:
                        raise
        return wrapper
    return decorate


def _chi2_sf(x, dof):
    """P(X > x) for a chi-square variable with ``dof`` degrees of freedom: the regularized
    upper incomplete gamma function Q(dof/2, x/2), by its series or its continued fraction."""
    a, z = dof / 2.0, x / 2.0
    if z <= 0:
        return 1.0
    log_front = a * math.log(z) - z - math.lgamma(a)
    if z < a + 1:                      # P(a, z) by its power series; Q = 1 - P
        term = total = 1.0 / a
        k = a
        while abs(term) > abs(total) * 1e-15:
            k += 1
            term *= z / k
            total += term
        return max(0.0, 1.0 - total * math.exp(log_front))
    # Q(a, z) by Lentz's evaluation of its continued fraction
    tiny = 1e-300
    b = z + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h * math.exp(log_front)


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Pearson's chi-square test of ``generator(n)``'s samples against bucket probabilities.

    ``buckets`` are ``(low, high)`` ranges for a continuous distribution (a sample counts in
    the range it falls in) or the values of a discrete one.  Returns ``(p value, observed
    counts, expected counts)``.
    """
    if len(probs) != len(buckets):
        raise ValueError('chi_square_check: %d probabilities for %d buckets' % (len(probs), len(buckets)))
    samples = np.asarray(generator(nsamples)).reshape(-1)
    expected = (nsamples * np.array(probs, dtype=np.float32)).astype(np.int32)
    if isinstance(buckets[0], (list, tuple)):
        edges = np.array([e for pair in buckets for e in pair], dtype=np.float32)
        if np.any(np.diff(edges) < 0):
            raise ValueError('chi_square_check: buckets must be ascending and must not overlap')
        # an edge index 2i or 2i + 1 is bucket i's range (or the gap just below it)
        which = np.searchsorted(edges, samples, side='right') // 2
        observed = np.array([(which == i).sum() for i in range(len(buckets))])
    else:
        observed = np.array([(samples == b).sum() for b in buckets])
    stat = float(((observed - expected) ** 2 / expected.astype(np.float64)).sum())
    return _chi2_sf(stat, len(buckets) - 1), observed, expected


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2, alpha=0.05):
    """Run ``chi_square_check`` ``nrepeat`` times; raise an AssertionError unless at least a
    ``success_rate`` share of the runs has a p value above ``alpha``.  Returns the p values."""
    runs = [chi_square_check(generator, buckets, probs, nsamples) for _ in range(nrepeat)]
    pvalues = [r[0] for r in runs]
    if sum(p > alpha for p in pvalues) < nrepeat * success_rate:
        raise AssertionError('the generator fails the chi-square test: p values %s, observed %s, expected '
                             '%s for buckets %s with probabilities %s'
                             % (pvalues, [r[1].tolist() for r in runs], [r[2].tolist() for r in runs],
                                buckets, probs))
    return pvalues


# the whole-symbol checks are MXNet's test_utils functions too; they use the comparisons above
def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True, rtol=1E-4, atol=1E-4):
    """Check that a HybridBlock computes the same run imperatively and hybridized.

    ``net_builder(prefix='net_')`` builds the block afresh for each of up to four runs:
    imperative and hybridized, each without and (``test_grad``) with ``autograd.record()``,
    where ``backward(out)`` gives the inputs' gradients.  The first run's initial parameters
    are copied into the later ones (after a call that gives them their shapes), so every run
    starts from the same weights.  Outputs and
    input gradients must agree with the first run's to ``rtol``/``atol``, and the output with
    ``numpy_func(*inputs as numpy arrays)`` when it is given.  The block must not draw random
    numbers (Dropout in training mode would make runs differ).
    """
    first_params = first_out = first_grads = None
    for hybridize in (False, True):
        for recording in ((False, True) if test_grad else (False,)):
            net = net_builder(prefix='net_')
            net.initialize()
            inputs = [x.copy() for x in data_l]
            if first_params is not None:
                net(*inputs)                # gives deferred parameters their shapes
                for name, param in net.collect_params().items():
                    param.set_data(first_params[name])
            if hybridize:
                net.hybridize()
            if recording:
                for x in inputs:
                    x.attach_grad()
                with mx.autograd.record():
                    out = net(*inputs)
                out.backward(out)
            else:
                out = net(*inputs)
            if first_params is None:       # the values initialize() drew, for the other runs
                first_params = {name: p.data().copy() for name, p in net.collect_params().items()}
            where = '%s run%s' % ('hybridized' if hybridize else 'imperative', ' under record()' if recording else '')
            if first_out is None:
                first_out = out.asnumpy()
            else:
                assert_almost_equal(out.asnumpy(), first_out, rtol=rtol, atol=atol, names=(where, 'first run'))
            if recording:
                grads = [x.grad.asnumpy() for x in inputs]
                if first_grads is None:
                    first_grads = grads
                else:
                    for got, want in zip(grads, first_grads):
                        assert_almost_equal(got, want, rtol=rtol, atol=atol, names=(where, 'first run'))
    if numpy_func is not None:
        assert_almost_equal(first_out, numpy_func(*[x.asnumpy() for x in data_l]), rtol=rtol, atol=atol,
                            names=('block', 'numpy_func'))


from .symbol_checks import (simple_forward, check_symbolic_forward, check_symbolic_backward,  # noqa: E402
                            check_numeric_gradient, check_speed, check_consistency)
# the data helpers example scripts call (get_mnist_iterator, ...); reflib downloads nothing
from .test_utils_data import download, get_mnist, get_mnist_ubyte, get_mnist_iterator, get_cifar10  # noqa: E402,F401
