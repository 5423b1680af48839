"""Probability densities: ``_random_pdf_<dist>(sample, <parameters>, is_log=False)``.

Each operator evaluates, at every element of ``sample``, the density (the probability, for
the counting distributions) of the distribution its parameter arrays give at the matching
position; ``is_log`` returns its logarithm instead.  The parameter arrays share one shape,
which must be the leading part of ``sample``'s shape: a sample of shape ``(2, 3, 5)`` with
parameters of shape ``(2, 3)`` holds five draws per distribution, and the output has the
sample's shape.  ``_random_pdf_dirichlet`` reads the last axis of ``sample`` as one point of
the simplex: ``alpha`` of shape ``(2, K)`` goes with samples of shape ``(2, n, K)``, and the
output drops that axis, ``(2, n)`` (``(1,)`` when nothing is left).

=============================  ============  =====================================================
operator                       parameters    log-density at ``x``
=============================  ============  =====================================================
_random_pdf_uniform            low, high     ``-log(high - low)`` (``x`` is not checked against
                                             the interval)
_random_pdf_normal             mu, sigma     ``-(x - mu)^2 / (2 sigma^2) - log(sqrt(2 pi) sigma)``
_random_pdf_gamma              alpha, beta   ``alpha log beta + (alpha - 1) log x - beta x
                                             - lgamma(alpha)`` (``beta`` is the rate)
_random_pdf_exponential        lam           ``log lam - lam x``
_random_pdf_poisson            lam           ``x log lam - lgamma(x + 1) - lam``
_random_pdf_negative_binomial  k, p          ``lgamma(x + k) - lgamma(x + 1) - lgamma(k)
                                             + k log p + x log(1 - p)`` (``p`` succeeds)
_random_pdf_generalized_       mu, alpha     the negative binomial with ``k = 1 / alpha``,
negative_binomial                            ``p = 1 / (1 + mu alpha)``
_random_pdf_dirichlet          alpha         ``sum_j (alpha_j - 1) log x_j + lgamma(sum_j alpha_j)
                                             - sum_j lgamma(alpha_j)``
=============================  ============  =====================================================

Nothing is validated, as in MXNet 1.9.1: a sample outside the support or a parameter outside
its range gives whatever the formula gives (NaN, inf, a negative "density"; ``lgamma`` is
``log|gamma|``, so a Poisson at ``x = -2.5`` is positive).  The plain density is ``exp`` of
the log-density, except for two, which MXNet writes directly and which therefore differ for
a negative parameter: the normal, ``exp(-(x - mu)^2 / (2 sigma^2)) / (sqrt(2 pi) sigma)``,
and the exponential, ``lam exp(-lam x)``.

Gradients reach every input.  Per sample element the gradient of the log-density is
multiplied by the head gradient (and, for the plain density, by the density itself); a
parameter's gradient sums that over the sample elements it governs.  The counting
distributions and the uniform give the sample a zero gradient.

The numbers are MXNet's to the last bit where that could be pinned down (CPU, against MXNet
1.9.1), which takes four of its habits:

* its kernels compute in the inputs' dtype, but call the double-precision ``log``, ``exp``
  and ``lgamma``: in float32 an expression stays in float64 from such a call until it is
  stored (:func:`_wide`, :func:`_log`, ...).  float16 follows the same code with float32
  for float64, which is close to, not exactly, MXNet's half-precision arithmetic;
* ``pi`` in the normal's ``sqrt(2 pi)`` is a float32 constant (a relative 1.4e-8 off);
* its digamma (:func:`_psi`) is its own port of Cephes' ``psi``, which takes its logarithm
  in float32 even for float64 (``psi(1.5)`` is 0.03649005823 against the exact
  0.03648997398) and is the largest float64 at its poles (0, -1, ...), inf in float32;
* a parameter's gradient is summed one sample element after another with Kahan's
  compensation, in the dtype (:func:`_kahan_sum`).
"""

import numpy as np

from .registry import Operator, Param, register
from .special import gammaln
from .common import is_numpy, shape_str
from ..shapes import merge_shape, is_np_shape, prod
from ..base import ShapeError, TypeInferError


# ================================================================ elementwise helpers
def _wide(x):
    """The type a C++ expression mixing x's dtype with a double is evaluated in: float64
    (float32 stands in for it with float16)."""
    return np.float32 if x.dtype == np.float16 else np.float64


