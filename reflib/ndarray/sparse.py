"""Sparse storage: ``CSRNDArray`` and ``RowSparseNDArray`` (``mx.nd.sparse``).

Most of a big embedding's gradient is zero: a batch touches a few rows of a 1,000,000-row
table.  MXNet stores such arrays in two sparse forms besides the dense ``'default'`` one:

``'csr'``         a 2-D matrix as compressed sparse rows: ``data`` holds the non-zero values
                  row after row, ``indices`` their columns, ``indptr`` where each row starts
                  in them (``indptr[i]:indptr[i + 1]`` is row i).  Data files of sparse
                  features (LibSVM) come in this form.
``'row_sparse'``  an array of any rank, of which only some rows (slices along axis 0) are
                  stored: ``data`` holds them, ``indices`` says which rows they are.  Sparse
                  gradients and the weights a KVStore hands out row by row take this form.

The components are plain arrays of the array's device (numpy, or cupy on a GPU), with
MXNet's index dtype int64.  The CSR arithmetic that numpy has not (a product, a
conversion) comes from scipy.sparse on the CPU and cupyx.scipy.sparse on a GPU.

An operator with no sparse form runs on the dense array, as MXNet's "storage fallback"
does: ``csr + 1`` is a dense NDArray, while ``csr * 2`` and ``csr + csr`` stay CSR.
"""

import numpy as np

from ..base import MXNetError, ParamError, ShapeError, mx_real_t
from ..context import Context, current_context
from .ndarray import STORAGE_CASTS, STORAGE_ZEROS, NDArray, move, to_numpy
from .op_functions import SPARSE_FORMS, invoke
from ..operator import get as get_operator
from ..operator.registry import OpEnv

__all__ = ['BaseSparseNDArray', 'CSRNDArray', 'RowSparseNDArray', 'csr_matrix', 'row_sparse_array', 'zeros',
           'zeros_like', 'empty', 'array', 'dot', 'retain', 'cast_storage', 'add', 'subtract', 'multiply', 'divide']

INDEX_DTYPE = np.int64


def _scipy_sparse(xp):
    """scipy.sparse for numpy arrays, cupyx.scipy.sparse for cupy ones."""
    if xp is np:
        import scipy.sparse as sparse_module     # loaded on first use: only sparse code needs scipy
        return sparse_module
    import cupyx.scipy.sparse as sparse_module   # only with cupy, on a GPU
    return sparse_module


