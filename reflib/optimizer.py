"""Optimizers and the updater: ``mx.optimizer`` (also ``mx.opt``).

An optimizer turns a gradient into a change of a weight.  It works on one
weight at a time, named by an ``index`` (an int, or a name string), and keeps
per-weight *state* (momentum, running averages) that it creates once per
weight with ``create_state``.  Everything happens **in place**: ``update``
writes into ``weight``'s own buffer, and into the state arrays, so an executor
that bound ``weight`` sees the new values at its next forward.

Where the knobs enter (MXNet 1.9.1, checked against it number by number; see
tests/golden/gen_optimizer.py):

* ``rescale_grad`` multiplies the raw gradient first (Module sets it to
  ``1/batch_size``), then ``clip_gradient`` clips the result to
  ``[-clip_gradient, clip_gradient]``.
* Weight decay ``wd * weight`` is added **after** clipping for SGD, NAG and
  AdaGrad, but **before** clipping (so it is clipped too) for Adam and RMSProp.
  AdaDelta subtracts ``wd * weight`` from the weight directly.
* SGD, NAG, Adam and RMSProp treat ``clip_gradient`` of ``None``, ``0`` or a
  negative number as "no clipping"; AdaGrad and AdaDelta clip whenever it is
  not ``None`` (``0`` zeroes the gradient), because MXNet implements those two
  in Python with a different test.
* The learning rate of weight ``i`` is ``learning_rate * lr_mult(i)``, the
  weight decay ``wd * wd_mult(i)``; see ``Optimizer.set_lr_mult``.
* ``learning_rate`` comes from the ``lr_scheduler`` when there is one, called
  with ``num_update`` *after* this update was counted (1 for the first batch).

The per-optimizer update formulas are written out in each class below.
"""

import math
import io
import pickle
import warnings

import numpy as np

from .base import MXNetError
from .context import cpu
from .ndarray import NDArray, zeros

__all__ = ['Optimizer', 'SGD', 'NAG', 'Adam', 'AdaGrad', 'RMSProp', 'AdaDelta',
           'Updater', 'get_updater', 'create', 'register', 'OptimizerError']


class OptimizerError(MXNetError, ValueError):
    """An optimizer was asked for by a name that is not registered, or misused."""


# Optimizers MXNet 1.9.1 registers that reflib does not implement; named in the error
# message so a user knows it is a gap in reflib, not a typo.
_MXNET_ONLY = ('adamax', 'ccsgd', 'dcasgd', 'ftml', 'ftrl', 'lamb', 'lars', 'lbsgd', 'nadam',
               'sgld', 'signum', 'test')


# ---------------------------------------------------------------- helpers on raw buffers
def _compute_type(dtype):
    """The type a kernel computes in: the weight's own dtype.

    MXNet's update kernels run in the weight's dtype, float16 included (every
    operation rounds to float16, the hyper-parameters too); multi_precision is
    the way to get float32 arithmetic for float16 weights.
    """
    return np.dtype(dtype).type


