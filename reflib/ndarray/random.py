"""Seeded random numbers: ``mx.nd.random`` (and ``mx.random``, which re-exports it, as MXNet's
does; reflib/random.py).

MXNet keeps one random generator per device.  reflib does the same: each Context gets a
``numpy.random.Generator`` (or cupy's on a gpu) created from the global seed and the
device, so runs are repeatable once seeded.  The numbers differ from MXNet's (different
generators); everything that tests numbers against MXNet therefore feeds in explicit
arrays instead, and the samplers are tested by their distributions.

The functions here are MXNet's front ends over the sampling operators
(reflib/operator/sampling.py): with number parameters ``uniform(0, 1, shape=(2, 3))``
runs ``_random_uniform`` (shape ``(1,)`` when neither ``shape`` nor ``out`` is given); with
NDArray parameters ``uniform(low, high, shape=(4,))`` runs ``_sample_uniform``, ``shape``
draws per parameter element.  ``exponential`` takes the *scale* (1 / rate), as in MXNet.
``uniform_like(data, low=0, high=1)`` and its siblings draw an array of ``data``'s shape
and dtype (``exponential_like`` takes the rate ``lam``: it is the operator itself).
"""

import numbers

import numpy as np

from ..base import ParamError
from ..context import Context, current_context
from ..generators import generator, seed  # noqa: F401  (mx.random.seed, as in MXNet)
from .ndarray import NDArray
from .op_functions import invoke as _invoke

_DISTRIBUTIONS = ('uniform', 'normal', 'gamma', 'exponential', 'poisson', 'negative_binomial',
                  'generalized_negative_binomial')
__all__ = ['seed', 'generator', 'randn', 'randint', 'multinomial', 'shuffle'] + list(_DISTRIBUTIONS) + [
    d + '_like' for d in _DISTRIBUTIONS]

_UNSET = object()


# ================================================================ MXNet's front ends
def _draw(dist, params, shape, dtype, ctx, out, kwargs):
    """``_random_<dist>`` for number parameters, ``_sample_<dist>`` for NDArray ones."""
    values = list(params.values())
    if isinstance(values[0], NDArray):
        if not all(isinstance(v, NDArray) for v in values):
            raise ParamError('random.%s: the parameters must be all NDArrays or all numbers, got %s'
                             % (dist, [type(v).__name__ for v in values]))
        extra = {} if shape is _UNSET else {'shape': shape}
        if dtype is not _UNSET:
            extra['dtype'] = dtype
        return _invoke('_sample_' + dist, *values, out=out, **extra, **kwargs)
    if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values):
        raise ParamError('random.%s: the parameters must be all NDArrays or all numbers, got %s'
                         % (dist, [type(v).__name__ for v in values]))
    return _invoke('_random_' + dist, **params, **_where(shape, dtype, ctx, out), out=out, **kwargs)


def _where(shape, dtype, ctx, out):
    """shape, dtype and ctx of a number-parameter draw: given, else ``out``'s, else (1,), float32."""
    ctx = Context(ctx) if ctx is not None else (out.context if out is not None else current_context())
    if shape is _UNSET:
        shape = out.shape if out is not None else (1,)
    elif isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    extra = {'shape': tuple(shape), 'ctx': ctx}
    if dtype is not _UNSET and dtype is not None:
        extra['dtype'] = np.dtype(dtype).name
    elif out is not None:
        extra['dtype'] = np.dtype(out.dtype).name
    return extra


def uniform(low=0, high=1, shape=_UNSET, dtype=_UNSET, ctx=None, out=None, **kwargs):
    """Draws from the uniform distribution on [low, high)."""
    return _draw('uniform', {'low': low, 'high': high}, shape, dtype, ctx, out, kwargs)


def normal(loc=0, scale=1, shape=_UNSET, dtype=_UNSET, ctx=None, out=None, **kwargs):
    """Draws from the normal distribution (mean loc, standard deviation scale)."""
    params = {'mu': loc, 'sigma': scale} if _is_array(loc) else {'loc': loc, 'scale': scale}
    return _draw('normal', params, shape, dtype, ctx, out, kwargs)


def randn(*shape, **kwargs):
    """Standard normal draws of the given shape: ``randn(2, 3, loc=0, scale=1)``."""
    loc, scale = kwargs.pop('loc', 0), kwargs.pop('scale', 1)
    dtype, ctx, out = kwargs.pop('dtype', _UNSET), kwargs.pop('ctx', None), kwargs.pop('out', None)
    return normal(loc, scale, shape, dtype, ctx, out, **kwargs)


def gamma(alpha=1, beta=1, shape=_UNSET, dtype=_UNSET, ctx=None, out=None, **kwargs):
    """Draws from the gamma distribution (shape alpha, scale beta)."""
    return _draw('gamma', {'alpha': alpha, 'beta': beta}, shape, dtype, ctx, out, kwargs)


def exponential(scale=1, shape=_UNSET, dtype=_UNSET, ctx=None, out=None, **kwargs):
    """Draws from the exponential distribution of mean ``scale`` (rate 1 / scale)."""
    return _draw('exponential', {'lam': 1.0 / scale}, shape, dtype, ctx, out, kwargs)


def poisson(lam=1, shape=_UNSET, dtype=_UNSET, ctx=None, out=None, **kwargs):
    """Draws from the Poisson distribution of mean ``lam`` (as floats)."""
    return _draw('poisson', {'lam': lam}, shape, dtype, ctx, out, kwargs)


def negative_binomial(k=1, p=1, shape=_UNSET, dtype=_UNSET, ctx=None, out=None, **kwargs):
    """The number of failures before the k-th success, success probability p (as floats)."""
    return _draw('negative_binomial', {'k': k, 'p': p}, shape, dtype, ctx, out, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=_UNSET, dtype=_UNSET, ctx=None, out=None, **kwargs):
    """Counts of mean mu and variance mu + alpha mu^2 (as floats)."""
    return _draw('generalized_negative_binomial', {'mu': mu, 'alpha': alpha}, shape, dtype, ctx, out, kwargs)


def randint(low, high, shape=_UNSET, dtype=_UNSET, ctx=None, out=None, **kwargs):
    """Integers drawn uniformly from [low, high) (int32 unless dtype says int64)."""
    for v in (low, high):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise ParamError('random.randint: low and high must be integers, got %r' % (v,))
    return _invoke('_random_randint', low=int(low), high=int(high), **_where(shape, dtype, ctx, out),
                   out=out, **kwargs)


def multinomial(data, shape=_UNSET, get_prob=False, out=None, dtype='int32', **kwargs):
    """Indices drawn from the distributions in the last axis of ``data``; with ``get_prob``
    also their log-probabilities."""
    extra = {} if shape is _UNSET else {'shape': shape}
    return _invoke('_sample_multinomial', data, get_prob=get_prob, dtype=dtype, out=out, **extra, **kwargs)


def shuffle(data, **kwargs):
    """A copy of ``data`` with its first axis shuffled."""
    return _invoke('_shuffle', data, **kwargs)


def _is_array(value):
    return isinstance(value, NDArray)


def _like(dist):
    def draw_like(data=None, out=None, **params):
        return _invoke('_random_%s_like' % dist, data, out=out, **params)
    draw_like.__name__ = dist + '_like'
    draw_like.__doc__ = 'Draws from %s, shaped and typed like ``data``.' % dist
    return draw_like


for _dist in _DISTRIBUTIONS:
    globals()[_dist + '_like'] = _like(_dist)
del _dist
