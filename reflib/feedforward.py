"""``mx.model.FeedForward``: MXNet's first training API, kept (deprecated) in MXNet 1.9.1.

A FeedForward holds a symbol and its parameters as plain dicts (``arg_params``,
``aux_params``), and trains, predicts and scores in one call each:

>>> import numpy as np, warnings, reflib as mx
>>> fc = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=2, name='fc')
>>> net = mx.sym.SoftmaxOutput(fc, name='softmax')
>>> with warnings.catch_warnings():
...     warnings.simplefilter('ignore')
...     model = mx.model.FeedForward(net, num_epoch=2, numpy_batch_size=4,
...                                  learning_rate=0.1)
>>> X = np.random.rand(10, 3).astype('float32')
>>> y = np.array([0, 1] * 5, 'float32')
>>> model.fit(X, y)
>>> model.predict(X).shape
(10, 2)

How it differs from Module, all as in MXNet 1.9.1:

* numpy training data becomes ``NDArrayIter(X, y, min(n, numpy_batch_size),
  shuffle=True, last_batch_handle='roll_over')`` (numpy's global generator shuffles);
  numpy ``eval_data`` too, shuffled and rolled over; numpy data to predict or score
  is neither (the last batch is padded);
* every argument that the training iterator does not provide is a parameter: an RNN's
  begin state given in ``arg_params`` is trained like a weight.  A parameter not in
  ``arg_params`` is filled by ``initializer(name, array)``, the name-only call, whose
  rules know weights, biases, gammas, betas and moving statistics;
* the optimizer is created from its name and the extra keyword arguments of the
  constructor (``learning_rate``, ``momentum``, ``wd``...) with ``rescale_grad =
  1/batch_size``; an Optimizer object is used as it is;
* ``predict`` drops the padding of the last batch; ``score`` does not (padded samples
  count in the metric, as in MXNet);
* a checkpoint is ``prefix-symbol.json`` and ``prefix-%04d.params`` (``save``/``load``).

One deliberate difference: MXNet's predict and score keep the executor of their first
call and the parameters copied into it then, so a prediction after ``fit`` (same
shapes) still uses the parameters from before it.  reflib copies the current
parameters at every call.

Which loop runs?  ``predict`` and ``score`` are Module's (``iter_predict``, ``score``), on
a Module bound for inference on the first context.  ``fit`` runs on a Module too, with
the loop of MXNet's ``_train_multi_device`` (reflib/feedforward_train.py), not
``Module.fit``'s: FeedForward's ``epoch_size`` ends an epoch mid-iterator, the iterator is
reset only when it runs dry, and validation reuses the training metric object.
"""

import contextlib
import logging
import re
import warnings

import numpy as np

from . import io
from . import metric
from . import ndarray as nd
from . import optimizer as opt
from .callback import LogValidationMetricsCallback
from .checkpoint import load_checkpoint, save_checkpoint
from .context import Context, cpu
from .initializer import Uniform
from .io import DataDesc
from .io.dataiter import data_descs
from .feedforward_train import train
from .module import Module
from .symbol import Symbol

__all__ = ['FeedForward']

_DEPRECATED = ('\033[91mmxnet.model.FeedForward has been deprecated. '
               'Please use mxnet.mod.Module instead.\033[0m')


@contextlib.contextmanager
def _warned_at_caller():
    """The constructor's deprecation warning, blamed on the caller of load/create (two frames
    up) rather than on this file, so that filters on the user's module see it."""
    with warnings.catch_warnings():
        warnings.filterwarnings('ignore', message=re.escape(_DEPRECATED))
        yield
    warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=4)


def _check_unique_names(symbol):
    """Two arguments (or aux states) of one name would share one array: refuse them."""
    for names, what in ((symbol.list_arguments(), 'argument'),
                        (symbol.list_auxiliary_states(), 'auxiliary state')):
        seen = set()
        for name in names:
            if name in seen:
                raise ValueError('FeedForward: the network has two %ss named %r; give the layers '
                                 'distinct names (name=...); %ss: %s' % (what, name, what, names))
            seen.add(name)