def _param(value, ctype):
    """A scalar hyper-parameter as MXNet's kernels see it: stored as a C float, used in ``ctype``."""
    return ctype(np.float32(value))


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
    round differently from ``lr * (rescale_grad * grad)``.
    """
    g = grad._data.astype(ct, copy=False)
    if _clip_enabled(clip_gradient):
        return lr * _clip(xp, _param(rescale_grad, ct) * g, _param(clip_gradient, ct))
    return (lr * _param(rescale_grad, ct)) * g


def _check_dense(weight, grad, who):
    if not isinstance(weight, NDArray) or not isinstance(grad, NDArray):
        raise OptimizerError('%s.update expects NDArrays for weight and grad, got %s and %s'
                             % (who, type(weight).__name__, type(grad).__name__))
    if weight.shape != grad.shape:
        raise OptimizerError('%s.update: weight has shape %s but its gradient has shape %s'
                             % (who, weight.shape, grad.shape))


def _is_fp16(arr):
    return np.dtype(arr.dtype) == np.float16


# ---------------------------------------------------------------- the base class
def _hyper(owner, name, value, optional=False):
    """A hyperparameter as a float: a number, or a string that spells one (MXNet hands its
    hyperparameters to C++ as strings, so ``learning_rate='0.1'`` trains there too)."""
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number, str)):
        raise OptimizerError('%s: %s must be a number, got %r' % (owner, name, value))
    try:
        return float(value)
    except ValueError:
        raise OptimizerError('%s: %s must be a number, got %r' % (owner, name, value)) from None


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

    opt_registry = {}

    def __init__(self, rescale_grad=1., param_idx2name=None, wd=0., clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        owner = type(self).__name__
        self.rescale_grad = _hyper(owner, 'rescale_grad', rescale_grad)
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        learning_rate = _hyper(owner, 'learning_rate', learning_rate, optional=True)
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
        name = klass.__name__.lower()
        if name in Optimizer.opt_registry:
            old = Optimizer.opt_registry[name]
            warnings.warn('optimizer %s.%s replaces the registered %s.%s'
                          % (klass.__module__, klass.__name__, old.__module__, old.__name__),
                          UserWarning, stacklevel=2)
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        """An instance of the optimizer registered as ``name`` (case-insensitive), built with ``kwargs``."""
        if not isinstance(name, str):
            raise OptimizerError('create expects an optimizer name (a str), got %s; '
                                 'pass Optimizer instances around directly' % type(name).__name__)
        klass = Optimizer.opt_registry.get(name.lower())
        if klass is None:
            known = ', '.join(sorted(Optimizer.opt_registry))
            if name.lower() in _MXNET_ONLY:
                raise OptimizerError('optimizer %r exists in MXNet 1.9.1 but is not implemented in '
                                     'reflib; available: %s' % (name, known))
            raise OptimizerError('unknown optimizer %r; registered optimizers are: %s (names are '
                                 'case-insensitive)' % (name, known))
        return klass(**kwargs)

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
        self.lr = _hyper(type(self).__name__, 'learning_rate', lr)

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


# ---------------------------------------------------------------- SGD
class _MomentumState:
    """State of SGD and NAG: a momentum array (none when momentum is 0), plus a float32
    master copy of a float16 weight under multi_precision."""

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        return zeros(weight.shape, weight.context, dtype=weight.dtype)

    def create_state_multi_precision(self, index, weight):
        if self.multi_precision and _is_fp16(weight):
            master = weight.astype(np.float32)
            return (self.create_state(index, master), master)
        if _is_fp16(weight):
            warnings.warn('%s on float16 weights without multi_precision=True accumulates in '
                          'float16 and can lose precision' % type(self).__name__, UserWarning, stacklevel=2)
        return self.create_state(index, weight)


@register
class SGD(_MomentumState, Optimizer):
    """Stochastic gradient descent, with optional momentum.

    With ``g = clip(rescale_grad * grad, clip_gradient)`` and per-weight ``lr``,
    ``wd``, MXNet 1.9.1 computes (in the weight's precision, float32 for float16)::

        mom    = momentum * mom - lr * wd * weight - lr * g      # mom stays 0 without momentum
        weight = weight + mom

    The momentum state exists only when ``momentum != 0``.  ``lazy_update``
    concerns sparse gradients, which reflib does not have; it is accepted and
    ignored.  With ``multi_precision`` on float16 weights the state is the pair
    ``(mom or None, float32 master weight)``: the update runs on the master and
    the float16 weight receives its rounded value.
    """

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = _hyper('SGD', 'momentum', momentum)
        self.lazy_update = lazy_update
        # MXNet's default MXNET_OPTIMIZER_AGGREGATION_SIZE: the Updater passes up to 4
        # weights per call; the numbers do not depend on it
        self.aggregate_num = 4

    def _step(self, weight, grad, mom, master, lr, wd):
        """One weight: ``mom`` may be None, ``master`` is the float32 copy or None.

        The update runs in place, in the momentum's and the weight's own buffers
        (``out=``), with the operations in MXNet's order, so the result is the
        same to the bit as computing each step into a new array.
        """
        target = master if master is not None else weight
        ct = _compute_type(target.dtype)
        xp = weight.xp
        w = _raw(target, ct)                # target's own buffer: ct is its dtype
        lr, wd = _param(lr, ct), _param(wd, ct)
        # (lr * wd) * w is computed even for wd = 0, as MXNet's kernel does.  Subtracting it
        # is not always a no-op then: for an infinite or NaN weight 0 * w is NaN, and MXNet's
        # momentum and weight turn NaN; and -0.0 - -0.0 gives +0.0.
        decay = lr * wd * w
        use_mom = mom is not None and self.momentum > 0
        if use_mom:
            m = _raw(mom, ct)               # mom's own buffer when it has the weight's dtype, as created
            xp.multiply(m, _param(self.momentum, ct), out=m)
            xp.subtract(m, decay, out=m)
        else:
            m = xp.subtract(ct(0), decay)
        xp.subtract(m, _lr_times_grad(xp, grad, lr, self.rescale_grad, self.clip_gradient, ct), out=m)
        if use_mom and m is not mom._data:
            _store(mom, m)
            m = _raw(mom, ct)               # the stored (rounded) momentum is added
        xp.add(w, m, out=w)                 # w + m, into the target's own buffer
        if master is not None:
            _store(weight, w)               # the float16 weight gets the master's rounded value

    def _update_impl(self, index, weight, grad, state, multi_precision):
        if isinstance(index, (list, tuple)):
            indices, weights, grads, states = list(index), list(weight), list(grad), list(state)
        else:
            indices, weights, grads, states = [index], [weight], [grad], [state]
        for w, g in zip(weights, grads):
            _check_dense(w, g, 'SGD')
        # all indices are counted before any learning rate is read, as MXNet does
        self._update_count(indices)
        lrs = self._get_lrs(indices)
        wds = self._get_wds(indices)
        for w, g, s, lr, wd in zip(weights, grads, states, lrs, wds):
            if multi_precision:
                mom, master = s
            else:
                mom, master = s, None
            self._step(w, g, mom, master, lr, wd)

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        first = weight[0] if isinstance(index, (list, tuple)) else weight
        self._update_impl(index, weight, grad, state,
                          multi_precision=self.multi_precision and _is_fp16(first))


# ---------------------------------------------------------------- NAG
@register
class NAG(_MomentumState, Optimizer):
    """Nesterov accelerated gradient.

    With ``g = clip(rescale_grad * grad, clip_gradient)`` MXNet 1.9.1 keeps the
    momentum with the learning rate folded in::

        weight_new = weight - momentum * mom + (1 + momentum) * (momentum * mom - lr * (g + wd * weight))
        mom        = momentum * mom - lr * (g + wd * weight_new)

    Without weight decay that is the textbook ``s = momentum*s + g;
    weight -= lr*(g + momentum*s)`` with ``mom = -lr * s``.  With weight decay,
    note ``weight_new`` in the momentum: MXNet's kernel overwrites the weight
    before it computes the momentum, and reflib reproduces the numbers.  Without momentum it is plain SGD written as
    ``weight = (1 - lr*wd) * weight - lr * clip(rescale_grad * grad)``.
    ``multi_precision`` works as for SGD (state ``(mom or None, master)``).
    """

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = _hyper('NAG', 'momentum', momentum)

    def _update_impl(self, index, weight, grad, state, multi_precision):
        _check_dense(weight, grad, 'NAG')
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        mom, master = state if multi_precision else (state, None)
        target = master if master is not None else weight
        ct = _compute_type(target.dtype)
        xp = weight.xp
        w = _raw(target, ct)
        lr, wd = _param(lr, ct), _param(wd, ct)
        if mom is not None and self.momentum > 0:
            g = grad._data.astype(ct, copy=False) * _param(self.rescale_grad, ct)
            if _clip_enabled(self.clip_gradient):
                g = _clip(xp, g, _param(self.clip_gradient, ct))
            mu = _param(self.momentum, ct)
            old = mu * _raw(mom, ct)
            new_w = w - old + (mu + ct(1)) * (old - lr * (g + wd * w))
            # MXNet's kernel writes the new weight first and then reads "the weight"
            # again for the momentum's decay term, so that term uses the NEW weight
            new_mom = old - lr * (g + wd * new_w.astype(ct, copy=False))
            _store(mom, new_mom)
        else:
            new_w = (ct(1) - lr * wd) * w - _lr_times_grad(
                xp, grad, lr, self.rescale_grad, self.clip_gradient, ct)
        if master is not None:
            _store(master, new_w)
        _store(weight, new_w)

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        use_mp = self.multi_precision and _is_fp16(weight) and isinstance(state, (tuple, list))
        self._update_impl(index, weight, grad, state, multi_precision=use_mp)


# ---------------------------------------------------------------- Adam
@register
class Adam(Optimizer):
    """Adam (Kingma & Ba), with MXNet's placement of the bias correction.

    With ``t`` the number of updates of this weight so far (this one included)::

        lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)         # in Python, double precision
        g    = clip(rescale_grad * grad + wd * weight, clip_gradient)
        mean = beta1 * mean + (1 - beta1) * g
        var  = beta2 * var + (1 - beta2) * g * g
        weight = weight - lr_t * mean / (sqrt(var) + epsilon)

    The bias correction rides on the learning rate, so ``epsilon`` is added to
    the uncorrected ``sqrt(var)``.  State: ``(mean, var)``.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = _hyper('Adam', 'beta1', beta1)
        self.beta2 = _hyper('Adam', 'beta2', beta2)
        self.epsilon = _hyper('Adam', 'epsilon', epsilon)
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return (zeros(weight.shape, weight.context, dtype=weight.dtype),   # mean
                zeros(weight.shape, weight.context, dtype=weight.dtype))   # var

    def update(self, index, weight, grad, state):
        _check_dense(weight, grad, 'Adam')
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        lr *= math.sqrt(1. - self.beta2 ** t) / (1. - self.beta1 ** t)
        mean, var = state
        ct = _compute_type(weight.dtype)
        xp = weight.xp
        w = _raw(weight, ct)
        g = grad._data.astype(ct, copy=False) * _param(self.rescale_grad, ct) + _param(wd, ct) * w
        if _clip_enabled(self.clip_gradient):
            g = _clip(xp, g, _param(self.clip_gradient, ct))
        b1, b2 = _param(self.beta1, ct), _param(self.beta2, ct)
        m = b1 * _raw(mean, ct) + (ct(1) - b1) * g
        v = b2 * _raw(var, ct) + (ct(1) - b2) * g * g
        _store(mean, m)
        _store(var, v)
        _store(weight, w - _param(lr, ct) * m / (xp.sqrt(v) + _param(self.epsilon, ct)))


