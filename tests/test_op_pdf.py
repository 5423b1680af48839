"""Tests for reflib/operator/pdf.py: the probability densities ``_random_pdf_*``.

1. outputs and gradients against MXNet 1.9.1's (tests/golden/ops_pdf.npz, written by
   tests/golden/gen_ops_pdf.py): every density, ``is_log`` both ways, float64, float32 and
   float16, ordinary and edge values (NaNs, infinities and digamma's poles where MXNet has
   them), also through a bound symbol;
2. symbol names and attributes, shape and type inference and the refused calls, as MXNet;
3. gradients against finite differences for the sample and every parameter;
4. bad input refused with the operator and the input named.
"""

import json
import math
import os

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError, ShapeError, TypeInferError
from reflib.operator import OpEnv
from reflib.test_utils import check_op_gradient
from device import get, CTX
from op_golden import GOLDEN_DIR

with np.load(os.path.join(GOLDEN_DIR, 'ops_pdf.npz')) as _npz:
    ARRAYS = {k: _npz[k] for k in _npz.files}
META = json.loads(str(ARRAYS['meta']))
CASES = META['cases']
ENV = {'S': mx.sym, 'nd': mx.nd, 'mx': mx}
DISTS = ['uniform', 'normal', 'gamma', 'exponential', 'poisson', 'negative_binomial',
         'generalized_negative_binomial', 'dirichlet']
PARAMS = {'uniform': ['low', 'high'], 'normal': ['mu', 'sigma'], 'gamma': ['alpha', 'beta'],
          'exponential': ['lam'], 'poisson': ['lam'], 'negative_binomial': ['k', 'p'],
          'generalized_negative_binomial': ['mu', 'alpha'], 'dirichlet': ['alpha']}
# float64 and float32 agree with MXNet to the last bit but for a few units in the last place
# (scipy's lgamma against the C library's, the generalized negative binomial's gradients:
# at most 1.1e-14 and 9e-7 relative here); float16 keeps float32 between some operations
# where MXNet rounds to half precision after each (at most 4e-3)
TOLERANCES = {'float64': (1e-12, 1e-12), 'float32': (1e-5, 1e-6), 'float16': (1e-2, 1e-3)}


def unpack(i):
    """{'in': [...], 'out': [...], 'head': [...], 'grad': [...]} of golden case ``i``."""
    flat, shapes, at, parts = ARRAYS['c%d' % i], CASES[i]['shapes'], 0, {}
    for key in META['parts']:
        parts[key] = []
        for shape in shapes[key]:
            size = int(np.prod(shape, dtype=np.int64))
            parts[key].append(flat[at:at + size].reshape(shape))
            at += size
    return parts


def case_id(i):
    c = CASES[i]
    return '%d-%s-%s%s' % (i, c['dist'], c['dtype'], '-log' if c['attrs'].get('is_log') == 'True' else '')


def assert_close(got, want, dtype, what):
    got = np.asarray(got)
    assert got.dtype == want.dtype, '%s is %s, MXNet gives %s' % (what, got.dtype, want.dtype)
    assert got.shape == want.shape, '%s has shape %s, MXNet gives %s' % (what, got.shape, want.shape)
    rtol, atol = TOLERANCES[dtype]
    # NaN where MXNet has NaN, the same infinities, the rest close
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                               equal_nan=True, err_msg=what)


# ================================================================ 1. MXNet's numbers
@pytest.mark.parametrize('i', range(len(CASES)), ids=case_id)
def test_outputs_and_gradients_as_mxnet(i):
    case, parts = CASES[i], unpack(i)
    op = get(case['op'])
    p = op.parse_params(case['attrs'])            # the strings MXNet writes into its JSON
    assert op.inputs(p) == case['input_names']
    env = OpEnv(CTX, is_train=True)
    outs = op.forward(p, env, [x.copy() for x in parts['in']], [])
    assert_close(outs[0], parts['out'][0], case['dtype'], 'output')
    grads = op.backward(p, env, parts['head'], parts['in'], [parts['out'][0]], [])
    for name, got, want in zip(op.inputs(p), grads, parts['grad']):
        assert_close(got, want, case['dtype'], 'gradient of %r' % name)


def test_golden_covers_every_density_dtype_and_is_log():
    seen = {(c['dist'], c['dtype'], c['attrs'].get('is_log', 'False')) for c in CASES}
    assert seen == {(d, t, l) for d in DISTS for t in ('float64', 'float32', 'float16') for l in ('False', 'True')}


@pytest.mark.parametrize('i', [i for i, c in enumerate(CASES) if c['dtype'] == 'float32'][::3],
                         ids=case_id)
