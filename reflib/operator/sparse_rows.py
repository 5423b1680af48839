"""A gradient that is zero outside a few rows, as an operator's backward hands it over.

An embedding table of a million rows gets, from one batch, gradient in the few rows the batch
looked up.  MXNet stores such a gradient ``row_sparse``: the row numbers and those rows'
values.  An operator whose gradient has that form (``Embedding(sparse_grad=True)``'s weight,
``dot``'s rhs when lhs is a CSR matrix) returns a ``SparseRows`` for that input instead of a
dense array, and the executor keeps it sparse all the way into a row_sparse gradient array:
the dense gradient is never allocated.  Where it must meet dense arithmetic (the weight also
feeds another operator, or the gradient array is dense) it becomes dense there.

The executor also hands an operator sparse inputs as they are, where the operator says it
takes them (``Operator.sparse_inputs``): a CSR array as scipy's (or cupyx's) ``csr_matrix``,
a row_sparse one as a ``SparseRows``.
"""

import numpy as np

from .common import scatter_add

__all__ = ['SparseRows', 'is_csr_matrix', 'summed_rows']

INDEX_DTYPE = np.int64


def is_csr_matrix(value):
    """Whether ``value`` is a scipy.sparse or cupyx.scipy.sparse CSR matrix (no import needed)."""
    return getattr(value, 'format', None) == 'csr'


class SparseRows:
    """Rows ``rows`` (sorted, distinct, int64) of an array of ``shape`` hold ``values``
    (``len(rows)`` slices of ``shape[1:]``); every other row is zero."""
    __slots__ = ('rows', 'values', 'shape')

    def __init__(self, rows, values, shape):
        self.rows, self.values, self.shape = rows, values, tuple(shape)

    @property
    def dtype(self):
        return self.values.dtype

    def dense(self, xp):
        """The same gradient as a dense array."""
        full = xp.zeros(self.shape, dtype=self.values.dtype)
        if len(self.rows):
            full[self.rows] = self.values
        return full

    def lookup(self, xp, index):
        """Rows ``index`` (any shape of row numbers): ``index.shape + shape[1:]``, zeros where a row
        is not stored."""
        out = xp.zeros(tuple(index.shape) + self.shape[1:], dtype=self.values.dtype)
        if len(self.rows):
            where = xp.minimum(xp.searchsorted(self.rows, index), len(self.rows) - 1)
            found = self.rows[where] == index
            out[found] = self.values[where[found]]
        return out

    def plus(self, other, xp):
        """Two sparse gradients of one array summed: the union of their rows."""
        rows = xp.union1d(self.rows, other.rows).astype(INDEX_DTYPE)
        values = xp.zeros((len(rows),) + self.shape[1:], dtype=self.values.dtype)
        values[xp.searchsorted(rows, self.rows)] += self.values
        values[xp.searchsorted(rows, other.rows)] += other.values.astype(values.dtype, copy=False)
        return SparseRows(rows, values, self.shape)


def summed_rows(xp, index, values, shape):
    """The gradient of a row lookup: ``values[i]`` belongs to row ``index[i]``; rows looked up
    more than once sum their slices.  Only the rows that occur are stored."""
    rows, where = xp.unique(index, return_inverse=True)
    summed = xp.zeros((len(rows),) + tuple(shape[1:]), dtype=values.dtype)
    if len(rows):
        scatter_add(xp, summed, where.reshape(-1), values)
    return SparseRows(rows.astype(INDEX_DTYPE), summed, shape)