# ---------------------------------------------------------------- AdaGrad
@register
class AdaGrad(Optimizer):
    """AdaGrad: each coordinate's step shrinks with the sum of its squared gradients.

    ::

        g        = clip(rescale_grad * grad, clip_gradient)    # clips unless clip_gradient is None
        history += g * g
        weight  += (g / sqrt(history + eps) + wd * weight) * -lr

    ``eps`` is stored as ``float_stable_eps`` (MXNet's attribute name).  The
    state ``history`` is float32 whatever the weight's dtype.
    """

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = _hyper('AdaGrad', 'eps', eps)

    def create_state(self, index, weight):
        return zeros(weight.shape, weight.context)     # history, float32

    def update(self, index, weight, grad, state):
        _check_dense(weight, grad, 'AdaGrad')
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        history = state
        dt = weight._data.dtype.type
        xp = weight.xp
        g = grad._data * dt(self.rescale_grad)
        if self.clip_gradient is not None:
            g = xp.clip(g, dt(-self.clip_gradient), dt(self.clip_gradient))
        history._data += g * g
        div = g / xp.sqrt(history._data + dt(self.float_stable_eps))
        weight._data += (div + weight._data * dt(wd)) * dt(-lr)


# ---------------------------------------------------------------- RMSProp
@register
class RMSProp(Optimizer):
    """RMSProp, plain (Tieleman & Hinton) or centered (Graves 2013).

    With ``g = clip(rescale_grad * grad + wd * weight, clip_gradient)``:

    plain (state ``(n,)``)::

        n      = (1 - gamma1) * g * g + gamma1 * n
        weight = weight - lr * g / sqrt(n + epsilon)

    centered (state ``(n, gbar, delta)``)::

        n      = (1 - gamma1) * g * g + gamma1 * n
        gbar   = (1 - gamma1) * g + gamma1 * gbar
        delta  = gamma2 * delta - lr * g / sqrt(n - gbar * gbar + epsilon)
        weight = weight + delta

    Note ``epsilon`` sits *inside* the square root.  ``clip_weights`` (if set
    and positive) clips the new weight to ``[-clip_weights, clip_weights]``.
    States are float32.
    """

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                 centered=False, clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = _hyper('RMSProp', 'gamma1', gamma1)
        self.gamma2 = _hyper('RMSProp', 'gamma2', gamma2)
        self.centered = centered
        self.epsilon = _hyper('RMSProp', 'epsilon', epsilon)
        self.clip_weights = _hyper('RMSProp', 'clip_weights', clip_weights, optional=True)

    def create_state(self, index, weight):
        count = 3 if self.centered else 1
        return tuple(zeros(weight.shape, weight.context) for _ in range(count))

    def update(self, index, weight, grad, state):
        _check_dense(weight, grad, 'RMSProp')
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        ct = _compute_type(weight.dtype)
        xp = weight.xp
        w = _raw(weight, ct)
        g = grad._data.astype(ct, copy=False) * _param(self.rescale_grad, ct) + _param(wd, ct) * w
        if _clip_enabled(self.clip_gradient):
            g = _clip(xp, g, _param(self.clip_gradient, ct))
        g1, eps, lr = _param(self.gamma1, ct), _param(self.epsilon, ct), _param(lr, ct)
        one = ct(1)
        if not self.centered:
            (n,) = state
            n_new = (one - g1) * (g * g) + g1 * _raw(n, ct)
            _store(n, n_new)
            new_w = w - lr * (g / xp.sqrt(n_new + eps))
        else:
            n, gbar, delta = state
            n_new = (one - g1) * g * g + g1 * _raw(n, ct)
            gbar_new = (one - g1) * g + g1 * _raw(gbar, ct)
            d_new = _param(self.gamma2, ct) * _raw(delta, ct) - (
                lr * g / xp.sqrt(n_new - gbar_new * gbar_new + eps))
            _store(n, n_new)
            _store(gbar, gbar_new)
            _store(delta, d_new)
            new_w = w + d_new
        if _clip_enabled(self.clip_weights):
            new_w = _clip(xp, new_w, _param(self.clip_weights, ct))
        _store(weight, new_w)


