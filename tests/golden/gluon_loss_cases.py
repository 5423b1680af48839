"""gluon.loss: the same calls under MXNet 1.9.1 (gen_gluon_loss.py records gluon_loss.json)
and under reflib (test_gluon_loss.py).

Each case builds a loss, feeds it numpy inputs (a seeded RandomState, never a library's
generator) and records the per-sample loss and the gradient w.r.t. the prediction, once
imperatively and once hybridized.  A few cases call the loss on Symbols and run the graph
through an executor, and a few record only that the library refuses ('error')."""

import numpy as np


def _v(arr):
    return np.round(arr.asnumpy().astype(np.float64), 5).tolist()


def _try(fn):
    try:
        return fn()
    except Exception:       # noqa: BLE001  (the case records only that the library refused)
        return 'error'


def _rng(seed):
    return np.random.RandomState(seed)


# ------------------------------------------------------------------ the cases
# name -> (class name, constructor keywords, inputs(rng) -> list of numpy arrays or None);
# the first input is the prediction, the one differentiated.
def _pair(shape, label=None, sw=None):
    """pred of ``shape`` from randn, label from ``label(rng)`` (randn of pred's shape by
    default), optionally a sample weight of shape ``sw`` from rand."""
    def make(rng):
        pred = rng.randn(*shape)
        lab = rng.randn(*shape) if label is None else label(rng)
        args = [pred, lab]
        if sw is not None:
            args.append(rng.rand(*sw) + 0.5)
        return args
    return make


def _signs(shape):
    return lambda rng: np.where(rng.rand(*shape) > 0.5, 1., -1.)


def _bits(shape):
    return lambda rng: (rng.rand(*shape) > 0.5).astype(np.float64)


def _classes(shape, n):
    return lambda rng: rng.randint(0, n, size=shape).astype(np.float64)


def _distribution(shape, axis=-1):
    def make(rng):
        e = np.exp(rng.randn(*shape))
        return e / e.sum(axis=axis, keepdims=True)
    return make


def _bce(from_sigmoid, sw=None, pos_weight=None):
    def make(rng):
        pred = rng.rand(4, 3) * 0.9 + 0.05 if from_sigmoid else rng.randn(4, 3) * 3
        args = [pred, rng.rand(4, 3), None if sw is None else rng.rand(*sw) + 0.5]
        if pos_weight is not None:
            args.append(rng.rand(*pos_weight) * 3)
        return args
    return make


def _ctc(layout='NTC', label_tn=False, pred_len=False, label_len=False, sw=False):
    def make(rng):
        T, N, C = 6, 3, 5
        pred = rng.randn(N, T, C) if layout == 'NTC' else rng.randn(T, N, C)
        if label_len:
            # the padding after each row's length is ignored, so anything goes there
            label = np.array([[1, 2, 0], [3, 3, 2], [0, 1, 1]], np.float64)
        else:
            label = np.array([[1, 2, -1], [3, 3, -1], [0, -1, -1]], np.float64)
        if label_tn:
            label = label.T
        return [pred, label,
                np.array([6, 4, 5], np.float64) if pred_len else None,
                np.array([2, 3, 1], np.float64) if label_len else None,
                rng.rand(N) + 0.5 if sw else None]
    return make


def _poisson(from_logits):
    def make(rng):
        pred = rng.randn(3, 4) if from_logits else rng.rand(3, 4) * 3 + 0.2
        return [pred, rng.rand(3, 4) * 4 + 0.5]
    return make


def _cosine(sw=None):
    def make(rng):
        args = [rng.randn(4, 3), rng.randn(4, 3), np.array([1., -1., -1., 1.])]
        if sw is not None:
            args.append(rng.rand(*sw) + 0.5)
        return args
    return make


def _triplet(shape):
    return lambda rng: [rng.randn(*shape), rng.randn(*shape), rng.randn(*shape)]


