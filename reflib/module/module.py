"""Module: a symbol plus its parameters, optimizer and devices, as one trainable object.

``Module`` implements BaseModule's interface with a DataParallelExecutorGroup
(``_exec_group``) doing the computing and a KVStore (or a plain updater)
doing the learning.  Two things it keeps in sync are easy to miss:

* ``_arg_params``/``_aux_params`` are host-side copies of the parameters.
  The devices hold the live ones.  After ``update`` the host copies are stale,
  which ``_params_dirty`` records; ``get_params`` re-reads (averages) them
  from the devices only then.
* ``rescale_grad = 1/batch_size`` (times the number of workers under
  dist_sync): loss heads return per-sample gradients *summed* over the
  batch, and the optimizer turns the sum into a mean.

>>> import reflib as mx
>>> net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3,
...                                                  name='fc'), name='softmax')
>>> mod = mx.mod.Module(net, context=[mx.cpu(0), mx.cpu(1)])
>>> mod.bind(data_shapes=[('data', (4, 5))], label_shapes=[('softmax_label', (4,))])
>>> mod.init_params(mx.init.Xavier())
>>> mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1})
>>> mod._optimizer.rescale_grad
0.25
"""

import logging
import os
import warnings

import numpy as np

from ..base import MXNetError
from ..context import Context, cpu
from .. import ndarray as nd
from .. import optimizer as opt
from .. import kvstore as kvs
from ..initializer import Uniform, InitDesc
from ..io import DataDesc
from ..io.dataiter import data_descs
from .. import checkpoint
from ..checkpoint import load_checkpoint, save_checkpoint
from ..util import atomic_write_bytes
from .base_module import BaseModule, ModuleStateError, _check_input_names, _parse_data_desc
from .executor_group import DataParallelExecutorGroup

__all__ = ['Module']


