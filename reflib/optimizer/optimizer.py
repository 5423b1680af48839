"""The base class every optimizer derives from, its registry, and the helpers the update
formulas share.

An optimizer turns a gradient into a change of a weight.  It works on one weight at a
time, named by an ``index`` (an int, or a name string), and keeps per-weight *state*
(momentum, running averages) that it creates once per weight with ``create_state``.
Everything happens **in place**: ``update`` writes into ``weight``'s own buffer, and into
the state arrays, so an executor that bound ``weight`` sees the new values at its next
forward.  The package docstring (``reflib/optimizer/__init__.py``) says where the knobs
(rescale_grad, clip_gradient, wd, lr_mult, schedulers) enter the formulas.
"""

import math
import warnings

import numpy as np

from ..base import MXNetError
from ..registry import Registry
from ..ndarray import NDArray
from ..ndarray.sparse import BaseSparseNDArray, CSRNDArray, RowSparseNDArray


class OptimizerError(MXNetError, ValueError):
    """An optimizer was asked for by a name that is not registered, or misused."""


# ---------------------------------------------------------------- helpers on raw buffers
def _compute_type(dtype):
    """The type a kernel computes in: the weight's own dtype.

    MXNet's update kernels run in the weight's dtype, float16 included (every
    operation rounds to float16, the hyper-parameters too); multi_precision is
    the way to get float32 arithmetic for float16 weights.
    """
    return np.dtype(dtype).type


def _param(value, ctype):
    """A scalar hyper-parameter as MXNet's kernels see it: stored as a C float, used in ``ctype``.

    ``value`` may also be a 0-d array on the weight's device (LARS's per-weight rate, worked
    out there so that the host need not wait for the norms).
    """
    if isinstance(value, (int, float, np.number)):
        return ctype(np.float32(value))
    return value.astype(np.float32).astype(ctype)


def _clip_enabled(clip_gradient):
    """The kernel-based optimizers clip only for a positive bound (None, 0 and negatives: no clip)."""
    return bool(clip_gradient) and clip_gradient >= 0


def _clip(xp, x, bound):
    return xp.clip(x, -bound, bound)


def _raw(arr, ctype):
    """The buffer of ``arr`` in the compute type (a copy only when the dtype differs)."""
    return arr._data.astype(ctype, copy=False)


def _store(arr, values):
    """Write ``values`` into ``arr``'s own buffer, rounding to its dtype."""
    arr._data[...] = values


def _lr_times_grad(xp, grad, lr, rescale_grad, clip_gradient, ct):
    """``lr * clip(rescale_grad * grad)``, in the order MXNet's SGD kernels multiply.

    Without clipping the kernels compute ``(lr * rescale_grad) * grad``, which can
    round differently from ``lr * (rescale_grad * grad)``.  For a row_sparse ``grad``
    the result has one slice per stored row (its ``_data`` holds only those rows).
    """
    g = grad._data.astype(ct, copy=False)
    if _clip_enabled(clip_gradient):
        return lr * _clip(xp, _param(rescale_grad, ct) * g, _param(clip_gradient, ct))
    return (lr * _param(rescale_grad, ct)) * g


def _check_arrays(weight, grad, who):
    """``weight`` an NDArray whose values are the dense weight, ``grad`` an NDArray (dense or
    sparse) of its shape.

    A row_sparse weight qualifies when it stores every row (a KVStore's, one an initializer
    filled): its values then are the dense weight, updated in place as they are.  MXNet's
    sparse kernels refuse one with rows missing, and so does reflib; a CSR weight is refused.
    """
    if not isinstance(weight, NDArray) or not isinstance(grad, NDArray):
        raise OptimizerError('%s.update expects NDArrays for weight and grad, got %s and %s'
                             % (who, type(weight).__name__, type(grad).__name__))
    if isinstance(weight, RowSparseNDArray):
        # its rows are sorted and distinct: as many as the weight has means every one, in order
        if len(weight._aux[0]) != weight.shape[0]:
            raise OptimizerError('%s.update: a row_sparse weight is updated only when it stores every row (as '
                                 'MXNet requires): it stores %d of %d rows' % (who, len(weight._aux[0]),
                                                                              weight.shape[0]))
    elif isinstance(weight, BaseSparseNDArray):
        raise OptimizerError('%s.update: the weight is %s; reflib updates dense and row_sparse weights: pass '
                             'weight.tostype("default")' % (who, weight.stype))
    if weight.shape != grad.shape:
        raise OptimizerError('%s.update: weight has shape %s but its gradient has shape %s'
                             % (who, weight.shape, grad.shape))


