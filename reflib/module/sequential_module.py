"""SequentialModule: modules in a chain, the outputs of one the data of the next.

Each module keeps its own symbol, executors and parameters.  Forward runs them in order,
handing each one's outputs to the next as its data; backward runs them in reverse, handing
each one's *input gradients* to the previous one as its head gradients, which is why every
module after the first is bound with ``inputs_need_grad=True``.  A module added with
``take_labels=True`` gets the batch's labels (several may); ``auto_wiring=True`` renames the
previous module's outputs to this module's data names.  One graph would be faster: the
chain is a convenience, for modules built separately (PythonLossModule, say).
"""

import copy
import logging

from ..base import MXNetError
from ..initializer import Uniform
from .base_module import BaseModule

__all__ = ['SequentialModule']


class SequentialModule(BaseModule):
    """A chain of modules that trains as one (see the module docstring).

    >>> import reflib as mx
    >>> net1 = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=4, name='fc1')
    >>> net2 = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=2,
    ...                                                   name='fc2'), name='softmax')
    >>> seq = mx.mod.SequentialModule()
    >>> seq = seq.add(mx.mod.Module(net1, label_names=None))
    >>> seq = seq.add(mx.mod.Module(net2), take_labels=True, auto_wiring=True)
    >>> seq.bind([('data', (3, 5))], [('softmax_label', (3,))])
    >>> seq.output_shapes
    [('softmax_output', (3, 2))]
    """

    META_TAKE_LABELS = 'take_labels'
    META_AUTO_WIRING = 'auto_wiring'

    def __init__(self, logger=logging):
        super().__init__(logger=logger)
        self._modules = []
        self._metas = []
        self._label_shapes = None
        self._data_shapes = None
        self._meta_keys = {self.META_TAKE_LABELS, self.META_AUTO_WIRING}

    def add(self, module, **kwargs):
        """Append ``module`` to the chain (``take_labels``, ``auto_wiring``: see the module
        docstring); the chain must be bound and initialized again.  Returns ``self``."""
        unknown = set(kwargs) - self._meta_keys
        if unknown:
            raise MXNetError('SequentialModule.add: unknown option %s; known: %s'
                             % (', '.join(sorted(unknown)), ', '.join(sorted(self._meta_keys))))
        self._modules.append(module)
        self._metas.append(kwargs)
        self.binded = self.params_initialized = self.optimizer_initialized = False
        return self

    # ------------------------------------------------------------ properties
    @property
    def data_names(self):
        """The data names of the first module of the chain (an empty list for an empty chain)."""
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self):
        """The output names of the last module of the chain (an empty list for an empty chain)."""
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        """The data DataDescs the first module is bound for.  Raises ModuleStateError before
        ``bind``.
        """
        self._require('data_shapes')
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        """The label shapes given to ``bind``, or None when no module of the chain takes the
        labels.  Raises ModuleStateError before ``bind``.
        """
        self._require('label_shapes')
        return self._label_shapes

    @property
    def output_shapes(self):
        """``[(output name, shape)]`` of the last module of the chain.  Raises ModuleStateError
        before ``bind``.
        """
        self._require('output_shapes')
        return self._modules[-1].output_shapes

    # ------------------------------------------------------------ parameters
    def get_params(self):
        """Every module's parameters in one pair of dicts."""
        self._require('get_params', binded=False, params=True)
        arg_params, aux_params = {}, {}
        for module in self._modules:
            args, auxs = module.get_params()
            arg_params.update(args)
            aux_params.update(auxs)
        return arg_params, aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Initialize every module (``arg_params`` may hold all of them); two modules may not
        have a parameter of the same name."""
        if self.params_initialized and not force_init:
            return
        self._require('init_params')
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                               allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra)
        owner = {}
        for i, module in enumerate(self._modules):
            args, auxs = module.get_params()
            for name in list(args) + list(auxs):
                if name in owner:
                    raise MXNetError('SequentialModule: parameter %r of module %d (%s) is also a parameter of '
                                     'module %d (%s); give them different names'
                                     % (name, i, type(module).__name__, owner[name],
                                        type(self._modules[owner[name]]).__name__))
                owner[name] = i
        self.params_initialized = True

    # ------------------------------------------------------------------ bind
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req='write'):
        """Bind each module for the shapes the previous one outputs."""
        if self.binded and not force_rebind:
            self.logger.warning('Already bound, ignoring bind()')
            return
        if inputs_need_grad and not for_training:
            raise MXNetError('SequentialModule.bind: inputs_need_grad needs for_training=True')
        if shared_module is not None:
            raise MXNetError('SequentialModule.bind: shared_module is not supported')
        if not self._modules:
            raise MXNetError('SequentialModule.bind: the chain is empty; add modules first')
        shapes, anyone_takes_labels = data_shapes, False
        for i, (module, meta) in enumerate(zip(self._modules, self._metas)):
            takes_labels = bool(meta.get(self.META_TAKE_LABELS))
            anyone_takes_labels |= takes_labels
            if meta.get(self.META_AUTO_WIRING):
                names = module.data_names
                if len(names) != len(shapes):
                    raise MXNetError('SequentialModule: module %d takes %d data inputs %s, the module before '
                                     'it outputs %d' % (i, len(names), names, len(shapes)))
                shapes = [(name, tuple(shape)) for name, (_, shape) in zip(names, shapes)]
            # every module after the first must hand its input gradients back
            module.bind(data_shapes=shapes, label_shapes=label_shapes if takes_labels else None,
                        for_training=for_training, inputs_need_grad=inputs_need_grad or (for_training and i > 0),
                        force_rebind=force_rebind, shared_module=None, grad_req=grad_req)
            shapes = module.output_shapes
        self.binded = True
        self.for_training = for_training
        # unlike MXNet 1.9.1 (whose get_input_grads then always refuses), remember it
        self.inputs_need_grad = inputs_need_grad
        self._label_shapes = label_shapes if anyone_takes_labels else None

    def init_optimizer(self, kvstore='local', optimizer='sgd', optimizer_params=(('learning_rate', 0.01),),
                       force_init=False):
        """Give every module of the chain its own optimizer and KVStore, made from the same
        arguments (see ``Module.init_optimizer``).  Warns and does nothing when already done,
        unless ``force_init``; raises ModuleStateError before ``init_params``.
        """
        self._require('init_optimizer', params=True)
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring.')
            return
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params,
                                  force_init=force_init)
        self.optimizer_initialized = True

    # ------------------------------------------------------------ computing
    def forward(self, data_batch, is_train=None):
        """Run the modules in order on ``data_batch``: the first gets the batch, each later one
        the batch with its data replaced by the previous module's outputs (labels kept).
        """
        self._require('forward', params=True)
        batch = copy.copy(data_batch)
        for i, module in enumerate(self._modules):
            module.forward(batch, is_train=is_train)
            if i + 1 == len(self._modules):
                break
            batch.data = module.get_outputs()
            if getattr(batch, 'provide_data', None) is not None:
                names = [name for name, _ in module.output_shapes]
                batch.provide_data = [(name, out.shape) for name, out in zip(names, batch.data)]

    def backward(self, out_grads=None):
        """Run the modules' backward passes in reverse order: the last one gets ``out_grads``,
        each earlier one the input gradients of the module after it.
        """
        self._require('backward', params=True)
        for i in reversed(range(len(self._modules))):
            self._modules[i].backward(out_grads=out_grads)
            if i > 0:
                out_grads = self._modules[i].get_input_grads()

    def update(self):
        """One optimizer step on every module of the chain.  Raises ModuleStateError before
        ``init_optimizer``.
        """
        self._require('update', params=True, optimizer=True)
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context=True):
        """The outputs of the last module of the chain, as its ``get_outputs`` returns them."""
        self._require('get_outputs', params=True)
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        """The gradients of the chain's data inputs (those of the first module).  Raises
        MXNetError unless the chain was bound with ``inputs_need_grad=True``.
        """
        self._require('get_input_grads', params=True)
        if not self.inputs_need_grad:
            raise MXNetError('get_input_grads: bind with inputs_need_grad=True first')
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Every module that takes the labels updates the metric with its outputs."""
        self._require('update_metric', params=True)
        for module, meta in zip(self._modules, self._metas):
            if meta.get(self.META_TAKE_LABELS):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Install the Monitor ``mon`` on every module of the chain."""
        self._require('install_monitor')
        for module in self._modules:
            module.install_monitor(mon)
