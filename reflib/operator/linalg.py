"""Linear algebra on batches of matrices: ``mx.sym.linalg.*`` (registered as ``_linalg_*``).

Every operator here works on the last two axes of its inputs and repeats over all the
leading (batch) axes, which must agree between inputs (there is no broadcasting).  The
gemm operators can take their matrix rows from another axis (``axis``): that axis is
moved next to the last one, the product is taken, and it is moved back.

====================  =======================================================
gemm / gemm2          ``alpha * op(A) op(B) (+ beta * C)``, op = transpose or not
potrf / potri         Cholesky factor L of A = L L^T; ``(L L^T)^-1`` from L
trsm / trmm           solve with / multiply by a triangular matrix, left or right
syrk                  ``alpha * A A^T`` (or ``A^T A``)
inverse, det, slogdet the inverse, determinant, and (sign, log|det|)
====================  =======================================================

The factorizations syevd and gelqf are in linalg_factor.py; sumlogdiag and the operators that
move diagonals and triangles in and out of matrices in linalg_diag.py.

What MXNet reads of a triangular input: potrf reads A's lower triangle, potri, trsm and
trmm read only the triangle of A their ``lower`` flag names (potri: the lower one), so the
other triangle is masked away here before any arithmetic, and its gradient is zero.
potrf's gradient is the symmetric matrix MXNet returns (the derivative with respect to a
symmetric A), not the derivative with respect to the lower triangle alone.

Triangular solves use ``xp.linalg.solve`` on the masked matrix: numpy has no triangular
solver of its own, and a general solve of a triangular system gives the same answer.
"""

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape
from .common import shape_str, normalize_axis, is_numpy
from ..base import ShapeError, MXNetError


# ================================================================ helpers
def _t(xp, x):
    """The transpose of every matrix in a batch."""
    return xp.swapaxes(x, -1, -2)


def _scalar(x, value):
    return x.dtype.type(value)


def _triangle(xp, a, lower):
    """``a`` with the other triangle (strictly above or below the diagonal) set to 0."""
    n = a.shape[-1]
    mask = xp.tri(n, n, dtype=bool)
    return a * (mask if lower else mask.T)


def _solve(xp, a, b):
    """``a^-1 b`` for a batch of square ``a``; ``b`` has as many dims as ``a``."""
    return xp.linalg.solve(a, b)


def _inverse(xp, a):
    return xp.linalg.inv(a)


def _batch_scalars(x, batch_shape):
    """A per-matrix value (shape ``batch`` or MXNet's ``(1,)`` for one matrix) as ``(..., 1, 1)``."""
    return x.reshape(tuple(batch_shape) + (1, 1))


def _per_matrix_shape(batch_shape):
    """The shape of a one-value-per-matrix output: the batch dims, or ``(1,)`` for one matrix."""
    return tuple(batch_shape) or (1,)


def _check_matrix(op, arg, shape, square=False):
    if shape is None:
        return
    if len(shape) < 2:
        raise ShapeError('%s: input %r must have at least 2 dims (a batch of matrices), got shape %s'
                         % (op, arg, shape_str(shape)))
    if square and shape[-1] and shape[-2] and shape[-1] != shape[-2]:
        raise ShapeError('%s: input %r must hold square matrices, got shape %s'
                         % (op, arg, shape_str(shape)))


def _check_batch(op, named_shapes):
    """The batch (leading) dims every named shape shares; raises if they differ."""
    known = [(n, s) for n, s in named_shapes if s is not None]
    for name, shape in known[1:]:
        first_name, first = known[0]
        if len(shape) != len(first) or any(a and b and a != b for a, b in zip(shape[:-2], first[:-2])):
            raise ShapeError('%s: inputs %r %s and %r %s must have the same batch (leading) dims'
                             % (op, first_name, shape_str(first), name, shape_str(shape)))


def _linalg_error(op, what):
    return MXNetError('%s: %s' % (op, what))


