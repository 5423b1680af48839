"""Tests for the normalisation layers and losses: LRN, LayerNorm, InstanceNorm, GroupNorm,
L2Normalization (reflib/operator/norm.py, normalize.py), SVMOutput, softmax_cross_entropy
(loss.py), CTCLoss (ctc.py), SoftmaxActivation (softmax_activation.py) and
IdentityAttachKLSparseReg (kl_sparse_reg.py).

1. forward outputs and input gradients against golden values recorded from MXNet 1.9.1
   by tests/golden/gen_ops_norm.py (tests/golden/ops_norm.npz);
2. backward against finite differences in float64 (``check_op_gradient``), and the
   loss heads' gradients against finite differences of the loss they stand for;
3. CTC's loss against brute force: the probabilities of every path summed;
4. shape inference, and clear messages for bad input.
"""

import itertools

import numpy as np
import pytest

from reflib.base import MXNetError, ParamError, ShapeError
from reflib.context import cpu
from reflib.operator import OpEnv
from device import get
from reflib.test_utils import check_op_gradient, numeric_grad, op_forward
from op_golden import GoldenCases, infer_shapes

GOLDEN = GoldenCases('ops_norm.npz')
rng = np.random.RandomState(7)


def infer(name, in_shapes, params=None, out_shapes=None):
    """(input shapes, output shapes) after shape inference, hidden outputs included."""
    return infer_shapes(name, params or {}, in_shapes, out_shapes)


def backward(name, params, heads, inputs, outputs):
    """One operator's input gradients (a training pass)."""
    op = get(name)
    return op.backward(op.parse_params(params), OpEnv(cpu(), True), heads, inputs, outputs, [])


def rand(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, size=shape)


# ============================================================ 1. golden values from MXNet
@pytest.mark.parametrize('i', GOLDEN.indices(), ids=GOLDEN.ids())
def test_golden_case(i):
    GOLDEN.check(i)


def test_golden_covers_every_operator():
    names = GOLDEN.operator_names()
    for name in ['LRN', 'LayerNorm', 'InstanceNorm', 'GroupNorm', 'L2Normalization', 'SVMOutput',
                 'softmax_cross_entropy', 'CTCLoss', 'SoftmaxActivation']:
        assert name in names, name


@pytest.mark.parametrize('alias', ['ctc_loss', '_contrib_CTCLoss', '_contrib_ctc_loss'])
def test_ctc_aliases(alias):
    assert get(alias) is get('CTCLoss')


def test_names_and_defaults():
    """MXNet 1.9.1's defaults, input names and visible outputs."""
    def parsed(name, **kw):
        return get(name).parse_params(kw)
    p = parsed('LRN', nsize=5)
    assert (p.alpha, p.beta, p.knorm) == (1e-4, 0.75, 2.0)
    assert get('LRN').outputs(p)[:get('LRN').visible_outputs(p)] == ['output']
    assert parsed('LayerNorm').axis == -1 and parsed('LayerNorm').eps == 1e-5
    assert parsed('InstanceNorm').eps == 1e-3
    assert parsed('GroupNorm').num_groups == 1 and parsed('GroupNorm').eps == 1e-5
    assert parsed('L2Normalization').mode == 'instance' and parsed('L2Normalization').eps == 1e-10
    svm = parsed('SVMOutput')
    assert (svm.margin, svm.regularization_coefficient, svm.use_linear) == (1.0, 1.0, False)
    ctc = get('CTCLoss')
    assert ctc.inputs(parsed('CTCLoss', use_label_lengths=True)) == ['data', 'label', 'label_lengths']
    both = parsed('CTCLoss', use_data_lengths=True, use_label_lengths=True)
    assert ctc.inputs(both) == ['data', 'label', 'data_lengths', 'label_lengths']
    assert ctc.outputs(both) == ['output0'] and parsed('CTCLoss').blank_label == 'first'
    with pytest.raises(ParamError, match='nsize'):
        get('LRN').parse_params({})


