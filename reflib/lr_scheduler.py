"""Learning-rate schedules: ``mx.lr_scheduler``.

A scheduler is a callable ``sched(num_update) -> lr``.  The optimizer calls it
before every update with ``num_update``, the largest number of updates any
single weight has received so far (so with several weights updated once per
batch, ``num_update`` is the batch count, starting at 1 for the first batch).

Two facts shape everything below, and both are MXNet 1.9.1 behaviour:

* **Schedulers keep state.**  ``FactorScheduler`` and ``MultiFactorScheduler``
  lower ``self.base_lr`` step by step as ``num_update`` grows and never raise
  it again; ``PolyScheduler`` and ``CosineScheduler`` overwrite
  ``self.base_lr`` with the last value computed up to ``max_update`` and
  return that value from then on.  Asking for an earlier ``num_update`` does
  not rewind anything.
* **Warm-up comes first.**  For ``num_update < warmup_steps`` every scheduler
  returns the warm-up rate (a straight line from ``warmup_begin_lr`` up to the
  ``base_lr`` given at construction, or the constant ``warmup_begin_lr``)
  without touching its state.

When an optimizer is given both ``learning_rate`` and ``lr_scheduler``, it
writes ``learning_rate`` into ``lr_scheduler.base_lr`` (see
``reflib.optimizer.Optimizer``).  Only that attribute changes: the warm-up
target and the starting rate that ``PolyScheduler``/``CosineScheduler``
remembered at construction keep the scheduler's own ``base_lr``, so for those
two the optimizer's ``learning_rate`` is in effect ignored.  reflib keeps this
quirk because real scripts depend on the numbers it gives.
"""

import logging
import math

__all__ = ['LRScheduler', 'FactorScheduler', 'MultiFactorScheduler', 'PolyScheduler',
           'CosineScheduler']


class LRScheduler:
    """Base class: holds ``base_lr`` and the warm-up settings.

    Parameters
    ----------
    base_lr : float
        The learning rate the schedule starts from (after warm-up).
    warmup_steps : int
        For ``num_update < warmup_steps`` the warm-up rate is returned.
    warmup_begin_lr : float
        The warm-up's first rate; must not exceed ``base_lr``.
    warmup_mode : {'linear', 'constant'}
        ``'linear'`` climbs in equal increments from ``warmup_begin_lr``
        towards ``base_lr``; ``'constant'`` stays at ``warmup_begin_lr``.
    """

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        if not isinstance(warmup_steps, int):
            raise TypeError('warmup_steps must be an int, got %r' % (warmup_steps,))
        if warmup_steps < 0:
            raise ValueError('warmup_steps must be 0 or positive, got %d' % warmup_steps)
        if warmup_begin_lr > base_lr:
            raise ValueError('warmup_begin_lr (%g) must not be larger than base_lr (%g)'
                             % (warmup_begin_lr, base_lr))
        if warmup_mode not in ('linear', 'constant'):
            raise ValueError("warmup_mode must be 'linear' or 'constant', got %r" % (warmup_mode,))
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        # the warm-up aims at the base rate given now, even if base_lr is changed later
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        """The rate during warm-up (``num_update < warmup_steps``)."""
        if num_update >= self.warmup_steps:
            raise ValueError('get_warmup_lr: num_update %d is past the %d warm-up steps'
                             % (num_update, self.warmup_steps))
        if self.warmup_mode == 'constant':
            return self.warmup_begin_lr
        span = self.warmup_final_lr - self.warmup_begin_lr
        return self.warmup_begin_lr + span * float(num_update) / float(self.warmup_steps)

    def __call__(self, num_update):
        raise NotImplementedError('%s must define __call__(num_update)' % type(self).__name__)

    def __repr__(self):
        return '%s(base_lr=%g)' % (type(self).__name__, self.base_lr)


class FactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` every ``step`` updates, never going below ``stop_factor_lr``.

    The drops happen when ``num_update`` *exceeds* ``step``, ``2*step``, ...:
    with ``step=3`` the updates 1, 2, 3 use ``base_lr``, updates 4, 5, 6 use
    ``base_lr * factor``, and so on.  A jump in ``num_update`` (resuming
    training) applies all the missed drops at once.

    >>> s = FactorScheduler(step=3, factor=0.5, base_lr=1.0)
    >>> [s(n) for n in range(1, 8)]
    [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25]
    """

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01,
                 warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError('FactorScheduler: step must be at least 1, got %r' % (step,))
        if factor > 1.0:
            raise ValueError('FactorScheduler: factor must be at most 1 (the rate only decreases), '
                             'got %r' % (factor,))
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0          # the update count at which the last drop happened

    # drops applied one multiplication at a time, as MXNet does (same bits); beyond this many
    # in one call (a resumed count of 10**15, say: MXNet loops for ever) the rest in one power
    _STEPWISE_DROPS = 100000

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        for _ in range(self._STEPWISE_DROPS):
            if not num_update > self.count + self.step:
                return self.base_lr
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
                logging.info('Update[%d]: learning rate reached its floor %0.5e and stays there',
                             num_update, self.base_lr)
            else:
                logging.info('Update[%d]: learning rate changed to %0.5e', num_update, self.base_lr)
        drops = (num_update - self.count - 1) // self.step
        if drops > 0:
            self.count += drops * self.step
            self.base_lr = max(self.base_lr * self.factor ** drops, self.stop_factor_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` each time ``num_update`` passes one of the ``step`` milestones.

    ``step`` is an increasing list; the drop for milestone ``s`` applies from
    update ``s + 1`` on (``num_update > s``).

    >>> s = MultiFactorScheduler(step=[2, 4], factor=0.1, base_lr=1.0)
    >>> [round(s(n), 6) for n in range(1, 7)]
    [1.0, 1.0, 0.1, 0.1, 0.01, 0.01]
    """

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode='linear'):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(step, list) or not step:
            raise TypeError('MultiFactorScheduler: step must be a non-empty list of ints, got %r'
                            % (step,))
        for i, s in enumerate(step):
            if i and s <= step[i - 1]:
                raise ValueError('MultiFactorScheduler: steps must increase, got %r' % (step,))
            if s < 1:
                raise ValueError('MultiFactorScheduler: every step must be at least 1, got %r'
                                 % (step,))
        if factor > 1.0:
            raise ValueError('MultiFactorScheduler: factor must be at most 1, got %r' % (factor,))
        self.step = step
        self.cur_step_ind = 0   # the next milestone to pass
        self.factor = factor
        self.count = 0          # the last milestone passed

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind < len(self.step) and num_update > self.step[self.cur_step_ind]:
            self.count = self.step[self.cur_step_ind]
            self.cur_step_ind += 1
            self.base_lr *= self.factor
            logging.info('Update[%d]: learning rate changed to %0.5e', num_update, self.base_lr)
        return self.base_lr


class _DecayScheduler(LRScheduler):
    """Warm-up, then a decay from ``base_lr`` to ``final_lr`` over ``max_update`` updates;
    later calls return the last rate computed."""

    def __init__(self, max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        name = type(self).__name__
        if not isinstance(max_update, int):
            raise TypeError('%s: max_update must be an int, got %r' % (name, max_update))
        if max_update < 1:
            raise ValueError('%s: max_update must be positive, got %d' % (name, max_update))
        self.base_lr_orig = self.base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def _decayed(self, done):
        """The rate after ``done`` post-warm-up updates (each subclass keeps its formula's
        exact order of operations, so the numbers stay MXNet's to the last bit)."""
        raise NotImplementedError

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            self.base_lr = self._decayed(num_update - self.warmup_steps)
        return self.base_lr


class PolyScheduler(_DecayScheduler):
    """Polynomial decay from ``base_lr`` to ``final_lr`` over ``max_update`` updates.

    After warm-up::

        lr = final_lr + (base_lr - final_lr) * (1 - (n - warmup_steps) / (max_update - warmup_steps)) ** pwr

    for ``n <= max_update``; later calls return the last rate computed.
    """

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0,
                 warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        self.power = pwr

    def _decayed(self, done):
        remaining = 1 - float(done) / float(self.max_steps)
        return self.final_lr + (self.base_lr_orig - self.final_lr) * pow(remaining, self.power)


class CosineScheduler(_DecayScheduler):
    """Half a cosine from ``base_lr`` down to ``final_lr`` over ``max_update`` updates.

    After warm-up::

        lr = final_lr + (base_lr - final_lr) * (1 + cos(pi * (n - warmup_steps) / (max_update - warmup_steps))) / 2

    for ``n <= max_update``; later calls return the last rate computed.
    """

    def __init__(self, max_update, base_lr=0.01, final_lr=0,
                 warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr, warmup_mode)

    def _decayed(self, done):
        phase = math.pi * done / self.max_steps
        return self.final_lr + (self.base_lr_orig - self.final_lr) * (1 + math.cos(phase)) / 2
