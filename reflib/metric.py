"""Evaluation metrics: running sums that ``fit`` and ``score`` feed batch by batch.

Every metric keeps two pairs of running totals:

* ``sum_metric`` / ``num_inst``               -- the *local* ones, cleared by ``reset_local()``
  (``Speedometer`` does that after each log line, so its numbers cover the last
  ``frequent`` batches);
* ``global_sum_metric`` / ``global_num_inst`` -- the *global* ones, cleared only by
  ``reset()`` (``fit`` calls it at the start of each epoch and logs the global value
  at its end).

``get()`` returns ``(name, sum_metric / num_inst)`` (NaN before any update),
``get_global()`` the same from the global pair.  What is summed and what counts
as one instance is each metric's business, and the choices matter for the
numbers (all as in MXNet 1.9.1):

* Accuracy / TopKAccuracy / CrossEntropy / Perplexity count *samples*, so the
  value is the average over all samples seen;
* MAE / MSE / RMSE count *batches* (one per label/prediction pair): RMSE is the
  average of per-batch RMSEs, not the square root of the overall MSE;
* F1 / MCC with ``average='macro'`` average per-update scores; ``'micro'``
  accumulates the confusion counts and scores them once;
* Perplexity reports ``exp(sum / num)``.

Labels and predictions arrive as lists of NDArrays (one per output); each metric
pairs them up in order.  ``update_dict`` takes ``{name: array}`` dicts instead and
keeps the ``label_names``/``output_names`` a metric was created with.
"""

import math
from collections import OrderedDict

import numpy

from .base import MXNetError, ShapeError, numeric_types
from .ndarray import NDArray

__all__ = ['EvalMetric', 'MetricError', 'check_label_shapes', 'register', 'alias', 'create',
           'CompositeEvalMetric', 'Accuracy', 'TopKAccuracy', 'F1', 'MCC', 'Perplexity', 'MAE',
           'MSE', 'RMSE', 'CrossEntropy', 'NegativeLogLikelihood', 'PearsonCorrelation', 'PCC',
           'Loss', 'Torch', 'Caffe', 'CustomMetric', 'np']


class MetricError(MXNetError, ValueError):
    """A metric was misused: unknown name, missing output or label, unsupported data."""


def _numpy(x):
    """A numpy array from an NDArray (any device) or anything array-like."""
    return x.asnumpy() if isinstance(x, NDArray) else numpy.asarray(x)