def test_kl_sparse_reg_two_training_steps():
    """MXNet's outputs, gradients and moving averages, the average updated in backward."""
    arrays, meta = GOLDEN.arrays, GOLDEN.meta['kl_sparse_reg']
    op = get('IdentityAttachKLSparseReg')
    p = op.parse_params(meta['params'])
    assert ['node_' + n for n in op.aux(p)] == meta['aux_names']
    assert op.aux_init(p) == {'moving_avg': 'zero'} and meta['aux_init'] == '["zero", {}]'
    env = OpEnv(cpu(), True)
    avg = arrays['kl_aux0'].copy()
    for step in (1, 2):
        x = arrays['kl_in%d' % step]
        before = avg.copy()
        out = op.forward(p, env, [x], [avg])
        np.testing.assert_array_equal(out[0], arrays['kl_out%d' % step])
        np.testing.assert_array_equal(avg, before)                  # forward leaves it
        grad = op.backward(p, env, [arrays['kl_head%d' % step]], [x], out, [avg])[0]
        np.testing.assert_allclose(avg, arrays['kl_aux%d' % step], rtol=1e-6)
        np.testing.assert_allclose(grad, arrays['kl_grad%d' % step], rtol=1e-5, atol=1e-6)
        assert grad.dtype == avg.dtype == np.float32


# ============================================================ 2. finite differences
@pytest.mark.parametrize('nsize,params', [(3, {}), (4, {'alpha': 0.5, 'beta': 1.3, 'knorm': 1.0}),
                                          (1, {'alpha': 2.0}), (7, {'alpha': 0.8, 'knorm': 0.5})])
def test_lrn_gradient(nsize, params):
    check_op_gradient('LRN', [rand(2, 5, 2, 2)], dict(params, nsize=nsize))


@pytest.mark.parametrize('name,shape,params', [
    ('LayerNorm', (2, 3, 4), {}),
    ('LayerNorm', (3, 2, 2), {'axis': 0, 'eps': 0.1}),
    ('LayerNorm', (5,), {}),
    ('InstanceNorm', (2, 3, 2, 2), {}),
    ('InstanceNorm', (2, 2, 3), {'eps': 0.2}),
    ('GroupNorm', (2, 4, 3), {'num_groups': 2}),
    ('GroupNorm', (1, 6, 2, 2), {'num_groups': 3, 'eps': 0.01}),
])
def test_per_sample_norm_gradient(name, shape, params):
    op = get(name)
    channels = infer(name, [shape, None, None], params)[0][1]
    check_op_gradient(name, [rand(*shape), rand(*channels), rand(*channels)], params)
    assert op.visible_outputs(op.parse_params(params)) == 1


@pytest.mark.parametrize('mode,shape', [('instance', (2, 3, 2)), ('channel', (2, 3, 2)),
                                        ('spatial', (2, 2, 2, 2)), ('instance', (4,))])
def test_l2_normalization_gradient(mode, shape):
    check_op_gradient('L2Normalization', [rand(*shape)], {'mode': mode, 'eps': 0.01})


def test_softmax_cross_entropy_gradient():
    grads = check_op_gradient('softmax_cross_entropy', [rand(4, 5), np.array([0, 4, 2, 2.0])], grad_inputs=[0])
    assert grads[1] is None


@pytest.mark.parametrize('params', [{}, {'use_linear': True}, {'margin': 0.5, 'regularization_coefficient': 2.5},
                                    {'use_linear': True, 'margin': 1.5, 'regularization_coefficient': 0.3}])
def test_svm_output_is_hinge_gradient(params):
    """SVMOutput's gradient is that of c * sum(max(m -/+ x, 0) ** q), q = 1 or 2, whatever the head."""
    m, c = params.get('margin', 1.0), params.get('regularization_coefficient', 1.0)
    q = 1 if params.get('use_linear') else 2
    x = rand(3, 2, 4)
    # keep scores away from the hinges, where the loss has no derivative
    x[np.abs(np.abs(x) - m) < 0.05] += 0.2
    label = np.array([[0, 3], [2, 2], [1, 0]], dtype=np.float64)
    true = np.arange(4) == label[..., None]

    def loss():
        hinge = np.where(true, np.maximum(m - x, 0), np.maximum(m + x, 0))
        return c * (hinge ** q).sum()

    outs = op_forward('SVMOutput', [x, label], params, is_train=True)[0]
    grads = backward('SVMOutput', params, [np.full(x.shape, 123.0)], [x, label], outs)
    np.testing.assert_allclose(grads[0], numeric_grad(loss, x, 1e-6), rtol=1e-6, atol=1e-6)
    assert grads[1] is None and get('SVMOutput').is_loss