def _through_dense_weight(update, index, weight, grad, state):
    """A CSR weight updated as MXNet's storage fallback does: on its dense form, then stored
    back in its own form."""
    dense = weight.todense()
    update(index, dense, grad, state)
    weight[:] = dense


def _is_row_sparse(grad):
    return isinstance(grad, RowSparseNDArray)


def _dense_values(grad):
    """The gradient's values as one dense buffer: a sparse gradient is expanded with its zeros."""
    return grad._dense_data() if isinstance(grad, BaseSparseNDArray) else grad._data


def _dense_grad(weight, grad, who):
    """``grad`` checked against ``weight`` (see _check_arrays), as a dense NDArray.

    This is MXNet's storage fallback: an update kernel without a sparse form runs on the
    dense gradient a sparse one stands for, so every row of the weight and of the states
    gets the standard update, rows absent from the gradient with a zero gradient (weight
    decay, momentum and moving averages still act on them).  Most optimizers take a
    row_sparse gradient this way; SGD, NAG without momentum, LARS, LBSGD, Adam, AdaGrad
    and GroupAdaGrad have their own sparse updates instead.
    """
    _check_arrays(weight, grad, who)
    return grad.todense() if isinstance(grad, BaseSparseNDArray) else grad


def _is_fp16(arr):
    return np.dtype(arr.dtype) == np.float16


# ---------------------------------------------------------------- the base class
def _hyper(owner, name, value, optional=False, finite=False):
    """A hyperparameter as a float: a number, or a string that spells one (MXNet hands its
    hyperparameters to C++ as strings, so ``learning_rate='0.1'`` trains there too).
    ``finite``: inf and NaN are refused (a learning rate of either trains to NaN)."""
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number, str)):
        raise OptimizerError('%s: %s must be a number, got %r' % (owner, name, value))
    try:
        number = float(value)
    except ValueError:
        raise OptimizerError('%s: %s must be a number, got %r' % (owner, name, value)) from None
    if finite and not math.isfinite(number):
        raise OptimizerError('%s: %s must be a finite number, got %r: every weight would become NaN'
                             % (owner, name, value))
    return number


