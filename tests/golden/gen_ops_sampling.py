"""Record what MXNet 1.9.1's samplers look like (not their numbers): names, shapes, dtypes.

Run with a Python that has ``mxnet==1.9.1`` (the tests do not need it):

    cd tests/golden && python gen_ops_sampling.py

MXNet's random streams cannot be matched, so tests/test_op_sampling.py checks the
distributions statistically; this file pins down everything else.  Each case is a Python
expression evaluated with ``mx``, ``S`` (mx.sym), ``R`` (mx.nd.random) and ``nd`` (mx.nd)
bound; the test evaluates the same text with reflib.  It writes ops_sampling.json:

* ``symbols``: per expression, the node's name, arguments, outputs, last node's operator
  and attributes, and the shapes and dtypes inference gives for the given inputs;
* ``arrays``: per expression, the shape and dtype of each array mx.nd returns;
* ``errors``: expressions MXNet refuses, and whether at the call or at the wait on the result.
"""

import json
import os

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'ops_sampling.json')

SYMBOLS = [
    ("S.random.uniform(shape=(2, 3))", {}, {}),
    ("S.random.normal(loc=1.0, scale=2.0, shape=(4,), dtype='float64')", {}, {}),
    ("S.random.gamma(alpha=2.0, beta=0.5, shape=(3,))", {}, {}),
    ("S.random.exponential(scale=2.0, shape=(3,))", {}, {}),
    ("S.random.poisson(lam=3.0, shape=(3,), dtype='float16')", {}, {}),
    ("S.random.negative_binomial(k=3, p=0.4, shape=(3,))", {}, {}),
    ("S.random.generalized_negative_binomial(mu=2.0, alpha=0.5, shape=(3,))", {}, {}),
    ("S.random.randint(0, 5, shape=(3,))", {}, {}),
    ("S.random.randint(-3, 5, shape=(2, 2), dtype='int64')", {}, {}),
    ("S.random.randn(2, 3)", {}, {}),
    ("S.random.uniform(S.var('lo'), S.var('hi'), shape=(4,))", {'lo': (2,)}, {'lo': 'float64', 'hi': 'float64'}),
    ("S.random.normal(S.var('mu'), S.var('sigma'))", {'mu': (2, 3)}, {'mu': 'float16', 'sigma': 'float16'}),
    ("S.random.gamma(S.var('a'), S.var('b'), shape=(2, 2), dtype='float64')", {'a': (3,)},
     {'a': 'float32', 'b': 'float32'}),
    ("S.random.exponential(S.var('s'))", {'s': (3,)}, {'s': 'float32'}),
    ("S.random.poisson(S.var('lam'), shape=2)", {'lam': (3,)}, {'lam': 'float32'}),
    ("S.random.negative_binomial(S.var('k'), S.var('p'))", {'k': (3,)}, {'k': 'float32', 'p': 'float32'}),
    ("S.random.generalized_negative_binomial(S.var('mu'), S.var('alpha'), shape=(2,))", {'alpha': (3,)},
     {'mu': 'float32', 'alpha': 'float32'}),
    ("S.random.multinomial(S.var('p'), shape=(5,))", {'p': (2, 3)}, {'p': 'float64'}),
    ("S.random.multinomial(S.var('p'), get_prob=False)", {'p': (3,)}, {'p': 'float32'}),
    ("S.random.multinomial(S.var('p'), shape=(2, 2), get_prob=False, dtype='float32')", {'p': (3,)},
     {'p': 'float32'}),
    ("S.shuffle(S.var('d'))", {'d': (4, 2)}, {'d': 'float16'}),
    ("S.random.shuffle(S.var('d'))", {'d': (4, 2)}, {'d': 'float32'}),
    ("S.uniform(shape=(2,))", {}, {}),
    ("S.normal(shape=(2,))", {}, {}),
    ("S.random_normal(shape=(2,))", {}, {}),
    ("S.random_randint(low=1, high=4, shape=(2,))", {}, {}),
    ("S.sample_uniform(S.var('lo'), S.var('hi'))", {'hi': (2, 2)}, {'lo': 'float32', 'hi': 'float32'}),
    ("S.sample_multinomial(S.var('p'))", {'p': (2, 3)}, {'p': 'float32'}),
    ("S.random.uniform(shape=(0, 3)) + S.var('x')", {'x': (2, 3)}, {'x': 'float32'}),
    ("S.random.uniform_like(S.var('d'), low=1.0)", {'d': (2, 3)}, {'d': 'float16'}),
    ("S.random.normal_like(S.var('d'), loc=1.0, scale=2.0)", {'d': (4,)}, {'d': 'float64'}),
    ("S.random.gamma_like(S.var('d'), alpha=2.0)", {'d': (4,)}, {'d': 'float32'}),
    ("S.random.exponential_like(S.var('d'), lam=2.0)", {'d': (4,)}, {'d': 'float32'}),
    ("S.random.poisson_like(S.var('d'))", {'d': (4,)}, {'d': 'float32'}),
    ("S.random.negative_binomial_like(S.var('d'), k=2, p=0.3)", {'d': (4,)}, {'d': 'float32'}),
    ("S.random.generalized_negative_binomial_like(S.var('d'), mu=2.0)", {'d': (4,)}, {'d': 'float32'}),
]

