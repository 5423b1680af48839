"""Tests for reflib/operator/sampling.py, mx.random / mx.nd.random and mx.sym.random.

MXNet's random streams cannot be matched number for number, so:

1. names, arguments, outputs, attributes, inferred shapes and dtypes, result shapes and
   dtypes and refused calls against MXNet 1.9.1 (tests/golden/ops_sampling.json, written
   by tests/golden/gen_ops_sampling.py: the same expressions evaluated in both);
2. each distribution's mean and variance within a few standard errors of the exact
   ones, with fixed seeds (a correct sampler fails such a check with probability well
   below 1e-4 per moment; the seeds make the outcome fixed);
3. determinism under mx.random.seed, and the multinomial's log-probability gradient.
"""

import json
import os

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError
from reflib.test_utils import op_forward
from device import get
from op_golden import GOLDEN_DIR

with open(os.path.join(GOLDEN_DIR, 'ops_sampling.json')) as _f:
    GOLDEN = json.load(_f)
ENV = {'mx': mx, 'S': mx.sym, 'R': mx.nd.random, 'nd': mx.nd}
DISTRIBUTIONS = ['uniform', 'normal', 'gamma', 'exponential', 'poisson', 'negative_binomial',
                 'generalized_negative_binomial']


def _dtype_names(types):
    return [None if t is None else np.dtype(t).name for t in types]


# ================================================================ against MXNet's answers
@pytest.mark.parametrize('case', GOLDEN['symbols'], ids=lambda c: c['text'])
def test_symbols_as_mxnet_builds_them(case):
    with mx.sym.NameManager():
        sym = eval(case['text'], ENV)
    node = json.loads(sym.tojson())['nodes'][-1]
    assert sym.name == node['name'] == case['name']       # a two-output node's name too
    assert sym.list_arguments() == case['arguments']
    assert sym.list_outputs() == case['outputs']
    assert node['op'] == case['op']
    assert node.get('attrs', {}) == case['attrs']
    args, outs, _ = sym.infer_shape_partial(**{k: tuple(v) for k, v in case['shapes'].items()})
    assert [list(s) if s else [] for s in args] == case['arg_shapes']
    assert [list(s) if s else [] for s in outs] == case['out_shapes']
    targs, touts, _ = sym.infer_type(**case['types'])
    assert _dtype_names(targs) == case['arg_types'] and _dtype_names(touts) == case['out_types']


@pytest.mark.parametrize('case', GOLDEN['arrays'], ids=lambda c: c['text'])
def test_arrays_have_mxnets_shapes_and_dtypes(case):
    got = eval(case['text'], ENV)
    got = got if isinstance(got, list) else [got]
    assert [list(a.shape) for a in got] == case['shapes']
    assert [np.dtype(a.dtype).name for a in got] == case['dtypes']


@pytest.mark.parametrize('case', GOLDEN['errors'], ids=lambda c: c['text'])
def test_refused_as_in_mxnet(case):
    """Refused where MXNet refuses: at the call (parameters, shapes, dtypes), or, for what is
    checked while drawing, at the wait on the result (reflib/engine.py)."""
    if case['when'] == 'call':
        with pytest.raises(MXNetError):
            eval(case['text'], ENV)
        return
    result = eval(case['text'], ENV)
    with pytest.raises(MXNetError):
        result.wait_to_read()
    result.wait_to_read()         # raised once, as MXNet's engine does


def test_every_sampler_is_registered_under_mxnets_names():
    for dist in DISTRIBUTIONS:
        for name in ('_random_' + dist, 'random_' + dist, '_sample_' + dist, 'sample_' + dist):
            assert mx.operator.get(name).name in ('_random_' + dist, '_sample_' + dist), name
        assert mx.operator.get('_random_%s_like' % dist).name == '_random_%s_like' % dist
        for namespace in (mx.sym.random, mx.nd.random):
            assert callable(getattr(namespace, dist)) and callable(getattr(namespace, dist + '_like'))
    for name in ('_random_randint', '_sample_multinomial', '_shuffle'):
        assert mx.operator.get(name).name == name


# ================================================================ distributions
N = 40000


