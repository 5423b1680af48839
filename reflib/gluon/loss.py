"""``gluon.loss``: the training objectives, each a HybridBlock.

A loss is called as ``loss(pred, label[, sample_weight])`` and returns one value per sample:
a vector of length batch size, every axis but ``batch_axis`` averaged (or, for a few losses,
summed) away.  Two weights scale it:

* ``weight`` (a number, given at construction) multiplies every value;
* ``sample_weight`` (an array, given at the call) is multiplied in *before* the reduction,
  by broadcasting: shape ``(batch, 1)`` weighs whole samples, the prediction's own shape
  weighs single elements.

Every loss is written over ``F``'s operators, so it runs operator by operator on NDArrays
(and on the autograd tape when recording), inside a Symbol graph when called on Symbols
(``loss(net_output_symbol, mx.sym.var('label'))`` then ``make_loss`` for a Module), and as
its own traced graph after ``hybridize()`` -- the same numbers and gradients each way.
The labels are never differentiated here: their gradients exist but nobody asks for them.
"""

import numpy as np

from .. import ndarray
from ..base import numeric_types
from .block import HybridBlock
from .parameter import GluonAssertionError, GluonValueError

__all__ = ['Loss', 'L2Loss', 'L1Loss',
           'SigmoidBinaryCrossEntropyLoss', 'SigmoidBCELoss',
           'SoftmaxCrossEntropyLoss', 'SoftmaxCELoss',
           'KLDivLoss', 'CTCLoss', 'HuberLoss', 'HingeLoss',
           'SquaredHingeLoss', 'LogisticLoss', 'TripletLoss', 'PoissonNLLLoss', 'CosineEmbeddingLoss', 'SDMLLoss']


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    """``loss`` times the broadcast ``sample_weight`` (if any), then times the number
    ``weight`` (if any) -- in that order, which fixes the float32 rounding."""
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, numeric_types):
            raise GluonAssertionError('the loss weight must be a number, got %r of type %s'
                                      % (weight, type(weight).__name__))
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """``x`` (a label) in the shape of ``y`` (the prediction): a label may come flat, as
    ``(batch,)`` for a ``(batch, 1)`` prediction.  Only the element counts must agree."""
    if F is ndarray:
        return x.reshape(y.shape)
    return F.reshape_like(x, y)


