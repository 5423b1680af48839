"""``mx.recordio``: MXNet's RecordIO files, a sequence of byte records, and the image
records that ``im2rec`` packs and ``mx.io.ImageRecordIter`` reads.

The file format (the same bytes MXNet writes; dmlc-core's RecordIO):

* every record starts on a 4-byte boundary with two little-endian uint32 words: the magic
  number ``0xced7230a`` and ``lrecord = cflag << 29 | length``;
* then ``length`` bytes of data and zero bytes up to the next multiple of 4;
* ``cflag`` is 0 for a whole record.  A reader finds records by looking for the magic
  number, so a record whose data holds the magic number at an offset that is a multiple
  of 4 is cut there into parts (cflag 1 = first, 2 = middle, 3 = last) and the magic
  number itself is left out; the reader puts it back between the parts;
* ``length`` has 29 bits: a record (part) must be shorter than 2**29 bytes (512 MiB).

An image record (``pack``) is a 24-byte header ``IRHeader(flag, label, id, id2)`` packed
as ``<IfQQ`` (uint32, float32, uint64, uint64), then, when the label is an array, its
``flag`` float32 values, then the encoded image.

>>> import reflib as mx
>>> s = mx.recordio.pack(mx.recordio.IRHeader(0, [1, 2], 7, 0), b'png bytes')
>>> mx.recordio.unpack(s)
(HEADER(flag=2, label=array([1., 2.], dtype=float32), id=7, id2=0), b'png bytes')

An ``.idx`` file (``MXIndexedRecordIO``) is text, one ``key<TAB>byte offset`` line per record.
"""

import numbers
import os
import secrets
import struct
from collections import namedtuple
from multiprocessing import current_process

import numpy as np

from . import util
from .base import MXNetError
from .image_codec import decode, encode

__all__ = ['MXRecordIO', 'MXIndexedRecordIO', 'IRHeader', 'pack', 'unpack', 'pack_img', 'unpack_img']

_MAGIC = 0xced7230a
_MAGIC_BYTES = struct.pack('<I', _MAGIC)
_LENGTH_BITS = 29
_MAX_LENGTH = (1 << _LENGTH_BITS) - 1
_WHOLE, _FIRST, _MIDDLE, _LAST = 0, 1, 2, 3


def _pad(n):
    return (4 - n % 4) % 4


def _parts(buf):
    """The (cflag, bytes) parts one record is written as: cut where the magic number sits at
    an offset that is a multiple of 4 (the magic number itself is dropped)."""
    cuts, start = [], 0
    pos = buf.find(_MAGIC_BYTES)
    while pos != -1:
        if pos % 4 == 0:
            cuts.append(buf[start:pos])
            start = pos + 4
            pos = buf.find(_MAGIC_BYTES, start)
        else:
            pos = buf.find(_MAGIC_BYTES, pos + 1)
    if not cuts:
        return [(_WHOLE, buf)]
    pieces = cuts + [buf[start:]]
    return [(_FIRST if i == 0 else _LAST if i == len(pieces) - 1 else _MIDDLE, p) for i, p in enumerate(pieces)]


class _AtomicFile:
    """A file written under a temporary name beside ``path`` and renamed over it on ``commit``,
    so that a crash leaves the old file whole (the same temporary names as reflib.util's)."""

    def __init__(self, path):
        self.target = util._target(path)
        util.sweep_temps(self.target)
        directory, name = os.path.split(self.target)
        self.tmp = os.path.join(directory, util._TEMP % (name, os.getpid(), secrets.token_hex(4)))
        self.stream = open(self.tmp, 'xb')

    def commit(self):
        self.stream.flush()
        os.fsync(self.stream.fileno())
        self.stream.close()
        os.chmod(self.tmp, util._new_file_mode(self.target))
        os.replace(self.tmp, self.target)
        util.fsync_directory(os.path.dirname(self.target))


