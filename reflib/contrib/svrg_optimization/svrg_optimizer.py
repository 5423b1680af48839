"""The two optimizers SVRGModule installs (``mx.contrib.svrg_optimization.svrg_optimizer``).

SVRG keeps, next to every parameter ``w``, one more array per parameter: the *full gradient*
``mu``, the average gradient over the whole data set at the snapshot weights ``w~``.  In
distributed training ``mu`` is summed in the KVStore under the key ``NAME + '_full'``, so the
store's updater meets two kinds of keys:

* a parameter key (``'fc1_weight'``): a real gradient step, done by the user's optimizer
  (SGD, Adam, ...);
* a full-gradient key (``'fc1_weight_full'``): no step at all; the store should simply *hold*
  the summed full gradient, so that every worker can pull it back.

``_SVRGOptimizer`` is the store's one optimizer and sends each key to the right one of two
inner optimizers: ``default_opt`` (the user's) and ``aux_opt``, an ``_AssignmentOptimizer``
whose "update" is ``weight[:] = grad``.  Both are registered like every optimizer
(``mx.optimizer.create('_SVRGOptimizer', default_optimizer='sgd', ...)``), as in MXNet 1.9.1.

>>> import reflib as mx
>>> from reflib.contrib.svrg_optimization.svrg_optimizer import _SVRGOptimizer
>>> opt = _SVRGOptimizer(default_optimizer='sgd', learning_rate=0.5,
...                      param_idx2name={0: 'w', 1: 'w_full'})
>>> w, g = mx.nd.array([1.0, 1.0]), mx.nd.array([2.0, 4.0])
>>> opt.update(0, w, g, opt.create_state(0, w))      # 'w': an SGD step, w - 0.5 * g
>>> w.asnumpy().tolist()
[0.0, -1.0]
>>> opt.update(1, w, g, opt.create_state(1, w))      # 'w_full': the store just keeps g
>>> w.asnumpy().tolist()
[2.0, 4.0]
"""

from ...optimizer import Optimizer, OptimizerError, register, create

__all__ = ['_SVRGOptimizer', '_AssignmentOptimizer']

# the keyword arguments the base Optimizer takes: the wrapper keeps these for itself (so that
# rescale_grad, idx2name, ... read the same on it as on the optimizer it wraps); every keyword,
# these and the rest (momentum, beta1, ...), goes on to the wrapped optimizer
_BASE_PARAMS = ('rescale_grad', 'param_idx2name', 'wd', 'clip_gradient', 'learning_rate',
                'lr_scheduler', 'sym', 'begin_num_update', 'multi_precision', 'param_dict')

# the suffix that marks a full-gradient key in the KVStore
FULL_SUFFIX = '_full'


class SVRGKeyError(OptimizerError, KeyError):
    """_SVRGOptimizer was handed an index it has no name for (MXNet raises a bare KeyError)."""


@register
class _AssignmentOptimizer(Optimizer):
    """The "optimizer" of the full-gradient keys: the weight becomes the gradient.

    A KVStore with an optimizer never stores what is pushed; it runs
    ``updater(key, summed_push, stored)``.  Making that update an assignment turns the
    store into a plain accumulator for the full gradients: after a push of every device's
    (and worker's) average gradient, the stored value is their sum, ready to be pulled.
    The gradient is used as it is: no ``rescale_grad``, no clipping, no weight decay.
    """

    def update(self, index, weight, grad, state):
        """``weight[:] = grad`` (``state`` is None: there is nothing to remember)."""
        weight[:] = grad


@register
class _SVRGOptimizer(Optimizer):
    """Routes every key to the user's optimizer, or, for a full-gradient key, to assignment.

    Parameters
    ----------
    default_optimizer : str or Optimizer
        The optimizer that takes the SVRG steps: a registered name (built with every
        keyword given here) or an Optimizer instance (used as it is).
    **kwargs
        The base Optimizer's keywords (``learning_rate``, ``rescale_grad``,
        ``param_idx2name``, ...) configure this wrapper *and* a named default optimizer;
        any other keyword (``momentum``, ...) only the default optimizer.

    A key is a full-gradient key when its name is ``P + '_full'`` for a parameter ``P``
    that ``param_idx2name`` also names (SVRGModule names them so).  The keys arrive as
    indices (a local updater) or as names (a KVStore whose keys are parameter names).
    """

    def __init__(self, default_optimizer, **kwargs):
        super().__init__(**{key: value for key, value in kwargs.items() if key in _BASE_PARAMS})
        if isinstance(default_optimizer, str):
            self.default_opt = create(default_optimizer, **kwargs)
        elif isinstance(default_optimizer, Optimizer):
            self.default_opt = default_optimizer
        else:
            raise OptimizerError('_SVRGOptimizer: default_optimizer must be an optimizer name or an Optimizer, '
                                 'got %s' % type(default_optimizer).__name__)
        self.aux_opt = create(_AssignmentOptimizer.__name__)

    def _name_of(self, index):
        """The parameter name behind ``index``, which may be an index or already a name."""
        if index in self.idx2name.values():
            return index
        if index in self.idx2name:
            return self.idx2name[index]
        raise SVRGKeyError('_SVRGOptimizer: no parameter name for index %r: param_idx2name knows %s'
                           % (index, sorted(self.idx2name.items(), key=str)))

    def _is_full_key(self, name):
        # MXNet 1.9.1 tests `'full' in name`, which also catches an ordinary parameter such as
        # 'fullyconnected0_weight' (the default name of a FullyConnected layer) and would then
        # *assign* its gradient to it; here only 'P_full' for a named parameter P qualifies
        if not name.endswith(FULL_SUFFIX):
            return False
        return name[:-len(FULL_SUFFIX)] in self.idx2name.values()

    def _pick(self, index):
        return self.aux_opt if self._is_full_key(self._name_of(index)) else self.default_opt

    def create_state(self, index, weight):
        """The chosen optimizer's state (None for a full-gradient key)."""
        return self._pick(index).create_state(index, weight)

    def update(self, index, weight, grad, state):
        """A step of the user's optimizer, or an assignment for a full-gradient key."""
        self._pick(index).update(index, weight, grad, state)

    def _set_current_context(self, device_id):
        # the Updater announces the device to the optimizer it holds: pass it on, so that the
        # wrapped optimizer counts its updates per device as it would on its own
        super()._set_current_context(device_id)
        self.default_opt._set_current_context(device_id)