class Optimizer:
    """Base class of every optimizer.

    Parameters
    ----------
    rescale_grad : float
        Every gradient is multiplied by this first (Module passes ``1/batch_size``).
    param_idx2name : dict of int -> str
        Names of the weights by index.  With it, weights whose name does not end
        in ``_weight`` or ``_gamma`` (biases, BatchNorm betas, data) get no weight
        decay unless a ``wd_mult`` says otherwise.
    wd : float
        Weight decay (L2 penalty) coefficient.
    clip_gradient : float or None
        Clip the rescaled gradient to ``[-clip_gradient, clip_gradient]``.
    learning_rate : float or None
        The learning rate; when None, the scheduler's, or 0.01 without one.
        Given together with ``lr_scheduler``, it is written into
        ``lr_scheduler.base_lr``.
    lr_scheduler : reflib.lr_scheduler.LRScheduler or None
        Decides the learning rate from ``num_update``.
    sym : Symbol or None
        The network; its variables' ``lr_mult``/``wd_mult`` attributes become
        the defaults of ``set_lr_mult``/``set_wd_mult``.
    begin_num_update : int
        The update count to start from (resuming training).
    multi_precision : bool
        For float16 weights, keep a float32 master copy in the state and update
        that; the float16 weight receives the rounded result.
    param_dict : dict of int -> object with ``lr_mult``/``wd_mult``, or None
        Gluon's way of giving the multipliers; takes precedence over the rest.
    """

    opt_registry = Registry('optimizer', on_replace='warn', error=OptimizerError)

    def __init__(self, rescale_grad=1., param_idx2name=None, wd=0., clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        owner = type(self).__name__
        self.rescale_grad = _hyper(owner, 'rescale_grad', rescale_grad)
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        learning_rate = _hyper(owner, 'learning_rate', learning_rate, optional=True, finite=True)
        wd = _hyper(owner, 'wd', wd)
        clip_gradient = _hyper(owner, 'clip_gradient', clip_gradient, optional=True)
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None:
            if lr_scheduler.base_lr != learning_rate:
                warnings.warn('the optimizer\'s learning_rate=%g replaces lr_scheduler.base_lr=%g'
                              % (learning_rate, lr_scheduler.base_lr), UserWarning, stacklevel=2)
                lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.lr_mult = {}
        self.wd_mult = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        # update counts per index, one table per device id (see _set_current_context)
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        # how many weights the Updater may hand over in one call (only SGD groups them)
        self.aggregate_num = 0
        if param_idx2name is None:
            param_idx2name = {}
        if not isinstance(param_idx2name, dict):
            raise OptimizerError('param_idx2name must be a dict from index to parameter name, got %s'
                                 % type(param_idx2name).__name__)
        self.idx2name = param_idx2name.copy()
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.allow_np_array = False
        self.set_lr_mult({})
        self.set_wd_mult({})

    # ------------------------------------------------------------ registry
    @staticmethod
    def register(klass):
        """Class decorator: make ``klass`` available to ``create`` under its lower-cased name."""
        if not isinstance(klass, type):
            raise TypeError('Optimizer.register decorates a class, got %r' % (klass,))
        return Optimizer.opt_registry.register(klass)

    @staticmethod
    def create_optimizer(name, **kwargs):
        """An instance of the optimizer registered as ``name`` (case-insensitive), built with ``kwargs``."""
        if not isinstance(name, str):
            raise OptimizerError('create expects an optimizer name (a str), got %s; '
                                 'pass Optimizer instances around directly' % type(name).__name__)
        return Optimizer.opt_registry.find(name)(**kwargs)

    # ------------------------------------------------------------ learning rate
    @property
    def learning_rate(self):
        """The current global learning rate (the scheduler's at ``num_update``, if there is one)."""
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        """Set the global learning rate; not allowed when a scheduler decides it."""
        if self.lr_scheduler is not None:
            raise LRSchedulerConflict(
                'set_learning_rate(%g): this optimizer has an lr_scheduler (%s) that decides the '
                'learning rate; change the scheduler instead' % (lr, type(self.lr_scheduler).__name__))
        self.lr = _hyper(type(self).__name__, 'learning_rate', lr, finite=True)

    def set_lr_scale(self, args_lrscale):
        """Removed in MXNet long ago; use set_lr_mult."""
        raise DeprecationWarning('set_lr_scale is deprecated; use set_lr_mult')

    # ------------------------------------------------------------ multipliers
    def _sym_attr_mults(self, key):
        """``{argument name: float}`` for every argument of ``sym`` carrying attribute ``key``."""
        found = {}
        if self.sym_info:
            attrs, arg_names = self.sym_info
            for name in arg_names:
                if key in attrs.get(name, {}):
                    found[name] = float(attrs[name][key])
        return found

    def set_lr_mult(self, args_lr_mult):
        """Per-weight learning-rate multipliers.

        The table is rebuilt from scratch: first the ``lr_mult`` attributes of the
        symbol's arguments (when ``sym`` was given), then ``args_lr_mult``, whose
        keys are parameter names or indices.
        """
        self.lr_mult = self._sym_attr_mults('__lr_mult__')
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        """Per-weight weight-decay multipliers.

        The table is rebuilt from scratch: 0 for every name in ``param_idx2name``
        that does not end in ``_weight`` or ``_gamma`` (biases, betas, inputs),
        then the ``wd_mult`` attributes of the symbol's arguments, then
        ``args_wd_mult`` (keys: names or indices).  Without ``param_idx2name`` the
        first rule has nothing to apply to, so biases do get weight decay.
        """
        self.wd_mult = {}
        for name in self.idx2name.values():
            if not (name.endswith('_weight') or name.endswith('_gamma')):
                self.wd_mult[name] = 0.0
        self.wd_mult.update(self._sym_attr_mults('__wd_mult__'))
        self.wd_mult.update(args_wd_mult)

    def _mult(self, index, table, attr):
        """The multiplier of ``index``: param_dict, then the table by index, then by name."""
        if index in self.param_dict:
            return getattr(self.param_dict[index], attr)
        if index in table:
            return table[index]
        if index in self.idx2name:
            return table.get(self.idx2name[index], 1.0)
        return 1.0

    def _get_lrs(self, indices):
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        return [lr * self._mult(index, self.lr_mult, 'lr_mult') for index in indices]

    def _get_lr(self, index):
        """The learning rate of weight ``index``: the global rate times its lr_mult."""
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        return [self.wd * self._mult(index, self.wd_mult, 'wd_mult') for index in indices]

    def _get_wd(self, index):
        """The weight decay of weight ``index``: ``wd`` times its wd_mult."""
        return self._get_wds([index])[0]

    # ------------------------------------------------------------ update counting
    def _set_current_context(self, device_id):
        """Count updates separately per device (the Updater calls this with the weight's device id)."""
        self._index_update_count = self._all_index_update_counts.setdefault(device_id, {})

    def _update_count(self, index):
        """Count one more update of ``index`` (or of each index in a list); raise ``num_update``."""
        for idx in (index if isinstance(index, (list, tuple)) else [index]):
            count = self._index_update_count.get(idx, self.begin_num_update) + 1
            self._index_update_count[idx] = count
            self.num_update = max(count, self.num_update)

    # ------------------------------------------------------------ state and update
    def create_state(self, index, weight):
        """The state this optimizer keeps for ``weight`` (None when it needs none)."""
        return None

    def create_state_multi_precision(self, index, weight):
        """Like create_state; with multi_precision on a float16 weight: ``(float32 master, state)``."""
        if self.multi_precision and _is_fp16(weight):
            master = weight.astype(np.float32)
            return (master, self.create_state(index, master))
        if _is_fp16(weight):
            warnings.warn('updating float16 weights in float16 can lose precision and slow '
                          'convergence; consider multi_precision=True', UserWarning, stacklevel=2)
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        """Update ``weight`` in place from ``grad``, using and updating ``state``."""
        raise NotImplementedError('%s must define update()' % type(self).__name__)

    def update_multi_precision(self, index, weight, grad, state):
        """update(), going through the float32 master copy for float16 weights with multi_precision."""
        if isinstance(weight, CSRNDArray):
            return _through_dense_weight(self.update_multi_precision, index, weight, grad, state)
        if self.multi_precision and _is_fp16(weight):
            master, inner = state
            self.update(index, master, grad.astype(np.float32), inner)
            _store(weight, master._data)
        else:
            self.update(index, weight, grad, state)

    # ------------------------------------------------------------ pickling
    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop('param_dict', None)     # Gluon parameters are not ours to save
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self.param_dict = {}

    def __repr__(self):
        # not self.learning_rate: that calls the scheduler, which changes its state
        lr = type(self.lr_scheduler).__name__ if self.lr_scheduler is not None else '%g' % self.lr
        return '%s(learning_rate=%s, wd=%g, rescale_grad=%g)' % (
            type(self).__name__, lr, self.wd, self.rescale_grad)


class LRSchedulerConflict(OptimizerError, UserWarning):
    """set_learning_rate on an optimizer whose lr_scheduler decides the rate.

    MXNet raises a bare ``UserWarning`` here; this class is both that and an MXNetError.
    """


register = Optimizer.register
create = Optimizer.create_optimizer


class ImplementedUpdate:
    """``update`` and ``update_multi_precision`` of an optimizer whose work is all in
    ``_update_impl(index, weight, grad, state, multi_precision)`` (one weight or a list of
    them): SGD, LARS and LAMB share these two, as MXNet's do."""

    def update(self, index, weight, grad, state):
        """Update ``weight`` (or a list of weights, with lists of indices, gradients and states)
        in place from ``grad``, without a float32 master copy.
        """
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        """Like ``update``, but a float16 weight is updated through the float32 master copy held in
        its state when ``multi_precision`` is on and the state was made by
        ``create_state_multi_precision``; a CSR weight is updated through its dense form.
        """
        if isinstance(weight, CSRNDArray):
            return _through_dense_weight(self.update_multi_precision, index, weight, grad, state)
        several = isinstance(index, (list, tuple))
        first_weight, first_state = (weight[0], state[0]) if several else (weight, state)
        # the master copy is there only in a state made by create_state_multi_precision
        self._update_impl(index, weight, grad, state,
                          multi_precision=(self.multi_precision and _is_fp16(first_weight)
                                           and isinstance(first_state, (tuple, list))))
