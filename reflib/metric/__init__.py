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

The package, by family:

metric          EvalMetric (the running sums), register/alias/create, CompositeEvalMetric
classification  Accuracy, TopKAccuracy, F1, MCC, PCC
likelihood      Perplexity, CrossEntropy, NegativeLogLikelihood
regression      MAE, MSE, RMSE, PearsonCorrelation
custom          Loss, Torch, Caffe, CustomMetric, np
"""

from .metric import (EvalMetric, MetricError, check_label_shapes, register, alias, create,
                     CompositeEvalMetric)
from .classification import Accuracy, TopKAccuracy, F1, MCC, PCC
from .likelihood import Perplexity, CrossEntropy, NegativeLogLikelihood
from .regression import MAE, MSE, RMSE, PearsonCorrelation
from .custom import Loss, Torch, Caffe, CustomMetric, np

__all__ = ['EvalMetric', 'MetricError', 'check_label_shapes', 'register', 'alias', 'create',
           'CompositeEvalMetric', 'Accuracy', 'TopKAccuracy', 'F1', 'MCC', 'Perplexity', 'MAE',
           'MSE', 'RMSE', 'CrossEntropy', 'NegativeLogLikelihood', 'PearsonCorrelation', 'PCC',
           'Loss', 'Torch', 'Caffe', 'CustomMetric', 'np']