def _is_data_arg(name):
    """MXNet's rule for inputs that are not parameters even when nobody provides them."""
    return name.endswith('data') or name.endswith('label')


class FeedForward:
    """A network with its parameters, trained by ``fit`` and used by ``predict``/``score``.

    Making one warns that the API is deprecated, as MXNet does (a DeprecationWarning).
    How training differs from Module is listed at the top of this module.

    :param symbol: the network, or a function of a bucket key returning one (trained with
        a bucketing iterator that has ``default_bucket_key``).
    :param ctx: a Context or a list of them (data parallel); ``[cpu()]`` by default.
    :param num_epoch: the epoch ``fit`` stops before; ``fit`` needs it.
    :param epoch_size: batches per epoch; None means one pass over the iterator.
    :param optimizer: an optimizer's name (``'sgd'``), created with the extra keyword
        arguments and ``rescale_grad = 1/batch_size``, or an Optimizer used as it is.
    :param initializer: fills every parameter not in ``arg_params``/``aux_params``
        (``Uniform(0.01)``).
    :param numpy_batch_size: the batch size used when ``fit``, ``predict`` or ``score``
        is given numpy arrays instead of an iterator (128).
    :param arg_params: ``{name: NDArray}`` of trained arguments to start from.
    :param aux_params: ``{name: NDArray}`` of auxiliary states (moving averages).
    :param allow_extra_params: drop entries of the two dicts the symbol has no use for,
        instead of refusing them.
    :param begin_epoch: the first epoch's number (``load`` sets it to the checkpoint's).
    :param kwargs: the optimizer's settings: ``learning_rate``, ``momentum``, ``wd``, ...
    :raises TypeError: when ``symbol`` is neither a Symbol nor a function.
    """

    def __init__(self, symbol, ctx=None, num_epoch=None, epoch_size=None, optimizer='sgd',
                 initializer=Uniform(0.01), numpy_batch_size=128, arg_params=None, aux_params=None,
                 allow_extra_params=False, begin_epoch=0, **kwargs):
        warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=2)
        if isinstance(symbol, Symbol):
            self.symbol, self.sym_gen = symbol, None
        elif callable(symbol):
            self.symbol, self.sym_gen = None, symbol
        else:
            raise TypeError('FeedForward: symbol must be a Symbol or a function of a bucket key '
                            'returning one, got %s' % type(symbol).__name__)
        self.arg_params = arg_params
        self.aux_params = aux_params
        self.allow_extra_params = allow_extra_params
        self.argument_checked = False
        if self.sym_gen is None:
            self._check_arguments()
        if ctx is None:
            ctx = [cpu()]
        elif isinstance(ctx, Context):
            ctx = [ctx]
        self.ctx = ctx
        self.num_epoch = num_epoch
        self.epoch_size = epoch_size
        self.kwargs = kwargs.copy()
        self.optimizer = optimizer
        self.initializer = initializer
        self.numpy_batch_size = numpy_batch_size
        self.begin_epoch = begin_epoch
        self._pred_module = None

    def _check_arguments(self):
        """Refuse duplicate names; with allow_extra_params, drop params the symbol lacks."""
        if self.argument_checked:
            return
        self.argument_checked = True
        _check_unique_names(self.symbol)
        if self.allow_extra_params:
            if self.arg_params:
                names = set(self.symbol.list_arguments())
                self.arg_params = {k: v for k, v in self.arg_params.items() if k in names}
            if self.aux_params:
                names = set(self.symbol.list_auxiliary_states())
                self.aux_params = {k: v for k, v in self.aux_params.items() if k in names}

    # ------------------------------------------------------------------ parameters
    def _init_params(self, inputs):
        """New ``arg_params``/``aux_params`` for every non-input argument and aux state:
        copied from the given ones, else filled by the initializer."""
        inputs = data_descs(inputs, 'inputs')
        shapes = {d.name: tuple(d.shape) for d in inputs}
        arg_names = self.symbol.list_arguments()
        strangers = [name for name in shapes if name not in arg_names]
        if strangers:
            raise ValueError('FeedForward.fit: the iterator provides %s, which the network does not take '
                             '(its arguments: %s); numpy labels are named softmax_label, so give another '
                             'label name through an NDArrayIter(label_name=...)' % (strangers, arg_names))
        arg_shapes, _, aux_shapes = self.symbol.infer_shape_partial(**shapes)
        unknown = [n for n, s in zip(arg_names + self.symbol.list_auxiliary_states(), arg_shapes + aux_shapes)
                   if not s or 0 in s]
        if unknown:
            raise ValueError('FeedForward.fit: the shapes of %s cannot be inferred from the inputs %s; '
                             'give those variables a shape (mx.sym.Variable(name, shape=...))'
                             % (unknown, shapes))
        arg_types, _, aux_types = self.symbol.infer_type(**{d.name: d.dtype for d in inputs})
        aux_names = self.symbol.list_auxiliary_states()
        param_names = [n for n in arg_names if n not in shapes]

        def fill(names, all_shapes, all_types, given, what):
            new = {}
            for name, shape, dtype in zip(names, all_shapes, all_types):
                if what == 'arg_params' and name not in param_names:
                    continue
                arr = nd.zeros(shape, dtype=dtype)
                if given and name in given:
                    if tuple(given[name].shape) != tuple(shape):
                        raise ValueError('FeedForward.fit: %s[%r] has shape %s, the network needs %s'
                                         % (what, name, tuple(given[name].shape), tuple(shape)))
                    arr[:] = given[name][:]
                else:
                    with warnings.catch_warnings():
                        # the name-only call is MXNet's FeedForward's own; its deprecation is not the user's
                        warnings.filterwarnings('ignore', message='calling an initializer with a plain name')
                        self.initializer(name, arr)
                new[name] = arr
            return new

        self.arg_params = fill(arg_names, arg_shapes, arg_types, self.arg_params, 'arg_params')
        self.aux_params = fill(aux_names, aux_shapes, aux_types, self.aux_params, 'aux_params')
        return arg_names, param_names, aux_names

    def __getstate__(self):
        state = self.__dict__.copy()
        state['_pred_module'] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ------------------------------------------------------------------ inputs
    def _init_iter(self, X, y, is_train):
        """A DataIter for X: itself, or an NDArrayIter over numpy/NDArray data."""
        if isinstance(X, (np.ndarray, nd.NDArray)):
            if y is None:
                if is_train:
                    raise ValueError('FeedForward: y (the labels) must be given when X is an array')
                y = np.zeros(X.shape[0])
            if not isinstance(y, (np.ndarray, nd.NDArray)):
                raise TypeError('FeedForward: y must be a numpy array or NDArray when X is one, got %s'
                                % type(y).__name__)
            if X.shape[0] != y.shape[0]:
                raise ValueError('FeedForward: X has %d samples but y has %d labels'
                                 % (X.shape[0], y.shape[0]))
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.reshape((y.shape[0],))
            if y.ndim != 1:
                raise ValueError('FeedForward: y must be 1-d, or 2-d with one column, got shape %s'
                                 % (tuple(y.shape),))
            batch_size = min(X.shape[0], self.numpy_batch_size)
            if is_train:
                return io.NDArrayIter(X, y, batch_size, shuffle=True, last_batch_handle='roll_over')
            return io.NDArrayIter(X, y, batch_size, shuffle=False)
        if not isinstance(X, io.DataIter):
            raise TypeError('FeedForward: X must be a DataIter, an NDArray or a numpy array, got %s'
                            % type(X).__name__)
        return X

    def _init_eval_iter(self, eval_data):
        """eval_data as a DataIter: a DataIter, or a (data, label) pair (lists become arrays)."""
        if eval_data is None or isinstance(eval_data, io.DataIter):
            return eval_data
        if not (isinstance(eval_data, (tuple, list)) and len(eval_data) == 2):
            raise TypeError('FeedForward: eval_data must be a DataIter or a (data, label) pair of '
                            'arrays, got %s' % type(eval_data).__name__)
        data, label = eval_data
        if data is None:
            raise ValueError('FeedForward: eval_data is a pair whose data is None')
        if label is None and isinstance(data, io.DataIter):
            return data
        data = np.array(data) if isinstance(data, list) else data
        label = np.array(label) if isinstance(label, list) else label
        return self._init_iter(data, label, is_train=True)

    # ------------------------------------------------------------------ prediction
    def _predictor(self, data_iter, caller):
        """A Module bound for inference on the first context, for this iterator's shapes, holding
        the current parameters: predict and score are Module's (one loop, not two)."""
        if self.symbol is None or self.arg_params is None:
            raise ValueError('FeedForward.%s: the model has no %s yet; fit it first or give arg_params'
                             % (caller, 'symbol' if self.symbol is None else 'parameters'))
        args, auxs = self.symbol.list_arguments(), self.symbol.list_auxiliary_states()
        for given, names, what in ((self.arg_params, args, 'arg_params'),
                                   (self.aux_params or {}, auxs, 'aux_params')):
            extra = sorted(set(given) - set(names))
            if extra:
                raise ValueError('FeedForward.%s: %s has %s, which the network does not have; '
                                 'create the model with allow_extra_params=True to drop them'
                                 % (caller, what, extra))
        inputs = [d if isinstance(d, DataDesc) else DataDesc(d[0], d[1]) for d in data_iter.provide_data]
        data_names = [d.name for d in inputs]
        missing = [n for n in args if n not in self.arg_params and n not in data_names and not _is_data_arg(n)]
        if missing:
            raise ValueError('FeedForward.%s: no value for %s (neither in arg_params nor provided by '
                             'the iterator)' % (caller, missing))
        # the arguments neither given nor fed as data (a loss's label) are the module's labels;
        # bound with the iterator's, so that score's metric sees them (as Module.score feeds it)
        label_names = [n for n in args if n not in self.arg_params and n not in data_names]
        labels = [d if isinstance(d, DataDesc) else DataDesc(d[0], d[1]) for d in (data_iter.provide_label or [])]
        labels = labels if labels and {d.name for d in labels} == set(label_names) else None
        shapes = [tuple(d.shape) for d in inputs + (labels or [])]
        mod, bound_for = self._pred_module or (None, None)
        if mod is None or bound_for != shapes:
            mod = Module(self.symbol, data_names=data_names, label_names=label_names, context=self.ctx[0])
            mod.bind(data_shapes=inputs, label_shapes=labels, for_training=False)
            self._pred_module = (mod, shapes)
        mod.set_params(self.arg_params, self.aux_params or {}, allow_missing=False, force_init=True)
        return mod

    def predict(self, X, num_batch=None, return_data=False, reset=True):
        """Outputs for X (an iterator or an array) on the first context, padding dropped: one
        numpy array, or a list for several outputs; with ``return_data``, also (data, label)."""
        X = self._init_iter(X, None, is_train=False)
        mod = self._predictor(X, 'predict')
        outputs, data_list, label_list = None, [], []
        for outs, _, batch in mod.iter_predict(X, num_batch=num_batch, reset=reset):
            outputs = [[] for _ in outs] if outputs is None else outputs
            for kept, out in zip(outputs, outs):
                kept.append(out.asnumpy())
            if return_data:
                real = X.batch_size - batch.pad
                data_list.append([arr[0:real].asnumpy() for arr in batch.data])
                label_list.append([arr[0:real].asnumpy() for arr in batch.label])
        if outputs is None:
            raise ValueError('FeedForward.predict: the iterator gave no batch (reset=False on an '
                             'exhausted iterator?)')

        def joined(lists):
            arrays = [np.concatenate(x) for x in lists]
            return arrays[0] if len(arrays) == 1 else arrays
        if return_data:
            return joined(outputs), joined(zip(*data_list)), joined(zip(*label_list))
        return joined(outputs)

    def score(self, X, eval_metric='acc', num_batch=None, batch_end_callback=None, reset=True):
        """The metric's value over X's batches (padded samples included, as in MXNet)."""
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        X = self._init_iter(X, None, is_train=False)
        mod = self._predictor(X, 'score')
        mod.score(X, eval_metric, num_batch=num_batch, batch_end_callback=batch_end_callback, reset=reset)
        return eval_metric.get()[1]

    # ------------------------------------------------------------------ training
    def fit(self, X, y=None, eval_data=None, eval_metric='acc', epoch_end_callback=None,
            batch_end_callback=None, kvstore='local', logger=None, work_load_list=None, monitor=None,
            eval_end_callback=LogValidationMetricsCallback(), eval_batch_end_callback=None):
        """Train ``num_epoch - begin_epoch`` epochs on X (an iterator, or arrays with labels y)."""
        data = self._init_iter(X, y, is_train=True)
        eval_data = self._init_eval_iter(eval_data)
        if self.num_epoch is None:
            raise ValueError('FeedForward.fit: num_epoch is None; give the model num_epoch')
        if self.sym_gen is not None:
            self.symbol = self.sym_gen(data.default_bucket_key)
            self._check_arguments()
        self._init_params(data.provide_data + data.provide_label)
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        if not isinstance(self.optimizer, (str, opt.Optimizer)):
            raise TypeError('FeedForward: optimizer must be a name or an Optimizer, got %s'
                            % type(self.optimizer).__name__)
        train(self, data, eval_data, eval_metric, kvstore=kvstore,
              logger=logger or logging, work_load_list=work_load_list, monitor=monitor,
              epoch_end_callback=epoch_end_callback, batch_end_callback=batch_end_callback,
              eval_end_callback=eval_end_callback, eval_batch_end_callback=eval_batch_end_callback)

    # ------------------------------------------------------------------ files
    def save(self, prefix, epoch=None, remove_amp_cast=True):
        """Write ``prefix-symbol.json`` and ``prefix-%04d.params`` (epoch: num_epoch by default)."""
        if epoch is None:
            epoch = self.num_epoch
        if epoch is None:
            raise ValueError('FeedForward.save: give an epoch (the model has no num_epoch)')
        save_checkpoint(prefix, epoch, self.symbol, self.arg_params, self.aux_params,
                        remove_amp_cast=remove_amp_cast)

    @staticmethod
    def load(prefix, epoch, ctx=None, **kwargs):
        """A FeedForward from a checkpoint, ``begin_epoch=epoch`` (kwargs: num_epoch, optimizer...)."""
        symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
        with _warned_at_caller():
            return FeedForward(symbol, ctx=ctx, arg_params=arg_params, aux_params=aux_params,
                               begin_epoch=epoch, **kwargs)

    @staticmethod
    def create(symbol, X, y=None, ctx=None, num_epoch=None, epoch_size=None, optimizer='sgd',
               initializer=Uniform(0.01), eval_data=None, eval_metric='acc', epoch_end_callback=None,
               batch_end_callback=None, kvstore='local', logger=None, work_load_list=None,
               eval_end_callback=LogValidationMetricsCallback(), eval_batch_end_callback=None, **kwargs):
        """Construct and fit in one call; returns the trained model."""
        with _warned_at_caller():
            model = FeedForward(symbol, ctx=ctx, num_epoch=num_epoch, epoch_size=epoch_size,
                                optimizer=optimizer, initializer=initializer, **kwargs)
        model.fit(X, y, eval_data=eval_data, eval_metric=eval_metric,
                  epoch_end_callback=epoch_end_callback, batch_end_callback=batch_end_callback,
                  kvstore=kvstore, logger=logger, work_load_list=work_load_list,
                  eval_end_callback=eval_end_callback, eval_batch_end_callback=eval_batch_end_callback)
        return model