class _Linalg(Operator):
    """One input ``A``; output shape from ``out_shape`` once the input shapes are known."""
    square = True

    def inputs(self, p):
        return ['A']

    def check(self, p, in_shapes):
        for name, shape in zip(self.inputs(p), in_shapes):
            _check_matrix(self.name, name, shape, self.square)
        _check_batch(self.name, list(zip(self.inputs(p), in_shapes)))

    def out_shape(self, p, in_shapes):
        return in_shapes[0]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        in_shapes = list(in_shapes)
        self.check(p, in_shapes)
        out = out_shapes[0]
        if all(s is not None for s in in_shapes):
            out = merge_shape(out, self.out_shape(p, in_shapes), self.name)
        return in_shapes, [out] + list(out_shapes[1:]), aux_shapes


class _SameShape(_Linalg):
    """Square in, the same shape out (potrf, potri, inverse): known from either side."""

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        _check_matrix(self.name, 'A', in_shapes[0], True)
        known = merge_shape(in_shapes[0], out_shapes[0], self.name)
        _check_matrix(self.name, 'A', known, True)
        return [known], [known], aux_shapes


# ================================================================ products
class _Gemm(_Linalg):
    """Shared by gemm and gemm2: the row axis, op(A) op(B) and its gradients."""
    square = False
    params = {
        'transpose_a': Param('bool', False, doc='use A^T'),
        'transpose_b': Param('bool', False, doc='use B^T'),
        'alpha': Param('float', 1.0, doc='scale of the product'),
        'axis': Param('int', -2, doc='the axis of the matrix rows (the columns are the last axis)'),
    }

    def _row_axis(self, p, ndim):
        axis = normalize_axis(self.name, 'axis', p.axis, ndim)
        if axis == ndim - 1:
            raise ShapeError('%s: axis=%d is the column axis of a %d-d input; the rows need another'
                             % (self.name, p.axis, ndim))
        return axis

    def _to_rows(self, p, shape):
        """``shape`` with the row axis moved next to the last one."""
        axis = self._row_axis(p, len(shape))
        s = list(shape)
        rows = s.pop(axis)
        s.insert(len(s) - 1, rows)
        return tuple(s)

    def _from_rows(self, p, shape):
        axis = self._row_axis(p, len(shape))
        s = list(shape)
        rows = s.pop(len(s) - 2)
        s.insert(axis, rows)
        return tuple(s)

    def product_shape(self, p, a_shape, b_shape):
        _check_matrix(self.name, 'A', a_shape)
        _check_matrix(self.name, 'B', b_shape)
        if len(a_shape) != len(b_shape):
            raise ShapeError("%s: inputs 'A' %s and 'B' %s must have the same number of dims"
                             % (self.name, shape_str(a_shape), shape_str(b_shape)))
        a, b = self._to_rows(p, a_shape), self._to_rows(p, b_shape)
        _check_batch(self.name, [('A', a), ('B', b)])
        m, k = (a[-1], a[-2]) if p.transpose_a else (a[-2], a[-1])
        k2, n = (b[-1], b[-2]) if p.transpose_b else (b[-2], b[-1])
        if k and k2 and k != k2:
            raise ShapeError("%s: the inner dims of op(A) %s and op(B) %s differ: %d vs %d "
                             "(transpose_a=%s, transpose_b=%s, axis=%d)"
                             % (self.name, shape_str(a_shape), shape_str(b_shape), k, k2,
                                p.transpose_a, p.transpose_b, p.axis))
        return self._from_rows(p, tuple(x or y for x, y in zip(a[:-2], b[:-2])) + (m, n))

    def check(self, p, in_shapes):
        pass

    def _moved(self, xp, p, x):
        return xp.moveaxis(x, self._row_axis(p, x.ndim), -2)

    def _back(self, xp, p, x):
        return xp.ascontiguousarray(xp.moveaxis(x, -2, self._row_axis(p, x.ndim)))

    def _op(self, xp, x, transpose):
        return _t(xp, x) if transpose else x

    def product(self, p, xp, A, B):
        a, b = self._op(xp, self._moved(xp, p, A), p.transpose_a), self._op(xp, self._moved(xp, p, B), p.transpose_b)
        return _scalar(A, p.alpha) * xp.matmul(a, b)

    def product_grads(self, p, xp, g, A, B):
        """Gradients of A and B for the head gradient ``g`` of ``alpha op(A) op(B)``."""
        g = self._moved(xp, p, g) * _scalar(g, p.alpha)
        a, b = self._op(xp, self._moved(xp, p, A), p.transpose_a), self._op(xp, self._moved(xp, p, B), p.transpose_b)
        da, db = xp.matmul(g, _t(xp, b)), xp.matmul(_t(xp, a), g)
        da, db = self._op(xp, da, p.transpose_a), self._op(xp, db, p.transpose_b)
        return self._back(xp, p, da), self._back(xp, p, db)


