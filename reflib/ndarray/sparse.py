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

An operator called on a sparse array gives the storage MXNet 1.9.1 gives.  Where MXNet has a
sparse kernel, the result keeps a sparse form and is computed from what is stored (by the
operator's own forward, on the stored values or rows): ``sqrt(csr)``, ``csr * 2``, ``csr > 0``
and ``csr + csr`` are CSR arrays.  Everywhere else the operator runs on the dense array, as
MXNet's "storage fallback" does: ``csr + 1`` and ``exp(csr)`` are dense.  The table of
sparse forms is near the end of this module; ``mx.nd.sparse.<operator>`` are the operators
MXNet lists for sparse arrays (each the same call as ``mx.nd.<operator>``).
"""

import builtins
import operator

import numpy as np

from ..base import MXNetError, ParamError, ShapeError, mx_real_t, numeric_types
from ..context import Context, current_context
from . import math_functions
from .ndarray import CSR_FROM_SCIPY, STORAGE_CASTS, STORAGE_ZEROS, NDArray, move, to_numpy
from .op_functions import SPARSE_FORMS, invoke, make_function
from ..operator.registry import OpEnv
from ..operator import custom as _custom_op

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
        """The dense shape the sparse array stands for, a tuple of ints."""
        return self._shape

    @property
    def ndim(self):
        """The number of dimensions of the dense shape, ``len(shape)``."""
        return len(self._shape)

    @property
    def size(self):
        """Not defined for a sparse array, as in MXNet: reading it raises NotImplementedError.
        Use ``.data.size`` for the number of stored values, or the product of ``shape`` for the
        dense element count.
        """
        raise NotImplementedError('%s has no size of its own (as in MXNet): use .data.size for the '
                                  'stored values or prod(shape) for the dense count' % type(self).__name__)

    @property
    def data(self):
        """A copy of the stored values (an NDArray)."""
        return NDArray(self._data.copy(), self._ctx)

    def as_in_context(self, context):
        """This array on ``context`` (itself if it is there already), in its own storage."""
        return self if self._ctx == context else self.copyto(context)

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
        """The same sparse array with its stored values converted to ``dtype`` (the index arrays
        are copied unchanged); with ``copy=False`` and the dtype already right, the array itself.
        """
        if not copy and self._data.dtype == np.dtype(dtype):
            return self
        return type(self)(self._data.astype(dtype), [a.copy() for a in self._aux], self._shape, self._ctx)

    def detach(self):
        """The same components, cut from autograd's tape (as NDArray.detach, in this storage)."""
        return type(self)(self._data, list(self._aux), self._shape, self._ctx)

    def copy(self):
        """A new sparse array of the same storage type on the same context, with copies of the
        stored values and of the index arrays.
        """
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
        if not (isinstance(key, builtins.slice) and key == builtins.slice(None)):
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

    @property
    def _num_aux(self):
        """How many index arrays the form has: 2 for CSR (indptr, indices), 1 for row_sparse."""
        return len(self._aux)

    @property
    def T(self):
        """The transpose, dense (MXNet has no sparse transpose: its storage fallback)."""
        return self.todense().T

    def __reduce__(self):
        # pickled as its components on the host, rebuilt on the same context
        return (_rebuilt, (type(self), to_numpy(self._data), [to_numpy(a) for a in self._aux], self._shape,
                           self._ctx))

    # ------------------------------------------------------- arithmetic
    # As MXNet's front end: +, - and * pick the elementwise operator for operands of one shape
    # (elemwise_add, ...), the broadcasting one otherwise, the scalar one for a number; /, %,
    # ** and the comparisons are NDArray's (broadcast_div, _div_scalar, ...).  Whether the
    # result stays sparse is the operator's business (the sparse forms below).  Python tries
    # these reflected methods before a dense left operand's own, where MXNet runs the dense
    # array's (dense * csr is broadcast_mul(dense, csr)): they call that same function.
    def __add__(self, other):
        return add(self, other)

    def __radd__(self, other):
        return math_functions.add(other, self)

    def __sub__(self, other):
        return subtract(self, other)

    def __rsub__(self, other):
        return math_functions.subtract(other, self)

    def __mul__(self, other):
        return multiply(self, other)

    def __rmul__(self, other):
        return math_functions.multiply(other, self)

    def __truediv__(self, other):
        return math_functions.divide(self, other)

    def __rtruediv__(self, other):
        return math_functions.divide(other, self)

    def __mod__(self, other):
        return math_functions.modulo(self, other)

    def __rmod__(self, other):
        return math_functions.modulo(other, self)

    def __pow__(self, other):
        return math_functions.power(self, other)

    def __rpow__(self, other):
        return math_functions.power(other, self)

    def __neg__(self):
        return invoke('_mul_scalar', self, scalar=-1.0)

    def __pos__(self):
        return self

    def __abs__(self):
        return invoke('abs', self)

    def __eq__(self, other):
        return math_functions.equal(self, other)

    def __ne__(self, other):
        return math_functions.not_equal(self, other)

    def __gt__(self, other):
        return math_functions.greater(self, other)

    def __ge__(self, other):
        return math_functions.greater_equal(self, other)

    def __lt__(self, other):
        return math_functions.lesser(self, other)

    def __le__(self, other):
        return math_functions.lesser_equal(self, other)

    __hash__ = NDArray.__hash__

    # a op= b computes a op b and stores it back in a's own form (a dense result is cast)
    def __iadd__(self, other):
        return (self + other).copyto(self)

    def __isub__(self, other):
        return (self - other).copyto(self)

    def __imul__(self, other):
        return (self * other).copyto(self)

    def __itruediv__(self, other):
        return (self / other).copyto(self)

    def __imod__(self, other):
        return (self % other).copyto(self)


def _rebuilt(cls, data, aux, shape, ctx):
    """A sparse array from its pickled components."""
    return cls(move(data, ctx), [move(a, ctx) for a in aux], shape, ctx)


def _dense_fallback(name):
    def method(self, *args, **kwargs):
        return getattr(self.todense(), name)(*args, **kwargs)
    method.__name__ = name
    method.__doc__ = 'Runs on the dense array, as MXNet\'s storage fallback does (``NDArray.%s``).' % name
    return method


def _operator_method(name):
    def method(self, *args, **kwargs):
        return invoke(name, self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = 'The operator %r with this array as its input (its sparse form keeps the storage).' % name
    return method


# NDArray methods that are operators with a sparse form in MXNet (csr.abs() is a CSRNDArray);
# other operators reach invoke through NDArray.__getattr__ (csr.sign(), rsp.relu())
_OPERATOR_METHODS = ('abs', 'clip', 'sqrt', 'square')

# autograd's methods act on the array itself: its gradient buffer, its place on the tape
_AUTOGRAD_METHODS = ('attach_grad', 'backward')

# every other NDArray method works on the dense values (MXNet's storage fallback)
for _name, _value in list(vars(NDArray).items()):
    if _name in vars(BaseSparseNDArray) or _name in _AUTOGRAD_METHODS or _name in (
            '__init__', '__slots__', '__weakref__', '__module__', '__doc__', '__getattribute__', '__setattr__',
            '__getattr__'):
        continue
    if _name in _OPERATOR_METHODS:
        setattr(BaseSparseNDArray, _name, _operator_method(_name))
    elif callable(_value) and not isinstance(_value, (staticmethod, classmethod, type)):
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
        with self._ctx.device_scope():
            dense = xp.zeros(self._shape, dtype=self._data.dtype)
            dense[_entry_rows(self), self._aux[1]] = self._data
        return dense

    def asscipy(self):
        """The same matrix as a ``scipy.sparse.csr_matrix`` (on the host)."""
        import scipy.sparse as sparse_module     # the host's form, whatever the device
        return sparse_module.csr_matrix((to_numpy(self._data), to_numpy(self._aux[1]), to_numpy(self._aux[0])),
                                        shape=self._shape)

    def __getitem__(self, key):
        """Rows: an int (a 1-row CSRNDArray, as MXNet) or a contiguous slice."""
        rows = self._shape[0]
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            if not -rows <= key < rows:
                raise IndexError('CSRNDArray: row %d out of range for %d rows' % (key, rows))
            key = builtins.slice(key % rows, key % rows + 1)
        if not isinstance(key, builtins.slice) or key.step not in (None, 1):
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
        flat = [(name, a.shape) for name, a in (('indptr', indptr), ('indices', indices), ('data', self._data))
                if a.ndim != 1]
        if flat:        # (a damaged file can give a scalar where a component belongs)
            raise MXNetError('CSRNDArray.check_format: %s must be 1-d, got shape %s' % flat[0])
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

    def retain(self, indices):
        """Only the stored rows that ``indices`` lists (``mx.nd.sparse.retain``)."""
        return retain(self, indices)

    def check_format(self, full_check=True):
        """Raise MXNetError if the components do not form a valid row_sparse array."""
        rows = to_numpy(self._aux[0])
        if rows.ndim != 1:      # (a damaged file can give a scalar where the row numbers belong)
            raise MXNetError('RowSparseNDArray.check_format: the row indices must be 1-d, got shape %s'
                             % (rows.shape,))
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
    """A CSRNDArray from a scipy (or cupyx) sparse matrix, moved to ``ctx``; as in MXNet, repeated
    entries are summed and each row's columns sorted (on a copy: the caller's matrix stays)."""
    matrix = matrix.tocsr(copy=True)
    matrix.sum_duplicates()
    return CSRNDArray(move(np.asarray(to_numpy(matrix.data), dtype=dtype), ctx).copy(),
                      [move(np.asarray(to_numpy(matrix.indptr), dtype=INDEX_DTYPE), ctx).copy(),
                       move(np.asarray(to_numpy(matrix.indices), dtype=INDEX_DTYPE), ctx).copy()],
                      matrix.shape, ctx)


def _is_shape(arg):
    """``(M, N)``-like: a non-empty tuple of whole numbers (not a tuple of components)."""
    return isinstance(arg, tuple) and len(arg) > 0 and all(
        isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in arg)


def _same_shape(made, shape, who):
    """``made``, refused (as MXNet refuses it) where a ``shape`` was given that it does not have."""
    if shape is not None and tuple(int(d) for d in shape) != tuple(made.shape):
        raise ShapeError('%s: the array has shape %s, but shape=%s was given' % (who, tuple(made.shape),
                                                                                 tuple(shape)))
    return made


def _is_coordinates(arg1):
    """``(data, (row, col))``: the COO form scipy takes too."""
    return isinstance(arg1, tuple) and len(arg1) == 2 and isinstance(arg1[1], tuple) and len(arg1[1]) == 2


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray from ``(data, indices, indptr)``, ``(data, (row, col))`` (coordinates;
    repeated ones are summed), a scipy.sparse matrix, a dense 2-D array (numpy or NDArray),
    or a shape ``(M, N)`` (all zeros).  The dtype is ``dtype``, else a numpy source's own,
    else float32; indices are int64.  Without ``shape`` it is the rows of ``indptr`` by the
    largest column index + 1, as in MXNet (which cannot tell it without any index)."""
    ctx = _ctx_of(ctx)
    if _is_shape(arg1) and len(arg1) == 2:
        return _same_shape(zeros('csr', arg1, ctx, dtype), shape, 'csr_matrix')
    if _is_coordinates(arg1):
        import scipy.sparse as sparse_module     # scipy sorts and sums the coordinates, on the host
        data = _values(arg1[0], dtype, mx_real_t)
        rows, cols = (_values(a, INDEX_DTYPE, INDEX_DTYPE) for a in arg1[1])
        return _from_matrix(sparse_module.coo_matrix((data, (rows, cols)), shape=shape), ctx, data.dtype)
    if isinstance(arg1, tuple) and len(arg1) == 3:
        data = _values(arg1[0], dtype, mx_real_t)
        indices = _values(arg1[1], INDEX_DTYPE, INDEX_DTYPE).astype(INDEX_DTYPE)
        indptr = _values(arg1[2], INDEX_DTYPE, INDEX_DTYPE).astype(INDEX_DTYPE)
        if data.ndim != 1 or indices.shape != data.shape or indptr.ndim != 1 or len(indptr) < 1:
            raise ShapeError('csr_matrix: data and indices must be 1-D of one length and indptr 1-D, got '
                             'shapes %s, %s, %s' % (data.shape, indices.shape, indptr.shape))
        if shape is None:
            if not len(indices):
                raise ShapeError('csr_matrix: without any column index the shape cannot be told; pass shape=')
            shape = (len(indptr) - 1, int(indices.max()) + 1)
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
    return _same_shape(_from_matrix(sparse_module.csr_matrix(dense), ctx, dense.dtype), shape, 'csr_matrix')


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A RowSparseNDArray from ``(data, indices)``, a dense array (numpy or NDArray), or a
    shape (all zeros).  The dtype rule is csr_matrix's; without ``shape`` the rows are the
    largest index + 1."""
    ctx = _ctx_of(ctx)
    if _is_shape(arg1):
        return _same_shape(zeros('row_sparse', arg1, ctx, dtype), shape, 'row_sparse_array')
    if isinstance(arg1, tuple) and len(arg1) == 2:
        data = _values(arg1[0], dtype, mx_real_t)
        rows = _values(arg1[1], INDEX_DTYPE, INDEX_DTYPE).astype(INDEX_DTYPE)
        if rows.ndim != 1 or data.ndim < 1 or data.shape[0] != len(rows):
            raise ShapeError('row_sparse_array: data must hold one slice per index, got data %s for %d indices'
                             % (data.shape, len(rows)))
        if shape is None:
            if not len(rows):
                raise ShapeError('row_sparse_array: without any row index the shape cannot be told; pass shape=')
            shape = (int(rows.max()) + 1,) + data.shape[1:]
        if tuple(shape[1:]) != data.shape[1:]:
            raise ShapeError('row_sparse_array: rows of shape %s do not fit shape %s' % (data.shape[1:], shape))
        return RowSparseNDArray(move(data, ctx).copy(), [move(rows, ctx).copy()], shape, ctx)
    dense = _values(arg1, dtype, mx_real_t)
    return _same_shape(_rows_of(dense, ctx), shape, 'row_sparse_array')


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
    raise ParamError("zeros: unknown storage type %r; MXNet's are 'default', 'row_sparse' and 'csr'" % (stype,))


def zeros_like(data, out=None, name=None):
    """Zeros of ``data``'s shape, dtype, storage type and context (the ``zeros_like`` operator)."""
    return invoke('zeros_like', data, out=out, name=name)


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


def retain(data, indices=None, **kwargs):
    """Rows ``indices`` of row_sparse ``data``, as MXNet gives them: one stored row per entry
    of ``indices``, in its order, holding the row's values (zeros where ``data`` stores none).
    Other keywords are ignored, as MXNet ignores them."""
    if indices is None:
        raise MXNetError('retain: the indices of the rows to keep are missing')
    if not isinstance(data, RowSparseNDArray):
        raise MXNetError('retain: data must be a RowSparseNDArray, got %s' % type(data).__name__)
    xp = data._ctx.xp
    wanted = xp.asarray(to_numpy(indices._data if isinstance(indices, NDArray) else np.asarray(indices))
                        .astype(INDEX_DTYPE)).reshape(-1)
    if not len(data._aux[0]):       # MXNet: nothing stored, nothing retained
        return zeros('row_sparse', data.shape, data.context, data.dtype)
    return RowSparseNDArray(_stored_rows(data, wanted), [wanted], data.shape, data.context)


# ------------------------------------------------------------------- operators on sparse arrays
# What MXNet 1.9.1 makes of an operator call with a sparse input (its storage inference): where
# the operator has a sparse kernel, a result of the input's form computed on what is stored;
# everywhere else the dense result of its "storage fallback".  invoke (op_functions.py) looks
# up SPARSE_FORMS[op.name]: a form gets the operator, its parsed parameters, the input arrays
# and ``out=``, and returns the result, or NotImplemented where MXNet falls back to dense.
# The arithmetic is always the operator's own forward, run on the stored values or rows.

def _forward(op, p, ctx, inputs, aux=()):
    """``op``'s forward on raw device arrays, its outputs in the dtypes its type rule gives (numpy's
    promotions, sqrt of an int32 array giving float64, must not decide them)."""
    dtypes = [np.dtype(a.dtype) for a in list(inputs) + list(aux)]
    _, out_types, _ = op.infer_type(p, dtypes[:len(inputs)], [None] * len(op.outputs(p)), dtypes[len(inputs):])
    with ctx.device_scope(), np.errstate(all='ignore'):
        outs = op.forward(p, OpEnv(ctx, False), list(inputs), list(aux))
    return [o if t is None or o.dtype == np.dtype(t) else o.astype(t) for o, t in zip(outs, out_types)]


def _with_values(like, values):
    """An array of ``like``'s form and pattern holding ``values`` (one per stored entry or row)."""
    if values is like._data or getattr(values, 'base', None) is like._data:    # an identity's output
        values = values.copy()
    return type(like)(values, [a.copy() for a in like._aux], like.shape, like._ctx)


def _entry_rows(csr):
    """The row of each stored entry of a CSR array."""
    xp = csr._ctx.xp
    positions = xp.arange(len(csr._data), dtype=INDEX_DTYPE)
    return (xp.searchsorted(csr._aux[0], positions, side='right') - 1).astype(INDEX_DTYPE)


def _at_stored(sparse, dense):
    """The values of ``dense`` (of ``sparse``'s shape) where ``sparse`` stores something."""
    if isinstance(sparse, CSRNDArray):
        return dense[_entry_rows(sparse), sparse._aux[1]]
    return dense[sparse._aux[0]]


def _stored_rows(rsp, wanted):
    """The values of rows ``wanted`` of a row_sparse array, zeros where it stores none."""
    xp, stored = rsp._ctx.xp, rsp._aux[0]
    with rsp._ctx.device_scope():
        rows = xp.zeros((len(wanted),) + rsp.shape[1:], dtype=rsp._data.dtype)
        if len(stored):
            where = xp.searchsorted(stored, wanted)
            found = (where < len(stored)) & (stored[xp.minimum(where, len(stored) - 1)] == wanted)
            rows[found] = rsp._data[where[found]]
    return rows


def _csr_from_entries(rows, cols, values, shape, ctx):
    """A CSRNDArray of entries listed row by row (columns ascending within a row)."""
    xp = ctx.xp
    indptr = xp.searchsorted(rows, xp.arange(shape[0] + 1, dtype=INDEX_DTYPE), side='left').astype(INDEX_DTYPE)
    return CSRNDArray(values, [indptr, cols.astype(INDEX_DTYPE)], shape, ctx)


def _csr_rows(csr, rows):
    """Rows ``rows`` of a CSR array (in that order, repeats allowed), as a CSR array."""
    xp, indptr = csr._ctx.xp, csr._aux[0]
    counts = indptr[rows + 1] - indptr[rows]
    new_indptr = xp.concatenate([xp.zeros(1, INDEX_DTYPE), xp.cumsum(counts)]).astype(INDEX_DTYPE)
    entries = xp.arange(int(to_numpy(new_indptr[-1:])[0]), dtype=INDEX_DTYPE)
    # each new entry: its row among ``rows``, then its place within that row of csr
    row = xp.searchsorted(new_indptr, entries, side='right') - 1
    source = indptr[rows][row] + (entries - new_indptr[row])
    return CSRNDArray(csr._data[source], [new_indptr, csr._aux[1][source]], (len(rows), csr.shape[1]), csr._ctx)


def _csr_columns(csr, lo, hi):
    """Columns ``lo`` to ``hi - 1`` of a CSR array, as a CSR array."""
    cols = csr._aux[1]
    kept = (cols >= lo) & (cols < hi)
    return _csr_from_entries(_entry_rows(csr)[kept], cols[kept] - lo, csr._data[kept], (csr.shape[0], hi - lo),
                             csr._ctx)


def _to_stype(arr, stype):
    """``arr`` (dense or sparse) in storage ``stype``."""
    if arr.stype == stype:
        return arr
    dense = arr.todense() if isinstance(arr, BaseSparseNDArray) else arr
    return dense if stype == 'default' else cast_storage(dense, stype)


# ------------------------------------------------ one input: the stored values change
def _valuewise(op, p, inputs, out):
    """The operator on the stored values only, the indices kept: what MXNet does for operators
    that take 0 to 0 (abs, sqrt, x * 2, ...)."""
    x = inputs[0]
    return _with_values(x, _forward(op, p, x._ctx, [x._data])[0])


def _valuewise_if_zero_stays(op, p, inputs, out):
    """As _valuewise where the scalar keeps 0 at 0 (x + 0, x > 0, x == 1); where it does not
    (x + 1, x >= 0) every absent zero would change, and MXNet computes the dense result."""
    x = inputs[0]
    xp = x._ctx.xp
    with x._ctx.device_scope():
        zero = xp.zeros(1, dtype=x._data.dtype)
    if not bool(to_numpy(_forward(op, p, x._ctx, [zero])[0] == 0)[0]):
        return NotImplemented
    return _valuewise(op, p, inputs, out)


def _clipped(op, p, inputs, out):
    """clip keeps the storage when its range holds 0; MXNet has no sparse clip otherwise and refuses."""
    if not p.a_min <= 0 <= p.a_max:
        raise MXNetError('clip: on a %s array the range [%g, %g] must hold 0 (MXNet clips only the stored '
                         'values, and refuses a range that would change the zeros)'
                         % (inputs[0].stype, p.a_min, p.a_max))
    return _valuewise(op, p, inputs, out)


def _sparse_zeros_like(op, p, inputs, out):
    """zeros_like of a sparse array stores nothing."""
    x = inputs[0]
    return zeros(x.stype, x.shape, x.context, x.dtype)


# ------------------------------------------------ two inputs of one shape
def _pairwise(op, p, inputs, out):
    """elemwise_add/_sub/_mul, _grad_add, _maximum, _minimum on arrays of one shape: two of one
    sparse form give that form; elemwise_mul of a sparse and a dense array keeps the sparse
    one's pattern (zeros times anything stay zero).  Other mixes are dense in MXNet."""
    lhs, rhs = inputs
    if lhs.shape != rhs.shape:
        return NotImplemented                    # the dense operator says why
    if lhs.stype == rhs.stype:
        return _csr_union(op, p, lhs, rhs) if isinstance(lhs, CSRNDArray) else _rsp_union(op, p, lhs, rhs)
    if op.name == 'elemwise_mul' and 'default' in (lhs.stype, rhs.stype):
        sparse = lhs if lhs.stype != 'default' else rhs
        values = [x._data if x is sparse else _at_stored(sparse, x._data) for x in (lhs, rhs)]
        return _with_values(sparse, _forward(op, p, sparse._ctx, values)[0])
    return NotImplemented


def _csr_union(op, p, lhs, rhs):
    """The operator at every position either CSR array stores; as in MXNet's CSR kernel, a result
    that comes out zero is not stored (so ``a - a`` stores nothing)."""
    xp, ctx = lhs._ctx.xp, lhs._ctx
    width = max(lhs.shape[1], 1)
    keys = [_entry_rows(x) * width + x._aux[1] for x in (lhs, rhs)]      # one number per position
    union = xp.union1d(keys[0], keys[1])
    values = []
    for x, k in zip((lhs, rhs), keys):
        with ctx.device_scope():
            spread = xp.zeros(len(union), dtype=x._data.dtype)
        spread[xp.searchsorted(union, k)] = x._data
        values.append(spread)
    result = _forward(op, p, ctx, values)[0]
    kept = result != 0
    union = union[kept]
    return _csr_from_entries(union // width, union % width, result[kept], lhs.shape, ctx)


def _rsp_union(op, p, lhs, rhs):
    """The operator on every row either row_sparse array stores (all of them stay stored)."""
    rows = lhs._ctx.xp.union1d(lhs._aux[0], rhs._aux[0]).astype(INDEX_DTYPE)
    values = [_stored_rows(x, rows) for x in (lhs, rhs)]
    return RowSparseNDArray(_forward(op, p, lhs._ctx, values)[0], [rows], lhs.shape, lhs._ctx)


def _broadcast_onto_csr(op, p, inputs, out):
    """broadcast_mul/broadcast_div of a CSR array by a dense one that broadcasts to it (a row, a
    column, a scalar array): the CSR pattern stays.  A dense divisor of the CSR array's own
    shape MXNet refuses (elemwise_div is the operator for that)."""
    lhs, rhs = inputs
    if not isinstance(lhs, CSRNDArray) or rhs.stype != 'default':
        return NotImplemented
    if op.name == 'broadcast_div' and rhs.shape == lhs.shape:
        raise MXNetError('broadcast_div: a CSR array divided by a dense array of its own shape: MXNet does this '
                         'with elemwise_div only (whose result is dense)')
    try:
        spread = lhs._ctx.xp.broadcast_to(rhs._data, lhs.shape)
    except ValueError:
        return NotImplemented                    # the dense operator says why
    return _with_values(lhs, _forward(op, p, lhs._ctx, [lhs._data, _at_stored(lhs, spread)])[0])


def _sum_of_row_sparse(op, p, inputs, out):
    """add_n (ElementWiseSum) of row_sparse arrays only: row_sparse, over every row any stores."""
    if not all(isinstance(x, RowSparseNDArray) for x in inputs) or len({x.shape for x in inputs}) != 1:
        return NotImplemented
    xp, ctx = inputs[0]._ctx.xp, inputs[0]._ctx
    rows = inputs[0]._aux[0]
    for x in inputs[1:]:
        rows = xp.union1d(rows, x._aux[0])
    rows = rows.astype(INDEX_DTYPE)
    total = _forward(op, p, ctx, [_stored_rows(x, rows) for x in inputs])[0]
    return RowSparseNDArray(total, [rows], inputs[0].shape, ctx)


def _stacked_rows(op, p, inputs, out):
    """concat of CSR arrays along axis 0 is a CSR array (MXNet's sparse concat); other concats are dense."""
    if p.dim != 0 or not all(isinstance(x, CSRNDArray) for x in inputs) or len({x.shape[1] for x in inputs}) != 1 \
            or len({np.dtype(x.dtype) for x in inputs}) != 1:
        return NotImplemented
    xp, ctx = inputs[0]._ctx.xp, inputs[0]._ctx
    starts = np.cumsum([0] + [len(x._data) for x in inputs])
    indptr = xp.concatenate([x._aux[0][:-1] + int(s) for x, s in zip(inputs, starts)] +
                            [xp.asarray([int(starts[-1])], dtype=INDEX_DTYPE)]).astype(INDEX_DTYPE)
    return CSRNDArray(xp.concatenate([x._data for x in inputs]), [indptr, xp.concatenate([x._aux[1] for x in inputs])],
                      (builtins.sum(x.shape[0] for x in inputs), inputs[0].shape[1]), ctx)


# ------------------------------------------------ rows and columns of a CSR array
def _sliced_csr(op, p, inputs, out):
    """slice of a CSR array without a step (or with steps of 1): a CSR array of the rows and
    columns it keeps.  With another step, or on a row_sparse array, MXNet's result is dense."""
    x = inputs[0]
    if not isinstance(x, CSRNDArray) or any(s not in (None, 1) for s in p.step) or len(p.begin) > 2:
        return NotImplemented
    rows = _kept_positions(op, p, x, 0)
    cut = _csr_rows(x, rows)
    if len(p.begin) == 2:
        cols = to_numpy(_kept_positions(op, p, x, 1))
        lo = int(cols[0]) if len(cols) else 0
        cut = _csr_columns(cut, lo, lo + len(cols))
    return cut


def _kept_positions(op, p, x, axis):
    """The positions along ``axis`` that slice keeps: slice itself run on 0, 1, ..., n - 1."""
    along = op.parse_params({'begin': (p.begin[axis],), 'end': (p.end[axis],)})
    xp = x._ctx.xp
    with x._ctx.device_scope():
        positions = xp.arange(x.shape[axis], dtype=INDEX_DTYPE)
    return _forward(op, along, x._ctx, [positions])[0]


def _taken_rows(op, p, inputs, out):
    """take of rows (axis 0) of a CSR array in 'clip' or 'wrap' mode: a CSR array, as MXNet's."""
    a, indices = inputs
    if not isinstance(a, CSRNDArray) or indices.stype != 'default' or p.axis != 0 or p.mode == 'raise' \
            or indices.ndim != 1:
        return NotImplemented
    xp = a._ctx.xp
    with a._ctx.device_scope():
        positions = xp.arange(a.shape[0], dtype=INDEX_DTYPE)
    rows = _forward(op, p, a._ctx, [positions, indices._data])[0]       # take's own clip and wrap rules
    return _csr_rows(a, rows.astype(INDEX_DTYPE))


def _row_square_sums(op, p, inputs, out):
    """_square_sum of a row_sparse matrix along its rows with keepdims: row_sparse, one value
    per stored row, as MXNet's; every other axis gives MXNet's dense result."""
    x = inputs[0]
    axes = tuple(a % 2 for a in (p.axis or ())) if x.ndim == 2 else ()
    if not isinstance(x, RowSparseNDArray) or axes != (1,) or not p.keepdims or p.exclude:
        return NotImplemented
    values = _forward(op, p, x._ctx, [x._data])[0]
    return RowSparseNDArray(values, [x._aux[0].copy()], (x.shape[0], 1), x._ctx)


# ------------------------------------------------ products
def _dot_form(op, p, inputs, out):
    """dot with a sparse operand, in the storage MXNet gives (see _sparse_product), or the one
    ``forward_stype`` asks for."""
    result = _sparse_product(op, p, *inputs)
    wanted = p.forward_stype
    if wanted is None or (result is NotImplemented and wanted == 'default'):
        return result
    if result is NotImplemented:
        result = invoke('dot', *[_to_stype(x, 'default') for x in inputs], transpose_a=p.transpose_a,
                        transpose_b=p.transpose_b)
    return _to_stype(result, wanted)


def _sparse_product(op, p, lhs, rhs):
    """MXNet's sparse dot kernels:

    csr · dense      dense;
    csrᵀ · dense     row_sparse: the rows a stored column of lhs reaches;
    csrᵀ · rsp       row_sparse: those reached from the rows rhs stores;
    dense · csr      CSR storing, in every row, each column that rhs stores anything in;
    dense · csrᵀ     CSR (MXNet computes it dense and casts: zeros are not stored).

    Anything else (csr · csr, a row_sparse lhs, csr · rhsᵀ) is dense: NotImplemented."""
    ctx = lhs._ctx
    xp = ctx.xp
    if isinstance(lhs, CSRNDArray) and not p.transpose_b:
        if rhs.stype == 'default':
            product = _csr_product(op, p, lhs, rhs._data)
            if not p.transpose_a:
                return NDArray(product, ctx)
            reached = xp.unique(lhs._aux[1]).astype(INDEX_DTYPE)
        elif isinstance(rhs, RowSparseNDArray) and p.transpose_a:
            product = _csr_product(op, p, lhs, rhs._dense_data())
            reached = xp.unique(_csr_rows(lhs, rhs._aux[0])._aux[1]).astype(INDEX_DTYPE)
        else:
            return NotImplemented
        return RowSparseNDArray(product[reached], [reached], product.shape, ctx)
    if lhs.stype == 'default' and isinstance(rhs, CSRNDArray) and not p.transpose_a and lhs.ndim == 2:
        product = _forward(op, p, ctx, [lhs._data, rhs._dense_data()])[0]
        if p.transpose_b:
            return cast_storage(NDArray(product, ctx), 'csr')
        cols = xp.unique(rhs._aux[1]).astype(INDEX_DTYPE)
        rows = product.shape[0]
        indptr = (xp.arange(rows + 1, dtype=INDEX_DTYPE) * len(cols)).astype(INDEX_DTYPE)
        return CSRNDArray(xp.ascontiguousarray(product[:, cols]).reshape(-1), [indptr, xp.tile(cols, rows)],
                          product.shape, ctx)
    return NotImplemented


def _csr_product(op, p, lhs, rhs_values):
    """dot's own kernel for a CSR lhs (scipy's, cupyx's), on the raw rhs values."""
    with lhs._ctx.device_scope():
        product, = op.forward(p, OpEnv(lhs._ctx, False), [lhs._matrix(), rhs_values], [])
    return product


# ------------------------------------------------ optimizer updates with a row_sparse gradient
def _row_update(op, p, inputs, out):
    """sgd_update, sgd_mom_update and adam_update with a row_sparse gradient, as MXNet's sparse
    kernels run them, in place (``out`` must be the weight, else MXNet refuses):

    * dense weight and states, ``lazy_update=True``: only the gradient's rows of the weight and
      of the states change (the operator's own step, run on those rows);
    * dense weight and states, ``lazy_update=False``: every row, the others with a zero gradient
      (decay and momentum act on them): the dense step;
    * row_sparse weight and states (ftrl_update too): the gradient's rows; the result is row_sparse.

    Other mixes have no sparse kernel: MXNet computes them dense."""
    weight, grad, states = inputs[0], inputs[1], list(inputs[2:])
    arrays = [weight] + states
    if not isinstance(grad, RowSparseNDArray):
        return NotImplemented
    stored = all(isinstance(a, RowSparseNDArray) for a in arrays)
    if not stored and (op.name == 'ftrl_update' or any(a.stype != 'default' for a in arrays)):
        return NotImplemented
    _check_in_place(op.name, weight, out)
    if stored:
        dense = [a._dense_data() for a in arrays]
        _update_rows(op, p, weight._ctx, dense[0], grad, dense[1:])
        _store_rows_back(arrays, dense, grad._aux[0])
    elif getattr(p, 'lazy_update', True):
        _update_rows(op, p, weight._ctx, weight._data, grad, [s._data for s in states])
    else:
        step = _forward(op, p, weight._ctx, [weight._data, grad._dense_data()], [s._data for s in states])
        weight._data[...] = step[0]
    return weight


def _check_in_place(name, weight, out):
    target = out[0] if isinstance(out, (list, tuple)) and len(out) == 1 else out
    if target is not weight:
        raise MXNetError('%s: with a row_sparse gradient MXNet updates the weight in place only: pass out=weight'
                         % name)


def _update_rows(op, p, ctx, weight, grad, states):
    """The operator's step on the rows the row_sparse ``grad`` stores of the raw arrays ``weight``
    and ``states``, written back into them; the other rows keep their values."""
    rows = grad._aux[0]
    if not len(rows):
        return
    picked = [s[rows] for s in states]            # copies: the step updates them in place
    weight[rows] = _forward(op, p, ctx, [weight[rows], grad._data], picked)[0]
    for state, part in zip(states, picked):
        state[rows] = part


def _store_rows_back(targets, values, rows):
    """Row_sparse ``targets`` set to the dense ``values``: the rows each stored, and ``rows``."""
    for target, dense in zip(targets, values):
        kept = target._ctx.xp.union1d(target._aux[0], rows).astype(INDEX_DTYPE)
        target._data, target._aux = dense[kept], [kept]


def adagrad_update(weight, grad, history, lr, epsilon=1e-7, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
                   out=None, name=None):
    """AdaGrad's step with a row_sparse gradient (MXNet's ``_sparse_adagrad_update``, which reflib
    has as this function only, not as a graph operator): for the gradient's rows of ``weight``
    and ``history``, and no other, ``history += g²`` and ``weight -= lr g / sqrt(history + epsilon)``
    with ``g = clip(rescale_grad grad)`` (clipped where ``clip_gradient >= 0``).  As in MXNet,
    ``out`` must be the weight, the weight and history both dense or both row_sparse, and ``wd``
    0: the kernel has no weight decay."""
    if not isinstance(grad, RowSparseNDArray):
        raise MXNetError('adagrad_update: MXNet has this update for a row_sparse gradient only, got %s' % grad.stype)
    if np.float32(wd) != 0:
        raise MXNetError('adagrad_update: the sparse kernel has no weight decay; wd must be 0, got %g' % wd)
    arrays = [weight, history]
    stored = all(isinstance(a, RowSparseNDArray) for a in arrays)
    if not stored and any(a.stype != 'default' for a in arrays):
        raise MXNetError('adagrad_update: weight and history must be both dense or both row_sparse, got %s and %s'
                         % (weight.stype, history.stype))
    _check_in_place('adagrad_update', weight, out)
    values = [a._dense_data() for a in arrays] if stored else [a._data for a in arrays]
    _adagrad_rows(grad, *values, lr, epsilon, rescale_grad, clip_gradient)
    if stored:
        _store_rows_back(arrays, values, grad._aux[0])
    return weight


def _adagrad_rows(grad, weight, history, lr, epsilon, rescale_grad, clip_gradient):
    """The sparse AdaGrad kernel on the raw arrays, in the weight's dtype with the
    hyper-parameters as the C floats MXNet hands it (the same arithmetic as AdaGrad's
    optimizer with a row_sparse gradient)."""
    rows = grad._aux[0]
    if not len(rows):
        return
    ct = weight.dtype.type
    g = grad._data.astype(ct, copy=False) * ct(np.float32(rescale_grad))
    if clip_gradient >= 0:
        bound = ct(np.float32(clip_gradient))
        g = grad._ctx.xp.clip(g, -bound, bound)
    squares = history[rows] + g * g
    history[rows] = squares
    weight[rows] = weight[rows] - g / grad._ctx.xp.sqrt(squares + ct(np.float32(epsilon))) * ct(np.float32(lr))


def _reset_arrays(op, p, inputs, out):
    """reset_arrays with a sparse array among them: every array zeroed in place, a sparse one
    left storing nothing (MXNet 1.9.1's storage fallback writes the zeros back into the sparse
    form: no rows, no entries), a dense one filled with zeros; no output."""
    op.infer_type(p, [], [], [a.dtype for a in inputs])     # refuses integer arrays before any write
    for arr in inputs:
        if arr.stype == 'default':
            arr._data[...] = 0
        else:
            zeros(arr.stype, arr.shape, ctx=arr.context, dtype=arr.dtype).copyto(arr)
    return []


# ------------------------------------------------ the table
# MXNet 1.9.1's operators with a sparse kernel, by what they do with the storage (measured on
# csr and row_sparse inputs; every other operator gives a dense result)
_VALUEWISE = ('abs', 'arcsin', 'arcsinh', 'arctan', 'arctanh', 'cbrt', 'ceil', 'degrees', 'expm1', 'fix', 'floor',
              'log1p', 'negative', 'radians', 'relu', 'rint', 'round', 'sign', 'sin', 'sinh', 'sqrt', 'square',
              'tan', 'tanh', 'trunc', '_copy', 'BlockGrad', 'make_loss', '_mul_scalar', '_div_scalar')
_VALUEWISE_IF_ZERO_STAYS = ('_plus_scalar', '_minus_scalar', '_equal_scalar', '_not_equal_scalar',
                            '_greater_scalar', '_greater_equal_scalar', '_lesser_scalar', '_lesser_equal_scalar')
_PAIRWISE = ('elemwise_add', 'elemwise_sub', 'elemwise_mul', '_grad_add', '_maximum', '_minimum')

SPARSE_FORMS.update({name: _valuewise for name in _VALUEWISE})
SPARSE_FORMS.update({name: _valuewise_if_zero_stays for name in _VALUEWISE_IF_ZERO_STAYS})
SPARSE_FORMS.update({name: _pairwise for name in _PAIRWISE})
SPARSE_FORMS.update({name: _row_update for name in ('sgd_update', 'sgd_mom_update', 'adam_update', 'ftrl_update')})
SPARSE_FORMS.update({
    'clip': _clipped, 'zeros_like': _sparse_zeros_like,
    'broadcast_mul': _broadcast_onto_csr, 'broadcast_div': _broadcast_onto_csr,
    'add_n': _sum_of_row_sparse, 'Concat': _stacked_rows,
    'slice': _sliced_csr, 'take': _taken_rows, 'dot': _dot_form, '_square_sum': _row_square_sums,
    'reset_arrays': _reset_arrays,
})
STORAGE_CASTS['csr'] = lambda dense: cast_storage(dense, 'csr')
CSR_FROM_SCIPY.append(csr_matrix)
STORAGE_CASTS['row_sparse'] = lambda dense: cast_storage(dense, 'row_sparse')
STORAGE_ZEROS.append(zeros)


# ------------------------------------------------------------------- mx.nd.sparse's functions
def _arithmetic(lhs, rhs, same_shape_op, broadcast_op, scalar_op, numbers):
    """MXNet's rule for sparse.add and friends: two arrays of one shape get the elementwise
    operator, other pairs the broadcasting one, an array and a number the scalar one.  The
    number goes to that same scalar operator on whichever side it stands: MXNet 1.9.1's
    ``sparse.subtract(2, x)`` is ``x - 2`` and ``sparse.divide(2, x)`` is ``x / 2``
    (``2 - x`` and ``2 / x`` give the right numbers), and so are reflib's."""
    if isinstance(lhs, numeric_types) and isinstance(rhs, numeric_types):
        return numbers(lhs, rhs)
    if isinstance(lhs, numeric_types):
        lhs, rhs = rhs, lhs
    if isinstance(rhs, numeric_types):
        return invoke(scalar_op, lhs, scalar=float(rhs))
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        return invoke(same_shape_op if lhs.shape == rhs.shape else broadcast_op, lhs, rhs)
    raise TypeError('type %s not supported' % type(rhs if isinstance(lhs, NDArray) else lhs).__name__)


def add(lhs, rhs):
    """lhs + rhs (arrays or numbers, broadcasting): sparse for two arrays of one sparse form."""
    return _arithmetic(lhs, rhs, 'elemwise_add', 'broadcast_add', '_plus_scalar', operator.add)


def subtract(lhs, rhs):
    """lhs - rhs (arrays or numbers, broadcasting): sparse for two arrays of one sparse form."""
    return _arithmetic(lhs, rhs, 'elemwise_sub', 'broadcast_sub', '_minus_scalar', operator.sub)


def multiply(lhs, rhs):
    """lhs * rhs (arrays or numbers, broadcasting): keeps a sparse operand's storage where zeros stay zero."""
    return _arithmetic(lhs, rhs, 'elemwise_mul', 'broadcast_mul', '_mul_scalar', operator.mul)


def divide(lhs, rhs):
    """lhs / rhs (arrays or numbers, broadcasting): a CSR lhs divided by a number, a row or a
    column stays CSR; a division by an array of lhs's shape is dense."""
    return _arithmetic(lhs, rhs, 'elemwise_div', 'broadcast_div', '_div_scalar', operator.truediv)


def dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None, out=None):
    """The product ``lhs · rhs`` (the ``dot`` operator); see _sparse_product for the storage of
    each sparse mix."""
    return invoke('dot', lhs, rhs, transpose_a=transpose_a, transpose_b=transpose_b, forward_stype=forward_stype,
                  out=out)


# mx.nd.sparse.<operator>: MXNet's list of operators documented for sparse arrays, each the same
# call as mx.nd.<operator> (storage follows the rules above); reflib has no _contrib_round_ste
# and _contrib_sign_ste
_NAMESPACE_OPERATORS = (
    'ElementWiseSum', 'Embedding', 'FullyConnected', 'LinearRegressionOutput', 'LogisticRegressionOutput',
    'MAERegressionOutput', 'abs', 'adam_update', 'add_n', 'arccos', 'arccosh', 'arcsin', 'arcsinh', 'arctan',
    'arctanh', 'broadcast_add', 'broadcast_div', 'broadcast_minus', 'broadcast_mul', 'broadcast_plus',
    'broadcast_sub', 'cbrt', 'ceil', 'clip', 'concat', 'cos', 'cosh', 'degrees', 'elemwise_add', 'elemwise_div',
    'elemwise_mul', 'elemwise_sub', 'exp', 'expm1', 'fix', 'floor', 'ftrl_update', 'gamma', 'gammaln', 'log',
    'log10', 'log1p', 'log2', 'make_loss', 'mean', 'negative', 'norm', 'radians', 'relu', 'rint', 'round', 'rsqrt',
    'sgd_mom_update', 'sgd_update', 'sigmoid', 'sign', 'sin', 'sinh', 'slice', 'sqrt', 'square', 'stop_gradient',
    'sum', 'tan', 'tanh', 'trunc', 'where')
# (these shadow the builtins abs, round, slice and sum here: the code above says builtins.<name>)
globals().update({_name: make_function(_name) for _name in _NAMESPACE_OPERATORS})
__all__ += list(_NAMESPACE_OPERATORS) + ['adagrad_update']


# ------------------------------------------------------------------- for Python operators
# A Python operator (mx.operator.CustomOp) computes on NDArrays of the storage types its Prop
# declares; the operator layer gets raw values (dense arrays, csr_matrix, SparseRows) and asks
# these to turn them into such arrays and back
def _custom_view(raw, stype, ctx):
    """An NDArray of storage ``stype`` holding ``raw``'s values (dense: ``raw`` itself)."""
    if getattr(raw, 'format', None) == 'csr':
        matrix = raw
        if stype == 'csr':
            index = [matrix.indptr.astype(INDEX_DTYPE), matrix.indices.astype(INDEX_DTYPE)]
            return CSRNDArray(matrix.data, index, matrix.shape, ctx)
        dense = NDArray(matrix.toarray(), ctx)
    elif hasattr(raw, 'rows') and hasattr(raw, 'values'):         # SparseRows
        if stype == 'row_sparse':
            return RowSparseNDArray(raw.values, [raw.rows.astype(INDEX_DTYPE)], raw.shape, ctx)
        dense = NDArray(raw.dense(ctx.xp), ctx)
    else:
        dense = NDArray(raw, ctx)
    return dense if stype == 'default' else cast_storage(dense, stype)


def _custom_dense(array):
    """The raw dense values of an NDArray of any storage."""
    return array._dense_data() if isinstance(array, BaseSparseNDArray) else array._data


def _custom_rows(array):
    """A RowSparseNDArray's stored rows and their values, raw."""
    return array._aux[0], array._data


def _custom_zeros(stype, shape, ctx, dtype):
    return zeros(stype, shape, ctx, dtype)


_custom_op.use_storage(_custom_view, _custom_dense, _custom_rows, _custom_zeros)