def _w(x):
    """x promoted to its wide type."""
    return x.astype(_wide(x))


def _to(value, like):
    """A wide value stored back into like's dtype (a C++ ``DType`` variable)."""
    return value.astype(like.dtype)


# The C library's double log and exp are correctly rounded in nearly all cases; numpy's
# vectorized float64 ones are not always (with AVX-512, its exp differs in about 1 case in
# 20).  Where long double is wider, computing there and rounding gives the C library's numbers.
_LONG = np.longdouble if np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant else np.float64


def _libm(xp, fn, x):
    """fn (``'log'`` or ``'exp'``) of x at the wide precision, as the C library gives it."""
    wide = _wide(x)
    if is_numpy(xp):
        return getattr(np, fn)(x.astype(_LONG)).astype(np.float64).astype(wide)
    return getattr(xp, fn)(x.astype(np.float64)).astype(wide)


def _log(xp, x):
    return _libm(xp, 'log', x)


def _exp(xp, x):
    return _libm(xp, 'exp', x)


def _lgamma(xp, x):
    """log|gamma(x)| at the wide precision (C's lgamma: +inf at the poles and at -inf)."""
    return gammaln(xp, x.astype(np.float64)).astype(_wide(x))


def _c(x, value):
    """``value`` as a scalar of x's dtype (arithmetic with it stays in that dtype)."""
    return x.dtype.type(value)


def _psi(xp, x):
    """MXNet's digamma (its port of Cephes' psi), in x's dtype: float16 through float32.

    Reproduced step for step because it is not the exact digamma: its logarithm is always
    taken in float32, so in float64 it is off by up to a few 1e-6 relative (psi(1.5) is
    0.03649005823 against the exact 0.03648997398).  At the poles (0, -1, ..., -inf) it is
    the largest float64, which float32 and float16 read as inf.
    """
    if x.dtype == np.float64:
        return _psi64(xp, x)
    return _psi32(xp, x.astype(np.float32)).astype(x.dtype, copy=False)


_PSI_PI32 = np.float32(np.pi)
_EULER = 0.5772156649015329
# the asymptotic series' coefficients, highest power first (float32 keeps four)
_PSI_SERIES64 = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
                 -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
                 8.33333333333333333333E-2)
_PSI_SERIES32 = tuple(np.float32(c) for c in _PSI_SERIES64[3:])


def _logf(xp, s):
    """The C library's float32 log of s (correctly rounded; numpy's float32 log is not
    always), as s's dtype."""
    return xp.log(s.astype(np.float32).astype(np.float64)).astype(np.float32).astype(s.dtype)


def _psi64(xp, x):
    f = np.float64
    pole = (x <= 0) & (xp.floor(x) == x)
    negative = x <= 0
    # reflection for x <= 0: psi(x) = psi(1 - x) - pi / tan(pi x), pi / tan taken at the
    # distance to the nearest whole number (0 at a half)
    below = xp.floor(x)
    frac = x - below
    frac = xp.where(frac > 0.5, x - (below + 1.0), frac)
    shift = xp.where(frac == 0.5, 0.0, f(np.pi) / xp.tan(f(np.pi) * frac))
    x = xp.where(negative, 1.0 - x, x)
    # whole numbers up to 10: 1 + 1/2 + ... + 1/(x - 1) - Euler's constant
    whole = (x <= 10.0) & (xp.floor(x) == x)
    harmonic = xp.zeros_like(x)
    for i in range(1, 10):
        harmonic = xp.where(i < x, harmonic + 1.0 / i, harmonic)
    harmonic = harmonic - _EULER
    # otherwise climb to s >= 10 (psi(s) = psi(s + 1) - 1/s), then the asymptotic series
    s, climbed = x, xp.zeros_like(x)
    for _ in range(10):
        low = s < 10.0
        climbed = xp.where(low, climbed + 1.0 / s, climbed)
        s = xp.where(low, s + 1.0, s)
    z = 1.0 / (s * s)
    series = xp.full_like(z, _PSI_SERIES64[0])
    for c in _PSI_SERIES64[1:]:
        series = series * z + c
    series = xp.where(s < 1.0e17, z * series, 0.0)
    y = _logf(xp, s) - 0.5 / s - series - climbed
    y = xp.where(whole, harmonic, y)
    y = xp.where(negative, y - shift, y)
    return xp.where(pole, np.finfo(np.float64).max, y)