class BaseSparseNDArray(NDArray):
    """What both sparse forms share: a shape, a values array (``_data``) and index arrays
    (``_aux``) on one device.  ``.data`` and the index properties hand out copies, as MXNet's
    do; ``todense()``/``tostype('default')`` gives the dense NDArray."""
    __slots__ = ('_shape', '_aux')
    stype = None

    def __init__(self, data, aux, shape, ctx=None):
        super().__init__(data, ctx)
        self._aux = list(aux)
        self._shape = tuple(int(d) for d in shape)

    @property
    def shape(self):
        return self._shape

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def size(self):
        raise NotImplementedError('%s has no size of its own (as in MXNet): use .data.size for the '
                                  'stored values or prod(shape) for the dense count' % type(self).__name__)

    @property
    def data(self):
        """A copy of the stored values (an NDArray)."""
        return NDArray(self._data.copy(), self._ctx)

    @property
    def indices(self):
        """A copy of the index array (int64): columns for CSR, rows for row_sparse."""
        return NDArray(self._aux[-1].copy(), self._ctx)

    def __len__(self):
        return self._shape[0]

    def __repr__(self):
        return '\n<%s %s @%s>' % (type(self).__name__, 'x'.join(str(d) for d in self._shape), self._ctx)

    def _dense_data(self):
        raise NotImplementedError

    def todense(self):
        """The dense NDArray holding the same values."""
        return NDArray(self._dense_data(), self._ctx)

    def asnumpy(self):
        return to_numpy(self._dense_data())

    def tostype(self, stype):
        if stype == self.stype:
            return self.copy()
        if stype == 'default':
            return self.todense()
        raise ParamError('tostype: a %s array cannot become %r directly (MXNet casts only between a '
                         'sparse form and default): go through tostype("default")' % (self.stype, stype))

    def astype(self, dtype, copy=True):
        if not copy and self._data.dtype == np.dtype(dtype):
            return self
        return type(self)(self._data.astype(dtype), [a.copy() for a in self._aux], self._shape, self._ctx)

    def copy(self):
        return type(self)(self._data.copy(), [a.copy() for a in self._aux], self._shape, self._ctx)

    def copyto(self, other):
        """A copy on a Context (same form), or written into an NDArray of the same shape."""
        if isinstance(other, Context):
            return type(self)(move(self._data, other).copy(), [move(a, other).copy() for a in self._aux],
                              self._shape, other)
        if isinstance(other, BaseSparseNDArray):
            if other.shape != self.shape or other.stype != self.stype:
                raise ShapeError('copyto: cannot copy a %s %s into a %s %s' % (
                    self.stype, self.shape, other.stype, other.shape))
            other._data = move(self._data, other._ctx).copy()
            other._aux = [move(a, other._ctx).copy() for a in self._aux]
            return other
        if isinstance(other, NDArray):
            return self.todense().copyto(other)
        raise TypeError('copyto does not support type %s' % type(other).__name__)

    def __setitem__(self, key, value):
        """``a[:] = value``, the one assignment MXNet allows: a scalar, or an array of the same
        shape (dense, numpy or sparse), stored in this array's form and dtype."""
        if not (isinstance(key, slice) and key == slice(None)):
            raise TypeError('%s only supports [:] for assignment (as in MXNet), got [%r]; build a new one, '
                            'or work on todense()' % (type(self).__name__, key))
        if np.isscalar(value):
            source = _filled(self, value)
        else:
            if not isinstance(value, NDArray):
                value = NDArray(self._ctx.xp.asarray(np.asarray(value, dtype=self._data.dtype)), self._ctx)
            if value.shape != self.shape:
                raise ShapeError('%s[:] = value: shape %s, this array has %s' % (type(self).__name__, value.shape,
                                                                                 self.shape))
            source = value if value.stype == self.stype else cast_storage(
                value.todense() if isinstance(value, BaseSparseNDArray) else value, self.stype)
        self._data = move(source._data, self._ctx).astype(self._data.dtype)
        self._aux = [move(a, self._ctx).copy() for a in source._aux]

    # ------------------------------------------------------- arithmetic
    def _scaled(self, factor, op):
        """This array with every stored value run through ``op`` with a scalar (zeros stay zero)."""
        return type(self)(op(self._data, self._data.dtype.type(factor)), [a.copy() for a in self._aux],
                          self._shape, self._ctx)

    def __mul__(self, other):
        if np.isscalar(other):
            return self._scaled(other, lambda d, s: d * s)
        return self.todense() * other

    __rmul__ = __mul__

    def __truediv__(self, other):
        if np.isscalar(other):
            return self._scaled(other, lambda d, s: d / s)
        return self.todense() / other

    def __neg__(self):
        return self._scaled(-1, lambda d, s: d * s)

    def __add__(self, other):
        if isinstance(other, type(self)):
            return self._combined(other, 1)
        return self.todense() + other

    def __sub__(self, other):
        if isinstance(other, type(self)):
            return self._combined(other, -1)
        return self.todense() - other

    def _combined(self, other, sign):
        raise NotImplementedError


def _dense_fallback(name):
    def method(self, *args, **kwargs):
        return getattr(self.todense(), name)(*args, **kwargs)
    method.__name__ = name
    method.__doc__ = 'Runs on the dense array, as MXNet\'s storage fallback does (``NDArray.%s``).' % name
    return method


# every other NDArray method and operator works on the dense values (MXNet's storage fallback)
for _name, _value in list(vars(NDArray).items()):
    if _name in vars(BaseSparseNDArray) or _name in ('__init__', '__slots__', '__weakref__', '__module__',
                                                    '__doc__', '__getattribute__', '__setattr__'):
        continue
    if callable(_value) and not isinstance(_value, (staticmethod, classmethod, type)):
        setattr(BaseSparseNDArray, _name, _dense_fallback(_name))