class MXRecordIO:
    """Sequential reader (``flag='r'``) or writer (``flag='w'``) of a RecordIO file.

    >>> w = mx.recordio.MXRecordIO('tmp.rec', 'w')          # doctest: +SKIP
    >>> for i in range(3): w.write(b'record_%d' % i)        # doctest: +SKIP
    >>> w.close()                                           # doctest: +SKIP
    >>> r = mx.recordio.MXRecordIO('tmp.rec', 'r')          # doctest: +SKIP
    >>> r.read(), r.read(), r.read(), r.read()              # doctest: +SKIP
    (b'record_0', b'record_1', b'record_2', None)

    A writer writes a temporary file that ``close`` renames over ``uri``: until then (or
    if the process dies) the old file stays as it was.  As in MXNet, pickling closes the
    object; the copy reopens the file (a reader at its start, a writer empty).
    """

    def __init__(self, uri, flag):
        self.uri = os.fspath(uri)
        self.flag = flag
        self.pid = None
        self.is_open = False
        self._file = None
        self.open()

    def open(self):
        """Open ``uri`` as ``flag`` says: ``'r'`` reads from the first record, ``'w'`` starts a new
        file (written to a temporary file that ``close`` renames over ``uri``).  The constructor
        calls it; call it again after ``close`` to reopen.

        Raises:
            MXNetError: a file to read cannot be opened.
            ValueError: ``flag`` is neither ``'r'`` nor ``'w'``.
        """
        if self.flag == 'w':
            self._file = _AtomicFile(self.uri)
            self.writable = True
        elif self.flag == 'r':
            try:
                self._file = open(self.uri, 'rb')
            except OSError as err:
                raise MXNetError('MXRecordIO: cannot open %r for reading: %s' % (self.uri, err.strerror)) from None
            self.writable = False
        else:
            raise ValueError('Invalid flag %s' % self.flag)
        self.pid = current_process().pid
        self.is_open = True

    def close(self):
        """Close the file; a writer's records then replace ``uri`` in one rename.  Closing a closed
        object does nothing.
        """
        if not self.is_open:
            return
        if self.writable:
            self._file.commit()
        else:
            self._file.close()
        self._file = None
        self.is_open = False
        self.pid = None

    def __del__(self):
        if getattr(self, 'is_open', False):
            self.close()

    def __getstate__(self):
        was_open = self.is_open
        self.close()
        state = dict(self.__dict__)
        state['is_open'] = was_open
        state['_file'] = None
        return state

    def __setstate__(self, state):
        was_open = state['is_open']
        self.__dict__ = state
        self.is_open = False
        if was_open:
            self.open()

    def _check_pid(self, allow_reset=False):
        # a file object inherited through fork shares its position with the parent
        if self.pid != current_process().pid:
            if not allow_reset:
                raise RuntimeError('Forbidden operation in multiple processes')
            self.reset()

    def _check_open(self, writing):
        if not self.is_open:
            raise MXNetError('MXRecordIO: %r is closed' % self.uri)
        if writing != self.writable:
            raise MXNetError('MXRecordIO: %r was opened with flag %r, cannot %s' %
                             (self.uri, self.flag, 'write' if writing else 'read'))

    def reset(self):
        """Back to the first record (a writer starts an empty file again)."""
        if self.is_open and self.writable:   # drop what was written, as MXNet's truncation does
            self._file.stream.close()
            os.unlink(self._file.tmp)
            self.is_open = False
        self.close()
        self.open()

    def write(self, buf):
        """Append ``buf`` (bytes) as one record."""
        self._check_open(writing=True)
        self._check_pid(allow_reset=False)
        buf = bytes(buf)
        stream = self._file.stream
        for cflag, part in _parts(buf):
            if len(part) > _MAX_LENGTH:
                raise MXNetError('MXRecordIO: a record must be shorter than 2**29 bytes, got %d bytes for %r'
                                 % (len(buf), self.uri))
            stream.write(struct.pack('<II', _MAGIC, cflag << _LENGTH_BITS | len(part)))
            stream.write(part)
            stream.write(b'\0' * _pad(len(part)))

    def _read_part(self):
        """(cflag, data) of the next record part, or None at the end of the file."""
        stream = self._file
        offset = stream.tell()
        head = stream.read(8)
        if not head:
            return None
        if len(head) < 8:
            raise MXNetError('MXRecordIO: %r ends inside a record header at byte %d' % (self.uri, offset))
        magic, lrecord = struct.unpack('<II', head)
        if magic != _MAGIC:
            raise MXNetError('MXRecordIO: %r has no record at byte %d (expected magic number 0x%08x, got 0x%08x): '
                             'not a RecordIO file, or damaged' % (self.uri, offset, _MAGIC, magic))
        length = lrecord & _MAX_LENGTH
        data = stream.read(length + _pad(length))
        if len(data) < length:
            raise MXNetError('MXRecordIO: %r is cut short: the record at byte %d says %d bytes, %d are left'
                             % (self.uri, offset, length, len(data)))
        return lrecord >> _LENGTH_BITS, data[:length]

    def read(self):
        """The next record as bytes, or None after the last one."""
        self._check_open(writing=False)
        self._check_pid(allow_reset=False)
        part = self._read_part()
        if part is None:
            return None
        cflag, data = part
        if cflag == _WHOLE:
            return data
        if cflag != _FIRST:
            raise MXNetError('MXRecordIO: %r: a record starts with a continuation part (flag %d)' % (self.uri, cflag))
        pieces = [data]
        while cflag != _LAST:
            part = self._read_part()
            if part is None or part[0] not in (_MIDDLE, _LAST):
                raise MXNetError('MXRecordIO: %r: a record split into parts misses its last part' % self.uri)
            cflag, data = part
            pieces.append(data)
        return _MAGIC_BYTES.join(pieces)


