"""``DataLoader``: mini-batches from a dataset, the way a Gluon training loop reads data.

A ``BatchSampler`` picks the indices of each batch (from ``batch_size``, ``shuffle``,
``sampler`` and ``last_batch``, or given whole as ``batch_sampler``); the samples at those
indices are read from the dataset and joined into one batch by ``batchify_fn``.

>>> from reflib.gluon.data import ArrayDataset, DataLoader
>>> loader = DataLoader(ArrayDataset(np.arange(10.0).reshape(5, 2), [0, 1, 0, 1, 1]), batch_size=2)
>>> len(loader)
3
>>> for data, label in loader:
...     print(data.shape, data.dtype.__name__, label.asnumpy().tolist())
(2, 2) float64 [0, 1]
(2, 2) float64 [0, 1]
(1, 2) float64 [1]

The default ``batchify_fn`` is MXNet 1.9.1's:

* NDArray samples are stacked (``nd.stack``) into an NDArray of their dtype, on their
  context;
* tuple samples are split into their fields, each batched on its own, and the batch is a
  *list* with one entry per field;
* anything else goes through ``np.asarray`` and becomes an NDArray of numpy's dtype, so a
  float64 numpy sample gives a float64 batch (not MXNet's usual float32) and Python
  integers an int64 one, on the current context.  Samples numpy cannot turn into one array
  of a dtype MXNet has (strings, None, dicts, NDArrays in a list, samples of different
  shapes) are refused with an error that says so (``BatchifyError``, a TypeError, or a
  ShapeError); MXNet fails there with a KeyError from its dtype table.

``pin_memory=True`` copies the batch's NDArrays to ``cpu_pinned(pin_device_id)``; doing
so, as in MXNet, it turns a tuple batch (from a custom ``batchify_fn``) into a list.

Workers: threads, not processes
-------------------------------
With ``num_workers > 0`` MXNet reads and batches samples in a pool of worker *processes*
(or threads, with ``thread_pool=True``) and sends each batch back through shared memory.
reflib always uses a pool of ``num_workers`` *threads*: an NDArray here is a numpy (or
cupy) array in the same process, so a thread hands it over as it is, with no shared-memory
pickling and no lambdas refused for not pickling.  The batches are the same and come in
the same order: batch ``k`` of a pass is always the ``k``-th the batch sampler gave, and
at most ``prefetch`` (default ``2 * num_workers``) batches are being made ahead of the one
asked for.  What MXNet's choice shows is kept too: with the default ``batchify_fn`` worker
batches live in ``cpu_shared(0)``, and with ``thread_pool=False`` every NDArray of a
custom batch (inside lists, tuples and dicts) arrives in ``cpu_shared(0)``, as it does
from MXNet's worker processes (samples on a GPU included: the worker batch is copied
there).  What differs from processes: a dataset's side effects (a counter it keeps, a file
it opens) happen in this process, several threads may read one dataset at once (so its
``__getitem__`` must allow that; ``RecordFileDataset``'s does), and a worker that draws
random numbers shares the generators with the main thread.  Threads of Python code run one
at a time (the GIL), so workers speed up reading (files, decoding in numpy) more than
Python-heavy transforms.

``timeout`` limits the wait for each batch (``WorkerTimeout``, a
``multiprocessing.TimeoutError`` as MXNet raises); an exception raised while a worker made
a batch is raised again when that batch is asked for.
"""

import multiprocessing
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import numpy as np

from ...base import DTYPE_TO_FLAG, MXNetError, ShapeError
from ...context import Context, cpu_pinned
from ...ndarray import NDArray, array, empty, stack
from ...numpy.multiarray import as_np_arrays
from ...shapes import is_np_shape, set_np_shape
from ...util import is_np_array
from . import sampler as _sampler

__all__ = ['DataLoader', 'default_batchify_fn', 'default_mp_batchify_fn', 'BatchifyError', 'WorkerTimeout']


class BatchifyError(MXNetError, TypeError):
    """The default batchify cannot make one NDArray of these samples."""


class WorkerTimeout(MXNetError, multiprocessing.TimeoutError):
    """A worker took longer than ``timeout`` seconds to make a batch."""


def _shared():
    return Context('cpu_shared', 0)


