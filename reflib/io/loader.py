"""What MXNet's file iterators (``MNISTIter``, ``CSVIter``, ...) share: ``FileIter``.

In MXNet 1.9.1 these iterators live in C++ and reach Python through one wrapper
class, ``MXDataIter``, whose conventions every one of them inherits:

* the first batch is read when the iterator is made, and ``provide_data`` /
  ``provide_label`` describe that batch (so a file that cannot fill one batch
  fails at construction);
* ``getdata()``/``getlabel()`` return one NDArray (``next()`` wraps each in a list);
* ``getindex()`` is a numpy uint64 array;
* keyword arguments are parsed as strings and unknown ones are ignored (reflib
  logs a warning naming them, since a misspelt ``batch_size`` would otherwise
  silently become the default).

A subclass reads its file in ``__init__`` and implements ``_before_first()`` and
``_read_batch()``; ``BatchBuffer`` is MXNet's batch loader for iterators that
make one sample at a time (CSVIter): ``round_batch`` and its overflow.
"""

import logging

import numpy as np

from ..base import MXNetError
from ..ndarray import array
from .dataiter import DataBatch, DataDesc, DataIter

__all__ = ['FileIter', 'BatchBuffer', 'parse_bool', 'parse_int', 'parse_shape', 'check_dtype']

# parameters every MXNet file iterator accepts; reflib reads batches on the CPU
# and has no prefetch thread, so these change nothing here
COMMON_IGNORED = ('prefetch_buffer', 'ctx')
_LOG = logging.getLogger('reflib.io')


def parse_bool(owner, name, value):
    """MXNet parses booleans from strings: True/False, 1/0 and 'true'/'false' all work."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if text in ('1', 'true'):
        return True
    if text in ('0', 'false'):
        return False
    raise MXNetError('%s: %s must be a boolean (True/False or 1/0), got %r' % (owner, name, value))


def parse_int(owner, name, value, minimum=None):
    """Read the integer argument ``name`` of iterator ``owner`` from ``value`` (an int or a
    string such as ``'32'``, as MXNet parses its arguments from strings).

    Raises MXNetError naming ``owner`` and ``name`` when ``value`` is not an integer or is
    below ``minimum`` (when one is given).

    >>> from reflib.io.loader import parse_int
    >>> parse_int('CSVIter', 'batch_size', ' 32 ', minimum=1)
    32
    """
    try:
        number = int(str(value).strip())
    except ValueError:
        raise MXNetError('%s: %s must be an integer, got %r' % (owner, name, value)) from None
    if minimum is not None and number < minimum:
        raise MXNetError('%s: %s must be at least %d, got %d' % (owner, name, minimum, number))
    return number


def parse_shape(owner, name, value):
    """A shape as a tuple of positive ints; MXNet also accepts the string '(3,2)'."""
    if isinstance(value, str):
        text = value.strip().strip('()[]')
        value = [v for v in text.split(',') if v.strip()]
    if isinstance(value, (int, np.integer)):
        value = (value,)
    try:
        shape = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise MXNetError('%s: %s must be a shape such as (3,) or (1, 28, 28), got %r'
                         % (owner, name, value)) from None
    if not shape or any(s <= 0 for s in shape):
        raise MXNetError('%s: %s must be a non-empty shape of positive sizes, got %r' % (owner, name, value))
    return shape


def check_dtype(owner, dtype, supported):
    """The numpy dtype for ``dtype`` (None means float32), refused unless in ``supported``."""
    name = 'float32' if dtype is None or str(dtype) == 'None' else np.dtype(dtype).name
    if name not in supported:
        raise MXNetError('%s: dtype %r is not supported; MXNet 1.9.1\'s %s makes %s'
                         % (owner, name, owner, ' or '.join(supported)))
    return np.dtype(name)


class FileIter(DataIter):
    """Base of the file iterators: MXNet's ``MXDataIter`` conventions over ``_read_batch``."""

    @property
    def _name(self):
        # the iterator's name in errors and warnings, its class's, as MXNet's iterators say it
        return type(self).__name__

    def __init__(self, data_name='data', label_name='softmax_label'):
        super().__init__()
        self._current = None
        self._first = self._next_batch()
        if self._first is None:
            raise MXNetError('%s: the input makes no batch at all (is it empty, or smaller than '
                             'batch_size?)' % self._name)
        data, label = self._first.data[0], self._first.label[0]
        self.provide_data = [DataDesc(data_name, data.shape, data.dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, label.dtype)]
        self.batch_size = data.shape[0]

    @classmethod
    def warn_unknown(cls, kwargs):
        """Log a warning on the ``reflib.io`` logger naming the keyword arguments in ``kwargs`` the
        iterator does not know (MXNet silently ignores them); ``prefetch_buffer`` and ``ctx``
        are accepted without a warning.  Returns nothing.
        """
        unknown = sorted(k for k in kwargs if k not in COMMON_IGNORED)
        if unknown:
            # reflib's own logger, not the root one: a root logging call before the script's
            # logging.basicConfig would configure logging itself (at WARNING) and silence
            # fit's INFO lines, as in MXNet's example/module/mnist_mlp.py
            _LOG.warning('%s: ignoring unknown argument(s) %s (MXNet ignores them too)',
                         cls.__name__, ', '.join(unknown))

    # subclasses --------------------------------------------------------------------------
    def _before_first(self):
        raise NotImplementedError

    def _read_batch(self):
        """``(data, label, pad, index)`` as numpy arrays and an int, or None at the end."""
        raise NotImplementedError

    # the protocol ------------------------------------------------------------------------
    def _next_batch(self):
        got = self._read_batch()
        if got is None:
            return None
        data, label, pad, index = got
        return DataBatch(data=[array(data, dtype=data.dtype)], label=[array(label, dtype=label.dtype)],
                         pad=int(pad), index=np.asarray(index, dtype=np.uint64).copy())

    def reset(self):
        """Rewind to the start of the file (through the subclass's ``_before_first``); the next
        ``next()`` reads the first batch again.
        """
        self._first = None
        self._current = None
        self._before_first()

    def next(self):
        """Return the next DataBatch (its data and label are one-element lists), or raise
        StopIteration at the end.  The first call after construction returns the batch already
        read when the iterator was made.
        """
        if self._first is not None:
            # the batch read at construction is the epoch's first
            self._current, self._first = self._first, None
            return self._current
        self._current = self._next_batch()
        if self._current is None:
            raise StopIteration
        return self._current

    def iter_next(self):
        """Move to the next batch, as ``next()`` does; True if there was one, False at the end.

        Unlike MXNet's wrapper (whose first call keeps answering the preloaded first batch
        without consuming it), every call here moves on by one batch.
        """
        # MXNet's wrapper answers True for the preloaded first batch without using it up, so a
        # loop over iter_next()/getdata() sees the first batch forever; here it is used up
        try:
            self.next()
        except StopIteration:
            return False
        return True

    def _require_current(self):
        if self._current is None:
            raise MXNetError('%s: no current batch; call iter_next() or next() first' % self._name)
        return self._current

    def getdata(self):
        """The data of the current batch as a single NDArray (not a list, as in MXNet's
        ``MXDataIter``).  Raises MXNetError before the first ``iter_next()``/``next()``.
        """
        return self._require_current().data[0]

    def getlabel(self):
        """The label of the current batch as a single NDArray (not a list).  Raises MXNetError
        before the first ``iter_next()``/``next()``.
        """
        return self._require_current().label[0]

    def getindex(self):
        """The sample indices of the current batch, a numpy uint64 array.  Raises MXNetError
        before the first ``iter_next()``/``next()``.
        """
        return self._require_current().index

    def getpad(self):
        """The number of padding samples in the current batch (an int).  Raises MXNetError before
        the first ``iter_next()``/``next()``.
        """
        return self._require_current().pad