# ---------------------------------------------------------------- AdaDelta
@register
class AdaDelta(Optimizer):
    """AdaDelta (Zeiler 2012).  It has no learning rate: ``learning_rate`` is ignored.

    ::

        grad     *= rescale_grad                 # in place: the caller's gradient changes!
        g         = clip(grad, clip_gradient)    # clips unless clip_gradient is None
        acc_g     = rho * acc_g + (1 - rho) * g * g
        delta     = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * g
        acc_delta = rho * acc_delta + (1 - rho) * delta * delta
        weight   -= delta + wd * weight

    MXNet 1.9.1 scales the gradient array it is given in place, so after an
    update with ``rescale_grad=0.5`` the gradient NDArray holds half its old
    values; reflib does the same.  State: ``(acc_g, acc_delta)``, float32.
    """

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho = _hyper('AdaDelta', 'rho', rho)
        self.epsilon = _hyper('AdaDelta', 'epsilon', epsilon)

    def create_state(self, index, weight):
        return (zeros(weight.shape, weight.context),    # accumulated g*g
                zeros(weight.shape, weight.context))    # accumulated delta*delta

    def update(self, index, weight, grad, state):
        _check_dense(weight, grad, 'AdaDelta')
        wd = self._get_wd(index)
        self._update_count(index)
        dt = weight._data.dtype.type
        xp = weight.xp
        grad._data *= dt(self.rescale_grad)
        g = grad._data
        if self.clip_gradient is not None:
            g = xp.clip(g, dt(-self.clip_gradient), dt(self.clip_gradient))
        acc_g, acc_delta = state
        rho, eps = dt(self.rho), dt(self.epsilon)
        keep = dt(1. - self.rho)
        acc_g._data *= rho
        acc_g._data += keep * g * g
        delta = xp.sqrt(acc_delta._data + eps) / xp.sqrt(acc_g._data + eps) * g
        acc_delta._data *= rho
        acc_delta._data += keep * delta * delta
        weight._data -= delta + dt(wd) * weight._data


