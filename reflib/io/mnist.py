"""``MNISTIter``: batches of images and labels from MNIST's idx files, as MXNet 1.9.1 makes them.

The idx format (http://yann.lecun.com/exdb/mnist/): a big-endian header, then raw
bytes.  An image file starts ``0x00000803, count, rows, cols`` (unsigned bytes, 3
dimensions), a label file ``0x00000801, count``.  The files are read uncompressed,
as MXNet reads them (a ``.gz`` is refused with a hint to gunzip it).

Facts checked against MXNet 1.9.1 (tests/golden/gen_io_iters.py):

* pixels become float32 ``p / 256`` (not /255: white is 0.99609375);
* data is ``(batch, 1, rows, cols)``, or ``(batch, rows * cols)`` with ``flat``; the label
  is float32 ``(batch,)``;
* a last incomplete batch is dropped (``pad`` is always 0) and ``getindex()`` is all zeros;
* ``num_parts``/``part_index`` keep images ``[n*i // parts, n*(i+1) // parts)``;
* ``shuffle`` (on by default) permutes the part once, when the iterator is made, with
  ``std::shuffle`` over ``mt19937(seed)``; every epoch has that order, and reflib's
  order is MXNet's exactly (see std_shuffle.py);
* ``dtype`` must be float32 (MXNet fails at the first batch on any other).
"""

import os
import struct
import sys

import numpy as np

from ..base import MXNetError
from .loader import FileIter, check_dtype, parse_bool, parse_int
from .std_shuffle import std_shuffle_order

__all__ = ['MNISTIter', 'read_idx', 'parse_idx']

_IDX_UBYTE = 0x08


def read_idx(path, ndim, owner='MNISTIter'):
    """The uint8 array stored in the idx file ``path``, which must have ``ndim`` dimensions."""
    try:
        with open(path, 'rb') as f:
            raw = f.read()
    except OSError as err:
        raise MXNetError('%s: cannot open %r: %s' % (owner, path, err.strerror or err)) from None
    if raw[:2] == b'\x1f\x8b':
        raise MXNetError('%s: %r is gzip-compressed; MXNet reads raw idx files, so gunzip it first'
                         % (owner, path))
    return parse_idx(raw, ndim, path, owner)


def parse_idx(raw, ndim, path, owner):
    """The uint8 array in ``raw``, the bytes of the idx file ``path`` (named in errors)."""
    header = 4 * (1 + ndim)
    if len(raw) < header:
        raise MXNetError('%s: %r is too short for an idx header of %d dimension(s): %d bytes, %d expected'
                         % (owner, path, ndim, len(raw), header))
    zero, kind, dims = struct.unpack('>HBB', raw[:4])
    if zero != 0 or kind != _IDX_UBYTE or dims != ndim:
        raise MXNetError('%s: %r is not an idx file of unsigned bytes with %d dimension(s): its magic '
                         'number is 0x%08x, expected 0x%08x'
                         % (owner, path, ndim, struct.unpack('>I', raw[:4])[0], (_IDX_UBYTE << 8) | ndim))
    shape = struct.unpack('>%dI' % ndim, raw[4:header])
    size = int(np.prod(shape))
    if len(raw) - header < size:
        raise MXNetError('%s: %r is truncated: its header promises %s = %d bytes of data, the file has %d'
                         % (owner, path, 'x'.join(map(str, shape)), size, len(raw) - header))
    return np.frombuffer(raw, np.uint8, size, header).reshape(shape)


