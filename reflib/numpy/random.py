"""``mx.np.random``: NumPy-style random draws (``size=``, not ``shape=``), from the generators
``mx.random.seed`` seeds, through the same registry samplers as ``mx.nd.random``.

``size=None`` draws one value (an array of shape ``()``).  The distribution parameters are
numbers here (MXNet also takes arrays that broadcast; reflib does not, and says so); passing
``shape=`` is a TypeError, as in MXNet.
"""

import numbers

import numpy as _onp

from ..context import current_context
from ..ndarray.ndarray import _call_operator
from ..util import np_shape as _np_shape
from .multiarray import _check, _into, _np, _nd_shape, _to_shape, ndarray, arange, array

__all__ = ['uniform', 'normal', 'randn', 'randint', 'choice', 'multinomial']


def _size(size):
    return () if size is None else _nd_shape(size)


def _sampled(op_name, shape, **params):
    """``op_name``'s draw of ``shape``; the samplers take no ``()``, so one value is drawn as
    shape (1,) and reshaped."""
    return _to_shape(_call_operator(op_name, shape=shape or (1,), **params), shape)


def _numbers(what, **params):
    for name, value in params.items():
        if isinstance(value, ndarray):
            raise NotImplementedError('mx.np.random.%s: an array %s is not supported in reflib; give a '
                                      'number' % (what, name))
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError('mx.np.random.%s: %s must be a number, got %r' % (what, name, value))
    return {k: float(v) for k, v in params.items()}


def _draw(op_name, params, size, dtype, ctx, out):
    with _np_shape():
        result = _sampled(op_name, _size(size), ctx=ctx or current_context(),
                          dtype=_onp.dtype(dtype).name, **params)
    return _into(_np(result), out)


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, out=None):
    """Values drawn uniformly from ``[low, high)``, of shape ``size`` (None: one value),
    float32 unless ``dtype`` says otherwise."""
    params = _numbers('uniform', low=low, high=high)
    return _draw('_random_uniform', params, size, dtype or 'float32', ctx, out)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    """Values drawn from the normal distribution of mean ``loc`` and standard deviation
    ``scale``, of shape ``size`` (None: one value), float32 unless ``dtype`` says otherwise."""
    params = _numbers('normal', loc=loc, scale=scale)
    return _draw('_random_normal', params, size, dtype or 'float32', ctx, out)


def randn(*size, **kwargs):
    """Standard normal values (mean 0, standard deviation 1) of shape ``size`` (the
    dimensions as separate arguments; none: one value), float32."""
    if any(isinstance(d, (tuple, list)) for d in size):
        raise TypeError('mx.np.random.randn: give the dimensions as separate integers, got %r' % (size,))
    return normal(0.0, 1.0, size=size or None, dtype=kwargs.get('dtype'), ctx=kwargs.get('ctx'))


def randint(low, high=None, size=None, dtype=None, ctx=None, out=None):
    """Integers drawn uniformly from ``[low, high)`` (``[0, low)`` without ``high``), of shape
    ``size`` (None: one value), int64 unless ``dtype`` says otherwise."""
    if high is None:
        low, high = 0, low
    for value in (low, high):
        if isinstance(value, bool) or not isinstance(value, (int, _onp.integer)):
            raise TypeError('mx.np.random.randint: low and high must be integers, got %r' % (value,))
    with _np_shape():
        result = _sampled('_random_randint', _size(size), low=int(low), high=int(high),
                          ctx=ctx or current_context(), dtype=_onp.dtype(dtype or 'int64').name)
    return _into(_np(result), out)


def choice(a, size=None, replace=True, p=None, ctx=None, out=None):
    """Values drawn from ``a`` (a 1-d array, or an int n for ``arange(n)``), of shape ``size``
    (None: one value): with replacement unless ``replace=False``, with the probabilities ``p``
    (a 1-d array) when given.  An int ``a`` gives int64 indices."""
    if isinstance(a, ndarray):
        if a.ndim != 1:
            raise ValueError('mx.np.random.choice: a must be 1-dimensional')
        n = a.shape[0]
    elif isinstance(a, (int, _onp.integer)) and not isinstance(a, bool):
        n = int(a)
    else:
        raise TypeError('mx.np.random.choice: a must be an int or a 1-d mx.np.ndarray, got %s'
                        % type(a).__name__)
    shape = _size(size)
    count = int(_onp.prod(shape)) if shape else 1
    ctx = ctx or (a.context if isinstance(a, ndarray) else current_context())
    with _np_shape():
        if p is not None:
            _check(p, 'random.choice')
            if replace is False:
                raise NotImplementedError('mx.np.random.choice: replace=False with p is not supported in '
                                          'reflib')
            picks = _sampled('_sample_multinomial', shape, data=p, dtype='int32')
            picks = _call_operator('Cast', picks, dtype='int64')
        elif replace:
            picks = _sampled('_random_randint', shape, low=0, high=n, ctx=ctx, dtype='int64')
        else:
            if count > n:
                raise ValueError('mx.np.random.choice: cannot take a larger sample than the population '
                                 "when replace=False")
            order = _call_operator('_shuffle', arange(n, dtype='int64', ctx=ctx))
            picks = order[:count].reshape(shape)
        if isinstance(a, ndarray):
            picks = _call_operator('take', a, picks.astype(a.dtype), axis=0)
    return _into(_np(picks), out)


def multinomial(n, pvals, size=None):
    """How many of ``n`` draws from the categories of probabilities ``pvals`` (a list or a
    1-d array) fell into each: shape ``size + (len(pvals),)``, int64, each row summing to n."""
    if isinstance(n, bool) or not isinstance(n, (int, _onp.integer)) or n < 0:
        raise ValueError('mx.np.random.multinomial: n must be a non-negative integer, got %r' % (n,))
    probs = pvals if isinstance(pvals, ndarray) else array(_onp.asarray(pvals, dtype=_onp.float32))
    if probs.ndim != 1:
        raise ValueError('mx.np.random.multinomial: pvals must be 1-dimensional, got shape %s' % (probs.shape,))
    if float(probs.asnumpy()[:-1].sum()) > 1.0 + 1e-6:
        raise ValueError('mx.np.random.multinomial: the probabilities pvals[:-1] sum to more than 1')
    shape, categories = _size(size), probs.shape[0]
    with _np_shape():
        if n == 0:
            counts = _call_operator('_zeros', shape=shape + (categories,), ctx=probs.context, dtype='int64')
        else:
            picks = _call_operator('_sample_multinomial', probs, shape=shape + (n,), dtype='int32')
            hits = _call_operator('one_hot', picks, depth=categories, dtype='int64')
            counts = _call_operator('sum', hits, axis=(len(shape),))
            counts = _to_shape(counts, shape + (categories,))
    return _np(counts)
