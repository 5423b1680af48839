"""Reading and writing MXNet's binary NDArray files (``.params``, ``.nd``).

``mx.nd.save`` / ``mx.nd.load`` exchange files with MXNet 1.x byte for byte.
The layout below was worked out by saving arrays with MXNet 1.9.1 and reading
the bytes; every integer is little-endian.

File::

    uint64  list magic            0x112
    uint64  reserved              0 (ignored when reading)
    uint64  number of arrays      N
    N array records               (see below)
    uint64  number of names       0 (a list was saved) or N (a dict was saved)
    per name: uint64 byte length, then that many UTF-8 bytes
    (anything after the names is ignored, as MXNet does)

Array record, current form (what MXNet 1.9.1 writes)::

    uint32  record magic          0xF993FAC9  (0xF993FACA when MXNet was in
                                  numpy-shape mode, the only way to store 0-d arrays)
    int32   storage type          0 dense (1 row_sparse, 2 csr: not supported here)
    int32   ndim, then ndim x int64 dims
    int32   device type           1 cpu, 2 gpu, 3 cpu_pinned, 5 cpu_shared
    int32   device id
    int32   dtype flag            0 float32, 1 float64, 2 float16, 3 uint8,
                                  4 int32, 5 int8, 6 int64, 7 bool
    raw element bytes             C order, prod(dims) * itemsize bytes

In the 0xF993FAC9 form ``ndim == 0`` means "no shape" and the record stops
right after it; in the 0xF993FACA form that marker is ``ndim == -1`` and
``ndim == 0`` is a real 0-d array.  The form follows the shape semantics in force,
as in MXNet: inside ``mx.np_shape()`` ``save`` writes 0xF993FACA records and
``load`` reads only those; outside it, 0xF993FAC9 records only.  A file loaded in the
other semantics is refused, naming the scope to load it in.  A 0-d array has no
0xF993FAC9 form, so saving one outside ``mx.np_shape()`` is refused too (MXNet 1.9.1
writes it with ``ndim == 0`` and then cannot load the file).

MXNet also still reads two older record forms, and so does reflib:

* 0xF993FAC8: magic, uint32 ndim, int64 dims, device, dtype, data (no storage type);
* no magic at all: uint32 ndim, uint32 dims, device, dtype, data.

Loading puts every array on ``cpu(0)``, except arrays saved from ``gpu(i)``,
which go back to ``gpu(i)`` when that device is usable (MXNet does the same:
``cpu(1)`` and ``cpu_pinned`` arrays also come back as ``cpu(0)``).

Saving is atomic: the bytes go to a temporary file next to the target, which
then replaces the target in one ``os.replace``.  A crash mid-save leaves the
previous file untouched.
"""

import io
import math
import os
import struct

import numpy as np

from ..base import MXNetError
from ..context import Context, cpu, num_gpus
from ..shapes import is_np_shape
from .ndarray import NDArray, to_numpy, use_record_codec
from .sparse import CSRNDArray, RowSparseNDArray
from ..util import atomic_write

__all__ = ['save', 'load', 'load_frombuffer', 'save_to_bytes', 'NDArrayFileError']

LIST_MAGIC = 0x112
RECORD_MAGIC_V1 = 0xF993FAC8    # shape with int64 dims, no storage type
RECORD_MAGIC_V2 = 0xF993FAC9    # what MXNet 1.x writes
RECORD_MAGIC_V3 = 0xF993FACA    # same, written in numpy-shape mode (allows 0-d)

# dtype flag <-> numpy dtype (little-endian on disk)
FLAG_TO_DTYPE = {
    0: np.dtype('<f4'),
    1: np.dtype('<f8'),
    2: np.dtype('<f2'),
    3: np.dtype('u1'),
    4: np.dtype('<i4'),
    5: np.dtype('i1'),
    6: np.dtype('<i8'),
    7: np.dtype('?'),
}
DTYPE_TO_FLAG = {dt.newbyteorder('='): flag for flag, dt in FLAG_TO_DTYPE.items()}

STORAGE_NAMES = {0: 'default', 1: 'row_sparse', 2: 'csr'}
STORAGE_CODES = {name: code for code, name in STORAGE_NAMES.items()}
AUX_COUNT = {1: 1, 2: 2}        # row_sparse: indices; csr: indptr, then indices
DEV_CPU, DEV_GPU = 1, 2
CPU_LIKE_DEVICES = (DEV_CPU, 3, 5)     # cpu, cpu_pinned, cpu_shared

_DATA_ERROR = 'save only accept dict str->NDArray or list of NDArray'