class Module(BaseModule):
    """A trainable symbol on one or more devices (MXNet's ``mx.mod.Module``)."""

    def __init__(self, symbol, data_names=('data',), label_names=('softmax_label',), logger=logging,
                 context=cpu(), work_load_list=None, fixed_param_names=None, state_names=None,
                 group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        if isinstance(context, Context):
            context = [context]
        self._context = list(context)
        self._work_load_list = list(work_load_list) if work_load_list is not None else [1] * len(self._context)
        if len(self._work_load_list) != len(self._context):
            raise MXNetError('Module: work_load_list has %d entries for %d contexts'
                             % (len(self._work_load_list), len(self._context)))
        self._group2ctxs = group2ctxs
        self._symbol = symbol
        self._data_names = list(data_names or [])
        self._label_names = list(label_names or [])
        self._state_names = list(state_names or [])
        self._fixed_param_names = list(fixed_param_names or [])
        _check_input_names(symbol, self._data_names, 'data', True)
        _check_input_names(symbol, self._label_names, 'label', False)
        _check_input_names(symbol, self._state_names, 'state', True)
        _check_input_names(symbol, self._fixed_param_names, 'fixed_param', True)

        inputs = set(self._data_names + self._label_names + self._state_names)
        self._param_names = [name for name in symbol.list_arguments() if name not in inputs]
        self._aux_names = symbol.list_auxiliary_states()
        self._output_names = symbol.list_outputs()
        self._arg_params = None
        self._aux_params = None
        self._params_dirty = False
        self._compression_params = compression_params
        self._optimizer = None
        self._kvstore = None
        self._update_on_kvstore = None
        self._updater = None
        self._preload_opt_states = None
        self._grad_req = None
        self._bound_label_names = []
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    # ---------------------------------------------------------- checkpoints
    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module from ``prefix-symbol.json`` and ``prefix-%04d.params`` (parameters set, not
        yet bound), and with ``load_optimizer_states`` the ``.states`` file, which must come
        from the same save as the ``.params`` (see reflib/checkpoint.py)."""
        sym, args, auxs = load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params = args
        mod._aux_params = auxs
        mod.params_initialized = True
        if load_optimizer_states:
            states = '%s-%04d.states' % (prefix, epoch)
            # fail here, naming the file, not at init_optimizer with a bare FileNotFoundError
            # (where MXNet 1.9.1 fails)
            if not checkpoint.exists(prefix, epoch, states):
                raise MXNetError('Module.load(%r, %d, load_optimizer_states=True): no optimizer state file %s'
                                 % (prefix, epoch, states))
            params = '%s-%04d.params' % (prefix, epoch)
            checkpoint.files_to_read(prefix, epoch, [params, states])       # one set, now
            mod._preload_opt_states = (prefix, epoch, states)               # read at init_optimizer
        return mod

    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False, remove_amp_cast=True):
        """Write ``prefix-symbol.json``, ``prefix-%04d.params`` and optionally ``.states`` as one
        set: a crash leaves the previous checkpoint or this one, whole (reflib/checkpoint.py)."""
        # the state first: a premature call writes nothing at all, not a symbol file and
        # then an error
        self._require('save_checkpoint', params=True, optimizer=save_optimizer_states)
        arg_params, aux_params = self.get_params()
        states = self._optimizer_states_bytes() if save_optimizer_states else None
        save_checkpoint(prefix, epoch, self._symbol, arg_params, aux_params, states=states)
        if save_optimizer_states:
            self.logger.info('Saved optimizer state to "%s-%04d.states"', prefix, epoch)

    # ----------------------------------------------------------- properties
    @property
    def data_names(self):
        """The names of the data inputs, as given to the constructor (a list)."""
        return self._data_names

    @property
    def label_names(self):
        """The names of the label inputs, as given to the constructor (a list)."""
        return self._label_names

    @property
    def output_names(self):
        """The names of the symbol's outputs (a list), e.g. ``['softmax_output']``."""
        return self._output_names

    @property
    def data_shapes(self):
        """The DataDescs of the data inputs the module is bound for (whole-batch shapes).
        Raises ModuleStateError before ``bind``.
        """
        self._require('data_shapes')
        return self._data_shapes

    @property
    def label_shapes(self):
        """The DataDescs of the label inputs the module is bound for, or None when it was bound
        without labels (for inference).  Raises ModuleStateError before ``bind``.
        """
        self._require('label_shapes')
        return self._label_shapes

    @property
    def output_shapes(self):
        """``[(output name, shape)]`` of the outputs for a whole batch.  Raises ModuleStateError
        before ``bind``.
        """
        self._require('output_shapes')
        return self._exec_group.get_output_shapes()

    # ----------------------------------------------------------- parameters
    def get_params(self):
        """(arg_params, aux_params) on the host, re-read from the devices if an update made them stale.
        (A module made by Module.load has parameters before it is bound, as in MXNet.)"""
        self._require('get_params', binded=False, params=True)
        if self._params_dirty:
            self._sync_params_from_devices()
        return self._arg_params, self._aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Fill every parameter: from ``arg_params``/``aux_params`` if given, else with ``initializer``."""
        if self.params_initialized and not force_init:
            warnings.warn('Parameters already initialized and force_init=False. '
                          'init_params call ignored.', stacklevel=2)
            return
        self._require('init_params')

        def fill(name, arr, given):
            if given is not None and name in given:
                if given[name] is not arr:
                    if given[name].shape != arr.shape:
                        raise MXNetError('init_params: %r has shape %s in the given params, the module '
                                         'needs %s' % (name, given[name].shape, arr.shape))
                    given[name].copyto(arr)
                return
            if given is not None and not allow_missing:
                raise MXNetError('init_params: %r is missing from the given params '
                                 '(pass allow_missing=True to initialize it instead)' % name)
            if initializer is None:
                raise MXNetError('init_params: %r has no value and no initializer was given' % name)
            initializer(InitDesc(name, attrs.get(name)), arr)

        attrs = self._symbol.attr_dict()
        for name, arr in sorted(self._arg_params.items()):
            fill(name, arr, arg_params)
        for name, arr in sorted(self._aux_params.items()):
            fill(name, arr, aux_params)
        self.params_initialized = True
        self._params_dirty = False
        self._exec_group.set_params(self._arg_params, self._aux_params, allow_extra=allow_extra)

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        """Set parameters from the given dicts (every one must be there unless allow_missing)."""
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            warnings.warn('Parameters already initialized and force_init=False. '
                          'set_params call ignored.', stacklevel=2)
            return
        self._exec_group.set_params(arg_params, aux_params, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    @property
    def exec_group(self):
        """The DataParallelExecutorGroup that bind made (one executor per context; chapter 7),
        None before bind.  MXNet keeps it as ``_exec_group``, which reflib has too."""
        return self._exec_group

    @property
    def optimizer(self):
        """The Optimizer that init_optimizer made or was given, None before it."""
        return self._optimizer

    def _devices_may_differ(self):
        # with one device get_params copied its values exactly: writing them back would
        # change nothing and cost two passes over every parameter (over PCIe on a GPU)
        return len(self._context) > 1

    def _sync_params_from_devices(self):
        """Average the devices' parameters into the host copies.  A row_sparse weight updated in
        the store is up to date only there (the devices pulled only the rows they used): its
        host copy gets every row from the store."""
        self._exec_group.get_params(self._arg_params, self._aux_params)
        if self._kvstore is not None and self._update_on_kvstore:
            for name, value in sorted(self._arg_params.items()):
                if value.stype == 'row_sparse':
                    every_row = nd.arange(0, value.shape[0], dtype='int64')
                    self._kvstore.row_sparse_pull(name, value, row_ids=every_row)
        self._params_dirty = False

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Before ``data_batch`` runs: fetch the rows of each row_sparse weight it will read.

        A row_sparse weight updated in the KVStore is not pulled back whole after ``update``
        (that is the point of it); instead ``sparse_row_id_fn(data_batch)`` names, per weight,
        the rows the batch needs (``{'w': row ids}``), and each device gets those rows with
        ``row_sparse_pull``.  Dense weights need nothing here.
        """
        self._require('prepare')
        if sparse_row_id_fn is None:
            return
        if self._kvstore is None or not self._update_on_kvstore:
            warnings.warn('prepare: the parameters are not updated in a KVStore, so there is nothing to '
                          'pull; sparse_row_id_fn is not needed', stacklevel=2)
            return
        row_ids = sparse_row_id_fn(data_batch)
        if not isinstance(row_ids, dict):
            raise MXNetError('prepare: sparse_row_id_fn must return a dict {parameter name: row ids}, got %s'
                             % type(row_ids).__name__)
        names = self._exec_group.param_names
        for name, ids in row_ids.items():
            if name not in names:
                raise MXNetError('prepare: sparse_row_id_fn names %r, which is not a parameter; parameters are %s'
                                 % (name, names))
            index = names.index(name)
            arrays = self._exec_group.param_arrays[index]
            if arrays[0].stype != 'row_sparse':
                warnings.warn("prepare: %r is stored %r, not 'row_sparse': the whole weight is pulled after "
                              'each update, no rows need fetching' % (name, arrays[0].stype), stacklevel=2)
                continue
            self._kvstore.row_sparse_pull(name, arrays, row_ids=ids, priority=-index)

    # ---------------------------------------------------------------- bind
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req='write'):
        """Allocate one executor per context for the given input shapes."""
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning('Already bound, ignoring bind()')
            return
        if not for_training and inputs_need_grad:
            raise MXNetError('bind: inputs_need_grad=True needs for_training=True')
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self._data_names, self._label_names, data_shapes, label_shapes)
        # the labels bound for training: they stay needed after a re-bind without labels
        self._bound_label_names = ([d.name for d in self._label_shapes]
                                   if for_training and self._label_shapes else [])
        if self._label_shapes is not None:
            missing = [d.name for d in self._label_shapes if d.name not in self._symbol.list_arguments()]
            if missing:
                raise MXNetError('bind: labels %s are not arguments of the symbol; its arguments are %s'
                                 % (missing, self._symbol.list_arguments()))
        shared_group = None
        if shared_module is not None:
            if not (isinstance(shared_module, Module) and shared_module.binded
                    and shared_module.params_initialized):
                raise MXNetError('bind: shared_module must be a bound Module with initialized parameters')
            shared_group = shared_module._exec_group
        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._work_load_list, self._data_shapes, self._label_shapes,
            self._param_names, for_training, inputs_need_grad, shared_group, logger=self.logger,
            fixed_param_names=self._fixed_param_names, grad_req=grad_req,
            state_names=self._state_names, group2ctxs=self._group2ctxs)
        if shared_module is not None:
            self.params_initialized = True
            self._arg_params = shared_module._arg_params
            self._aux_params = shared_module._aux_params
        elif self.params_initialized:
            # parameters came from Module.load (or an earlier bind): copy them to the devices.
            # a checkpoint lacking a parameter would bind and fail later with a KeyError in
            # get_params/init_optimizer (as in MXNet): name the missing ones now
            missing = ([n for n in self._param_names if n not in self._arg_params]
                       + [n for n in self._aux_names if n not in self._aux_params])
            if missing:
                self._exec_group = None
                raise MXNetError('bind: the loaded parameters (Module.load / set_params) have no value '
                                 'for %s; the symbol needs %s' % (missing, self._param_names + self._aux_names))
            self._exec_group.set_params(self._arg_params, self._aux_params)
        else:
            # in the devices' storage: a row_sparse weight is row_sparse on the host too, as MXNet's
            self._arg_params = {name: nd.zeros(block[0].shape, dtype=block[0].dtype, stype=block[0].stype)
                                for name, block in zip(self._param_names, self._exec_group.param_arrays)}
            self._aux_params = {name: nd.zeros(block[0].shape, dtype=block[0].dtype)
                                for name, block in zip(self._aux_names, self._exec_group.aux_arrays)}
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)
        self.binded = True

    def _reset_bind(self):
        self.binded = False
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    def reshape(self, data_shapes, label_shapes=None):
        """New input shapes (e.g. a smaller last batch); parameters stay shared."""
        self._require('reshape')
        data_shapes, label_shapes = _parse_data_desc(
            self._data_names, self._label_names, data_shapes, label_shapes)
        # record the new shapes only once the executors accept them, so that a failed
        # reshape leaves data_shapes describing the executors that exist
        self._exec_group.reshape(data_shapes, label_shapes)
        self._data_shapes, self._label_shapes = data_shapes, label_shapes

    # ------------------------------------------------------------ optimizer
    def init_optimizer(self, kvstore='local', optimizer='sgd',
                       optimizer_params=(('learning_rate', 0.01),), force_init=False):
        """Create the optimizer (``rescale_grad = 1/batch_size``) and the KVStore that sums gradients."""
        self._require('init_optimizer', params=True)
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring...')
            return
        if self._params_dirty:
            self._sync_params_from_devices()
        kvstore, update_on_kvstore = _create_kvstore(kvstore, len(self._context), self._arg_params)
        batch_size = self._exec_group.batch_size
        if kvstore is not None and 'dist' in kvstore.type and '_sync' in kvstore.type:
            batch_size *= kvstore.num_workers
        rescale_grad = 1.0 / batch_size

        param_names = self._exec_group.param_names
        if update_on_kvstore:
            idx2name = dict(enumerate(param_names))
        else:
            # the updater sees each device's copy as its own index: i * num_device + k
            ndev = len(self._context)
            idx2name = {i * ndev + k: n for k in range(ndev) for i, n in enumerate(param_names)}
        if isinstance(optimizer, str):
            optimizer_params = dict(optimizer_params)
            optimizer_params.setdefault('rescale_grad', rescale_grad)
            optimizer = opt.create(optimizer, sym=self._symbol, param_idx2name=idx2name, **optimizer_params)
        else:
            if not isinstance(optimizer, opt.Optimizer):
                raise MXNetError('init_optimizer: optimizer must be a name or an Optimizer, got %s'
                                 % type(optimizer).__name__)
            if optimizer.rescale_grad != rescale_grad:
                warnings.warn('Optimizer created manually outside Module but rescale_grad is not '
                              'normalized to 1.0/batch_size/num_workers (%s vs. %s). Is this intended?'
                              % (optimizer.rescale_grad, rescale_grad), stacklevel=2)
            if not optimizer.idx2name:
                optimizer.idx2name = dict(idx2name)
        self._optimizer = optimizer
        self._kvstore = kvstore
        self._update_on_kvstore = update_on_kvstore
        self._updater = None
        if kvstore is not None:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            for idx, (name, block) in enumerate(zip(param_names, self._exec_group.param_arrays)):
                kvstore.init(name, self._arg_params[name])
                if update_on_kvstore:
                    kvstore.pull(name, block, priority=-idx)
        if not update_on_kvstore:
            self._updater = opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            # where the file is now: a save pending at load time may have been finished since
            prefix, epoch, states = self._preload_opt_states
            params = '%s-%04d.params' % (prefix, epoch)
            self.load_optimizer_states(checkpoint.files_to_read(prefix, epoch, [params, states])[states])
            self._preload_opt_states = None

    def borrow_optimizer(self, shared_module):
        """Use another module's optimizer, KVStore and updater (bucketing shares them this way)."""
        if not shared_module.optimizer_initialized:
            raise ModuleStateError('borrow_optimizer: the shared module has no optimizer yet')
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._updater = shared_module._updater
        self.optimizer_initialized = True

    def _optimizer_states_bytes(self):
        """What save_optimizer_states writes: the states of the KVStore's updater or of ours."""
        if self._update_on_kvstore:
            return self._kvstore._optimizer_states_bytes()
        return self._updater.get_states()

    def save_optimizer_states(self, fname):
        """Write the optimizer's states (e.g. momentum) to the file ``fname``, atomically; they
        come from the KVStore when it runs the update, else from the module's own updater.
        Raises ModuleStateError before ``init_params`` and ``init_optimizer``.
        """
        self._require('save_optimizer_states', params=True, optimizer=True)
        atomic_write_bytes(fname, self._optimizer_states_bytes())

    def load_optimizer_states(self, fname):
        """Restore optimizer states from the file ``fname`` that ``save_optimizer_states`` (of
        reflib or MXNet) wrote.  Raises ModuleStateError before ``init_optimizer``, and
        MXNetError naming the file when it cannot be read or is not such a file.
        """
        self._require('load_optimizer_states', params=True, optimizer=True)
        # the updater and the KVStore say *what* is wrong with the bytes; this adds *which file*
        try:
            if self._update_on_kvstore:
                self._kvstore.load_optimizer_states(fname)
            else:
                with open(fname, 'rb') as f:
                    self._updater.set_states(f.read())
        except (MXNetError, OSError) as err:
            raise MXNetError('load_optimizer_states: cannot load optimizer states from %r: %s; '
                             'is it a .states file written by save_optimizer_states?' % (fname, err)) from None

    # ------------------------------------------------------------ computing
    def forward(self, data_batch, is_train=None):
        """Run the executors on a batch; a batch of new shape re-binds (reshape) first."""
        self._require('forward', params=True)
        self._check_batch(data_batch, is_train)
        shapes = _shapes_to_rebind(self._data_shapes, self._label_shapes, self._bound_label_names, data_batch)
        if shapes is not None:
            new_dshape, new_lshape = shapes
            try:
                self.reshape(new_dshape, new_lshape)
            except MXNetError as err:
                # say that forward re-binds for a batch of new shape, and which shapes; the
                # error keeps its class (ShapeError, say)
                msg = ('forward: the batch has data shapes %s, the module was bound for %s, and re-binding '
                       'for the new shapes failed: %s' % ([(d.name, d.shape) for d in data_descs(new_dshape)],
                                                          [(d.name, d.shape) for d in self._data_shapes], err))
                try:
                    wrapped = type(err)(msg)
                except TypeError:
                    wrapped = MXNetError(msg)
                raise wrapped from err
        self._exec_group.forward(data_batch, is_train)

    def _check_batch(self, data_batch, is_train):
        """Errors that name the mismatch instead of failing deep inside an executor."""
        provided = getattr(data_batch, 'provide_data', None)
        if provided:
            names = [d[0] if not isinstance(d, DataDesc) else d.name for d in provided]
            if sorted(names) != sorted(self._data_names):
                raise MXNetError("forward: the batch provides data %s but the module's data_names are %s"
                                 % (names, self._data_names))
        if len(data_batch.data) != len(self._data_names):
            raise MXNetError('forward: the batch has %d data arrays, the module expects %d (%s)'
                             % (len(data_batch.data), len(self._data_names), self._data_names))
        training = self.for_training if is_train is None else is_train
        # (_bound_label_names, not _label_shapes: an unlabelled re-bind clears the latter)
        if training and self._bound_label_names and not data_batch.label:
            raise MXNetError('forward: the module was bound for training with labels %s, but the batch has '
                             'no label; pass is_train=False for inference' % self._bound_label_names)

    def backward(self, out_grads=None):
        """Compute the gradients of the last forward pass (which must have been a training one).

        ``out_grads`` are the head gradients, one whole-batch array per output; they are needed
        only for outputs that are not loss layers.  Raises ModuleStateError before
        ``init_params``.
        """
        self._require('backward', params=True)
        self._exec_group.backward(out_grads=out_grads)

    def update(self):
        """Apply one optimizer step: sum gradients over devices (KVStore), then update every copy."""
        self._require('update', params=True, optimizer=True)
        if not self.for_training:       # there are no gradient arrays to update from
            raise ModuleStateError('update: the module was bound with for_training=False, so it has no '
                                   'gradients; bind(..., for_training=True) to train')
        self._params_dirty = True
        group = self._exec_group
        # the parameters that have gradients, by their index in param_names
        wanted = [(index, name, weights, grads) for index, (name, weights, grads)
                  in enumerate(zip(group.param_names, group.param_arrays, group.grad_arrays))
                  if grads[0] is not None]
        names = [name for _, name, _, _ in wanted]
        grads = [grads for _, _, _, grads in wanted]
        # One push of every key, then one pull of every key: a store takes lists of keys, handles
        # them in init order (the parameter order), and a distributed store then waits for its
        # servers once per step instead of once per parameter.  (MXNet makes one call per key;
        # its asynchronous engine overlaps them.)
        if self._update_on_kvstore:
            self._kvstore.push(names, grads)
            self._kvstore.pull(names, [weights for _, _, weights, _ in wanted])
            return
        if self._kvstore is not None:
            # every device gets the gradient summed over all devices
            self._kvstore.push(names, grads)
            self._kvstore.pull(names, grads)
        ndev = len(self._context)
        for index, _, weights, device_grads in wanted:
            for k, (w, g) in enumerate(zip(weights, device_grads)):
                self._updater(index * ndev + k, g, w)

    def get_outputs(self, merge_multi_context=True):
        """The outputs of the last forward pass: with ``merge_multi_context`` one whole-batch
        NDArray per output (the devices' parts concatenated), otherwise per output a list of
        each device's array.  Raises ModuleStateError before ``init_params``.
        """
        self._require('get_outputs', params=True)
        return self._exec_group.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        """The gradients of the data inputs from the last backward pass, merged over the devices
        as ``get_outputs`` merges the outputs.  Raises ModuleStateError unless the module was
        bound with ``inputs_need_grad=True``.
        """
        self._require('get_input_grads', params=True)
        if not self.inputs_need_grad:
            raise ModuleStateError('get_input_grads: bind with inputs_need_grad=True first')
        return self._exec_group.get_input_grads(merge_multi_context=merge_multi_context)

    def get_states(self, merge_multi_context=True):
        """The current values of the state inputs named by ``state_names`` (e.g. an RNN's hidden
        state): with ``merge_multi_context`` one array per state, otherwise per state a list
        of each device's array.
        """
        self._require('get_states', params=True)
        return self._exec_group.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        """Set the state inputs named by ``state_names``: from ``states`` (per state, a list of one
        array per device) or, when ``states`` is None, to the scalar ``value`` everywhere.
        """
        self._require('set_states', params=True)
        self._exec_group.set_states(states, value)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with the outputs of the last forward pass and ``labels`` (the
        batch's label arrays, which are cut into each device's part).  With ``pre_sliced``
        ``labels`` is already a list of label lists, one per device.  Raises ModuleStateError
        before ``bind``.
        """
        self._require('update_metric')      # bound, or there is no executor group to ask
        self._exec_group.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Install the Monitor ``mon`` on the module's executors, so that it can inspect their
        arrays on the batches it samples.  Raises ModuleStateError before ``bind``.
        """
        self._require('install_monitor')
        self._exec_group.install_monitor(mon)