del _name, _value


class CSRNDArray(BaseSparseNDArray):
    """A 2-D matrix in compressed sparse row form (``data``, ``indices``, ``indptr``)."""
    __slots__ = ()
    stype = 'csr'

    @property
    def indptr(self):
        """A copy of the row pointers (int64, one more than the rows)."""
        return NDArray(self._aux[0].copy(), self._ctx)

    def _matrix(self):
        """scipy's (cupyx's) csr_matrix of the same values; float16 goes as float32, which the
        sparse kernels have (callers cast results back)."""
        xp = self._ctx.xp
        data = self._data.astype(np.float32) if self._data.dtype == np.float16 else self._data
        return _scipy_sparse(xp).csr_matrix((data, self._aux[1], self._aux[0]), shape=self._shape)

    def _dense_data(self):
        xp = self._ctx.xp
        indptr = self._aux[0]
        with self._ctx.device_scope():
            dense = xp.zeros(self._shape, dtype=self._data.dtype)
            rows = xp.repeat(xp.arange(self._shape[0]), xp.diff(indptr))
            dense[rows, self._aux[1]] = self._data
        return dense

    def asscipy(self):
        """The same matrix as a ``scipy.sparse.csr_matrix`` (on the host)."""
        import scipy.sparse as sparse_module     # the host's form, whatever the device
        return sparse_module.csr_matrix((to_numpy(self._data), to_numpy(self._aux[1]), to_numpy(self._aux[0])),
                                        shape=self._shape)

    def _combined(self, other, sign):
        total = self._matrix() + other._matrix() if sign > 0 else self._matrix() - other._matrix()
        return _from_matrix(total, self._ctx, self._data.dtype)

    def __getitem__(self, key):
        """Rows: an int (a 1-row CSRNDArray, as MXNet) or a contiguous slice."""
        rows = self._shape[0]
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            if not -rows <= key < rows:
                raise IndexError('CSRNDArray: row %d out of range for %d rows' % (key, rows))
            key = slice(key % rows, key % rows + 1)
        if not isinstance(key, slice) or key.step not in (None, 1):
            raise ValueError('CSRNDArray: only rows by an int or a contiguous slice (step 1), as in MXNet; '
                             'got %r' % (key,))
        start, stop, _ = key.indices(rows)
        stop = max(start, stop)
        indptr = self._aux[0]
        lo, hi = (int(v) for v in to_numpy(indptr[[start, stop]]))    # one host read, as MXNet's
        return CSRNDArray(self._data[lo:hi].copy(), [indptr[start:stop + 1] - lo, self._aux[1][lo:hi].copy()],
                          (stop - start, self._shape[1]), self._ctx)

    def check_format(self, full_check=True):
        """Raise MXNetError if the components do not form a valid CSR matrix."""
        indptr, indices = to_numpy(self._aux[0]), to_numpy(self._aux[1])
        rows, cols = self._shape
        problems = []
        if len(indptr) != rows + 1 or indptr[0] != 0 or indptr[-1] != len(indices) or len(self._data) != len(indices):
            problems.append('indptr must start at 0, have rows + 1 = %d entries and end at nnz = %d'
                            % (rows + 1, len(indices)))
        elif full_check and np.any(np.diff(indptr) < 0):
            problems.append('indptr must not decrease')
        if len(indices) and (indices.min() < 0 or indices.max() >= cols):
            problems.append('column indices must lie in [0, %d)' % cols)
        if full_check and not problems:
            for r in range(rows):
                part = indices[indptr[r]:indptr[r + 1]]
                if np.any(np.diff(part) <= 0):
                    problems.append('the column indices of row %d must be sorted and distinct' % r)
                    break
        if problems:
            raise MXNetError('CSRNDArray.check_format: ' + '; '.join(problems))


