"""Record MXNet 1.9.1's probability densities (``_random_pdf_*``) for tests/test_op_pdf.py.

Run with a Python that has ``mxnet==1.9.1`` (the tests do not need it):

    cd tests/golden && python gen_ops_pdf.py

It writes ops_pdf.npz.  Per case ``c<i>`` holds the inputs, the output, the head gradient
and the input gradients, raveled one after another into one array (their shapes are in
``meta['cases']``), in float64, float32 or float16 and for ``is_log`` off or on: each density
on ordinary values in a few shapes, and on edge values (a sample outside the support,
parameters at or beyond the ends of their range) where MXNet's NaNs, infinities and its
digamma's poles show.  In ``meta`` besides ``cases``:

* ``symbols``: the node name, arguments, operator and attributes of symbol expressions;
* ``shapes``: partial shape inference (or the refusal) for given input shapes;
* ``types``: type inference (or the refusal) for given input dtypes;
* ``errors``: mx.nd calls MXNet refuses;
* ``calls``: mx.nd calls MXNet accepts (positional ``is_log``, keywords, ``_internal``), their
  results in ``call<k>``;
* ``names``: which names mx.sym, mx.nd and their ``random`` namespaces have for them.
"""

import json
import os
import re

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_pdf.npz')

DISTS = {'uniform': ('low', 'high'), 'normal': ('mu', 'sigma'), 'gamma': ('alpha', 'beta'),
         'exponential': ('lam',), 'poisson': ('lam',), 'negative_binomial': ('k', 'p'),
         'generalized_negative_binomial': ('mu', 'alpha'), 'dirichlet': ('alpha',)}
inf, nan = np.inf, np.nan


def ordinary(dist, pshape, extra, rng):
    """[sample, parameters...] in float64: parameters of shape ``pshape``, ``extra`` draws
    each (the Dirichlet's ``pshape`` ends with its classes)."""
    def u(lo, hi, shape=pshape):
        return rng.uniform(lo, hi, size=shape)
    full = tuple(pshape) + tuple(extra)

    def spread(p):
        return p.reshape(p.shape + (1,) * len(extra))
    if dist == 'uniform':
        low = u(-2, 1)
        high = low + u(0.5, 3)
        return [spread(low) + (spread(high) - spread(low)) * rng.uniform(0.01, 0.99, size=full), low, high]
    if dist == 'normal':
        mu, sigma = u(-2, 2), u(0.5, 2)
        return [spread(mu) + spread(sigma) * rng.normal(size=full), mu, sigma]
    if dist == 'gamma':
        return [rng.uniform(0.1, 4, size=full), u(0.5, 3), u(0.5, 2)]
    if dist == 'exponential':
        return [rng.uniform(0, 3, size=full), u(0.5, 2)]
    counts = rng.randint(0, 8, size=full).astype(np.float64)
    if dist == 'poisson':
        return [counts, u(0.5, 4)]
    if dist == 'negative_binomial':
        return [counts, u(0.5, 4), u(0.2, 0.8)]
    if dist == 'generalized_negative_binomial':
        return [counts, u(0.5, 4), u(0.2, 2)]
    # dirichlet: pshape = (..., K), samples of shape pshape[:-1] + extra + (K,)
    alpha = u(0.5, 3)
    batch, k = pshape[:-1], pshape[-1]
    sample = rng.dirichlet(np.ones(k), size=tuple(batch) + tuple(extra))
    return [sample, alpha]