class BatchBuffer:
    """MXNet's batch loader: samples ``0..n-1`` (rows of ``data``/``label``) into batches.

    * A full batch is ``batch_size`` consecutive samples.
    * ``round_batch=True``: a short last batch is completed from the start of the data and
      ``pad`` counts the borrowed samples.  The next ``reset()`` then does *not* rewind:
      the following epoch goes on after the borrowed samples (it is shorter).  The reset
      after that rewinds.  A batch needing more samples than the data has is an error.
    * ``round_batch=False``: a short last batch keeps, after the real samples, whatever
      the previous batch left in the buffer (zeros at first) and ``pad`` counts those.
    """

    def __init__(self, owner, data, label, batch_size, round_batch):
        self.owner = owner
        self.data, self.label = data, label
        self.num = data.shape[0]
        self.batch_size = batch_size
        self.round_batch = round_batch
        self.out_data = np.zeros((batch_size,) + data.shape[1:], data.dtype)
        self.out_label = np.zeros((batch_size,) + label.shape[1:], label.dtype)
        self.out_index = np.zeros(batch_size, np.uint64)
        self.pos = 0
        self.overflow = 0

    def before_first(self):
        """Prepare for a new epoch: go back to sample 0, except right after an epoch whose last
        batch borrowed samples from the start (``round_batch``); then the position is kept, so
        the next epoch starts after the borrowed samples.
        """
        if not self.round_batch or self.overflow == 0:
            self.pos = 0
        else:
            self.overflow = 0   # the borrowed samples are skipped in the next epoch instead

    def _take(self, slot):
        self.out_data[slot] = self.data[self.pos]
        self.out_label[slot] = self.label[self.pos]
        self.out_index[slot] = self.pos
        self.pos += 1

    def read(self):
        """Fill the next batch.  Returns ``(data, label, pad, index)`` (copies of the numpy batch
        buffers and the number of padding samples), or None when the epoch is over.

        Raises MXNetError when ``round_batch`` is on and completing the last batch would need
        more samples than the data has.
        """
        if self.overflow:
            return None    # the epoch ended with borrowed samples; reset() first
        top = 0
        while top < self.batch_size and self.pos < self.num:
            self._take(top)
            top += 1
        if top == 0:
            return None
        pad = 0
        if top < self.batch_size:
            if self.round_batch:
                self.pos = 0
                for slot in range(top, self.batch_size):
                    if self.pos >= self.num:
                        raise MXNetError('%s: batch_size %d needs more samples than the data has (%d) to '
                                         'complete a batch with round_batch=True'
                                         % (self.owner, self.batch_size, self.num))
                    self._take(slot)
                self.overflow = pad = self.batch_size - top
            else:
                pad = self.batch_size - top
        return self.out_data.copy(), self.out_label.copy(), pad, self.out_index.copy()
