"""The events of an Estimator's training loop, and the handlers that act on them.

``Estimator.fit`` runs six kinds of event: train begin, epoch begin, batch begin, batch end,
epoch end, train end.  A handler is an object of one or more of the six event classes below
(``class Mine(EpochEnd, BatchEnd)``); the estimator calls its ``epoch_end(estimator)``,
``batch_end(estimator, batch=..., pred=..., label=..., loss=...)`` and so on.  A
``batch_end`` or ``epoch_end`` that returns True ends the epoch, or the training.

Everything the loop does besides forward and backward is such a handler, in the order of
their ``priority`` (lower first; 0 when a handler has none):

==========================  ========  ===================================================
handler                     priority  on
==========================  ========  ===================================================
GradientUpdateHandler       -2000     batch end: ``trainer.step(samples in the batch)``
MetricHandler               -1000     epoch begin: reset; batch end: update the metrics
ValidationHandler           -1000     every k-th epoch or batch end: ``estimator.evaluate``
StoppingHandler, yours      0         stop after ``epochs`` epochs or ``batches`` batches
LoggingHandler              +inf      log the metrics (last, once they are up to date)
==========================  ========  ===================================================

CheckpointHandler saves the parameters and the trainer's state; EarlyStoppingHandler stops
when a metric stops improving.
"""

import os
import re
import time
import warnings

import numpy as np

from ....metric import CompositeEvalMetric, EvalMetric
from ....metric import Loss as LossMetric
from ...parameter import GluonValueError
from .utils import _check_metrics

__all__ = ['TrainBegin', 'TrainEnd', 'EpochBegin', 'EpochEnd', 'BatchBegin', 'BatchEnd',
           'StoppingHandler', 'MetricHandler', 'ValidationHandler', 'LoggingHandler',
           'CheckpointHandler', 'EarlyStoppingHandler', 'GradientUpdateHandler']


class EventHandler:
    """What every handler is: the estimator accepts nothing else as a handler."""


def _check_event_handlers(handlers):
    """``handlers`` (one handler, a list of them, or None) as a new list."""
    if isinstance(handlers, EventHandler):
        return [handlers]
    handlers = list(handlers or [])
    wrong = [h for h in handlers if not isinstance(h, EventHandler)]
    if wrong:
        raise GluonValueError('event_handlers must be an EventHandler or a list of EventHandler '
                              '(gluon.contrib.estimator.event_handler), got %r' % (wrong[0],))
    return handlers


# ------------------------------------------------------------------ the six events
class TrainBegin(EventHandler):
    """A handler of the start of ``fit``."""

    def train_begin(self, estimator, *args, **kwargs):
        """Called once as ``fit`` starts, before the first epoch."""


class TrainEnd(EventHandler):
    """A handler of the end of ``fit``."""

    def train_end(self, estimator, *args, **kwargs):
        """Called once after the last epoch."""


class EpochBegin(EventHandler):
    """A handler of the start of each pass over the data (of ``evaluate``'s one pass too)."""

    def epoch_begin(self, estimator, *args, **kwargs):
        """Called before each epoch's first batch."""


class EpochEnd(EventHandler):
    """A handler of the end of each pass; returning True stops the training."""

    def epoch_end(self, estimator, *args, **kwargs):
        """Called after each epoch's last batch; True stops the training."""
        return False


class BatchBegin(EventHandler):
    """A handler called before each batch, with ``batch=``."""

    def batch_begin(self, estimator, *args, **kwargs):
        """Called before each batch, with ``batch=``."""


class BatchEnd(EventHandler):
    """A handler called after each batch's forward and backward, with ``batch``, ``pred``,
    ``label`` and ``loss`` (lists, one entry per device); returning True ends the epoch."""

    def batch_end(self, estimator, *args, **kwargs):
        """Called after each batch's backward, with ``batch``, ``pred``, ``label``, ``loss``;
        True ends the epoch."""
        return False


def _improvement_test(name, mode, metric):
    """``np.greater`` or ``np.less``: how a better value of ``metric`` compares.

    'max' and 'min' say it.  'auto' is meant to choose greater for an accuracy or F1 and less
    for the rest, but MXNet 1.9.1's test for that is always true, so there 'auto' always
    means greater; reflib keeps MXNet's choice (a script trains the same) and says so.
    """
    if mode not in ('auto', 'min', 'max'):
        warnings.warn('%s: mode %r is none of auto, min, max; using auto' % (name, mode), RuntimeWarning)
        mode = 'auto'
    if mode == 'min':
        return np.less
    if mode == 'max':
        return np.greater
    warnings.warn("%s: mode='auto' takes a larger %s as better, as MXNet 1.9.1's does for every metric; "
                  "pass mode='min' for one that should fall, mode='max' to silence this"
                  % (name, metric.get()[0]))
    return np.greater