# edge values: each row of parameters with a few samples (the sample's last axis)
EDGES = {
    # outside the interval (no check), high == low, high < low, an infinite end
    'uniform': [np.array([[-1, 0.5, 2], [0.5, 0.5, 0.5], [0, 1, 2], [0, 1, 2], [3, -3, 0]]),
                np.array([0, 1, 0.5, 2, -inf]), np.array([1, 1, -0.5, 1, 1])],
    # sigma negative, zero, infinite; x at mu
    'normal': [np.array([[-1, 0, 0.5], [1, 2, 3], [0, 0, 1], [1, 2, -1], [0.5, 0.5, 0.5]]),
               np.array([0, 1, 0, 0, 0.5]), np.array([-1, 0, 0, inf, 2])],
    # x at 0 and below, alpha 1 at x 0 (0 * -inf), alpha at digamma's poles 0 and -1, beta < 0
    'gamma': [np.array([[-1, 0, 0.5], [0, 1, 2], [0.5, 1, 2], [1, 2, 3], [1, 2, 3], [0.5, 1, 2]]),
              np.array([2, 1, 0, -1, 2.5, -2.5]), np.array([3, 1, 1, 1, -3, 2])],
    # x below 0, lam negative and 0
    'exponential': [np.array([[-1, 0, 0.5], [1, 2, 0], [0, 1, 2]]), np.array([2, -2, 0])],
    # non-whole and negative counts (lgamma is log|gamma|), lam 0 and negative
    'poisson': [np.array([[-1, 0, 0.5], [-2.5, 2, 3], [0, 1, 2], [0, 1, 2]]), np.array([2, 2, 0, -2])],
    # k 0 (digamma(0) - digamma(0) at the pole), k negative, p 0, 1 and above 1
    'negative_binomial': [np.array([[0, 1, 2], [0, 1, 2], [0, 1, 2], [0, 1, 2], [0, 1, 2], [-1, 0.5, 3]]),
                          np.array([0, -2.5, 2, 2, 2, 2]), np.array([0.3, 0.5, 0, 1, 1.5, 0.4])],
    # alpha 0 (k infinite) and negative, mu 0 and negative
    'generalized_negative_binomial': [np.array([[0, 1, 2], [0, 1, 2], [0, 1, 2], [0, 1, 2], [-1, 0.5, 3]]),
                                      np.array([2, 2, 0, -2, 1.5]), np.array([0, -0.2, 1, 0.2, 0.7])],
}
DIRICHLET_EDGE = [np.array([[[0.2, 0.8], [0, 1], [0.5, 0.6]], [[0.2, 0.8], [0, 1], [1, 0]],
                            [[0.3, 0.7], [0.9, 0.1], [0.5, 0.5]]]),
                  np.array([[2, 3], [1, 3], [-1.5, 3]])]


def case_list():
    """(dist, dtype, is_log, inputs): ordinary values in every dtype, more shapes in float64,
    edge values in float64 and float32; is_log both ways for the first shape and the edges."""
    rng = np.random.RandomState(7)
    cases = []
    for dist in DISTS:
        for dtype in ('float64', 'float32', 'float16'):
            shapes = ([((2, 3), (4,)), ((3,), ()), ((2,), (2, 3))] if dist != 'dirichlet' else
                      [((2, 3), (4,)), ((4, 3), ()), ((3,), ()), ((2, 2, 2), (3,))])
            if dtype != 'float64':
                shapes = shapes[:1]
            for k, (pshape, extra) in enumerate(shapes):
                inputs = ordinary(dist, pshape, extra, rng)
                for is_log in ((False, True) if k == 0 else (k % 2 == 1,)):
                    cases.append((dist, dtype, is_log, inputs))
            if dtype != 'float16':
                inputs = DIRICHLET_EDGE if dist == 'dirichlet' else EDGES[dist]
                for is_log in (False, True):
                    cases.append((dist, dtype, is_log, inputs))
    return cases


# the arrays of one case, packed into one flat array c<i> (fewer, smaller npz entries)
PARTS = ('in', 'out', 'head', 'grad')


def record_cases(arrays, meta):
    rng = np.random.RandomState(11)
    described = []
    for i, (dist, dtype, is_log, inputs) in enumerate(case_list()):
        names = ['in%d' % j for j in range(len(inputs))]
        sym = getattr(mx.sym, 'random_pdf_' + dist)(*[mx.sym.var(n) for n in names], is_log=is_log, name='node')
        node = json.loads(sym.tojson())['nodes'][-1]
        exe = sym.simple_bind(mx.cpu(), grad_req='write', type_dict={n: dtype for n in names},
                              **{n: x.shape for n, x in zip(names, inputs)})
        xs = [x.astype(dtype) for x in inputs]
        for n, x in zip(names, xs):
            exe.arg_dict[n][:] = x
        out = exe.forward(is_train=True)[0].asnumpy()
        head = rng.normal(size=out.shape).astype(dtype)
        exe.backward([mx.nd.array(head, dtype=dtype)])
        grads = [exe.grad_dict[n].asnumpy() for n in names]
        parts = {'in': xs, 'out': [out], 'head': [head], 'grad': grads}
        arrays['c%d' % i] = np.concatenate([a.ravel() for key in PARTS for a in parts[key]])
        described.append({'dist': dist, 'op': node['op'], 'attrs': node.get('attrs', {}), 'dtype': dtype,
                          'shapes': {key: [list(a.shape) for a in parts[key]] for key in PARTS},
                          'input_names': [n[len('node_'):] for n in
                                          getattr(mx.sym, 'random_pdf_' + dist)(name='node').list_arguments()]})
    meta['cases'] = described
    meta['parts'] = list(PARTS)