class NDArrayFileError(MXNetError, ValueError):
    """An NDArray file (or buffer) is truncated, corrupt, or not an MXNet file at all."""


# ---------------------------------------------------------------- writing
def _normalize(data):
    """(arrays, names) from what ``save`` accepts, with MXNet's type errors."""
    if isinstance(data, NDArray):
        return [data], []
    if isinstance(data, dict):
        names, arrays = [], []
        for key, value in data.items():
            if not isinstance(key, str) or not isinstance(value, NDArray):
                raise TypeError(_DATA_ERROR)
            names.append(key)
            arrays.append(value)
        return arrays, names
    if isinstance(data, list):
        if not all(isinstance(x, NDArray) for x in data):
            raise TypeError(_DATA_ERROR)
        return list(data), []
    raise ValueError('data needs to either be a NDArray, dict of str, NDArray pairs '
                     'or a list of NDArrays, got %s' % type(data).__name__)


def _flag(dtype, label):
    flag = DTYPE_TO_FLAG.get(np.dtype(dtype).newbyteorder('='))
    if flag is None:
        raise MXNetError('cannot save %s: dtype %s has no MXNet type flag (supported: %s)'
                         % (label, dtype, ', '.join(str(d) for d in FLAG_TO_DTYPE.values())))
    return flag


def _shape_bytes(shape):
    return struct.pack('<i%dq' % len(shape), len(shape), *shape)


def _record(arr, label, np_shape):
    """The bytes of one array record (header and data) as a list of chunks.  A sparse array
    adds its storage shape (the stored values' shape) after the storage type, and after the
    dtype each index array's type flag and shape; its values, then its index arrays, follow."""
    host = to_numpy(arr._data)     # (np.ascontiguousarray would turn 0-d into 1-d)
    flag = _flag(host.dtype, label)
    magic = RECORD_MAGIC_V3 if np_shape else RECORD_MAGIC_V2
    ctx = arr.context
    storage = STORAGE_CODES[arr.stype]
    header = struct.pack('<Ii', magic, storage)
    aux = [to_numpy(a) for a in arr._aux] if storage else []
    if storage:
        header += _shape_bytes(host.shape)
    header += _shape_bytes(arr.shape)
    header += struct.pack('<iii', ctx.device_typeid, ctx.device_id, flag)
    for a in aux:
        header += struct.pack('<i', _flag(a.dtype, label)) + _shape_bytes(a.shape)
    body = [x.astype(x.dtype.newbyteorder('<'), copy=False).tobytes(order='C') for x in [host] + aux]
    return [header] + body


def record_bytes(arr):
    """One array's record, as MXNet's pickle of an NDArray holds it (``__getstate__``)."""
    return b''.join(_record(arr, 'pickle', is_np_shape()))


def from_record_bytes(buf):
    """The NDArray of one record (``__setstate__``), on its device where there is one."""
    reader = _Reader(buf, 'a pickled NDArray')
    make, dev_type, dev_id = _read_record(reader)
    if reader.pos != len(reader.buf):
        reader.fail('%d bytes after the record' % (len(reader.buf) - reader.pos))
    return make(_load_context(dev_type, dev_id))


use_record_codec(record_bytes, from_record_bytes)


def _write(stream, arrays, names):
    np_shape = is_np_shape()
    if not np_shape:
        scalars = [names[k] if names else k for k, arr in enumerate(arrays) if arr.ndim == 0]
        if scalars:
            raise MXNetError('cannot save 0-d array(s) %s outside mx.np_shape(): legacy shapes have no '
                             'scalar, and MXNet writes a file it cannot load; save inside '
                             '"with mx.np_shape():" (and load there too)' % scalars)
    stream.write(struct.pack('<QQQ', LIST_MAGIC, 0, len(arrays)))
    for k, arr in enumerate(arrays):
        label = 'array %r' % names[k] if names else 'array %d' % k
        for chunk in _record(arr, label, np_shape):
            stream.write(chunk)
    stream.write(struct.pack('<Q', len(names)))
    for name in names:
        raw = name.encode('utf-8')
        stream.write(struct.pack('<Q', len(raw)))
        stream.write(raw)


def save_to_bytes(data):
    """The bytes ``save`` would write for ``data``."""
    arrays, names = _normalize(data)
    stream = io.BytesIO()
    _write(stream, arrays, names)
    return stream.getvalue()


def _fname(fname):
    if isinstance(fname, os.PathLike):
        fname = os.fspath(fname)
    if not isinstance(fname, str):
        raise TypeError('fname required to be a string')
    return fname


