"""Matrix factorizations of ``mx.sym.linalg``: ``syevd`` (symmetric eigendecomposition) and
``gelqf`` (LQ factorization), batched over leading axes like the rest of linalg.py.

syevd  ``A = U^T diag(L) U`` for a symmetric A (its lower triangle is read): the rows of U
       are the eigenvectors, L the eigenvalues in ascending order.  An eigenvector's sign is
       arbitrary; as MXNet, each row of U is turned so that its entry of largest magnitude
       is positive.
gelqf  ``A = L Q`` for an m x n A with m <= n: L (m x m) lower triangular, Q (m x n) with
       orthonormal rows.  The outputs are (Q, L), in that order.
"""

from .registry import register
from ..shapes import merge_shape
from .common import shape_str
from .linalg import _Linalg, _t, _triangle, _solve, _check_matrix
from ..base import ShapeError


def _symmetric_from_lower(xp, m):
    """The symmetric matrix whose lower triangle (diagonal included) is ``m``'s."""
    low = _triangle(xp, m, True)
    return low + _t(xp, low) - m * xp.eye(m.shape[-1], dtype=m.dtype)


@register
class Syevd(_Linalg):
    """Eigenvectors (rows of output 0) and ascending eigenvalues (output 1) of a symmetric A."""
    name = '_linalg_syevd'

    def outputs(self, p):
        return ['output0', 'output1']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        _check_matrix(self.name, 'A', in_shapes[0], square=True)
        a = merge_shape(in_shapes[0], out_shapes[0], self.name)
        values = out_shapes[1]
        if a is not None:
            values = merge_shape(values, tuple(a[:-1]), self.name + ' eigenvalues')
        return [a], [a, values], aux_shapes

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        values, vectors = xp.linalg.eigh(inputs[0], UPLO='L')
        u = _t(xp, vectors)
        # the sign that makes each row's largest-magnitude entry positive
        biggest = xp.take_along_axis(u, xp.argmax(xp.abs(u), axis=-1)[..., None], axis=-1)
        u = u * xp.where(biggest < 0, -1, 1).astype(u.dtype)
        return [xp.ascontiguousarray(u), values]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        # with V = U^T: dA = V (diag(dL) + F * (V^T dV)) V^T, F_ij = 1 / (l_j - l_i) off the
        # diagonal, made symmetric (A is)
        xp = env.xp
        u, values = outputs
        du, dl = out_grads
        du = xp.zeros_like(u) if du is None else du
        dl = xp.zeros_like(values) if dl is None else dl
        n = values.shape[-1]
        gap = values[..., None, :] - values[..., :, None]
        off = ~xp.eye(n, dtype=bool)
        f = xp.where(off, 1 / xp.where(off, gap, 1), 0).astype(u.dtype)
        inner = f * xp.matmul(u, _t(xp, du)) + xp.eye(n, dtype=u.dtype) * dl[..., None, :]
        da = xp.matmul(xp.matmul(_t(xp, u), inner), u)
        return [(da + _t(xp, da)) * u.dtype.type(0.5)]


@register
class Gelqf(_Linalg):
    """The LQ factorization A = L Q of a wide (m <= n) A: outputs Q and L."""
    name = '_linalg_gelqf'
    aliases = ('linalg_gelqf',)
    square = False

    def outputs(self, p):
        return ['output0', 'output1']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        a = merge_shape(in_shapes[0], out_shapes[0], self.name)
        _check_matrix(self.name, 'A', a)
        l_shape = out_shapes[1]
        if a is not None:
            if a[-2] and a[-1] and a[-2] > a[-1]:
                raise ShapeError("%s: input 'A' must have no more rows than columns, got shape %s"
                                 % (self.name, shape_str(a)))
            l_shape = merge_shape(l_shape, tuple(a[:-1]) + (a[-2],), self.name + ' output L')
        return [a], [a, l_shape], aux_shapes

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        self.infer_shape(p, [inputs[0].shape], [None, None], [])
        q, r = xp.linalg.qr(_t(xp, inputs[0]))       # A^T = q r, so A = r^T q^T
        return [xp.ascontiguousarray(_t(xp, q)), xp.ascontiguousarray(_t(xp, r))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        # dA = L^-T (dQ + sym(M) Q), M = L^T dL - dQ Q^T, sym() mirroring the lower triangle up
        xp = env.xp
        q, low = outputs
        dq, dl = out_grads
        dq = xp.zeros_like(q) if dq is None else dq
        dl = xp.zeros_like(low) if dl is None else _triangle(xp, dl, True)
        m = xp.matmul(_t(xp, low), dl) - xp.matmul(dq, _t(xp, q))
        rhs = dq + xp.matmul(_symmetric_from_lower(xp, m), q)
        return [_solve(xp, _t(xp, low), rhs)]