# ------------------------------------------------------------------ the handlers
class StoppingHandler(TrainBegin, BatchEnd, EpochEnd):
    """Ends the training after ``max_epoch`` epochs or ``max_batch`` batches.

    ``fit`` adds one itself and sets both limits from its ``epochs``/``batches`` when
    training begins.
    """

    def __init__(self, max_epoch=None, max_batch=None):
        self.max_epoch, self.max_batch = max_epoch, max_batch
        self.current_epoch = self.current_batch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs):
        self.max_epoch, self.max_batch = estimator.max_epoch, estimator.max_batch
        self.current_epoch = self.current_batch = 0

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.current_batch == self.max_batch:
            self.stop_training = True
        return self.stop_training

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.current_epoch == self.max_epoch:
            self.stop_training = True
        return self.stop_training


class MetricHandler(EpochBegin, BatchEnd):
    """Resets ``metrics`` at each epoch's start and updates them after each batch: a
    ``metric.Loss`` with the batch's losses, any other metric with labels and predictions."""

    def __init__(self, metrics, priority=-1000):
        self.metrics = _check_metrics(metrics)
        self.priority = priority

    def epoch_begin(self, estimator, *args, **kwargs):
        for metric in self.metrics:
            metric.reset()

    def batch_end(self, estimator, *args, **kwargs):
        for metric in self.metrics:
            if isinstance(metric, LossMetric):
                metric.update(0, kwargs['loss'])
            else:
                metric.update(kwargs['label'], kwargs['pred'])


class ValidationHandler(TrainBegin, BatchEnd, EpochEnd):
    """Runs ``eval_fn`` (``estimator.evaluate``) on ``val_data`` every ``epoch_period``-th
    epoch and every ``batch_period``-th batch (None: never), with ``event_handlers``."""

    def __init__(self, val_data, eval_fn, epoch_period=1, batch_period=None, priority=-1000,
                 event_handlers=None):
        self.val_data, self.eval_fn = val_data, eval_fn
        self.epoch_period, self.batch_period = epoch_period, batch_period
        self.priority, self.event_handlers = priority, event_handlers
        self.current_epoch = self.current_batch = 0

    def _validate(self, estimator):
        self.eval_fn(val_data=self.val_data, batch_axis=estimator.batch_axis, event_handlers=self.event_handlers)

    def train_begin(self, estimator, *args, **kwargs):
        self.current_epoch = self.current_batch = 0

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.batch_period and self.current_batch % self.batch_period == 0:
            self._validate(estimator)

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.epoch_period and self.current_epoch % self.epoch_period == 0:
            self._validate(estimator)


def _metric_text(metrics):
    return ', '.join('%s: %.4f' % metric.get() for metric in metrics)


def _joined(*parts):
    return ''.join(parts).rstrip(', ')


