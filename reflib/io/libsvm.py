"""``LibSVMIter``: batches of sparse samples read from LibSVM text, as MXNet 1.9.1 makes them.

A LibSVM line is one sample: ``label[:weight] [qid:n] index:value index:value ... [# comment]``.
MXNet reads the indices as **zero-based** columns (the LibSVM tools count from 1) and hands
each batch's data out as a ``CSRNDArray`` of shape ``(batch_size, data_shape[0])``: the
entries of each line in the order the line lists them (not sorted, duplicates kept).

Facts checked against MXNet 1.9.1 (tests/golden/gen_io_sparse.py):

* the label is dense float32 ``(batch_size,)``, from each line's first number; a
  ``label_libsvm`` file makes it a CSRNDArray ``(batch_size, label_shape[0])`` built from
  that file's features (its own labels are ignored);
* a weight after the label (``1:0.5``) and a ``qid:n`` right after it are read and ignored;
  blank lines are skipped; a ``#`` ends a line's text;
* numbers are read as MXNet's parser reads them, which is not always the nearest float32
  (text_numbers.py);
* ``round_batch`` must be True (MXNet refuses False): a short last batch is completed from
  the first lines and ``pad`` counts them; the next ``reset()`` then does not rewind, that
  epoch starts after the borrowed lines (loader.BatchBuffer);
* ``num_parts``/``part_index`` split the bytes of the input into ``num_parts`` equal spans,
  each moved on to the next line start (``part_span``), so parts can differ in lines and
  one may be empty; ``getindex()`` counts lines within the part;
* a directory is read file after file in the order the system lists them (MXNet does not
  sort them; ``os.listdir`` gives that order), empty files skipped.

Where MXNet's parser goes wrong, reflib raises an MXNetError naming the file and line: a
token that is not ``index:value`` (MXNet skips text it cannot read, or crashes), a negative
index (MXNet fails without saying where), a column index outside ``data_shape`` (MXNet
returns a CSRNDArray holding it), a ``label_libsvm`` with fewer lines than the data, and a
whole-line comment after the part's first line that holds digits (MXNet reads such a
comment as a sample).  MXNet also crashes on a missing file; reflib names it.
"""

import os
import re
from collections import namedtuple

import numpy as np

from ..base import MXNetError
from ..ndarray import array
from ..ndarray.sparse import csr_matrix
from .dataiter import DataBatch
from .loader import BatchBuffer, FileIter, check_dtype, parse_bool, parse_int, parse_shape
from .text_numbers import parse_floats

__all__ = ['LibSVMIter', 'LibSVMRows', 'read_libsvm', 'part_span', 'take_rows']

_NUMBER = r'[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?'
_NUMBER_RE = re.compile(_NUMBER)
_INDEX_RE = re.compile(r'\+?\d+')
# a whole, well-formed line (comment removed, spaces around ':' closed up)
_LINE_RE = re.compile(r'\s*(?P<label>%s)(?::%s)?(?:\s+qid:\d+)?(?P<features>(?:\s+\+?\d+:%s)*)\s*'
                      % (_NUMBER, _NUMBER, _NUMBER))
_FEATURE_RE = re.compile(r'(\+?\d+):(%s)' % _NUMBER)
_AROUND_COLON = re.compile(r'[ \t]*:[ \t]*')
_LINE_BREAK = re.compile(r'\r\n|\r|\n')
# the characters MXNet's parser takes as part of a number: a comment line holding one of
# them is read by MXNet as a sample (see _comment_is_a_sample)
_NUMBER_CHARS = re.compile(r'[0-9+\-.eE]')
_UTF8_BOM = '\xef\xbb\xbf'         # as the latin-1 decoding of the file's bytes shows it