def _batchify(data, ctx):
    """The default batch of ``data`` (a list of samples); NDArrays made on ``ctx`` (None:
    stacked NDArrays stay on their context, others go to the current context)."""
    first = data[0]
    if isinstance(first, NDArray):
        for i, sample in enumerate(data):
            if not isinstance(sample, NDArray):
                raise BatchifyError('batchify: sample 0 of the batch is an NDArray but sample %d is %s; '
                                    'the samples of a batch must be alike' % (i, type(sample).__name__))
            if sample.shape != first.shape:
                raise ShapeError('batchify: sample %d of the batch has shape %s but sample 0 has %s; stacking '
                                 'needs equal shapes (pad them in a batchify_fn of your own)'
                                 % (i, sample.shape, first.shape))
        if ctx is None:
            return stack(*data)
        return stack(*data, out=empty((len(data),) + first.shape, ctx=ctx, dtype=first.dtype))
    if isinstance(first, tuple):
        return [_batchify(list(field), ctx) for field in zip(*data)]
    if isinstance(first, list) and any(isinstance(part, NDArray) for part in first):
        # numpy would read the NDArrays through __array__; MXNet's cannot be read so and fail
        raise BatchifyError('batchify: a sample is a list holding NDArrays; make it a tuple (each field is '
                            'then batched on its own) or give a batchify_fn of your own')
    try:
        values = np.asarray(data)
    except ValueError as err:
        raise ShapeError('batchify: the samples of a batch do not form one array (%s); they need equal '
                         'shapes (pad them in a batchify_fn of your own)' % err) from None
    if values.dtype not in DTYPE_TO_FLAG:
        raise BatchifyError('batchify: samples of type %s make a numpy array of dtype %s, which an NDArray '
                            'cannot hold; give a batchify_fn of your own for them'
                            % (type(first).__name__, values.dtype))
    return array(values, ctx=ctx, dtype=values.dtype)


def _in_kind(batch):
    """The batch as mx.np.ndarray (nested in lists too) under ``npx.set_np()``, as MXNet's
    batchify makes it there; as it is otherwise."""
    if not is_np_array():
        return batch
    if isinstance(batch, list):
        return [_in_kind(part) for part in batch]
    return as_np_arrays([batch])[0]


def default_batchify_fn(data):
    """A batch of the samples ``data``: NDArrays stacked, tuples split into fields (a
    list of batches), anything else through ``np.asarray`` into an NDArray of its dtype
    (an mx.np.ndarray under ``npx.set_np()``)."""
    return _in_kind(_batchify(data, None))


def default_mp_batchify_fn(data):
    """``default_batchify_fn`` with the batch in ``cpu_shared(0)``: what the workers of a
    DataLoader use (MXNet's workers write there to hand batches over)."""
    return _in_kind(_batchify(data, _shared()))


def _as_in_context(batch, ctx):
    """The batch's NDArrays copied to ``ctx``; lists and tuples become lists (as in MXNet)."""
    if isinstance(batch, NDArray):
        return batch.as_in_context(ctx)
    if isinstance(batch, (list, tuple)):
        return [_as_in_context(part, ctx) for part in batch]
    return batch


def _as_from_a_process(batch):
    """The batch as it would come back from one of MXNet's worker processes: each NDArray in
    ``cpu_shared(0)``, inside lists, tuples and dicts, which keep their kind."""
    if isinstance(batch, NDArray):
        return batch.as_in_context(_shared())
    if isinstance(batch, dict):
        return type(batch)((key, _as_from_a_process(value)) for key, value in batch.items())
    if isinstance(batch, list):
        return [_as_from_a_process(part) for part in batch]
    if isinstance(batch, tuple):
        parts = [_as_from_a_process(part) for part in batch]
        return type(batch)(*parts) if hasattr(batch, '_fields') else tuple(parts)
    return batch


def _make_batch(dataset, indices, batchify_fn, like_a_process):
    """What one worker does: read the samples and batch them."""
    batch = batchify_fn([dataset[i] for i in indices])
    return _as_from_a_process(batch) if like_a_process else batch


class _MultiWorkerIter:
    """One pass over the batches, made by the loader's worker threads, handed out in order."""

    def __init__(self, pool, dataset, batchify_fn, batch_sampler, pin_memory, pin_device_id,
                 like_a_process, prefetch, timeout):
        self._pool = pool
        self._dataset = dataset
        self._batchify_fn = batchify_fn
        self._batch_sampler = batch_sampler
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._like_a_process = like_a_process
        self._timeout = timeout
        self._indices = iter(batch_sampler)
        self._pending = {}            # batch number -> future
        self._sent = 0
        self._received = 0
        for _ in range(prefetch):
            self._submit_next()

    def __len__(self):
        return len(self._batch_sampler)

    def __iter__(self):
        return self

    def _submit_next(self):
        indices = next(self._indices, None)
        if indices is None:
            return
        self._pending[self._sent] = self._pool.submit(
            _make_batch, self._dataset, indices, self._batchify_fn, self._like_a_process)
        self._sent += 1

    def __next__(self):
        self._submit_next()
        if self._received == self._sent:
            raise StopIteration
        future = self._pending.pop(self._received)
        try:
            batch = future.result(self._timeout)
        except FutureTimeout:
            raise WorkerTimeout('DataLoader: a worker took more than timeout=%s seconds to make batch %d; '
                                'a slow dataset or transform needs a larger timeout'
                                % (self._timeout, self._received)) from None
        if self._pin_memory:
            batch = _as_in_context(batch, cpu_pinned(self._pin_device_id))
        self._received += 1
        return batch

    next = __next__


