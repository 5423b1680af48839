"""gluon.loss (reflib/gluon/loss.py) against MXNet 1.9.1 (golden/gluon_loss.json, from
golden/gen_gluon_loss.py): every loss and its main options -- per-sample values and shapes,
the gradient w.r.t. the prediction, weight and sample_weight, hybridized and on Symbols --
then checks of reflib's own: hybridized equals imperative to the last bit (both run the
same operators), and the values equal the losses' textbook formulas in numpy."""

import json
import os
import sys

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
from gluon_loss_cases import CASES, FORWARD_ONLY, _arguments, _build, _run_case, run  # noqa: E402

with open(os.path.join(HERE, 'golden', 'gluon_loss.json')) as _f:
    GOLDEN = json.load(_f)
RESULTS = run(mx)


def _same(got, want):
    """Equal structure and values; numbers within float32 rounding (the cases round to 5
    decimals)."""
    if isinstance(want, dict):
        return isinstance(got, dict) and sorted(got) == sorted(want) and all(_same(got[k], want[k]) for k in want)
    if isinstance(want, (list, tuple)):
        return isinstance(got, (list, tuple)) and len(got) == len(want) and all(map(_same, got, want))
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return bool(np.isclose(got, want, rtol=1e-5, atol=2e-5, equal_nan=True))
    return got == want


def test_golden_has_every_case():
    assert sorted(RESULTS) == sorted(GOLDEN)


@pytest.mark.parametrize('case', sorted(GOLDEN))
def test_same_result_as_mxnet(case):
    assert _same(RESULTS[case], GOLDEN[case]), (RESULTS[case], GOLDEN[case])


@pytest.mark.parametrize('case', sorted(CASES))
def test_hybridized_is_bit_identical(case):
    """Unrounded: the traced graph runs the very operators the imperative call runs."""
    cls, kwargs, make = CASES[case]
    got = []
    for hybridize in (False, True):
        loss = _build(mx, cls, kwargs)
        if hybridize:
            loss.hybridize()
        args = _arguments(mx, make, 0)
        args[0].attach_grad()
        with mx.autograd.record():
            out = loss(*args)
        out.backward()
        got.append((out.asnumpy(), args[0].grad.asnumpy()))
    (imp, imp_grad), (hyb, hyb_grad) = got
    np.testing.assert_array_equal(imp, hyb)
    np.testing.assert_array_equal(imp_grad, hyb_grad)


def test_compute_full_records_and_hybridizes():
    """MXNet refuses compute_full under autograd and hybridized (its in-place operators);
    reflib runs it, and the gradient is that of the loss without the Stirling term, which
    does not depend on the prediction."""
    name = 'PoissonNLLLoss compute_full, weight'
    assert name in FORWARD_ONLY
    cls, kwargs, make = CASES[name]
    result = _run_case(mx, cls, kwargs, make, 0, True)
    pred, target = make(np.random.RandomState(0))
    want_grad = kwargs['weight'] * (1 - target / (pred + 1e-8)) / pred.size
    np.testing.assert_allclose(result['grad'], want_grad, rtol=1e-4, atol=1e-6)
    stirling = (target * np.log(target) - target + 0.5 * np.log(2 * np.pi * target)) * (target > 1)
    want = kwargs['weight'] * np.mean(pred - target * np.log(pred + 1e-8) + stirling)
    np.testing.assert_allclose(result['loss'], [want], rtol=1e-5)


# ------------------------------------------------------------------ formulas, in numpy
def _loss_of(cls, *arrays, **kwargs):
    out = getattr(mx.gluon.loss, cls)(**kwargs)(*[None if a is None else mx.nd.array(a) for a in arrays])
    return out.asnumpy().astype(np.float64)