class LibSVMRows(namedtuple('LibSVMRows', ['labels', 'indptr', 'indices', 'values', 'where'])):
    """The lines of a LibSVM input in CSR form: ``labels`` (n,) float32, ``indptr`` (n+1,)
    int64, ``indices`` int64 and ``values`` float32 (row i is ``indptr[i]:indptr[i+1]``);
    ``where[i]`` is ``(file, line number)`` of row i, for messages."""

    @property
    def count(self):
        """The number of rows read (one per label)."""
        return len(self.labels)


# ------------------------------------------------------------------ the input's bytes
def _input_files(path, owner, what):
    """``[(file name, text)]`` MXNet reads for ``path``: the file, or a directory's files in
    the order the system lists them (MXNet does not sort); empty files are skipped, as
    MXNet's reader skips them.  Text is decoded byte for byte (latin-1), so that offsets in
    it are the byte offsets MXNet's partition works on."""
    if os.path.isdir(path):
        names = [os.path.join(path, n) for n in os.listdir(path)]
        names = [n for n in names if os.path.isfile(n)]
    elif os.path.isfile(path):
        names = [path]
    else:
        raise MXNetError('%s: %s %r: no such file or directory' % (owner, what, path))
    files = []
    for name in names:
        try:
            with open(name, 'rb') as f:
                raw = f.read()
        except OSError as err:
            raise MXNetError('%s: cannot read %s %r: %s' % (owner, what, name, err)) from None
        if raw:
            files.append((name, raw.decode('latin-1')))
    if not files:
        raise MXNetError('%s: %s %r holds no data (MXNet skips empty files, and found nothing '
                         'else to read)' % (owner, what, path))
    return files


def _next_line_start(texts, starts, offset):
    """The first line start at or after byte ``offset`` of the concatenated files, as MXNet's
    line splitter finds it: an offset at a file's start stays; otherwise the line holding
    ``offset`` (even one starting exactly there) goes to the part before, and the span
    begins after the next run of line breaks, or at the end of that file."""
    if offset in starts:
        return offset
    i = int(np.searchsorted(starts, offset, side='right')) - 1
    text = texts[i]
    at = offset - starts[i]
    breaks = re.compile(r'[\r\n]+').search(text, at)
    return starts[i] + (breaks.end() if breaks else len(text))