SYMBOLS = [
    "S.random_pdf_normal(S.var('x'), S.var('m'), S.var('s'))",
    "S.random_pdf_uniform(S.var('x'), S.var('lo'), S.var('hi'), is_log=True)",
    "S.random_pdf_gamma(S.var('x'), S.var('a'), S.var('b'), True)",
    "S.random_pdf_exponential(S.var('x'), S.var('lam'))",
    "S.random_pdf_poisson(S.var('x'))",
    "S.random_pdf_negative_binomial()",
    "S.random_pdf_generalized_negative_binomial(is_log=False)",
    "S.random_pdf_dirichlet(S.var('x'), S.var('a'), is_log=1)",
    "S._internal._random_pdf_normal(S.var('x'), S.var('m'), S.var('s'), name='pdf')",
]

# (operator, {input: shape}) for partial shape inference
SHAPES = [
    ('normal', {'sample': (2, 3, 4), 'mu': (2, 3), 'sigma': (2, 3)}),
    ('normal', {'sample': (2, 3), 'mu': (2, 3), 'sigma': (2, 3)}),
    ('normal', {'sample': (2, 3, 4), 'mu': (2,), 'sigma': (2,)}),
    ('normal', {'sample': (2, 3, 4), 'mu': (2, 3)}),
    ('normal', {'mu': (2, 3), 'sigma': (2, 3)}),
    ('normal', {'sample': (2, 3), 'mu': (2, 3), 'sigma': (2, 0)}),
    ('normal', {'sample': (2, 0), 'mu': (2, 3), 'sigma': (2, 3)}),
    ('normal', {'sample': (2, 3, 4), 'mu': (2, 4), 'sigma': (2, 4)}),
    ('normal', {'sample': (2,), 'mu': (2, 3), 'sigma': (2, 3)}),
    ('normal', {'sample': (2, 3, 4), 'mu': (2, 3), 'sigma': (2,)}),
    ('exponential', {'sample': (5, 2), 'lam': (5,)}),
    ('exponential', {'sample': (5, 2), 'lam': (2,)}),
    ('poisson', {'sample': (4,)}),
    ('dirichlet', {'sample': (2, 3, 4), 'alpha': (2, 4)}),
    ('dirichlet', {'sample': (2, 4), 'alpha': (2, 4)}),
    ('dirichlet', {'sample': (4,), 'alpha': (4,)}),
    ('dirichlet', {'sample': (2, 5, 4), 'alpha': (4,)}),
    ('dirichlet', {'sample': (2, 3, 4), 'alpha': (2, 5)}),
    ('dirichlet', {'sample': (2, 3, 4), 'alpha': (3, 4)}),
    ('dirichlet', {'sample': (2, 4), 'alpha': (2,)}),
    ('dirichlet', {'sample': (2, 3, 4), 'alpha': (2, 3, 4, 4)}),
    ('dirichlet', {'sample': (2, 3, 4)}),
]

# (operator, {input: dtype})
TYPES = [
    ('normal', {'sample': 'float64'}),
    ('normal', {'mu': 'float16'}),
    ('gamma', {'sample': 'float32', 'alpha': 'float32', 'beta': 'float32'}),
    ('poisson', {'sample': 'int32'}),
    ('normal', {'sample': 'float32', 'mu': 'float64', 'sigma': 'float64'}),
    ('dirichlet', {'sample': 'float64', 'alpha': 'float32'}),
]

ERRORS = [
    "nd.random_pdf_poisson(nd.array([[1, 2]], dtype='int32'), nd.array([2], dtype='int32'))",
    "nd.random_pdf_poisson(nd.array([[1, 2]]), nd.array([2], dtype='float64'))",
    "nd.random_pdf_poisson(nd.array([[1, 2]]), nd.array([2, 3]))",
    "nd.random_pdf_poisson(nd.array([1, 2]), nd.array([[2, 3]]))",
    "nd.random_pdf_normal(nd.array([[1, 2]]), nd.array([2]), nd.array([2, 3]))",
    "nd.random_pdf_normal(nd.array([[1, 2]]), nd.array([2]))",
    "nd.random_pdf_normal(nd.array([[1, 2]]), nd.array([0]), nd.array([1]), is_log=2)",
    "nd.random_pdf_dirichlet(nd.ones((2, 3)), nd.ones((2, 4)))",
]

