"""gluon.Trainer: applies an optimizer to a set of Parameters after each backward.

``trainer.step(batch_size)`` does what Module.update does in chapter 8, for Gluon's
Parameters:

1. **rescale**: the optimizer's ``rescale_grad`` becomes ``scale / batch_size``.  The loss
   of a batch is the *sum* of the per-sample losses (``l.backward()`` on a vector
   differentiates its sum), so dividing by the batch size gives the mean's gradient.  The
   readers' question -- why ``loss(...).mean()`` needs ``trainer.step(1)`` -- is this line:
   the mean already divided, and step(1) leaves the gradient as it is.
2. **allreduce**: with parameters on several contexts (or distributed), the gradients are
   summed through a KVStore (chapters 11-12): ``pushpull`` per parameter.
3. **update**: each context's copy is updated by an Updater (or, with
   ``update_on_kvstore``, by the store, and the new values pulled back).

The KVStore is created lazily at the first step, as in MXNet: only then is it known which
parameters finished their deferred initialisation.
"""

from .. import kvstore as kvs
from .. import optimizer as opt
from ..kvstore import KVStoreBase
from ..module.module import _create_kvstore
from ..util import atomic_write_bytes
from .parameter import GluonAssertionError, GluonValueError, Parameter, ParameterDict

__all__ = ['Trainer']


