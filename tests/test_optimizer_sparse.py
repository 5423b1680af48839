"""The optimizers given a row_sparse gradient for a dense weight, against MXNet 1.9.1.

The numbers come from MXNet itself, stored in golden/optimizer_sparse.npz by
golden/gen_optimizer_sparse.py (MXNet is not needed here): five updates per case, each
gradient a row_sparse array with its own row pattern (an empty one among them), through
the Updater, directly, or in one Updater call together with a dense gradient.  What they
pin down:

* SGD and Adam update lazily by default (only the gradient's rows of the weight and the
  states change) and by the standard update with ``lazy_update=False``; AdaGrad and
  GroupAdaGrad have sparse kernels of their own (AdaGrad's refuses weight decay); NAG
  without momentum, LARS and LBSGD go through SGD's one-weight kernels;
* every other optimizer, and SGD under multi_precision, takes the dense gradient the
  sparse one stands for (MXNet's storage fallback);
* states are created dense for a dense weight, as MXNet creates them.

On the CPU reflib repeats MXNet's arithmetic order, so the numbers agree to the bit,
except in the cases listed in ``ROUNDING_DIFFERS``; everywhere they agree to float32
tolerance.
"""

import json
import os
import warnings

import numpy as np
import pytest

import reflib as mx
from reflib.optimizer import OptimizerError

GOLDEN = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden', 'optimizer_sparse.npz'))
CASES = json.loads(str(GOLDEN['index/cases']))
STEPS = 5
SHAPES = {'2d': (6, 4), '3d': (5, 2, 3)}

# cases whose last bit may differ from MXNet's: LAMB's, whose dense update (which a sparse
# gradient falls back to) already differs from MXNet's in the last bit now and then, and
# LARS's, whose rate MXNet works out from norms its ``norm`` operator sums its own way
# (scaled, in float32), where reflib sums the squares in float64
ROUNDING_DIFFERS = {'lamb_wd', 'lamb_direct', 'lars_mom_lazy', 'lars_std'}


def meta(name):
    return json.loads(str(GOLDEN[name + '/meta']))


def rsp_grad(shape_key, step, dtype):
    values = GOLDEN['grads/%s/%d/values' % (shape_key, step)].astype(dtype)
    rows = GOLDEN['grads/%s/%d/rows' % (shape_key, step)]
    return mx.nd.sparse.row_sparse_array((values, rows), shape=SHAPES[shape_key], dtype=dtype)


def state_layout(state):
    """Same encoding as the generator: T[...] tuple, L[...] list, N None, A array."""
    if state is None:
        return 'N', []
    if isinstance(state, mx.nd.NDArray):
        return 'A', [state]
    parts = [state_layout(s) for s in state]
    tag = 'T' if isinstance(state, tuple) else 'L'
    return tag + '[' + ','.join(p[0] for p in parts) + ']', [a for p in parts for a in p[1]]


def zero_noise(loc, scale, shape=None, dtype=None, ctx=None, **kwargs):
    return mx.nd.zeros(shape, ctx=ctx, dtype=dtype)


def assert_golden(actual, expected, what, exact):
    actual = actual.asnumpy() if isinstance(actual, mx.nd.NDArray) else actual
    assert actual.dtype == expected.dtype, '%s: dtype %s, MXNet has %s' % (what, actual.dtype, expected.dtype)
    if exact:
        np.testing.assert_array_equal(actual, expected, err_msg=what + ' (bit for bit)')
    tol = 1e-3 if expected.dtype == np.float16 else 1e-5
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol / 10, err_msg=what)


def run_step(m, opt, updater, weights, grads, states):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)      # float16 advice
        if m['mode'] == 'direct':
            if 0 not in states:
                states[0] = opt.create_state_multi_precision(0, weights[0])
            opt.update_multi_precision(0, weights[0], grads[0], states[0])
            return states
        if m['mode'] == 'mixed':
            updater([0, 1], grads, weights)
        else:
            updater(0, grads[0], weights[0])
        return updater.states