def test_a_bound_symbol_gives_mxnets_numbers(i):
    case, parts = CASES[i], unpack(i)
    names = ['in%d' % j for j in range(len(parts['in']))]
    sym = getattr(mx.sym, 'random_pdf_' + case['dist'])(*[mx.sym.var(n) for n in names], **case['attrs'])
    args = {n: mx.nd.array(x, dtype=x.dtype) for n, x in zip(names, parts['in'])}
    grads = {n: mx.nd.zeros(x.shape, dtype=x.dtype) for n, x in zip(names, parts['in'])}
    exe = sym.bind(mx.cpu(), args, args_grad=grads)
    out = exe.forward(is_train=True)[0].asnumpy()
    assert_close(out, parts['out'][0], 'float32', 'output')
    exe.backward([mx.nd.array(parts['head'][0], dtype=parts['head'][0].dtype)])
    for n, want in zip(names, parts['grad']):
        assert_close(grads[n].asnumpy(), want, 'float32', 'gradient of %s' % n)


def test_digamma_is_mxnets_at_its_poles_and_in_float64():
    # k = 0 puts both digammas at their pole: MXNet's is the largest float64 there, so in
    # float64 the gradient for k is log(p) (not NaN) at x = 0, and -1.8e308 at x = 2
    op = mx.operator.get('_random_pdf_negative_binomial')
    p = op.parse_params({'is_log': True})
    env = OpEnv(mx.cpu())
    x, k, prob = np.array([[0.0]]), np.array([0.0]), np.array([0.3])
    out = op.forward(p, env, [x, k, prob], [])
    grads = op.backward(p, env, [np.ones((1, 1))], [x, k, prob], out, [])
    assert grads[1][0] == math.log(0.3)
    grads = op.backward(p, env, [np.ones((1, 1))], [np.array([[2.0]]), k, prob], out, [])
    assert grads[1][0] == -np.finfo(np.float64).max
    grads32 = op.backward(p, env, [np.ones((1, 1), np.float32)], [a.astype(np.float32) for a in (x, k, prob)],
                          [o.astype(np.float32) for o in out], [])
    assert np.isnan(grads32[1][0])
    # MXNet's digamma takes its logarithm in float32: psi(1.5) through the gamma's alpha gradient
    op = mx.operator.get('_random_pdf_gamma')
    p = op.parse_params({'is_log': True})
    one = np.ones((1, 1))
    grads = op.backward(p, env, [one], [one, np.array([1.5]), np.array([1.0])], [one], [])
    assert -grads[1][0] == 0.03649005823050411            # exactly 0.036489973978576520...


def test_mxnet_calls_give_mxnets_values():
    for k, text in enumerate(META['calls']):
        got = eval(text, ENV).asnumpy()
        want = ARRAYS['call%d' % k]
        assert got.shape == want.shape and got.dtype == want.dtype, text
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=text)


# ================================================================ 2. names, shapes, types
@pytest.mark.parametrize('case', META['symbols'], ids=lambda c: c['text'])
def test_symbols_as_mxnet_builds_them(case):
    with mx.sym.NameManager():
        sym = eval(case['text'], ENV)
    node = json.loads(sym.tojson())['nodes'][-1]
    assert sym.name == case['name']
    assert sym.list_arguments() == case['arguments']
    assert sym.list_outputs() == case['outputs']
    assert node['op'] == case['op']
    assert node.get('attrs', {}) == case['attrs']


def test_the_namespaces_hold_mxnets_names():
    names = META['names']
    for space, obj in (('sym', mx.sym), ('nd', mx.nd)):
        assert set(names[space]) <= set(dir(obj)), space
    # MXNet 1.9.1 puts no pdf_* into mx.sym.random / mx.nd.random, and neither does reflib
    for space, obj in (('sym.random', mx.sym.random), ('nd.random', mx.nd.random)):
        assert names[space] == [] and not [n for n in dir(obj) if 'pdf' in n], space
    for dist in DISTS:
        assert mx.operator.get('random_pdf_' + dist) is mx.operator.get('_random_pdf_' + dist)


def _listed(shapes):
    return None if shapes is None else [list(s) if s else [] for s in shapes]


@pytest.mark.parametrize('case', META['shapes'], ids=lambda c: '%s-%s' % (c['dist'], c['given']))
def test_shape_inference_as_mxnet(case):
    sym = getattr(mx.sym, 'random_pdf_' + case['dist'])(name='pdf')
    given = {'pdf_' + k: tuple(v) for k, v in case['given'].items()}
    if 'error' in case:
        with pytest.raises(ShapeError, match='_random_pdf_%s' % case['dist']):
            sym.infer_shape_partial(**given)
        return
    args, outs, _ = sym.infer_shape_partial(**given)
    assert _listed(args) == case['arguments']
    assert _listed(outs) == case['outputs']