class Trainer:
    """Updates ``params`` (a ParameterDict, a dict or a list of Parameters) with ``optimizer``
    (a name and ``optimizer_params``, or an Optimizer).  ``kvstore``: how gradients of
    several contexts are summed ('device', 'local', 'dist_sync', a KVStore, or None)."""

    def __init__(self, params, optimizer, optimizer_params=None, kvstore='device', compression_params=None,
                 update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = [params[key] for key in sorted(params.keys())]
        if not isinstance(params, (list, tuple)):
            raise GluonValueError('First argument must be a list or dict of Parameters, got %s.' % type(params))
        self._params = []
        self._param2idx = {}
        self._contains_sparse_weight = self._contains_sparse_grad = False
        for i, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise GluonValueError('First argument must be a list or dict of Parameters, got list of %s.'
                                      % type(param))
            self._param2idx[param.name] = i
            self._params.append(param)
            param._set_trainer(self)
            self._contains_sparse_weight |= param._stype != 'default'
            self._contains_sparse_grad |= param._grad_stype != 'default'
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {'kvstore': kvstore, 'update_on_kvstore': update_on_kvstore}
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = None
        self._params_to_init = []
        self._reset_kvstore()

    def _check_contexts(self):
        contexts = None
        for param in self._params:
            ctx = param.list_ctx()
            if contexts is not None and contexts != ctx:
                raise GluonAssertionError('All Parameters must be initialized on the same set of contexts, but '
                                          'Parameter %s is initialized on %s while previous Parameters are '
                                          'initialized on %s.' % (param.name, ctx, contexts))
            contexts = ctx
        return contexts

    def _init_optimizer(self, optimizer, optimizer_params):
        # the optimizer reads lr_mult/wd_mult from the Parameters themselves, by index
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise GluonAssertionError('optimizer_params must be None if optimizer is an instance of Optimizer '
                                          'instead of str')
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts]

    # ------------------------------------------------------------- the store
    def _reset_kvstore(self):
        if self._kvstore is not None and 'dist' in self._kvstore.type:
            raise GluonValueError('Cannot reset distributed KVStore.')
        self._kv_initialized = False
        self._kvstore = None
        self._distributed = None
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        """Create the store (or decide there is none: one context, not distributed)."""
        config = self._kvstore_params
        if self._contains_sparse_weight:
            # a row_sparse weight lives in the store (rows are pulled on demand): always a store
            kvstore = config['kvstore']
            if isinstance(kvstore, str):
                kvstore = kvs.create(kvstore)
            if not isinstance(kvstore, KVStoreBase):
                raise GluonValueError('Cannot use %r as the KVStore of sparse weights' % (kvstore,))
            self._distributed = 'dist' in kvstore.type
            if config['update_on_kvstore'] is False:
                raise GluonValueError('Cannot set update_on_kvstore=False when sparse weights are present.')
            update_on_kvstore = True
        else:
            arrays = {p.name: p.data(self._contexts[0]) for p in self._params}
            kvstore, update_on_kvstore = _create_kvstore(config['kvstore'], len(self._contexts), arrays)
            self._distributed = kvstore is not None and 'dist' in kvstore.type
        if self._contains_sparse_weight:
            pass                            # decided above
        elif self._contains_sparse_grad:    # sparse gradients: updated on the store only when distributed
            update_on_kvstore = self._distributed
            if config['update_on_kvstore'] is not None:
                if config['update_on_kvstore'] is False and self._distributed:
                    raise GluonValueError('Cannot set update_on_kvstore=False on dist kvstore when sparse gradients '
                                          'are present.')
                update_on_kvstore = config['update_on_kvstore']
        else:
            if self._distributed and 'async' in kvstore.type:
                if config['update_on_kvstore'] is False:
                    raise GluonValueError('Please set update_on_kvstore=True when training in async mode.')
                update_on_kvstore = True
            if config['update_on_kvstore'] is not None:
                update_on_kvstore = config['update_on_kvstore']
            if update_on_kvstore and kvstore is not None and not kvstore.is_capable(KVStoreBase.OPTIMIZER):
                if config['update_on_kvstore']:
                    raise GluonValueError('Please set update_on_kvstore=False when training with %s' % type(kvstore))
                update_on_kvstore = False
        if kvstore is not None:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            self._kvstore, self._update_on_kvstore = kvstore, bool(update_on_kvstore)
        else:
            self._kvstore, self._update_on_kvstore = None, None
        self._kv_initialized = True

    def _init_params(self):
        """Put each (now initialised) parameter into the store, and make every context's copy
        equal to the first's; parameters still waiting for their shape wait here too."""
        waiting = []
        if self._kvstore is not None:
            for param in self._params_to_init:
                if param._deferred_init:
                    waiting.append(param)
                    continue
                arrays = param._check_and_get(param._data, list)
                idx = self._param2idx[param.name]
                if param._stype != 'default':
                    self._kvstore.init(idx, arrays[0])
                else:
                    self._kvstore.broadcast(idx, arrays[0], arrays)
        self._params_to_init = waiting

    def _prepare(self):
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    # ------------------------------------------------------------- learning rate
    @property
    def learning_rate(self):
        """The optimizer's current learning rate (its lr_scheduler's value when it has one).

        >>> net = mx.gluon.nn.Dense(2, in_units=3)
        >>> net.initialize()
        >>> trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
        >>> trainer.set_learning_rate(0.05)
        >>> trainer.learning_rate
        0.05
        """
        return self._optimizer.learning_rate

    @property
    def optimizer(self):
        """The Optimizer that updates the parameters (after ``load_states``, the one loaded)."""
        return self._optimizer

    def set_learning_rate(self, lr):
        """Set the optimizer's learning rate to ``lr`` for the following steps.

        Raises:
            LRSchedulerConflict: (an MXNetError) when the optimizer has an lr_scheduler, which
                decides the rate instead.
        """
        self._optimizer.set_learning_rate(lr)

    # ------------------------------------------------------------- a step
    def _check_and_rescale_grad(self, scale):
        if self._update_on_kvstore and self._distributed and self._kv_initialized \
                and self._optimizer.rescale_grad != scale:
            # the servers hold a copy of the optimizer made at the first step
            raise UserWarning('Possible change in the `batch_size` from previous `step` detected. Optimizer gradient '
                              'normalizing factor will not change w.r.t new batch_size when update_on_kvstore=True '
                              'and when distributed kvstore is used.')
        self._optimizer.rescale_grad = scale

    def step(self, batch_size, ignore_stale_grad=False):
        """One update: gradients scaled by ``1 / batch_size``, summed over contexts, applied."""
        self._check_and_rescale_grad(self._scale / batch_size)
        self._prepare()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self):
        """Only the summing of gradients over contexts (then ``update``): to clip or inspect
        the summed gradients in between."""
        self._prepare()
        if self._kvstore is not None and self._update_on_kvstore:
            raise GluonAssertionError('allreduce_grads() when parameters are updated on kvstore is not supported. '
                                      'Try setting `update_on_kvstore` to False when creating trainer.')
        self._allreduce_grads()

    def _allreduce_grads(self):
        if self._kvstore is None:
            return
        for i, param in enumerate(self._params):
            if param.grad_req == 'null':
                continue
            grads = param.list_grad()
            if grads[0].stype != 'default':
                self._kvstore.push(i, grads, priority=-i)
                if param._stype == 'default':
                    target = param.list_data() if self._update_on_kvstore else grads
                    self._kvstore.pull(i, target, priority=-i, ignore_sparse=self._distributed)
            elif self._update_on_kvstore:
                self._kvstore.pushpull(i, grads, out=param.list_data(), priority=-i)
            else:
                self._kvstore.pushpull(i, grads, priority=-i)

    def update(self, batch_size, ignore_stale_grad=False):
        """Only the optimizer's update (after ``allreduce_grads``)."""
        self._prepare()
        if self._kvstore is not None and self._update_on_kvstore:
            raise GluonAssertionError('update() when parameters are updated on kvstore is not supported. Try '
                                      'setting `update_on_kvstore` to False when creating trainer.')
        self._check_and_rescale_grad(self._scale / batch_size)
        self._update(ignore_stale_grad)

    def _update(self, ignore_stale_grad=False):
        scaler = getattr(self, '_amp_loss_scaler', None)     # set by contrib.amp.init_trainer
        if scaler is not None and scaler.has_overflow(self._params):
            return                          # an overflowed gradient: skip this step (the scale shrinks)
        batches = [[] for _ in self._updaters]          # per context: (index, grad, weight)
        for i, param in enumerate(self._params):
            if param.grad_req == 'null':
                continue
            if not ignore_stale_grad:
                for data in param._check_and_get(param._data, list):
                    if not data._fresh_grad:
                        raise UserWarning(
                            'Gradient of Parameter `%s` on context %s has not been updated by backward since last '
                            '`step`. This could mean a bug in your model that made it only use a subset of the '
                            'Parameters (Blocks) for this iteration. If you are intentionally only using a subset, '
                            'call step with ignore_stale_grad=True to suppress this warning and skip updating of '
                            'Parameters with stale gradient' % (param.name, data.context))
            if self._kvstore is not None and self._update_on_kvstore:
                continue                    # the store updated it in pushpull
            for batch, weight, grad in zip(batches, param.list_data(), param.list_grad()):
                if not ignore_stale_grad or weight._fresh_grad:
                    batch.append((i, grad, weight))
                    weight._fresh_grad = False
        for updater, batch in zip(self._updaters, batches):
            if batch:
                indices, grads, weights = zip(*batch)
                updater(list(indices), list(grads), list(weights))

    def _row_sparse_pull(self, parameter, out, row_id, full_idx=False):
        self._prepare()
        idx = self._param2idx[parameter.name]
        if full_idx and 'dist' not in self._kvstore.type:
            self._kvstore.pull(idx, out=out, priority=-idx, ignore_sparse=False)
        else:
            self._kvstore.row_sparse_pull(idx, out=out, row_ids=row_id, priority=-idx)

    # ------------------------------------------------------------- states
    def save_states(self, fname):
        """Save the optimizer's states (momenta, ...) and the optimizer, as Module's
        ``.states`` files."""
        self._prepare()
        if self._update_on_kvstore:
            if self._params_to_init:
                raise GluonAssertionError('Cannot save trainer states when some parameters are not yet initialized '
                                          'in kvstore.')
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
            return
        atomic_write_bytes(fname, self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname):
        """Load the optimizer states (and the optimizer) written by ``save_states`` to ``fname``.

        Creates the kvstore first if no step has done so yet.  The loaded optimizer replaces the
        current one, so settings such as the learning rate come from the file.
        """
        self._prepare()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
        else:
            with open(fname, 'rb') as f:
                states = f.read()
            for updater in self._updaters:
                updater.set_states(states)
                updater.optimizer = self._updaters[0].optimizer
            self._optimizer = self._updaters[0].optimizer
        self._optimizer.param_dict = dict(enumerate(self._params))