CASES = {
    'L2Loss': ('L2Loss', {}, _pair((4, 3))),
    'L2Loss weight, sample_weight (4,1)': ('L2Loss', {'weight': 0.7}, _pair((4, 3), sw=(4, 1))),
    'L2Loss flat label': ('L2Loss', {}, _pair((4, 1), label=lambda rng: rng.randn(4))),
    'L2Loss batch_axis=1': ('L2Loss', {'batch_axis': 1}, _pair((3, 4))),
    'L2Loss 3-d': ('L2Loss', {}, _pair((2, 3, 2), sw=(2, 1, 1))),
    'L1Loss': ('L1Loss', {}, _pair((4, 3))),
    'L1Loss weight, elementwise sample_weight': ('L1Loss', {'weight': 2.5}, _pair((4, 3), sw=(4, 3))),
    'SigmoidBCELoss': ('SigmoidBCELoss', {}, _bce(False)),
    'SigmoidBCELoss weight, sample_weight': ('SigmoidBCELoss', {'weight': 0.5}, _bce(False, sw=(4, 1))),
    'SigmoidBCELoss pos_weight': ('SigmoidBCELoss', {}, _bce(False, pos_weight=(1, 3))),
    'SigmoidBCELoss from_sigmoid': ('SigmoidBinaryCrossEntropyLoss', {'from_sigmoid': True}, _bce(True)),
    'SigmoidBCELoss from_sigmoid pos_weight, sample_weight': (
        'SigmoidBCELoss', {'from_sigmoid': True}, _bce(True, sw=(4, 1), pos_weight=(1, 3))),
    'SoftmaxCELoss': ('SoftmaxCELoss', {}, _pair((4, 5), label=_classes((4,), 5))),
    'SoftmaxCELoss label (N,1), sample_weight, weight': (
        'SoftmaxCrossEntropyLoss', {'weight': 1.5}, _pair((4, 5), label=_classes((4, 1), 5), sw=(4, 1))),
    'SoftmaxCELoss axis=1 3-d': ('SoftmaxCELoss', {'axis': 1}, _pair((2, 3, 4), label=_classes((2, 4), 3))),
    'SoftmaxCELoss dense label': ('SoftmaxCELoss', {'sparse_label': False},
                                  _pair((4, 5), label=_distribution((4, 5)))),
    'SoftmaxCELoss from_logits': ('SoftmaxCELoss', {'from_logits': True},
                                  _pair((4, 5), label=_classes((4,), 5))),
    'KLDivLoss': ('KLDivLoss', {}, _pair((4, 5), label=_distribution((4, 5)))),
    'KLDivLoss from_logits=False axis=1, sample_weight': (
        'KLDivLoss', {'from_logits': False, 'axis': 1}, _pair((3, 4, 2), label=_distribution((3, 4, 2), 1),
                                                              sw=(3, 1, 1))),
    'CTCLoss NTC': ('CTCLoss', {}, _ctc()),
    'CTCLoss TNC': ('CTCLoss', {'layout': 'TNC'}, _ctc('TNC')),
    'CTCLoss TNC, TN labels': ('CTCLoss', {'layout': 'TNC', 'label_layout': 'TN'}, _ctc('TNC', label_tn=True)),
    'CTCLoss pred_lengths': ('CTCLoss', {}, _ctc(pred_len=True)),
    'CTCLoss label_lengths': ('CTCLoss', {}, _ctc(label_len=True)),
    'CTCLoss both lengths, weight, sample_weight': ('CTCLoss', {'weight': 0.5},
                                                    _ctc(pred_len=True, label_len=True, sw=True)),
    'HuberLoss': ('HuberLoss', {}, _pair((4, 3), label=lambda rng: rng.randn(4, 3) * 2)),
    'HuberLoss rho=0.5, sample_weight': ('HuberLoss', {'rho': 0.5},
                                         _pair((4, 3), label=lambda rng: rng.randn(4, 3) * 2, sw=(4, 1))),
    'HingeLoss': ('HingeLoss', {}, _pair((4, 3), label=_signs((4, 3)))),
    'HingeLoss margin=2, weight': ('HingeLoss', {'margin': 2, 'weight': 0.3}, _pair((4, 3), label=_signs((4, 3)))),
    'SquaredHingeLoss': ('SquaredHingeLoss', {}, _pair((4, 3), label=_signs((4, 3)))),
    'SquaredHingeLoss margin=0.5, sample_weight': ('SquaredHingeLoss', {'margin': 0.5},
                                                   _pair((4, 3), label=_signs((4, 3)), sw=(4, 1))),
    'LogisticLoss signed': ('LogisticLoss', {}, _pair((4, 3), label=_signs((4, 3)))),
    'LogisticLoss binary, sample_weight': ('LogisticLoss', {'label_format': 'binary'},
                                           _pair((4, 3), label=_bits((4, 3)), sw=(4, 1))),
    'TripletLoss': ('TripletLoss', {}, _triplet((4, 3))),
    'TripletLoss margin=3, weight, 3-d': ('TripletLoss', {'margin': 3, 'weight': 0.5}, _triplet((3, 2, 2))),
    'PoissonNLLLoss': ('PoissonNLLLoss', {}, _poisson(True)),
    'PoissonNLLLoss from_logits=False': ('PoissonNLLLoss', {'from_logits': False}, _poisson(False)),
    'PoissonNLLLoss compute_full, weight': ('PoissonNLLLoss', {'from_logits': False, 'compute_full': True,
                                                               'weight': 2.0}, _poisson(False)),
    'CosineEmbeddingLoss': ('CosineEmbeddingLoss', {}, _cosine()),
    'CosineEmbeddingLoss margin, sample_weight': ('CosineEmbeddingLoss', {'margin': 0.2}, _cosine(sw=(4, 1))),
}


# MXNet 1.9.1 writes compute_full's Stirling term with in-place operators, which its autograd
# refuses while recording and its Symbol refuses outright: only the plain forward is recorded
FORWARD_ONLY = {'PoissonNLLLoss compute_full, weight'}


def _build(mx, cls, kwargs):
    return getattr(mx.gluon.loss, cls)(**kwargs)


