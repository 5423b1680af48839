"""Estimator: the Gluon training loop of chapter 16, written once, with hooks.

``Estimator(net, loss, train_metrics, trainer=...).fit(train_loader, val_loader, epochs=3)``
runs, for each batch, what a Gluon script writes by hand::

    with autograd.record():                      # BatchProcessor.fit_batch
        loss = loss_fn(net(data), label)
    loss.backward()
    trainer.step(batch_size)                     # GradientUpdateHandler
    metric.update(label, output)                 # MetricHandler

and everything around that (validation, logging, checkpoints, stopping) is an event handler
(event_handler.py) that the loop calls at six points.  The numbers are those of the loop
written by hand: the estimator only orders the calls.
"""

import copy
import logging
import sys
import warnings

from ....context import Context, cpu, gpu, num_gpus
from ....metric import Loss as LossMetric
from ...data import DataLoader
from ...loss import Loss
from ...parameter import GluonAssertionError, GluonValueError
from ...trainer import Trainer
from .batch_processor import BatchProcessor
from .event_handler import (TrainBegin, EpochBegin, BatchBegin, BatchEnd, EpochEnd, TrainEnd,
                            StoppingHandler, GradientUpdateHandler, MetricHandler, ValidationHandler,
                            LoggingHandler, _check_event_handlers)
from .utils import _check_metrics, _suggest_metric_for_loss, _check_handler_metric_ref

__all__ = ['Estimator']

_EVENTS = (TrainBegin, EpochBegin, BatchBegin, BatchEnd, EpochEnd, TrainEnd)


