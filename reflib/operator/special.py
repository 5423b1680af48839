"""Special functions: ``gamma``, ``gammaln``, ``erf`` and ``erfinv``.

numpy has none of them.  On a GPU they come from ``cupyx.scipy.special``; on
the CPU from ``scipy.special`` when it is installed (reflib does not require
it), else from the plain-Python versions below (``math.gamma``, ``math.lgamma``,
a series for the digamma function, Newton's method for erfinv), which are
slower but give the same numbers to float32 precision.

The gradients are ``gamma(x) * digamma(x)``, ``digamma(x)``,
``2/sqrt(pi) * exp(-x**2)`` and ``sqrt(pi)/2 * exp(erfinv(x)**2)``.  At the
poles of gamma (0, -1, -2, ...) MXNet's digamma is +inf, scipy's is -inf or
NaN; reflib follows MXNet, as it does for ``gammaln(-inf)`` = +inf.
"""

import math

import numpy as np

from .registry import register
from .common import erf_array, is_numpy
from .unary import UnaryMath


def _special(xp):
    """scipy.special (cupyx's on a GPU), or None where scipy is not installed."""
    if not is_numpy(xp):
        import cupyx.scipy.special as special  # only on a device
        return special
    try:
        import scipy.special as special
    except ImportError:
        return None
    return special


def _each(x, fn, on_error):
    """``fn`` applied to every element in Python floats; ``on_error(v)`` where it raises."""
    def one(v):
        try:
            return fn(v)
        except (ValueError, OverflowError):
            return on_error(v)
    flat = [one(float(v)) for v in np.asarray(x, dtype=np.float64).ravel()]
    return np.array(flat, dtype=np.float64).reshape(np.shape(x)).astype(x.dtype)


def _gamma_pole(v):
    # math.gamma raises at 0 (C's tgamma gives inf with the zero's sign), at negative
    # whole numbers and -inf (NaN), and on overflow (inf)
    if v == 0:
        return math.copysign(math.inf, v)
    return math.inf if v > 0 else math.nan


def gamma(xp, x):
    special = _special(xp)
    if special is not None:
        return special.gamma(x)
    return _each(x, math.gamma, _gamma_pole)


def gammaln(xp, x):
    """log|gamma(x)|; +inf at the poles and at -inf (C's lgamma; scipy gives -inf there)."""
    special = _special(xp)
    if special is None:
        return _each(x, math.lgamma, lambda v: math.inf)
    out = special.gammaln(x)
    return xp.where(x == -math.inf, x.dtype.type(math.inf), out)


def digamma(xp, x):
    """d/dx log gamma(x); +inf at 0, -1, -2, ... and -inf, as MXNet's."""
    pole = (x <= 0) & (xp.floor(x) == x)
    special = _special(xp)
    out = special.digamma(x) if special is not None else _digamma_series(x)
    return xp.where(pole, x.dtype.type(math.inf), out)


def _digamma_series(x):
    """digamma in float64 without scipy: reflection below 1/2, the recurrence
    psi(z) = psi(z + 1) - 1/z up to z >= 6, then the asymptotic series."""
    x64 = np.asarray(x, dtype=np.float64)
    reflect = x64 < 0.5
    z = np.where(reflect, 1 - x64, x64)
    total = np.zeros_like(z)
    for _ in range(6):
        small = z < 6
        total -= np.where(small, 1 / z, 0)
        z = np.where(small, z + 1, z)
    inv2 = 1 / (z * z)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    total += np.log(z) - 0.5 / z - series
    total = np.where(reflect, total - np.pi / np.tan(np.pi * x64), total)
    return total.astype(x.dtype)


def erfinv(xp, x):
    special = _special(xp)
    if special is not None:
        return special.erfinv(x)
    return _erfinv_newton(x)


def _erfinv_newton(x):
    """erfinv in float64 without scipy: a closed-form first guess (Winitzki's, good to
    about 2e-3), then Newton steps on erf(y) = x."""
    x64 = np.asarray(x, dtype=np.float64)
    inside = np.abs(x64) < 1
    xs = np.where(inside, x64, 0)
    a = 0.147
    log_term = np.log((1 - xs) * (1 + xs))
    first = 2 / (np.pi * a) + log_term / 2
    y = np.sign(xs) * np.sqrt(np.sqrt(first * first - log_term / a) - first)
    for _ in range(4):
        y -= (erf_array(np, y) - xs) / (2 / np.sqrt(np.pi) * np.exp(-y * y))
    edge = np.where(np.abs(x64) == 1, np.sign(x64) * np.inf, np.nan)    # +-1 -> +-inf, beyond -> NaN
    return np.where(inside, y, edge).astype(x.dtype)


@register
class Gamma(UnaryMath):
    """The gamma function (NaN at negative whole numbers, inf at 0); gradient
    gamma(x) * digamma(x)."""
    name = 'gamma'

    def fn(self, xp, x):
        return gamma(xp, x)

    def deriv(self, xp, x, y):
        return y * digamma(xp, x)


@register
class Gammaln(UnaryMath):
    """log|gamma(x)|; gradient digamma(x)."""
    name = 'gammaln'

    def fn(self, xp, x):
        return gammaln(xp, x)

    def deriv(self, xp, x, y):
        return digamma(xp, x)


@register
class Erf(UnaryMath):
    """The error function; gradient 2/sqrt(pi) * exp(-x**2)."""
    name = 'erf'

    def fn(self, xp, x):
        return erf_array(xp, x)

    def deriv(self, xp, x, y):
        return x.dtype.type(2 / math.sqrt(math.pi)) * xp.exp(-x * x)


@register
class Erfinv(UnaryMath):
    """The inverse error function on [-1, 1] (+-inf at +-1, NaN beyond); gradient
    sqrt(pi)/2 * exp(erfinv(x)**2)."""
    name = 'erfinv'

    def fn(self, xp, x):
        return erfinv(xp, x)

    def deriv(self, xp, x, y):
        return x.dtype.type(math.sqrt(math.pi) / 2) * xp.exp(y * y)