def _arguments(mx, make, seed):
    args = [None if v is None else mx.nd.array(v) for v in make(_rng(seed))]
    while args and args[-1] is None:        # trailing Nones: left to the defaults
        args.pop()
    return args


def _run_case(mx, cls, kwargs, make, seed, hybridize):
    loss = _build(mx, cls, kwargs)
    if hybridize:
        loss.hybridize()
    args = _arguments(mx, make, seed)
    pred = args[0]
    pred.attach_grad()
    with mx.autograd.record():
        out = loss(*args)
    out.backward()
    first = {'loss': _v(out), 'shape': list(out.shape), 'grad': _v(pred.grad)}
    if not hybridize:
        return first
    # a second call on the same block, which runs the graph cached by the first
    pred.grad[:] = 0
    with mx.autograd.record():
        again = loss(*args)
    again.backward()
    first['again'] = [_v(again), _v(pred.grad)]
    return first


def _forward_only(mx, cls, kwargs, make, seed):
    out = _build(mx, cls, kwargs)(*_arguments(mx, make, seed))
    return {'loss': _v(out), 'shape': list(out.shape)}


def _sdml(mx):
    rng = _rng(7)
    x1 = mx.nd.array(rng.randn(4, 3))
    x2 = mx.nd.array(rng.randn(4, 3))
    x1.attach_grad()
    loss = mx.gluon.loss.SDMLLoss(smoothing_parameter=0.2)
    with mx.autograd.record():
        out = loss(x1, x2)
    out.backward()
    return {'loss': _v(out), 'grad': _v(x1.grad)}


def _symbolic(mx, cls, kwargs, make, names, seed):
    """The loss called on Symbols, bound and run by an executor (as Module does)."""
    loss = _build(mx, cls, kwargs)
    values = make(_rng(seed))
    syms = [mx.sym.var(n) for n in names]
    out = mx.sym.make_loss(loss(*syms))
    arrays = {n: mx.nd.array(v) for n, v in zip(names, values)}
    grads = {names[0]: mx.nd.zeros(arrays[names[0]].shape)}
    exe = out.bind(mx.cpu(), args=arrays, args_grad=grads, grad_req={n: ('write' if n == names[0] else 'null')
                                                                       for n in names})
    exe.forward(is_train=True)
    exe.backward()
    return {'loss': _v(exe.outputs[0]), 'grad': _v(grads[names[0]]), 'arguments': out.list_arguments()}


def _repr(mx):
    return [repr(mx.gluon.loss.L2Loss()), repr(mx.gluon.loss.SoftmaxCELoss(weight=0.5, batch_axis=1)),
            repr(mx.gluon.loss.CTCLoss(label_layout='TN'))]


def run(mx):
    record = {}
    for i, (name, (cls, kwargs, make)) in enumerate(sorted(CASES.items())):
        if name in FORWARD_ONLY:
            record[name] = _try(lambda: _forward_only(mx, cls, kwargs, make, 100 + i))
            continue
        record[name] = _try(lambda: _run_case(mx, cls, kwargs, make, 100 + i, False))
        record[name + ' (hybridized)'] = _try(lambda: _run_case(mx, cls, kwargs, make, 100 + i, True))
    record['SDMLLoss'] = _try(lambda: _sdml(mx))
    record['symbolic SoftmaxCELoss with sample_weight'] = _try(lambda: _symbolic(
        mx, 'SoftmaxCELoss', {}, _pair((4, 5), label=_classes((4,), 5), sw=(4, 1)), ['pred', 'label', 'sw'], 1))
    record['symbolic SigmoidBCELoss pos_weight'] = _try(lambda: _symbolic(
        mx, 'SigmoidBCELoss', {}, lambda rng: _bce(False, sw=(4, 1), pos_weight=(1, 3))(rng),
        ['pred', 'label', 'sw', 'pw'], 2))
    record['symbolic CTCLoss TNC'] = _try(lambda: _symbolic(
        mx, 'CTCLoss', {'layout': 'TNC'}, lambda rng: _ctc('TNC')(rng)[:2], ['pred', 'label'], 3))
    record['symbolic HuberLoss'] = _try(lambda: _symbolic(
        mx, 'HuberLoss', {'rho': 0.7}, _pair((4, 3), label=lambda rng: rng.randn(4, 3) * 2), ['pred', 'label'], 4))
    record['symbolic CosineEmbeddingLoss'] = _try(lambda: _symbolic(
        mx, 'CosineEmbeddingLoss', {'margin': 0.1}, _cosine(), ['a', 'b', 'label'], 5))
    record['repr'] = _try(lambda: _repr(mx))
    record['LogisticLoss bad label_format'] = _try(lambda: mx.gluon.loss.LogisticLoss(label_format='pm1') and 'ok')
    record['CTCLoss bad layout'] = _try(lambda: mx.gluon.loss.CTCLoss(layout='NCT') and 'ok')
    record['L1Loss weight not a number'] = _try(lambda: _v(mx.gluon.loss.L1Loss(weight='2')(
        mx.nd.ones((2, 2)), mx.nd.zeros((2, 2)))))
    return record
