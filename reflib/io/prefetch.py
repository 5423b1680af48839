"""``PrefetchingIter``: read the next batch in a background thread while the current one is used.

One thread per wrapped iterator, as in MXNet 1.9.1.  Each thread holds at most one
batch ahead: it waits until its last batch was taken, reads the next, and signals
that it is ready.  A batch of the ``PrefetchingIter`` joins one batch of every wrapped
iterator: their data lists one after another, their label lists likewise, the first
iterator's ``pad`` and ``index``.

The batches are the wrapped iterators' own, in their order: prefetching changes when
a batch is read, never which.

It never hangs on its own account: the threads are daemons, every wait is in short
timed slices that notice a stopped or dead thread, an exception in a wrapped
iterator is re-raised in the caller's thread at the batch it belongs to, and
``close()`` (also run by ``__del__``) stops and joins the threads.

Names and layouts: ``rename_data``/``rename_label`` give one ``{old: new}`` dict per
wrapped iterator.  As in MXNet, a renamed ``DataDesc`` keeps name, shape and dtype
but not the layout (it becomes the default 'NCHW').

>>> a = mx.io.NDArrayIter(np.zeros((4, 2)), batch_size=2)
>>> b = mx.io.NDArrayIter(np.ones((4, 3)), batch_size=2)
>>> it = mx.io.PrefetchingIter([a, b], rename_data=[{'data': 'x'}, {'data': 'y'}])
>>> [(d.name, d.shape) for d in it.provide_data]
[('x', (2, 2)), ('y', (2, 3))]
>>> [[d.shape for d in batch.data] for batch in it]
[[(2, 2), (2, 3)], [(2, 2), (2, 3)]]
"""

import threading

from ..base import MXNetError
from .dataiter import BatchAtHand, DataBatch, DataDesc, DataIter, data_descs

__all__ = ['PrefetchingIter']

_POLL = 0.05      # seconds per slice of a wait, to notice a stopped or dead thread


class _Worker:
    """One wrapped iterator and the thread that reads it one batch ahead."""

    def __init__(self, data_iter, index):
        self.iter = data_iter
        self.ready = threading.Event()      # set: ``batch``/``error`` hold the next result
        self.taken = threading.Event()      # set: the thread may read the next batch
        self.stopped = False
        self.batch = None                   # the next batch, None at the end of the epoch
        self.error = None                   # an exception the wrapped iterator raised
        self.ended = False                  # the epoch's end was taken: no reading until reset
        self.taken.set()
        self.thread = threading.Thread(target=self._run, name='PrefetchingIter-%d' % index, daemon=True)
        self.thread.start()

    def _run(self):
        while True:
            while not self.taken.wait(_POLL):
                if self.stopped:
                    return
            if self.stopped:
                return
            self.taken.clear()
            try:
                self.batch, self.error = self.iter.next(), None
            except StopIteration:
                self.batch, self.error = None, None
            except BaseException as err:       # handed to the caller's thread
                self.batch, self.error = None, err
            self.ready.set()

    def wait_ready(self):
        while not self.ready.wait(_POLL):
            if not self.thread.is_alive():
                raise MXNetError('PrefetchingIter: the thread reading %r has stopped (closed?)' % (self.iter,))

    def take(self):
        """The prefetched result, then let the thread read the next one (not past the end:
        reading an ended NDArrayIter again would lose its roll_over batch)."""
        if self.ended:
            return None
        self.wait_ready()
        batch, error = self.batch, self.error
        self.ready.clear()
        if error is None and batch is None:
            self.ended = True
        else:
            self.taken.set()
        if error is not None:
            raise error
        return batch

    def restart(self):
        """After the wrapped iterator was reset: read the new epoch's first batch."""
        self.ended = False
        self.ready.clear()
        self.taken.set()

    def stop(self, timeout):
        self.stopped = True
        self.taken.set()
        if self.thread is not threading.current_thread():
            self.thread.join(timeout)


def _renamed(descs, renames, which):
    if renames is None:
        return [d for descs_i in descs for d in descs_i]
    if len(renames) != len(descs):
        raise MXNetError('PrefetchingIter: %s needs one dict per iterator (%d), got %d'
                         % (which, len(descs), len(renames)))
    out = []
    for i, (descs_i, rename) in enumerate(zip(descs, renames)):
        for desc in descs_i:
            desc = data_descs([desc], which)[0]
            if desc.name not in rename:
                raise MXNetError('PrefetchingIter: %s[%d] has no new name for %r (it renames %s)'
                                 % (which, i, desc.name, sorted(rename)))
            out.append(DataDesc(rename[desc.name], desc.shape, desc.dtype))
    return out


class PrefetchingIter(BatchAtHand, DataIter):
    """Batches of ``iters`` (one DataIter or a list), each read ahead in its own thread."""

    def __init__(self, iters, rename_data=None, rename_label=None):
        super().__init__()
        if not isinstance(iters, list):
            iters = [iters]
        if not iters:
            raise MXNetError('PrefetchingIter: iters must hold at least one DataIter')
        self.iters = iters
        self.n_iter = len(iters)
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.current_batch = None
        self._workers = [_Worker(it, i) for i, it in enumerate(iters)]

    @property
    def provide_data(self):
        """The data descs of all wrapped iterators, one iterator's after another's, renamed by
        ``rename_data`` when it is given (a renamed desc keeps name, shape and dtype but takes
        the default layout).  Raises MXNetError when a rename dict lacks a name.
        """
        return _renamed([it.provide_data for it in self.iters], self.rename_data, 'rename_data')

    @property
    def provide_label(self):
        """The label descs of all wrapped iterators, one iterator's after another's, renamed by
        ``rename_label`` when it is given, as ``provide_data`` does for the data.
        """
        return _renamed([it.provide_label for it in self.iters], self.rename_label, 'rename_label')

    def reset(self):
        """Wait for the reads in flight, reset every wrapped iterator and let the threads read
        the new epoch's first batches.
        """
        # let every thread finish its read, then rewind and read the new epoch's first batch
        for worker in self._workers:
            if not worker.ended:
                worker.wait_ready()
        for it in self.iters:
            it.reset()
        for worker in self._workers:
            worker.restart()

    def iter_next(self):
        """Take the prefetched batch of every wrapped iterator and join them into one DataBatch
        (``current_batch``); True if there was one, False at the end of the epoch.

        Raises MXNetError when the wrapped iterators end at different batches or their batches
        disagree on ``pad``; an exception a wrapped iterator raised while reading ahead is
        re-raised here.
        """
        batches = [worker.take() for worker in self._workers]
        ended = [b is None for b in batches]
        if all(ended):
            return False
        if any(ended):
            raise MXNetError('PrefetchingIter: the iterators ran out at different batches (ended: %s)'
                             % ended)
        pads = [b.pad for b in batches]
        if any(p != pads[0] for p in pads):
            raise MXNetError('PrefetchingIter: the iterators\' batches disagree on pad: %s' % pads)
        self.current_batch = DataBatch(sum([list(b.data) for b in batches], []),
                                       sum([list(b.label or []) for b in batches], []),
                                       pads[0], batches[0].index,
                                       provide_data=self.provide_data, provide_label=self.provide_label)
        return True

    def close(self, timeout=5.0):
        """Stop and join the threads (each waits at most ``timeout`` seconds)."""
        for worker in getattr(self, '_workers', []):
            worker.stop(timeout)

    def __del__(self):
        self.close()
