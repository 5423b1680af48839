"""SVRGModule: a Module trained with stochastic variance-reduced gradients (Johnson & Zhang, 2013).

Plain SGD steps along the gradient of one mini-batch, ``g_i(w)``.  That is an unbiased but
*noisy* estimate of the full gradient, and the noise is why SGD needs a decaying learning
rate to settle.  SVRG removes most of the noise with a control variate:

1. Every ``update_freq`` epochs, take a *snapshot* ``w~`` of the weights and compute the
   full gradient there, the average over all batches: ``mu = mean_i g_i(w~)``
   (``update_full_grads``).
2. For each mini-batch ``i``, compute the gradient at the current weights *and* at the
   snapshot, and step along ::

       g_svrg = g_i(w) - g_i(w~) + mu

   Its expectation over ``i`` is still the full gradient at ``w`` (the last two terms cancel
   on average), but as ``w`` approaches ``w~`` the two batch gradients' noise cancels too,
   so the variance shrinks and a constant learning rate converges.

SVRGModule holds two Modules over the same symbol: itself, with the live weights ``w``, and
``_mod_aux``, with the snapshot ``w~``.  Every training ``forward``/``backward`` runs both on
the same batch; ``update`` rewrites the live gradients into ``g_svrg`` and hands them to the
ordinary optimizer machinery.  ``_param_dict[k][name]`` holds ``mu`` for device ``k``.

>>> import numpy as np
>>> import reflib as mx
>>> from reflib.contrib.svrg_optimization import SVRGModule
>>> x = np.arange(16, dtype='float32').reshape(8, 2) / 8
>>> it = mx.io.NDArrayIter(x, x.dot([1., 2.]), batch_size=4, label_name='lin_reg_label')
>>> net = mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=1, name='fc1'),
...                                     label=mx.sym.var('lin_reg_label'), name='lro')
>>> mod = SVRGModule(net, data_names=['data'], label_names=['lin_reg_label'], update_freq=2)
>>> mod.fit(it, eval_metric='mse', optimizer='sgd', optimizer_params={'learning_rate': 0.1},
...         initializer=mx.init.Zero(), num_epoch=2)
>>> sorted(mod._param_dict[0])
['fc1_bias', 'fc1_weight']

Numbers as MXNet 1.9.1's, including two of its habits worth knowing (see ``update_full_grads``
and ``init_optimizer``): each new full-gradient pass starts its running sum from the previous
``mu`` instead of from zero, and ``init_optimizer`` resets ``mu`` to zero even when it is
otherwise ignored.
"""

import logging
import time

from ...base import MXNetError, _as_list
from ...context import cpu
from ... import ndarray as nd
from ... import metric as _metric
from ...callback import BatchEndParam
from ...initializer import Uniform
from ...module import Module
from ...module.base_module import ModuleStateError
from ...module.module import _create_kvstore
from .svrg_optimizer import _SVRGOptimizer, FULL_SUFFIX

__all__ = ['SVRGModule', 'SVRGError']


class SVRGError(MXNetError, ValueError):
    """An SVRGModule was configured or fed wrongly (a bad update_freq, no training data, ...)."""


class SVRGTypeError(SVRGError, TypeError):
    """An SVRGModule argument has the wrong type (MXNet raises a bare TypeError there)."""


def _check_update_freq(update_freq):
    # bool is an int in Python, but update_freq=True is surely a mistake, not "every epoch"
    if isinstance(update_freq, bool) or not isinstance(update_freq, int):
        raise SVRGTypeError('SVRGModule: update_freq must be a positive int, the number of epochs between two '
                            'full-gradient passes; got %r (%s)' % (update_freq, type(update_freq).__name__))
    if update_freq <= 0:
        raise SVRGError('SVRGModule: update_freq must be a positive int, the number of epochs between two '
                        'full-gradient passes; got %d' % update_freq)
    return update_freq