ARRAYS = [
    "R.uniform()",
    "R.uniform(shape=3)",
    "R.uniform(-1, 1, shape=(2, 2), dtype='float64')",
    "R.normal(shape=(2,))",
    "R.randn(2, 3)",
    "R.exponential(2.0, shape=(2,))",
    "R.poisson(2.0, shape=(2,))",
    "R.negative_binomial(3, 0.4, shape=(2,))",
    "R.generalized_negative_binomial(2.0, 0.5, shape=(2,))",
    "R.gamma(2.0, 1.0, shape=(2,), dtype='float16')",
    "R.randint(0, 5, shape=(3,))",
    "R.randint(0, 2 ** 40, shape=(2,), dtype='int64')",
    "R.uniform(nd.zeros((2,)), nd.ones((2,)), shape=3)",
    "R.normal(nd.zeros((2,), dtype='float64'), nd.ones((2,), dtype='float64'))",
    "R.exponential(nd.ones((2,)), shape=(2, 2))",
    "R.multinomial(nd.array([0.1, 0.9]))",
    "R.multinomial(nd.array([[0.1, 0.9], [1, 0]]), shape=3, get_prob=True)",
    "R.shuffle(nd.array([[1, 2], [3, 4], [5, 6]]))",
    "R.uniform(out=nd.zeros((2, 3)))",
    "R.normal(0, 1, shape=(2,), out=nd.zeros((2,), dtype='float64'))",
    "mx.random.uniform(shape=(2,))",
    "mx.random.randint(1, 3)",
    "nd.uniform(shape=(2,))",
    "nd.random_normal(shape=(2, 1))",
    "nd.sample_poisson(nd.ones((2,)), shape=(3,))",
    "R.uniform_like(nd.zeros((2, 3), dtype='float64'))",
    "R.exponential_like(nd.zeros((3,)), lam=2.0)",
    "R.negative_binomial_like(nd.zeros((3,)), k=2, p=0.5)",
]

ERRORS = [
    "R.normal(0, 0, shape=(2,))",
    "R.uniform(2, 1, shape=2)",
    "R.gamma(0, 1, shape=2)",
    "R.gamma(1, 0, shape=2)",
    "R.exponential(-1, shape=2)",
    "R.poisson(-1, shape=2)",
    "R.generalized_negative_binomial(-1, 0, shape=2)",
    "R.randint(3, 2, shape=2)",
    "R.uniform(nd.zeros((2,)), 1)",
    "R.uniform(nd.zeros((2,)), nd.ones((3,)))",
    "R.uniform(nd.zeros((2,), dtype='float64'), nd.ones((2,)))",
]


def names(types):
    return [None if t is None else np.dtype(t).name for t in types]


def main():
    env = {'mx': mx, 'S': mx.sym, 'R': mx.nd.random, 'nd': mx.nd}
    symbols = []
    for text, shapes, types in SYMBOLS:
        with mx.name.NameManager():
            sym = eval(text, env)
        node = json.loads(sym.tojson())['nodes'][-1]
        args, outs, _ = sym.infer_shape_partial(**shapes)
        targs, touts, _ = sym.infer_type(**types)
        symbols.append({'text': text, 'shapes': shapes, 'types': types, 'name': sym.name,
                        'arguments': sym.list_arguments(), 'outputs': sym.list_outputs(),
                        'op': node['op'], 'attrs': node.get('attrs', {}),
                        'arg_shapes': [list(s) for s in args], 'out_shapes': [list(s) for s in outs],
                        'arg_types': names(targs), 'out_types': names(touts)})
    arrays = []
    for text in ARRAYS:
        got = eval(text, env)
        got = got if isinstance(got, list) else [got]
        arrays.append({'text': text, 'shapes': [list(a.shape) for a in got],
                       'dtypes': [np.dtype(a.dtype).name for a in got]})
    errors = []
    for text in ERRORS:
        when = 'call'       # where MXNet raises it: at the call, or at the wait on the result
        try:
            result = eval(text, env)
            when = 'wait'
            result.wait_to_read()
        except (mx.base.MXNetError, AssertionError, ValueError) as e:
            errors.append({'text': text, 'when': when, 'mxnet': str(e).strip().splitlines()[-1][:200]})
        else:
            raise AssertionError('MXNet accepts %s' % text)
    with open(OUT, 'w') as f:
        json.dump({'mxnet_version': mx.__version__, 'symbols': symbols, 'arrays': arrays, 'errors': errors},
                  f, indent=1, sort_keys=True)
    print('wrote %s: %d symbols, %d arrays, %d errors' % (OUT, len(symbols), len(arrays), len(errors)))


if __name__ == '__main__':
    main()
