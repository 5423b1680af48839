"""``mx.sym.linalg``'s diagonals and triangles, batched over leading axes like linalg.py.

sumlogdiag            the sum of the logs of each matrix's diagonal
extractdiag/makediag  a diagonal (``offset`` from the main one) out of / into a matrix
extracttrian/         a triangle, as a flat vector, out of / into a matrix: the lower one
maketrian             row by row, the upper one column by column (see ``_trian_index``)
"""

import numpy as np

from .registry import Param, register
from .common import shape_str
from .linalg import _Linalg, _per_matrix_shape
from ..base import ShapeError


@register
class Sumlogdiag(_Linalg):
    """The sum of the logs of each matrix's diagonal (the log-determinant of a Cholesky factor)."""
    name = '_linalg_sumlogdiag'
    aliases = ('linalg_sumlogdiag',)

    def out_shape(self, p, in_shapes):
        return _per_matrix_shape(in_shapes[0][:-2])

    def forward(self, p, env, inputs, aux):
        xp, A = env.xp, inputs[0]
        out = xp.log(xp.diagonal(A, 0, -2, -1)).sum(axis=-1)
        return [out.reshape(_per_matrix_shape(A.shape[:-2]))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, A = env.xp, inputs[0]
        g = out_grads[0].reshape(A.shape[:-2] + (1,))
        per_diag = g / xp.diagonal(A, 0, -2, -1)
        return [xp.eye(A.shape[-1], dtype=A.dtype) * per_diag[..., None, :]]


def _diag_index(xp, n, offset):
    """(rows, cols) of the diagonal ``offset`` (> 0 above the main one) of an n x n matrix,
    made where the matrices live (index arrays from the host would be copied on every call)."""
    size = n - abs(offset)
    i = xp.arange(size)
    return i + max(-offset, 0), i + max(offset, 0)


@register
class Extractdiag(_Linalg):
    """The diagonal ``offset`` of each square matrix, as a vector."""
    name = '_linalg_extractdiag'
    aliases = ('linalg_extractdiag',)
    params = {'offset': Param('int', 0, doc='which diagonal: > 0 above the main one, < 0 below')}

    def check(self, p, in_shapes):
        _Linalg.check(self, p, in_shapes)
        a = in_shapes[0]
        if a is not None and a[-1] and abs(p.offset) >= a[-1]:
            raise ShapeError("%s: offset=%d is out of range for input 'A' %s (|offset| must be below %d)"
                             % (self.name, p.offset, shape_str(a), a[-1]))

    def out_shape(self, p, in_shapes):
        a = in_shapes[0]
        return tuple(a[:-2]) + (a[-1] - abs(p.offset),)

    def forward(self, p, env, inputs, aux):
        return [env.xp.ascontiguousarray(env.xp.diagonal(inputs[0], p.offset, -2, -1))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, A = env.xp, inputs[0]
        rows, cols = _diag_index(xp, A.shape[-1], p.offset)
        da = xp.zeros_like(A)
        da[..., rows, cols] = out_grads[0]
        return [da]


@register
class Makediag(_Linalg):
    """Square matrices with each input vector on the diagonal ``offset`` and zeros elsewhere."""
    name = '_linalg_makediag'
    aliases = ('linalg_makediag',)
    params = dict(Extractdiag.params)

    def check(self, p, in_shapes):
        a = in_shapes[0]
        if a is not None and len(a) < 1:
            raise ShapeError("%s: input 'A' must have at least 1 dim, got shape %s" % (self.name, shape_str(a)))

    def out_shape(self, p, in_shapes):
        a = in_shapes[0]
        n = a[-1] + abs(p.offset) if a[-1] else 0
        return tuple(a[:-1]) + (n, n)

    def forward(self, p, env, inputs, aux):
        xp, v = env.xp, inputs[0]
        n = v.shape[-1] + abs(p.offset)
        rows, cols = _diag_index(xp, n, p.offset)
        out = xp.zeros(v.shape[:-1] + (n, n), dtype=v.dtype)
        out[..., rows, cols] = v
        return [out]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.ascontiguousarray(env.xp.diagonal(out_grads[0], p.offset, -2, -1))]


def _trian_index(xp, n, offset, lower):
    """(rows, cols) of a triangle of an n x n matrix in MXNet's order.

    ``offset`` < 0 (or 0 with ``lower``) is the lower triangle from that diagonal down, row
    by row; ``offset`` > 0 (or 0 without ``lower``) the upper triangle from that diagonal
    up, column by column: the lower triangle of the transpose.
    """
    if offset < 0 or (offset == 0 and lower):
        return _tril_index(xp, n, offset)
    rows, cols = _tril_index(xp, n, -offset)
    return cols, rows


def _tril_index(xp, n, k):
    """numpy's ``tril_indices(n, k)`` for k <= 0, computed where the arrays live.

    Written out rather than called because cupy's ``tril_indices`` finds the entries with
    ``nonzero``, which must wait for the device to learn how many there are.  Here the count
    is known on the host: row r (from -k on) holds j + 1 entries, j = r + k, so entry t of
    the flat list sits in the row j with j(j+1)/2 <= t < (j+1)(j+2)/2.
    """
    m = max(n + k, 0)
    t = xp.arange(m * (m + 1) // 2, dtype=np.int64)
    j = xp.floor((xp.sqrt(8 * t + 1) - 1) / 2).astype(np.int64)
    # float64's square root can land one off for large t: step j back or on to the bracket
    j = j - (j * (j + 1) // 2 > t)
    j = j + ((j + 1) * (j + 2) // 2 <= t)
    return j - k, t - j * (j + 1) // 2


def _trian_side(length, offset):
    """The matrix side n whose triangle at ``offset`` holds ``length`` values, or None."""
    m = int(round((np.sqrt(8 * length + 1) - 1) / 2))
    return m + abs(offset) if m * (m + 1) // 2 == length and m > 0 else None


@register
class Extracttrian(_Linalg):
    """A triangle of each square matrix as a flat vector (see ``_trian_index`` for the order)."""
    name = '_linalg_extracttrian'
    aliases = ('linalg_extracttrian',)
    params = {'offset': Param('int', 0, doc='the diagonal the triangle starts from'),
              'lower': Param('bool', True, doc='with offset 0: the lower (else the upper) triangle')}

    def check(self, p, in_shapes):
        Extractdiag.check(self, p, in_shapes)

    def out_shape(self, p, in_shapes):
        a = in_shapes[0]
        m = a[-1] - abs(p.offset)
        return tuple(a[:-2]) + (m * (m + 1) // 2,)

    def forward(self, p, env, inputs, aux):
        xp, A = env.xp, inputs[0]
        rows, cols = _trian_index(xp, A.shape[-1], p.offset, p.lower)
        return [A[..., rows, cols]]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, A = env.xp, inputs[0]
        rows, cols = _trian_index(xp, A.shape[-1], p.offset, p.lower)
        da = xp.zeros_like(A)
        da[..., rows, cols] = out_grads[0]
        return [da]


@register
class Maketrian(_Linalg):
    """Square matrices holding each input vector in a triangle (extracttrian's inverse), zeros elsewhere."""
    name = '_linalg_maketrian'
    aliases = ('linalg_maketrian',)
    params = dict(Extracttrian.params)

    def check(self, p, in_shapes):
        a = in_shapes[0]
        if a is None:
            return
        if len(a) < 1:
            raise ShapeError("%s: input 'A' must have at least 1 dim, got shape %s" % (self.name, shape_str(a)))
        if a[-1] and _trian_side(a[-1], p.offset) is None:
            raise ShapeError("%s: the last dim of input 'A' %s must be a triangular number m(m+1)/2, got %d"
                             % (self.name, shape_str(a), a[-1]))

    def out_shape(self, p, in_shapes):
        a = in_shapes[0]
        n = _trian_side(a[-1], p.offset) if a[-1] else 0
        return tuple(a[:-1]) + (n, n)

    def forward(self, p, env, inputs, aux):
        xp, v = env.xp, inputs[0]
        n = _trian_side(v.shape[-1], p.offset)
        rows, cols = _trian_index(xp, n, p.offset, p.lower)
        out = xp.zeros(v.shape[:-1] + (n, n), dtype=v.dtype)
        out[..., rows, cols] = v
        return [out]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, g = env.xp, out_grads[0]
        rows, cols = _trian_index(xp, g.shape[-1], p.offset, p.lower)
        return [g[..., rows, cols]]