@register
class Gemm(_Gemm):
    """``alpha * op(A) op(B) + beta * C`` for each matrix of a batch."""
    name = '_linalg_gemm'
    aliases = ('linalg_gemm',)
    # in MXNet's order, which positional calls follow: beta before axis
    params = {k: _Gemm.params[k] for k in ('transpose_a', 'transpose_b', 'alpha')}
    params.update(beta=Param('float', 1.0, doc='scale of C'), axis=_Gemm.params['axis'])

    def inputs(self, p):
        return ['A', 'B', 'C']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        a, b, c = in_shapes
        out = merge_shape(out_shapes[0], c, self.name + " (input 'C' and the output)")
        if a is not None and b is not None:
            out = merge_shape(out, self.product_shape(p, a, b),
                              "%s: input 'C' (or the output) vs op(A) op(B)" % self.name)
        return [a, b, out], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        A, B, C = inputs
        return [self._back(env.xp, p, self.product(p, env.xp, A, B)) + _scalar(C, p.beta) * C]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        g = out_grads[0]
        da, db = self.product_grads(p, env.xp, g, inputs[0], inputs[1])
        return [da, db, g * _scalar(g, p.beta)]


@register
class Gemm2(_Gemm):
    """``alpha * op(A) op(B)`` for each matrix of a batch."""
    name = '_linalg_gemm2'
    aliases = ('linalg_gemm2',)

    def inputs(self, p):
        return ['A', 'B']

    def out_shape(self, p, in_shapes):
        return self.product_shape(p, *in_shapes)

    def forward(self, p, env, inputs, aux):
        return [self._back(env.xp, p, self.product(p, env.xp, *inputs))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return list(self.product_grads(p, env.xp, out_grads[0], *inputs))


@register
class Syrk(_Linalg):
    """``alpha * A A^T`` (or ``alpha * A^T A`` with ``transpose``)."""
    name = '_linalg_syrk'
    aliases = ('linalg_syrk',)
    square = False
    params = {'transpose': Param('bool', False, doc='compute A^T A'),
              'alpha': Param('float', 1.0, doc='scale')}

    def out_shape(self, p, in_shapes):
        a = in_shapes[0]
        side = a[-1] if p.transpose else a[-2]
        return tuple(a[:-2]) + (side, side)

    def forward(self, p, env, inputs, aux):
        xp, A = env.xp, inputs[0]
        prod = xp.matmul(_t(xp, A), A) if p.transpose else xp.matmul(A, _t(xp, A))
        return [_scalar(A, p.alpha) * prod]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, A, g = env.xp, inputs[0], out_grads[0]
        gs = (g + _t(xp, g)) * _scalar(g, p.alpha)
        return [xp.matmul(A, gs) if p.transpose else xp.matmul(gs, A)]


# ================================================================ triangular
class _Triangular(_Linalg):
    """trsm and trmm: a triangular A (only the triangle ``lower`` names is read) and a B."""
    square = False
    params = {'transpose': Param('bool', False, doc='use A^T'),
              'rightside': Param('bool', False, doc='A multiplies from the right'),
              'lower': Param('bool', True, doc='A is lower (else upper) triangular'),
              'alpha': Param('float', 1.0, doc='scale')}

    def inputs(self, p):
        return ['A', 'B']

    def check(self, p, in_shapes):
        a, b = in_shapes
        _check_matrix(self.name, 'A', a, square=True)
        _check_matrix(self.name, 'B', b)
        _check_batch(self.name, [('A', a), ('B', b)])
        if a is not None and b is not None:
            side = b[-1] if p.rightside else b[-2]
            if a[-1] and side and a[-1] != side:
                raise ShapeError("%s: input 'A' %s does not fit input 'B' %s: B's %s must be %d "
                                 "(rightside=%s)" % (self.name, shape_str(a), shape_str(b),
                                                      'columns' if p.rightside else 'rows', a[-1],
                                                      p.rightside))

    def out_shape(self, p, in_shapes):
        return in_shapes[1]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        self.check(p, in_shapes)
        known = merge_shape(in_shapes[1], out_shapes[0], self.name)
        return [in_shapes[0], known], [known], aux_shapes

    def op_a(self, p, xp, A):
        a = _triangle(xp, A, p.lower)
        return _t(xp, a) if p.transpose else a

    def grad_a(self, p, xp, da):
        """The gradient of op(A) turned into A's: transposed back, the unread triangle zeroed."""
        return _triangle(xp, _t(xp, da) if p.transpose else da, p.lower)


@register
class Trsm(_Triangular):
    """Solve ``op(A) X = alpha B`` (or ``X op(A) = alpha B`` with ``rightside``) for X."""
    name = '_linalg_trsm'
    aliases = ('linalg_trsm',)

    def forward(self, p, env, inputs, aux):
        xp, (A, B) = env.xp, inputs
        a = self.op_a(p, xp, A)
        if p.rightside:       # X a = B  <=>  a^T X^T = B^T
            x = _t(xp, _solve(xp, _t(xp, a), _t(xp, B)))
        else:
            x = _solve(xp, a, B)
        return [xp.ascontiguousarray(x * _scalar(B, p.alpha))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, (A, B), g, x = env.xp, inputs, out_grads[0], outputs[0]
        a = self.op_a(p, xp, A)
        if p.rightside:       # X = alpha B a^-1: dB = alpha g a^-T, da = -X^T g a^-T
            g_at = _t(xp, _solve(xp, a, _t(xp, g)))
            da = -xp.matmul(_t(xp, x), g_at)
        else:                 # X = alpha a^-1 B: dB = alpha a^-T g, da = -a^-T g X^T
            g_at = _solve(xp, _t(xp, a), g)
            da = -xp.matmul(g_at, _t(xp, x))
        return [self.grad_a(p, xp, da), g_at * _scalar(g, p.alpha)]


@register
class Trmm(_Triangular):
    """``alpha op(A) B`` (or ``alpha B op(A)`` with ``rightside``), A triangular."""
    name = '_linalg_trmm'
    aliases = ('linalg_trmm',)

    def forward(self, p, env, inputs, aux):
        xp, (A, B) = env.xp, inputs
        a = self.op_a(p, xp, A)
        prod = xp.matmul(B, a) if p.rightside else xp.matmul(a, B)
        return [prod * _scalar(B, p.alpha)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, (A, B) = env.xp, inputs
        g = out_grads[0] * _scalar(B, p.alpha)
        a = self.op_a(p, xp, A)
        if p.rightside:
            da, db = xp.matmul(_t(xp, B), g), xp.matmul(g, _t(xp, a))
        else:
            da, db = xp.matmul(g, _t(xp, B)), xp.matmul(_t(xp, a), g)
        return [self.grad_a(p, xp, da), db]


# ================================================================ factorizations
@register
class Potrf(_SameShape):
    """The Cholesky factor of a symmetric positive definite A: lower triangular L with
    A = L L^T, reading A's lower triangle; with ``lower=False`` the upper triangular U = L^T
    with A = U^T U, reading A's upper triangle."""
    name = '_linalg_potrf'
    aliases = ('linalg_potrf',)
    params = {'lower': Param('bool', True, doc='the lower factor L (else the upper one, L^T)')}

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        a = inputs[0] if p.lower else _t(xp, inputs[0])     # U = chol(A^T)^T reads A's upper part
        try:
            if is_numpy(xp):
                factor = xp.linalg.cholesky(a)
            else:
                # cupy reads the solver's status back (a synchronisation) only when asked to
                import cupyx  # only on a device: reflib never needs cupy to import
                with cupyx.errstate(linalg='raise'):
                    factor = xp.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            raise _linalg_error(self.name, "input 'A' is not symmetric positive definite") from None
        return [factor if p.lower else xp.ascontiguousarray(_t(xp, factor))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        # the symmetric dA = 1/2 L^-T sym(L^T dL) L^-1, sym() mirroring the lower triangle up;
        # for the upper factor U = L^T, dL = dU^T (and dA, symmetric, is its own transpose)
        xp = env.xp
        L, g = (outputs[0], out_grads[0]) if p.lower else (_t(xp, outputs[0]), _t(xp, out_grads[0]))
        m = xp.matmul(_t(xp, L), _triangle(xp, g, True))
        m = _triangle(xp, m, True) + _t(xp, _triangle(xp, m, True)) - m * xp.eye(m.shape[-1], dtype=m.dtype)
        left = _solve(xp, _t(xp, L), m)                        # L^-T m
        da = _t(xp, _solve(xp, _t(xp, L), _t(xp, left)))       # (L^-T left^T)^T = left L^-1
        return [da * _scalar(da, 0.5)]


@register
class Potri(_SameShape):
    """``(L L^T)^-1`` from a Cholesky factor L (the lower triangle of the input); with
    ``lower=False`` ``(U^T U)^-1`` from an upper factor U = L^T (its upper triangle)."""
    name = '_linalg_potri'
    aliases = ('linalg_potri',)
    params = {'lower': Param('bool', True, doc='the input is the lower factor L (else the upper one, L^T)')}

    def _lower_factor(self, p, xp, a):
        return _triangle(xp, a, True) if p.lower else _t(xp, _triangle(xp, a, False))

    def forward(self, p, env, inputs, aux):
        xp = env.xp
        linv = _inverse(xp, self._lower_factor(p, xp, inputs[0]))
        return [xp.matmul(_t(xp, linv), linv)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        # out = (L L^T)^-1, d out = -out (dL L^T + L dL^T) out; for U = L^T, dU = dL^T
        xp, g, out = env.xp, out_grads[0], outputs[0]
        L = self._lower_factor(p, xp, inputs[0])
        dl = -xp.matmul(xp.matmul(xp.matmul(out, g + _t(xp, g)), out), L)
        return [_triangle(xp, dl, True) if p.lower else _triangle(xp, _t(xp, dl), False)]


@register
class Inverse(_SameShape):
    """The inverse of each square matrix."""
    name = '_linalg_inverse'
    aliases = ('linalg_inverse',)

    def forward(self, p, env, inputs, aux):
        try:
            return [_inverse(env.xp, inputs[0])]
        except np.linalg.LinAlgError:
            raise _linalg_error(self.name, "input 'A' is singular") from None

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x = env.xp, outputs[0]
        xt = _t(xp, x)
        return [-xp.matmul(xp.matmul(xt, out_grads[0]), xt)]


class _Determinant(_Linalg):
    """det and slogdet: one value per matrix (shape: the batch dims, or (1,))."""

    def out_shape(self, p, in_shapes):
        return _per_matrix_shape(in_shapes[0][:-2])

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        ins, outs, aux = _Linalg.infer_shape(self, p, in_shapes, out_shapes, aux_shapes)
        return ins, [outs[0]] * len(outs), aux


@register
class Det(_Determinant):
    """The determinant of each square matrix; gradient ``g det(A) A^-T``."""
    name = '_linalg_det'
    aliases = ('linalg_det',)

    def outputs(self, p):
        return ['output0']

    def forward(self, p, env, inputs, aux):
        A = inputs[0]
        return [env.xp.linalg.det(A).reshape(_per_matrix_shape(A.shape[:-2]))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, A = env.xp, inputs[0]
        batch = A.shape[:-2]
        scale = _batch_scalars(out_grads[0] * outputs[0], batch)
        return [scale * _t(xp, _inverse(xp, A))]


@register
class Slogdet(_Determinant):
    """The sign and the log of the absolute value of each determinant; gradient ``g A^-T``."""
    name = '_linalg_slogdet'
    aliases = ('linalg_slogdet',)

    def outputs(self, p):
        return ['output0', 'output1']

    def forward(self, p, env, inputs, aux):
        A = inputs[0]
        sign, logabs = env.xp.linalg.slogdet(A)
        shape = _per_matrix_shape(A.shape[:-2])
        return [sign.reshape(shape), logabs.reshape(shape)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, A, g = env.xp, inputs[0], out_grads[1]
        if g is None:
            return [xp.zeros_like(A)]
        return [_batch_scalars(g, A.shape[:-2]) * _t(xp, _inverse(xp, A))]
