"""IntervalSampler: every ``interval``-th index, then (with ``rollover``) the ones skipped."""

from ...data.sampler import Sampler
from ...parameter import GluonAssertionError

__all__ = ['IntervalSampler']


class IntervalSampler(Sampler):
    """The indices of ``[0, length)`` taken ``interval`` apart: 0, k, 2k, ...; with
    ``rollover`` (the default) then 1, k+1, ... and so on until every index came once.
    A language model reads its batches so, each row of a batch continuing a stretch of text.

    ``len()`` is ``length`` even without rollover, where fewer indices come (as in MXNet
    1.9.1)."""

    def __init__(self, length, interval, rollover=True):
        if interval > length:
            raise GluonAssertionError('IntervalSampler: interval %d must not exceed length %d' % (interval, length))
        self._length, self._interval, self._rollover = length, interval, rollover

    def __iter__(self):
        for start in range(self._interval if self._rollover else 1):
            yield from range(start, self._length, self._interval)

    def __len__(self):
        return self._length