# ---------------------------------------------------------------- the updater
class Updater:
    """``updater(index, grad, weight)``: the callable a KVStore or Module applies per weight.

    It creates each weight's optimizer state the first time it sees the index,
    and accepts lists of indices/gradients/weights (as Module passes them).
    ``get_states``/``set_states`` save and restore the states (and optionally
    the optimizer) as pickle bytes, the ``.states`` checkpoint files.
    """

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        if isinstance(index, (list, tuple)):
            indices, grads, weights = list(index), list(grad), list(weight)
        else:
            indices, grads, weights = [index], [grad], [weight]
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        for i, idx in enumerate(indices):
            if isinstance(idx, bytes):
                idx = indices[i] = idx.decode('utf-8')
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(idx, weights[i])
                self.states_synced[idx] = True
            elif not self.states_synced[idx]:
                self._check_loaded_state(idx, weights[i])
                self.states[idx] = self.sync_state_context(self.states[idx], weights[i].context)
                self.states_synced[idx] = True
        if not self.aggregate_updates:
            for idx, g, w in zip(indices, grads, weights):
                self.optimizer.update_multi_precision(idx, w, g, self.states[idx])
            return
        # group by dtype, then hand over up to aggregate_num weights per call
        by_dtype = {}
        for idx, g, w in zip(indices, grads, weights):
            by_dtype.setdefault(np.dtype(w.dtype), []).append((idx, g, w))
        size = self.optimizer.aggregate_num
        for group in by_dtype.values():
            for start in range(0, len(group), size):
                chunk = group[start:start + size]
                self.optimizer.update_multi_precision(
                    [c[0] for c in chunk], [c[2] for c in chunk], [c[1] for c in chunk],
                    [self.states[c[0]] for c in chunk])

    def _check_loaded_state(self, idx, weight):
        """A loaded state must have the layout this optimizer creates for this weight."""
        want = _layout(self.optimizer.create_state_multi_precision(idx, weight))
        got = _layout(self.states[idx])
        if want != got:
            name = self.optimizer.idx2name.get(idx, idx)
            raise OptimizerError('the optimizer state loaded for weight %r (index %r) does not fit %s on a '
                                 'weight of shape %s: it is %s, %s expects %s. Were the states saved with '
                                 'another optimizer or another network?'
                                 % (name, idx, type(self.optimizer).__name__, weight.shape, _describe(got),
                                    type(self.optimizer).__name__, _describe(want)))

    def sync_state_context(self, state, context):
        """``state`` (an NDArray, or nested tuples/lists of them) moved to ``context``."""
        return map_state(lambda a: a.as_in_context(context) if isinstance(a, NDArray) else a, state)

    def get_states(self, dump_optimizer=False):
        """Pickle bytes of ``{index: state}``; with ``dump_optimizer``, of ``(states, optimizer)``.

        The bytes are those MXNet 1.9.1 writes for the same states (see ``dumps_states``):
        MXNet loads reflib's ``.states`` files and reflib loads MXNet's.
        """
        return dumps_states(self.states, self.optimizer if dump_optimizer else None)

    def set_states(self, states):
        """Restore what ``get_states`` returned (reflib's, or MXNet 1.9.1's ``.states`` bytes).

        The arrays land on cpu(0) and move to each weight's context at its next update,
        where each is also checked against the state the optimizer would create for that
        weight: Adam's states given to SGD, or states of other shapes, are refused there,
        naming the weight, rather than failing inside the update.
        """
        try:
            loaded, optimizer = loads_states(states)
        except OptimizerError as err:
            raise OptimizerError('set_states: %s' % err) from None
        if optimizer is not None:
            self.optimizer = optimizer
            self.aggregate_updates = self.optimizer.aggregate_num > 0
        self.states = {k: _state_from_numpy(v) for k, v in loaded.items()}
        self.states_synced = dict.fromkeys(self.states, False)