@pytest.mark.parametrize('mode,shape', [('instance', (3, 4)), ('instance', (5,)), ('channel', (2, 3, 2)),
                                        ('channel', (2, 3, 2, 2))])
def test_softmax_activation_gradient(mode, shape):
    check_op_gradient('SoftmaxActivation', [rand(*shape)], {'mode': mode})


def test_softmax_activation_instance_quirk():
    """MXNet 1.9.1, instance mode, 3-d data: softmax over the last axis, backward along axis 1."""
    x, g = rand(2, 3, 4), rand(2, 3, 4)
    y = op_forward('SoftmaxActivation', [x])[0][0]
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=-1, keepdims=True), rtol=1e-12)
    dx = backward('SoftmaxActivation', {}, [g], [x], [y])[0]
    np.testing.assert_allclose(dx, y * (g - (g * y).sum(axis=1, keepdims=True)), rtol=1e-12)


CTC_LABELS = np.array([[1, 2, 0], [3, 3, 0], [2, 1, 2]], dtype=np.float64)


@pytest.mark.parametrize('params,extra', [
    ({}, []),
    ({'blank_label': 'last'}, None),
    ({'use_data_lengths': True}, [np.array([3, 5, 4.0])]),
    ({'use_data_lengths': True, 'use_label_lengths': True}, [np.array([5, 2, 4.0]), np.array([1, 2, 2.0])]),
])
def test_ctc_gradient(params, extra):
    labels = CTC_LABELS
    if extra is None:                       # blank last: symbol 3 is blank, -1 pads
        labels, extra = np.array([[0, 1, -1], [2, 2, -1], [1, 0, 1]], dtype=np.float64), []
    grads = check_op_gradient('CTCLoss', [rand(5, 3, 4), labels] + extra, params, grad_inputs=[0])
    assert all(g is None for g in grads[1:])
    if params.get('use_data_lengths'):
        steps = extra[0].astype(int)
        for n, t in enumerate(steps):
            assert not grads[0][t:, n].any()


# ============================================================ 3. CTC by brute force
def _ctc_brute_force(scores, label, blank):
    """-log of the summed probability of every path that collapses to ``label``."""
    steps, classes = scores.shape
    prob = np.exp(scores - scores.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(classes), repeat=steps):
        merged = [s for i, s in enumerate(path) if i == 0 or s != path[i - 1]]
        if [s for s in merged if s != blank] == list(label):
            total += np.prod(prob[np.arange(steps), path])
    return -np.log(total)


@pytest.mark.parametrize('blank_label', ['first', 'last'])
def test_ctc_loss_is_the_sum_over_paths(blank_label):
    scores = rand(5, 4, 3)
    if blank_label == 'first':
        labels, blank, pad = np.array([[1, 2, 0], [2, 2, 0], [0, 0, 0], [1, 0, 2]]), 0, 0
    else:
        labels, blank, pad = np.array([[0, 1, -1], [1, 1, -1], [-1, -1, -1], [0, -1, 1]]), 2, -1
    loss = op_forward('CTCLoss', [scores, labels.astype(np.float64)], {'blank_label': blank_label})[0][0]
    for n in range(4):
        # the label ends at its first padding value (sample 3: one symbol)
        label = labels[n][:list(labels[n]).index(pad)] if pad in labels[n] else labels[n]
        np.testing.assert_allclose(loss[n], _ctc_brute_force(scores[:, n], label, blank), rtol=1e-10)


