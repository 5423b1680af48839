"""BucketingModule: one set of parameters, one graph per bucket.

An unrolled RNN's graph depends on the sequence length, so sentences of 10 words and of 20
words need two graphs.  ``sym_gen(bucket_key)`` builds the graph of a bucket (and names its
data and labels).  BucketingModule keeps one Module per bucket it has seen:

* the *default bucket's* module is bound first and owns the parameters (and, once
  ``init_optimizer`` has run, the optimizer);
* every other bucket's module is bound with ``shared_module=`` that default module
  (Module.bind): its executors take the default module's parameter and gradient arrays
  themselves, not copies, and borrow its memory for the rest where it is large enough;
  ``borrow_optimizer`` gives it the same optimizer, updater and KVStore, so the momentum of
  a weight is one array whichever bucket last updated it.

A batch names its bucket (``DataBatch.bucket_key``); ``forward`` switches to that bucket's
module, binding it on first sight, and every other call goes to the current module.  So the
default bucket should be the largest: the others then fit in its memory.
"""

import logging
import warnings

import numpy as np

from .. import checkpoint
from .. import ndarray as nd
from ..base import MXNetError
from ..context import cpu
from ..initializer import Uniform
from ..checkpoint import load_params, params_bytes
from ..symbol import NameManager, load as load_symbol
from .base_module import BaseModule, _check_input_names
from .module import Module

__all__ = ['BucketingModule']