def _psi32(xp, x):
    # the float32 version: float32 variables, some steps evaluated in float64 and rounded
    f, d = np.float32, np.float64

    def rounded(v):
        return v.astype(f)
    pole = (x <= 0) & (xp.floor(x) == x)
    negative = x <= 0
    below = xp.floor(x)
    frac = x - below
    frac = xp.where(frac > f(0.5), x - (below + f(1)), frac)
    shift = xp.where(frac == f(0.5), f(0), _PSI_PI32 / rounded(xp.tan((_PSI_PI32 * frac).astype(d))))
    x = xp.where(negative, rounded(1.0 - x.astype(d)), x)
    whole = (x <= f(10)) & (xp.floor(x) == x)
    harmonic = xp.zeros_like(x)
    for i in range(1, 10):
        harmonic = xp.where(i < x, rounded(harmonic.astype(d) + 1.0 / i), harmonic)
    harmonic = rounded(harmonic.astype(d) - _EULER)
    s, climbed = x, xp.zeros_like(x)
    for _ in range(10):
        low = s < f(10)
        climbed = xp.where(low, rounded(climbed.astype(d) + 1.0 / s.astype(d)), climbed)
        s = xp.where(low, rounded(s.astype(d) + 1.0), s)
    z = rounded(1.0 / (s * s).astype(d))
    series = xp.full_like(z, _PSI_SERIES32[0])
    for c in _PSI_SERIES32[1:]:
        series = series * z + c
    series = xp.where(s < f(1.0e8), z * series, f(0))
    y = rounded(_logf(xp, s).astype(d) - 0.5 / s.astype(d) - series.astype(d) - climbed.astype(d))
    y = xp.where(whole, harmonic, y)
    y = xp.where(negative, y - shift, y)
    return xp.where(pole, f(np.inf), y)


# ================================================================ the distributions
# Each distribution has two functions, both over the sample x and its parameters (already
# shaped to broadcast against x), written in the order and precision of MXNet's kernels:
#
# density(xp, x, params, is_log)  -> the output, in x's dtype;
# grads(xp, x, params, scaling)   -> (the sample's gradient, or None for zeros, [each
#                                    parameter's gradient per sample element]), where scaling
#                                    is the head gradient, times the density unless is_log.

def _uniform(xp, x, params, is_log):
    low, high = params
    if is_log:
        out = -_to(_log(xp, high - low), x)
    else:
        out = _c(x, 1) / (high - low)
    return xp.broadcast_to(out, x.shape)


def _uniform_grads(xp, x, params, scaling):
    low, high = params
    return None, [scaling / (high - low), scaling / (low - high)]


# sqrt(2 pi) with MXNet's float32 pi, in float64
_SQRT_2PI = float(np.sqrt(2.0 * float(np.float32(np.pi))))


def _normal(xp, x, params, is_log):
    mu, sigma = params
    exponent = (_c(x, -0.5) * (x - mu) * (x - mu)) / (sigma * sigma)
    normalizer = _to(_wide(x)(_SQRT_2PI) * _w(sigma), x)
    if is_log:
        return _to(_w(exponent) - _log(xp, normalizer), x)
    return _to(_exp(xp, exponent) / _w(normalizer), x)


def _normal_grads(xp, x, params, scaling):
    mu, sigma = params
    s2 = sigma * sigma
    s3 = s2 * sigma
    return (scaling * (mu - x) / s2,
            [scaling * (x - mu) / s2, scaling * ((x - mu) * (x - mu) - s2) / s3])


def _gamma(xp, x, params, is_log):
    alpha, beta = params
    alpha_log_beta = _to(_w(alpha) * _log(xp, beta), x)
    lgamma_alpha = _to(_lgamma(xp, alpha), x)
    lpdf = _to(_w(alpha_log_beta) + _w(alpha - _c(x, 1)) * _log(xp, x) - _w(beta * x) - _w(lgamma_alpha), x)
    return lpdf if is_log else _to(_exp(xp, lpdf), x)


def _gamma_grads(xp, x, params, scaling):
    alpha, beta = params
    log_beta = _to(_log(xp, beta), x)
    return (scaling * ((alpha - _c(x, 1)) / x - beta),
            [_to(_w(scaling) * (_w(log_beta) + _log(xp, x) - _w(_psi(xp, alpha))), x),
             scaling * (alpha / beta - x)])


