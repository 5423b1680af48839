"""``NDArrayIter``: batches of in-memory arrays, with MXNet's three ways to treat a
last, incomplete batch: ``pad`` (fill it from the start and report ``pad``), ``discard``
(drop it), ``roll_over`` (keep it and complete it with the first samples of the next epoch).

Sparse inputs, as MXNet 1.9.1 treats them (checked with it, tests/golden/gen_io_sparse.py):

* a ``CSRNDArray``, or a ``scipy.sparse.csr_matrix`` inside a list or dict (MXNet refuses
  one given bare), works only with ``last_batch_handle='discard'``; anything else raises
  ``NotImplementedError`` (``SparseBatchError`` here, an MXNetError too);
* the batches are **dense** NDArrays of the input's dtype: MXNet cuts a batch with
  ``slice_axis``, which has no sparse form, so its storage fallback hands out dense rows;
* ``shuffle=True`` reorders a CSR input's rows and keeps it CSR (and its dtype), in the same
  order numpy's global generator gives a dense input;
* a ``RowSparseNDArray`` takes any ``last_batch_handle`` and also gives dense batches; a
  shuffle turns it into a dense float32 array, as MXNet's does.
"""

import warnings
from collections import OrderedDict

import numpy as np

from ..base import MXNetError, mx_real_t
from ..ndarray import NDArray, array, concatenate
from ..ndarray.sparse import BaseSparseNDArray, CSRNDArray
from ..ndarray.sparse import array as sparse_array
from .dataiter import DataBatch, DataDesc, DataIter

__all__ = ['NDArrayIter', 'SparseBatchError']


class SparseBatchError(MXNetError, NotImplementedError):
    """CSR input with a ``last_batch_handle`` other than ``'discard'``: MXNet raises
    NotImplementedError, which this is as well as an MXNetError."""


def _is_scipy_csr(value):
    """A scipy.sparse CSR matrix, recognised without importing scipy (only sparse code needs it)."""
    return type(value).__module__.startswith('scipy.sparse') and getattr(value, 'format', None) == 'csr'


def _from_scipy(matrix, ctx=None):
    """A CSRNDArray of a scipy CSR matrix in MXNet's canonical form (columns sorted within a
    row, duplicates summed), as MXNet's ``nd.array`` makes it; the dtype is the matrix's."""
    matrix = matrix.copy()
    matrix.sum_duplicates()
    return sparse_array(matrix, ctx=ctx)


def _init_data(data, allow_empty, default_name):
    """Sorted (name, NDArray) pairs from an array, a list of arrays or a dict."""
    if data is None:
        data = []
    if isinstance(data, (np.ndarray, NDArray)):
        data = [data]
    if isinstance(data, list):
        if not allow_empty and not data:
            raise MXNetError('NDArrayIter: %s must not be empty' % default_name)
        if not all(isinstance(d, (np.ndarray, NDArray)) or _is_scipy_csr(d) for d in data):
            # MXNet reads a list as one array per input, so [[1, 2], [3, 4]] would be two inputs
            # of one sample each, and [0, 1] two labels of no shape: it then fails in slice_axis
            raise MXNetError('NDArrayIter: %s is a Python list of %s; a list means one array per input (as '
                             'in MXNet). For one input pass an array: np.array(%s)'
                             % (default_name, type(data[0]).__name__, default_name))
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict([('_%d_%s' % (i, default_name), d) for i, d in enumerate(data)])
    if not isinstance(data, dict):
        hint = ''
        if _is_scipy_csr(data):
            hint = ("; MXNet 1.9.1 takes a scipy.sparse.csr_matrix only inside a list or a dict: pass [%s] "
                    "or {'%s': %s}" % (default_name, default_name, default_name))
        raise MXNetError('NDArrayIter: %s must be an NDArray, a numpy array, a list of them or a dict, '
                         'got %s%s' % (default_name, type(data).__name__, hint))
    pairs = []
    for name, value in data.items():
        if _is_scipy_csr(value):
            value = _from_scipy(value)
        elif not isinstance(value, NDArray):
            try:
                value = array(value)
            except Exception:
                raise MXNetError('NDArrayIter: %r has invalid type %s' % (name, type(value).__name__)) from None
        if not value.shape:
            raise MXNetError('NDArrayIter: %r is a single number (shape ()); it needs one row per sample'
                             % (name,))
        pairs.append((name, value))
    return sorted(pairs, key=lambda kv: kv[0])


def _take_rows(arr, idx):
    """A new array with the rows of ``arr`` in the order ``idx``, on arr's device: CSR stays
    CSR (its dtype kept, put in canonical form as MXNet's shuffle does through scipy); any
    other sparse array becomes a dense float32 one, as in MXNet.

    A dense array takes one gather, where MXNet's ``array(arr.asnumpy()[idx], arr.context)``
    makes three copies (to numpy, the reordering, back).  The dtype becomes float32
    (``mx_real_t``) as there, since ``array`` of a numpy array defaults to it.
    """
    if isinstance(arr, CSRNDArray):
        return _from_scipy(arr.asscipy()[idx], arr.context)
    if isinstance(arr, BaseSparseNDArray):
        return array(arr.asnumpy()[idx], arr.context)
    xp = arr.xp
    with arr.context.device_scope():
        rows = xp.take(arr.handle, xp.asarray(idx), axis=0)
        return NDArray(rows.astype(mx_real_t, copy=False), arr.context)


