"""What the executor does for sparse arrays: CSR inputs, row_sparse gradients.

* A sparse argument reaches an operator that takes it (``Operator.sparse_inputs``) as it is: a
  CSR one (dot's lhs) as scipy's (cupyx's) ``csr_matrix``, a row_sparse one (Embedding's
  weight) as ``SparseRows``; any other operator gets its dense form, MXNet's "storage
  fallback".
* A row_sparse gradient (symbol/storage.py says which) travels from the operator's backward
  as ``SparseRows`` and lands in the argument's RowSparseNDArray: the executor plans no dense
  array for it.  A row_sparse gradient array whose gradient comes out dense gets the dense
  result's non-zero rows.
"""

from ..base import BindError
from ..ndarray.ndarray import move
from ..ndarray.sparse import INDEX_DTYPE, CSRNDArray, RowSparseNDArray
from ..operator.sparse_rows import SparseRows
from ..symbol.storage import gradient_stypes
from ..symbol.symbol import topo_order

__all__ = ['sparse_gradient_arrays', 'bound_value', 'store_rows', 'store_dense']


def sparse_gradient_arrays(symbol, names, arrays, grads, reqs):
    """The arguments whose gradient stays row_sparse: ``{index: gradient array}``.

    Refuses what MXNet refuses: a row_sparse gradient summed into ('add') rather than
    written, and Embedding(sparse_grad=True)'s gradient into a dense array."""
    stypes = gradient_stypes(symbol, {n: a.stype for n, a in zip(names, arrays)})
    only_sparse = _sparse_only(symbol, stypes)
    kept = {}
    for k, (name, grad, req) in enumerate(zip(names, grads, reqs)):
        if grad is None or req == 'null':
            continue
        if stypes[name] == 'row_sparse' and grad.stype == 'default' and name in only_sparse:
            raise BindError('bind: the gradient of %r is row_sparse (%s has sparse_grad=True), but its gradient '
                            "array is dense; give a row_sparse array (mx.nd.sparse.zeros('row_sparse', %s)) "
                            'or use simple_bind' % (name, only_sparse[name], grad.shape))
        if grad.stype == 'row_sparse':
            if req == 'add':
                raise BindError("bind: the row_sparse gradient of %r cannot be summed into (grad_req='add'): "
                                "MXNet's sparse kernels only write it; use grad_req='write'" % name)
            if stypes[name] == 'row_sparse':
                kept[k] = grad
        elif grad.stype == 'csr':
            raise BindError('bind: the gradient array of %r is CSR; gradients are dense or row_sparse' % name)
    return kept


def _sparse_only(symbol, stypes):
    """Arguments read by an operator whose row_sparse gradient may not turn dense -> its node."""
    found = {}
    for node in topo_order(symbol._outputs):
        if node.op is not None and node.op.sparse_grad_only:
            for k, (child, _) in enumerate(node.inputs):
                if child.op is None and node.op.grad_stype(node.params, k, ['default'] * len(node.inputs)) == 'row_sparse':
                    found.setdefault(child.name, '%s %r' % (node.op.name, node.name))
    return found


def bound_value(arr):
    """What an operator that takes a sparse argument as it is reads: a CSR matrix, or SparseRows."""
    if isinstance(arr, CSRNDArray):
        return arr._matrix()
    if isinstance(arr, RowSparseNDArray):
        return SparseRows(arr._aux[0], arr._data, arr.shape)
    return arr._data


def store_rows(grad, rows):
    """Make the RowSparseNDArray ``grad`` hold ``rows`` (a SparseRows, or None: no rows)."""
    xp, ctx = grad._ctx.xp, grad._ctx
    with ctx.device_scope():
        if rows is None:
            grad._data = xp.zeros((0,) + grad.shape[1:], dtype=grad._data.dtype)
            grad._aux = [xp.zeros(0, INDEX_DTYPE)]
        else:
            grad._data = move(rows.values, ctx).astype(grad._data.dtype, copy=False)
            grad._aux = [move(rows.rows, ctx)]


def store_dense(grad, dense):
    """Make the RowSparseNDArray ``grad`` hold the non-zero rows of the dense gradient."""
    xp, ctx = grad._ctx.xp, grad._ctx
    dense = move(dense, ctx)
    with ctx.device_scope():
        rows = xp.flatnonzero(dense.reshape(dense.shape[0], -1).any(axis=1)).astype(INDEX_DTYPE)
        grad._data = xp.ascontiguousarray(dense[rows]).astype(grad._data.dtype, copy=False)
        grad._aux = [rows]