class BucketingModule(BaseModule):
    """A module whose graph depends on each batch's ``bucket_key`` (see the module docstring).

    ``sym_gen(bucket_key)`` returns ``(symbol, data_names, label_names)``; it is called
    inside a fresh NameManager, so every bucket's automatic names (``_plus0``, ...) start
    from 0, as in MXNet.  The other arguments are Module's.

    >>> import reflib as mx
    >>> def sym_gen(length):
    ...     data = mx.sym.Variable('data')
    ...     outputs, _ = mx.rnn.RNNCell(4, prefix='rnn_').unroll(length, data, merge_outputs=True)
    ...     return mx.sym.MakeLoss(mx.sym.sum(outputs)), ('data',), None
    >>> mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=5)
    >>> mod.bind([('data', (2, 5, 3))], None)
    >>> mod.init_params()
    >>> mod.switch_bucket(3, [('data', (2, 3, 3))])
    >>> sorted(mod._buckets)
    [3, 5]
    """

    def __init__(self, sym_gen, default_bucket_key=None, logger=logging, context=cpu(), work_load_list=None,
                 fixed_param_names=None, state_names=None, group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        if default_bucket_key is None:
            raise MXNetError('BucketingModule: give default_bucket_key, the bucket whose module owns the '
                             'parameters (best the largest)')
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        self._fixed_param_names = list(fixed_param_names or [])
        self._state_names = list(state_names or [])
        _check_input_names(symbol, list(data_names or []), 'data', True)
        _check_input_names(symbol, list(label_names or []), 'label', False)
        _check_input_names(symbol, self._state_names, 'state', True)
        _check_input_names(symbol, self._fixed_param_names, 'fixed_param', True)
        self._module_kwargs = dict(logger=logger, context=context, work_load_list=work_load_list,
                                   fixed_param_names=self._fixed_param_names, state_names=self._state_names,
                                   group2ctxs=group2ctxs, compression_params=compression_params)
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None
        self._params_dirty = False
        self._monitor = None
        self._grad_req = None

    def _call_sym_gen(self, bucket_key):
        with NameManager():
            return self._sym_gen(bucket_key)

    def _new_module(self, bucket_key, symbol=None):
        generated, data_names, label_names = self._call_sym_gen(bucket_key)
        return Module(generated if symbol is None else symbol, data_names, label_names, **self._module_kwargs)

    def _reset_bind(self):
        self.binded = False
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None

    # ------------------------------------------------------------ properties
    @property
    def buckets(self):
        """``{bucket_key: Module}`` for every bucket made so far (a copy of the mapping; the
        modules are the real ones).  MXNet keeps it as ``_buckets``."""
        return dict(self._buckets)

    @property
    def default_bucket_key(self):
        """The bucket key given to the constructor: its module is bound first and owns the
        parameters and the optimizer.
        """
        return self._default_bucket_key

    @property
    def data_names(self):
        """The data input names of the current bucket's module; before ``bind``, those that
        ``sym_gen`` gives for the default bucket.
        """
        if self.binded:
            return self._curr_module.data_names
        return list(self._call_sym_gen(self._default_bucket_key)[1] or [])

    @property
    def output_names(self):
        """The output names of the current bucket's module; before ``bind``, those of the default
        bucket's symbol.
        """
        if self.binded:
            return self._curr_module.output_names
        return self._call_sym_gen(self._default_bucket_key)[0].list_outputs()

    @property
    def data_shapes(self):
        """The data DataDescs the current bucket's module is bound for.  Raises ModuleStateError
        before ``bind``.
        """
        self._require('data_shapes')
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        """The label DataDescs the current bucket's module is bound for (None without labels).
        Raises ModuleStateError before ``bind``.
        """
        self._require('label_shapes')
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        """``[(output name, shape)]`` of the current bucket's module.  Raises ModuleStateError
        before ``bind``.
        """
        self._require('output_shapes')
        return self._curr_module.output_shapes

    @property
    def symbol(self):
        """The symbol of the current bucket (the one the last batch used).  Raises
        ModuleStateError before ``bind``.
        """
        self._require('symbol')
        return self._curr_module.symbol

    # ------------------------------------------------------------ parameters
    def get_params(self):
        """``(arg_params, aux_params)``, dicts of the shared parameters on the host, read through
        the current bucket's module (every bucket shares the same arrays).  Raises
        ModuleStateError before ``init_params``.
        """
        self._require('get_params', binded=False, params=True)
        self._curr_module._params_dirty = self._params_dirty
        params = self._curr_module.get_params()
        self._params_dirty = False
        return params

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True, allow_extra=False):
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            warnings.warn('Parameters already initialized and force_init=False. set_params call ignored.',
                          stacklevel=2)
            return
        self._curr_module.set_params(arg_params, aux_params, allow_missing=allow_missing,
                                     force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Initialize the shared parameters through the current (after ``bind``, the default)
        bucket's module, with the arguments of ``Module.init_params``.  Does nothing when they
        are initialized already, unless ``force_init``; raises ModuleStateError before ``bind``.
        """
        if self.params_initialized and not force_init:
            return
        self._require('init_params')
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                                      allow_missing=allow_missing, force_init=force_init,
                                      allow_extra=allow_extra)
        self._params_dirty = False
        self.params_initialized = True

    def get_states(self, merge_multi_context=True):
        """The state inputs of the current bucket's module, as ``Module.get_states`` returns them."""
        self._require('get_states', params=True)
        return self._curr_module.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None):
        """Set the state inputs of the current bucket's module, as ``Module.set_states`` does:
        from ``states``, or to the scalar ``value`` when ``states`` is None.
        """
        self._require('set_states', params=True)
        self._curr_module.set_states(states, value)

    # ------------------------------------------------------------------ bind
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req='write'):
        """Bind the default bucket's module; the others are bound when a batch first needs them."""
        if self.params_initialized:
            arg_params, aux_params = self.get_params()
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning('Already bound, ignoring bind()')
            return
        if shared_module is not None:
            raise MXNetError('BucketingModule.bind: shared_module is not supported (the default bucket '
                             'is what the other buckets share)')
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        # a default bucket's module already there (a loaded or AMP-converted module's) is bound,
        # as MXNet's is, rather than made anew from sym_gen
        module = self._buckets.get(self._default_bucket_key)
        if module is None:
            module = self._new_module(self._default_bucket_key)
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind=False,
                    shared_module=None, grad_req=grad_req)
        self.binded = True
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        if self.params_initialized:         # bound again: the parameters saved above go back in
            self.set_params(arg_params, aux_params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Make ``bucket_key``'s module the current one, binding it (sharing the default
        bucket's parameters and memory) the first time."""
        self._require('switch_bucket')
        module = self._buckets.get(bucket_key)
        if module is None:
            module = self._buckets[bucket_key] = self._new_module(bucket_key)
        if not module.binded:
            module.bind(data_shapes, label_shapes, self._curr_module.for_training,
                        self._curr_module.inputs_need_grad, force_rebind=False,
                        shared_module=self._buckets[self._default_bucket_key], grad_req=self._grad_req)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
        self._curr_module = module
        self._curr_bucket_key = bucket_key

    def init_optimizer(self, kvstore='local', optimizer='sgd', optimizer_params=(('learning_rate', 0.01),),
                       force_init=False):
        """The current module creates the optimizer; every other bucket borrows it."""
        self._require('init_optimizer', params=True)
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring.')
            return
        self._curr_module.init_optimizer(kvstore, optimizer, optimizer_params, force_init=force_init)
        for module in self._buckets.values():
            if module is not self._curr_module:
                module.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True

    # ------------------------------------------------------------ computing
    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Bind the next batch's bucket now (and come back), so the switch costs nothing later."""
        self._require('prepare', params=True)
        current = self._curr_bucket_key
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self.switch_bucket(current, None, None)

    def forward(self, data_batch, is_train=None):
        """Switch to the bucket of ``data_batch.bucket_key`` (binding its module, sharing the
        default bucket's parameters, the first time) and run its forward pass.  The batch's
        ``provide_data``/``provide_label`` give the new bucket's shapes.
        """
        self._require('forward', params=True)
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        """Backward pass of the current bucket's module (the one the last ``forward`` used);
        ``out_grads`` as in ``Module.backward``.
        """
        self._require('backward', params=True)
        self._curr_module.backward(out_grads=out_grads)

    def update(self):
        """One optimizer step through the current bucket's module; the optimizer and its states
        are shared by all buckets.  Raises ModuleStateError before ``init_optimizer``.
        """
        self._require('update', params=True, optimizer=True)
        self._params_dirty = True
        self._curr_module.update()

    def get_outputs(self, merge_multi_context=True):
        """The outputs of the last forward pass (of the current bucket), as ``Module.get_outputs``
        returns them.
        """
        self._require('get_outputs', params=True)
        return self._curr_module.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        """The data gradients of the last backward pass (of the current bucket), as
        ``Module.get_input_grads`` returns them.
        """
        self._require('get_input_grads', params=True)
        return self._curr_module.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with the current bucket's outputs and ``labels``, as
        ``Module.update_metric`` does.
        """
        self._require('update_metric', params=True)
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Install the Monitor ``mon`` on every bucket's module, and on those bound later too."""
        self._require('install_monitor')
        self._monitor = mon
        for module in self._buckets.values():
            module.install_monitor(mon)

    # ---------------------------------------------------------- checkpoints
    def save_checkpoint(self, prefix, epoch, remove_amp_cast=False):
        """MXNet's files: ``prefix-%04d.params``, one ``prefix-<key>-symbol.json`` per bucket and
        ``prefix.buckets`` (the keys), saved as one set (reflib/checkpoint.py)."""
        if not self._buckets:
            raise MXNetError('save_checkpoint: an empty BucketingModule (never bound) has nothing to save')
        arg_params, aux_params = self.get_params()
        contents = {'%s-%04d.params' % (prefix, epoch): params_bytes(arg_params, aux_params)}
        for key in self._buckets:
            contents['%s-%s-symbol.json' % (prefix, key)] = self._call_sym_gen(key)[0].tojson().encode('utf-8')
        keys = nd.array(list(self._buckets), dtype=np.int32)
        contents['%s.buckets' % prefix] = nd.serialize.save_to_bytes(keys)
        checkpoint.save_files(prefix, epoch, contents)

    @staticmethod
    def load(prefix, epoch, sym_gen=None, default_bucket_key=None, **kwargs):
        """A BucketingModule with the buckets and parameters ``save_checkpoint`` wrote (not bound)."""
        if sym_gen is None or default_bucket_key is None:
            raise MXNetError('BucketingModule.load needs the sym_gen and default_bucket_key it was saved with')
        # read as one set, from where the save (or a pending one: see reflib/checkpoint.py) put it
        buckets, params = '%s.buckets' % prefix, '%s-%04d.params' % (prefix, epoch)
        sources = checkpoint.files_to_read(prefix, epoch, [params, buckets])
        keys = [int(k) for k in nd.load(sources[buckets])[0].asnumpy().astype('int32')]
        symbols = checkpoint.files_to_read(prefix, epoch, [], shared=['%s-%s-symbol.json' % (prefix, key)
                                                                     for key in keys])
        module = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        for key in keys:
            module._buckets[key] = module._new_module(key, load_symbol(symbols['%s-%s-symbol.json' % (prefix, key)]))
        if default_bucket_key not in module._buckets:
            raise MXNetError('BucketingModule.load: %s.buckets holds %s, not the default bucket %r'
                             % (prefix, keys, default_bucket_key))
        module._curr_module = module._buckets[default_bucket_key]
        module._curr_bucket_key = default_bucket_key
        arg_params, aux_params = load_params(prefix, epoch)
        module._curr_module._arg_params = arg_params
        module._curr_module._aux_params = aux_params
        module._curr_module.params_initialized = True
        module.params_initialized = True
        return module