class RowSparseNDArray(BaseSparseNDArray):
    """Some rows of an array (``data``, one slice per entry of ``indices``); the rest are zero."""
    __slots__ = ()
    stype = 'row_sparse'

    def _dense_data(self):
        xp = self._ctx.xp
        with self._ctx.device_scope():
            dense = xp.zeros(self._shape, dtype=self._data.dtype)
            if len(self._aux[0]):
                dense[self._aux[0]] = self._data
        return dense

    def _combined(self, other, sign):
        xp = self._ctx.xp
        rows = xp.union1d(self._aux[0], other._aux[0]).astype(INDEX_DTYPE)
        with self._ctx.device_scope():
            data = xp.zeros((len(rows),) + self._shape[1:], dtype=self._data.dtype)
            data[xp.searchsorted(rows, self._aux[0])] += self._data
            data[xp.searchsorted(rows, other._aux[0])] += sign * other._data
        return RowSparseNDArray(data, [rows], self._shape, self._ctx)

    def retain(self, indices):
        """Only the stored rows that ``indices`` lists (``mx.nd.sparse.retain``)."""
        return retain(self, indices)

    def check_format(self, full_check=True):
        """Raise MXNetError if the components do not form a valid row_sparse array."""
        rows = to_numpy(self._aux[0])
        if self._data.shape != (len(rows),) + self._shape[1:]:
            raise MXNetError('RowSparseNDArray.check_format: data of shape %s for %d rows of %s'
                             % (tuple(self._data.shape), len(rows), self._shape))
        if len(rows) and (rows.min() < 0 or rows.max() >= self._shape[0]):
            raise MXNetError('RowSparseNDArray.check_format: row indices must lie in [0, %d)' % self._shape[0])
        if full_check and len(rows) and (np.any(np.diff(rows) <= 0) or rows[0] < 0 or rows[-1] >= self._shape[0]):
            raise MXNetError('RowSparseNDArray.check_format: row indices must be sorted, distinct and in '
                             '[0, %d)' % self._shape[0])


# ------------------------------------------------------------------- making them
def _filled(like, value):
    """``like`` filled with a scalar: a row_sparse array stores every row (as MXNet's ``[:] = 3``),
    a CSR one every non-zero."""
    xp, ctx = like._ctx.xp, like._ctx
    with ctx.device_scope():
        full = xp.full(like.shape, value, dtype=like._data.dtype)
        if isinstance(like, RowSparseNDArray):
            return RowSparseNDArray(full, [xp.arange(like.shape[0], dtype=INDEX_DTYPE)], like.shape, ctx)
    return cast_storage(NDArray(full, ctx), like.stype)


def _ctx_of(ctx):
    return ctx if ctx is not None else current_context()


def _values(source, dtype, default):
    """A host array of ``source`` with MXNet's dtype choice: ``dtype`` if given, else a numpy
    array's own, else ``default``."""
    if isinstance(source, NDArray):
        source = source.asnumpy()
    if dtype is None:
        dtype = source.dtype if isinstance(source, np.ndarray) else default
    return np.asarray(source, dtype=dtype)


def _from_matrix(matrix, ctx, dtype):
    """A CSRNDArray from a scipy (or cupyx) csr_matrix, moved to ``ctx``."""
    matrix = matrix.tocsr()
    return CSRNDArray(move(np.asarray(to_numpy(matrix.data), dtype=dtype), ctx).copy(),
                      [move(np.asarray(to_numpy(matrix.indptr), dtype=INDEX_DTYPE), ctx).copy(),
                       move(np.asarray(to_numpy(matrix.indices), dtype=INDEX_DTYPE), ctx).copy()],
                      matrix.shape, ctx)


