"""Record MXNet 1.9.1's answers for reflib's mx.np subset (run with the oracle's Python):

    /tmp/mxv/bin/python tests/golden/gen_numpy_subset.py

Each case is an expression over ``mx`` evaluated with NumPy semantics on (``set_np``) or off;
the JSON keeps its repr, shape and dtype (or the exception's class name).  The test
(tests/test_numpy_subset.py) evaluates the same expressions with reflib."""

import json
import os

CASES = [
    # (expression, under set_np)
    ('mx.np.array([1, 2])', False),
    ('mx.np.array([[1.5, 2]])', False),
    ('mx.np.array([1, 2], dtype="int32")', False),
    ('mx.np.array([True, False])', False),
    ('mx.np.array(onp.arange(3))', False),
    ('mx.np.array(3.0)', True),
    ('mx.np.zeros((2, 3))', False),
    ('mx.np.zeros(())', True),
    ('mx.np.zeros((0, 3))', True),
    ('mx.np.ones((2, 2), dtype="float64")', False),
    ('mx.np.ones((2, 3), dtype=int)', False),
    ('mx.np.ones((60,))', False),
    ('mx.np.full((2,), 3)', False),
    ('mx.np.full((2, 2), 2.5, dtype="float64")', False),
    ('mx.np.empty((0,)).shape', True),
    ('mx.np.arange(5)', False),
    ('mx.np.arange(1, 3, 0.5)', False),
    ('mx.np.arange(4, dtype="int32")', False),
    ('mx.np.zeros_like(mx.np.arange(3))', False),
    ('mx.np.ones_like(mx.np.arange(3, dtype="int32"))', False),
    ('mx.np.ones_like(mx.nd.arange(3))', False),
    ('mx.np.ones((2, 3)).sum()', False),
    ('mx.np.ones((2, 3)).sum(axis=0)', False),
    ('mx.np.ones((2, 3))[0]', False),
    ('mx.np.ones((2, 3))[0, 0]', False),
    ('mx.np.ones((2, 3))[0, 0]', True),
    ('mx.np.array([[1, 2], [3, 4]])[:, 1]', False),
    ('mx.np.ones((2, 3)) + 1', False),
    ('mx.np.arange(3) * mx.np.arange(3)', False),
    ('mx.np.arange(3, dtype="int32") / 2', False),
    ('mx.np.arange(3) + mx.nd.ones(3)', False),
    ('mx.np.ones((2, 3)).T', False),
    ('mx.np.ones((2, 3)).dtype', False),
    ('str(mx.np.ones(2))', False),
    ('mx.np.ones((10, 10)).reshape((1,))', False),
    ('mx.np.ones((2, 3)).reshape((0, 3))', False),
    ('mx.np.ones((2, 3)).reshape(-1)', False),
    ('mx.np.ones((2, 3)).reshape(3, -1)', False),
    ('mx.np.ones((2, 3)).reshape(-1, -1)', False),
    ('mx.np.ones((2, 3)).reshape(-2)', False),
    ('mx.np.reshape(mx.np.arange(6), (2, 3))', False),
    ('mx.np.concatenate([mx.np.ones(2), mx.np.zeros(2)])', False),
    ('mx.np.concatenate([mx.np.ones((2, 2)), mx.np.zeros((2, 1))], axis=1)', False),
    ('mx.np.concatenate([mx.np.ones((2, 2)), mx.np.zeros((1, 2))], axis=None)', False),
    ('mx.np.stack([mx.np.ones(2), mx.np.zeros(2)], axis=1)', False),
    ('mx.np.split(mx.np.arange(6), 3)', False),
    ('mx.np.split(mx.np.arange(6), [1, 4])', False),
    ('mx.np.split(mx.np.arange(12).reshape(3, 4), 2, axis=1)', False),
    ('mx.np.split(mx.np.arange(6), 4)', False),
    ('mx.np.sum(mx.np.ones((2, 3)), axis=1, keepdims=True)', False),
    ('mx.np.sum(mx.np.arange(24).reshape(2, 3, 4), axis=(0, 2))', False),
    ('mx.np.mean(mx.np.ones((2, 3)))', False),
    ('mx.np.mean(mx.np.arange(6).reshape(2, 3), axis=1)', False),
    ('mx.np.dot(mx.np.ones((2, 3)), mx.np.ones((3,)))', False),
    ('mx.np.dot(mx.np.arange(3), mx.np.arange(3))', False),
    ('mx.np.dot(mx.np.arange(6).reshape(2, 3), mx.np.arange(6).reshape(3, 2))', False),
    ('mx.np.exp(mx.np.arange(3))', False),
    ('mx.np.log(mx.np.arange(1, 4))', False),
    ('mx.np.sqrt(mx.np.arange(4))', False),
    ('mx.np.maximum(mx.np.arange(3), 1)', False),
    ('mx.np.minimum(mx.np.arange(3), mx.np.ones(3))', False),
    ('mx.np.maximum(mx.np.arange(3).reshape(3, 1), mx.np.ones(2))', False),
    ('mx.np.random.uniform(size=(2, 3)).shape', False),
    ('mx.np.random.uniform(size=(2, 3)).dtype', False),
    ('mx.np.random.normal(size=4).shape', False),
    ('mx.np.random.randint(0, 10, size=(3,)).dtype', False),
    ('mx.np.random.choice(5, size=3).dtype', False),
    ('mx.np.random.choice(5, size=(2, 2), replace=False).shape', False),
    ('mx.np.random.uniform(shape=(2,))', False),
    ('mx.np.random.normal(shape=None)', False),
    ('mx.np.random.randint(0, 3, shape=())', False),
    ('mx.np.random.choice(3, shape=(2,))', False),
    ('mx.nd.ones((2,)).as_np_ndarray()', False),
    ('mx.np.ones((2,)).as_nd_ndarray().shape', False),
    ('mx.util.set_np(shape=False, array=True)', False),
]


def evaluate(mx, onp, expression, np_on):
    """{'repr', 'shape', 'dtype'} of the expression's value, or {'error': class name}."""
    if np_on:
        mx.util.set_np()
    try:
        value = eval(expression, {'mx': mx, 'onp': onp})
    except Exception as err:     # noqa: BLE001  (the class of any failure is the answer)
        return {'error': type(err).__name__}
    finally:
        mx.util.reset_np()
    out = {'repr': repr(value)}
    if isinstance(value, list):
        out['repr'] = [repr(v) for v in value]
    elif hasattr(value, 'shape') and hasattr(value, 'dtype'):
        out['shape'], out['dtype'] = list(value.shape), str(value.dtype)
    return out


if __name__ == '__main__':
    import mxnet as mx
    import numpy
    results = [{'expression': e, 'np_on': on, 'result': evaluate(mx, numpy, e, on)} for e, on in CASES]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'numpy_subset.json')
    with open(path, 'w') as f:
        json.dump(results, f, indent=0)