def test_ctc_gives_up_like_mxnet():
    """Labels needing more steps than the sample has: loss 0 and no gradient (MXNet's loss is 0)."""
    scores = rand(4, 2, 3)
    labels = np.array([[1, 1, 1], [1, 2, 0]], dtype=np.float64)        # 1,1,1 needs 5 steps
    loss = op_forward('CTCLoss', [scores, labels])[0][0]
    assert loss[0] == 0 and loss[1] > 0
    grad = backward('CTCLoss', {}, [np.ones(2)], [scores, labels], [loss])[0]
    assert not grad[:, 0].any() and grad[:, 1].any()


def test_ctc_float32_stays_float32():
    scores, labels = rand(4, 2, 3).astype(np.float32), np.array([[1, 2], [2, 0]], np.float32)
    assert op_forward('CTCLoss', [scores, labels])[0][0].dtype == np.float32


# ============================================================ 4. shapes and bad input
class TestShapes:
    def test_layer_norm_both_ways(self):
        assert infer('LayerNorm', [(2, 3, 4), None, None]) == ([(2, 3, 4), (4,), (4,)], [(2, 3, 4), (2, 3, 1),
                                                                                           (2, 3, 1)])
        assert infer('LayerNorm', [(2, 3, 4), None, None], {'axis': 1})[0][1] == (3,)
        assert infer('LayerNorm', [None, None, None], out_shapes=[(2, 5), None, None])[0] == [(2, 5), (5,), (5,)]
        with pytest.raises(ShapeError, match=r"LayerNorm: input gamma"):
            infer('LayerNorm', [(2, 3, 4), (3,), None])
        with pytest.raises(ShapeError, match='LayerNorm: axis=3 is out of range'):
            infer('LayerNorm', [(2, 3, 4), None, None], {'axis': 3})

    def test_instance_and_group_norm(self):
        assert infer('InstanceNorm', [(2, 3, 4), None, None])[0] == [(2, 3, 4), (3,), (3,)]
        assert infer('GroupNorm', [(2, 6, 4), None, None], {'num_groups': 3}) == \
            ([(2, 6, 4), (3,), (3,)], [(2, 6, 4), (2, 3), (2, 3)])
        for name in ('InstanceNorm', 'GroupNorm'):
            with pytest.raises(ShapeError, match=r'%s: input data must have at least 3 dims, got shape \(2,3\)'
                               % name):
                infer(name, [(2, 3), None, None])
        with pytest.raises(ShapeError, match=r'GroupNorm: the 6 channels .* num_groups=4'):
            infer('GroupNorm', [(2, 6, 3), None, None], {'num_groups': 4})
        with pytest.raises(ParamError, match="num_groups"):
            get('GroupNorm').parse_params({'num_groups': 0})

    def test_norm_forward_checks_gamma(self):
        with pytest.raises(ShapeError, match=r"GroupNorm: 'gamma' must have shape \(2,\)"):
            op_forward('GroupNorm', [np.ones((1, 4, 2)), np.ones(4), np.ones(2)], {'num_groups': 2})

    def test_lrn_and_l2(self):
        assert infer('LRN', [(2, 3, 4, 5)], {'nsize': 3}) == ([(2, 3, 4, 5)], [(2, 3, 4, 5), (2, 3, 4, 5)])
        with pytest.raises(ShapeError, match=r"LRN: input 'data' must be 4-d \(N, C, H, W\), got shape \(2,3\)"):
            infer('LRN', [(2, 3)], {'nsize': 3})
        with pytest.raises(ParamError, match="LRN: parameter 'nsize' must be at least 1"):
            get('LRN').parse_params({'nsize': 0})
        assert infer('L2Normalization', [(2, 3)])[1][0] == (2, 3)
        assert infer('L2Normalization', [(2, 3, 4)], {'mode': 'spatial'})[1] == [(2, 3, 4), (2, 3, 1)]
        for mode in ('channel', 'spatial'):
            with pytest.raises(ShapeError, match=r"L2Normalization: mode='%s' needs input 'data' with at least "
                                                 r"3 dims, got shape \(2,3\)" % mode):
                infer('L2Normalization', [(2, 3)], {'mode': mode})

    def test_softmax_activation(self):
        assert infer('SoftmaxActivation', [(2, 3)]) == ([(2, 3)], [(2, 3)])
        with pytest.raises(ShapeError, match=r"SoftmaxActivation: mode='channel' needs input 'data' with at least "
                                             r"3 dims, got shape \(2,3\)"):
            infer('SoftmaxActivation', [(2, 3)], {'mode': 'channel'})

    def test_kl_sparse_reg(self):
        op = get('IdentityAttachKLSparseReg')
        p = op.parse_params({})
        assert op.infer_shape(p, [(4, 3)], [None], [None]) == ([(4, 3)], [(4, 3)], [(3,)])
        with pytest.raises(ShapeError, match=r"IdentityAttachKLSparseReg: input 'data' must be 2-d \(batch, units\), "
                                             r"got shape \(4,3,2\)"):
            op.infer_shape(p, [(4, 3, 2)], [None], [None])

    def test_svm_output(self):
        assert infer('SVMOutput', [(4, 5), None]) == ([(4, 5), (4,)], [(4, 5)])
        assert infer('SVMOutput', [(2, 3, 4), None])[0][1] == (2, 3)
        assert infer('SVMOutput', [None, None], out_shapes=[(4, 5)])[0] == [(4, 5), (4,)]
        with pytest.raises(ShapeError, match=r"SVMOutput: input 'label' has shape \(5\), but data \(4,5\) "
                                             r"needs \(4\)"):
            infer('SVMOutput', [(4, 5), (5,)])

    def test_softmax_cross_entropy(self):
        assert infer('softmax_cross_entropy', [(4, 5), None]) == ([(4, 5), (4,)], [(1,)])
        with pytest.raises(ShapeError, match=r"softmax_cross_entropy: input 'data' must be 2-d"):
            infer('softmax_cross_entropy', [(2, 3, 4), None])
        with pytest.raises(ShapeError, match=r"softmax_cross_entropy: input 'label' must be 1-d"):
            infer('softmax_cross_entropy', [(4, 5), (4, 5)])
        with pytest.raises(ShapeError, match=r"softmax_cross_entropy: input 'label'"):
            infer('softmax_cross_entropy', [(4, 5), (3,)])
        with pytest.raises(MXNetError, match=r'softmax_cross_entropy: every label must be a class index in \[0, 5\)'):
            op_forward('softmax_cross_entropy', [np.ones((2, 5)), np.array([1.0, 5.0])])

    def test_ctc(self):
        params = {'use_data_lengths': True, 'use_label_lengths': True}
        assert infer('CTCLoss', [(6, 3, 5), (3, 4), None, None], params) == \
            ([(6, 3, 5), (3, 4), (3,), (3,)], [(3,)])
        assert infer('CTCLoss', [(6, 0, 5), None], out_shapes=[(3,)])[0] == [(6, 3, 5), None]
        with pytest.raises(ShapeError, match=r"CTCLoss: labels of 7 symbols \(input 'label' \(3,7\)\) cannot fit "
                                             r"6 steps"):
            infer('CTCLoss', [(6, 3, 5), (3, 7)])
        with pytest.raises(ShapeError, match=r"CTCLoss: input 'label' must be 2-d"):
            infer('CTCLoss', [(6, 3, 5), (3,)])
        with pytest.raises(ShapeError, match=r"CTCLoss: input 'label' \(N, L\) against data"):
            infer('CTCLoss', [(6, 3, 5), (2, 4)])

    def test_ctc_bad_values(self):
        scores = np.zeros((4, 2, 3))
        with pytest.raises(MXNetError, match=r"CTCLoss: input 'label' holds a symbol outside \[0, 3\)"):
            op_forward('CTCLoss', [scores, np.array([[1, 3], [1, 0.0]])])
        with pytest.raises(MXNetError, match=r"CTCLoss: input 'data_lengths' must hold lengths in \[0, 4\]"):
            op_forward('CTCLoss', [scores, np.array([[1, 2], [1, 0.0]]), np.array([5, 1.0])],
                       {'use_data_lengths': True})
        with pytest.raises(MXNetError, match=r"CTCLoss: input 'label_lengths' must hold lengths in \[0, 2\]"):
            op_forward('CTCLoss', [scores, np.array([[1, 2], [1, 0.0]]), np.array([3, 1.0])],
                       {'use_label_lengths': True})
