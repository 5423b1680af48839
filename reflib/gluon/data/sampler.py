"""Samplers: which sample indices a pass over a dataset visits, and in what order.

A sampler is an iterable of indices with a length.  ``DataLoader`` draws one index per
sample from a sampler (``SequentialSampler`` or, with ``shuffle=True``, ``RandomSampler``)
and groups them into mini-batches with a ``BatchSampler``.

>>> from reflib.gluon.data import SequentialSampler, BatchSampler
>>> list(SequentialSampler(4, start=2))
[2, 3, 4, 5]
>>> list(BatchSampler(SequentialSampler(7), 3, 'keep'))
[[0, 1, 2], [3, 4, 5], [6]]
>>> list(BatchSampler(SequentialSampler(7), 3, 'discard'))
[[0, 1, 2], [3, 4, 5]]

``RandomSampler`` shuffles with numpy's global generator (``np.random.shuffle`` of
``np.arange(length)``), as MXNet 1.9.1 does, so after the same ``np.random.seed`` reflib and
MXNet visit the samples in the same order; its indices are numpy int64 values.

With ``last_batch='rollover'`` the samples left over at the end of a pass open the next
pass, so the length of a ``BatchSampler`` can change from one pass to the next:

>>> rolling = BatchSampler(SequentialSampler(5), 2, 'rollover')
>>> list(rolling), len(rolling)
([[0, 1], [2, 3]], 3)
>>> list(rolling)
[[4, 0], [1, 2], [3, 4]]

MXNet 1.9.1 has no ``IntervalSampler`` (it came with MXNet 2.0), and neither has reflib.
"""

import numbers

import numpy as np

__all__ = ['Sampler', 'SequentialSampler', 'RandomSampler', 'FilterSampler', 'BatchSampler']

_LAST_BATCH = ('keep', 'discard', 'rollover')


class Sampler:
    """What every sampler provides: ``__iter__`` (the indices) and ``__len__`` (how many)."""

    def __iter__(self):
        raise NotImplementedError('%s must define __iter__' % type(self).__name__)

    def __len__(self):
        raise NotImplementedError('%s must define __len__' % type(self).__name__)


class SequentialSampler(Sampler):
    """The indices ``start, start + 1, ..., start + length - 1`` in order."""

    def __init__(self, length, start=0):
        self._length = length
        self._start = start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """Each of ``0 .. length-1`` once, in a new random order on every pass.

    The order comes from numpy's global generator, drawn when a pass begins.
    """

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        order = np.arange(self._length)
        np.random.shuffle(order)
        return iter(order)

    def __len__(self):
        return self._length


class FilterSampler(Sampler):
    """The indices of the samples of ``dataset`` for which ``fn(sample)`` is true.

    Every sample is read once, here, to decide; the indices are kept.
    """

    def __init__(self, fn, dataset):
        self._fn = fn
        self._dataset = dataset
        self._indices = [i for i in range(len(dataset)) if fn(dataset[i])]

    def __iter__(self):
        return iter(self._indices)

    def __len__(self):
        return len(self._indices)


def _check_last_batch(last_batch):
    if last_batch not in _LAST_BATCH:
        raise ValueError("last_batch must be 'keep', 'discard' or 'rollover', got %r" % (last_batch,))


class BatchSampler(Sampler):
    """Mini-batches (lists of indices) of ``batch_size`` indices drawn from ``sampler``.

    ``last_batch`` says what happens to a last batch with fewer than ``batch_size``
    indices: ``'keep'`` hands it out as it is, ``'discard'`` drops it, ``'rollover'`` keeps
    its indices and puts them at the front of the next pass.

    As in MXNet, a ``last_batch`` outside these three is reported (ValueError) only when it
    is needed: by ``len()``, or at the end of a pass that leaves an incomplete batch.
    """

    def __init__(self, sampler, batch_size, last_batch='keep'):
        if (isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Real)
                or batch_size != int(batch_size) or batch_size < 1):
            raise ValueError('batch_size must be a whole number of at least 1, got %r' % (batch_size,))
        self._sampler = sampler
        self._batch_size = int(batch_size)
        self._last_batch = last_batch
        self._prev = []          # the indices a 'rollover' pass left for the next one

    def __iter__(self):
        batch, self._prev = self._prev, []
        for index in self._sampler:
            batch.append(index)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if not batch:
            return
        _check_last_batch(self._last_batch)
        if self._last_batch == 'keep':
            yield batch
        elif self._last_batch == 'rollover':
            self._prev = batch

    def __len__(self):
        _check_last_batch(self._last_batch)
        size = self._batch_size
        if self._last_batch == 'keep':
            return -(-len(self._sampler) // size)
        if self._last_batch == 'discard':
            return len(self._sampler) // size
        return (len(self._prev) + len(self._sampler)) // size