@pytest.mark.parametrize('name', CASES)
def test_update_matches_mxnet(name, monkeypatch):
    m = meta(name)
    if m['no_noise']:                       # SGLD: its deterministic part
        monkeypatch.setattr(mx.random, 'normal', zero_noise)
    dtype, shape = m['dtype'], m['shape']
    opt = mx.optimizer.create(m['opt'], **m['kwargs'])
    updater = mx.optimizer.get_updater(opt)
    weights = [mx.nd.array(GOLDEN['init/%s' % shape], dtype=dtype)]
    if m['mode'] == 'mixed':
        weights = [mx.nd.array(GOLDEN['init/2d'] * 0.5, dtype=dtype)] + weights
    buffers = [w._data for w in weights]
    exact = name not in ROUNDING_DIFFERS and weights[0].context.device_type == 'cpu'
    states = {}
    for k in range(STEPS):
        grads = [rsp_grad(shape, k, dtype)]
        if m['mode'] == 'mixed':
            grads = [mx.nd.array(GOLDEN['dense/%d' % k], dtype=dtype)] + grads
        if 'error' in m:                    # MXNet refuses the case: so does reflib, by name
            with pytest.raises(OptimizerError, match=type(opt).__name__):
                run_step(m, opt, updater, weights, grads, states)
            return
        states = run_step(m, opt, updater, weights, grads, states)
        for p, (w, g) in enumerate(zip(weights, grads)):
            assert w._data is buffers[p], 'the weight is updated in place'
            what = '%s step %d weight %d' % (name, k, p)
            assert_golden(w, GOLDEN['%s/w%d' % (name, p)][k], what, exact)
            assert_golden(g, GOLDEN['%s/g%d' % (name, p)][k], what + "'s gradient", exact)
            tag, arrays = state_layout(states[p])
            assert [tag, [a.stype for a in arrays]] == m['layout'][p], '%s: state layout' % what
            for j, arr in enumerate(arrays):
                assert arr.context == w.context
                assert_golden(arr, GOLDEN['%s/s%d_%d' % (name, p, j)][k], '%s state %d' % (what, j), exact)
    assert m['sparse_index'] == len(weights) - 1


def test_golden_covers_every_registered_optimizer():
    covered = {meta(name)['opt'] for name in CASES}
    registered = set(mx.optimizer.Optimizer.opt_registry)
    # (ccsgd is sgd; the SVRG pair, registered once mx.contrib.svrg_optimization is imported,
    # hand each key to another optimizer: tests/test_svrg.py)
    allowed = {'ccsgd', '_svrgoptimizer', '_assignmentoptimizer'}
    assert registered - covered <= allowed, 'no sparse-gradient case for %s' % sorted(registered - covered)


# ------------------------------------------------------------------ behaviour around them
def _rsp(rows, values, shape):
    return mx.nd.sparse.row_sparse_array((np.asarray(values, dtype=np.float32), rows), shape=shape)


@pytest.mark.parametrize('opt', [mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.1),
                                 mx.optimizer.Adam(learning_rate=0.1, wd=0.1),
                                 mx.optimizer.AdaGrad(learning_rate=0.1)],
                         ids=['sgd', 'adam', 'adagrad'])
def test_lazy_update_leaves_absent_rows_and_their_states_alone(opt):
    weight = mx.nd.ones((4, 3))
    state = opt.create_state(0, weight)
    opt.update(0, weight, _rsp([1, 2], np.ones((2, 3)), (4, 3)), state)
    values = weight.asnumpy()
    assert (values[[0, 3]] == 1).all() and (values[[1, 2]] != 1).all()
    for arr in state_layout(state)[1]:
        assert arr.stype == 'default'
        assert (arr.asnumpy()[[0, 3]] == 0).all()


@pytest.mark.parametrize('opt', [mx.optimizer.SGD(learning_rate=0.1, wd=0.1),
                                 mx.optimizer.SGD(learning_rate=0.1, wd=0.1, momentum=0.9),
                                 mx.optimizer.Adam(learning_rate=0.1, wd=0.1)],
                         ids=['sgd', 'sgd_mom', 'adam'])
def test_an_empty_gradient_changes_nothing_lazily_and_decays_everything_otherwise(opt):
    empty = mx.nd.sparse.zeros('row_sparse', (4, 3))
    weight = mx.nd.ones((4, 3))
    opt.lazy_update = True
    opt.update(0, weight, empty, opt.create_state(0, weight))
    assert (weight.asnumpy() == 1).all()
    opt.lazy_update = False
    opt.update(0, weight, empty, opt.create_state(0, weight))
    assert (weight.asnumpy() < 1).all()


def test_adagrad_refuses_weight_decay_with_a_sparse_gradient_only():
    opt = mx.optimizer.AdaGrad(learning_rate=0.1, wd=0.01)
    weight = mx.nd.ones((4, 3))
    with pytest.raises(OptimizerError, match='AdaGrad.*wd'):
        opt.update(0, weight, _rsp([1], np.ones((1, 3)), (4, 3)), opt.create_state(0, weight))
    opt.update(0, weight, mx.nd.ones((4, 3)), opt.create_state(0, weight))      # dense: fine


