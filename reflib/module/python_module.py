"""Modules written in Python instead of as a symbol: PythonModule (the frame) and
PythonLossModule (a loss whose gradient is a Python function).

A PythonModule has no parameters and no executors: bind only records the shapes, and
forward/backward are whatever the subclass computes.  Its use is the end of a
SequentialModule: the network before it outputs scores, and PythonLossModule hands back
``grad_func(scores, labels)`` as their gradient, so a loss can be tried in numpy before
anybody writes it as an operator (MXNet's example/module/python_loss.py does a multi-class
hinge loss this way).
"""

import logging

from .. import ndarray as nd
from ..base import MXNetError
from ..initializer import Uniform
from .base_module import BaseModule

__all__ = ['PythonModule', 'PythonLossModule']


class PythonModule(BaseModule):
    """A module without parameters whose computation a subclass writes in Python.

    Subclasses implement ``_compute_output_shapes`` (called by bind), ``forward``,
    ``backward``, ``get_outputs`` and ``get_input_grads``.
    """

    def __init__(self, data_names, label_names, output_names, logger=logging):
        super().__init__(logger=logger)
        self._data_names = list(data_names)
        self._label_names = list(label_names) if label_names is not None else None
        self._output_names = list(output_names)
        self._data_shapes = self._label_shapes = self._output_shapes = None

    @property
    def data_names(self):
        """The data input names given to the constructor (a list)."""
        return self._data_names

    @property
    def output_names(self):
        """The output names given to the constructor (a list)."""
        return self._output_names

    @property
    def data_shapes(self):
        """The data shapes given to ``bind`` (a list), None before it."""
        return self._data_shapes

    @property
    def label_shapes(self):
        """The label shapes given to ``bind``, None before it or when bound without labels."""
        return self._label_shapes

    @property
    def output_shapes(self):
        """``[(output name, shape)]`` that the subclass's ``_compute_output_shapes`` gave at
        ``bind``, None before it.
        """
        return self._output_shapes

    def get_params(self):
        """Always ``({}, {})``: a PythonModule has no parameters."""
        return {}, {}

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Only marks the parameters as initialized: there are none, so the arguments are ignored."""
        self.params_initialized = True      # nothing to initialize

    def init_optimizer(self, kvstore='local', optimizer='sgd', optimizer_params=(('learning_rate', 0.01),),
                       force_init=False):
        """Only marks the optimizer as initialized: with no parameters there is nothing to update."""
        self.optimizer_initialized = True   # nothing to update

    def update(self):
        """Does nothing: there are no parameters to update."""
        pass

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with ``labels`` and ``get_outputs()``; does nothing when the
        module was bound without labels.  Raises MXNetError for ``pre_sliced`` labels.
        """
        if self._label_shapes is None:
            return                          # bound without labels: nothing to compare with
        if pre_sliced:
            raise MXNetError('PythonModule.update_metric: pre-sliced labels are not supported')
        eval_metric.update(labels, self.get_outputs())

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req='write'):
        """Record the shapes (checked against the names) and compute the output shapes."""
        if self.binded and not force_rebind:
            self.logger.warning('Already bound, ignoring bind()')
            return
        if grad_req != 'write':
            raise MXNetError("PythonModule.bind: only grad_req='write' is supported, got %r" % (grad_req,))
        names = [desc[0] for desc in data_shapes]
        if names != self._data_names:
            raise MXNetError('PythonModule.bind: data %s, but the module takes %s' % (names, self._data_names))
        if label_shapes is not None:
            label_names = [desc[0] for desc in label_shapes]
            if self._label_names is None or label_names != self._label_names:
                raise MXNetError('PythonModule.bind: labels %s, but the module takes %s'
                                 % (label_names, self._label_names))
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._data_shapes, self._label_shapes = list(data_shapes), label_shapes
        self._output_shapes = self._compute_output_shapes()
        self.binded = True

    def _compute_output_shapes(self):
        raise NotImplementedError()


class PythonLossModule(PythonModule):
    """A loss at the end of a chain: forward passes the scores through unchanged, backward
    hands ``grad_func(scores, labels)`` (NDArrays in, an NDArray or numpy array out) back as
    the gradient of the scores."""

    def __init__(self, name='pyloss', data_names=('data',), label_names=('softmax_label',), logger=logging,
                 grad_func=None):
        super().__init__(data_names, label_names, [name + '_output'], logger=logger)
        if len(self._data_names) != 1 or len(self._label_names or []) != 1:
            raise MXNetError('PythonLossModule takes one data input and one label, got %s and %s'
                             % (self._data_names, self._label_names))
        if grad_func is not None and not callable(grad_func):
            raise MXNetError('PythonLossModule: grad_func must be callable, got %r' % (grad_func,))
        self._name = name
        self._grad_func = grad_func
        self._scores = self._labels = self._scores_grad = None

    def _compute_output_shapes(self):
        return [(self._name + '_output', self._data_shapes[0][1])]

    def forward(self, data_batch, is_train=None):
        """Keep the batch's first data array as the scores (the output, unchanged) and, in
        training (``is_train``, by default ``for_training``), its first label for ``backward``.
        """
        self._scores = data_batch.data[0]
        if is_train is None:
            is_train = self.for_training
        if is_train:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context=True):
        """The scores of the last forward, unchanged, as a one-element list."""
        return [self._scores]

    def backward(self, out_grads=None):
        """Compute the gradient of the scores as ``grad_func(scores, labels)`` (converted to an
        NDArray when it returns a numpy array).

        Raises MXNetError when ``out_grads`` is given or the module was not bound for
        training, and NotImplementedError when no ``grad_func`` was given.
        """
        if out_grads is not None:
            raise MXNetError('PythonLossModule.backward: a loss takes no head gradient')
        if not self.for_training:
            raise MXNetError('PythonLossModule.backward: bind with for_training=True first')
        if self._grad_func is None:
            raise NotImplementedError('PythonLossModule: give grad_func, or override backward')
        grad = self._grad_func(self._scores, self._labels)
        self._scores_grad = grad if isinstance(grad, nd.NDArray) else nd.array(grad)

    def get_input_grads(self, merge_multi_context=True):
        """The gradient of the scores from the last backward, as a one-element list."""
        return [self._scores_grad]

    def install_monitor(self, mon):
        """Always raises NotImplementedError: there is no executor to monitor."""
        raise NotImplementedError('PythonLossModule has no executor to monitor')