class Loss(HybridBlock):
    """The base of the losses: ``weight`` (a number or None) scales the loss, ``batch_axis``
    is the axis of the samples, the one the per-sample reduction keeps."""

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return '%s(batch_axis=%s, w=%s)' % (type(self).__name__, self._batch_axis, self._weight)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """Compute the loss of each sample; every loss class defines it (call the loss, not this).

        Most losses take ``(F, pred, label, sample_weight=None)``; those that take other inputs
        (TripletLoss, CTCLoss, CosineEmbeddingLoss, SDMLLoss, ...) list them in their class
        docstring.

        Args:
            F: ``mx.nd`` or ``mx.sym``, the operators to compute with (see HybridBlock).
            pred: the prediction.
            label: the target.  Most losses reshape a label that has the prediction's number of
                elements but another shape (``(batch,)`` for ``(batch, 1)``) to the prediction's.
            sample_weight: optional weights, broadcast against the element-wise loss and multiplied
                in before the reduction.

        Returns:
            The loss per sample, of shape ``(batch,)`` (the axes other than ``batch_axis`` reduced),
            scaled by ``weight`` when it was given; a few losses differ (see their class docstring).

        >>> loss = mx.gluon.loss.L1Loss()
        >>> loss(mx.nd.array([[1, 2], [3, 4]]), mx.nd.array([[1, 0], [3, 5]]))
        <BLANKLINE>
        [1.  0.5]
        <NDArray 2 @cpu(0)>
        """
        raise NotImplementedError('%s must define hybrid_forward(F, pred, label, ...)' % type(self).__name__)

    def _per_sample_mean(self, F, loss):
        """The mean over every axis but the batch axis."""
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class L2Loss(Loss):
    """Half the mean squared error: ``weight / 2 * (label - pred)**2``, averaged per sample.

    Note the default ``weight`` is 1 (so the factor is 1/2), unlike the other losses."""

    def __init__(self, weight=1., batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(label - pred)
        # MXNet computes weight / 2 and would fail on weight=None; None here means 1
        half = 0.5 if self._weight is None else self._weight / 2
        loss = _apply_weighting(F, loss, half, sample_weight)
        return self._per_sample_mean(F, loss)


class L1Loss(Loss):
    """The mean absolute error ``|label - pred|``, averaged per sample."""

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._per_sample_mean(F, loss)


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross entropy ``-(pos_weight * z * log(p) + (1 - z) * log(1 - p))`` with
    ``p = sigmoid(pred)`` and label ``z`` in [0, 1]; averaged per sample.

    ``from_sigmoid=False`` (default): ``pred`` is a score and the sigmoid is folded into the
    formula in a form that cannot overflow.  ``from_sigmoid=True``: ``pred`` is already the
    probability; 1e-12 is added inside the logarithms.  ``pos_weight`` (4th argument, an
    array broadcast against the label, e.g. ``(1, classes)``) weighs the positive term.
    """

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred)
        if not self._from_sigmoid:
            # softplus(-|x|) = log(1 + exp(-|x|)) never overflows, and
            # -log(sigmoid(x)) = relu(-x) + softplus(-|x|),  -log(1 - sigmoid(x)) = x + that.
            # The terms are created in the order the expression sums them: the autograd tape
            # adds up pred's gradient contributions in the order its operators ran, a traced
            # graph in the order of the expression, and only then do the two round alike.
            if pos_weight is None:
                loss = F.relu(pred) - pred * label + F.Activation(-F.abs(pred), act_type='softrelu')
            else:
                # (1 - z) * x + (1 + (pos_weight - 1) * z) * -log(sigmoid(x))
                scale = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = pred - pred * label + scale * (F.Activation(-F.abs(pred), act_type='softrelu')
                                                      + F.relu(-pred))
        else:
            eps = 1e-12
            positive = F.log(pred + eps) * label
            if pos_weight is not None:
                positive = F.broadcast_mul(positive, pos_weight)
            loss = -(positive + F.log(1. - pred + eps) * (1. - label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._per_sample_mean(F, loss)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """Cross entropy of ``softmax(pred)`` along ``axis`` against the label; averaged per sample.

    ``sparse_label=True`` (default): the label holds class indices, shaped as ``pred``
    without ``axis`` (or with ``axis`` of size 1).  ``False``: the label is a distribution
    of ``pred``'s shape.  ``from_logits=True``: ``pred`` is already a log-softmax.
    ``sample_weight`` broadcasts against the per-position loss, which keeps ``axis`` as a
    size-1 axis: ``(batch, 1)`` for a ``(batch, classes)`` prediction.
    """

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred)
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._per_sample_mean(F, loss)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """Kullback-Leibler divergence ``label * (log(label) - log_q)``, *summed* per sample.

    ``from_logits=True`` (default): ``pred`` is the log-probability ``log_q`` already;
    ``False``: ``log_softmax(pred, axis)`` is taken first.  1e-12 is added inside the label's
    logarithm so that zero probabilities contribute 0.
    """

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.sum(loss, axis=self._batch_axis, exclude=True)


class CTCLoss(Loss):
    """Connectionist temporal classification: ``-log P(label | pred)`` per sample, by the
    CTCLoss operator (reflib/operator/ctc.py) with the blank as the *last* class.

    ``layout``: the prediction's axes, 'NTC' (default) or 'TNC'; ``label_layout``: the
    label's, 'NT' (default) or 'TN'.  Labels are padded with -1.  Called as
    ``loss(pred, label, pred_lengths=None, label_lengths=None, sample_weight=None)``: the
    lengths, ``(batch,)`` arrays, say how much of each row counts.
    """

    def __init__(self, layout='NTC', label_layout='NT', weight=None, **kwargs):
        if layout not in ('NTC', 'TNC'):
            raise GluonAssertionError("CTCLoss: layout must be 'NTC' or 'TNC', got %r" % (layout,))
        if label_layout not in ('NT', 'TN'):
            raise GluonAssertionError("CTCLoss: label_layout must be 'NT' or 'TN', got %r" % (label_layout,))
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find('N'), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None, sample_weight=None):
        # the operator takes (time, batch, classes) and (batch, label length)
        if self._layout == 'NTC':
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        loss = F.CTCLoss(pred, label, pred_lengths, label_lengths,
                         use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None,
                         blank_label='last')
        return _apply_weighting(F, loss, self._weight, sample_weight)


class HuberLoss(Loss):
    """Smooth L1: ``|e| - rho/2`` where the error ``e = label - pred`` exceeds ``rho`` in
    size, ``e**2 / (2 rho)`` below; averaged per sample."""

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        err = F.abs(label - pred)
        loss = F.where(err > self._rho, err - 0.5 * self._rho, (0.5 / self._rho) * F.square(err))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._per_sample_mean(F, loss)


class HingeLoss(Loss):
    """The SVM hinge ``max(0, margin - pred * label)`` for labels -1/1; averaged per sample."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.relu(self._margin - pred * label)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._per_sample_mean(F, loss)


class SquaredHingeLoss(Loss):
    """The squared hinge ``max(0, margin - pred * label)**2`` for labels -1/1; averaged per
    sample."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(F.relu(self._margin - pred * label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._per_sample_mean(F, loss)


class LogisticLoss(Loss):
    """``log(1 + exp(-pred * label))`` for labels -1/1 (``label_format='signed'``, default)
    or 0/1 (``'binary'``); averaged per sample.  Signed labels are mapped to 0/1 and the
    same overflow-free form as SigmoidBCELoss is used."""

    def __init__(self, weight=None, batch_axis=0, label_format='signed', **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        if label_format not in ('signed', 'binary'):
            raise GluonValueError("LogisticLoss: label_format must be 'signed' or 'binary', got %r"
                                  % (label_format,))
        self._label_format = label_format

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == 'signed':
            label = (label + 1.0) / 2.0
        loss = F.relu(pred) - pred * label + F.Activation(-F.abs(pred), act_type='softrelu')
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._per_sample_mean(F, loss)


class TripletLoss(Loss):
    """``max(0, |positive - pred|^2 - |negative - pred|^2 + margin)`` per sample (squared
    distances summed over the non-batch axes).  Called as ``loss(pred, positive, negative)``;
    there is no sample_weight."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative):
        positive = _reshape_like(F, positive, pred)
        negative = _reshape_like(F, negative, pred)
        gap = F.sum(F.square(positive - pred) - F.square(negative - pred), axis=self._batch_axis, exclude=True)
        loss = F.relu(gap + self._margin)
        return _apply_weighting(F, loss, self._weight, None)


class PoissonNLLLoss(Loss):
    """Negative log-likelihood of ``target`` under a Poisson of mean ``pred``, averaged over
    *every* element: the result has shape (1,), not one value per sample.

    ``from_logits=True`` (default): ``pred`` is the log of the mean, the loss
    ``exp(pred) - target * pred``; ``False``: ``pred - target * log(pred + epsilon)``.
    ``compute_full=True`` adds Stirling's approximation of ``log(target!)`` where target > 1.
    """

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            # evaluated everywhere, then masked: a target of 0 gives 0 * log(0) = nan, which
            # the mask does not remove (as in MXNet)
            stirling = target * F.log(target) - target + 0.5 * F.log(2 * target * np.pi)
            loss = loss + stirling * (target > 1)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)