class SVRGModule(Module):
    """A Module whose ``update`` steps along the SVRG gradient ``g_i(w) - g_i(w~) + mu``.

    Parameters
    ----------
    symbol, data_names, label_names, logger, context, work_load_list, fixed_param_names, state_names, group2ctxs, compression_params
        As for :class:`reflib.module.Module`.
    update_freq : int
        Take a new snapshot and recompute the full gradient every ``update_freq`` epochs
        (``fit`` does it at the epochs ``e`` with ``e % update_freq == 0``).  Required.
    """

    def __init__(self, symbol, data_names=('data',), label_names=('softmax_label',), logger=logging,
                 context=cpu(), work_load_list=None, fixed_param_names=None, state_names=None,
                 group2ctxs=None, compression_params=None, update_freq=None):
        self.update_freq = _check_update_freq(update_freq)
        super().__init__(symbol, data_names=data_names, label_names=label_names, logger=logger,
                         context=context, work_load_list=work_load_list,
                         fixed_param_names=fixed_param_names, state_names=state_names,
                         group2ctxs=group2ctxs, compression_params=compression_params)
        # the snapshot module: same symbol and devices, its own weights w~ and gradients
        self._mod_aux = Module(symbol, data_names=data_names, label_names=label_names, logger=logger,
                               context=context, work_load_list=work_load_list,
                               fixed_param_names=fixed_param_names, state_names=state_names,
                               group2ctxs=group2ctxs, compression_params=compression_params)
        # mu per device: [{param name: NDArray}], made by init_optimizer
        self._param_dict = None
        self._ctx_len = len(self._context)
        # whether _mod_aux ran forward (and backward) on the batch the live module ran on last,
        # and whether the live module has run backward since the last update: update() must
        # pair g_i(w) with g_i(w~) of the *same* batch
        self._aux_forwarded = False
        self._aux_backwarded = False
        self._live_backwarded = False
        # whether mu has been computed since init_optimizer zeroed it
        self._full_grads_ready = False

    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, update_freq=None, **kwargs):
        """An SVRGModule from a checkpoint written by ``save_checkpoint`` (parameters set, not
        bound), given ``update_freq``.

        Without ``update_freq`` this returns a plain Module, as MXNet 1.9.1 does (it inherits
        Module.load): enough to predict or to train on with ordinary SGD.
        """
        plain = Module.load(prefix, epoch, load_optimizer_states=load_optimizer_states, **kwargs)
        if update_freq is None:
            return plain
        mod = SVRGModule(plain.symbol, update_freq=update_freq, **kwargs)
        mod._arg_params, mod._aux_params = plain._arg_params, plain._aux_params
        mod.params_initialized = True
        mod._preload_opt_states = plain._preload_opt_states
        return mod

    # ------------------------------------------------------------------ binding
    def _reset_bind(self):
        super()._reset_bind()
        self._mod_aux._reset_bind()

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req='write'):
        """Bind the live module and, for training, the snapshot module to the same shapes."""
        super().bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind,
                     shared_module, grad_req)
        if for_training:
            # share with the other SVRGModule's *snapshot* module: sharing the live module's
            # arrays (as MXNet does) would make w~ the very same memory as w
            shared_aux = shared_module._mod_aux if isinstance(shared_module, SVRGModule) else None
            self._mod_aux.bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind,
                               shared_aux, grad_req)

    def reshape(self, data_shapes, label_shapes=None):
        """Reshape both modules to new input shapes."""
        super().reshape(data_shapes, label_shapes=label_shapes)
        if self._mod_aux.binded:
            self._mod_aux.reshape(data_shapes, label_shapes=label_shapes)

    # ---------------------------------------------------------------- optimizer
    def init_optimizer(self, kvstore='local', optimizer='sgd', optimizer_params=(('learning_rate', 0.01),),
                       force_init=False):
        """Install an ``_SVRGOptimizer`` wrapping ``optimizer``, and zero the full gradients.

        ``optimizer`` (a name or an Optimizer) takes the steps; ``optimizer_params`` are its
        hyperparameters, with ``rescale_grad = 1/batch_size`` added as Module does.  With a
        KVStore, every parameter ``P`` also gets a key ``P_full`` where the devices' and
        workers' full gradients are summed.
        """
        self._require('init_optimizer', params=True)
        # As MXNet 1.9.1: mu is zeroed on every call, even one ignored below because an
        # optimizer is already installed (fit calls init_optimizer too: a full gradient computed
        # before fit is therefore not carried into it).
        arg_params = self.get_params()[0]
        self._param_dict = [{name: nd.zeros(value.shape, ctx=self._context[k]) for name, value in arg_params.items()}
                            for k in range(self._ctx_len)]
        self._full_grads_ready = False
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring...')
            return
        svrg_optimizer, kv = self._create_optimizer(optimizer, kvstore, optimizer_params)
        if isinstance(kvstore, str) and 'dist' in kvstore:
            kvstore = kv        # one distributed store, not a second connection to the servers
        super().init_optimizer(kvstore=kvstore, optimizer=svrg_optimizer, optimizer_params=optimizer_params,
                               force_init=force_init)
        if self._kvstore is not None:
            for name in self._exec_group.param_names:
                self._kvstore.init(name + FULL_SUFFIX, nd.zeros(self._arg_params[name].shape))
            # (MXNet 1.9.1 then pulls these zeros into the live weights on every device when the
            # store updates them, so that the first batch computes with w = 0; not done here)

    def _create_optimizer(self, default_opt, kvstore, optimizer_params):
        """The _SVRGOptimizer for ``default_opt``, configured as Module configures an optimizer,
        and the KVStore (or None) that ``kvstore`` stands for.

        Its ``param_idx2name`` is Module's (by parameter, or by parameter and device when the
        update runs on the devices) plus one new index per full-gradient key ``P_full``.
        """
        kv, update_on_kvstore = _create_kvstore(kvstore, self._ctx_len, self._arg_params)
        batch_size = self._exec_group.batch_size
        if kv is not None and 'dist' in kv.type and '_sync' in kv.type:
            batch_size *= kv.num_workers
        param_names = self._exec_group.param_names
        if update_on_kvstore:
            idx2name = dict(enumerate(param_names))
        else:
            idx2name = {i * self._ctx_len + k: name for k in range(self._ctx_len)
                        for i, name in enumerate(param_names)}
        for name in self._param_dict[0]:
            idx2name[max(idx2name) + 1] = name + FULL_SUFFIX
        params = dict(optimizer_params)
        params.setdefault('rescale_grad', 1.0 / batch_size)
        params['default_optimizer'] = default_opt
        params['param_idx2name'] = idx2name
        # the symbol gives the optimizer its lr_mult/wd_mult attributes, as Module's own optimizers
        # get them (MXNet 1.9.1's SVRG does not pass it, so it ignores those attributes)
        if isinstance(default_opt, str):
            params.setdefault('sym', self._symbol)
        return _SVRGOptimizer(**params), kv

    # ---------------------------------------------------------------- computing
    def forward(self, data_batch, is_train=None):
        """Forward on the live weights; in training mode also on the snapshot weights.

        ``is_train=None`` means ``for_training``, as for Module.  (MXNet 1.9.1 runs the
        snapshot only for an explicit ``is_train=True``, and a later ``update`` then uses the
        snapshot gradients of an older batch.)
        """
        super().forward(data_batch, is_train)
        training = self.for_training if is_train is None else is_train
        self._aux_forwarded = self._aux_backwarded = False
        if training and self._mod_aux.binded:
            if not self._mod_aux.params_initialized:
                raise ModuleStateError('SVRGModule.forward: the snapshot weights w~ are not set yet; call '
                                       'update_full_grads(train_data) first (fit does it every update_freq '
                                       'epochs), or pass is_train=False for inference')
            self._mod_aux.forward(data_batch, is_train=True)
            self._aux_forwarded = True

    def backward(self, out_grads=None):
        """Backward on both modules: the gradients ``g_i(w)`` and ``g_i(w~)`` of the same batch."""
        super().backward(out_grads)
        self._live_backwarded = True
        if self._aux_forwarded:
            self._mod_aux.backward(out_grads)
            self._aux_backwarded = True

    def update(self):
        """Replace each gradient by ``g_i(w) - g_i(w~) + mu``, then let the optimizer step."""
        self._require('update', params=True, optimizer=True)
        if self._live_backwarded and not self._aux_backwarded:
            # (an update with no backward at all is allowed, as for Module: it uses whatever the
            # gradient arrays hold, zeros at first)
            raise ModuleStateError('SVRGModule.update: the snapshot gradients g_i(w~) of the last batch are '
                                   'missing (update_full_grads ran since, or the batch ran forward in '
                                   'inference mode); run forward(batch, is_train=True) and backward() (or '
                                   'forward_backward) before update')
        self._update_svrg_gradients()
        super().update()
        self._live_backwarded = False

    @staticmethod
    def _svrg_grads_update_rule(g_curr_batch_curr_weight, g_curr_batch_special_weight,
                                g_special_weight_all_batch):
        """``g_i(w) - g_i(w~) + mu`` for each array of the lists, written into the first list's
        arrays (in place: they are the executors' gradient arrays), which is returned."""
        for index, grad in enumerate(g_curr_batch_curr_weight):
            # two in-place float32 operations in this order, as MXNet rounds them
            grad -= g_curr_batch_special_weight[index]
            grad += g_special_weight_all_batch[index]
        return g_curr_batch_curr_weight

    def _update_svrg_gradients(self):
        group, aux_group = self._exec_group, self._mod_aux._exec_group
        for k in range(self._ctx_len):
            for index, name in enumerate(group.param_names):
                grad = group.grad_arrays[index][k]
                if grad is None:            # a fixed parameter: no gradient, no step
                    continue
                self._svrg_grads_update_rule([grad], [aux_group.grad_arrays[index][k]],
                                             [self._param_dict[k][name]])

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Prepare both modules for ``data_batch`` (row_sparse pulls; see Module.prepare)."""
        super().prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        if self._mod_aux.binded:
            self._mod_aux.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)

    # ----------------------------------------------------------- full gradients
    def update_full_grads(self, train_data):
        """Take the snapshot ``w~ = w`` and compute the full gradient ``mu`` there.

        ``mu`` is the average over the batches of ``train_data`` of the batch gradient (the
        loss heads' gradient *summed* over the batch's samples, as in every Module; the
        optimizer's ``rescale_grad`` turns it into a per-sample mean later).  A padded last
        batch counts as the fraction ``1 - pad/batch_size`` of a batch.  With a KVStore the
        devices' and workers' values are summed in it and shared out again.

        As MXNet 1.9.1 does, the running sum starts from the *previous* ``mu`` (zero only after
        init_optimizer), so from the second pass on the result is
        ``(mu_old + sum of batch gradients) / number of batches``.
        """
        self._require('update_full_grads', params=True)
        if self._param_dict is None:
            raise ModuleStateError('update_full_grads: call init_optimizer() first (it sets up the full '
                                   'gradients)')
        if not self._mod_aux.binded:
            raise ModuleStateError('update_full_grads: the module was bound with for_training=False; bind for '
                                   'training to compute gradients')
        if train_data is None or not hasattr(train_data, 'reset'):
            raise SVRGError('update_full_grads: train_data must be a DataIter over the training set, got %s'
                            % type(train_data).__name__)
        param_names = self._exec_group.param_names
        arg_params, aux_params = self.get_params()
        self._mod_aux.set_params(arg_params, aux_params)        # the snapshot w~
        train_data.reset()
        nbatch, padding = 0, 0
        for batch in train_data:
            self._mod_aux.forward(batch, is_train=True)
            self._mod_aux.backward()
            nbatch += 1
            for k in range(self._ctx_len):
                for index, name in enumerate(param_names):
                    grad = self._mod_aux._exec_group.grad_arrays[index][k]
                    if grad is not None:
                        # a new array, not +=: the executor overwrites grad with the next batch's
                        self._param_dict[k][name] = self._param_dict[k][name] + grad
            padding = batch.pad or 0
        if nbatch == 0:
            raise SVRGError('update_full_grads: train_data gave no batch (is it empty?)')
        # the live module's next update needs g_i(w~) of its own batch, not of this pass's last
        self._aux_forwarded = self._aux_backwarded = False
        true_num_batch = nbatch - padding / train_data.batch_size
        for name in param_names:
            for k in range(self._ctx_len):
                self._param_dict[k][name] /= true_num_batch
            if self._kvstore is not None:
                self._accumulate_kvstore(name, [self._param_dict[k][name] for k in range(self._ctx_len)])
        self._full_grads_ready = True

    def _accumulate_kvstore(self, key, value):
        """Sum the per-device (and per-worker) full gradients ``value`` of ``key`` in the KVStore,
        under ``key + '_full'``, and give each device its share (``_allocate_gradients``)."""
        self._kvstore.push(key + FULL_SUFFIX, value)
        self._kvstore._barrier()            # every worker has pushed before anyone pulls
        self._kvstore.pull(key + FULL_SUFFIX, value)
        self._allocate_gradients(key, value)

    def _allocate_gradients(self, key, value):
        """Device ``k`` keeps ``1/num_devices`` of the summed full gradient: the devices' SVRG
        gradients are summed again in ``update``, which restores the whole ``mu``."""
        for k in range(self._ctx_len):
            self._param_dict[k][key] = value[k] / self._ctx_len

    # ---------------------------------------------------------------- training
    def fit(self, train_data, eval_data=None, eval_metric='acc', epoch_end_callback=None,
            batch_end_callback=None, kvstore='local', optimizer='sgd',
            optimizer_params=(('learning_rate', 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=Uniform(0.01), arg_params=None, aux_params=None,
            allow_missing=False, force_rebind=False, force_init=False, begin_epoch=0, num_epoch=None,
            validation_metric=None, monitor=None, sparse_row_id_fn=None):
        """Train as ``Module.fit`` does, with a full-gradient pass (``update_full_grads``) at the
        start of every epoch ``e`` with ``e % update_freq == 0``; the arguments are Module.fit's.

        (Also at the first epoch, whatever its number: MXNet 1.9.1 fails there when
        ``begin_epoch`` is not a multiple of ``update_freq``, having no snapshot yet.)
        """
        if train_data is None or not hasattr(train_data, 'provide_data') or not hasattr(train_data, 'reset'):
            raise SVRGError('SVRGModule.fit: train_data must be a DataIter (mx.io.NDArrayIter(x, y, batch_size), '
                            'say): SVRG passes over it for the full gradient; got %s' % type(train_data).__name__)
        if num_epoch is None:
            raise SVRGError('SVRGModule.fit: please specify num_epoch')
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
            eval_metric.reset()
            tic = time.time()
            if epoch % self.update_freq == 0 or not self._full_grads_ready:
                self.update_full_grads(train_data)
            train_data.reset()
            data_iter = iter(train_data)
            next_data_batch = next(data_iter)       # (update_full_grads saw at least one batch)
            end_of_batch, nbatch = False, 0
            while not end_of_batch:
                data_batch = next_data_batch
                if monitor is not None:
                    monitor.tic()
                self.forward_backward(data_batch)
                self.update()
                if isinstance(data_batch, list):
                    self.update_metric(eval_metric, [b.label for b in data_batch], pre_sliced=True)
                else:
                    self.update_metric(eval_metric, data_batch.label)
                try:
                    next_data_batch = next(data_iter)
                    self.prepare(next_data_batch, sparse_row_id_fn=sparse_row_id_fn)
                except StopIteration:
                    end_of_batch = True
                if monitor is not None:
                    monitor.toc_print()
                if end_of_batch:
                    eval_name_vals = eval_metric.get_name_value()
                if batch_end_callback is not None:
                    params = BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals())
                    for callback in _as_list(batch_end_callback):
                        callback(params)
                nbatch += 1
            for name, val in eval_name_vals:
                self.logger.info('Epoch[%d] Train-%s=%f', epoch, name, val)
            self.logger.info('Epoch[%d] Time cost=%.3f', epoch, time.time() - tic)

            # every device gets the averaged parameters (and BatchNorm statistics)
            arg_params, aux_params = self.get_params()
            if self._devices_may_differ():
                self.set_params(arg_params, aux_params)
            if epoch_end_callback is not None:
                for callback in _as_list(epoch_end_callback):
                    callback(epoch, self.symbol, arg_params, aux_params)
            if eval_data:
                res = self.score(eval_data, validation_metric, score_end_callback=eval_end_callback,
                                 batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, val in res:
                    self.logger.info('Epoch[%d] Validation-%s=%f', epoch, name, val)
