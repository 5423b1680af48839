"""Random samplers: ``_random_*`` (parameters are numbers), ``_sample_*`` (parameters are
arrays), ``_sample_multinomial`` and ``_shuffle``.

``_random_uniform(low=0, high=1, shape=(2, 3))`` draws an array of ``shape``; a 0 in the
shape (or no shape) is left to shape inference, as for ``_zeros``.  ``_random_uniform_like(data)``
draws an array of ``data``'s shape and dtype.  ``_sample_uniform(low,
high, shape=(4,))`` draws ``shape`` values for every element of the parameter arrays: the
output shape is the parameters' shape followed by ``shape``.  The output dtype is ``dtype``,
float32 when it is None (whatever the parameters' dtype, as in MXNet).

Every draw comes from the generator of the operator's context (:mod:`reflib.random`, seeded
by ``mx.random.seed``), through its primitive streams only (``random``, ``standard_normal``,
``standard_exponential``, ``standard_gamma``, ``poisson``, ``integers``), the ones cupy's
``Generator`` shares with numpy's, so that numpy and cupy run the same code.  The numbers differ from MXNet's (other generators);
the distributions are the same:

=============================  ================================================
uniform(low, high)             on [low, high)
normal(loc, scale)             mean loc, standard deviation scale
gamma(alpha, beta)             shape alpha, scale beta (mean alpha beta)
exponential(lam)               rate lam (mean 1/lam)
poisson(lam)                   mean lam
negative_binomial(k, p)        failures before the k-th success, success prob. p
generalized_negative_binomial  mean mu, variance mu + alpha mu^2 (a gamma-mixed
(mu, alpha)                    poisson; alpha 0 is poisson(mu))
randint(low, high)             integers in [low, high)
=============================  ================================================

No gradient flows into the ``_sample_*`` parameters (MXNet gives zeros); ``_sample_multinomial``
with ``get_prob`` passes the gradient of the log-probabilities it returns to ``data``.
"""

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape, prod
from .common import shape_str, scatter_add, to_host
from ..base import ComputeError, ShapeError, TypeInferError

_FLOATS = ('None', 'float16', 'float32', 'float64')


class _Long(Param):
    """A whole number within int64 (MXNet's ``long`` parameters: randint's bounds)."""
    __slots__ = ()

    def _parse_base(self, base, value):
        if isinstance(value, (bool, np.bool_)):
            raise TypeError(value)
        if isinstance(value, str):
            if not value.strip().lstrip('+-').isdigit():
                raise ValueError(value)
            value = int(value.strip())
        elif not isinstance(value, (int, np.integer)):
            raise TypeError(value)
        value = int(value)
        if not -2 ** 63 <= value < 2 ** 63:
            raise ValueError(value)
        return value


def _out_dtype(p, default='float32'):
    return np.dtype(default if p.dtype == 'None' else p.dtype)


# ================================================================ distributions
# each draws float64 values of ``size`` from generator ``gen``; parameters are numbers or
# arrays broadcastable to ``size``
def _uniform(xp, gen, size, low, high):
    return low + (high - low) * gen.random(size)


def _normal(xp, gen, size, loc, scale):
    return loc + scale * gen.standard_normal(size)


def _gamma(xp, gen, size, alpha, beta):
    return beta * gen.standard_gamma(xp.broadcast_to(xp.asarray(alpha, dtype=np.float64), size))


def _exponential(xp, gen, size, lam):
    return gen.standard_exponential(size) / lam


def _poisson(xp, gen, size, lam):
    return gen.poisson(xp.broadcast_to(xp.asarray(lam, dtype=np.float64), size)).astype(np.float64)


def _negative_binomial(xp, gen, size, k, p):
    # a poisson whose rate is gamma(k, (1 - p) / p): the failures before the k-th success
    k = xp.broadcast_to(xp.asarray(k, dtype=np.float64), size)
    p = xp.broadcast_to(xp.asarray(p, dtype=np.float64), size)
    rate = gen.standard_gamma(xp.maximum(k, 1e-300)) * (1 - p) / p
    return xp.where(k > 0, _poisson(xp, gen, size, xp.where(k > 0, rate, 0)), 0.0)


