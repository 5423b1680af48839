"""BaseModule: the training loop, written once against an abstract interface.

A module moves through four states, each a flag, each unlocking more calls::

    created --bind()--> binded --init_params()--> params_initialized
            --init_optimizer()--> optimizer_initialized

``fit`` walks the whole path and then loops over epochs of
forward/backward/update/update_metric.  ``score``, ``predict`` and
``iter_predict`` need only the first two steps.  Everything here calls the
abstract methods (``bind``, ``forward``, ``update``, ...) that ``Module``
implements; a call made too early raises a ModuleStateError saying which
step is missing.
"""

import logging
import time
import warnings

import numpy as np

from ..base import MXNetError, _as_list
from .. import ndarray as nd
from .. import metric as _metric
from ..io import DataBatch, DataIter
from ..io.dataiter import data_descs
from ..callback import BatchEndParam
from ..checkpoint import params_bytes, split_params
from ..util import atomic_write_bytes
from ..initializer import Uniform
from ..kvstore.dist import node_prefix

__all__ = ['BaseModule', 'ModuleStateError']


class ModuleStateError(MXNetError, RuntimeError):
    """A Module method was called before the step it depends on (bind, init_params, ...)."""


def _check_input_names(symbol, names, typename, throw):
    """Every name in ``names`` must be an argument of ``symbol`` (labels only warn, as in MXNet)."""
    args = symbol.list_arguments()
    for name in names:
        if name in args:
            continue
        candidates = [arg for arg in args if not arg.endswith(('_weight', '_bias', '_gamma', '_beta'))]
        msg = ('Module(%s_names=%s): %r is not an argument of the symbol; its inputs are %s'
               % (typename, list(names), name, candidates))
        if throw:
            raise MXNetError(msg)
        # a UserWarning, as MXNet 1.9.1 issues it (warnings.warn, not logging): scripts and
        # tests that filter or catch warnings see the same thing with either library
        warnings.warn(msg, stacklevel=3)


def _parse_data_desc(data_names, label_names, data_shapes, label_shapes):
    """DataDesc lists from (name, shape) pairs, checked against the module's input names."""
    data_shapes = data_descs(data_shapes, 'data_shapes')
    _check_names_match(data_names, data_shapes, 'data', True)
    if label_shapes is not None:
        label_shapes = data_descs(label_shapes, 'label_shapes')
        _check_names_match(label_names, label_shapes, 'label', False)
    else:
        _check_names_match(label_names, [], 'label', False)
    return data_shapes, label_shapes


def _check_names_match(names, shapes, what, throw):
    actual = [x.name for x in shapes]
    if sorted(names) != sorted(actual):
        msg = ("the %s given (%s) do not match the module's %s_names %s" % (what, actual, what, list(names)))
        if throw:
            raise MXNetError(msg)
        warnings.warn(msg, stacklevel=3)    # as MXNet 1.9.1 (see _check_input_names)