def _is_shape(arg):
    """``(M, N)``-like: a non-empty tuple of whole numbers (not a tuple of components)."""
    return isinstance(arg, tuple) and len(arg) > 0 and all(
        isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in arg)


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray from ``(data, indices, indptr)``, a scipy.sparse matrix, a dense 2-D array
    (numpy or NDArray), or a shape ``(M, N)`` (all zeros).  The dtype is ``dtype``, else a
    numpy source's own, else float32; indices are int64.  Without ``shape`` it is the
    rows of ``indptr`` by the largest column index + 1, as in MXNet."""
    ctx = _ctx_of(ctx)
    if _is_shape(arg1) and len(arg1) == 2:
        return zeros('csr', arg1, ctx, dtype)
    if isinstance(arg1, tuple) and len(arg1) == 3:
        data = _values(arg1[0], dtype, mx_real_t)
        indices = _values(arg1[1], INDEX_DTYPE, INDEX_DTYPE).astype(INDEX_DTYPE)
        indptr = _values(arg1[2], INDEX_DTYPE, INDEX_DTYPE).astype(INDEX_DTYPE)
        if data.ndim != 1 or indices.shape != data.shape or indptr.ndim != 1 or len(indptr) < 1:
            raise ShapeError('csr_matrix: data and indices must be 1-D of one length and indptr 1-D, got '
                             'shapes %s, %s, %s' % (data.shape, indices.shape, indptr.shape))
        if shape is None:
            shape = (len(indptr) - 1, int(indices.max()) + 1 if len(indices) else 0)
        if len(shape) != 2:
            raise ShapeError('csr_matrix: a CSR array is 2-D, got shape %s' % (tuple(shape),))
        out = CSRNDArray(move(data, ctx).copy(), [move(indptr, ctx).copy(), move(indices, ctx).copy()], shape, ctx)
        # MXNet builds whatever it is given and reads garbage later; the layout is checked here
        # (check_format(full_check=True) also checks sorted columns, which MXNet leaves to the caller)
        out.check_format(full_check=False)
        return out
    if hasattr(arg1, 'tocsr') and hasattr(arg1, 'nnz'):            # a scipy.sparse matrix
        return _from_matrix(arg1, ctx, dtype or arg1.dtype)
    dense = _values(arg1, dtype, mx_real_t)
    if dense.ndim != 2:
        raise ShapeError('csr_matrix: to convert to CSR the array must be 2-D, got shape %s' % (dense.shape,))
    import scipy.sparse as sparse_module     # the conversion is done on the host
    return _from_matrix(sparse_module.csr_matrix(dense), ctx, dense.dtype)


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A RowSparseNDArray from ``(data, indices)``, a dense array (numpy or NDArray), or a
    shape (all zeros).  The dtype rule is csr_matrix's; without ``shape`` the rows are the
    largest index + 1."""
    ctx = _ctx_of(ctx)
    if _is_shape(arg1):
        return zeros('row_sparse', arg1, ctx, dtype)
    if isinstance(arg1, tuple) and len(arg1) == 2:
        data = _values(arg1[0], dtype, mx_real_t)
        rows = _values(arg1[1], INDEX_DTYPE, INDEX_DTYPE).astype(INDEX_DTYPE)
        if rows.ndim != 1 or data.ndim < 1 or data.shape[0] != len(rows):
            raise ShapeError('row_sparse_array: data must hold one slice per index, got data %s for %d indices'
                             % (data.shape, len(rows)))
        if shape is None:
            shape = (int(rows.max()) + 1 if len(rows) else 0,) + data.shape[1:]
        if tuple(shape[1:]) != data.shape[1:]:
            raise ShapeError('row_sparse_array: rows of shape %s do not fit shape %s' % (data.shape[1:], shape))
        return RowSparseNDArray(move(data, ctx).copy(), [move(rows, ctx).copy()], shape, ctx)
    dense = _values(arg1, dtype, mx_real_t)
    return _rows_of(dense, ctx)