class MXIndexedRecordIO(MXRecordIO):
    """A RecordIO file plus its ``.idx`` file: records read by key in any order.

    ``keys`` lists the keys in file order, ``idx`` maps key -> byte offset; keys are parsed
    with ``key_type`` when read.  The ``.idx`` file is written atomically too, on ``close``.
    """

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = os.fspath(idx_path)
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self._fidx = None
        super().__init__(uri, flag)

    def open(self):
        """Open the record file as ``MXRecordIO.open`` does, and the index: a reader loads
        ``idx_path`` into ``keys`` and ``idx``, a writer starts an empty index.

        Raises:
            MXNetError: the index cannot be read, or a line of it is not ``key<TAB>offset`` with
                an offset of 0 or more.
        """
        super().open()
        self.idx = {}
        self.keys = []
        if self.writable:
            self._fidx = _AtomicFile(self.idx_path)
            return
        try:
            with open(self.idx_path) as fidx:
                lines = fidx.read().splitlines()
        except OSError as err:
            raise MXNetError('MXIndexedRecordIO: cannot read index %r: %s' % (self.idx_path, err.strerror)) from None
        for number, line in enumerate(lines, 1):
            fields = line.strip().split('\t')
            if fields == ['']:
                continue
            try:
                key, pos = self.key_type(fields[0]), int(fields[1])
            except (ValueError, IndexError):
                raise MXNetError('MXIndexedRecordIO: %r line %d: expected "key<TAB>offset", got %r'
                                 % (self.idx_path, number, line)) from None
            if pos < 0:
                raise MXNetError('MXIndexedRecordIO: %r line %d: offset %d of key %r is negative; an offset '
                                 'is where the record starts in %r' % (self.idx_path, number, pos, key,
                                                                       self.uri))
            self.idx[key] = pos
            self.keys.append(key)

    def close(self):
        """Close the record file as ``MXRecordIO.close`` does; a writer's index is then written to
        ``idx_path``, atomically as well.
        """
        if not self.is_open:
            return
        super().close()
        if self._fidx is not None:
            self._fidx.commit()
            self._fidx = None

    def reset(self):
        if self.is_open and self.writable:
            self._fidx.stream.close()
            os.unlink(self._fidx.tmp)
            self._fidx = None
        super().reset()

    def __getstate__(self):
        state = super().__getstate__()
        state['_fidx'] = None
        return state

    def seek(self, idx):
        """Move the reader to the record with key ``idx``."""
        self._check_open(writing=False)
        self._check_pid(allow_reset=True)
        if idx not in self.idx:
            raise KeyError('MXIndexedRecordIO: no key %r in %r' % (idx, self.idx_path))
        self._file.seek(self.idx[idx])

    def tell(self):
        """Byte offset the next record will be written at."""
        self._check_open(writing=True)
        return self._file.stream.tell()

    def read_idx(self, idx):
        """The record with key ``idx``."""
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf):
        """Append ``buf`` as the record with key ``idx``."""
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self._fidx.stream.write(('%s\t%d\n' % (key, pos)).encode())
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple('HEADER', ['flag', 'label', 'id', 'id2'])
IRHeader.__doc__ = """Header of an image record: ``flag`` (the number of float32 labels that follow the
header, 0 when ``label`` is a single number), ``label``, ``id`` and ``id2`` (uint64 ids)."""

_IR_FORMAT = '<IfQQ'
_IR_SIZE = struct.calcsize(_IR_FORMAT)   # 24


def pack(header, s):
    """Header + bytes ``s`` -> one image record.  A label array sets ``flag`` to its size."""
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
        labels = b''
    else:
        label = np.asarray(header.label, dtype=np.float32).ravel()
        header = header._replace(flag=label.size, label=0)
        labels = label.tobytes()
    try:
        head = struct.pack(_IR_FORMAT, *header)
    except struct.error as err:
        raise MXNetError('recordio.pack: bad header %r: %s' % (tuple(header), err)) from None
    return head + labels + bytes(s)


def unpack(s):
    """An image record -> ``(IRHeader, payload bytes)``; ``label`` is a float32 array when flag > 0."""
    if len(s) < _IR_SIZE:
        raise MXNetError('recordio.unpack: a record needs a %d-byte header, got %d bytes' % (_IR_SIZE, len(s)))
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if len(s) < 4 * header.flag:
            raise MXNetError('recordio.unpack: header says %d labels, the record holds %d bytes after it'
                             % (header.flag, len(s)))
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[4 * header.flag:]
    return header, s


def unpack_img(s, iscolor=-1):
    """An image record -> ``(IRHeader, uint8 image)`` as OpenCV's ``imdecode`` gives it, in
    BGR order: ``iscolor`` -1 keeps the file's channels (H x W gray, H x W x 3 BGR, H x W x 4
    BGRA), 0 gives H x W gray, 1 gives H x W x 3 BGR.  Decoded with Pillow."""
    header, payload = unpack(s)
    return header, decode(payload, iscolor, bgr=True)


def pack_img(header, img, quality=95, img_fmt='.jpg'):
    """Header + image -> one image record.  ``img`` is uint8, H x W (gray) or H x W x 3 in BGR
    order (H x W x 4 BGRA), as OpenCV holds images; ``img_fmt`` '.jpg' (``quality`` 1-100) or
    '.png' (``quality`` is the zlib compression level 0-9).  Encoded with Pillow."""
    return pack(header, encode(img, img_fmt, quality, bgr=True))