class BaseModule:
    """Abstract module: subclasses provide bind/init_params/forward/backward/update/..."""

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None
        self._total_exec_bytes = 0

    # ------------------------------------------------------------- guarding
    def _require(self, action, binded=True, params=False, optimizer=False):
        if binded and not self.binded:
            raise ModuleStateError('%s: call bind() first' % action)
        if params and not self.params_initialized:
            raise ModuleStateError('%s: call init_params() (or set_params) first' % action)
        if optimizer and not self.optimizer_initialized:
            raise ModuleStateError('%s: call init_optimizer() first' % action)

    # ------------------------------------------------------- high-level API
    def forward_backward(self, data_batch):
        """One training step's computation: forward in training mode, then backward."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None,
              score_end_callback=None, reset=True, epoch=0, sparse_row_id_fn=None):
        """Run inference over ``eval_data`` and return ``eval_metric``'s (name, value) pairs.

        Like MXNet, padded samples of a last, padded batch are fed to the metric too.
        """
        self._require('score', params=True)
        if reset:
            eval_data.reset()
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)
        eval_metric.reset()
        actual_num_batch = 0
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            self.update_metric(eval_metric, eval_batch.label)
            if batch_end_callback is not None:
                params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals())
                for callback in _as_list(batch_end_callback):
                    callback(params)
            actual_num_batch += 1
        if score_end_callback:
            params = BatchEndParam(epoch=epoch, nbatch=actual_num_batch, eval_metric=eval_metric,
                                   locals=locals())
            for callback in _as_list(score_end_callback):
                callback(params)
        return eval_metric.get_name_value()

    def iter_predict(self, eval_data, num_batch=None, reset=True, sparse_row_id_fn=None):
        """Yield (outputs without padding, batch index, batch) for each batch."""
        self._require('iter_predict', params=True)
        if reset:
            eval_data.reset()
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            pad = eval_batch.pad or 0
            outputs = [out[0:out.shape[0] - pad] for out in self.get_outputs()]
            yield outputs, nbatch, eval_batch

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True,
                always_output_list=False, sparse_row_id_fn=None):
        """Outputs for every sample of ``eval_data`` (padding removed), merged across batches."""
        self._require('predict', params=True)
        if isinstance(eval_data, (nd.NDArray, np.ndarray)):
            if isinstance(eval_data, np.ndarray):
                eval_data = nd.array(eval_data)
            self.forward(DataBatch([eval_data]))
            return self.get_outputs()[0]
        if not isinstance(eval_data, DataIter):
            raise MXNetError('predict: eval_data must be an NDArray or a DataIter, got %s'
                             % type(eval_data).__name__)
        # copies: the executors write the next batch's outputs into the same memory
        output_list = [[out.copy() for out in outputs] for outputs, _, _ in
                       self.iter_predict(eval_data, num_batch, reset, sparse_row_id_fn)]
        if not output_list or not merge_batches:
            return output_list
        num_outputs = len(output_list[0])
        if any(len(outs) != num_outputs for outs in output_list):
            raise MXNetError('predict: cannot merge batches with different numbers of outputs '
                             '(bucketing?); pass merge_batches=False')
        merged = [nd.concatenate([outs[i] for outs in output_list]) for i in range(num_outputs)]
        if num_outputs == 1 and not always_output_list:
            return merged[0]
        return merged

    def fit(self, train_data, eval_data=None, eval_metric='acc', epoch_end_callback=None,
            batch_end_callback=None, kvstore='local', optimizer='sgd',
            optimizer_params=(('learning_rate', 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=Uniform(0.01), arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False,
            begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None,
            sparse_row_id_fn=None):
        """Train: bind, init_params, init_optimizer, then ``num_epoch - begin_epoch`` epochs.

        One batch is: forward_backward, update, update_metric (on this batch's
        outputs and labels), and only then fetch the next batch, so the metric
        always sees outputs computed before this step's update, on this batch.
        At the end of an epoch the parameters are averaged over the devices and
        written back to all of them (get_params + set_params), which keeps
        BatchNorm's per-device moving statistics in agreement.
        """
        if num_epoch is None:
            raise MXNetError('fit: please specify num_epoch')
        if not hasattr(train_data, 'provide_data') or not hasattr(train_data, 'reset'):
            raise MXNetError('fit: train_data must be a DataIter (mx.io.NDArrayIter(x, y, '
                             'batch_size), say), which says its shapes in provide_data; got %s'
                             % type(train_data).__name__)
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, _metric.EvalMetric):
            eval_metric = _metric.create(eval_metric)

        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            data_iter = iter(train_data)
            end_of_batch = False
            try:
                next_data_batch = next(data_iter)
            except StopIteration:
                raise MXNetError('fit: epoch %d has no batch: train_data is exhausted (an iterator run to '
                                 'its end before fit: call train_data.reset() first) or empty'
                                 % epoch) from None
            while not end_of_batch:
                data_batch = next_data_batch
                if monitor is not None:
                    monitor.tic()
                self.forward_backward(data_batch)
                self.update()
                self.update_metric(eval_metric, data_batch.label)
                try:
                    next_data_batch = next(data_iter)
                    self.prepare(next_data_batch, sparse_row_id_fn=sparse_row_id_fn)
                except StopIteration:
                    end_of_batch = True
                if monitor is not None:
                    monitor.toc_print()
                if end_of_batch:
                    eval_name_vals = eval_metric.get_global_name_value()
                if batch_end_callback is not None:
                    params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                           locals=locals())
                    for callback in _as_list(batch_end_callback):
                        callback(params)
                nbatch += 1
            node = node_prefix()        # 'Node[1] ' on worker 1 of a distributed job, else ''
            for name, val in eval_name_vals:
                self.logger.info(node + 'Epoch[%d] Train-%s=%f', epoch, name, val)
            self.logger.info(node + 'Epoch[%d] Time cost=%.3f', epoch, time.time() - tic)

            arg_params, aux_params = self.get_params()
            if self._devices_may_differ():
                # every device gets the averaged parameters (each one's BatchNorm statistics
                # saw only its own samples)
                self.set_params(arg_params, aux_params)
            if epoch_end_callback is not None:
                for callback in _as_list(epoch_end_callback):
                    callback(epoch, self.symbol, arg_params, aux_params)
            if eval_data:
                res = self.score(eval_data, validation_metric, score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info(node + 'Epoch[%d] Validation-%s=%f', epoch, name, val)
            train_data.reset()

    # ----------------------------------------------------------- parameters
    def _devices_may_differ(self):
        """Whether the parameters just read by get_params may differ from some device's copy,
        so that fit writes them back at the end of each epoch (MXNet always does)."""
        return True

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        """Set the parameters from dicts; a module that has no better way re-runs init_params
        with them (as MXNet's BaseModule does; Module has its own)."""
        self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                         allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)

    def save_params(self, fname):
        """Save ``arg:NAME`` / ``aux:NAME`` arrays in MXNet's .params format (atomically)."""
        atomic_write_bytes(fname, params_bytes(*self.get_params()))

    def load_params(self, fname):
        """Set the parameters from a file written by save_params (or MXNet's)."""
        self.set_params(*split_params(nd.load(fname), fname))

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Hook run on the next batch while the current one finishes (row-sparse pulls in MXNet)."""

    @property
    def symbol(self):
        """The Symbol the module computes (None for a module without one); ``fit`` hands it to
        its epoch-end callbacks, so that a checkpoint callback can save it.
        """
        return self._symbol

    # Subclasses implement the rest: data_names, output_names, data_shapes, label_shapes,
    # output_shapes, get_params, init_params, set_params, bind, init_optimizer, forward,
    # backward, update, get_outputs, get_input_grads, update_metric, install_monitor.