def save(fname, data):
    """Save an NDArray, a list of NDArrays or a dict str->NDArray to ``fname``.

    The file is MXNet's binary format; ``mxnet.nd.load`` reads it.  Arrays on
    a gpu are written from a host copy and keep their device in the record.
    The write is atomic (temporary file + ``os.replace``).

    >>> import reflib as mx, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), 'w.params')
    >>> mx.nd.save(path, {'w': mx.nd.ones((2, 2))})
    >>> mx.nd.load(path)['w'].shape
    (2, 2)
    """
    fname = _fname(fname)
    arrays, names = _normalize(data)
    atomic_write(fname, lambda stream: _write(stream, arrays, names))


# ---------------------------------------------------------------- reading
class _Reader:
    """A cursor over the bytes of an NDArray file that raises clear errors."""

    def __init__(self, buf, source):
        self.buf = memoryview(buf).cast('B')
        self.pos = 0
        self.source = source
        self.where = 'the file header'

    def fail(self, what):
        raise NDArrayFileError('cannot load %s as MXNet NDArrays: %s (in %s, at byte %d)'
                               % (self.source, what, self.where, self.pos))

    def take(self, nbytes, what):
        if nbytes < 0 or self.pos + nbytes > len(self.buf):
            self.fail('truncated: needed %d bytes for %s but only %d remain'
                      % (nbytes, what, len(self.buf) - self.pos))
        start = self.pos
        self.pos += nbytes
        return self.buf[start:self.pos]

    def unpack(self, fmt, what):
        values = struct.unpack(fmt, self.take(struct.calcsize(fmt), what))
        return values[0] if len(values) == 1 else values


def _read_shape(reader, what):
    ndim = reader.unpack('<i', 'the ndim of ' + what)
    if ndim < 0 or ndim > 32:
        reader.fail('implausible ndim %d for %s (corrupt record)' % (ndim, what))
    shape = reader.unpack('<%dq' % ndim, what) if ndim else ()
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(d < 0 for d in shape):
        reader.fail('negative dimension in %s %s' % (what, shape))
    return shape


def _read_values(reader, shape, dtype, what):
    count = math.prod(shape)     # exact: garbage dims cannot overflow
    if math.prod(d for d in shape if d) * dtype.itemsize >= 2 ** 62:
        reader.fail('implausible shape %s (corrupt record)' % (shape,))
    raw = reader.take(count * dtype.itemsize, 'the data of a %s %s %s' % (dtype.name, shape, what))
    return np.frombuffer(raw, dtype=dtype.newbyteorder('<'), count=count).reshape(shape).astype(
        dtype.newbyteorder('='), copy=True)


def _read_sparse(reader, storage):
    """The rest of a sparse record -> (make(ctx) giving the sparse array, device type, id)."""
    stored = _read_shape(reader, 'the storage shape')
    shape = _read_shape(reader, 'the shape')
    dev_type, dev_id, flag = reader.unpack('<iii', 'the device and dtype')
    dtype = FLAG_TO_DTYPE.get(flag)
    if dtype is None or dev_type not in CPU_LIKE_DEVICES + (DEV_GPU,):
        reader.fail('unknown dtype flag %d or device type %d' % (flag, dev_type))
    aux_specs = []
    for k in range(AUX_COUNT[storage]):
        aux_dtype = FLAG_TO_DTYPE.get(reader.unpack('<i', 'an index type flag'))
        if aux_dtype is None:
            reader.fail('unknown index dtype flag')
        aux_specs.append((aux_dtype, _read_shape(reader, 'an index shape')))
    values = _read_values(reader, stored, dtype, 'values')
    aux = [_read_values(reader, s, d, 'index array') for d, s in aux_specs]

    def make(ctx):
        cls = CSRNDArray if storage == 2 else RowSparseNDArray
        with ctx.device_scope():
            out = cls(ctx.xp.asarray(values), [ctx.xp.asarray(a) for a in aux], shape, ctx)
        try:
            out.check_format(full_check=False)
        except MXNetError as err:
            reader.fail(str(err))
        return out
    return make, dev_type, dev_id