def _create_kvstore(kvstore, num_device, arg_params):
    """(KVStore or None, update_on_kvstore) as MXNet decides them.

    One device and a non-dist store: no KVStore at all (nothing to sum), the
    updater runs locally.  A 'local' store keeps the update on the store unless
    some parameter is huge (over 16M elements), where updating on each device
    is cheaper.  MXNET_UPDATE_ON_KVSTORE=0 turns the update on the store off.
    """
    update_on_kvstore = bool(int(os.getenv('MXNET_UPDATE_ON_KVSTORE', '1')))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        if num_device == 1 and 'dist' not in kvstore:
            kv = None
        else:
            kv = kvs.create(kvstore)
            if kvstore == 'local':
                largest = max(int(np.prod(p.shape)) for p in arg_params.values()) if arg_params else 0
                if largest > 1024 * 1024 * 16:
                    update_on_kvstore = False
    else:
        raise MXNetError('kvstore must be a KVStore, a str or None, got %s' % type(kvstore).__name__)
    if kv is None:
        update_on_kvstore = False
    else:
        update_on_kvstore &= kv.is_capable(kvs.KVStoreBase.OPTIMIZER)
    return kv, update_on_kvstore


def _shapes_to_rebind(data_shapes, label_shapes, bound_label_names, batch):
    """``(data DataDescs, label DataDescs or None)`` to re-bind for ``batch``, or None when the
    module's bound shapes serve it: forward's decision, with nothing else to know.

    A batch of other data shapes re-binds.  An unlabelled batch of another size re-binds
    without labels (``label_shapes`` None); a labelled batch must then re-bind with them even
    at an unchanged data shape (MXNet 1.9.1 skips that re-bind and silently computes with the
    stale label arrays).
    """
    current = tuple(d.shape for d in data_shapes)
    new = tuple(d.shape for d in batch.data)
    labels_back = bool(label_shapes is None and bound_label_names and getattr(batch, 'label', None))
    if current == new and not labels_back:
        return None
    if getattr(batch, 'provide_data', None):
        new_dshape = batch.provide_data
    else:
        new_dshape = [DataDesc(d.name, shape, d.dtype, d.layout) for d, shape in zip(data_shapes, new)]
    if getattr(batch, 'provide_label', None):
        new_lshape = batch.provide_label
    elif getattr(batch, 'label', None) and label_shapes:
        new_lshape = [DataDesc(d.name, l.shape, d.dtype, d.layout) for d, l in zip(label_shapes, batch.label)]
    elif labels_back:
        # (MXNet 1.9.1 fails here, zipping label_shapes None)
        new_lshape = [DataDesc(name, l.shape, l.dtype) for name, l in zip(bound_label_names, batch.label)]
    else:
        new_lshape = None
    return new_dshape, new_lshape