def _rows_of(dense, ctx):
    """The row_sparse form of a host array: the rows holding any non-zero value."""
    if dense.ndim < 1:
        raise ShapeError('row_sparse: a row_sparse array needs at least one axis, got shape %s' % (dense.shape,))
    rows = np.flatnonzero(dense.reshape(dense.shape[0], -1).any(axis=1)).astype(INDEX_DTYPE)
    return RowSparseNDArray(move(np.ascontiguousarray(dense[rows]), ctx).copy(), [move(rows, ctx).copy()],
                            dense.shape, ctx)


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of storage ``stype`` ('csr', 'row_sparse' or 'default')."""
    ctx = _ctx_of(ctx)
    dtype = np.dtype(dtype or mx_real_t)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    xp = ctx.xp
    with ctx.device_scope():
        if stype == 'csr':
            if len(shape) != 2:
                raise ShapeError('zeros: a CSR array is 2-D, got shape %s' % (shape,))
            return CSRNDArray(xp.zeros((0,), dtype), [xp.zeros(shape[0] + 1, INDEX_DTYPE), xp.zeros(0, INDEX_DTYPE)],
                              shape, ctx)
        if stype == 'row_sparse':
            return RowSparseNDArray(xp.zeros((0,) + shape[1:], dtype), [xp.zeros(0, INDEX_DTYPE)], shape, ctx)
    if stype == 'default':
        return NDArray(xp.zeros(shape, dtype), ctx)
    raise MXNetError("zeros: unknown storage type %r; MXNet's are 'default', 'row_sparse' and 'csr'" % (stype,))


def zeros_like(data):
    """Zeros of ``data``'s shape, dtype, storage type and context."""
    return zeros(data.stype, data.shape, data.context, data.dtype)


def empty(stype, shape, ctx=None, dtype=None):
    """As zeros: reflib hands out initialised memory (reproducible), sparse or not."""
    return zeros(stype, shape, ctx, dtype)


def array(source_array, ctx=None, dtype=None):
    """A sparse array from a scipy.sparse matrix (CSR) or a sparse NDArray (a copy)."""
    if isinstance(source_array, BaseSparseNDArray):
        out = source_array.copyto(_ctx_of(ctx))
        return out if dtype is None else out.astype(dtype)
    if hasattr(source_array, 'tocsr') and hasattr(source_array, 'nnz'):
        return csr_matrix(source_array, ctx=ctx, dtype=dtype)
    raise MXNetError('sparse.array: expected a scipy.sparse matrix or a sparse NDArray, got %s'
                     % type(source_array).__name__)


def cast_storage(data, stype):
    """``data`` in storage ``stype`` (MXNet casts default <-> csr and default <-> row_sparse)."""
    if isinstance(data, BaseSparseNDArray) or stype == 'default':
        return data.tostype(stype) if isinstance(data, BaseSparseNDArray) else data.copy()
    host = data.asnumpy()
    if stype == 'csr':
        return csr_matrix(host, ctx=data.context, dtype=host.dtype)
    if stype == 'row_sparse':
        return _rows_of(host, data.context)
    raise MXNetError("cast_storage: unknown storage type %r; MXNet's are 'default', 'row_sparse' and 'csr'"
                     % (stype,))


def retain(data, indices):
    """Rows ``indices`` of row_sparse ``data``, as MXNet gives them: one stored row per entry
    of ``indices``, in its order, holding the row's values (zeros where ``data`` stores none)."""
    if not isinstance(data, RowSparseNDArray):
        raise MXNetError('retain: data must be a RowSparseNDArray, got %s' % type(data).__name__)
    xp = data._ctx.xp
    wanted = xp.asarray(to_numpy(indices._data if isinstance(indices, NDArray) else np.asarray(indices))
                        .astype(INDEX_DTYPE)).reshape(-1)
    stored = data._aux[0]
    if not len(stored):       # MXNet: nothing stored, nothing retained
        return zeros('row_sparse', data.shape, data.context, data.dtype)
    where = xp.searchsorted(stored, wanted)
    found = (where < len(stored)) & (stored[xp.minimum(where, len(stored) - 1)] == wanted)
    with data._ctx.device_scope():
        rows = xp.zeros((len(wanted),) + data.shape[1:], dtype=data._data.dtype)
        rows[found] = data._data[where[found]]
    return RowSparseNDArray(rows, [wanted], data.shape, data.context)


