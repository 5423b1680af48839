"""``mx.sym.random``: MXNet's symbolic samplers.

With number parameters ``uniform(0, 1, shape=(2, 3))`` is a ``_random_uniform`` node; with
Symbol parameters ``uniform(low, high, shape=(4,))`` a ``_sample_uniform`` node drawing
``shape`` values per parameter element.  Unlike ``mx.nd.random``, no shape means a shape
left to inference, and ``multinomial`` returns the log-probabilities too by default
(``get_prob=True``), both as in MXNet.  ``uniform_like(data, low=0, high=1)`` and its
siblings draw an array shaped like ``data`` (``exponential_like`` takes the rate ``lam``).
"""

import numbers

from ..base import ParamError
from .symbol import Symbol, invoke
from .linalg import short_named

_DISTRIBUTIONS = ('uniform', 'normal', 'gamma', 'exponential', 'poisson', 'negative_binomial',
                  'generalized_negative_binomial')
__all__ = ['randn', 'randint', 'multinomial', 'shuffle'] + list(_DISTRIBUTIONS) + [
    d + '_like' for d in _DISTRIBUTIONS]

_UNSET = object()


def _node(dist, params, shape, dtype, kwargs):
    values = list(params.values())
    extra = {} if shape is _UNSET else {'shape': shape}
    if dtype is not _UNSET:
        extra['dtype'] = dtype
    if isinstance(values[0], Symbol):
        if not all(isinstance(v, Symbol) for v in values):
            raise ParamError('sym.random.%s: the parameters must be all Symbols or all numbers, got %s'
                             % (dist, [type(v).__name__ for v in values]))
        return invoke('_sample_' + dist, *values, **extra, **kwargs)
    if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values):
        raise ParamError('sym.random.%s: the parameters must be all Symbols or all numbers, got %s'
                         % (dist, [type(v).__name__ for v in values]))
    return invoke('_random_' + dist, **params, **extra, **kwargs)


def uniform(low=0, high=1, shape=_UNSET, dtype=_UNSET, **kwargs):
    """Draws from the uniform distribution on [low, high)."""
    return _node('uniform', {'low': low, 'high': high}, shape, dtype, kwargs)


def normal(loc=0, scale=1, shape=_UNSET, dtype=_UNSET, **kwargs):
    """Draws from the normal distribution (mean loc, standard deviation scale)."""
    params = {'mu': loc, 'sigma': scale} if isinstance(loc, Symbol) else {'loc': loc, 'scale': scale}
    return _node('normal', params, shape, dtype, kwargs)


def randn(*shape, **kwargs):
    """Standard normal draws of the given shape: ``randn(2, 3, loc=0, scale=1)``."""
    loc, scale, dtype = kwargs.pop('loc', 0), kwargs.pop('scale', 1), kwargs.pop('dtype', _UNSET)
    return normal(loc, scale, shape, dtype, **kwargs)


def gamma(alpha=1, beta=1, shape=_UNSET, dtype=_UNSET, **kwargs):
    """Draws from the gamma distribution (shape alpha, scale beta)."""
    return _node('gamma', {'alpha': alpha, 'beta': beta}, shape, dtype, kwargs)


def exponential(scale=1, shape=_UNSET, dtype=_UNSET, **kwargs):
    """Draws from the exponential distribution of mean ``scale`` (rate 1 / scale)."""
    return _node('exponential', {'lam': 1.0 / scale}, shape, dtype, kwargs)


def poisson(lam=1, shape=_UNSET, dtype=_UNSET, **kwargs):
    """Draws from the Poisson distribution of mean ``lam``."""
    return _node('poisson', {'lam': lam}, shape, dtype, kwargs)


def negative_binomial(k=1, p=1, shape=_UNSET, dtype=_UNSET, **kwargs):
    """The number of failures before the k-th success, success probability p."""
    return _node('negative_binomial', {'k': k, 'p': p}, shape, dtype, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=_UNSET, dtype=_UNSET, **kwargs):
    """Counts of mean mu and variance mu + alpha mu^2."""
    return _node('generalized_negative_binomial', {'mu': mu, 'alpha': alpha}, shape, dtype, kwargs)


def randint(low, high, shape=_UNSET, dtype=_UNSET, **kwargs):
    """Integers drawn uniformly from [low, high)."""
    extra = {} if shape is _UNSET else {'shape': shape}
    if dtype is not _UNSET:
        extra['dtype'] = dtype
    return invoke('_random_randint', low=low, high=high, **extra, **kwargs)


def multinomial(data, shape=_UNSET, get_prob=True, dtype='int32', **kwargs):
    """Indices drawn from the distributions in the last axis of ``data`` (and, by default,
    their log-probabilities as a second output)."""
    extra = {} if shape is _UNSET else {'shape': shape}
    return invoke('_sample_multinomial', data, get_prob=get_prob, dtype=dtype, **extra, **kwargs)


def shuffle(data, **kwargs):
    """``data`` with its first axis in a random order."""
    return invoke('_shuffle', data, **kwargs)


# uniform_like(data, low, high), ...: the _random_<dist>_like operators, nodes named uniform_like0
for _dist in _DISTRIBUTIONS:
    globals()[_dist + '_like'] = short_named('_random_%s_like' % _dist, _dist + '_like')
del _dist