@pytest.mark.parametrize('name', ['sgd', 'adam', 'adagrad', 'rmsprop', 'ftrl'])
def test_a_row_sparse_weight_with_rows_missing_is_refused_by_name(name):
    opt = mx.optimizer.create(name)
    weight = _rsp([0, 2], np.ones((2, 3)), (3, 3))
    with pytest.raises(OptimizerError, match=type(opt).__name__ + '.*every row.*2 of 3'):
        opt.update(0, weight, _rsp([1], np.ones((1, 3)), (3, 3)), opt.create_state(0, weight))


@pytest.mark.parametrize('name', ['sgd', 'adam', 'rmsprop'])
def test_a_row_sparse_weight_storing_every_row_updates_as_the_dense_one(name):
    sparse_w, dense_w = _rsp([0, 1, 2], np.ones((3, 3)), (3, 3)), mx.nd.ones((3, 3))
    grad = _rsp([1], np.full((1, 3), 0.5), (3, 3))
    for weight in (sparse_w, dense_w):
        opt = mx.optimizer.create(name, learning_rate=0.1)
        opt.update(0, weight, grad, opt.create_state(0, weight))
    assert sparse_w.stype == 'row_sparse' and sparse_w.indices.asnumpy().tolist() == [0, 1, 2]
    np.testing.assert_array_equal(sparse_w.asnumpy(), dense_w.asnumpy())


def test_a_csr_gradient_takes_the_dense_update():
    # MXNet's sgd_update has no CSR form: the gradient is made dense (storage fallback)
    values = np.arange(12, dtype=np.float32).reshape(4, 3) * (np.arange(4) % 2)[:, None]
    sparse_w, dense_w = mx.nd.ones((4, 3)), mx.nd.ones((4, 3))
    for weight, grad in ((sparse_w, mx.nd.sparse.csr_matrix(values)), (dense_w, mx.nd.array(values))):
        mx.optimizer.SGD(learning_rate=0.1, wd=0.1).update(0, weight, grad, None)
    np.testing.assert_allclose(sparse_w.asnumpy(), dense_w.asnumpy(), rtol=1e-6)
    assert (sparse_w.asnumpy() != 1).all()


def test_the_updater_passes_row_sparse_gradients_through_with_dense_states():
    updater = mx.optimizer.get_updater(mx.optimizer.Adam(learning_rate=0.1))
    weight = mx.nd.zeros((4, 3))
    grad = _rsp([2], np.ones((1, 3)), (4, 3))
    updater(0, grad, weight)
    assert grad.stype == 'row_sparse'
    mean, var = updater.states[0]
    assert mean.stype == var.stype == 'default' and mean.shape == (4, 3)
    assert np.flatnonzero(weight.asnumpy().any(axis=1)).tolist() == [2]


def test_ftrl_on_a_row_sparse_weight_updates_only_the_gradients_rows():
    # MXNet's sparse ftrl kernel (MXNet's own test_ftrl checks it against its lazy reference)
    values = np.arange(12, dtype=np.float32).reshape(4, 3) / 10 + 0.5
    sparse_w = mx.nd.array(values).tostype('row_sparse')
    dense_w = mx.nd.array(values)
    grad = _rsp([1, 3], np.array([[0.5, -1, 2], [1, 1, -0.25]]), (4, 3))
    for weight, g in ((sparse_w, grad), (dense_w, grad.todense())):
        opt = mx.optimizer.Ftrl(learning_rate=0.2, wd=0.05, lamda1=0.01)
        opt.update(0, weight, g, opt.create_state(0, weight))
    got, full = sparse_w.asnumpy(), dense_w.asnumpy()
    np.testing.assert_array_equal(got[[0, 2]], values[[0, 2]])       # rows 0 and 2 untouched
    np.testing.assert_array_equal(got[[1, 3]], full[[1, 3]])          # rows 1 and 3 as the dense update


def test_a_csr_weight_is_updated_through_its_dense_form():
    values = np.array([[0, 1.5, 0], [2, 0, 0]], np.float32)
    csr_w, dense_w = mx.nd.array(values).tostype('csr'), mx.nd.array(values)
    for weight in (csr_w, dense_w):
        mx.optimizer.SGD(learning_rate=0.1).update_multi_precision(0, weight, mx.nd.ones((2, 3)), None)
    assert csr_w.stype == 'csr'
    np.testing.assert_array_equal(csr_w.asnumpy(), dense_w.asnumpy())