def _elementwise(name, lhs, rhs, keep_sparsity):
    """``mx.nd.sparse.<name>``: a sparse ``lhs`` keeps its storage where only its stored
    values can change (times or over anything that broadcasts to it; plus or minus the same
    sparse form); anything else runs on the dense arrays, as MXNet's fallback does."""
    op = {'add': np.add, 'subtract': np.subtract, 'multiply': np.multiply, 'divide': np.true_divide}[name]
    if isinstance(lhs, BaseSparseNDArray):
        if name in ('add', 'subtract') and type(rhs) is type(lhs) and rhs.shape == lhs.shape:
            return lhs._combined(rhs, 1 if name == 'add' else -1)
        if keep_sparsity:
            if np.isscalar(rhs):
                return lhs._scaled(rhs, op)
            other = rhs.todense() if isinstance(rhs, BaseSparseNDArray) else rhs
            xp = lhs._ctx.xp
            spread = xp.broadcast_to(other._data, lhs.shape)
            if isinstance(lhs, CSRNDArray):
                rows = xp.repeat(xp.arange(lhs.shape[0]), xp.diff(lhs._aux[0]))
                at = spread[rows, lhs._aux[1]]
            else:
                at = spread[lhs._aux[0]]
            return type(lhs)(op(lhs._data, at.astype(lhs._data.dtype)), [a.copy() for a in lhs._aux], lhs.shape,
                             lhs._ctx)
    dense = [x.todense() if isinstance(x, BaseSparseNDArray) else x for x in (lhs, rhs)]
    if np.isscalar(dense[1]):
        return {'add': lambda a, b: a + b, 'subtract': lambda a, b: a - b, 'multiply': lambda a, b: a * b,
                'divide': lambda a, b: a / b}[name](*dense)
    return invoke('broadcast_' + {'add': 'add', 'subtract': 'sub', 'multiply': 'mul', 'divide': 'div'}[name],
                  dense[0], dense[1])


def add(lhs, rhs):
    """lhs + rhs: sparse when both are the same sparse form, else dense."""
    return _elementwise('add', lhs, rhs, False)


def subtract(lhs, rhs):
    """lhs - rhs: sparse when both are the same sparse form, else dense."""
    return _elementwise('subtract', lhs, rhs, False)


def multiply(lhs, rhs):
    """lhs * rhs, broadcasting rhs: keeps a sparse lhs's storage (zeros stay zero)."""
    return _elementwise('multiply', lhs, rhs, True)


def divide(lhs, rhs):
    """lhs / rhs, broadcasting rhs: keeps a sparse lhs's storage (only stored values are divided)."""
    return _elementwise('divide', lhs, rhs, True)


def dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None):
    """``lhs · rhs`` with a CSR operand: csr · dense is dense; csrᵀ · dense is row_sparse (the
    rows of the result a stored column of lhs reaches), as MXNet gives them.  Dense operands
    alone go to the dense ``dot``."""
    if isinstance(lhs, CSRNDArray) and not isinstance(rhs, BaseSparseNDArray):
        if transpose_b:
            raise MXNetError('sparse.dot: transpose_b is not supported with a CSR lhs (as in MXNet)')
        op = get_operator('dot')          # the one dot, which takes a CSR lhs as it is
        p = op.parse_params({'transpose_a': transpose_a})
        with lhs._ctx.device_scope():
            out, = op.forward(p, OpEnv(lhs._ctx, False), [lhs._matrix(), rhs._data], [])
        if not transpose_a:
            return NDArray(out, lhs._ctx)
        reached = lhs._ctx.xp.unique(lhs._aux[1]).astype(INDEX_DTYPE)
        return RowSparseNDArray(out[reached], [reached], out.shape, lhs._ctx)
    dense = [x.todense() if isinstance(x, BaseSparseNDArray) else x for x in (lhs, rhs)]
    return invoke('dot', dense[0], dense[1], transpose_a=transpose_a, transpose_b=transpose_b)


SPARSE_FORMS['dot'] = dot
SPARSE_FORMS['_sparse_retain'] = retain
STORAGE_CASTS['csr'] = lambda dense: cast_storage(dense, 'csr')
STORAGE_CASTS['row_sparse'] = lambda dense: cast_storage(dense, 'row_sparse')
STORAGE_ZEROS.append(zeros)