class Estimator:
    """Trains ``net`` with ``loss`` through ``trainer`` on Gluon DataLoaders.

    ``train_metrics`` (a metric or a list; by default accuracy for a softmax cross-entropy,
    plus the loss itself) are renamed 'training <name>'; ``val_metrics`` (by default copies
    of them) 'validation <name>'.  ``initializer`` initializes a net that is not yet
    initialized; ``trainer`` defaults to SGD at learning rate 0.001 (with a warning).
    ``context``: a Context or a list of them, the batch split over them.  ``val_net`` and
    ``val_loss`` (default: ``net`` and ``loss``) are what ``evaluate`` runs;
    ``batch_processor`` replaces what one batch does (see BatchProcessor).

    ``logger`` is this estimator's own ``logging.Logger``, writing INFO and above to
    ``sys.stdout``; add a handler to it to log to a file too.
    """

    def __init__(self, net, loss, train_metrics=None, val_metrics=None, initializer=None, trainer=None,
                 context=None, val_net=None, val_loss=None, batch_processor=None):
        self.net = net
        self.loss = self._check_loss(loss)
        self._train_metrics = _check_metrics(train_metrics)
        self._val_metrics = _check_metrics(val_metrics)
        self._add_default_training_metrics()
        self._add_validation_metrics()
        self.val_loss = self.loss if val_loss is None else self._check_loss(val_loss)
        self.val_net = self.net if val_net is None else val_net
        self.logger = logging.Logger(name='Estimator', level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))
        self.context = self._check_context(context)
        self._initialize(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)
        self.max_epoch = self.max_batch = None
        self.batch_axis = 0

    # ------------------------------------------------------------- checks and defaults
    @staticmethod
    def _check_loss(loss):
        if not isinstance(loss, Loss):
            raise GluonValueError('Estimator: loss must be a gluon.loss.Loss, got %r' % (loss,))
        return loss

    @staticmethod
    def _check_context(context):
        available = [gpu(i) for i in range(num_gpus())]
        if not context:
            if len(available) > 1:
                warnings.warn('Estimator: %d GPUs found and only gpu(0) used; pass context=[mx.gpu(0), '
                              'mx.gpu(1), ...] to train on all of them' % len(available))
            return [available[0]] if available else [cpu()]
        if isinstance(context, Context):
            context = [context]
        elif not (isinstance(context, list) and all(isinstance(c, Context) for c in context)):
            raise GluonValueError('Estimator: context must be a Context or a list of Context, such as '
                                  'mx.cpu() or [mx.gpu(0), mx.gpu(1)]; got %r' % (context,))
        for ctx in context:
            if not ctx.device_type.startswith('cpu') and ctx not in available:      # cpu_pinned too
                raise GluonAssertionError('Estimator: %s is not available; this machine has mx.cpu()%s'
                                          % (ctx, ''.join(', %s' % g for g in available)))
        return context

    def _is_initialized(self):
        params = self.net.collect_params()
        try:
            for param in params.values():
                param.list_ctx()            # raises for a parameter never initialized
        except RuntimeError:
            return False
        return True

    def _initialize(self, initializer):
        if not self._is_initialized():
            # initializes only the parameters that are not (initialize skips the others)
            if initializer:
                self.net.initialize(init=initializer, ctx=self.context)
            else:
                self.net.initialize(ctx=self.context)
        elif initializer:
            warnings.warn('Network already fully initialized, skipping initialization: the initializer '
                          'given to Estimator is not used (net.initialize(init, force_reinit=True) would '
                          'initialize it again).')

    def _check_trainer(self, trainer):
        if not trainer:
            warnings.warn('No trainer specified, default SGD optimizer with learning rate 0.001 is used.')
            return Trainer(self.net.collect_params(), 'sgd', {'learning_rate': 0.001})
        if not isinstance(trainer, Trainer):
            raise GluonValueError('Estimator: trainer must be a gluon.Trainer, got %r' % (trainer,))
        return trainer

    @staticmethod
    def _check_batch_processor(batch_processor):
        if batch_processor is None:
            return BatchProcessor()
        for method in ('fit_batch', 'evaluate_batch'):
            if not callable(getattr(batch_processor, method, None)):
                raise GluonValueError('Estimator: batch_processor %r has no %s() method; a batch processor '
                                      'needs fit_batch() and evaluate_batch()' % (batch_processor, method))
        return batch_processor

    def _add_default_training_metrics(self):
        if not self._train_metrics:
            suggested = _suggest_metric_for_loss(self.loss)
            if suggested:
                self._train_metrics = [suggested]
            # the loss block's name without its instance number: softmaxcrossentropyloss0 -> ...loss
            self._train_metrics.append(LossMetric(self.loss.name.rstrip('0123456789')))
        for metric in self._train_metrics:
            metric.name = 'training ' + metric.name

    def _add_validation_metrics(self):
        if not self._val_metrics:
            self._val_metrics = [copy.deepcopy(metric) for metric in self._train_metrics]
        for metric in self._val_metrics:
            if 'training' in metric.name:
                metric.name = metric.name.replace('training', 'validation')
            else:
                metric.name = 'validation ' + metric.name

    @property
    def train_metrics(self):
        """The training metrics (names starting 'training'), updated after every batch."""
        return self._train_metrics

    @property
    def val_metrics(self):
        """The validation metrics (names starting 'validation'), updated by ``evaluate``."""
        return self._val_metrics

    @staticmethod
    def _check_loader(data, argument):
        if not isinstance(data, DataLoader):
            raise GluonValueError('Estimator: %s must be a gluon.data.DataLoader, got %s; wrap arrays in '
                                  'gluon.data.ArrayDataset and a DataLoader' % (argument, type(data).__name__))

    # ------------------------------------------------------------- the loops
    def evaluate(self, val_data, batch_axis=0, event_handlers=None):
        """One pass of ``val_net`` over ``val_data`` (a DataLoader), updating ``val_metrics``.

        The pass is one epoch to the handlers: epoch begin, batch begin/end for each batch,
        epoch end.  A MetricHandler and a LoggingHandler of the validation metrics are added
        unless ``event_handlers`` has its own.
        """
        self._check_loader(val_data, 'val_data')
        for metric in self.val_metrics:
            metric.reset()
        handlers = self._prepare_default_validation_handlers(event_handlers)
        _, epoch_begin, batch_begin, batch_end, epoch_end, _ = self._categorize_handlers(handlers)
        for handler in epoch_begin:
            handler.epoch_begin(self)
        for batch in val_data:
            for handler in batch_begin:
                handler.batch_begin(self, batch=batch)
            _, label, pred, loss = self.batch_processor.evaluate_batch(self, batch, batch_axis)
            for handler in batch_end:
                handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
        for handler in epoch_end:
            handler.epoch_end(self)

    def fit(self, train_data, val_data=None, epochs=None, event_handlers=None, batches=None, batch_axis=0):
        """Train on ``train_data`` (a DataLoader) for ``epochs`` epochs or ``batches`` batches
        (exactly one of the two), validating on ``val_data`` after every epoch if given.

        Epoch after epoch until a handler says stop: the epoch-begin handlers, then for each
        batch the batch-begin handlers, ``batch_processor.fit_batch`` and the batch-end
        handlers (one returning True ends the epoch early), then the epoch-end handlers (one
        returning True ends the training).  The default handlers (see event_handler.py) are
        added unless ``event_handlers`` holds one of the same class.
        """
        self._check_loader(train_data, 'train_data')
        if (not epochs) == (not batches):
            raise GluonValueError('Estimator.fit: give exactly one of epochs and batches (got epochs=%r, '
                                  'batches=%r)' % (epochs, batches))
        self.max_epoch, self.max_batch, self.batch_axis = epochs, batches, batch_axis
        handlers = self._prepare_default_handlers(val_data, event_handlers)
        train_begin, epoch_begin, batch_begin, batch_end, epoch_end, train_end = self._categorize_handlers(handlers)
        for handler in train_begin:
            handler.train_begin(self)
        stop = False
        while not stop:
            for handler in epoch_begin:
                handler.epoch_begin(self)
            for batch in train_data:
                for handler in batch_begin:
                    handler.batch_begin(self, batch=batch)
                _, label, pred, loss = self.batch_processor.fit_batch(self, batch, batch_axis)
                # every handler runs, even after one asked to stop
                said_stop = [handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
                             for handler in batch_end]
                if any(said_stop):
                    break
            stop = any([handler.epoch_end(self) for handler in epoch_end])
        for handler in train_end:
            handler.train_end(self)

    # ------------------------------------------------------------- handlers
    @staticmethod
    def _with_defaults(event_handlers, always, defaults, known_metrics):
        """``event_handlers``, then ``always``, then each of ``defaults`` whose class none of
        them has, sorted by priority (a stable sort: equal priorities keep this order)."""
        handlers = _check_event_handlers(event_handlers)
        added = always + [d for d in defaults if not any(isinstance(h, type(d)) for h in handlers)]
        if handlers and added:
            # the user's handlers and the added ones must read the same metric objects
            for handler in handlers + added:
                _check_handler_metric_ref(handler, known_metrics)
        handlers += added
        handlers.sort(key=lambda handler: getattr(handler, 'priority', 0))
        return handlers

    def _prepare_default_handlers(self, val_data, event_handlers):
        # a StoppingHandler always: fit's own epochs or batches is the limit
        defaults = [GradientUpdateHandler(), MetricHandler(metrics=self.train_metrics)]
        if val_data:
            defaults.append(ValidationHandler(val_data=val_data, eval_fn=self.evaluate))
        defaults.append(LoggingHandler(metrics=self.train_metrics))
        return self._with_defaults(event_handlers, [StoppingHandler(self.max_epoch, self.max_batch)], defaults,
                                   set(self.train_metrics + self.val_metrics))

    def _prepare_default_validation_handlers(self, event_handlers):
        defaults = [MetricHandler(metrics=self.val_metrics), LoggingHandler(metrics=self.val_metrics)]
        return self._with_defaults(event_handlers, [], defaults, set(self.val_metrics))

    @staticmethod
    def _categorize_handlers(event_handlers):
        """Six lists, one per event (train begin, epoch begin, batch begin, batch end, epoch
        end, train end): the handlers of that event's class, in the given order."""
        return tuple([h for h in event_handlers if isinstance(h, event)] for event in _EVENTS)
