"""Datasets: samples read by index, ``dataset[i]`` for ``i`` in ``range(len(dataset))``.

A ``Dataset`` is anything with ``__getitem__`` and ``__len__``; a numpy array, an NDArray
or a list serves as one too (``DataLoader`` only indexes it).  The ``Dataset`` class adds
ways to derive new datasets: ``transform`` and ``transform_first`` (each sample passed
through a function, on demand unless ``lazy=False``), ``filter``, ``shard``, ``take`` and
``sample`` (a subset of the indices, chosen once, when the new dataset is made).

>>> from reflib.gluon.data import SimpleDataset, ArrayDataset
>>> numbers = SimpleDataset(list(range(10)))
>>> [x for x in numbers.filter(lambda x: x % 3 == 0)]
[0, 3, 6, 9]
>>> [len(numbers.shard(4, i)) for i in range(4)]
[3, 3, 2, 2]
>>> pairs = ArrayDataset(np.arange(6).reshape(3, 2), [7, 8, 9])
>>> pairs[1]
(array([2, 3]), 8)
>>> pairs.transform_first(lambda x: x * 10)[1]
(array([20, 30]), 8)

A sample that is a tuple is unpacked for the function of ``transform``: ``fn(*sample)``,
and ``transform_first`` applies its function to the first element only (to the whole
sample when it is not a tuple).

Iterating a dataset (``for sample in dataset``) follows Python's old protocol, as in
MXNet: ``dataset[0], dataset[1], ...`` until an ``IndexError``.  ``filter`` and
``transform(lazy=False)`` instead read exactly ``len(dataset)`` samples.
"""

import os
import threading

from ... import recordio
from ...ndarray import NDArray
from .sampler import FilterSampler, Sampler, SequentialSampler

__all__ = ['Dataset', 'SimpleDataset', 'ArrayDataset', 'RecordFileDataset']


class Dataset:
    """The base of the datasets: subclasses define ``__getitem__`` and ``__len__``."""

    def __getitem__(self, idx):
        raise NotImplementedError('%s must define __getitem__' % type(self).__name__)

    def __len__(self):
        raise NotImplementedError('%s must define __len__' % type(self).__name__)

    def filter(self, fn):
        """The samples for which ``fn(sample)`` is true (every sample is read once now)."""
        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """Part ``index`` of ``num_shards`` contiguous parts of nearly equal size.

        The first ``len(self) % num_shards`` parts hold one sample more than the others.
        Shard before shuffling, so that each worker of a distributed job reads its own
        samples.
        """
        # MXNet checks with assert statements: the same order, and AssertionError
        if not index < num_shards:
            raise AssertionError('shard: index %d is out of range for %d shards' % (index, num_shards))
        if not num_shards > 0:
            raise AssertionError('shard: the number of shards must be positive, got %d' % num_shards)
        if not index >= 0:
            raise AssertionError('shard: index must be non-negative, got %d' % index)
        size, rest = divmod(len(self), num_shards)
        start = size * index + min(index, rest)
        length = size + (1 if index < rest else 0)
        return _SampledDataset(self, SequentialSampler(length, start))

    def take(self, count):
        """The first ``count`` samples (all of them when ``count`` is None or too large)."""
        if count is None or count > len(self):
            count = len(self)
        if count < 0:
            raise ValueError('take: count must be None or at least 0, got %r' % (count,))
        return _SampledDataset(self, SequentialSampler(count))

    def sample(self, sampler):
        """The samples at the indices ``sampler`` gives (drawn once, now)."""
        if not isinstance(sampler, Sampler):
            raise TypeError('sample: expected a gluon.data.Sampler, got %s' % type(sampler))
        return _SampledDataset(self, sampler)

    def transform(self, fn, lazy=True):
        """Each sample passed through ``fn`` (``fn(*sample)`` for a tuple sample).

        ``lazy=True`` applies ``fn`` each time a sample is read, so a random augmentation
        differs from one pass to the next; ``lazy=False`` applies it to every sample once,
        now, and returns a ``SimpleDataset`` of the results.
        """
        transformed = _LazyTransformDataset(self, fn)
        if lazy:
            return transformed
        return SimpleDataset([transformed[i] for i in range(len(transformed))])

    def transform_first(self, fn, lazy=True):
        """``fn`` applied to the first element of each tuple sample (data, not label)."""
        return self.transform(_TransformFirstClosure(fn), lazy)


class SimpleDataset(Dataset):
    """A dataset over any object with ``len()`` and ``[]`` (a list, an array)."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class _LazyTransformDataset(Dataset):
    """``fn`` applied to each sample of ``data`` when it is read."""

    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        sample = self._data[idx]
        if isinstance(sample, tuple):
            return self._fn(*sample)
        return self._fn(sample)


class _TransformFirstClosure:
    """``fn`` on the first element of a sample, the rest passed through.  A class rather
    than a nested function, so that a dataset using it can be pickled."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, first, *rest):
        if rest:
            return (self._fn(first),) + rest
        return self._fn(first)


class _SampledDataset(Dataset):
    """The samples of ``dataset`` at the indices ``sampler`` gives, drawn once."""

    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._sampler = sampler
        self._indices = list(sampler)

    def __len__(self):
        return len(self._sampler)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


class ArrayDataset(Dataset):
    """Several equally long arrays (NDArrays, numpy arrays, lists, datasets) side by side.

    Sample ``i`` is the tuple ``(a[i], b[i], ...)``, or ``a[i]`` alone for one array.  As
    in MXNet, a one-dimensional NDArray is turned into a numpy array first, so its samples
    are numpy scalars rather than NDArrays of shape (1,).
    """

    def __init__(self, *args):
        if not args:
            raise AssertionError('ArrayDataset needs at least one array')
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            if len(data) != self._length:
                raise AssertionError('ArrayDataset: the arrays must have the same length, but array 0 has '
                                     'length %d and array %d has length %d' % (self._length, i, len(data)))
            if isinstance(data, NDArray) and data.ndim == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length


class RecordFileDataset(Dataset):
    """The records of a RecordIO file, as bytes, through its index (``name.idx`` beside
    ``name.rec``).  Sample ``i`` is the record of the ``i``-th key of the index file.

    One file handle serves every reader; a lock keeps the seek and the read of one record
    together when several DataLoader threads read at once.
    """

    def __init__(self, filename):
        self.idx_file = os.path.splitext(filename)[0] + '.idx'
        self.filename = filename
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, 'r')
        self._lock = threading.Lock()

    def __getitem__(self, idx):
        key = self._record.keys[idx]
        with self._lock:
            return self._record.read_idx(key)

    def __len__(self):
        return len(self._record.keys)

    def __getstate__(self):
        state = dict(self.__dict__)
        del state['_lock']
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()