def get_updater(optimizer):
    """The Updater (a callable ``updater(index, grad, weight)``) that applies ``optimizer``."""
    return Updater(optimizer)


def map_state(fn, state):
    """``fn`` applied to every leaf of an optimizer state: an array, or nested tuples/lists of them.

    A state is whatever ``create_state`` returned (None, one array, a tuple such as Adam's
    (mean, var), a float16 weight's (master copy, inner state)); the nesting is kept.
    """
    if isinstance(state, (tuple, list)):
        mapped = [map_state(fn, s) for s in state]
        return tuple(mapped) if isinstance(state, tuple) else mapped
    return fn(state)


def _state_to_numpy(state):
    """Every array of ``state`` as a numpy array (reflib's NDArrays and MXNet's pickled ones)."""
    def leaf(a):
        if isinstance(a, NDArray):
            return a.asnumpy()
        return a.values if isinstance(a, _MXNetPickledNDArray) else a
    return map_state(leaf, state)


def _state_from_numpy(state):
    def leaf(a):
        if isinstance(a, np.ndarray):
            return NDArray(a.copy(), cpu(0))
        return a.to_ndarray() if isinstance(a, _MXNetPickledNDArray) else a
    return map_state(leaf, state)


class _MXNetNDArrayClass:
    """Stands for the class ``mxnet.ndarray.ndarray.NDArray`` in a pickle that reflib writes."""