def moments_check(x, mean, var, z=5.0):
    """Sample mean and variance within ``z`` standard errors of the exact ones."""
    x = np.asarray(x, dtype=np.float64).ravel()
    n = x.size
    assert abs(x.mean() - mean) < z * np.sqrt(var / n), (x.mean(), mean)
    # the variance of the sample variance is (m4 - var^2) / n; m4 estimated from the sample
    m4 = ((x - x.mean()) ** 4).mean()
    assert abs(x.var() - var) < z * np.sqrt(max(m4 - var * var, 1e-12) / n), (x.var(), var)


@pytest.mark.parametrize('dist,params,mean,var', [
    ('uniform', {'low': -1.0, 'high': 3.0}, 1.0, 16 / 12),
    ('normal', {'loc': 2.0, 'scale': 0.5}, 2.0, 0.25),
    ('gamma', {'alpha': 2.5, 'beta': 0.4}, 1.0, 2.5 * 0.16),
    ('exponential', {'lam': 4.0}, 0.25, 1 / 16),
    ('poisson', {'lam': 3.5}, 3.5, 3.5),
    ('negative_binomial', {'k': 3, 'p': 0.4}, 3 * 0.6 / 0.4, 3 * 0.6 / 0.16),
    ('generalized_negative_binomial', {'mu': 2.0, 'alpha': 0.5}, 2.0, 2.0 + 0.5 * 4.0),
    ('generalized_negative_binomial', {'mu': 2.0, 'alpha': 0.0}, 2.0, 2.0),
])
def test_random_moments(dist, params, mean, var):
    (x,), _ = op_forward('_random_' + dist, [], dict(params, shape=(N,)), seed=11)
    assert x.dtype == np.float32 and x.shape == (N,)
    moments_check(x, mean, var)