def _generalized_negative_binomial(xp, gen, size, mu, alpha):
    # a poisson whose rate is gamma(1 / alpha, alpha mu): mean mu, variance mu + alpha mu^2
    mu = xp.broadcast_to(xp.asarray(mu, dtype=np.float64), size)
    alpha = xp.broadcast_to(xp.asarray(alpha, dtype=np.float64), size)
    safe = xp.where(alpha > 0, alpha, 1.0)
    rate = xp.where(alpha > 0, gen.standard_gamma(1 / safe) * safe * mu, mu)
    return _poisson(xp, gen, size, rate)


_DISTRIBUTIONS = {
    'uniform': (_uniform, ('low', 'high'), {'low': 0.0, 'high': 1.0}),
    'normal': (_normal, ('loc', 'scale'), {'loc': 0.0, 'scale': 1.0}),
    'gamma': (_gamma, ('alpha', 'beta'), {'alpha': 1.0, 'beta': 1.0}),
    'exponential': (_exponential, ('lam',), {'lam': 1.0}),
    'poisson': (_poisson, ('lam',), {'lam': 1.0}),
    'negative_binomial': (_negative_binomial, ('k', 'p'), {'k': 1, 'p': 1.0}),
    'generalized_negative_binomial': (_generalized_negative_binomial, ('mu', 'alpha'), {'mu': 1.0, 'alpha': 1.0}),
}
# the names the array forms give their inputs (MXNet's _sample_normal takes mu and sigma)
_SAMPLE_INPUTS = {'uniform': ('low', 'high'), 'normal': ('mu', 'sigma'), 'gamma': ('alpha', 'beta'),
                  'exponential': ('lam',), 'poisson': ('lam',), 'negative_binomial': ('k', 'p'),
                  'generalized_negative_binomial': ('mu', 'alpha')}


def _check_numbers(op, dist, p):
    """MXNet's checks on the number parameters of ``_random_<dist>``.  MXNet makes them while
    drawing, so the error comes at the next wait on the result (reflib/engine.py)."""
    def bad(what):
        raise ComputeError('%s: %s' % (op, what))
    if dist == 'uniform' and p.high < p.low:
        bad('low (%s) must not be above high (%s)' % (p.low, p.high))
    if dist == 'normal' and not p.scale > 0:
        bad('scale must be positive, got %s' % p.scale)
    if dist == 'gamma' and not (p.alpha > 0 and p.beta > 0):
        bad('alpha and beta must be positive, got alpha=%s, beta=%s' % (p.alpha, p.beta))
    if dist == 'exponential' and not p.lam > 0:
        bad('lam must be positive, got %s' % p.lam)
    if dist == 'poisson' and not p.lam >= 0:
        bad('lam must not be negative, got %s' % p.lam)
    if dist == 'generalized_negative_binomial' and not (p.mu >= 0 and p.alpha >= 0):
        bad('mu and alpha must not be negative, got mu=%s, alpha=%s' % (p.mu, p.alpha))


def _draw_into(env, shape, dtype, values_of):
    """The planned output (or a new array) of ``shape`` filled with ``values_of(shape)``."""
    target = env.target(0)
    shape = tuple(target.shape) if target is not None else tuple(shape)
    values = values_of(shape).astype(dtype)
    if target is None:
        return values
    target[...] = values
    return target


