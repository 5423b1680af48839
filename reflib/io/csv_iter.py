"""``CSVIter``: batches from comma-separated files of numbers, as MXNet 1.9.1 makes them.

Each line of ``data_csv`` is one sample, reshaped to ``data_shape``; each line of
``label_csv`` its label (all labels are 0 without one).  ``data_csv`` may name a
directory: its files are read in name order, one after another.  Blank lines are
skipped.

Facts checked against MXNet 1.9.1 (tests/golden/gen_io_iters.py):

* data is ``(batch,) + data_shape``; a label of one value is ``(batch,)``, else
  ``(batch,) + label_shape``; both float32, or int32/int64 with ``dtype``;
* numbers are read as MXNet's parser reads them, which is not always the nearest float32
  (text_numbers.py); integer dtypes take a field's leading integer (``2.7`` gives 2);
* ``getindex()`` gives the line numbers (uint64) of the batch's samples;
* ``round_batch=True`` (the default) completes a short last batch from the first lines,
  reports ``pad``, and then the next ``reset()`` does not rewind: that epoch starts after
  the borrowed lines (see loader.BatchBuffer); ``round_batch=False`` leaves the previous
  batch's values in the padded rows;
* MXNet documents ``reset()`` only after a complete pass: its read-ahead threads make a
  reset in mid-epoch land somewhere timing-dependent.  reflib rewinds to the start.
"""

import os

import numpy as np

from ..base import MXNetError
from .loader import BatchBuffer, FileIter, check_dtype, parse_bool, parse_int, parse_shape
from .text_numbers import parse_floats, parse_ints

__all__ = ['CSVIter', 'read_csv_rows']



def _files(path, owner):
    if os.path.isdir(path):
        names = sorted(n for n in os.listdir(path) if os.path.isfile(os.path.join(path, n)))
        if not names:
            raise MXNetError('%s: the directory %r holds no files' % (owner, path))
        return [os.path.join(path, n) for n in names]
    if not os.path.exists(path):
        raise MXNetError('%s: %r: no such file or directory' % (owner, path))
    return [path]


def read_csv_rows(path, width, dtype, owner='CSVIter', what='data_csv'):
    """All rows of the file or directory ``path`` as a (rows, width) array of ``dtype``,
    the numbers read as MXNet reads them (text_numbers.py)."""
    tokens, where = [], []
    for fname in _files(path, owner):
        try:
            with open(fname, 'r') as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError) as err:
            raise MXNetError('%s: cannot read %s %r: %s' % (owner, what, fname, err)) from None
        for lineno, line in enumerate(lines, 1):
            if not line.strip():
                continue
            fields = line.split(',')
            if len(fields) != width:
                raise MXNetError('%s: %s line %d has %d values, the shape needs %d (%s:%d: %r)'
                                 % (owner, what, lineno, len(fields), width, fname, lineno, line[:80]))
            tokens.extend(fields)
            where.append((fname, lineno))
    if not tokens:
        raise MXNetError('%s: %s %r holds no rows' % (owner, what, path))
    try:
        values = parse_floats(tokens) if dtype.kind == 'f' else parse_ints(tokens, dtype)
    except (ValueError, OverflowError) as err:
        i = err.args[0]
        fname, lineno = where[i // width]
        problem = 'is not a number' if isinstance(err, ValueError) else "is out of %s's range" % dtype.name
        raise MXNetError('%s: %s line %d: %r %s (%s:%d)'
                         % (owner, what, lineno, tokens[i].strip(), problem, fname, lineno)) from None
    return values.astype(dtype, copy=False).reshape(len(where), width)


class CSVIter(FileIter):
    """Batches of samples read from comma-separated files, one sample per line.

    Keyword arguments only, as in MXNet.

    :param data_csv: the data file, or a directory whose files are read in name order.
    :param data_shape: the shape of one sample; each line must hold ``prod(data_shape)``
        numbers.
    :param batch_size: samples per batch.
    :param label_csv: the label file (or directory), one label per line; ``'NULL'`` (the
        default) means no file, and every label is 0.
    :param label_shape: the shape of one label, ``(1,)``: a one-value label makes a label
        batch of shape ``(batch_size,)``, a larger one ``(batch_size,) + label_shape``.
    :param round_batch: complete the last batch from the first lines and report them in
        ``pad`` (the next epoch then begins after them); with False the last batch's extra
        rows keep the previous batch's values.
    :param dtype: ``'float32'`` (the default), ``'int32'`` or ``'int64'``, for data and label.
    :param data_name: the name in ``provide_data``, ``'data'``.
    :param label_name: the name in ``provide_label``, ``'softmax_label'``.
    :param kwargs: ``prefetch_buffer`` and ``ctx`` are accepted and change nothing (reflib
        reads in the calling thread); other names are ignored with a warning on the
        ``reflib.io`` logger.
    :raises MXNetError: naming the file and line of a row with the wrong number of values
        or a field that is not a number, and when the label file has fewer rows than the
        data file.

    Four samples of three numbers, three to a batch; the second batch borrows the first two
    lines (``pad`` 2), and each batch's ``index`` says which lines it holds:

    >>> with open('four.csv', 'w') as f:
    ...     f.write('1,2,3\\n2,3,4\\n3,4,5\\n4,5,6\\n')
    24
    >>> it = mx.io.CSVIter(data_csv='four.csv', data_shape=(3,),
    ...                    batch_size=3)
    >>> it.provide_data[0].shape, it.provide_label[0].shape
    ((3, 3), (3,))
    >>> for batch in it:
    ...     print(batch.data[0].asnumpy()[:, 0], batch.index, batch.pad)
    [1. 2. 3.] [0 1 2] 0
    [4. 1. 2.] [3 0 1] 2
    """

    def __init__(self, *, data_csv, data_shape, batch_size, label_csv='NULL', label_shape=(1,),
                 round_batch=True, prefetch_buffer=4, ctx='gpu', dtype=None,
                 data_name='data', label_name='softmax_label', **kwargs):
        self.warn_unknown(kwargs)
        owner = self._name
        data_shape = parse_shape(owner, 'data_shape', data_shape)
        label_shape = parse_shape(owner, 'label_shape', label_shape)
        batch_size = parse_int(owner, 'batch_size', batch_size, minimum=1)
        round_batch = parse_bool(owner, 'round_batch', round_batch)
        dtype = check_dtype(owner, dtype, ('float32', 'int32', 'int64'))
        data = read_csv_rows(os.fspath(data_csv), int(np.prod(data_shape)), dtype)
        data = data.reshape((len(data),) + data_shape)
        label_size = int(np.prod(label_shape))
        # a label of one value is a scalar per sample: (batch,) rather than (batch, 1)
        per_label = () if label_size == 1 else label_shape
        if label_csv is None or str(label_csv) == 'NULL':
            label = np.zeros((len(data),) + per_label, dtype)
        else:
            label = read_csv_rows(os.fspath(label_csv), label_size, dtype, what='label_csv')
            if len(label) < len(data):
                raise MXNetError('CSVIter: label_csv %r has %d rows for the %d rows of data_csv %r'
                                 % (label_csv, len(label), len(data), data_csv))
            label = label[:len(data)].reshape((len(data),) + per_label)
        self._buffer = BatchBuffer(owner, data, label, batch_size, round_batch)
        super().__init__(data_name, label_name)

    def _before_first(self):
        self._buffer.before_first()

    def _read_batch(self):
        return self._buffer.read()