def _exponential(xp, x, params, is_log):
    lam, = params
    if is_log:
        return _to(_log(xp, lam), x) - lam * x
    return _to(_w(lam) * _exp(xp, -lam * x), x)


def _exponential_grads(xp, x, params, scaling):
    lam, = params
    return -scaling * lam, [scaling * (_c(x, 1) / lam - x)]


def _poisson(xp, x, params, is_log):
    lam, = params
    log_lam = _to(_log(xp, lam), x)
    lpdf = _to((_w(x * log_lam) - _lgamma(xp, x + _c(x, 1))) - _w(lam), x)
    return lpdf if is_log else _to(_exp(xp, lpdf), x)


def _poisson_grads(xp, x, params, scaling):
    lam, = params
    return None, [scaling * (x / lam - _c(x, 1))]


def _nb_lpdf(xp, x, k, p):
    lgammas = _lgamma(xp, x + k) - _lgamma(xp, x + _c(x, 1)) - _lgamma(xp, k)
    return _to(lgammas + _w(k) * _log(xp, p) + _w(x) * _log(xp, _c(x, 1) - p), x)


def _nb_dk(xp, x, k, p):
    """d lpdf / dk, at the wide precision."""
    return _w(_psi(xp, x + k) - _psi(xp, k)) + _log(xp, p)


def _nb_dp(xp, x, k, p):
    return k / p - x / (_c(x, 1) - p)


def _negative_binomial(xp, x, params, is_log):
    lpdf = _nb_lpdf(xp, x, *params)
    return lpdf if is_log else _to(_exp(xp, lpdf), x)


def _negative_binomial_grads(xp, x, params, scaling):
    k, p = params
    return None, [_to(_w(scaling) * _nb_dk(xp, x, k, p), x), scaling * _nb_dp(xp, x, k, p)]


def _gnb_as_nb(x, mu, alpha):
    """The negative binomial's (k, p) = (1 / alpha, 1 / (1 + mu alpha)), and 1 + mu alpha."""
    wide = _wide(x)
    den = _to(_w(mu * alpha) + wide(1), x)
    return _to(wide(1) / _w(alpha), x), _to(wide(1) / _w(den), x), den


def _generalized_negative_binomial(xp, x, params, is_log):
    k, p, _ = _gnb_as_nb(x, *params)
    lpdf = _nb_lpdf(xp, x, k, p)
    return lpdf if is_log else _to(_exp(xp, lpdf), x)


def _generalized_negative_binomial_grads(xp, x, params, scaling):
    # the chain rule through k and p: dk/dalpha = -1 / alpha^2, dp/dmu = -alpha / den^2,
    # dp/dalpha = -mu / den^2 (MXNet's own arrangement of it is not known to the last bit)
    mu, alpha = params
    k, p, den = _gnb_as_nb(x, mu, alpha)
    dk = _to(_w(scaling) * _nb_dk(xp, x, k, p), x)
    dp = scaling * _nb_dp(xp, x, k, p)
    den2 = den * den
    return None, [dp * (-alpha / den2), -(dk / (alpha * alpha) + dp * mu / den2)]


def _in_turn(v, total=None):
    """The sum over the last axis, one element after another (MXNet's loop over the classes);
    with ``total``, each partial sum is stored into that array's dtype."""
    if v.shape[-1] == 0:
        return v.sum(axis=-1).astype(v.dtype if total is None else total.dtype)
    out = v[..., 0] if total is None else _to(v[..., 0], total)
    for j in range(1, v.shape[-1]):
        out = out + v[..., j] if total is None else _to(_w(out) + v[..., j], total)
    return out


def _dirichlet(xp, x, params, is_log):
    alpha, = params
    sum_alpha = _in_turn(alpha)
    sum_lgamma = _in_turn(_lgamma(xp, alpha), x)
    sum_terms = _in_turn(_w(alpha - _c(x, 1)) * _log(xp, x), x)
    lpdf = _to(_w(sum_terms) + (_lgamma(xp, sum_alpha) - _w(sum_lgamma)), x)
    return lpdf if is_log else _to(_exp(xp, lpdf), x)


def _dirichlet_grads(xp, x, params, scaling):
    alpha, = params
    scaling = scaling[..., None]
    psi_sum = _psi(xp, _in_turn(alpha))[..., None]
    return (scaling * (alpha - _c(x, 1)) / x,
            [_to(_w(scaling) * (_log(xp, x) + _w(psi_sum - _psi(xp, alpha))), x)])