# ================================================================ number parameters
class _Random(Operator):
    """``_random_<dist>``: no inputs, parameters are numbers."""
    eliminable = False
    dist = None

    def inputs(self, p):
        return []

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        given = tuple(p.shape) if p.shape else None
        return [], [merge_shape(out_shapes[0], given, self.name)], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return [], [_out_dtype(p)], aux_types

    def forward(self, p, env, inputs, aux):
        rng = env.rng       # first: the operator writes the device's random state even when it fails
        _check_numbers(self.name, self.dist, p)
        fn, names, _ = _DISTRIBUTIONS[self.dist]
        if env.target(0) is None and not (p.shape and all(d > 0 for d in p.shape)):
            raise ShapeError('%s: the output shape is unknown: give shape (got %s)'
                             % (self.name, shape_str(p.shape)))
        args = [getattr(p, n) for n in names]
        return [_draw_into(env, p.shape, _out_dtype(p), lambda size: fn(env.xp, rng, size, *args))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return []


def _random_params(dist):
    _, names, defaults = _DISTRIBUTIONS[dist]
    params = {n: Param('int' if isinstance(defaults[n], int) else 'float', defaults[n]) for n in names}
    params.update({
        'shape': Param('shape', None, doc='the output shape; 0s are left to inference', low=0),
        'ctx': Param('str', '', doc='the device (the executor or the caller decides it here)'),
        'dtype': Param('enum', 'None', choices=_FLOATS, doc='element type; None: float32'),
    })
    return params


def _random_class(dist):
    return type('Random_' + dist, (_Random,), {
        'name': '_random_' + dist, 'aliases': ('random_' + dist,) + (('uniform',) if dist == 'uniform' else ())
        + (('normal',) if dist == 'normal' else ()),
        'dist': dist, 'params': _random_params(dist),
        '__doc__': 'Draws from %s(%s) with number parameters.' % (dist, ', '.join(_DISTRIBUTIONS[dist][1]))})


for _dist in _DISTRIBUTIONS:
    register(_random_class(_dist))


@register
class RandomRandint(_Random):
    """Integers drawn uniformly from [low, high); dtype int32 unless asked for int64."""
    name = '_random_randint'
    aliases = ('random_randint',)
    params = {'low': _Long('long', doc='lowest value'), 'high': _Long('long', doc='one above the highest value'),
              'shape': Param('shape', None, low=0), 'ctx': Param('str', ''),
              'dtype': Param('enum', 'None', choices=('None', 'int32', 'int64'), doc='None: int32')}

    def infer_type(self, p, in_types, out_types, aux_types):
        return [], [_out_dtype(p, 'int32')], aux_types

    def forward(self, p, env, inputs, aux):
        rng = env.rng       # (first, as above)
        if p.high <= p.low:
            raise ComputeError('%s: high (%d) must be above low (%d)' % (self.name, p.high, p.low))
        if env.target(0) is None and not (p.shape and all(d > 0 for d in p.shape)):
            raise ShapeError('%s: the output shape is unknown: give shape (got %s)' % (self.name, shape_str(p.shape)))
        dtype = _out_dtype(p, 'int32')
        return [_draw_into(env, p.shape, dtype, lambda size: rng.integers(p.low, p.high, size=size))]


class _RandomLike(Operator):
    """``_random_<dist>_like``: number parameters, the shape and dtype of the input ``data``
    (whose values are not read; no gradient reaches it)."""
    eliminable = False
    dist = None

    def forward(self, p, env, inputs, aux):
        rng = env.rng       # (first, as above)
        _check_numbers(self.name, self.dist, p)
        fn, names, _ = _DISTRIBUTIONS[self.dist]
        data = inputs[0]
        args = [getattr(p, n) for n in names]
        return [_draw_into(env, data.shape, data.dtype, lambda size: fn(env.xp, rng, size, *args))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(inputs[0])]

    def backward_reads(self, p):
        return [0], []


def _random_like_class(dist):
    _, names, defaults = _DISTRIBUTIONS[dist]
    params = {n: Param('int' if isinstance(defaults[n], int) else 'float', defaults[n]) for n in names}
    return type('RandomLike_' + dist, (_RandomLike,), {
        'name': '_random_%s_like' % dist, 'dist': dist, 'params': params,
        '__doc__': 'Draws from %s(%s), shaped and typed like the input.' % (dist, ', '.join(names))})


for _dist in _DISTRIBUTIONS:
    register(_random_like_class(_dist))


# ================================================================ array parameters
class _Sample(Operator):
    """``_sample_<dist>``: the parameters are arrays of one shape; ``shape`` draws per element."""
    eliminable = False
    dist = None
    params = {'shape': Param('shape', (), doc='draws per parameter element', low=1),
              'dtype': Param('enum', 'None', choices=_FLOATS, doc='element type; None: float32')}

    def inputs(self, p):
        return list(_SAMPLE_INPUTS[self.dist])

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        known = None
        for name, shape in zip(self.inputs(p), in_shapes):
            known = merge_shape(known, shape, '%s (input %r)' % (self.name, name))
        out = out_shapes[0]
        if known is not None:
            out = merge_shape(out, tuple(known) + tuple(p.shape), self.name + ' output')
        elif out is not None and len(out) > len(p.shape):
            known = tuple(out[:len(out) - len(p.shape)])
        return [known] * len(in_shapes), [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        known = next((t for t in in_types if t is not None), None)
        for name, t in zip(self.inputs(p), in_types):
            if t is not None and np.dtype(t) != np.dtype(known):
                raise TypeInferError('%s: input %r is %s but %r is %s' % (
                    self.name, name, np.dtype(t).name, self.inputs(p)[0], np.dtype(known).name))
        return [known] * len(in_types), [_out_dtype(p)], aux_types

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        self.infer_shape(p, [x.shape for x in inputs], [None], [])
        self.infer_type(p, [x.dtype for x in inputs], [None], [])
        extra = (1,) * len(p.shape)
        args = [x.astype(np.float64).reshape(x.shape + extra) for x in inputs]
        fn = _DISTRIBUTIONS[self.dist][0]
        size = tuple(inputs[0].shape) + tuple(p.shape)
        return [_draw_into(env, size, _out_dtype(p), lambda s: fn(xp, env.rng, s, *args))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(x) for x in inputs]


def _sample_class(dist):
    return type('Sample_' + dist, (_Sample,), {
        'name': '_sample_' + dist, 'aliases': ('sample_' + dist,), 'dist': dist,
        '__doc__': 'Draws from %s(%s) for each element of the parameter arrays.'
                   % (dist, ', '.join(_SAMPLE_INPUTS[dist]))})


for _dist in _DISTRIBUTIONS:
    register(_sample_class(_dist))
del _dist


@register
class SampleMultinomial(Operator):
    """Indices drawn from the categorical distributions in the last axis of ``data``.

    The output shape is ``data.shape[:-1] + shape`` (``(1,)`` for one distribution and no
    ``shape``); with ``get_prob`` a second output holds the log-probability of each draw, in
    ``data``'s dtype, and its gradient reaches ``data`` as ``1 / p`` at the drawn index.
    """
    eliminable = False
    name = '_sample_multinomial'
    aliases = ('sample_multinomial',)
    params = {'shape': Param('shape', (), doc='draws per distribution', low=1),
              'get_prob': Param('bool', False, doc='also return the log-probability of each draw'),
              'dtype': Param('enum', 'int32', choices=('float16', 'float32', 'float64', 'int32', 'uint8'),
                             doc='element type of the drawn indices')}

    def outputs(self, p):
        return ['output0', 'output1'] if p.get_prob else ['output']

    def _out_shape(self, p, data):
        return (tuple(data[:-1]) + tuple(p.shape)) or (1,)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        if data is not None and len(data) < 1:
            raise ShapeError("%s: input 'data' must have at least 1 dim, got %s" % (self.name, shape_str(data)))
        out = out_shapes[0]
        if data is not None:
            out = merge_shape(out, self._out_shape(p, data), self.name)
        return [data], [out] * len(out_shapes), aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        data = in_types[0]
        return [data], [np.dtype(p.dtype)] + [data] * (len(out_types) - 1), aux_types

    def forward(self, p, env, inputs, aux):
        xp, data = env.xp, inputs[0]
        self.infer_shape(p, [data.shape], [None] * len(self.outputs(p)), [])
        k = data.shape[-1]
        rows = data.reshape(-1, k).astype(np.float64)
        n = prod(p.shape)
        u = env.rng.random((rows.shape[0], n))
        # the first index whose cumulative probability exceeds the uniform draw
        cdf = xp.cumsum(rows, axis=1)
        index = (cdf[:, None, :] <= u[:, :, None]).sum(axis=2)
        index = xp.minimum(index, k - 1)
        shape = self._out_shape(p, data.shape)
        outs = [index.reshape(shape).astype(p.dtype)]
        if p.get_prob:
            picked = xp.take_along_axis(rows, index, axis=1)
            outs.append(xp.log(picked).reshape(shape).astype(data.dtype))
        return outs

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data = env.xp, inputs[0]
        grad = xp.zeros(data.shape, dtype=data.dtype)
        if not p.get_prob or out_grads[1] is None:
            return [grad]
        k = data.shape[-1]
        rows = data.reshape(-1, k)
        index = outputs[0].reshape(rows.shape[0], -1).astype(np.int64)
        head = out_grads[1].reshape(index.shape)
        picked = xp.take_along_axis(rows, index, axis=1)
        flat = grad.reshape(-1, k)
        row_ids = xp.broadcast_to(xp.arange(rows.shape[0])[:, None], index.shape)
        scatter_add(xp, flat, (row_ids.ravel(), index.ravel()), (head / picked).ravel())
        return [grad]


@register
class SampleUniqueZipfian(Operator):
    """Per row of ``shape`` = (batch, k): k *distinct* classes in [0, range_max) drawn from the
    log-uniform (Zipfian) distribution ``P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)``,
    and how many draws each row took to find them: the candidates of sampled softmax
    (``mx.nd.contrib.rand_zipfian`` is the version with repeats).  Draws repeat until a row
    has k distinct classes, so the count is decided draw by draw on the host."""
    eliminable = False
    blocks_gradient = True
    name = '_sample_unique_zipfian'
    params = {'range_max': Param('int', doc='classes are 0 .. range_max - 1', low=1),
              'shape': Param('shape', doc='(batch, how many distinct classes per row)')}

    def inputs(self, p):
        return []

    def outputs(self, p):
        return ['samples', 'num_tries']

    def _check(self, p):
        if len(p.shape) != 2 or p.shape[1] > p.range_max:
            raise ShapeError('%s: shape must be (batch, k) with k <= range_max=%d distinct classes, got %s'
                             % (self.name, p.range_max, shape_str(p.shape)))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        self._check(p)
        return [], [merge_shape(out_shapes[0], tuple(p.shape), self.name),
                    merge_shape(out_shapes[1], (p.shape[0],), self.name)], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return [], [np.dtype(np.int64)] * 2, aux_types

    def forward(self, p, env, inputs, aux):
        self._check(p)
        batch, k = p.shape
        log_range = np.log(p.range_max + 1.0)
        samples = np.empty((batch, k), dtype=np.int64)
        tries = np.empty(batch, dtype=np.int64)
        for row in range(batch):
            drawn, chunk = np.empty(0, dtype=np.int64), 2 * k
            while True:
                u = to_host(env.rng.random(chunk))
                drawn = np.concatenate([drawn, (np.exp(u * log_range) - 1).astype(np.int64) % p.range_max])
                first, where = np.unique(drawn, return_index=True)
                if len(first) >= k:
                    break
                chunk *= 2
            # the classes in the order first met; the draw that met the k-th decides the count
            order = np.sort(where)[:k]
            samples[row], tries[row] = drawn[order], order[-1] + 1
        return [env.xp.asarray(samples), env.xp.asarray(tries)]


@register
class Shuffle(Operator):
    """The input with its first axis in a random order (MXNet gives it no gradient)."""
    eliminable = False
    name = '_shuffle'
    aliases = ('shuffle',)

    def forward(self, p, env, inputs, aux):
        data = inputs[0]
        # the order of uniform keys: cupy's Generator has no ``permutation``
        perm = env.xp.argsort(env.rng.random(data.shape[0]), kind='stable')
        return [env.xp.ascontiguousarray(data[perm])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        raise TypeError('_shuffle: the operator has no gradient (as in MXNet)')
