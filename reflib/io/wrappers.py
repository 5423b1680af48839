"""Iterators that wrap another iterator: ``ResizeIter`` (a fixed number of batches per epoch).

``PrefetchingIter`` (reading ahead in threads) is in prefetch.py.
"""

from .dataiter import BatchAtHand, DataIter

__all__ = ['ResizeIter']


class ResizeIter(BatchAtHand, DataIter):
    """Make ``data_iter`` last exactly ``size`` batches per epoch.

    When the wrapped iterator runs out it is reset and read on, so an epoch may end
    part-way through the wrapped one; the next epoch then goes on from there unless
    ``reset_internal`` (the default) resets the wrapped iterator too.  Batches are the
    wrapped iterator's own (``pad`` included).  As in MXNet 1.9.1.

    >>> base = mx.io.NDArrayIter(np.arange(6).reshape(6, 1), batch_size=2)
    >>> it = mx.io.ResizeIter(base, 4, reset_internal=False)
    >>> [b.data[0].asnumpy()[0, 0].item() for b in it]
    [0.0, 2.0, 4.0, 0.0]
    >>> it.reset()
    >>> [b.data[0].asnumpy()[0, 0].item() for b in it]
    [2.0, 4.0, 0.0, 2.0]
    """

    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__(data_iter.batch_size)
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        if hasattr(data_iter, 'default_bucket_key'):
            # a BucketingModule binds its default bucket from this
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        """Start a new epoch of ``size`` batches; the wrapped iterator is reset too only when
        ``reset_internal`` is on, otherwise it goes on from where the last epoch stopped.
        """
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        """Read the wrapped iterator's next batch into ``current_batch``, resetting it first
        when it has run out.  True while fewer than ``size`` batches were read this epoch,
        False after that.
        """
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True