class _AsMXNetNDArray:
    """One array, pickled exactly as MXNet pickles its NDArray: ``NDArray(None)``, then the state
    ``{'handle': bytearray(<one array record of the .params format>)}``."""
    __slots__ = ('record',)

    def __init__(self, array):
        from .ndarray.serialize import _record
        host = NDArray(np.ascontiguousarray(array), cpu(0)) if isinstance(array, np.ndarray) else array
        if host.context.device_type == 'gpu':          # a file is read on machines without one
            host = host.as_in_context(cpu(0))
        self.record = b''.join(_record(host, 'an optimizer state', host.ndim == 0))

    def __reduce__(self):
        return _MXNetNDArrayClass, (None,), {'handle': bytearray(self.record)}


class _MXNetStatesPickler(pickle._Pickler):   # the Python pickler: its save_global can be overridden
    """Writes ``.states`` bytes that MXNet 1.9.1 unpickles into its own NDArrays (and reflib too,
    see _StatesUnpickler), whatever numpy reflib runs on: no numpy object is pickled."""

    def save_global(self, obj, name=None):
        if obj is _MXNetNDArrayClass:
            self.save('mxnet.ndarray.ndarray')
            self.save('NDArray')
            self.write(pickle.STACK_GLOBAL)
            self.memoize(obj)
            return
        super().save_global(obj, name)


def dumps_states(states, optimizer=None):
    """The ``.states`` bytes of ``{index: state}`` (and, given, the optimizer), as MXNet writes
    them: protocol 4, each array an MXNet NDArray.  MXNet reads the states alone; a pickled
    optimizer is reflib's class, which only reflib reads."""
    def leaf(a):
        if isinstance(a, (NDArray, np.ndarray)):
            return _AsMXNetNDArray(a)
        return _AsMXNetNDArray(a.to_ndarray()) if isinstance(a, _MXNetPickledNDArray) else a
    payload = {k: map_state(leaf, v) for k, v in states.items()}
    stream = io.BytesIO()
    _MXNetStatesPickler(stream, protocol=4).dump((payload, optimizer) if optimizer is not None else payload)
    return stream.getvalue()


def loads_states(data):
    """``{index: state}`` and the optimizer or None, from ``.states`` bytes written by reflib or
    by MXNet (arrays as pickled; ``_state_to_numpy`` or ``_state_from_numpy`` convert them);
    anything else is an OptimizerError."""
    try:
        loaded = _StatesUnpickler(data).load()
    except OptimizerError:
        raise
    except Exception as err:  # noqa: BLE001 - any failure to unpickle means: not a states file
        raise OptimizerError('these bytes are not saved optimizer states (%s: %s)'
                             % (type(err).__name__, err)) from None
    optimizer = None
    if isinstance(loaded, tuple) and len(loaded) == 2 and isinstance(loaded[1], Optimizer):
        loaded, optimizer = loaded
    if not isinstance(loaded, dict):
        raise OptimizerError('expected pickled optimizer states (a dict of index -> state), got %s'
                             % type(loaded).__name__)
    for index, state in loaded.items():
        _check_state_leaves(index, state)
    return loaded, optimizer


