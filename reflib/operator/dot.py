"""dot and batch_dot.

dot (MXNet 1.x semantics, which differ from numpy's for N-d inputs)
--------------------------------------------------------------------
One axis of lhs is contracted with one axis of rhs:

=============  ====================  ===========================
               contracted axis       axes kept in the output
=============  ====================  ===========================
lhs            last  (first if       all others, in order
               ``transpose_a``)
rhs            first (last if        all others, in order
               ``transpose_b``)
=============  ====================  ===========================

The output shape is lhs's kept axes followed by rhs's kept axes; a 1-d input
contributes no kept axes (transposing it changes nothing), and two 1-d inputs
give shape ``(1,)``.  Transposing when *both* inputs are 1-d is an error.
Example: lhs (4,2,3) with transpose_a and rhs (6,5,4) with transpose_b
contract the 4s and give (2,3,6,5).

The computation flattens to one matrix product: lhs becomes (m, k) with the
contracted axis last, rhs becomes (k, n) with the contracted axis first.

batch_dot
---------
Both inputs have the same number of dims N >= 3 and the same leading N-2
(batch) dims; the last two dims are multiplied as matrices, each optionally
transposed: (B.., M, K) x (B.., K, N) -> (B.., M, N).
"""

import numpy as np

from .registry import Operator, Param, register
from .sparse_rows import INDEX_DTYPE, SparseRows, is_csr_matrix
from ..shapes import merge_shape
from ..shapes import format_shape as _fmt
from ..base import ShapeError

_STYPES = ('csr', 'default', 'row_sparse')


def _merge_dim(a, b, why):
    """Unify two sizes of one dimension (0 = unknown); ``why()`` builds the error message."""
    if a and b and a != b:
        raise ShapeError(why())
    return a or b


class _DotBase(Operator):
    params = {
        'transpose_a': Param('bool', False, doc='transpose lhs first'),
        'transpose_b': Param('bool', False, doc='transpose rhs first'),
        'forward_stype': Param('enum', None, choices=_STYPES,
                               doc='storage type of the output; accepted for compatibility, '
                                   'reflib computes densely'),
    }

    def inputs(self, p):
        return ['lhs', 'rhs']