class LoggingHandler(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
    """Writes the progress to ``estimator.logger``: the optimizer and learning rate at the
    start, each epoch's time and ``metrics`` at its end, and with an integer ``log_interval``
    also every ``log_interval``-th batch (samples seen, time since the last such line).

    Its priority is +inf: it runs after every other handler, so the metrics it prints
    include the batch just finished.
    """

    def __init__(self, log_interval='epoch', metrics=None, priority=np.inf):
        if not isinstance(log_interval, int) and log_interval != 'epoch':
            raise GluonValueError("LoggingHandler: log_interval must be a whole number or 'epoch', got %r"
                                  % (log_interval,))
        self.metrics = _check_metrics(metrics)
        self.log_interval, self.priority = log_interval, priority
        self.current_epoch = self.batch_index = self.processed_samples = 0
        self.log_interval_time = 0

    def train_begin(self, estimator, *args, **kwargs):
        self.train_start = time.time()
        trainer = estimator.trainer
        estimator.logger.info('Training begin: using optimizer %s with current learning rate %.4f ',
                              type(trainer.optimizer).__name__, trainer.learning_rate)
        if estimator.max_epoch:
            estimator.logger.info('Train for %d epochs.', estimator.max_epoch)
        else:
            estimator.logger.info('Train for %d batches.', estimator.max_batch)
        self.current_epoch = self.batch_index = self.processed_samples = 0
        self.log_interval_time = 0

    def train_end(self, estimator, *args, **kwargs):
        seconds = time.time() - self.train_start
        estimator.logger.info(_joined('Train finished using total %ds with %d epochs. ' % (seconds, self.current_epoch),
                                      _metric_text(self.metrics)))

    def batch_begin(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.batch_start = time.time()

    def batch_end(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.log_interval_time += time.time() - self.batch_start
            self.processed_samples += kwargs['batch'][0].shape[0]
            if self.batch_index % self.log_interval == 0:
                head = '[Epoch %d][Batch %d][Samples %s] time/interval: %.3fs ' % (
                    self.current_epoch, self.batch_index, self.processed_samples, self.log_interval_time)
                self.log_interval_time = 0
                estimator.logger.info(_joined(head, _metric_text(self.metrics)))
        self.batch_index += 1

    def epoch_begin(self, estimator, *args, **kwargs):
        self.epoch_start = time.time()
        # the estimator names its metrics 'training ...' and 'validation ...'
        if any('training' in metric.name for metric in self.metrics):
            estimator.logger.info('[Epoch %d] Begin, current learning rate: %.4f',
                                  self.current_epoch, estimator.trainer.learning_rate)
        else:
            estimator.logger.info('Validation Begin')

    def epoch_end(self, estimator, *args, **kwargs):
        seconds = time.time() - self.epoch_start
        estimator.logger.info(_joined('[Epoch %d] Finished in %.3fs, ' % (self.current_epoch, seconds),
                                      _metric_text(self.metrics)))
        self.current_epoch += 1
        self.batch_index = 0


class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Saves the net's parameters and the trainer's states every ``epoch_period`` epochs
    and/or ``batch_period`` batches, into ``model_dir``:

    * ``<model_prefix>-epoch<E>batch<B>.params`` and ``.states``, where E counts finished
      epochs and B the batches before this one (at a batch's end) or all finished batches
      (at an epoch's end), as MXNet numbers them; only the newest ``max_checkpoints`` stay;
    * ``<model_prefix>-symbol.json`` after the first batch, when the net is a hybridized
      HybridBlock (otherwise the log says why there is none);
    * with ``save_best``, ``<model_prefix>-best.params``/``.states`` whenever ``monitor``
      improves (``mode``: 'min', 'max', or 'auto', which is 'max' as in MXNet 1.9.1).

    ``resume_from_checkpoint`` loads the newest checkpoint in ``model_dir`` when training
    begins and trains only the epochs (or batches) still missing.
    """

    def __init__(self, model_dir, model_prefix='model', monitor=None, verbose=0, save_best=False,
                 mode='auto', epoch_period=1, batch_period=None, max_checkpoints=5,
                 resume_from_checkpoint=False):
        if save_best and not isinstance(monitor, EvalMetric):
            raise GluonValueError('CheckpointHandler: save_best needs a monitor, one of the metrics in '
                                  'estimator.train_metrics or estimator.val_metrics; got %r' % (monitor,))
        os.makedirs(model_dir, exist_ok=True)
        self.model_dir, self.model_prefix = model_dir, model_prefix
        self.monitor, self.verbose, self.save_best = monitor, verbose, save_best
        self.epoch_period, self.batch_period = epoch_period, batch_period
        self.max_checkpoints, self.resume_from_checkpoint = max_checkpoints, resume_from_checkpoint
        self.current_epoch = self.current_batch = 0
        self.trained_epoch = self.trained_batch = -1
        self.saved_checkpoints = []
        if save_best:
            self.monitor_op = _improvement_test('CheckpointHandler', mode, monitor)
            self.best = np.inf if self.monitor_op is np.less else -np.inf

    def train_begin(self, estimator, *args, **kwargs):
        self.current_epoch = self.current_batch = 0
        if self.save_best:
            self.best = np.inf if self.monitor_op is np.less else -np.inf
        if self.resume_from_checkpoint:
            # the file names count what was trained in one unit only: save in the unit fit counts in
            by_batches = bool(estimator.max_batch)
            if by_batches != bool(self.batch_period) or by_batches == bool(self.epoch_period):
                raise GluonValueError('CheckpointHandler: to resume, save by the unit fit counts in: with '
                                      'fit(batches=...) give batch_period and epoch_period=None, with '
                                      'fit(epochs=...) the other way round (got epoch_period=%r, batch_period=%r)'
                                      % (self.epoch_period, self.batch_period))
            self._resume(estimator)

    def batch_end(self, estimator, *args, **kwargs):
        if self.current_batch == 0:
            self._save_symbol(estimator)
        if self.batch_period and (self.current_batch + 1) % self.batch_period == 0:
            self._save_checkpoint(estimator)
        self.current_batch += 1

    def epoch_end(self, estimator, *args, **kwargs):
        if self.epoch_period and (self.current_epoch + 1) % self.epoch_period == 0:
            self._save_checkpoint(estimator)
        self.current_epoch += 1

    def _save_checkpoint(self, estimator):
        epoch, batch = self.current_epoch, self.current_batch
        if self.resume_from_checkpoint:      # continue the numbers of the run resumed from
            epoch += self.trained_epoch + 1
            batch += self.trained_batch + (0 if estimator.max_epoch else 1)
        prefix = '%s-epoch%dbatch%d' % (self.model_prefix, epoch, batch)
        self._save_params_and_trainer(estimator, prefix)
        if self.verbose > 0:
            estimator.logger.info('[Epoch %d] CheckpointHandler: trained total %d batches, saving model at %s '
                                  'with prefix: %s', self.current_epoch, self.current_batch + 1, self.model_dir, prefix)
        if self.save_best:
            self._save_if_best(estimator)

    def _save_if_best(self, estimator):
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn('CheckpointHandler: %s has no value yet (never updated), so no best model is saved: '
                          'monitor one of estimator.train_metrics or estimator.val_metrics' % name, RuntimeWarning)
        elif self.monitor_op(value, self.best):
            previous, self.best = self.best, value
            prefix = self.model_prefix + '-best'
            self._save_params_and_trainer(estimator, prefix)
            if self.verbose > 0:
                estimator.logger.info('[Epoch %d] CheckpointHandler: %s improved from %0.5f to %0.5f, updating '
                                      'best model at %s with prefix: %s', self.current_epoch, name, previous,
                                      value, self.model_dir, prefix)
        elif self.verbose > 0:
            estimator.logger.info('[Epoch %d] CheckpointHandler: %s did not improve from %0.5f, skipping '
                                  'updating best model', self.current_epoch, name, self.best)

    def _save_symbol(self, estimator):
        path = os.path.join(self.model_dir, self.model_prefix + '-symbol.json')
        graph = getattr(estimator.net, '_cached_graph', None)   # (inputs, Symbol) once traced
        if graph:
            graph[1].save(path)
        else:
            estimator.logger.info('Model architecture(symbol file) is not saved, please use HybridBlock to '
                                  'construct your model, and call net.hybridize() before passing to Estimator '
                                  'in order to save model architecture as %s.', path)

    def _save_params_and_trainer(self, estimator, prefix):
        estimator.net.save_parameters(os.path.join(self.model_dir, prefix + '.params'))
        estimator.trainer.save_states(os.path.join(self.model_dir, prefix + '.states'))
        if prefix.endswith('-best'):
            return
        self.saved_checkpoints.append(prefix)
        if len(self.saved_checkpoints) > self.max_checkpoints:
            oldest = self.saved_checkpoints.pop(0)
            # only this handler's own two files: never another file that shares the prefix
            for suffix in ('.params', '.states'):
                path = os.path.join(self.model_dir, oldest + suffix)
                if os.path.isfile(path):
                    os.remove(path)

    def _checkpoints(self):
        """(epoch, batch) of every ``<model_prefix>-epoch<E>batch<B>.params`` in ``model_dir``."""
        prefix = self.model_prefix + '-epoch'
        found = []
        for fname in sorted(os.listdir(self.model_dir)):
            if not (fname.startswith(prefix) and fname.endswith('.params')):
                continue
            numbers = re.fullmatch(r'(\d+)batch(\d+)', fname[len(prefix):-len('.params')])
            if numbers is None:
                raise GluonValueError('CheckpointHandler: cannot read the checkpoint name %r in %s: expected '
                                      '%s-epoch<number>batch<number>.params, each with its .states file'
                                      % (fname, self.model_dir, self.model_prefix))
            found.append((int(numbers.group(1)), int(numbers.group(2))))
        return found

    def _resume(self, estimator):
        found = self._checkpoints()
        # the newest epoch, and the furthest batch saved in it (checkpoints already there do
        # not count against max_checkpoints, as in MXNet: resuming never deletes them)
        self.trained_epoch = max((e for e, _ in found), default=-1)
        self.trained_batch = max((b for e, b in found if e == self.trained_epoch), default=-1)
        unit, total = ('batches', estimator.max_batch) if estimator.max_batch else ('epochs', estimator.max_epoch)
        if self.trained_epoch == -1:
            estimator.logger.info('CheckpointHandler: No checkpoint found, training from scratch for %d %s',
                                  total, unit)
            return
        done = self.trained_batch if estimator.max_batch else self.trained_epoch
        if done >= total - 1:
            raise GluonValueError('CheckpointHandler: the checkpoint in %s already has all %d %s; pass '
                                  'resume_from_checkpoint=False to train from scratch' % (self.model_dir, total, unit))
        left = total - done - 1
        if estimator.max_batch:
            estimator.max_batch = left
        else:
            estimator.max_epoch = left
        name = '%s-epoch%dbatch%d' % (self.model_prefix, self.trained_epoch, self.trained_batch)
        for suffix in ('.params', '.states'):
            if not os.path.isfile(os.path.join(self.model_dir, name + suffix)):
                raise GluonValueError('CheckpointHandler: cannot resume, %s is missing'
                                      % os.path.join(self.model_dir, name + suffix))
        estimator.net.load_parameters(os.path.join(self.model_dir, name + '.params'), ctx=estimator.context)
        estimator.trainer.load_states(os.path.join(self.model_dir, name + '.states'))
        estimator.logger.warning('CheckpointHandler: Checkpoint resumed from epoch %d batch %d, continue to train '
                                 'for %d %s ', self.trained_epoch, self.trained_batch, left, unit)


class EarlyStoppingHandler(TrainBegin, EpochEnd, TrainEnd):
    """Stops the training when ``monitor`` has not improved by more than ``min_delta`` for
    ``patience`` epochs in a row (``baseline``: the value to beat at first)."""

    def __init__(self, monitor, min_delta=0, patience=0, mode='auto', baseline=None):
        if not isinstance(monitor, EvalMetric):
            raise GluonValueError('EarlyStoppingHandler: monitor must be one of the metrics in '
                                  'estimator.train_metrics or estimator.val_metrics, got %r' % (monitor,))
        if isinstance(monitor, CompositeEvalMetric):
            raise GluonValueError('EarlyStoppingHandler: monitor must be a single metric, not a '
                                  'CompositeEvalMetric')
        self.monitor, self.baseline, self.patience = monitor, baseline, patience
        self.monitor_op = _improvement_test('EarlyStoppingHandler', mode, monitor)
        # an improvement is a step past the best by more than min_delta, in the better direction
        self.min_delta = min_delta if self.monitor_op is np.greater else -min_delta
        self.wait = self.stopped_epoch = self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs):
        self.wait = self.stopped_epoch = self.current_epoch = 0
        self.stop_training = False
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = np.inf if self.monitor_op is np.less else -np.inf

    def epoch_end(self, estimator, *args, **kwargs):
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn('EarlyStoppingHandler: %s has no value (never updated): monitor one of '
                          'estimator.train_metrics or estimator.val_metrics' % name, RuntimeWarning)
        elif self.monitor_op(value - self.min_delta, self.best):
            self.best, self.wait = value, 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch, self.stop_training = self.current_epoch, True
        self.current_epoch += 1
        return self.stop_training

    def train_end(self, estimator, *args, **kwargs):
        if self.stopped_epoch > 0:
            estimator.logger.info('[Epoch %d] EarlyStoppingHanlder: early stopping due to %s not improving',
                                  self.stopped_epoch, self.monitor.get()[0])


class GradientUpdateHandler(BatchEnd):
    """Applies the gradients after each batch: ``trainer.step(n)``, n the samples whose
    losses the batch computed (all devices together), so a mean gradient is what the
    optimizer sees."""

    def __init__(self, priority=-2000):
        self.priority = priority

    def batch_end(self, estimator, *args, **kwargs):
        losses = kwargs['loss']
        losses = losses if isinstance(losses, list) else [losses]
        estimator.trainer.step(sum(l.shape[0] for l in losses))
