"""The metric checks the Estimator and its handlers share."""

from ....metric import Accuracy, EvalMetric, CompositeEvalMetric
from ...loss import SoftmaxCrossEntropyLoss
from ...parameter import GluonValueError


def _check_metrics(metrics):
    """``metrics`` as a flat list of EvalMetric objects: one metric, a list of them, or a
    CompositeEvalMetric (unpacked into its members); None gives an empty list."""
    if isinstance(metrics, CompositeEvalMetric):
        return [m for member in metrics.metrics for m in _check_metrics(member)]
    if isinstance(metrics, EvalMetric):
        return [metrics]
    metrics = list(metrics or [])
    wrong = [m for m in metrics if not isinstance(m, EvalMetric)]
    if wrong:
        raise GluonValueError('metrics must be an EvalMetric or a list of EvalMetric (mx.metric), got %r'
                              % (wrong[0],))
    return metrics


def _suggest_metric_for_loss(loss):
    """The metric that goes with ``loss`` when the user names none: accuracy for a softmax
    cross-entropy, nothing (only the loss itself) for the others."""
    return Accuracy() if isinstance(loss, SoftmaxCrossEntropyLoss) else None


def _check_handler_metric_ref(handler, known_metrics):
    """Refuse a handler that reads a metric the estimator does not update.

    Each attribute whose name contains 'metric' (``metrics``, say) must hold metrics from
    ``known_metrics``.  A ``monitor`` attribute is not checked: MXNet 1.9.1 meant to check
    it too, but its test only ever matches 'metric', and a script it accepts must run here.
    """
    for attribute in dir(handler):
        if 'metric' not in attribute:
            continue
        reference = getattr(handler, attribute)
        if not reference:
            continue
        for metric in reference if isinstance(reference, list) else [reference]:
            if metric not in known_metrics:
                raise GluonValueError(
                    'event handler %s reads the metric %s, which is none of the estimator\'s metrics: '
                    'give it metrics from estimator.train_metrics or estimator.val_metrics'
                    % (type(handler).__name__, metric))