def _batch_rows(arr, start=0, end=None):
    """Rows ``start:end`` of ``arr`` for a batch.  A sparse array's come out dense: MXNet 1.9.1
    cuts batches with ``slice_axis``, which has no sparse form (its storage fallback)."""
    rows = arr[start:(arr.shape[0] if end is None else end)]
    return rows.todense() if isinstance(rows, BaseSparseNDArray) else rows


class NDArrayIter(DataIter):
    """Batches of in-memory arrays.

    >>> import numpy as np, reflib as mx
    >>> it = mx.io.NDArrayIter(np.arange(10).reshape(5, 2), np.arange(5), batch_size=2)
    >>> [(b.label[0].asnumpy().tolist(), b.pad) for b in it]
    [([0.0, 1.0], 0), ([2.0, 3.0], 0), ([4.0, 0.0], 1)]

    ``num_parts``/``part_index`` (not in MXNet's NDArrayIter; named as in its
    MNISTIter and ImageRecordIter) keep one of ``num_parts`` equal, contiguous
    parts of the samples, for one worker of a distributed job: ``num_parts =
    kv.num_workers, part_index = kv.rank``.  Every part has ``n // num_parts``
    samples (the last ``n % num_parts`` are dropped), so every worker makes the
    same number of batches, which ``dist_sync`` needs.

    >>> part = mx.io.NDArrayIter(np.arange(10), batch_size=2, num_parts=3, part_index=1)
    >>> [b.data[0].asnumpy().tolist() for b in part]
    [[3.0, 4.0], [5.0, 3.0]]
    """

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle='pad',
                 data_name='data', label_name='softmax_label', layout='NCHW', num_parts=1, part_index=0):
        super().__init__(batch_size)
        if last_batch_handle not in ('pad', 'discard', 'roll_over'):
            raise MXNetError("NDArrayIter: last_batch_handle must be 'pad', 'discard' or 'roll_over', got %r"
                             % (last_batch_handle,))
        self.data = _init_data(data, allow_empty=False, default_name=data_name)
        self.label = _init_data(label, allow_empty=True, default_name=label_name)
        if last_batch_handle != 'discard' and any(isinstance(arr, CSRNDArray) for _, arr in self.data + self.label):
            raise SparseBatchError("NDArrayIter: CSR input (a CSRNDArray or scipy.sparse.csr_matrix) works only "
                                   "with last_batch_handle='discard' in MXNet 1.9.1, got %r" % (last_batch_handle,))
        # the first data array says how many samples there are, as in MXNet; an array with
        # more rows is read as far as that (MXNet does so silently; reflib warns), one with
        # fewer cannot serve every sample
        sizes = {name: arr.shape[0] for name, arr in self.data + self.label}
        self.num_data = self.data[0][1].shape[0]
        short = {name: n for name, n in sizes.items() if n < self.num_data}
        if short:
            raise MXNetError('NDArrayIter: %s has %d samples but %s has only %s'
                             % (self.data[0][0], self.num_data, ', '.join(short), ', '.join(map(str, short.values()))))
        longer = {name: n for name, n in sizes.items() if n > self.num_data}
        if longer:
            warnings.warn('NDArrayIter: %s has %d samples; only the first %d rows of %s are used'
                          % (self.data[0][0], self.num_data, self.num_data, ', '.join(longer)), stacklevel=2)
        if num_parts != 1 or part_index != 0:
            self._keep_part(num_parts, part_index)
        if batch_size <= 0:
            raise MXNetError('NDArrayIter: batch_size must be positive, got %r' % (batch_size,))
        if last_batch_handle == 'discard' and self.num_data < batch_size:
            raise MXNetError('NDArrayIter: batch_size %d exceeds the %d samples, nothing would be left '
                             'after discarding' % (batch_size, self.num_data))
        self.idx = np.arange(self.num_data)
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.layout = layout
        self.cursor = -batch_size
        self._cache_data = None
        self._cache_label = None
        self.reset()

    def _keep_part(self, num_parts, part_index):
        """Keep samples ``[i*m, (i+1)*m)`` of ``m = n // num_parts``, for ``i = part_index``."""
        if isinstance(num_parts, bool) or not isinstance(num_parts, (int, np.integer)) or num_parts < 1:
            raise MXNetError('NDArrayIter: num_parts must be a positive int, got %r' % (num_parts,))
        if (isinstance(part_index, bool) or not isinstance(part_index, (int, np.integer))
                or not 0 <= part_index < num_parts):
            raise MXNetError('NDArrayIter: part_index must be an int in [0, %d) (num_parts=%d), got %r'
                             % (num_parts, num_parts, part_index))
        per_part = self.num_data // num_parts
        if per_part == 0:
            raise MXNetError('NDArrayIter: %d samples cannot make %d parts of at least one sample'
                             % (self.num_data, num_parts))
        start = int(part_index) * per_part
        self.data = [(name, arr[start:start + per_part]) for name, arr in self.data]
        self.label = [(name, arr[start:start + per_part]) for name, arr in self.label]
        self.num_data = per_part

    @property
    def provide_data(self):
        """One DataDesc per data array (sorted by name): its name, the shape of a batch
        (``batch_size`` rows), the array's dtype and the iterator's ``layout``.

        >>> mx.io.NDArrayIter(np.zeros((5, 3)), batch_size=2).provide_data
        [DataDesc[data,(2, 3),<class 'numpy.float32'>,NCHW]]
        """
        return [DataDesc(name, (self.batch_size,) + arr.shape[1:], arr.dtype, self.layout)
                for name, arr in self.data]

    @property
    def provide_label(self):
        """One DataDesc per label array, as ``provide_data`` describes the data; an empty list
        when the iterator has no labels.
        """
        return [DataDesc(name, (self.batch_size,) + arr.shape[1:], arr.dtype, self.layout)
                for name, arr in self.label]

    def hard_reset(self):
        """Back to the very start, forgetting a rolled-over partial batch."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None

    def reset(self):
        """Start a new epoch, reshuffling first when ``shuffle`` is on.

        With ``last_batch_handle='roll_over'``, when the previous epoch ended with an incomplete
        batch, the new epoch's first batch is that batch completed with the first samples of
        the data; ``hard_reset()`` forgets it instead.
        """
        if self.shuffle:
            self._shuffle_data()
        if (self.last_batch_handle == 'roll_over'
                and self.num_data - self.batch_size < self.cursor < self.num_data):
            # a partial batch is cached: the next epoch starts early enough to complete it
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self):
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self):
        """Return the next DataBatch or raise StopIteration at the end of the epoch.

        An incomplete last batch is padded from the start of the data with ``'pad'``
        (``batch.pad`` says by how many samples); with ``'discard'`` and ``'roll_over'`` it is
        not returned: StopIteration is raised instead, and ``'roll_over'`` keeps it for the
        next epoch.  The batch's ``index`` is None.
        """
        if not self.iter_next():
            raise StopIteration
        data, label = self.getdata(), self.getlabel()
        if data[0].shape[0] != self.batch_size:
            # an incomplete last batch: dropped ('discard') or kept for the next epoch ('roll_over')
            self._cache_data, self._cache_label = data, label
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    def _slice(self, source, start=0, end=None):
        return [_batch_rows(arr, start, end) for _, arr in source]

    def _batchify(self, source, cached):
        if self.cursor >= self.num_data:
            raise MXNetError('NDArrayIter: the iterator is exhausted; call reset()')
        if self.last_batch_handle == 'roll_over' and -self.batch_size < self.cursor < 0:
            # first batch of an epoch after a roll-over: last epoch's tail + this epoch's head
            head = self._slice(source, end=self.cursor + self.batch_size)
            return [concatenate([a, b]) for a, b in zip(cached, head)]
        if self.last_batch_handle == 'pad' and self.cursor + self.batch_size > self.num_data:
            pad = self.batch_size - self.num_data + self.cursor
            tail = self._slice(source, start=self.cursor)
            # the filler repeats the data from its start, as often as needed (MXNet tiles it
            # when the padding is longer than the data set itself)
            whole, rest = divmod(pad, self.num_data)
            fill = [[_batch_rows(arr)] * whole + [_batch_rows(arr, 0, rest)] for _, arr in source]
            return [concatenate([a] + f) for a, f in zip(tail, fill)]
        end = min(self.cursor + self.batch_size, self.num_data)
        return self._slice(source, self.cursor, end)

    def getdata(self):
        data = self._batchify(self.data, self._cache_data)
        if self.last_batch_handle == 'roll_over' and -self.batch_size < self.cursor < 0:
            self._cache_data = None
        return data

    def getlabel(self):
        label = self._batchify(self.label, self._cache_label)
        if self.last_batch_handle == 'roll_over' and -self.batch_size < self.cursor < 0:
            self._cache_label = None
        return label

    def getpad(self):
        """The number of samples in the current batch that do not belong to it: the filler of a
        padded last batch (``'pad'``), or with ``'roll_over'``, in the first batch after a
        roll-over, the number of samples that come from the previous epoch's end; 0 otherwise.
        """
        if self.last_batch_handle == 'pad' and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == 'roll_over' and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    def _shuffle_data(self):
        # numpy's global generator, as MXNet uses: the same np.random.seed gives the same order.
        # Like MXNet, each shuffle permutes the already shuffled arrays again by the new idx.
        np.random.shuffle(self.idx)
        self.data = [(name, _take_rows(arr, self.idx)) for name, arr in self.data]
        self.label = [(name, _take_rows(arr, self.idx)) for name, arr in self.label]
