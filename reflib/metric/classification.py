"""Classification metrics: Accuracy, TopKAccuracy, F1 and MCC (binary), PCC (multiclass)."""

import math

import numpy

from ..base import ShapeError
from .metric import EvalMetric, MetricError, register, alias, check_label_shapes, _numpy

__all__ = ['Accuracy', 'TopKAccuracy', 'F1', 'MCC', 'PCC']


# ------------------------------------------------------------------ classification
@register
@alias('acc')
class Accuracy(EvalMetric):
    """Fraction of samples whose predicted class equals the label.

    A prediction with the label's shape holds class indices; any other shape holds
    scores, and the predicted class is their argmax along ``axis`` (the first maximum
    on ties).  Labels and predicted classes are truncated to int32 first.
    """

    def __init__(self, axis=1, name='accuracy', output_names=None, label_names=None):
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _numpy(label), _numpy(pred)
            if pred.shape != label.shape:
                pred = pred.argmax(axis=self.axis)
            pred = pred.astype('int32').ravel()
            label = label.astype('int32').ravel()
            check_label_shapes(label, pred)
            self._add(int((pred == label).sum()), len(pred))


@register
@alias('top_k_accuracy', 'top_k_acc')
class TopKAccuracy(EvalMetric):
    """Fraction of samples whose label is among the ``top_k`` highest scores (top_k > 1).

    The metric's name gets the suffix ``_<top_k>``: ``top_k_accuracy_5``.
    """

    def __init__(self, top_k=1, name='top_k_accuracy', output_names=None, label_names=None):
        super().__init__(name, top_k=top_k, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.top_k = top_k
        if self.top_k <= 1:
            raise MetricError('TopKAccuracy needs top_k > 1 (got %r); use Accuracy for top_k=1' % (top_k,))
        self.name += '_%d' % self.top_k

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred = _numpy(pred).astype('float32')
            if pred.ndim > 2:
                raise ShapeError('TopKAccuracy: predictions must have at most 2 dimensions, got shape %s'
                                 % (pred.shape,))
            if pred.shape[-1] < self.top_k:
                raise ShapeError('TopKAccuracy(top_k=%d): the predictions have only %d classes (shape %s)'
                                 % (self.top_k, pred.shape[-1], pred.shape))
            # after argpartition the last top_k columns hold the indices of the top_k scores
            ranked = numpy.argpartition(pred, -self.top_k)
            label = _numpy(label).astype('int32')
            check_label_shapes(label, ranked)
            num_samples = ranked.shape[0]
            if ranked.ndim == 1:
                # MXNet 1.9.1 adds this case to the local sums only
                self.sum_metric += int((ranked.ravel() == label.ravel()).sum())
            else:
                num_classes = ranked.shape[1]
                for j in range(min(num_classes, self.top_k)):
                    hits = int((ranked[:, num_classes - 1 - j] == label.ravel()).sum())
                    self.sum_metric += hits
                    self.global_sum_metric += hits
            self.num_inst += num_samples
            self.global_num_inst += num_samples


class _BinaryCounts:
    """True/false positive/negative counts, local and global, for F1 and MCC."""

    KINDS = ('true_positives', 'false_positives', 'false_negatives', 'true_negatives')

    def __init__(self):
        self.reset_stats()

    def update_binary_stats(self, label, pred, owner):
        pred = _numpy(pred)
        label = _numpy(label).astype('int32')
        pred_label = numpy.argmax(pred, axis=1)
        check_label_shapes(label, pred)
        if len(numpy.unique(label)) > 2:
            raise MetricError('%s supports binary classification only; the labels hold %d classes'
                              % (owner, len(numpy.unique(label))))
        pred_true = pred_label == 1
        label_true = label == 1
        counts = {'true_positives': int((pred_true & label_true).sum()),
                  'false_positives': int((pred_true & ~label_true).sum()),
                  'false_negatives': int((~pred_true & label_true).sum()),
                  'true_negatives': int((~pred_true & ~label_true).sum())}
        for kind, n in counts.items():
            setattr(self, kind, getattr(self, kind) + n)
            setattr(self, 'global_' + kind, getattr(self, 'global_' + kind) + n)

    def _get(self, kind, use_global):
        return getattr(self, ('global_' if use_global else '') + kind)

    def total_examples(self, use_global=False):
        return sum(self._get(k, use_global) for k in self.KINDS)

    def precision(self, use_global=False):
        tp, fp = self._get('true_positives', use_global), self._get('false_positives', use_global)
        return float(tp) / (tp + fp) if tp + fp > 0 else 0.

    def recall(self, use_global=False):
        tp, fn = self._get('true_positives', use_global), self._get('false_negatives', use_global)
        return float(tp) / (tp + fn) if tp + fn > 0 else 0.

    def fscore(self, use_global=False):
        p, r = self.precision(use_global), self.recall(use_global)
        return 2 * p * r / (p + r) if p + r > 0 else 0.

    def matthewscc(self, use_global=False):
        if not self.total_examples(use_global):
            return 0.
        tp, fp, fn, tn = (float(self._get(k, use_global)) for k in self.KINDS)
        denom = 1.
        for term in (tp + fp, tp + fn, tn + fp, tn + fn):
            if term != 0.:          # zero terms count as 1
                denom *= term
        return (tp * tn - fp * fn) / math.sqrt(denom)

    def local_reset_stats(self):
        for kind in self.KINDS:
            setattr(self, kind, 0)

    def reset_stats(self):
        for kind in self.KINDS:
            setattr(self, kind, 0)
            setattr(self, 'global_' + kind, 0)


class _BinaryMetric(EvalMetric):
    """F1 and MCC: a score of the confusion counts, averaged per update (macro) or not (micro)."""

    def __init__(self, name, output_names, label_names, average):
        self.average = average
        self._counts = _BinaryCounts()
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def _score(self, use_global):
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._counts.update_binary_stats(label, pred, type(self).__name__)
        if self.average == 'macro':
            # one score per update() call, then the counts start again
            self.sum_metric += self._score(False)
            self.global_sum_metric += self._score(True)
            self.num_inst += 1
            self.global_num_inst += 1
            self._counts.reset_stats()
        else:
            # sum / num = the score of all counts so far
            self.sum_metric = self._score(False) * self._counts.total_examples()
            self.global_sum_metric = self._score(True) * self._counts.total_examples(True)
            self.num_inst = self._counts.total_examples()
            self.global_num_inst = self._counts.total_examples(True)

    def reset(self):
        super().reset()
        self._counts.reset_stats()

    def reset_local(self):
        super().reset_local()
        self._counts.local_reset_stats()


@register
class F1(_BinaryMetric):
    """F1 = 2 * precision * recall / (precision + recall) of a binary classifier.

    The predicted class is the argmax over axis 1 and class 1 is "positive".
    ``average='macro'`` averages the F1 of every update; ``'micro'`` scores all counts.
    """

    def __init__(self, name='f1', output_names=None, label_names=None, average='macro'):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self._counts.fscore(use_global)


@register
class MCC(_BinaryMetric):
    """Matthews correlation coefficient of a binary classifier (zero denominator terms count as 1)."""

    def __init__(self, name='mcc', output_names=None, label_names=None, average='macro'):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self._counts.matthewscc(use_global)


@register
class PCC(EvalMetric):
    """Multiclass Matthews correlation (Gorodkin's R_K) from a K x K confusion matrix.

    The matrix grows when a larger class index shows up; one update counts as one instance.
    """

    def __init__(self, name='pcc', output_names=None, label_names=None, has_global_stats=True):
        self.k = 2
        super().__init__(name=name, output_names=output_names, label_names=label_names,
                         has_global_stats=has_global_stats)

    def _grow(self, inc):
        self.lcm = numpy.pad(self.lcm, ((0, inc), (0, inc)), 'constant', constant_values=0)
        self.gcm = numpy.pad(self.gcm, ((0, inc), (0, inc)), 'constant', constant_values=0)
        self.k += inc

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        x = cmat.sum(axis=1)
        y = cmat.sum(axis=0)
        cov_xx = numpy.sum(x * (n - x))
        cov_yy = numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float('nan')
        cov_xy = numpy.sum(cmat.diagonal() * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label = _numpy(label).astype('int32')
            pred = _numpy(pred)
            pred = pred.argmax(axis=1) if pred.shape != label.shape else pred.astype('int32')
            n = max(pred.max(), label.max())
            if n >= self.k:
                self._grow(n + 1 - self.k)
            batch = numpy.zeros((self.k, self.k))
            numpy.add.at(batch, (pred.ravel(), label.ravel()), 1)   # rows: predicted, columns: true
            self.lcm += batch
            self.gcm += batch
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        """The correlation of the local confusion matrix (since the last ``reset_local``) times
        ``num_inst``, so that ``get()``, which divides by ``num_inst``, reports the correlation
        itself (NaN when all labels, or all predictions, fall in one class).
        """
        return self._calc_mcc(self.lcm) * self.num_inst

    @property
    def global_sum_metric(self):
        """The correlation of the global confusion matrix (since the last ``reset``) times
        ``global_num_inst``, the global counterpart of ``sum_metric``.
        """
        return self._calc_mcc(self.gcm) * self.global_num_inst

    def reset(self):
        self.global_num_inst = 0.
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0.
        self.lcm = numpy.zeros((self.k, self.k))
