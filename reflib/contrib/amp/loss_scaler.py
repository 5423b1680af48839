"""The dynamic loss scale of AMP training.

float16 gradients underflow to zero when they are small, so the loss is multiplied by a
large scale before ``backward`` and the gradients divided by it again before the update.
Too large a scale makes some gradient overflow (inf or NaN); then that step is skipped and
the scale halved.  After a long run of clean steps the scale is doubled again, to stay as
large as the gradients allow.  The numbers are MXNet 1.9.1's: start at 2**16, double after
2000 clean steps, never above 2**24.
"""

import logging

from ... import autograd
from ... import ndarray

# the most arrays checked by one multi_all_finite call (MXNet checks in chunks of this size)
_CHUNK = 200


class LossScaler:
    """The current loss scale, and the rule that moves it from step to step.

    ``has_overflow(params)`` is called once per step, before the update: it reports whether
    the gradients of ``params`` (gluon Parameters) hold an inf or NaN and sets the scale the
    *next* step uses.  A scale decided at step k takes effect at step k+1, as in MXNet:
    ``loss_scale`` is the scale the current step's loss was multiplied by.
    """

    def __init__(self, init_scale=2. ** 16, max_scale=2. ** 24, scale_window=2000):
        self._loss_scale = init_scale
        self._next_loss_scale = init_scale
        self._max_loss_scale = max_scale
        self._scale_seq_len = scale_window
        self._unskipped = 0

    @property
    def loss_scale(self):
        """The factor this step's loss is multiplied by (and its gradients divided by): a
        power of two, 2**16 at first, moved only by ``update``/``has_overflow`` (read-only)."""
        return self._loss_scale

    def has_overflow(self, params):
        """Whether any gradient of ``params`` is not finite; moves the scale accordingly."""
        grads = [p._grad[0] for p in params if p._grad is not None]
        return self.update(not self._all_finite(grads))

    @staticmethod
    def _all_finite(grads):
        if not grads:
            return True
        with autograd.pause():
            flag = ndarray.ones((1,), ctx=grads[0].context)
            for start in range(0, len(grads), _CHUNK):
                chunk = grads[start:start + _CHUNK]
                # init_output=False: each chunk ANDs its answer into the running flag
                ndarray.multi_all_finite(*chunk, num_arrays=len(chunk), init_output=False, out=flag)
        return bool(flag.asnumpy()[0])

    def update(self, overflow):
        """Take one step's verdict (``overflow``: its gradients were not finite); returns it.

        The scale this step used becomes current; an overflow halves the next one and
        restarts the count of clean steps, and ``scale_window`` clean steps in a row double
        it (up to the maximum).
        """
        self._loss_scale = self._next_loss_scale
        if overflow:
            self._next_loss_scale = self._loss_scale / 2.
            self._unskipped = 0
            logging.info('AMP: decreasing loss scale to %f', self._next_loss_scale)
        else:
            self._unskipped += 1
        if self._unskipped == self._scale_seq_len:
            self._unskipped = 0
            self._next_loss_scale = min(self._max_loss_scale, self._loss_scale * 2.)
            logging.info('AMP: increasing loss scale to %f', self._next_loss_scale)
        return overflow