# name: (parameter names, density, grads)
_PDFS = {
    'uniform': (('low', 'high'), _uniform, _uniform_grads),
    'normal': (('mu', 'sigma'), _normal, _normal_grads),
    'gamma': (('alpha', 'beta'), _gamma, _gamma_grads),
    'exponential': (('lam',), _exponential, _exponential_grads),
    'poisson': (('lam',), _poisson, _poisson_grads),
    'negative_binomial': (('k', 'p'), _negative_binomial, _negative_binomial_grads),
    'generalized_negative_binomial': (('mu', 'alpha'), _generalized_negative_binomial,
                                      _generalized_negative_binomial_grads),
    'dirichlet': (('alpha',), _dirichlet, _dirichlet_grads),
}

_DESCRIPTIONS = {
    'uniform': 'the uniform distribution on [low, high)',
    'normal': 'the normal distribution of mean mu and standard deviation sigma',
    'gamma': 'the gamma distribution of shape alpha and rate beta',
    'exponential': 'the exponential distribution of rate lam',
    'poisson': 'the Poisson distribution of mean lam',
    'negative_binomial': 'the negative binomial distribution (failures before the k-th success, '
                         'success probability p)',
    'generalized_negative_binomial': 'the generalized negative binomial distribution (mean mu, '
                                     'variance mu + alpha mu^2)',
    'dirichlet': 'the Dirichlet distribution of concentrations alpha (over the last axis)',
}


# Kahan's loop runs in Python, one step per sample element of a parameter; beyond this many
# the sum is taken at float64 and rounded, which is almost always the same number
_KAHAN_STEPS = 4096


def _kahan_sum(xp, g, axes):
    """``g`` summed over ``axes`` as MXNet's reduction does: one element after another, in
    g's dtype, with Kahan's compensation, dropped once the sum is infinite (in float16 this
    is visibly not the rounded exact sum)."""
    keep = [a for a in range(g.ndim) if a not in axes]
    rows = xp.moveaxis(g, list(axes), list(range(g.ndim - len(axes), g.ndim)))
    rows = rows.reshape(tuple(g.shape[a] for a in keep) + (prod(g.shape[a] for a in axes),))
    if rows.shape[-1] > _KAHAN_STEPS:
        return rows.astype(np.float64).sum(axis=-1).astype(g.dtype)
    total = xp.zeros(rows.shape[:-1], dtype=g.dtype)
    carry = xp.zeros_like(total)
    with np.errstate(all='ignore'):
        for j in range(rows.shape[-1]):
            y = rows[..., j] - carry
            t = total + y
            carry = xp.where(xp.isinf(t), g.dtype.type(0), (t - total) - y)
            total = t
    return total


# ================================================================ the operators
def _unknown(shape):
    # MXNet infers nothing until every input has a shape; () is unknown under legacy shapes
    return shape is None or (len(shape) == 0 and not is_np_shape())