def _check_state_leaves(index, state):
    if isinstance(state, (tuple, list)):
        for part in state:
            _check_state_leaves(index, part)
    elif state is not None and not isinstance(state, (NDArray, np.ndarray, _MXNetPickledNDArray)):
        raise OptimizerError('the state saved for index %r holds a %s, not arrays' % (index, type(state).__name__))


def _describe(layout):
    if layout is None:
        return 'no state'
    if layout and all(isinstance(d, int) for d in layout) or layout == ():
        return 'an array of shape %s' % (layout,)
    return '(%s)' % ', '.join(_describe(part) for part in layout)


def _layout(state):
    """The structure of a state: nested tuples of array shapes (and dtypes) and Nones."""
    if isinstance(state, (tuple, list)):
        return tuple(_layout(part) for part in state)
    if state is None:
        return None
    values = state.values if isinstance(state, _MXNetPickledNDArray) else state
    return tuple(values.shape)


class _MXNetPickledNDArray:
    """Stand-in for ``mxnet.ndarray.NDArray`` while unpickling MXNet's ``.states`` bytes.

    MXNet pickles an NDArray as ``{'handle': <one array record of the .params format>}``.
    """

    def __init__(self, *args):
        self.values = None

    def __setstate__(self, state):
        from .ndarray.serialize import _Reader, _read_record
        raw = state.get('handle') if isinstance(state, dict) else None
        if raw is None:
            raise OptimizerError('set_states: an MXNet NDArray in the states has no data')
        self.values, self.dev_type, self.dev_id = _read_record(_Reader(bytes(raw), 'a pickled MXNet NDArray'))

    def to_ndarray(self):
        """The array on the CPU device it was saved from (cpu, cpu_pinned, cpu_shared), else cpu(0)."""
        from .context import Context
        cpu_like = Context.devtype2str.get(self.dev_type) in ('cpu', 'cpu_pinned', 'cpu_shared')
        return NDArray(self.values, Context(self.dev_type, self.dev_id) if cpu_like else cpu(0))


_NUMPY_GLOBALS = {(m, n) for m in ('numpy.core.multiarray', 'numpy._core.multiarray')
                  for n in ('_reconstruct', 'scalar')} | {('numpy', 'ndarray'), ('numpy', 'dtype')}


def _bytearray_of_bytes(data=b''):
    if not isinstance(data, (bytes, bytearray)):
        raise pickle.UnpicklingError('bytearray(%s) in a states file: only bytes are expected'
                                     % type(data).__name__)
    return bytearray(data)


class _StatesUnpickler(pickle.Unpickler):
    """Unpickles reflib's states and MXNet's: ``mxnet.*`` classes map to their reflib twins."""

    def __init__(self, data):
        import io
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise OptimizerError('set_states expects the bytes returned by get_states, got %s'
                                 % type(data).__name__)
        super().__init__(io.BytesIO(bytes(data)))

    def find_class(self, module, name):
        # Only what a states file holds: arrays (MXNet's NDArray records, or the numpy arrays
        # of older reflib files), bytearrays, and an optimizer with its lr scheduler.  Any
        # other global is refused: a damaged or hostile file cannot call arbitrary code,
        # nor bytearray(2**40).
        if module.split('.')[0] != 'mxnet':
            if (module, name) == ('builtins', 'bytearray'):
                return _bytearray_of_bytes
            if (module, name) in _NUMPY_GLOBALS:
                return super().find_class(module, name)
            if module in ('reflib.optimizer', 'reflib.optimizer.optimizer', 'reflib.lr_scheduler'):
                found = super().find_class(module, name)
                from .lr_scheduler import LRScheduler
                if isinstance(found, type) and issubclass(found, (Optimizer, LRScheduler)):
                    return found
            raise pickle.UnpicklingError('a states file holds arrays and an optimizer, not %s.%s'
                                         % (module, name))
        if name == 'NDArray' and module.startswith('mxnet.ndarray'):
            return _MXNetPickledNDArray
        from . import lr_scheduler
        twins = {'mxnet.optimizer.optimizer': globals(), 'mxnet.optimizer': globals(),
                 'mxnet.lr_scheduler': vars(lr_scheduler)}
        found = twins.get(module, {}).get(name)
        if isinstance(found, type):
            return found
        raise OptimizerError('set_states: the saved states need MXNet\'s %s.%s, which reflib does '
                             'not implement' % (module, name))