def _num(x):
    """numpy scalars as Python numbers, so that running sums stay in double precision.

    (With numpy >= 2, ``0.0 + numpy.float32(x)`` is a float32; MXNet, on numpy 1.x, summed
    in float64.)
    """
    if isinstance(x, numpy.floating):
        return float(x)
    if isinstance(x, numpy.integer):
        return int(x)
    return x


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Raise if labels and predictions do not pair up; optionally wrap single arrays in lists.

    By default only the lengths are compared (the number of arrays, or of samples when
    given two arrays); ``shape=True`` compares the full shapes.
    """
    if shape:
        label_shape, pred_shape = labels.shape, preds.shape
    else:
        label_shape, pred_shape = len(labels), len(preds)
    if label_shape != pred_shape:
        raise ShapeError('labels and predictions do not match: %s %s of labels vs %s of predictions'
                         % ('shape' if shape else 'length', label_shape, pred_shape))
    if wrap:
        if isinstance(labels, NDArray):
            labels = [labels]
        if isinstance(preds, NDArray):
            preds = [preds]
    return labels, preds


# ------------------------------------------------------------------ base class
class EvalMetric:
    """Base class: running sums plus the get/reset protocol; subclasses implement ``update``.

    ``output_names`` / ``label_names`` select, by name, which predictions and labels
    ``update_dict`` passes on (all of them, in order, when None).
    """

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        # a plain EvalMetric subclass written by a user only updates the local sums:
        # then get_global() falls back to get()
        self._has_global_stats = kwargs.pop('has_global_stats', False)
        self._kwargs = kwargs          # constructor arguments, for get_config()
        self.reset()

    def __str__(self):
        return 'EvalMetric: {}'.format(dict(self.get_name_value()))

    def get_config(self):
        """The arguments that rebuild this metric with ``create(**config)``."""
        config = self._kwargs.copy()
        config.update({'metric': type(self).__name__, 'name': self.name,
                       'output_names': self.output_names, 'label_names': self.label_names})
        return config

    # ------------------------------------------------------------- feeding
    def update_dict(self, label, pred):
        """``update`` with ``{name: NDArray}`` dicts, picking ``label_names``/``output_names``."""
        pred = _select(pred, self.output_names, 'output', self.name)
        label = _select(label, self.label_names, 'label', self.name)
        self.update(label, pred)

    def update(self, labels, preds):
        """Add one batch: ``labels`` and ``preds`` are lists of NDArrays, paired in order."""
        raise NotImplementedError('%s must implement update(labels, preds)' % type(self).__name__)

    def _add(self, value, count):
        """Add to both the local and the global running sums."""
        value = _num(value)
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += count
        self.global_num_inst += count

    # ------------------------------------------------------------- resetting
    def reset(self):
        """Clear everything (local and global)."""
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        """Clear the local sums only; the global ones keep counting."""
        self.num_inst = 0
        self.sum_metric = 0.0

    # ------------------------------------------------------------- reading
    def get(self):
        """``(name, value)`` over what was seen since the last reset or reset_local."""
        if self.num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, _num(self.sum_metric / self.num_inst))

    def get_global(self):
        """``(name, value)`` over what was seen since the last reset."""
        if not self._has_global_stats:
            return self.get()
        if self.global_num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, _num(self.global_sum_metric / self.global_num_inst))

    def get_name_value(self):
        """``[(name, value), ...]`` from ``get()`` (one pair per metric, composite or not)."""
        return _zip_pairs(self.get())

    def get_global_name_value(self):
        """``[(name, value), ...]`` from ``get_global()``."""
        if not self._has_global_stats:
            return self.get_name_value()
        return _zip_pairs(self.get_global())


def _zip_pairs(name_value):
    name, value = name_value
    if not isinstance(name, list):
        name = [name]
    if not isinstance(value, list):
        value = [value]
    return list(zip(name, value))


def _select(arrays, names, what, metric_name):
    """The arrays of ``names`` from a name -> array dict (all of them, in order, if names is None)."""
    if names is None:
        return list(arrays.values())
    missing = [n for n in names if n not in arrays]
    if missing:
        raise MetricError('metric %r: no %s named %s; the %ss given are %s'
                          % (metric_name, what, ', '.join(map(repr, missing)), what, list(arrays)))
    return [arrays[n] for n in names]


# ------------------------------------------------------------------ registry
_REGISTRY = {}


def register(klass, name=None):
    """Make an EvalMetric subclass creatable by name (its lower-cased class name by default)."""
    if not (isinstance(klass, type) and issubclass(klass, EvalMetric)):
        raise MetricError('register: %r is not a subclass of EvalMetric' % (klass,))
    _REGISTRY[(name or klass.__name__).lower()] = klass
    return klass


def alias(*aliases):
    """Decorator registering a metric class under extra names: ``@alias('acc')``."""
    def decorate(klass):
        for name in aliases:
            register(klass, name)
        return klass
    return decorate


def create(metric, *args, **kwargs):
    """An EvalMetric from a name, a function, a list of those, or a metric (returned as is).

    * ``'acc'``, ``'ce'``, ``'rmse'``, ... : a registered name or alias, any case; extra
      arguments go to the constructor (``create('top_k_accuracy', top_k=5)``);
    * a function ``feval(label, pred)`` on numpy arrays: a :class:`CustomMetric`;
    * a list: a :class:`CompositeEvalMetric` of each element created in turn;
    * a config dict from ``get_config()``.
    """
    if isinstance(metric, EvalMetric):
        if args or kwargs:
            raise MetricError('create: %s is already a metric; extra arguments make no sense' % metric.name)
        return metric
    if isinstance(metric, type) and issubclass(metric, EvalMetric):
        return metric(*args, **kwargs)
    if callable(metric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    if isinstance(metric, dict):
        config = dict(metric)
        return create(config.pop('metric'), *args, **dict(config, **kwargs))
    if not isinstance(metric, str):
        raise MetricError('create: expected a metric name, a function, a list or an EvalMetric, got %s'
                          % type(metric).__name__)
    klass = _REGISTRY.get(metric.lower())
    if klass is None:
        raise MetricError('unknown metric %r; known metrics are %s'
                          % (metric, ', '.join(sorted(_REGISTRY))))
    return klass(*args, **kwargs)


# ------------------------------------------------------------------ composite
@register
@alias('composite')
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get()`` returns ``([names], [values])``."""

    def __init__(self, metrics=None, name='composite', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.metrics = [create(m) for m in (metrics or [])]

    def add(self, metric):
        """Append a child metric (anything ``create`` accepts)."""
        self.metrics.append(create(metric))

    def get_metric(self, index):
        """The child metric at ``index``."""
        try:
            return self.metrics[index]
        except IndexError:
            raise MetricError('CompositeEvalMetric has %d metrics, there is no index %d'
                              % (len(self.metrics), index)) from None

    def update_dict(self, labels, preds):
        # keep only the selected names, then let every child apply its own selection
        if self.label_names is not None:
            labels = OrderedDict((k, v) for k, v in labels.items() if k in self.label_names)
        if self.output_names is not None:
            preds = OrderedDict((k, v) for k, v in preds.items() if k in self.output_names)
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        super().reset()
        for metric in getattr(self, 'metrics', []):   # reset() runs once before self.metrics exists
            metric.reset()

    def reset_local(self):
        super().reset_local()
        for metric in self.metrics:
            metric.reset_local()

    def _collect(self, method):
        names, values = [], []
        for metric in self.metrics:
            name, value = getattr(metric, method)()
            names.extend([name] if isinstance(name, str) else name)
            values.extend([value] if isinstance(value, numeric_types) else value)
        return (names, values)

    def get(self):
        return self._collect('get')

    def get_global(self):
        return self._collect('get_global')

    def get_config(self):
        config = super().get_config()
        config.update({'metrics': [m.get_config() for m in self.metrics]})
        return config


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


# ------------------------------------------------------------------ regression
def _as_columns(label, pred):
    """1-D arrays become (n, 1) columns (so a (n,) label against a (n, k) prediction broadcasts)."""
    label, pred = _numpy(label), _numpy(pred)
    if label.ndim == 1:
        label = label.reshape(label.shape[0], 1)
    if pred.ndim == 1:
        pred = pred.reshape(pred.shape[0], 1)
    return label, pred


class _PerBatchError(EvalMetric):
    """MAE/MSE/RMSE: one error value per (label, prediction) pair, averaged over pairs."""

    def __init__(self, name, output_names, label_names):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    @staticmethod
    def _error(diff):
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _as_columns(label, pred)
            self._add(self._error(label - pred), 1)


@register
class MAE(_PerBatchError):
    """Mean absolute error, averaged per batch."""

    def __init__(self, name='mae', output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return numpy.abs(diff).mean()


@register
class MSE(_PerBatchError):
    """Mean squared error, averaged per batch."""

    def __init__(self, name='mse', output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return (diff ** 2.0).mean()


@register
class RMSE(_PerBatchError):
    """Root mean squared error of each batch, averaged over batches (not sqrt of the overall MSE)."""

    def __init__(self, name='rmse', output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return numpy.sqrt((diff ** 2.0).mean())


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


# ------------------------------------------------------------------ correlation
@register
@alias('pearsonr')
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of labels and predictions.

    ``'macro'`` averages the per-update correlation; ``'micro'`` streams means, variances
    and the covariance over all updates.  (In MXNet 1.9.1, and here, ``get_global()`` of the
    micro variant is 0: only ``get()`` computes the streamed value.)
    """

    def __init__(self, name='pearsonr', output_names=None, label_names=None, average='macro'):
        self.average = average
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def _reset_micro(self):
        self._sse_p = self._mean_p = self._sse_l = self._mean_l = 0
        self._pred_nums = self._label_nums = 0
        self._conv = 0

    def reset(self):
        super().reset()
        if self.average == 'micro':
            self._reset_micro()

    @staticmethod
    def _update_variance(new_values, count, mean, m_2):
        """Welford's streaming update of (count, mean, sum of squared deviations)."""
        count += len(new_values)
        delta = new_values - mean
        mean += numpy.sum(delta / count)
        m_2 += numpy.sum(delta * (new_values - mean))
        return count, mean, m_2

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            label = _numpy(label).ravel().astype(numpy.float64)
            pred = _numpy(pred).ravel().astype(numpy.float64)
            if self.average == 'macro':
                self._add(numpy.corrcoef(pred, label)[0, 1], 1)
            else:
                self.num_inst += 1
                self.global_num_inst += 1
                self._label_nums, self._mean_l, self._sse_l = self._update_variance(
                    label, self._label_nums, self._mean_l, self._sse_l)
                self._conv = self._conv + numpy.sum((label - self._mean_l) * (pred - self._mean_p))
                self._pred_nums, self._mean_p, self._sse_p = self._update_variance(
                    pred, self._pred_nums, self._mean_p, self._sse_p)

    def get(self):
        if self.num_inst == 0:
            return (self.name, float('nan'))
        if self.average == 'macro':
            return (self.name, _num(self.sum_metric / self.num_inst))
        n = self._label_nums
        value = self._conv / ((n - 1) * numpy.sqrt(self._sse_p / (n - 1)) * numpy.sqrt(self._sse_l / (n - 1)))
        return (self.name, _num(value))


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
        return self._calc_mcc(self.lcm) * self.num_inst

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    def reset(self):
        self.global_num_inst = 0.
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0.
        self.lcm = numpy.zeros((self.k, self.k))


# ------------------------------------------------------------------ losses and custom
@register
class Loss(EvalMetric):
    """The mean of the predictions themselves (for a network whose output is its loss)."""

    def __init__(self, name='loss', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, _, preds):
        if isinstance(preds, NDArray):
            preds = [preds]
        for pred in preds:
            pred = _numpy(pred)
            self._add(pred.sum(), pred.size)


@register
class Torch(Loss):
    """Loss under the name 'torch'."""

    def __init__(self, name='torch', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class Caffe(Loss):
    """Loss under the name 'caffe'."""

    def __init__(self, name='caffe', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class CustomMetric(EvalMetric):
    """A metric from a function ``feval(label, pred)`` of numpy arrays.

    ``feval`` returns either a number (one instance) or a ``(sum, count)`` tuple.  The name
    defaults to the function's name (``custom(<lambda>)`` for a lambda).  With
    ``allow_extra_outputs`` there may be more predictions than labels (RNN states).
    """

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None, label_names=None):
        if name is None:
            name = feval.__name__
            if '<' in name:
                name = 'custom(%s)' % name
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs,
                         output_names=output_names, label_names=label_names, has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            result = self._feval(_numpy(label), _numpy(pred))
            if isinstance(result, tuple):
                value, count = result
                self._add(value, _num(count))
            else:
                self._add(result, 1)

    def get_config(self):
        raise NotImplementedError('CustomMetric wraps a Python function and cannot be serialized')


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """A CustomMetric from a function of numpy arrays (usable as a decorator).

    >>> @np
    ... def mean_abs(label, pred):
    ...     return abs(label - pred).mean()
    """
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
