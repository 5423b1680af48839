"""The math of two-operand functions, written once for their three operator forms.

MXNet offers maximum, minimum, power, hypot and mod (and the comparisons) as a
same-shape operator (``_maximum``), a broadcasting one (``broadcast_maximum``)
and a tensor-scalar one (``_maximum_scalar``, and ``_rmod_scalar`` with the
scalar on the left).  All of them compute the same value and the same partial
derivatives; only the shapes around them differ.  A :class:`BinaryFn` holds
that math; elemwise.py, broadcast.py and compare.py wrap it in the three forms.

Every function takes ``(xp, a, b)`` where either operand may be a numpy scalar
of the other's dtype (the scalar forms: ``x.dtype.type(scalar)``, so float32 stays
float32 and an integer array sees the scalar truncated, as in MXNet), and derivatives also get the output
``y``.  IEEE rules apply without warnings, as in MXNet: 0/0 is NaN, log(0) is
-inf.
"""

import numpy as np


class BinaryFn:
    """A two-operand function: ``value(xp, a, b)`` and its partial derivatives.

    ``d_lhs(xp, a, b, y)`` and ``d_rhs(xp, a, b, y)`` are d(y)/d(a) and d(y)/d(b);
    None means the function has a zero gradient (comparisons).
    """

    def __init__(self, value, d_lhs=None, d_rhs=None):
        self._value, self._d_lhs, self._d_rhs = value, d_lhs, d_rhs

    @property
    def differentiable(self):
        return self._d_lhs is not None

    def value(self, xp, a, b):
        with np.errstate(all='ignore'):
            return self._value(xp, a, b)

    def d_lhs(self, xp, a, b, y):
        with np.errstate(all='ignore'):
            return self._d_lhs(xp, a, b, y)

    def d_rhs(self, xp, a, b, y):
        with np.errstate(all='ignore'):
            return self._d_rhs(xp, a, b, y)


def _power(xp, a, b):
    if np.issubdtype(a.dtype, np.integer):
        # numpy refuses an integer to a negative integer power; MXNet computes it in
        # floating point and casts back (2 ** -1 is 0)
        return xp.power(xp.asarray(a, dtype=np.float64), xp.asarray(b, dtype=np.float64)).astype(a.dtype)
    return xp.power(a, b)


def _mod(xp, a, b):
    """Floor modulo (the result takes the divisor's sign, as Python's %); 0 where b is 0.

    MXNet gives 0 for a zero divisor, where numpy gives NaN for floats.
    """
    out = xp.mod(a, b)
    zero = b == 0
    if getattr(zero, 'ndim', 0) == 0:            # a scalar divisor
        return xp.zeros_like(out) if zero else out
    return xp.where(zero, xp.zeros_like(out), out)


def _mod_d_rhs(xp, a, b, y):
    # d(a mod b)/db = -floor(a / b): a zero divisor gives -inf, +inf or NaN, as in MXNet.
    # Integers have no gradient: MXNet gives 0 for both operands
    if not _is_float(a):
        return 0
    return -xp.floor(a / b)


def _mod_d_lhs(xp, a, b, y):
    return 1 if _is_float(a) else 0


def _is_float(x):
    return getattr(x, 'dtype', None) is None or x.dtype.kind == 'f'


MAXIMUM = BinaryFn(
    lambda xp, a, b: xp.maximum(a, b),     # NaN on either side gives NaN, as in MXNet
    # a tie sends the gradient to the left operand; a NaN sends it nowhere
    lambda xp, a, b, y: a >= b,
    lambda xp, a, b, y: a < b)

MINIMUM = BinaryFn(
    lambda xp, a, b: xp.minimum(a, b),
    lambda xp, a, b, y: a <= b,
    lambda xp, a, b, y: a > b)

POWER = BinaryFn(
    _power,
    # the plain formulas, NaN and inf included: a negative base has a NaN exponent
    # gradient (MXNet does not guard the log)
    lambda xp, a, b, y: b * a ** (b - 1),
    lambda xp, a, b, y: y * xp.log(a))

HYPOT = BinaryFn(
    lambda xp, a, b: xp.hypot(a, b),
    lambda xp, a, b, y: a / y,              # NaN at (0, 0), as in MXNet
    lambda xp, a, b, y: b / y)

MOD = BinaryFn(
    _mod,
    _mod_d_lhs,
    _mod_d_rhs)


def _as_dtype_of(result, a, b):
    """A 0/1 comparison result in the operands' dtype (MXNet's comparisons are not bool).

    Both operands have one dtype: the scalar forms make the scalar a numpy scalar of it.
    """
    return result.astype(a.dtype)


def _truth(x):
    return x != 0           # NaN counts as true, as in C


EQUAL = BinaryFn(lambda xp, a, b: _as_dtype_of(a == b, a, b))
NOT_EQUAL = BinaryFn(lambda xp, a, b: _as_dtype_of(a != b, a, b))
GREATER = BinaryFn(lambda xp, a, b: _as_dtype_of(a > b, a, b))
GREATER_EQUAL = BinaryFn(lambda xp, a, b: _as_dtype_of(a >= b, a, b))
LESSER = BinaryFn(lambda xp, a, b: _as_dtype_of(a < b, a, b))
LESSER_EQUAL = BinaryFn(lambda xp, a, b: _as_dtype_of(a <= b, a, b))
LOGICAL_AND = BinaryFn(lambda xp, a, b: _as_dtype_of(_truth(a) & _truth(b), a, b))
LOGICAL_OR = BinaryFn(lambda xp, a, b: _as_dtype_of(_truth(a) | _truth(b), a, b))
LOGICAL_XOR = BinaryFn(lambda xp, a, b: _as_dtype_of(_truth(a) ^ _truth(b), a, b))