@register
class Dot(_DotBase):
    """Contract one axis of lhs with one axis of rhs (see the module docstring)."""
    name = 'dot'

    # ------------------------------------------------------------ shapes
    @staticmethod
    def _split_lhs(p, shape):
        """(contracted size, kept dims) of lhs."""
        if len(shape) == 1:
            return shape[0], ()
        if p.transpose_a:
            return shape[0], tuple(shape[1:])
        return shape[-1], tuple(shape[:-1])

    @staticmethod
    def _split_rhs(p, shape):
        """(contracted size, kept dims) of rhs."""
        if len(shape) == 1:
            return shape[0], ()
        if p.transpose_b:
            return shape[-1], tuple(shape[:-1])
        return shape[0], tuple(shape[1:])

    @staticmethod
    def _join_lhs(p, k, kept):
        if not kept:
            return (k,)
        return (k,) + tuple(kept) if p.transpose_a else tuple(kept) + (k,)

    @staticmethod
    def _join_rhs(p, k, kept):
        if not kept:
            return (k,)
        return tuple(kept) + (k,) if p.transpose_b else (k,) + tuple(kept)

    def _mismatch(self, p, lhs, rhs, lk, rk):
        return ("dot: input 'lhs' %s and input 'rhs' %s do not fit: lhs contracts its %s axis "
                "(size %d), rhs its %s axis (size %d) (transpose_a=%s, transpose_b=%s)"
                % (_fmt(lhs), _fmt(rhs), 'first' if p.transpose_a and len(lhs) > 1 else 'last', lk,
                   'last' if p.transpose_b and len(rhs) > 1 else 'first', rk,
                   p.transpose_a, p.transpose_b))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        lhs, rhs = in_shapes
        out = out_shapes[0]
        if lhs is not None and rhs is not None:
            if len(lhs) == 1 and len(rhs) == 1 and (p.transpose_a or p.transpose_b):
                raise ShapeError("dot: cannot transpose 1-d inputs: input 'lhs' %s, input 'rhs' %s "
                                 "(transpose_a=%s, transpose_b=%s)"
                                 % (_fmt(lhs), _fmt(rhs), p.transpose_a, p.transpose_b))
            lk, lkept = self._split_lhs(p, lhs)
            rk, rkept = self._split_rhs(p, rhs)
            k = _merge_dim(lk, rk, lambda: self._mismatch(p, lhs, rhs, lk, rk))
            want = (lkept + rkept) or (1,)
            out = merge_shape(out, want, "dot output (input 'lhs' %s, input 'rhs' %s)" % (_fmt(lhs), _fmt(rhs)))
            if lkept or rkept:  # hand known output dims back to unknown input dims
                lkept, rkept = tuple(out[:len(lkept)]), tuple(out[len(lkept):])
            lhs, rhs = self._join_lhs(p, k, lkept), self._join_rhs(p, k, rkept)
        elif lhs is not None and out is not None:
            rhs = self._rhs_from(p, lhs, out)
        elif rhs is not None and out is not None:
            lhs = self._lhs_from(p, rhs, out)
        return [lhs, rhs], [out], aux_shapes

    def _rhs_from(self, p, lhs, out):
        """rhs's shape from lhs and the output, or None where it is ambiguous."""
        k, lkept = self._split_lhs(p, lhs)
        if len(out) < len(lkept) or (not lkept and tuple(out) == (1,)):
            return None  # (1,) could come from a 1-d or a (k,1)-shaped rhs
        rkept = tuple(out[len(lkept):])
        return self._join_rhs(p, k, rkept)

    def _lhs_from(self, p, rhs, out):
        k, rkept = self._split_rhs(p, rhs)
        if len(out) < len(rkept) or (not rkept and tuple(out) == (1,)):
            return None
        lkept = tuple(out[:len(out) - len(rkept)])
        return self._join_lhs(p, k, lkept)

    # ------------------------------------------------------- computation
    def _as_matrices(self, p, env, lhs, rhs):
        """lhs as (m, k) and rhs as (k, n), plus the layouts needed to undo the flattening."""
        xp = env.xp
        if lhs.ndim == 1 and rhs.ndim == 1 and (p.transpose_a or p.transpose_b):
            raise ShapeError('dot: cannot transpose 1-d inputs: lhs %s, rhs %s'
                             % (_fmt(lhs.shape), _fmt(rhs.shape)))
        a = xp.moveaxis(lhs, 0, -1) if p.transpose_a and lhs.ndim > 1 else lhs
        b = xp.moveaxis(rhs, -1, 0) if p.transpose_b and rhs.ndim > 1 else rhs
        if a.shape[-1] != b.shape[0]:
            raise ShapeError(self._mismatch(p, lhs.shape, rhs.shape, a.shape[-1], b.shape[0]))
        k = a.shape[-1]
        return a.reshape(-1, k), b.reshape(k, -1), a.shape, b.shape

    def _out_shape(self, lhs, rhs, a_shape, b_shape):
        kept = (tuple(a_shape[:-1]) if lhs.ndim > 1 else ()) + (tuple(b_shape[1:]) if rhs.ndim > 1 else ())
        return kept or (1,)

    # ---------------------------------------------------- a CSR lhs
    def sparse_inputs(self, p):
        return {0: ('csr',)}

    def grad_stype(self, p, k, in_stypes):
        # d rhs = lhsᵀ · d out: only the rows of rhs that a stored column of lhs reaches
        sparse = k == 1 and in_stypes[0] == 'csr' and not p.transpose_a and not p.transpose_b
        return 'row_sparse' if sparse else 'default'

    @staticmethod
    def _wide(x):
        """scipy's sparse products have no float16: such operands go as float32."""
        return x.astype(np.float32) if x.dtype == np.float16 else x

    def _csr_forward(self, p, env, lhs, rhs):
        lk = lhs.shape[0 if p.transpose_a else 1]
        rk = rhs.shape[-1] if p.transpose_b else rhs.shape[0]
        if lk != rk:
            raise ShapeError(self._mismatch(p, lhs.shape, rhs.shape, lk, rk))
        a = lhs.T if p.transpose_a else lhs
        b = rhs.T if p.transpose_b else rhs
        return env.xp.asarray(self._wide(a) @ self._wide(b)).astype(rhs.dtype, copy=False)

    def _csr_backward(self, p, env, g, lhs, rhs):
        """Gradients when lhs is a CSR matrix: rhs's (row_sparse where ``grad_stype`` says so),
        and none for lhs: MXNet 1.9.1 computes none for a CSR lhs, its gradient array keeps zeros."""
        xp = env.xp
        if not env.wants_grad(1):
            return [None, None]
        a, g = self._wide(lhs), self._wide(g)
        if self.grad_stype(p, 1, ('csr', 'default')) == 'row_sparse':
            rows = xp.unique(lhs.indices).astype(INDEX_DTYPE)
            values = xp.asarray(a[:, rows].T @ g).astype(rhs.dtype, copy=False)
            return [None, SparseRows(rows, values, rhs.shape)]
        db = xp.asarray((a.T if not p.transpose_a else a) @ g).astype(rhs.dtype, copy=False)
        return [None, xp.ascontiguousarray(db.T if p.transpose_b else db)]

    def forward(self, p, env, inputs, aux):
        lhs, rhs = inputs
        if is_csr_matrix(lhs):
            return [self._csr_forward(p, env, lhs, rhs)]
        a2, b2, a_shape, b_shape = self._as_matrices(p, env, lhs, rhs)
        return [(a2 @ b2).reshape(self._out_shape(lhs, rhs, a_shape, b_shape))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp = env.xp
        lhs, rhs = inputs
        if is_csr_matrix(lhs):
            return self._csr_backward(p, env, out_grads[0], lhs, rhs)
        a2, b2, a_shape, b_shape = self._as_matrices(p, env, lhs, rhs)
        g2 = out_grads[0].reshape(a2.shape[0], b2.shape[1])
        da = db = None
        if env.wants_grad(0):
            da = (g2 @ b2.T).reshape(a_shape)
            if p.transpose_a and lhs.ndim > 1:
                da = xp.moveaxis(da, -1, 0)
            da = xp.ascontiguousarray(da)
        if env.wants_grad(1):
            db = (a2.T @ g2).reshape(b_shape)
            if p.transpose_b and rhs.ndim > 1:
                db = xp.moveaxis(db, 0, -1)
            db = xp.ascontiguousarray(db)
        return [da, db]


@register
class BatchDot(_DotBase):
    """Matrix products over the last two axes, one per index of the leading (batch) axes."""
    name = 'batch_dot'

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        """Forward only, as MXNet 1.9.1 infers it: the output once both inputs' matrix dims
        are known (their batch dims may not be yet); never an input from the output, so a
        partial ``lhs`` leaves the output unknown, ``()`` in ``infer_shape_partial``."""
        lhs, rhs = in_shapes
        out = out_shapes[0]
        if lhs is None or rhs is None:
            return [lhs, rhs], [out], aux_shapes
        if len(lhs) < 3 or len(lhs) != len(rhs):
            raise ShapeError("batch_dot: inputs must both be N-d with N >= 3: input 'lhs' %s, input 'rhs' %s"
                             % (_fmt(lhs), _fmt(rhs)))
        if not all(lhs[-2:]) or not all(rhs[-2:]):
            return [lhs, rhs], [out], aux_shapes

        def why(what):
            return lambda: ("batch_dot: %s do not fit: input 'lhs' %s, input 'rhs' %s (transpose_a=%s, "
                            "transpose_b=%s)" % (what, _fmt(lhs), _fmt(rhs), p.transpose_a, p.transpose_b))
        batch = tuple(_merge_dim(a, b, why('batch dims')) for a, b in zip(lhs[:-2], rhs[:-2]))
        m, k = (lhs[-1], lhs[-2]) if p.transpose_a else (lhs[-2], lhs[-1])
        rk, n = (rhs[-1], rhs[-2]) if p.transpose_b else (rhs[-2], rhs[-1])
        _merge_dim(k, rk, why('the contracted dims (%d vs %d)' % (k, rk)))
        return [lhs, rhs], [merge_shape(out, batch + (m, n), 'batch_dot output')], aux_shapes

    @staticmethod
    def _mats(p, env, lhs, rhs):
        xp = env.xp
        a = xp.swapaxes(lhs, -1, -2) if p.transpose_a else lhs
        b = xp.swapaxes(rhs, -1, -2) if p.transpose_b else rhs
        return a, b

    def forward(self, p, env, inputs, aux):
        lhs, rhs = inputs
        if lhs.ndim < 3 or lhs.ndim != rhs.ndim or lhs.shape[:-2] != rhs.shape[:-2]:
            raise ShapeError('batch_dot: lhs %s and rhs %s need the same N >= 3 dims and batch dims'
                             % (_fmt(lhs.shape), _fmt(rhs.shape)))
        a, b = self._mats(p, env, lhs, rhs)
        if a.shape[-1] != b.shape[-2]:
            raise ShapeError('batch_dot: lhs %s and rhs %s: contracted dims %d vs %d '
                             '(transpose_a=%s, transpose_b=%s)'
                             % (_fmt(lhs.shape), _fmt(rhs.shape), a.shape[-1], b.shape[-2],
                                p.transpose_a, p.transpose_b))
        return [env.xp.matmul(a, b)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp = env.xp
        a, b = self._mats(p, env, *inputs)
        g = out_grads[0]
        da = xp.matmul(g, xp.swapaxes(b, -1, -2))
        db = xp.matmul(xp.swapaxes(a, -1, -2), g)
        if p.transpose_a:
            da = xp.swapaxes(da, -1, -2)
        if p.transpose_b:
            db = xp.swapaxes(db, -1, -2)
        return [xp.ascontiguousarray(da), xp.ascontiguousarray(db)]
