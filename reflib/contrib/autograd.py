"""``mx.contrib.autograd``: the first, experimental form of MXNet's autograd (before
``mx.autograd``), kept by MXNet 1.x for old scripts.  Here it is a thin layer over
``mx.autograd`` -- the same tape -- with the older names:

* ``train_section()`` records *and* trains, ``test_section()`` does neither (the old API has
  one flag for both, ``set_is_training``);
* ``grad_and_loss(func, argnum)`` turns a function of NDArrays into one that also returns the
  gradients of its output with respect to the arguments ``argnum`` names (all by default);
  ``grad(func, argnum)`` returns only the gradients;
* ``compute_gradient(outputs)`` is ``backward(outputs)``.
"""

import functools

from .. import autograd as _autograd
from ..base import MXNetError
from ..ndarray import NDArray
from ..ndarray import tape as _tape

__all__ = ['set_is_training', 'TrainingStateScope', 'train_section', 'test_section', 'mark_variables',
           'backward', 'compute_gradient', 'grad_and_loss', 'grad']

mark_variables = _autograd.mark_variables


def set_is_training(is_train):
    """Turn recording and training on or off together; returns the previous setting."""
    before = _tape.is_training()
    _tape.set_recording(bool(is_train))
    _tape.set_training(bool(is_train))
    return before


class TrainingStateScope:
    """A ``with`` block inside which recording and training are both ``enter_state``."""

    def __init__(self, enter_state):
        self._enter_state = enter_state
        self._scope = None

    def __enter__(self):
        self._scope = _autograd._scope(self._enter_state, self._enter_state)
        self._scope.__enter__()

    def __exit__(self, *exc):
        self._scope.__exit__(*exc)
        return False


def train_section():
    """Record the block's operator calls, in training mode."""
    return TrainingStateScope(True)


def test_section():
    """Neither record nor train in the block."""
    return TrainingStateScope(False)


def backward(outputs, out_grads=None, retain_graph=False):
    """Differentiate ``outputs`` into their variables' gradient arrays; an entry of
    ``out_grads`` may be None (a head gradient of ones)."""
    _autograd.backward(outputs, out_grads, retain_graph)


def compute_gradient(outputs):
    """``backward(outputs)`` under its older name."""
    backward(outputs)


def grad_and_loss(func, argnum=None):
    """``func`` made to return ``(gradients, output)``: the gradients of its output with
    respect to the positional arguments ``argnum`` (an int or a list; all by default), each
    of which must be an NDArray."""
    @functools.wraps(func)
    def wrapped(*args):
        chosen = list(range(len(args))) if argnum is None else (
            [argnum] if isinstance(argnum, int) else list(argnum))
        variables = [args[i] for i in chosen]
        for i, var in zip(chosen, variables):
            if not isinstance(var, NDArray):
                raise MXNetError('grad_and_loss: argument %d is a %s; only NDArray arguments can be '
                                 'differentiated (argnum=%r)' % (i, type(var).__name__, argnum))
        grads = [var.zeros_like() for var in variables]
        mark_variables(variables, grads)
        with train_section():
            outputs = func(*args)
        backward([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func, argnum=None):
    """``func`` made to return only the gradients of ``grad_and_loss``."""
    with_loss = grad_and_loss(func, argnum)

    @functools.wraps(func)
    def wrapped(*args):
        return with_loss(*args)[0]
    return wrapped