class MNISTIter(FileIter):
    """Batches of images and labels read from a pair of MNIST idx files.

    The image file holds ``count`` images of ``rows x cols`` bytes, the label file at least
    ``count`` labels.  Pixels become float32 ``p / 256``; labels float32.  Keyword arguments
    only, as in MXNet.

    :param image: the image idx file (uncompressed), ``./train-images-idx3-ubyte`` by default.
    :param label: the label idx file, ``./train-labels-idx1-ubyte`` by default.
    :param batch_size: images per batch (128); a last incomplete batch is dropped, so
        ``pad`` is always 0.
    :param shuffle: permute the images once, when the iterator is made (on by default);
        every epoch then has that same order.
    :param seed: seeds the permutation (``std::mt19937(seed)``, MXNet's order exactly).
    :param flat: data ``(batch_size, rows * cols)`` instead of ``(batch_size, 1, rows, cols)``.
    :param silent: do not print the ``MNISTIter: load ...`` line on stderr.
    :param num_parts: into how many parts the images are split (one per distributed worker).
    :param part_index: which part this iterator reads: images ``[n * i // num_parts,
        n * (i + 1) // num_parts)``, taken before the shuffle.
    :param dtype: float32 (or None); MXNet fails on any other.
    :param data_name: the name in ``provide_data``, ``'data'``.
    :param label_name: the name in ``provide_label``, ``'softmax_label'``.
    :param kwargs: ``prefetch_buffer`` and ``ctx`` are accepted and change nothing (reflib
        reads in the calling thread); other names are ignored with a warning on the
        ``reflib.io`` logger.
    :raises MXNetError: naming the file when it is missing, gzip-compressed, not an idx
        file of bytes, or truncated, and when it holds fewer than ``batch_size`` images.

    Five 2x2 images, two to a batch; the fifth makes no full batch and is dropped:

    >>> import struct
    >>> pixels = np.arange(20, dtype=np.uint8).reshape(5, 2, 2) * 10
    >>> with open('five-images-idx3-ubyte', 'wb') as f:
    ...     f.write(struct.pack('>4I', 0x803, 5, 2, 2) + pixels.tobytes())
    36
    >>> with open('five-labels-idx1-ubyte', 'wb') as f:
    ...     f.write(struct.pack('>2I', 0x801, 5) + bytes([3, 1, 4, 1, 5]))
    13
    >>> it = mx.io.MNISTIter(image='five-images-idx3-ubyte',
    ...                      label='five-labels-idx1-ubyte', batch_size=2,
    ...                      shuffle=False, flat=True, silent=True)
    >>> it.provide_data[0].shape
    (2, 4)
    >>> for batch in it:
    ...     first_image = batch.data[0].asnumpy()[0] * 256
    ...     print(batch.label[0].asnumpy(), first_image, batch.pad)
    [3. 1.] [ 0. 10. 20. 30.] 0
    [4. 1.] [ 80.  90. 100. 110.] 0
    """

    def __init__(self, *, image='./train-images-idx3-ubyte', label='./train-labels-idx1-ubyte',
                 batch_size=128, shuffle=True, flat=False, seed=0, silent=False, num_parts=1,
                 part_index=0, prefetch_buffer=4, ctx='gpu', dtype=None,
                 data_name='data', label_name='softmax_label', **kwargs):
        self.warn_unknown(kwargs)
        owner = self._name
        batch_size = parse_int(owner, 'batch_size', batch_size, minimum=1)
        shuffle = parse_bool(owner, 'shuffle', shuffle)
        flat = parse_bool(owner, 'flat', flat)
        seed = parse_int(owner, 'seed', seed)
        num_parts = parse_int(owner, 'num_parts', num_parts, minimum=1)
        part_index = parse_int(owner, 'part_index', part_index, minimum=0)
        if part_index >= num_parts:
            raise MXNetError('MNISTIter: part_index must be below num_parts (%d), got %d' % (num_parts, part_index))
        check_dtype(owner, dtype, ('float32',))
        images = read_idx(os.fspath(image), 3)
        labels = read_idx(os.fspath(label), 1)
        total = images.shape[0]
        if labels.shape[0] < total:
            raise MXNetError('MNISTIter: %r has %d labels for the %d images of %r'
                             % (label, labels.shape[0], total, image))
        start, end = total * part_index // num_parts, total * (part_index + 1) // num_parts
        images, labels = images[start:end], labels[start:end]
        if shuffle:
            order = std_shuffle_order(len(images), seed)
            images, labels = images[order], labels[order]
        if len(images) < batch_size:
            raise MXNetError('MNISTIter: batch_size %d is larger than the %d images%s of %r; MNISTIter drops '
                             'an incomplete batch, so it would make none'
                             % (batch_size, len(images), '' if num_parts == 1 else ' of part %d/%d'
                                % (part_index, num_parts), image))
        self._images, self._labels = images, labels.astype(np.float32)
        self._batch = batch_size
        self._flat = flat
        self._loc = 0
        if not silent:
            # MXNet's log line, on stderr as there; its two branches print the shape differently:
            # flat as a TShape '(16,784)', 4-d as a list '[16,1,28,28]'
            shape = ('(%d,%d)' % (batch_size, images.shape[1] * images.shape[2]) if flat
                     else '[%d,1,%d,%d]' % ((batch_size,) + images.shape[1:]))
            print('MNISTIter: load %d images, shuffle=%d, shape=%s' % (len(images), shuffle, shape),
                  file=sys.stderr)
        super().__init__(data_name, label_name)

    def _before_first(self):
        self._loc = 0

    def _read_batch(self):
        if self._loc + self._batch > len(self._images):
            return None
        pixels = self._images[self._loc:self._loc + self._batch]
        label = self._labels[self._loc:self._loc + self._batch]
        self._loc += self._batch
        data = pixels.astype(np.float32) / np.float32(256)
        data = data.reshape(self._batch, -1) if self._flat else data[:, None]
        return data, label, 0, np.zeros(self._batch, np.uint64)
