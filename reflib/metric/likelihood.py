"""Metrics of predicted probabilities: Perplexity, CrossEntropy, NegativeLogLikelihood."""

import math

import numpy

from ..base import ShapeError
from .metric import EvalMetric, register, alias, check_label_shapes, _numpy

__all__ = ['Perplexity', 'CrossEntropy', 'NegativeLogLikelihood']


@register
class Perplexity(EvalMetric):
    """exp(-mean log p(label)): p is the prediction's entry at the label along ``axis``.

    Labels equal to ``ignore_label`` (None: ignore nothing) are left out of the mean;
    probabilities are clipped below at 1e-10, labels outside [0, classes) to its ends.
    """

    def __init__(self, ignore_label, axis=-1, name='perplexity', output_names=None, label_names=None):
        super().__init__(name, ignore_label=ignore_label, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        if len(labels) != len(preds):
            raise ShapeError('Perplexity: %d labels vs %d predictions' % (len(labels), len(preds)))
        loss = 0.
        num = 0
        for label, pred in zip(labels, preds):
            label, pred = _numpy(label), _numpy(pred)
            if label.size != pred.size / pred.shape[-1]:
                raise ShapeError('Perplexity: label shape %s does not fit prediction shape %s'
                                 % (label.shape, pred.shape))
            label = label.reshape((label.size,))
            picked = _pick(pred, label.astype('int32'), self.axis)
            if self.ignore_label is not None:
                ignore = (label == self.ignore_label).astype(pred.dtype)
                num -= float(ignore.sum())
                picked = picked * (1 - ignore) + ignore     # log(1) = 0 for ignored samples
            loss -= float(numpy.log(numpy.maximum(pred.dtype.type(1e-10), picked)).sum())
            num += picked.size
        self._add(loss, num)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, math.exp(self.sum_metric / self.num_inst))

    def get_global(self):
        if self.global_num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, math.exp(self.global_sum_metric / self.global_num_inst))


def _pick(data, index, axis):
    """``data``'s entries at ``index`` along ``axis`` (MXNet's pick, indices clipped)."""
    axis = axis % data.ndim
    expected = data.shape[:axis] + data.shape[axis + 1:]
    if index.shape != expected:
        raise ShapeError('Perplexity: %d labels cannot index predictions of shape %s along axis %d '
                         '(that needs labels of shape %s)' % (index.size, data.shape, axis, expected))
    index = numpy.clip(index, 0, data.shape[axis] - 1)
    return numpy.take_along_axis(data, numpy.expand_dims(index, axis), axis).squeeze(axis)


# ------------------------------------------------------------------ likelihood
class _LogLoss(EvalMetric):
    """-log(p[label] + eps) summed over samples, averaged per sample."""

    def __init__(self, eps, name, output_names, label_names):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _numpy(label).ravel(), _numpy(pred)
            n = pred.shape[0]
            if label.shape[0] != n:
                raise ShapeError('%s: %d labels for %d predictions' % (type(self).__name__, label.shape[0], n))
            prob = pred[numpy.arange(n, dtype=numpy.int64), numpy.int64(label)]
            self._add((-numpy.log(prob + self.eps)).sum(), n)


@register
@alias('ce')
class CrossEntropy(_LogLoss):
    """Mean cross-entropy -log(p[label] + eps) of probability predictions."""

    def __init__(self, eps=1e-12, name='cross-entropy', output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias('nll_loss')
class NegativeLogLikelihood(_LogLoss):
    """Mean negative log-likelihood; the same numbers as CrossEntropy under another name."""

    def __init__(self, eps=1e-12, name='nll-loss', output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)
