"""Loss heads, softmax/log_softmax, dot/batch_dot: straight from the operator registry.

Four kinds of checks:

1. forward against plain numpy;
2. backward: ``check_op_gradient`` (finite differences) for the ordinary
   operators; for the loss heads, finite differences of the loss each head
   stands for (cross-entropy for SoftmaxOutput, squared error / 2 for
   LinearRegressionOutput, ...), since their backward ignores head gradients;
3. golden values recorded from MXNet 1.9.1 by tests/golden/gen_ops_loss.py;
4. shape inference, including the error messages.
"""

import json
import os
import warnings

import numpy as np
import pytest

from reflib.base import ParamError, ShapeError
from reflib.context import cpu
from reflib.operator import OpEnv
from device import get
from reflib.test_utils import check_op_gradient, numeric_grad, op_forward

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden', 'ops_loss.npz')
rng = np.random.RandomState(0)


def run(op_name, inputs, params=None, head=None, is_train=True):
    """(outputs, input gradients) of one operator; ``head`` is the head gradient (None for loss heads)."""
    op = get(op_name)
    p = op.parse_params(params or {})
    env = OpEnv(cpu(), is_train)
    outs = op.forward(p, env, list(inputs), [])
    grads = op.backward(p, env, [head], list(inputs), outs, [])
    return outs, grads


def infer(op_name, in_shapes, params=None, out_shape=None):
    op = get(op_name)
    p = op.parse_params(params or {})
    ins, outs, _ = op.infer_shape(p, list(in_shapes), [out_shape], [])
    return ins, outs[0]


def np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_dot(lhs, rhs, ta, tb):
    """MXNet's dot: contract lhs's last (first if ta) axis with rhs's first (last if tb) axis."""
    a = np.moveaxis(lhs, 0, -1) if ta and lhs.ndim > 1 else lhs
    b = np.moveaxis(rhs, -1, 0) if tb and rhs.ndim > 1 else rhs
    out = np.tensordot(a, b, axes=([a.ndim - 1], [0]))
    return out.reshape(1) if out.ndim == 0 else out