@pytest.mark.parametrize('case', META['types'], ids=lambda c: '%s-%s' % (c['dist'], c['given']))
def test_type_inference_as_mxnet(case):
    sym = getattr(mx.sym, 'random_pdf_' + case['dist'])(name='pdf')
    given = {'pdf_' + k: v for k, v in case['given'].items()}
    if 'error' in case:
        with pytest.raises(TypeInferError, match="_random_pdf_%s: input '" % case['dist']):
            sym.infer_type(**given)
        return
    args, outs, _ = sym.infer_type(**given)
    assert [np.dtype(t).name for t in args] == case['arguments']
    assert [np.dtype(t).name for t in outs] == case['outputs']


@pytest.mark.parametrize('case', META['errors'], ids=lambda c: c['text'])
def test_refused_as_in_mxnet(case):
    with pytest.raises(MXNetError):
        eval(case['text'], ENV).wait_to_read()


# ================================================================ 3. finite differences
def _ordinary(dist, rng, pshape=(2, 3), extra=(4,)):
    """Inputs away from the edges of the support, in float64."""
    full = pshape + extra

    def u(lo, hi, shape=pshape):
        return rng.uniform(lo, hi, size=shape)
    if dist == 'uniform':
        low = u(-2, 0)
        return [rng.uniform(0, 1, size=full), low, low + u(1.5, 3)]
    if dist == 'normal':
        return [rng.normal(size=full), u(-1, 1), u(0.5, 2)]
    if dist == 'gamma':
        return [rng.uniform(0.3, 3, size=full), u(0.5, 3), u(0.5, 2)]
    if dist == 'exponential':
        return [rng.uniform(0, 3, size=full), u(0.5, 2)]
    counts = rng.randint(0, 6, size=full).astype(np.float64)
    if dist == 'poisson':
        return [counts, u(0.5, 4)]
    if dist == 'negative_binomial':
        return [counts, u(0.5, 4), u(0.2, 0.8)]
    if dist == 'generalized_negative_binomial':
        return [counts, u(0.5, 4), u(0.2, 2)]
    alpha = u(0.5, 3, shape=(2, 3))
    return [rng.dirichlet(4 * np.ones(3), size=(2, 4)), alpha]     # no point near an edge


# The checks keep check_op_gradient's rtol 1e-4: MXNet's digamma, and so every gradient
# through it, is off by up to a few 1e-6 relative.  The counting distributions' samples are
# whole numbers: no gradient to check there (MXNet gives 0, as for the uniform, whose density
# does not depend on the sample).
SAMPLE_GRADIENT = {'normal', 'gamma', 'exponential', 'dirichlet'}


@pytest.mark.parametrize('is_log', [False, True], ids=['density', 'log'])
@pytest.mark.parametrize('dist', DISTS)
def test_gradients_match_finite_differences(dist, is_log):
    inputs = _ordinary(dist, np.random.RandomState(3))
    n = len(inputs)
    which = list(range(n)) if dist in SAMPLE_GRADIENT or dist == 'uniform' else list(range(1, n))
    grads = check_op_gradient('_random_pdf_' + dist, inputs, {'is_log': is_log}, grad_inputs=which)
    if dist not in SAMPLE_GRADIENT:
        assert not np.any(grads[0])


def test_one_sample_per_distribution_and_the_dirichlets_shapes():
    rng = np.random.RandomState(4)
    for dist in DISTS:
        inputs = _ordinary(dist, rng, pshape=(5,), extra=())
        if dist == 'dirichlet':
            inputs = [rng.dirichlet(4 * np.ones(3), size=5), rng.uniform(0.5, 3, size=(5, 3))]
        check_op_gradient('_random_pdf_' + dist, inputs, {'is_log': True},
                          grad_inputs=None if dist in SAMPLE_GRADIENT else list(range(1, len(inputs))))
    # one point of the simplex and its alpha: a (1,) output
    out = mx.nd.random_pdf_dirichlet(mx.nd.array([0.2, 0.8]), mx.nd.array([1.0, 3.0]))
    assert out.shape == (1,)
    np.testing.assert_allclose(out.asnumpy(), [math.gamma(4) / math.gamma(3) * 0.8 ** 2], rtol=1e-6)