def test_formulas():
    rng = np.random.RandomState(5)
    pred, label, sw = rng.randn(4, 3), rng.randn(4, 3), rng.rand(4, 1)
    close = dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_loss_of('L2Loss', pred, label, sw), (0.5 * (pred - label) ** 2 * sw).mean(1), **close)
    np.testing.assert_allclose(_loss_of('L1Loss', pred, label, weight=3.), 3 * abs(pred - label).mean(1), **close)
    z = (rng.rand(4, 3) > 0.5).astype(float)
    p = 1 / (1 + np.exp(-pred))
    bce = -(z * np.log(p) + (1 - z) * np.log(1 - p))
    np.testing.assert_allclose(_loss_of('SigmoidBCELoss', pred, z), bce.mean(1), **close)
    pos_weight = rng.rand(1, 3) * 4
    weighted = -(pos_weight * z * np.log(p) + (1 - z) * np.log(1 - p))
    np.testing.assert_allclose(_loss_of('SigmoidBCELoss', pred, z, None, pos_weight), weighted.mean(1), **close)
    np.testing.assert_allclose(_loss_of('SigmoidBCELoss', p, z, None, pos_weight, from_sigmoid=True),
                               weighted.mean(1), rtol=1e-4, atol=1e-5)
    classes = np.array([0, 2, 1, 2])
    logp = pred - np.log(np.exp(pred).sum(1, keepdims=True))
    np.testing.assert_allclose(_loss_of('SoftmaxCELoss', pred, classes), -logp[np.arange(4), classes], **close)
    q = np.exp(label) / np.exp(label).sum(1, keepdims=True)
    np.testing.assert_allclose(_loss_of('KLDivLoss', logp, q), (q * (np.log(q) - logp)).sum(1), **close)
    err = abs(label - pred)
    huber = np.where(err > 0.5, err - 0.25, err ** 2)
    np.testing.assert_allclose(_loss_of('HuberLoss', pred, label, rho=0.5), huber.mean(1), **close)
    signs = np.sign(label)
    np.testing.assert_allclose(_loss_of('HingeLoss', pred, signs), np.maximum(0, 1 - pred * signs).mean(1), **close)
    np.testing.assert_allclose(_loss_of('SquaredHingeLoss', pred, signs),
                               (np.maximum(0, 1 - pred * signs) ** 2).mean(1), **close)
    np.testing.assert_allclose(_loss_of('LogisticLoss', pred, signs), np.log1p(np.exp(-pred * signs)).mean(1), **close)
    pos, neg = rng.randn(4, 3), rng.randn(4, 3)
    triplet = np.maximum(0, ((pos - pred) ** 2).sum(1) - ((neg - pred) ** 2).sum(1) + 1)
    np.testing.assert_allclose(_loss_of('TripletLoss', pred, pos, neg), triplet, **close)
    cos = (pred * label).sum(1) / np.linalg.norm(pred, axis=1) / np.linalg.norm(label, axis=1)
    y = np.array([1., -1., 1., -1.])
    want = np.where(y == 1, 1 - cos, np.maximum(0, cos - 0.1))[:, None]
    np.testing.assert_allclose(_loss_of('CosineEmbeddingLoss', pred, label, y, margin=0.1), want, **close)


def test_ctc_matches_mxnet_documented_values():
    """All-ones scores (uniform over 4 classes, 20 steps), blank last, -1 padding: the values
    of MXNet's own test, whatever the layouts and lengths."""
    want = [18.82820702, 16.50581741]
    labels = np.array([[1, 0, -1, -1], [2, 1, 1, -1]])
    loss = mx.gluon.loss.CTCLoss
    np.testing.assert_allclose(_loss_of('CTCLoss', np.ones((2, 20, 4)), labels), want, rtol=1e-5)
    np.testing.assert_allclose(loss(layout='TNC', label_layout='TN')(mx.nd.ones((20, 2, 4)), mx.nd.array(labels.T))
                               .asnumpy(), want, rtol=1e-5)
    np.testing.assert_allclose(loss()(mx.nd.ones((2, 25, 4)), mx.nd.array([[2, 1, 3, 3], [3, 2, 2, 3]]),
                                      mx.nd.array([20, 20]), mx.nd.array([2, 3])).asnumpy(), want, rtol=1e-5)


def test_sample_weight_broadcasts_and_zero_weight_zeroes_gradient():
    rng = np.random.RandomState(1)
    pred = mx.nd.array(rng.randn(4, 5))
    pred.attach_grad()
    sw = mx.nd.array([[1.], [0.], [2.], [0.]])
    loss = mx.gluon.loss.SoftmaxCELoss()
    with mx.autograd.record():
        out = loss(pred, mx.nd.array([0, 1, 2, 3]), sw)
    out.backward()
    assert out.shape == (4,)
    assert out.asnumpy()[1] == 0 and out.asnumpy()[3] == 0
    assert not pred.grad.asnumpy()[[1, 3]].any()


def test_errors_name_the_culprit():
    with pytest.raises(ValueError, match="label_format"):
        mx.gluon.loss.LogisticLoss(label_format='pm1')
    with pytest.raises(AssertionError, match="layout"):
        mx.gluon.loss.CTCLoss(layout='NCT')
    with pytest.raises(AssertionError, match="label_layout"):
        mx.gluon.loss.CTCLoss(label_layout='NTC')
    with pytest.raises(AssertionError, match="weight must be a number"):
        mx.gluon.loss.L1Loss(weight='2')(mx.nd.ones((2, 2)), mx.nd.zeros((2, 2)))
    sdml = mx.gluon.loss.SDMLLoss()
    with pytest.raises(MXNetError, match='NDArrays only'):
        sdml(mx.sym.var('a'), mx.sym.var('b'))
    with pytest.raises(AssertionError, match=r'\(batch, dim\)'):
        sdml(mx.nd.ones((3, 2)), mx.nd.ones((3, 4)))


def test_aliases_and_exports():
    loss = mx.gluon.loss
    assert loss.SigmoidBCELoss is loss.SigmoidBinaryCrossEntropyLoss
    assert loss.SoftmaxCELoss is loss.SoftmaxCrossEntropyLoss
    for name in loss.__all__:
        assert isinstance(getattr(loss, name), type)
    assert isinstance(loss.L2Loss(), mx.gluon.HybridBlock)