class CosineEmbeddingLoss(Loss):
    """For pairs of vectors (the last axis) and labels 1 (alike) or -1 (unlike):
    ``1 - cos(input1, input2)`` where the label is 1, ``max(0, cos - margin)`` where it is
    -1, 0 otherwise.  Called as ``loss(input1, input2, label[, sample_weight])``; the result
    has shape ``(batch, 1)``."""

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2)
        label = label.reshape((-1, 1))
        cos = self._cosine_similarity(F, input1, input2)
        alike = (1 - cos) * (label == 1)
        unlike = F.relu((label == -1) * (cos - self._margin))
        loss = _apply_weighting(F, alike + unlike, self._weight, sample_weight)
        return loss

    @staticmethod
    def _cosine_similarity(F, x, y, axis=-1):
        """Per row, as a column; the product of norms is kept at least 1e-12 so that a zero
        vector gives 0, not nan."""
        x_norm = F.norm(x, axis=axis).reshape((-1, 1))
        y_norm = F.norm(y, axis=axis).reshape((-1, 1))
        dot = F.sum(x * y, axis=axis).reshape((-1, 1))
        return dot / F.maximum(x_norm * y_norm, 1e-12)


class SDMLLoss(Loss):
    """Smoothed deep metric learning (Bonadiman, Kumar and Mittal, 2019) for a batch of
    aligned pairs: row i of ``x1`` should be nearest to row i of ``x2`` among all rows of
    ``x2``.  The negative squared distances, log-softmaxed per row, are compared by KL
    divergence with the identity matrix smoothed by ``smoothing_parameter`` (the mass
    spread over the other rows).  ``x1``, ``x2``: (batch, dim); result: (batch,).

    It needs the batch size as a number, so it runs on NDArrays only (hybridized, or on
    Symbols, it is refused -- MXNet cannot run it there either).  ``weight`` is accepted
    and, as in MXNet, not applied.
    """

    def __init__(self, smoothing_parameter=0.3, weight=1., batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def _smoothed_identity(self, F, batch_size):
        """1 - s on the diagonal, s / (batch - 1) elsewhere: each row sums to 1."""
        gold = F.eye(batch_size)
        s = self.smoothing_parameter
        return gold * (1 - s) + (1 - gold) * s / (batch_size - 1)

    def hybrid_forward(self, F, x1, x2):
        if F is not ndarray:
            raise GluonValueError('SDMLLoss needs the batch size as a number and runs on NDArrays only: '
                                  'do not hybridize it or call it on Symbols')
        if x1.shape != x2.shape or len(x1.shape) != 2:
            raise GluonAssertionError('SDMLLoss: x1 and x2 must both be (batch, dim), got %s and %s'
                                      % (x1.shape, x2.shape))
        # distances[i, j] = |x1[i] - x2[j]|^2, by broadcasting (batch, 1, dim) against (1, batch, dim)
        diffs = F.broadcast_sub(F.expand_dims(x1, 1), F.expand_dims(x2, 0))
        distances = F.sum(F.square(diffs), axis=2)
        log_prob = F.log_softmax(-distances, axis=1)
        labels = self._smoothed_identity(F, x1.shape[0]).as_in_context(distances.context)
        return self.kl_loss(log_prob, labels)