# ============================================================ 1. forward
class TestForward:
    def test_softmax_output_modes(self):
        x = rng.randn(2, 3, 4).astype(np.float32)
        lab = np.zeros((2, 3), np.float32)
        plain = op_forward('SoftmaxOutput', [x, lab])[0][0]
        np.testing.assert_allclose(plain, np_softmax(x.reshape(2, -1), 1).reshape(x.shape), rtol=1e-6)
        multi = op_forward('SoftmaxOutput', [x, np.zeros((2, 4), np.float32)], {'multi_output': True})[0][0]
        np.testing.assert_allclose(multi, np_softmax(x, 1), rtol=1e-6)
        keep = op_forward('SoftmaxOutput', [x, lab], {'preserve_shape': True})[0][0]
        np.testing.assert_allclose(keep, np_softmax(x, -1), rtol=1e-6)
        for out in (plain, multi, keep):
            assert out.dtype == np.float32 and out.shape == x.shape

    def test_softmax_output_alias(self):
        assert get('Softmax') is get('SoftmaxOutput')

    def test_regression_and_makeloss(self):
        x = rng.randn(3, 4).astype(np.float32)
        lab = rng.rand(3, 4).astype(np.float32)
        for name, want in [('LinearRegressionOutput', x), ('MAERegressionOutput', x),
                           ('LogisticRegressionOutput', 1 / (1 + np.exp(-x.astype(np.float64))))]:
            out = op_forward(name, [x, lab])[0][0]
            assert out.dtype == np.float32
            np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-7)
        out = op_forward('MakeLoss', [x])[0][0]
        np.testing.assert_array_equal(out, x)
        assert out is not x

    def test_logistic_extremes_do_not_overflow(self):
        x = np.array([-1000., -100., 0., 100., 1000.], np.float32)
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            out = op_forward('LogisticRegressionOutput', [x, np.zeros(5, np.float32)])[0][0]
        np.testing.assert_allclose(out, [0, 0, 0.5, 1, 1], atol=1e-30)

    @pytest.mark.parametrize('axis', [-1, 0, 1])
    @pytest.mark.parametrize('temperature', [None, 2.0])
    def test_softmax_log_softmax(self, axis, temperature):
        x = rng.randn(2, 3, 4).astype(np.float32)
        params = {'axis': axis, 'temperature': temperature}
        t = temperature or 1.0
        want = np_softmax(x.astype(np.float64) / t, axis)
        sm = op_forward('softmax', [x], params)[0][0]
        lsm = op_forward('log_softmax', [x], params)[0][0]
        assert sm.dtype == lsm.dtype == np.float32
        np.testing.assert_allclose(sm, want, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(lsm, np.log(want), rtol=1e-5, atol=1e-6)

    def test_softmax_is_stable_and_dtype(self):
        x = np.array([[1000., 0., -1000.], [-1e4, -1e4, -1e4]], np.float32)
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            sm = op_forward('softmax', [x])[0][0]
            lsm = op_forward('log_softmax', [x])[0][0]
        np.testing.assert_allclose(sm, [[1, 0, 0], [1 / 3] * 3], rtol=1e-6)
        np.testing.assert_allclose(lsm[0], [0, -1000, -2000], rtol=1e-6)
        assert op_forward('softmax', [x], {'dtype': 'float64'})[0][0].dtype == np.float64
        assert op_forward('log_softmax', [x], {'dtype': 'float16'})[0][0].dtype == np.float16

    def test_softmax_use_length(self):
        x = rng.randn(2, 4).astype(np.float32)
        out = op_forward('softmax', [x, np.array([2, 0], np.int32)], {'use_length': True})[0][0]
        np.testing.assert_allclose(out[0, :2], np_softmax(x[0, :2], 0), rtol=1e-6)
        np.testing.assert_array_equal(out[0, 2:], 0)
        np.testing.assert_array_equal(out[1], 0)
        assert get('softmax').inputs(get('softmax').parse_params({'use_length': True})) == ['data', 'length']
        with pytest.raises(ParamError, match='log_softmax'):
            get('log_softmax').inputs(get('log_softmax').parse_params({'use_length': True}))

    @pytest.mark.parametrize('ta,tb,sa,sb', [
        (0, 0, (3,), (3,)), (0, 0, (2, 3), (3,)), (0, 0, (3,), (3, 4)), (0, 0, (2, 3), (3, 4)),
        (1, 0, (3, 2), (3, 4)), (0, 1, (2, 3), (4, 3)), (1, 1, (3, 2), (4, 3)),
        (0, 0, (2, 3, 4), (4, 5, 2)), (1, 0, (4, 2, 3), (4, 5)), (1, 1, (4, 2, 3), (6, 5, 4)),
        (1, 0, (3,), (3, 4)), (0, 1, (3,), (4, 3))])
    def test_dot(self, ta, tb, sa, sb):
        lhs, rhs = rng.randn(*sa).astype(np.float32), rng.randn(*sb).astype(np.float32)
        params = {'transpose_a': bool(ta), 'transpose_b': bool(tb)}
        out = op_forward('dot', [lhs, rhs], params)[0][0]
        want = np_dot(lhs.astype(np.float64), rhs.astype(np.float64), ta, tb)
        assert out.dtype == np.float32
        assert out.shape == infer('dot', [sa, sb], params)[1] == want.shape
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)

    @pytest.mark.parametrize('ta', [False, True])
    @pytest.mark.parametrize('tb', [False, True])
    def test_batch_dot(self, ta, tb):
        a, b = rng.randn(2, 3, 3, 4).astype(np.float32), rng.randn(2, 3, 4, 5).astype(np.float32)
        lhs = np.swapaxes(a, -1, -2).copy() if ta else a
        rhs = np.swapaxes(b, -1, -2).copy() if tb else b
        params = {'transpose_a': ta, 'transpose_b': tb}
        out = op_forward('batch_dot', [lhs, rhs], params)[0][0]
        assert out.dtype == np.float32 and out.shape == (2, 3, 3, 5)
        assert infer('batch_dot', [lhs.shape, rhs.shape], params)[1] == (2, 3, 3, 5)
        np.testing.assert_allclose(out, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


# ======================================================= 2a. op gradients
@pytest.mark.parametrize('name', ['softmax', 'log_softmax'])
@pytest.mark.parametrize('params', [{}, {'axis': 0}, {'axis': 1, 'temperature': 0.5}])
def test_softmax_gradient(name, params):
    check_op_gradient(name, [rng.randn(2, 3, 4)], params)


def test_softmax_use_length_gradient():
    grads = check_op_gradient('softmax', [rng.randn(2, 3, 4), np.array([[1, 4, 2], [0, 3, 4]])],
                              {'use_length': True}, grad_inputs=[0])
    assert grads[1] is None


@pytest.mark.parametrize('ta,tb,sa,sb', [
    (0, 0, (3,), (3,)), (0, 0, (2, 3), (3,)), (0, 0, (3,), (3, 4)), (1, 1, (3, 2), (4, 3)),
    (0, 0, (2, 3, 4), (4, 2, 2)), (1, 0, (4, 2, 3), (4, 2)), (0, 1, (2, 3, 4), (5, 4)),
    (1, 1, (4, 2, 3), (2, 5, 4)), (1, 0, (3,), (3, 2))])
def test_dot_gradient(ta, tb, sa, sb):
    check_op_gradient('dot', [rng.randn(*sa), rng.randn(*sb)], {'transpose_a': bool(ta), 'transpose_b': bool(tb)})


@pytest.mark.parametrize('ta', [False, True])
@pytest.mark.parametrize('tb', [False, True])
def test_batch_dot_gradient(ta, tb):
    lhs = rng.randn(2, 4, 3) if ta else rng.randn(2, 3, 4)
    rhs = rng.randn(2, 5, 4) if tb else rng.randn(2, 4, 5)
    check_op_gradient('batch_dot', [lhs, rhs], {'transpose_a': ta, 'transpose_b': tb})


# ================================================ 2b. loss heads vs losses
def check_loss_head(op_name, inputs, params, loss_fn):
    """The head's backward must equal d(loss_fn(data))/d(data) by central differences (float64)."""
    x = np.array(inputs[0], dtype=np.float64)
    rest = [np.asarray(a, dtype=np.float64) for a in inputs[1:]]
    _, grads = run(op_name, [x] + rest, params)
    numeric = numeric_grad(lambda: loss_fn(x, *rest), x, eps=1e-5)
    np.testing.assert_allclose(grads[0], numeric, rtol=1e-5, atol=1e-8)
    assert all(g is None for g in grads[1:]), 'a loss head gives its label no gradient'


def cross_entropy(logp, target):
    return -(target * logp).sum()


def onehot(labels, k, axis=-1):
    return np.moveaxis(np.eye(k)[labels.astype(int)], -1, axis)


class TestLossHeads:
    x = rng.randn(4, 5)
    lab = np.array([0, 3, 4, 3.])

    @pytest.mark.parametrize('params,scale', [({}, 1.0), ({'grad_scale': 2.5}, 2.5),
                                              ({'normalization': 'batch'}, 0.25),
                                              ({'normalization': 'valid', 'grad_scale': 3.0}, 0.75)])
    def test_softmax_output_is_cross_entropy(self, params, scale):
        check_loss_head('SoftmaxOutput', [self.x, self.lab], params,
                        lambda x, l: scale * cross_entropy(np.log(np_softmax(x, 1)), onehot(l, 5)))

    def test_softmax_output_ignore(self):
        keep = (self.lab != 3)[:, None]
        params = {'use_ignore': True, 'ignore_label': 3, 'normalization': 'valid'}
        check_loss_head('SoftmaxOutput', [self.x, self.lab], params,
                        lambda x, l: cross_entropy(np.log(np_softmax(x, 1)), onehot(l, 5) * keep) / keep.sum())

    def test_softmax_output_smoothing(self):
        alpha = 0.2
        target = onehot(self.lab, 5) * (1 - alpha) + (1 - onehot(self.lab, 5)) * alpha / 4
        check_loss_head('SoftmaxOutput', [self.x, self.lab], {'smooth_alpha': alpha},
                        lambda x, l: cross_entropy(np.log(np_softmax(x, 1)), target))

    def test_softmax_output_soft_labels(self):
        probs = rng.rand(4, 5)
        probs /= probs.sum(axis=1, keepdims=True)
        check_loss_head('SoftmaxOutput', [self.x, probs], {},
                        lambda x, l: cross_entropy(np.log(np_softmax(x, 1)), l))

    @pytest.mark.parametrize('params,scale', [({}, 1 / 6), ({'normalization': 'batch'}, 1 / 12)])
    def test_softmax_output_multi(self, params, scale):
        x, lab = rng.randn(2, 3, 2, 3), rng.randint(0, 3, (2, 2, 3)).astype(float)
        check_loss_head('SoftmaxOutput', [x, lab], dict(params, multi_output=True),
                        lambda x, l: scale * cross_entropy(np.log(np_softmax(x, 1)), onehot(l, 3, axis=1)))

    def test_softmax_output_preserve_shape(self):
        x, lab = rng.randn(2, 3, 4), rng.randint(0, 4, (2, 3)).astype(float)
        check_loss_head('SoftmaxOutput', [x, lab], {'preserve_shape': True, 'normalization': 'batch'},
                        lambda x, l: cross_entropy(np.log(np_softmax(x, -1)), onehot(l, 4)) / 6)

    @pytest.mark.parametrize('shape', [(4, 3), (2, 3, 2), (5,)])
    def test_regression_heads(self, shape):
        x, lab = rng.randn(*shape), rng.rand(*shape)
        per_sample = x.size // shape[0]

        def sigmoid(x):
            return 1 / (1 + np.exp(-x))

        check_loss_head('LinearRegressionOutput', [x, lab], {'grad_scale': 2.0},
                        lambda x, l: 2.0 * ((x - l) ** 2).sum() / 2 / per_sample)
        check_loss_head('LogisticRegressionOutput', [x, lab], {},
                        lambda x, l: -(l * np.log(sigmoid(x)) + (1 - l) * np.log(1 - sigmoid(x))).sum()
                        / per_sample)
        # |x - l| has a kink at 0: labels at least 0.05 away, so central differences (eps 1e-5)
        # never straddle it
        away = x + np.where(rng.rand(*shape) > 0.5, 1, -1) * (0.05 + rng.rand(*shape))
        check_loss_head('MAERegressionOutput', [x, away], {'grad_scale': 0.5},
                        lambda x, l: 0.5 * np.abs(x - l).sum() / per_sample)

    def test_makeloss(self):
        x = rng.rand(2, 3, 4)
        check_loss_head('MakeLoss', [x], {'grad_scale': 3.0}, lambda x: 3.0 * x.sum())
        check_loss_head('MakeLoss', [x], {'normalization': 'batch'}, lambda x: x.sum() / 6)
        check_loss_head('MakeLoss', [x], {'normalization': 'valid', 'valid_thresh': 0.5},
                        lambda x: x.sum() / (x > 0.5).sum())

    @pytest.mark.parametrize('name', ['SoftmaxOutput', 'LinearRegressionOutput', 'LogisticRegressionOutput',
                                      'MAERegressionOutput', 'MakeLoss'])
    def test_is_loss_and_float32(self, name):
        op = get(name)
        assert op.is_loss
        inputs = [rng.randn(3, 4).astype(np.float32)]
        if name == 'SoftmaxOutput':
            inputs.append(np.array([0, 1, 2], np.float32))
        elif name != 'MakeLoss':
            inputs.append(rng.rand(3, 4).astype(np.float32))
        outs, grads = run(name, inputs, {'grad_scale': 0.3})
        assert outs[0].dtype == grads[0].dtype == np.float32

    def test_multi_output_ignores_smoothing_and_out_grad_uses_output(self):
        # MXNet 1.9.1 facts: no smoothing in multi_output mode; out_grad multiplies by the output
        x, lab = rng.randn(2, 3, 4), rng.randint(0, 3, (2, 4)).astype(float)
        base = run('SoftmaxOutput', [x, lab], {'multi_output': True})[1][0]
        smooth = run('SoftmaxOutput', [x, lab], {'multi_output': True, 'smooth_alpha': 0.3})[1][0]
        np.testing.assert_array_equal(base, smooth)
        outs, grads = run('SoftmaxOutput', [x, lab], {'multi_output': True, 'out_grad': True})
        np.testing.assert_allclose(grads[0], base * outs[0])


# ============================================================ 3. golden
def _golden_cases():
    if not os.path.exists(GOLDEN):
        return []
    with np.load(GOLDEN) as data:
        return json.loads(str(data['cases']))


@pytest.fixture(scope='module')
def golden():
    with np.load(GOLDEN) as data:
        return {k: data[k] for k in data.files}


@pytest.mark.parametrize('case', _golden_cases(), ids=lambda c: c['key'])
def test_golden_mxnet(case, golden):
    key = case['key']
    inputs = [golden['%s:in%d' % (key, i)] for i in range(len(case['inputs']))]
    head = golden['%s:head' % key] if case['head'] else None
    outs, grads = run(case['op'], inputs, case['params'], head)
    want = golden[key + ':out']
    assert outs[0].dtype == want.dtype
    # MXNet's last-axis log_softmax kernel is itself ~3e-6 off the exact value; reflib is closer
    atol = 1e-5 if case['op'] == 'log_softmax' else 1e-6
    np.testing.assert_allclose(outs[0], want, rtol=1e-5, atol=atol, err_msg=key + ' output')
    for i in case['grads']:
        want = golden['%s:grad%d' % (key, i)]
        assert grads[i].dtype == want.dtype
        np.testing.assert_allclose(grads[i], want, rtol=1e-5, atol=1e-6, err_msg='%s grad of input %d' % (key, i))
    for i, name in enumerate(case['inputs']):
        if name in ('label', 'length'):
            assert grads[i] is None


def test_golden_covers_every_variant():
    keys = {c['key'] for c in _golden_cases()}
    for needed in ('sm_batch', 'sm_valid_ignore', 'sm_multi', 'sm_multi_valid_ignore', 'sm_grad_scale',
                   'sm_smooth', 'sm_out_grad', 'sm_soft_label', 'lin_2d', 'log_2d', 'mae_2d', 'ml_valid'):
        assert needed in keys


def test_seed_fact():
    """FullyConnected(6) on ones with ones weight, bias (1,4,4,4,5,6), relu, SoftmaxOutput."""
    data, weight = np.ones((1, 4), np.float32), np.ones((6, 4), np.float32)
    bias = np.array([1, 4, 4, 4, 5, 6], np.float32)
    fc = op_forward('FullyConnected', [data, weight, bias], {'num_hidden': 6})[0][0]
    act = op_forward('Activation', [fc], {'act_type': 'relu'})[0][0]
    prob = op_forward('SoftmaxOutput', [act, np.zeros(1, np.float32)])[0][0]
    np.testing.assert_allclose(prob[0], [0.00378404, 0.07600445, 0.07600445, 0.07600445, 0.20660152, 0.5616011],
                               rtol=1e-6)
    _, grads = run('SoftmaxOutput', [act, np.zeros(1, np.float32)])
    np.testing.assert_allclose(grads[0][0], prob[0] - [1, 0, 0, 0, 0, 0], rtol=1e-6)  # not divided by batch


# ===================================================== 4. shape inference
class TestShapes:
    def test_softmax_output_labels(self):
        assert infer('SoftmaxOutput', [(4, 3), None]) == ([(4, 3), (4,)], (4, 3))
        assert infer('SoftmaxOutput', [(2, 3, 4), None]) == ([(2, 3, 4), (2, 3)], (2, 3, 4))
        assert infer('SoftmaxOutput', [(2, 3, 4), None], {'preserve_shape': True})[0][1] == (2, 3)
        assert infer('SoftmaxOutput', [(2, 3, 4, 5), None], {'multi_output': True})[0][1] == (2, 20)
        assert infer('SoftmaxOutput', [(4, 3), None], {'multi_output': True})[0][1] == (4, 1)
        for label in [(2, 4, 5), (2, 20), (2, 3, 4, 5)]:
            assert infer('SoftmaxOutput', [(2, 3, 4, 5), label], {'multi_output': True})[0][1] == label
        assert infer('SoftmaxOutput', [(4, 3), (4, 3)])[0][1] == (4, 3)  # probabilities as labels
        assert infer('SoftmaxOutput', [None, None], out_shape=(4, 3))[0] == [(4, 3), (4,)]
        with pytest.raises(ShapeError, match=r"SoftmaxOutput: input 'label' has shape \(2\)"):
            infer('SoftmaxOutput', [(2, 3, 4), (2,)])
        with pytest.raises(ShapeError, match='label'):
            infer('SoftmaxOutput', [(2, 3, 4), (2, 3)], {'multi_output': True})

    def test_regression_labels(self):
        for name in ('LinearRegressionOutput', 'LogisticRegressionOutput', 'MAERegressionOutput'):
            assert infer(name, [(4, 3), None])[0][1] == (4, 3)
            assert infer(name, [(4, 1), None])[0][1] == (4,)
            assert infer(name, [(4, 12), (4, 3, 4)])[0][1] == (4, 3, 4)
            assert infer(name, [(4, 0), (4, 3)])[0] == [(4, 0), (4, 3)]
            for bad in [(4,), (12,), (3, 4)]:
                with pytest.raises(ShapeError, match="%s: input 'label'" % name):
                    infer(name, [(4, 3), bad])

    def test_dot_infers_both_ways(self):
        assert infer('dot', [(2, 3), (3, 4)]) == ([(2, 3), (3, 4)], (2, 4))
        assert infer('dot', [(3,), (3,)]) == ([(3,), (3,)], (1,))
        # an unknown side from the other input and the output
        assert infer('dot', [(2, 3), None], out_shape=(2, 4))[0] == [(2, 3), (3, 4)]
        assert infer('dot', [(2, 3), None], {'transpose_b': True}, out_shape=(2, 4))[0] == [(2, 3), (4, 3)]
        assert infer('dot', [None, (3, 4)], {'transpose_a': True}, out_shape=(2, 4))[0] == [(3, 2), (3, 4)]
        assert infer('dot', [(2, 3, 4), None], out_shape=(2, 3))[0][1] == (4,)
        # unknown dims filled from the other input and the output
        assert infer('dot', [(2, 0), (3, 0)], out_shape=(0, 5))[0] == [(2, 3), (3, 5)]
        assert infer('dot', [(2, 3), None]) == ([(2, 3), None], None)

    def test_dot_errors_name_everything(self):
        with pytest.raises(ShapeError) as err:
            infer('dot', [(2, 3), (4, 5)])
        msg = str(err.value)
        for part in ('dot', "'lhs'", "'rhs'", '(2,3)', '(4,5)'):
            assert part in msg
        with pytest.raises(ShapeError, match='transpose'):
            infer('dot', [(3,), (3,)], {'transpose_a': True})
        with pytest.raises(ShapeError, match='dot'):
            op_forward('dot', [np.ones((2, 3), np.float32), np.ones((4, 5), np.float32)])

    def test_batch_dot(self):
        assert infer('batch_dot', [(2, 3, 4), (2, 4, 5)]) == ([(2, 3, 4), (2, 4, 5)], (2, 3, 5))
        assert infer('batch_dot', [(2, 4, 3), (2, 5, 4)], {'transpose_a': True, 'transpose_b': True})[1] == (2, 3, 5)
        # forward only, and only once both inputs' matrix dims are known, as MXNet 1.9.1
        assert infer('batch_dot', [(2, 3, 4), None], out_shape=(2, 3, 5))[0][1] is None
        assert infer('batch_dot', [(0, 3, 4), (2, 0, 5)])[0] == [(0, 3, 4), (2, 0, 5)]
        assert infer('batch_dot', [(0, 3, 4), (2, 4, 5)])[1] == (2, 3, 5)
        for lhs, rhs in [((2, 3, 4), (2, 5, 4)), ((2, 3, 4), (3, 4, 5)), ((2, 3), (2, 3)), ((2, 3, 4), (1, 2, 4, 5))]:
            with pytest.raises(ShapeError) as err:
                infer('batch_dot', [lhs, rhs])
            msg = str(err.value)
            assert 'batch_dot' in msg and "'lhs'" in msg and "'rhs'" in msg
            assert '(%s)' % ','.join(map(str, lhs)) in msg and '(%s)' % ','.join(map(str, rhs)) in msg

    def test_softmax_length_shape_and_types(self):
        ins, out = infer('softmax', [(2, 3, 4), None], {'use_length': True, 'axis': 1})
        assert ins == [(2, 3, 4), (2, 4)] and out == (2, 3, 4)
        op = get('softmax')
        p = op.parse_params({'dtype': 'float64'})
        assert op.infer_type(p, [np.dtype('float32')], [None], [])[1] == [np.dtype('float64')]