def _read_record(reader):
    """One array record -> (make(ctx) giving the array there, saved device type, saved device id)."""
    first = reader.unpack('<I', 'the record magic')
    np_shape = False
    if first in (RECORD_MAGIC_V2, RECORD_MAGIC_V3):
        np_shape = first == RECORD_MAGIC_V3
        storage = reader.unpack('<i', 'the storage type')
        if storage in AUX_COUNT:
            return _read_sparse(reader, storage)
        if storage != 0:
            reader.fail('unknown storage type %d (MXNet has 0 default, 1 row_sparse, 2 csr)' % storage)
        ndim = reader.unpack('<i', 'ndim')
        dim_fmt = 'q'
    elif first == RECORD_MAGIC_V1:
        ndim = reader.unpack('<I', 'ndim')
        dim_fmt = 'q'
    else:
        # the oldest form has no magic: the first word already is ndim
        ndim, dim_fmt = first, 'I'
    if np_shape != is_np_shape():
        reader.fail('the array was saved %s NumPy shape semantics; load it %s "with mx.np_shape(%s):", '
                    'as MXNet requires' % (('inside', 'inside', 'True') if np_shape else ('outside', 'outside', 'False')))
    if (np_shape and ndim == -1) or (not np_shape and ndim == 0):
        reader.fail('the record has no shape (an uninitialised NDArray, or a 0-d array that MXNet '
                    'saved outside numpy-shape mode; MXNet cannot load it either)')
    if ndim < 0 or ndim > 32:
        reader.fail('implausible ndim %d (corrupt record, or not an NDArray file)' % ndim)
    shape = reader.unpack('<%d%s' % (ndim, dim_fmt), 'the shape') if ndim else ()
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(d < 0 for d in shape):
        reader.fail('negative dimension in shape %s' % (shape,))
    dev_type, dev_id, flag = reader.unpack('<iii', 'the device and dtype')
    if dev_type not in CPU_LIKE_DEVICES + (DEV_GPU,):
        reader.fail('unknown device type %d' % dev_type)
    dtype = FLAG_TO_DTYPE.get(flag)
    if dtype is None:
        reader.fail('unknown or unsupported dtype flag %d (known: %s)'
                    % (flag, ', '.join('%d=%s' % kv for kv in FLAG_TO_DTYPE.items())))
    values = _read_values(reader, shape, dtype, 'array')

    def make(ctx):
        if ctx.device_type == 'gpu':
            with ctx.device_scope():
                return NDArray(ctx.xp.asarray(values), ctx)
        return NDArray(values, ctx)
    return make, dev_type, dev_id


def _load_context(dev_type, dev_id):
    """Where a loaded array goes: its gpu if usable, else cpu(0)."""
    if dev_type == DEV_GPU and 0 <= dev_id < num_gpus():
        return Context('gpu', dev_id)
    return cpu(0)


def _parse(buf, source):
    reader = _Reader(buf, source)
    magic = reader.unpack('<Q', 'the file magic')
    if magic != LIST_MAGIC:
        reader.pos = 0
        reader.fail('bad magic 0x%x (expected 0x%x): not an MXNet NDArray file' % (magic, LIST_MAGIC))
    reader.unpack('<Q', 'the reserved header word')
    count = reader.unpack('<Q', 'the array count')
    # every record needs at least 4 bytes; a bigger count means garbage
    if count > (len(reader.buf) - reader.pos) // 4:
        reader.fail('truncated or corrupt: the header announces %d arrays but only %d bytes follow'
                    % (count, len(reader.buf) - reader.pos))
    arrays = []
    for k in range(count):
        reader.where = 'array %d of %d' % (k, count)
        make, dev_type, dev_id = _read_record(reader)
        arrays.append(make(_load_context(dev_type, dev_id)))
    reader.where = 'the name table'
    nnames = reader.unpack('<Q', 'the name count')
    if nnames not in (0, count):
        reader.fail('%d names for %d arrays' % (nnames, count))
    names = []
    for k in range(nnames):
        reader.where = 'name %d of %d' % (k, nnames)
        length = reader.unpack('<Q', 'the name length')
        raw = bytes(reader.take(length, 'the name'))
        try:
            names.append(raw.decode('utf-8'))
        except UnicodeDecodeError:
            reader.fail('name %r is not UTF-8' % raw)
    if names:
        return dict(zip(names, arrays))
    return arrays


def load(fname):
    """Load a file written by ``save`` or by MXNet: a list, or a dict when names were saved.

    Raises ``NDArrayFileError`` (an ``MXNetError``) naming the file and the
    problem when it is truncated, corrupt, or not an NDArray file.
    """
    fname = _fname(fname)
    try:
        with open(fname, 'rb') as stream:
            buf = stream.read()
    except OSError as err:
        raise MXNetError('cannot open NDArray file %r: %s' % (fname, err.strerror or err)) from err
    return _parse(buf, 'file %r' % fname)


def load_frombuffer(buf):
    """Like ``load``, from the bytes of a file (bytes, bytearray or memoryview)."""
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise TypeError('buf required to be bytes, got %s' % type(buf).__name__)
    return _parse(buf, 'the buffer')