def test_densities_are_the_textbook_ones():
    x = np.array([[0.0, 1.0, 2.0, 5.0]])

    def run(dist, *params, is_log=False):
        args = [mx.nd.array(x, dtype='float64')] + [mx.nd.array([v], dtype='float64') for v in params]
        return getattr(mx.nd, 'random_pdf_' + dist)(*args, is_log=is_log).asnumpy()[0]
    lg = math.lgamma
    want = {
        'uniform': (lambda v: 1 / 7, (-1.0, 6.0)),
        'normal': (lambda v: math.exp(-(v - 1) ** 2 / 8) / math.sqrt(8 * math.pi), (1.0, 2.0)),
        'gamma': (lambda v: 0.0 if v == 0 else 1.5 ** 2 * v * math.exp(-1.5 * v), (2.0, 1.5)),
        'exponential': (lambda v: 0.5 * math.exp(-0.5 * v), (0.5,)),
        'poisson': (lambda v: math.exp(v * math.log(3) - 3 - lg(v + 1)), (3.0,)),
        'negative_binomial': (lambda v: math.exp(lg(v + 2.5) - lg(v + 1) - lg(2.5)) * 0.4 ** 2.5 * 0.6 ** v,
                              (2.5, 0.4)),
        'generalized_negative_binomial': (
            lambda v: math.exp(lg(v + 2) - lg(v + 1) - lg(2)) * 0.4 ** 2 * 0.6 ** v, (3.0, 0.5)),
    }
    for dist, (pdf, params) in want.items():
        expected = np.array([pdf(v) for v in x[0]])
        np.testing.assert_allclose(run(dist, *params), expected, rtol=1e-6, atol=1e-12, err_msg=dist)
        with np.errstate(divide='ignore'):
            np.testing.assert_allclose(run(dist, *params, is_log=True), np.log(expected), rtol=1e-6, err_msg=dist)


def test_large_samples_sum_their_gradients_without_the_loop():
    from reflib.operator import pdf
    rng = np.random.RandomState(5)
    x = rng.normal(size=(2, pdf._KAHAN_STEPS + 10))
    mu, sigma = np.zeros(2), np.ones(2)
    op, env = mx.operator.get('_random_pdf_normal'), OpEnv(mx.cpu())
    p = op.parse_params({'is_log': True})
    out = op.forward(p, env, [x, mu, sigma], [])
    grads = op.backward(p, env, [np.ones_like(x)], [x, mu, sigma], out, [])
    np.testing.assert_allclose(grads[1], x.sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(grads[2], (x * x - 1).sum(axis=1), rtol=1e-12)


# ================================================================ 4. bad input
def test_bad_input_names_the_operator_and_the_input():
    s, m, v = mx.sym.var('s'), mx.sym.var('m'), mx.sym.var('v')
    normal = mx.sym.random_pdf_normal(s, m, v)
    with pytest.raises(ShapeError, match=r"_random_pdf_normal: the parameters must share one shape, but input "
                                         r"'mu' is \(2,3\) and input 'sigma' is \(2,\)"):
        normal.infer_shape(s=(2, 3, 4), m=(2, 3), v=(2,))
    with pytest.raises(ShapeError, match=r"_random_pdf_normal: input 'mu' has shape \(3,\), but input 'sample' "
                                         r"of shape \(2,3,4\) needs \(2,\)"):
        normal.infer_shape(s=(2, 3, 4), m=(3,), v=(3,))
    with pytest.raises(ShapeError, match=r"_random_pdf_normal: input 'mu' has 2 dims, more than input 'sample'"):
        normal.infer_shape(s=(2,), m=(2, 3), v=(2, 3))
    with pytest.raises(ShapeError, match=r"_random_pdf_dirichlet: input 'alpha' has shape \(2,5\), but input "
                                         r"'sample' of shape \(2,3,4\) needs \(2,4\)"):
        mx.sym.random_pdf_dirichlet(s, m).infer_shape(s=(2, 3, 4), m=(2, 5))
    with pytest.raises(TypeInferError, match=r"_random_pdf_normal: input 'mu' is float64"):
        normal.infer_type(s='float32', m='float64', v='float64')
    with pytest.raises(TypeInferError, match=r"_random_pdf_poisson: input 'sample' is int32; only floating"):
        mx.nd.random_pdf_poisson(mx.nd.array([[1, 2]], dtype='int32'), mx.nd.array([2], dtype='int32'))
    with pytest.raises(MXNetError, match="is_log"):
        mx.nd.random_pdf_normal(mx.nd.ones((1, 2)), mx.nd.zeros((1,)), mx.nd.ones((1,)), is_log='maybe')
    with pytest.raises(ShapeError, match=r"_random_pdf_exponential: input 'lam' has shape \(3,\)"):
        mx.nd.random_pdf_exponential(mx.nd.ones((2, 4)), mx.nd.ones((3,)))
