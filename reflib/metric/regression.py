"""Regression metrics: MAE, MSE, RMSE (averaged per batch) and PearsonCorrelation."""

import numpy

from .metric import EvalMetric, register, alias, check_label_shapes, _numpy, _num

__all__ = ['MAE', 'MSE', 'RMSE', 'PearsonCorrelation']


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