@pytest.mark.parametrize('dist,params,mean,var', [
    ('uniform', {'low': 2.0, 'high': 4.0}, 3.0, 4 / 12),
    ('exponential', {'lam': 0.5}, 2.0, 4.0),
    ('negative_binomial', {'k': 2, 'p': 0.5}, 2.0, 4.0),
])
def test_random_like_moments(dist, params, mean, var):
    """``_random_<dist>_like`` draws with the data's shape and dtype (its values unread)."""
    data = np.full((N // 4, 4), np.nan, dtype=np.float64)
    (x,), _ = op_forward('_random_%s_like' % dist, [data], params, seed=12)
    assert x.dtype == np.float64 and x.shape == data.shape
    moments_check(x, mean, var)


def test_random_uniform_stays_in_its_interval():
    (x,), _ = op_forward('_random_uniform', [], {'low': -1.0, 'high': 3.0, 'shape': (N,)}, seed=2)
    assert x.min() >= -1 and x.max() < 3


def test_randint_covers_its_range_evenly():
    (x,), _ = op_forward('_random_randint', [], {'low': -2, 'high': 3, 'shape': (N,)}, seed=3)
    assert x.dtype == np.int32 and set(np.unique(x)) == {-2, -1, 0, 1, 2}
    moments_check(x, 0.0, (5 * 5 - 1) / 12)


@pytest.mark.parametrize('dist,inputs,mean,var', [
    ('uniform', [[0.0, 10.0], [1.0, 14.0]], [0.5, 12.0], [1 / 12, 16 / 12]),
    ('normal', [[0.0, -3.0], [1.0, 0.1]], [0.0, -3.0], [1.0, 0.01]),
    ('gamma', [[1.0, 4.0], [2.0, 0.5]], [2.0, 2.0], [4.0, 1.0]),
    ('exponential', [[1.0, 0.5]], [1.0, 2.0], [1.0, 4.0]),
    ('poisson', [[0.5, 6.0]], [0.5, 6.0], [0.5, 6.0]),
    ('negative_binomial', [[2.0, 5.0], [0.5, 0.8]], [2.0, 1.25], [4.0, 1.25 / 0.8]),
    ('generalized_negative_binomial', [[1.0, 3.0], [1.0, 0.2]], [1.0, 3.0], [2.0, 3.0 + 0.2 * 9]),
])
def test_sample_moments_per_parameter_element(dist, inputs, mean, var):
    """``_sample_*`` draws ``shape`` values for each parameter element, with that element's law."""
    arrays = [np.array(x, dtype=np.float32) for x in inputs]
    (x,), _ = op_forward('_sample_' + dist, arrays, {'shape': (N // 2,)}, seed=5)
    assert x.shape == (2, N // 2) and x.dtype == np.float32
    for row, m, v in zip(x, mean, var):
        moments_check(row, m, v)


def test_multinomial_frequencies_and_log_probabilities():
    probs = np.array([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]], dtype=np.float32)
    (index, logp), _ = op_forward('_sample_multinomial', [probs], {'shape': (N // 2,), 'get_prob': True}, seed=8)
    assert index.dtype == np.int32 and logp.dtype == np.float32 and index.shape == (2, N // 2)
    for row, p in zip(index, probs):
        counts = np.bincount(row, minlength=3) / row.size
        np.testing.assert_allclose(counts, p, atol=5 * np.sqrt(0.25 / row.size))
    np.testing.assert_allclose(logp, np.log(np.take_along_axis(probs, index, axis=1)), rtol=1e-6)


def test_multinomial_gradient_is_that_of_the_log_probabilities():
    """MXNet's backward: the head of output 1 over p at each drawn index, summed per index."""
    probs = np.array([[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]])
    op = get('_sample_multinomial')
    p = op.parse_params({'shape': (6,), 'get_prob': True})
    outs, _ = op_forward('_sample_multinomial', [probs], {'shape': (6,), 'get_prob': True}, seed=1)
    head = np.random.default_rng(0).normal(size=(2, 6))
    grad = op.backward(p, mx.operator.OpEnv(mx.cpu()), [None, head], [probs], outs, [])[0]
    want = np.zeros_like(probs)
    for b in range(2):
        for s in range(6):
            want[b, outs[0][b, s]] += head[b, s] / probs[b, outs[0][b, s]]
    np.testing.assert_allclose(grad, want, rtol=1e-12)


def test_shuffle_permutes_the_first_axis():
    data = np.arange(40.0).reshape(20, 2)
    (out,), _ = op_forward('_shuffle', [data], {}, seed=4)
    assert not np.array_equal(out, data)
    np.testing.assert_array_equal(np.sort(out[:, 0]), data[:, 0])
    np.testing.assert_array_equal(out[:, 1], out[:, 0] + 1)       # rows move whole


def test_sample_gradients_are_zero():
    op = get('_sample_normal')
    p = op.parse_params({'shape': (3,)})
    mu, sigma = np.zeros(2), np.ones(2)
    grads = op.backward(p, mx.operator.OpEnv(mx.cpu()), [np.ones((2, 3))], [mu, sigma], [np.ones((2, 3))], [])
    assert all(np.array_equal(g, np.zeros(2)) for g in grads)


# ================================================================ seeding
@pytest.mark.parametrize('draw', [
    lambda: mx.nd.random.uniform(shape=(5,)),
    lambda: mx.nd.random.gamma(2.0, 1.0, shape=(5,)),
    lambda: mx.nd.random.negative_binomial(2, 0.5, shape=(5,)),
    lambda: mx.nd.random.multinomial(mx.nd.array([0.3, 0.7]), shape=5),
    lambda: mx.nd.random.normal(mx.nd.zeros((2,)), mx.nd.ones((2,)), shape=3),
])
def test_the_same_seed_gives_the_same_numbers(draw):
    mx.random.seed(123)
    first = draw().asnumpy()
    second = draw().asnumpy()
    mx.random.seed(123)
    np.testing.assert_array_equal(draw().asnumpy(), first)
    assert not np.array_equal(first, second)


def test_a_symbol_draws_anew_each_forward_and_repeats_after_seeding():
    sym = mx.sym.random.normal(shape=(0, 3)) * mx.sym.var('x')
    exe = sym.simple_bind(mx.cpu(), x=(2, 3))
    exe.arg_dict['x'][:] = 1
    mx.random.seed(9)
    first = exe.forward()[0].asnumpy()
    second = exe.forward()[0].asnumpy()
    mx.random.seed(9)
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), first)
    assert first.shape == (2, 3) and not np.array_equal(first, second)


def test_out_fills_the_given_array():
    out = mx.nd.zeros((2, 3), dtype='float64')
    got = mx.nd.random.uniform(-1, 1, out=out)
    assert got is out and out.asnumpy().min() >= -1 and np.unique(out.asnumpy()).size == 6