# mx.nd calls MXNet accepts: the outputs' shapes and values
CALLS = [
    "nd.random_pdf_normal(nd.array([[1, 2]]), nd.array([0]), nd.array([1]), 1)",
    "nd.random_pdf_normal(sample=nd.array([[-2, -1, 0, 1, 2]]), mu=nd.array([0]), sigma=nd.array([1]))",
    "nd.random_pdf_dirichlet(nd.array([0.2, 0.8]), nd.array([1.0, 3.0]), is_log=True)",
    "nd.random_pdf_uniform(nd.array([5.0]), nd.array([0.0]), nd.array([2.0]))",
    "nd._internal._random_pdf_exponential(nd.array([[1.0, 2.0]]), nd.array([2.0]))",
]


def shape_list(shapes):
    return None if shapes is None else [list(s) for s in shapes]


def record_symbols(meta):
    env = {'S': mx.sym, 'nd': mx.nd, 'mx': mx}
    table = []
    for text in SYMBOLS:
        with mx.name.NameManager():
            sym = eval(text, env)
        node = json.loads(sym.tojson())['nodes'][-1]
        table.append({'text': text, 'name': sym.name, 'arguments': sym.list_arguments(),
                      'outputs': sym.list_outputs(), 'op': node['op'], 'attrs': node.get('attrs', {})})
    meta['symbols'] = table


def _refusal(e):
    """MXNet's message, its clock time taken out (the file stays the same when rerun)."""
    lines = [l for l in str(e).splitlines() if 'Error' in l or 'Check failed' in l]
    return re.sub(r'\[\d\d:\d\d:\d\d\] ', '', (lines or [str(e)])[-1])[:300]


def record_inference(meta):
    shapes = []
    for dist, given in SHAPES:
        sym = getattr(mx.sym, 'random_pdf_' + dist)(name='pdf')
        kw = {'pdf_' + k: v for k, v in given.items()}
        try:
            args, outs, _ = sym.infer_shape_partial(**kw)
            shapes.append({'dist': dist, 'given': given, 'arguments': shape_list(args),
                           'outputs': shape_list(outs)})
        except mx.base.MXNetError as e:
            shapes.append({'dist': dist, 'given': given, 'error': _refusal(e)})
    meta['shapes'] = shapes
    types = []
    for dist, given in TYPES:
        sym = getattr(mx.sym, 'random_pdf_' + dist)(name='pdf')
        kw = {'pdf_' + k: v for k, v in given.items()}
        try:
            args, outs, _ = sym.infer_type(**kw)
            types.append({'dist': dist, 'given': given,
                          'arguments': [None if t is None else np.dtype(t).name for t in args],
                          'outputs': [None if t is None else np.dtype(t).name for t in outs]})
        except mx.base.MXNetError as e:
            types.append({'dist': dist, 'given': given, 'error': _refusal(e)})
    meta['types'] = types


def record_calls(meta, arrays):
    env = {'nd': mx.nd, 'mx': mx}
    errors = []
    for text in ERRORS:
        try:
            eval(text, env).wait_to_read()
        except mx.base.MXNetError as e:
            errors.append({'text': text, 'mxnet': _refusal(e)})
        else:
            raise AssertionError('MXNet accepts ' + text)
    meta['errors'] = errors
    calls = []
    for k, text in enumerate(CALLS):
        out = eval(text, env)
        arrays['call%d' % k] = out.asnumpy()
        calls.append(text)
    meta['calls'] = calls
    meta['names'] = {space: sorted(n for n in dir(obj) if 'pdf' in n)
                     for space, obj in (('sym', mx.sym), ('nd', mx.nd), ('sym.random', mx.sym.random),
                                        ('nd.random', mx.nd.random))}


def main():
    assert mx.__version__ == '1.9.1', mx.__version__
    arrays, meta = {}, {'mxnet_version': mx.__version__}
    with np.errstate(all='ignore'):
        record_cases(arrays, meta)
    record_symbols(meta)
    record_inference(meta)
    record_calls(meta, arrays)
    arrays['meta'] = np.array(json.dumps(meta, sort_keys=True))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d symbols, %d shapes, %d types, %d errors, %d bytes'
          % (OUT, len(meta['cases']), len(meta['symbols']), len(meta['shapes']), len(meta['types']),
             len(meta['errors']), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