class _Pdf(Operator):
    """``_random_pdf_<dist>``: see the module docstring."""
    dist = None
    params = {'is_log': Param('bool', False, doc='return the log-density instead of the density')}

    @property
    def _names(self):
        return _PDFS[self.dist][0]

    @property
    def _vector(self):
        # the Dirichlet's parameter is a vector: the sample's last axis is one point
        return self.dist == 'dirichlet'

    def inputs(self, p):
        return ['sample'] + list(self._names)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        if any(_unknown(s) for s in in_shapes):
            return list(in_shapes), list(out_shapes), aux_shapes
        names = self.inputs(p)
        sample = tuple(in_shapes[0])
        params = tuple(in_shapes[1])
        for name, shape in zip(names[2:], in_shapes[2:]):
            try:
                params = merge_shape(params, shape, self.name)
            except ShapeError:
                raise ShapeError('%s: the parameters must share one shape, but input %r is %s and input %r is %s'
                                 % (self.name, names[1], shape_str(params), name, shape_str(shape))) from None
        if len(params) > len(sample):
            raise ShapeError('%s: input %r has %d dims, more than input %r (%s vs %s)' % (
                self.name, names[1], len(params), 'sample', shape_str(params), shape_str(sample)))
        vec = int(self._vector)
        if vec and not params:
            raise ShapeError('%s: input %r needs at least 1 dim' % (self.name, names[1]))
        wanted = sample[:len(params) - vec] + sample[len(sample) - vec:]
        for name, shape in zip(names[1:], in_shapes[1:]):
            try:
                merge_shape(wanted, shape, self.name)
            except ShapeError:
                raise ShapeError('%s: input %r has shape %s, but input %r of shape %s needs %s' % (
                    self.name, name, shape_str(shape), 'sample', shape_str(sample), shape_str(wanted))) from None
        params = merge_shape(params, wanted, self.name)
        out = merge_shape(out_shapes[0], self._out_shape(sample), self.name + ' output')
        return [sample] + [params] * len(names[1:]), [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        names = self.inputs(p)
        known = next((t for t in list(in_types) + list(out_types) if t is not None), None)
        for name, t in zip(names + ['output'], list(in_types) + list(out_types)):
            if t is not None and np.dtype(t) != np.dtype(known):
                raise TypeInferError('%s: %s %r is %s, but the first known dtype is %s (all inputs and the '
                                     'output share one)' % (self.name, 'output' if name == 'output' else 'input',
                                                            name, np.dtype(t).name, np.dtype(known).name))
        return [known] * len(in_types), [known] * len(out_types), aux_types

    # ------------------------------------------------------------- computation
    def _check(self, inputs):
        self.infer_shape(None, [x.shape for x in inputs], [None], [])
        self.infer_type(None, [x.dtype for x in inputs], [None], [])
        if inputs[0].dtype.kind != 'f':
            raise TypeInferError('%s: input %r is %s; only floating point types are supported'
                                 % (self.name, 'sample', inputs[0].dtype.name))

    def _spread(self, inputs):
        """The parameters reshaped to broadcast against the sample (its extra axes as 1s)."""
        sample = inputs[0]
        nparam = inputs[1].ndim
        extra = sample.ndim - nparam
        out = []
        for x in inputs[1:]:
            if self._vector:
                out.append(x.reshape(x.shape[:-1] + (1,) * extra + x.shape[-1:]))
            else:
                out.append(x.reshape(x.shape + (1,) * extra))
        return out

    def forward(self, p, env, inputs, aux):
        self._check(inputs)
        xp, x = env.xp, inputs[0]
        density = _PDFS[self.dist][1]
        with np.errstate(all='ignore'):
            out = density(xp, x, self._spread(inputs), p.is_log)
        out = xp.asarray(out, dtype=x.dtype).reshape(self._out_shape(x.shape))
        return [xp.ascontiguousarray(out)]

    def _out_shape(self, sample_shape):
        """The sample's shape; the Dirichlet's drops the last axis ((1,) if none is left)."""
        if self._vector:
            return tuple(sample_shape[:-1]) or (1,)
        return tuple(sample_shape)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x = env.xp, inputs[0]
        head = out_grads[0]
        vec_shape = x.shape[:x.ndim - 1] if self._vector else x.shape
        out = outputs[0].reshape(vec_shape)
        head = head.reshape(vec_shape).astype(x.dtype, copy=False)
        scaling = head if p.is_log else head * out
        with np.errstate(all='ignore'):
            g_sample, g_params = _PDFS[self.dist][2](xp, x, self._spread(inputs), scaling)
        grads = [xp.zeros_like(x) if g_sample is None else xp.broadcast_to(g_sample, x.shape).astype(x.dtype)]
        # a parameter's gradient: its per-sample gradients summed over the sample's extra axes
        nparam = inputs[1].ndim
        extra = x.ndim - nparam
        first = nparam - int(self._vector)
        axes = tuple(range(first, first + extra))
        for param, g in zip(inputs[1:], g_params):
            g = xp.broadcast_to(g, x.shape).astype(x.dtype)
            grads.append(_kahan_sum(xp, g, axes).reshape(param.shape))
        return grads


def _pdf_class(dist):
    names = _PDFS[dist][0]
    doc = ('The density of %s at each element of ``sample`` (``is_log``: its logarithm); inputs '
           'sample, %s.' % (_DESCRIPTIONS[dist], ', '.join(names)))
    return type('Pdf_' + dist, (_Pdf,), {'name': '_random_pdf_' + dist, 'aliases': ('random_pdf_' + dist,),
                                          'dist': dist, '__doc__': doc})


for _dist in _PDFS:
    register(_pdf_class(_dist))
del _dist