def part_span(texts, num_parts, part_index):
    """Byte span ``[begin, end)`` of the concatenated ``texts`` that part ``part_index`` of
    ``num_parts`` reads: the total is cut into spans of ``ceil(total / num_parts)`` bytes,
    and each cut is moved on to the next line start (``_next_line_start``)."""
    starts = np.concatenate([[0], np.cumsum([len(t) for t in texts])]).astype(np.int64).tolist()
    total = starts[-1]
    step = -(-total // num_parts)
    begin, end = min(step * part_index, total), min(step * (part_index + 1), total)
    if begin == end:
        return begin, begin
    return _next_line_start(texts, starts, begin), _next_line_start(texts, starts, end)


def _part_lines(files, num_parts, part_index):
    """``(file name, line number, line text, first)`` for the lines of one part, ``first``
    True for the line the part starts with (where MXNet sees a whole-line comment)."""
    texts = [text for _, text in files]
    begin, end = part_span(texts, num_parts, part_index)
    offset = 0
    first = True
    for name, text in files:
        lo, hi = max(begin - offset, 0), min(end - offset, len(text))
        offset += len(text)
        if lo >= hi:
            continue
        number = len(_LINE_BREAK.findall(text, 0, lo)) + 1
        for line in _LINE_BREAK.split(text[lo:hi]):
            if number == 1 and line.startswith(_UTF8_BOM):
                # MXNet's parser passes over the byte-order mark some editors write (as text
                # it cannot read, so a comment behind it is not seen as one: first is False)
                line, first = line[len(_UTF8_BOM):], False
            yield name, number, line, first
            first = False
            number += 1


# ------------------------------------------------------------------ one line
def _comment_is_a_sample(line, first):
    """True for a whole-line comment that MXNet 1.9.1 would read as a sample.

    MXNet's parser skips a ``#`` line only where the text it was handed begins (the part's
    first line); anywhere else the line's leading line break hides the ``#`` and the parser
    reads the first run of number characters as a label (``# comment`` has an ``e``)."""
    return not first and bool(_NUMBER_CHARS.search(line))


def _line_problem(text):
    """Why the comment-free ``text`` of a line is not LibSVM (for the error message)."""
    tokens = text.split()
    label = tokens[0].split(':')
    if len(label) > 2 or not all(_NUMBER_RE.fullmatch(part) for part in label):
        return 'the label %r is not a number (a line starts with label or label:weight)' % tokens[0]
    for place, token in enumerate(tokens[1:], 1):
        index, colon, value = token.partition(':')
        if index == 'qid':
            if place != 1:
                return '%r: a qid must come right after the label' % token
            if not re.fullmatch(r'\d+', value):
                return '%r: a qid is a whole number' % token
            continue
        if not colon:
            return '%r is not index:value (every feature needs its value)' % token
        if not _INDEX_RE.fullmatch(index):
            return '%r: the index must be a whole number of at least 0' % token
        if not _NUMBER_RE.fullmatch(value):
            return '%r: the value is not a number' % token
    return 'it is not label[:weight] [qid:n] index:value ...'


def _parse_line(line, first, owner, name, number):
    """``(label text, [(index text, value text)])`` of one line, or None for a line with no
    sample (blank, or a comment MXNet skips too)."""
    text = line.split('#', 1)[0]
    if not text.strip():
        if line.lstrip(' \t').startswith('#') and _comment_is_a_sample(line, first):
            raise MXNetError('%s: %s:%d: this comment line would be read as a sample by MXNet 1.9.1 (it '
                             'skips a whole-line comment only as the first line it reads, of the input or of '
                             'the part, with no byte-order mark before it); remove it (%r)'
                             % (owner, name, number, line[:80]))
        return None
    text = _AROUND_COLON.sub(':', text)
    match = _LINE_RE.fullmatch(text)
    if match is None:
        raise MXNetError('%s: %s:%d: %s (%r)' % (owner, name, number, _line_problem(text), line[:80]))
    return match.group('label'), _FEATURE_RE.findall(match.group('features'))


# ------------------------------------------------------------------ a whole input
def read_libsvm(path, width, num_parts=1, part_index=0, owner='LibSVMIter', what='data_libsvm'):
    """The samples of part ``part_index`` of ``num_parts`` of the LibSVM file or directory
    ``path``, as ``LibSVMRows`` of ``width`` columns; MXNetError naming the file and line of
    anything that is not LibSVM or of a column index outside ``[0, width)``."""
    labels, columns, values, counts, where = [], [], [], [], []
    for name, number, line, first in _part_lines(_input_files(path, owner, what), num_parts, part_index):
        parsed = _parse_line(line, first, owner, name, number)
        if parsed is None:
            continue
        label, features = parsed
        labels.append(label)
        columns.extend(index for index, _ in features)
        values.extend(value for _, value in features)
        counts.append(len(features))
        where.append((name, number))
    indptr = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)]).astype(np.int64)
    indices = _column_indices(columns, indptr, width, where, owner)
    return LibSVMRows(parse_floats(labels).astype(np.float32, copy=False),
                      indptr, indices, parse_floats(values).astype(np.float32, copy=False), where)


def _column_indices(columns, indptr, width, where, owner):
    """int64 indices of the index texts ``columns``; MXNetError naming the line of the first
    one outside ``[0, width)`` (MXNet would hand it out in the CSRNDArray)."""
    # an index too big for int64 is out of range anyway: capped at width, it is caught below
    indices = np.array([min(int(c), width) for c in columns], dtype=np.int64)
    outside = np.flatnonzero(indices >= width)
    if len(outside):
        row = int(np.searchsorted(indptr, outside[0], side='right')) - 1
        name, number = where[row]
        raise MXNetError('%s: %s:%d: column index %s is outside the %d columns of the shape (indices are '
                         'zero-based: 0 to %d)' % (owner, name, number, columns[outside[0]], width, width - 1))
    return indices


