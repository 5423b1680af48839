"""What "equal" means in reflib's tests and MXNet's: the test context, tolerances by dtype,
and the comparisons built on them (``assert_almost_equal`` and friends).

``mx.test_utils`` re-exports all of it; reflib/symbol_checks.py (the whole-symbol checks
that test_utils also re-exports) builds on it, which is why it is a file of its own.
"""

import numbers

import numpy as np

from .context import current_context, set_current_context

__all__ = ['default_context', 'set_default_context', 'default_dtype', 'default_rtols', 'default_atols',
           'default_numeric_eps', 'get_rtol', 'get_atol', 'same', 'almost_equal', 'assert_almost_equal',
           'assert_allclose', 'assert_exception']


# ------------------------------------------------------------------ contexts and tolerances
def default_context():
    """The context tests run on: the current one (``cpu(0)`` unless changed)."""
    return current_context()


def set_default_context(ctx):
    """Make ``ctx`` the current context of this thread (inside a ``with`` block: until it ends)."""
    set_current_context(ctx)


def default_dtype():
    """The dtype tests use when none is given: ``numpy.float32``."""
    return np.float32


# MXNet's tolerances per dtype; integers and booleans must match exactly
_RTOL = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-5}
_ATOL = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-20}
# powers of two, so that x + eps loses no bits of eps
_NUMERIC_EPS = {np.dtype(np.float16): 2.0 ** -6, np.dtype(np.float32): 2.0 ** -9,
                np.dtype(np.float64): 2.0 ** -14}
_EXACT = [np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64]


def default_rtols():
    """A new dict mapping each numpy dtype to its default relative tolerance: float16 1e-2,
    float32 1e-4, float64 1e-5, and 0 for booleans and integers (they must match exactly).
    """
    return {**_RTOL, **{np.dtype(t): 0 for t in _EXACT}}


def default_atols():
    """A new dict mapping each numpy dtype to its default absolute tolerance: float16 1e-1,
    float32 1e-3, float64 1e-20, and 0 for booleans and integers.
    """
    return {**_ATOL, **{np.dtype(t): 0 for t in _EXACT}}


def default_numeric_eps():
    """A new dict mapping float16, float32 and float64 to the step used for numeric
    (finite-difference) gradients: 2**-6, 2**-9 and 2**-14, powers of two so that adding
    the step to a value loses none of its bits.
    """
    return dict(_NUMERIC_EPS)


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """``rtol`` when it is given, else the default relative tolerance of ``dtype`` (float64's
    when no dtype is given).  A dtype without a default raises KeyError.

    >>> mx.test_utils.get_rtol(dtype=np.float16)
    0.01
    >>> mx.test_utils.get_rtol(0.5)
    0.5
    """
    return default_rtols()[np.dtype(dtype)] if rtol is None else rtol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """``atol`` when it is given, else the default absolute tolerance of ``dtype`` (float64's
    when no dtype is given).  A dtype without a default raises KeyError.
    """
    return default_atols()[np.dtype(dtype)] if atol is None else atol


def _tolerance(value, tol, table):
    """A number as given, else the entry for ``value``'s dtype in ``tol`` (a dict) or in ``table``."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = np.dtype(getattr(value, 'dtype', None) or np.asarray(value).dtype)
    return (tol or {}).get(dtype, table[dtype])


def _tols(a, b, rtol, atol):
    """The looser of the two arrays' default tolerances, for whatever was not given."""
    return (max(_tolerance(a, rtol, default_rtols()), _tolerance(b, rtol, default_rtols())),
            max(_tolerance(a, atol, default_atols()), _tolerance(b, atol, default_atols())))


# ------------------------------------------------------------------ comparisons
def _numpy(x):
    return x.asnumpy() if hasattr(x, 'asnumpy') else np.asarray(x)


def same(a, b):
    """Whether two arrays have the same shape and the same values."""
    return np.array_equal(_numpy(a), _numpy(b))


def _check_shapes(a, b):
    if np.shape(a) != np.shape(b):
        raise AssertionError('the arrays have different shapes: %s and %s' % (np.shape(a), np.shape(b)))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """``|a - b| <= atol + rtol * |b|`` everywhere (unset tolerances: float64's, as in MXNet)."""
    a, b = _numpy(a), _numpy(b)
    if not use_broadcast:
        _check_shapes(a, b)
    return bool(np.allclose(a, b, rtol=get_rtol(rtol), atol=get_atol(atol), equal_nan=equal_nan))


def assert_almost_equal(a, b, rtol=None, atol=None, names=('a', 'b'), equal_nan=False,
                        use_broadcast=True, mismatches=(10, 10)):
    """Raise an AssertionError unless ``a`` and ``b`` (NDArrays, numpy arrays, numbers) agree.

    Unset tolerances come from the dtypes (the looser of the two): float16 ``1e-2/1e-1``,
    float32 ``1e-4/1e-3``, float64 ``1e-5/1e-20``, integers exactly.  The message gives the
    worst element, its position and both values, and how many elements are off
    (``mismatches[0]`` of them are listed).
    """
    if not use_broadcast:
        _check_shapes(a, b)
    rtol, atol = _tols(a, b, rtol, atol)
    a, b = _numpy(a), _numpy(b)
    if a.dtype == np.bool_ and b.dtype == np.bool_:
        np.testing.assert_equal(a, b)
        return
    if np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    a_b, b_b = np.broadcast_arrays(a, b)
    with np.errstate(invalid='ignore', over='ignore'):
        diff = np.where(a_b == b_b, 0.0, np.abs(a_b.astype(np.float64) - b_b.astype(np.float64)))
        ratio = diff / (atol + rtol * np.abs(b_b.astype(np.float64)) + 1e-20)
    bad = ~np.isclose(a_b, b_b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    ratio = np.where(np.isnan(ratio), np.inf, ratio)
    order = np.argsort(-np.where(bad, ratio, -1).reshape(-1), kind='stable')[:max(mismatches[0], 1)]
    rows = []
    for flat in order:
        if not bad.reshape(-1)[flat]:
            break
        idx = np.unravel_index(flat, bad.shape)
        rows.append('  at %s: %s=%r, %s=%r (%.3g times the tolerance)'
                    % (tuple(int(i) for i in idx), names[0], a_b[idx].item(), names[1], b_b[idx].item(),
                       ratio[idx]))
    raise AssertionError('%s and %s differ by more than rtol=%g, atol=%g in %d of %d elements (%.2f%%); '
                         'the worst:\n%s' % (names[0], names[1], rtol, atol, int(bad.sum()), bad.size,
                                             100.0 * bad.sum() / max(bad.size, 1), '\n'.join(rows)))


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """numpy's assert_allclose defaults, through assert_almost_equal."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_exception(f, exception_type, *args, **kwargs):
    """Raise an AssertionError unless ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError('%s did not raise %s' % (getattr(f, '__name__', f), exception_type.__name__))