class DataLoader:
    """Mini-batches of ``dataset``.

    Give ``batch_size`` (with ``shuffle`` or a ``sampler`` of sample indices, and
    ``last_batch``: 'keep', the default, 'discard' or 'rollover'), or a ``batch_sampler``
    alone.  ``batchify_fn`` joins a list of samples into a batch (default: see the module
    text).  ``num_workers > 0`` makes batches in that many threads, ``prefetch`` (default
    ``2 * num_workers``) batches ahead.  ``pin_memory`` puts the batches in
    ``cpu_pinned(pin_device_id)``.  ``thread_pool`` says whether MXNet would use threads
    (True) or processes (False): reflib uses threads either way and only reproduces where
    the batches of the process pool live.  ``timeout`` bounds the wait for a worker's
    batch, in seconds.  ``auto_reload`` starts the next pass's prefetching when a pass
    ends (and the first pass's at once).
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None,
                 last_batch=None, batch_sampler=None, batchify_fn=None,
                 num_workers=0, pin_memory=False, pin_device_id=0,
                 prefetch=None, thread_pool=False, timeout=120, auto_reload=False):
        self._pool = None
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        self._timeout = timeout
        if not timeout > 0:
            raise AssertionError('DataLoader: timeout must be positive, got %r' % (timeout,))

        if batch_sampler is None:
            if batch_size is None:
                raise ValueError('DataLoader: give batch_size, or a batch_sampler')
            if sampler is None:
                sampler = (_sampler.RandomSampler if shuffle else _sampler.SequentialSampler)(len(dataset))
            elif shuffle:
                raise ValueError('DataLoader: give shuffle=True or a sampler, not both (the sampler sets the order)')
            batch_sampler = _sampler.BatchSampler(sampler, batch_size, last_batch if last_batch else 'keep')
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise ValueError('DataLoader: a batch_sampler makes the batches by itself; batch_size, shuffle, '
                             'sampler and last_batch must not be given with it')
        self._batch_sampler = batch_sampler

        self._num_workers = max(0, num_workers)
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * self._num_workers)
        if self._num_workers > 0:
            # a worker reads shapes as the thread that made the loader did (MXNet: the same)
            self._pool = ThreadPoolExecutor(self._num_workers, thread_name_prefix='DataLoader',
                                            initializer=set_np_shape, initargs=(is_np_shape(),))
        if batchify_fn is None:
            batchify_fn = default_mp_batchify_fn if num_workers > 0 else default_batchify_fn
        self._batchify_fn = batchify_fn
        self.auto_reload = auto_reload
        self._iter = None
        if auto_reload:
            self.refresh()

    def __iter__(self):
        if self._iter is None:
            self.refresh()
        batches, self._iter = self._iter, None     # a prepared pass serves one iteration only
        yield from batches
        if self._iter is None and self.auto_reload:
            self.refresh()

    def _same_thread_iter(self):
        for indices in self._batch_sampler:
            batch = self._batchify_fn([self._dataset[i] for i in indices])
            if self._pin_memory:
                batch = _as_in_context(batch, cpu_pinned(self._pin_device_id))
            yield batch

    def _prefetch_iter(self):
        if self._num_workers == 0:
            return self._same_thread_iter()
        return _MultiWorkerIter(self._pool, self._dataset, self._batchify_fn, self._batch_sampler,
                                self._pin_memory, self._pin_device_id, not self._thread_pool,
                                self._prefetch, self._timeout)

    def __len__(self):
        return len(self._batch_sampler)

    def refresh(self):
        """Prepare the next pass now (its workers start on the first batches at once)."""
        self._iter = self._prefetch_iter()

    def clean(self):
        """Drop a prepared pass: the next one starts when it is iterated."""
        self._iter = None

    def __del__(self):
        pool = getattr(self, '_pool', None)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

