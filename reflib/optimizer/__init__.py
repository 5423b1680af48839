"""Optimizers and the updater: ``mx.optimizer`` (also ``mx.opt``).

An optimizer turns a gradient into a change of a weight, in place, one weight (an
``index``) at a time, keeping per-weight *state*; ``Updater`` applies it for a KVStore or
Module and saves the states.  Every optimizer MXNet 1.9.1 registers is here, under the
same name (``mx.optimizer.create('lamb')``), with MXNet's hyperparameter names and
defaults:

optimizer  the base class ``Optimizer``, ``register``/``create`` and the helpers the
           formulas share
sgd        SGD (ccSGD), NAG, Signum, SGLD, DCASGD, Test
adam       Adam, Adamax, Nadam, FTML
adaptive   AdaGrad, RMSProp, AdaDelta, Ftrl
lars       LARS, LBSGD, LAMB (per-weight trust ratios)
contrib    GroupAdaGrad
updater    Updater, get_updater, and the ``.states`` bytes (dumps_states/loads_states)

Where the knobs enter (MXNet 1.9.1, checked against it number by number; see
tests/golden/gen_optimizer.py):

* ``rescale_grad`` multiplies the raw gradient first (Module sets it to
  ``1/batch_size``), then ``clip_gradient`` clips the result to
  ``[-clip_gradient, clip_gradient]``.
* Weight decay ``wd * weight`` is added after clipping for SGD, NAG, AdaGrad, DCASGD and
  SGLD, but before clipping (so it is clipped too) for Adam, Adamax, Nadam, FTML and
  RMSProp; LAMB adds it to the Adam direction; Signum puts it in the momentum; Ftrl
  divides by it; AdaDelta subtracts ``wd * weight`` from the weight directly.
* The optimizers MXNet runs as C++ kernels (SGD, NAG, Adam, RMSProp, Signum, FTML, Ftrl,
  LAMB, LARS, LBSGD) treat ``clip_gradient`` of ``None``, ``0`` or a negative number as
  "no clipping"; those MXNet writes in Python (AdaGrad, AdaDelta, Adamax, Nadam, SGLD,
  DCASGD, GroupAdaGrad) clip whenever it is not ``None`` (``0`` zeroes the gradient).
* The learning rate of weight ``i`` is ``learning_rate * lr_mult(i)``, the weight decay
  ``wd * wd_mult(i)``; see ``Optimizer.set_lr_mult``.
* ``learning_rate`` comes from the ``lr_scheduler`` when there is one, called with
  ``num_update`` *after* this update was counted (1 for the first batch; LBSGD reads it
  before counting).

Sparse gradients (MXNet 1.9.1's behaviour, checked in tests/golden/gen_optimizer_sparse.py):
a row_sparse gradient for a dense weight, such as an Embedding's with ``sparse_grad=True``,
gets MXNet's sparse kernels where it has them: SGD and Adam update only the gradient's rows
(weight and states) with ``lazy_update=True``, their default, and every row with
``lazy_update=False``; AdaGrad and GroupAdaGrad update the gradient's rows only (AdaGrad then
refuses weight decay); NAG without momentum and LBSGD run SGD's lazy kernels, LARS SGD's
sparse kernels as its ``lazy_update`` says.  Every other optimizer, and SGD under
multi_precision, updates as if given the dense gradient (MXNet's "storage fallback"), so
rows absent from the gradient still get weight decay and momentum.  States are dense for
a dense weight.  A row_sparse *weight* is updated when it stores every row (a KVStore's, or
one an initializer filled: its values are the dense weight), as MXNet's kernels require; a
CSR weight is updated through its dense form.

The per-optimizer update formulas are written out in each class.
"""

from .optimizer import Optimizer, OptimizerError, LRSchedulerConflict, register, create
from .sgd import SGD, ccSGD, NAG, Signum, SGLD, DCASGD, Test
from .adam import Adam, Adamax, Nadam, FTML
from .adaptive import AdaGrad, RMSProp, AdaDelta, Ftrl
from .lars import LARS, LBSGD, LAMB
from . import contrib
from .contrib import GroupAdaGrad
from .updater import (Updater, get_updater, map_state, dumps_states, loads_states,
                      _state_to_numpy, _state_from_numpy)

__all__ = ['Optimizer', 'SGD', 'ccSGD', 'NAG', 'Signum', 'SGLD', 'DCASGD', 'Test', 'Adam', 'Adamax',
           'Nadam', 'FTML', 'AdaGrad', 'RMSProp', 'AdaDelta', 'Ftrl', 'LARS', 'LBSGD', 'LAMB',
           'GroupAdaGrad', 'Updater', 'get_updater', 'create', 'register', 'OptimizerError',
           'dumps_states', 'loads_states', 'map_state']