def take_rows(rows, which):
    """``(indptr, indices, values)`` of the rows ``which`` of ``rows``, in that order."""
    starts = rows.indptr[which]
    counts = rows.indptr[np.asarray(which) + 1] - starts
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    # entry k of the batch comes from entry (k - where its row starts here + where it starts there)
    source = np.arange(indptr[-1], dtype=np.int64) + np.repeat(starts - indptr[:-1], counts)
    return indptr, rows.indices[source], rows.values[source]


def _csr_batch(rows, which, width):
    indptr, indices, values = take_rows(rows, which)
    return csr_matrix((values, indices, indptr), shape=(len(which), width))


# ------------------------------------------------------------------ the iterator
class LibSVMIter(FileIter):
    """Batches of sparse samples read from LibSVM text, the data as ``CSRNDArray``.

    Keyword arguments only, as in MXNet.

    :param data_libsvm: the LibSVM file, or a directory whose files are read one after
        another (in the order the system lists them, as MXNet does).  Indices are zero-based.
    :param data_shape: ``(columns,)``: one sample is a row of that many columns; every index
        must be below it.
    :param batch_size: samples per batch.
    :param label_libsvm: a second LibSVM file whose lines' features are the labels, a
        CSRNDArray ``(batch_size, label_shape[0])``; ``'NULL'`` (the default) takes each
        line's label from ``data_libsvm`` instead, a dense ``(batch_size,)`` float32 array.
    :param label_shape: ``(1,)`` without ``label_libsvm``; ``(columns,)``, more than one,
        with it.
    :param num_parts: split the input into this many parts (one per worker of a
        distributed job)...
    :param part_index: ...and read this one (0-based).  The split is by bytes, moved to line
        starts, as MXNet's; a part may even be empty, which is an error here.
    :param round_batch: must be True, as MXNet's sparse batch loader requires: the last
        batch is completed from the first lines and ``pad`` counts those.
    :param dtype: None or ``'float32'`` (MXNet makes float32 and fails on any other).
    :param data_name: the name in ``provide_data``, ``'data'``.
    :param label_name: the name in ``provide_label``, ``'softmax_label'``.
    :param kwargs: ``prefetch_buffer`` and ``ctx`` are accepted and change nothing; other
        names are ignored with a warning on the ``reflib.io`` logger.
    :raises MXNetError: for the arguments MXNet refuses, and naming the file and line of
        anything it misreads (see the module's notes).

    Four samples of three columns, three to a batch; the second batch borrows the first
    two lines (``pad`` 2):

    >>> with open('four.t', 'w') as f:
    ...     f.write('1 0:0.5 2:1.2\\n-2\\n-3 0:0.6 1:2.4 2:1.2\\n4 2:-1.2\\n')
    47
    >>> it = mx.io.LibSVMIter(data_libsvm='four.t', data_shape=(3,), batch_size=3)
    >>> batch = it.next()
    >>> batch.data[0]
    <BLANKLINE>
    <CSRNDArray 3x3 @cpu(0)>
    >>> batch.data[0].indices.asnumpy(), batch.data[0].indptr.asnumpy()
    (array([0, 2, 0, 1, 2]), array([0, 2, 2, 5]))
    >>> batch.label[0].asnumpy(), batch.pad
    (array([ 1., -2., -3.], dtype=float32), 0)
    >>> it.next().pad
    2
    """

    def __init__(self, *, data_libsvm, data_shape, batch_size, label_libsvm='NULL', label_shape=(1,),
                 num_parts=1, part_index=0, round_batch=True, prefetch_buffer=4, ctx='gpu', dtype=None,
                 data_name='data', label_name='softmax_label', **kwargs):
        self.warn_unknown(kwargs)
        owner = self._name
        self._width = self._columns(owner, 'data_shape', data_shape)
        batch_size = parse_int(owner, 'batch_size', batch_size, minimum=1)
        num_parts = parse_int(owner, 'num_parts', num_parts, minimum=1)
        part_index = parse_int(owner, 'part_index', part_index, minimum=0)
        if part_index >= num_parts:
            raise MXNetError('%s: part_index must be below num_parts (%d), got %d' % (owner, num_parts, part_index))
        if not parse_bool(owner, 'round_batch', round_batch):
            raise MXNetError("%s: round_batch=False is not supported: MXNet 1.9.1's sparse batch loader "
                             'refuses it too (the last batch is always completed from the first lines)' % owner)
        check_dtype(owner, dtype, ('float32',))
        self._data = read_libsvm(os.fspath(data_libsvm), self._width, num_parts, part_index, owner)
        if self._data.count == 0:
            raise MXNetError('%s: %s holds no samples' % (owner, self._describe(data_libsvm, num_parts, part_index)))
        self._labels, self._label_width = self._read_labels(owner, label_libsvm, label_shape, num_parts, part_index,
                                                            data_libsvm)
        rows = np.arange(self._data.count, dtype=np.int64)
        # the buffer batches row numbers; the batch's rows are then taken from the CSR form
        self._buffer = BatchBuffer(owner, rows, rows, batch_size, round_batch=True)
        super().__init__(data_name, label_name)

    @staticmethod
    def _columns(owner, name, shape):
        shape = parse_shape(owner, name, shape)
        if len(shape) != 1:
            raise MXNetError('%s: %s must have one dimension, the number of columns, e.g. (3,); got %s (a CSR '
                             'batch is 2-D)' % (owner, name, shape))
        return shape[0]

    @staticmethod
    def _describe(path, num_parts, part_index):
        if num_parts == 1:
            return repr(os.fspath(path))
        return 'part %d of %d of %r (the parts split the bytes at line starts, so a part can be empty)' % (
            part_index, num_parts, os.fspath(path))

    def _read_labels(self, owner, label_libsvm, label_shape, num_parts, part_index, data_libsvm):
        """``(LibSVMRows of the label file or None, label columns)``, checking label_shape as MXNet does."""
        if label_libsvm is None or str(label_libsvm) == 'NULL':
            if int(np.prod(parse_shape(owner, 'label_shape', label_shape))) != 1:
                raise MXNetError('%s: label_shape must be (1,) without label_libsvm (the label is each '
                                 "line's first number), got %s" % (owner, label_shape))
            return None, 1
        width = self._columns(owner, 'label_shape', label_shape)
        if width == 1:
            raise MXNetError('%s: label_shape must be more than (1,) with label_libsvm (the labels are the '
                             "label file's features), got %s" % (owner, label_shape))
        labels = read_libsvm(os.fspath(label_libsvm), width, num_parts, part_index, owner, 'label_libsvm')
        if labels.count < self._data.count:
            raise MXNetError('%s: label_libsvm %s has %d samples for the %d of data_libsvm %s'
                             % (owner, self._describe(label_libsvm, num_parts, part_index), labels.count,
                                self._data.count, self._describe(data_libsvm, num_parts, part_index)))
        return labels, width

    def _before_first(self):
        self._buffer.before_first()

    def _next_batch(self):
        got = self._buffer.read()
        if got is None:
            return None
        rows, _, pad, index = got
        data = _csr_batch(self._data, rows, self._width)
        if self._labels is None:
            label = array(self._data.labels[rows])
        else:
            label = _csr_batch(self._labels, rows, self._label_width)
        return DataBatch(data=[data], label=[label], pad=int(pad), index=np.asarray(index, dtype=np.uint64))
