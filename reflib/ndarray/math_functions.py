"""``mx.nd.maximum``, ``power``, ``modulo``, ``equal``, ``greater``, ``logical_and``, ...:
one function for any mix of NDArrays and numbers, as MXNet 1.9.1's front end has them.

Two NDArrays get the *broadcasting* operator (``broadcast_maximum``), an NDArray
and a number the scalar one (the number on the right: ``_maximum_scalar``; on the
left: the reversed or mirrored one, ``_rmod_scalar`` for ``modulo(7, x)``,
``_lesser_scalar`` for ``greater(2, x)``), and two numbers a plain Python answer
(``equal(2, 2)`` is the int 1, ``modulo(-7, 3)`` is 2).  The number reaches the
operator as a float, which the operator casts to the array's dtype (an int32
array compares with 2.7 as with 2).
"""

import operator

from ..base import numeric_types
from .op_functions import invoke
from .ndarray import NDArray

__all__ = ['add', 'subtract', 'multiply', 'divide', 'true_divide', 'maximum', 'minimum', 'power', 'modulo', 'equal', 'not_equal', 'greater', 'greater_equal',
           'lesser', 'lesser_equal', 'logical_and', 'logical_or', 'logical_xor']


def _dispatch(lhs, rhs, broadcast_op, numbers, scalar_op, reversed_op=None):
    """MXNet's rule for which operator a pair of operands gets (see the module doc);
    ``reversed_op`` None means the function is symmetric."""
    if isinstance(lhs, numeric_types):
        if isinstance(rhs, numeric_types):
            return numbers(lhs, rhs)
        return invoke(reversed_op or scalar_op, rhs, scalar=float(lhs))
    if isinstance(rhs, numeric_types):
        return invoke(scalar_op, lhs, scalar=float(rhs))
    if isinstance(rhs, NDArray):
        return invoke(broadcast_op, lhs, rhs)
    raise TypeError('type %s not supported' % type(rhs).__name__)


def add(lhs, rhs):
    """lhs + rhs elementwise, with broadcasting (numbers, NDArrays or one of each)."""
    return _dispatch(lhs, rhs, 'broadcast_add', operator.add, '_plus_scalar')


def subtract(lhs, rhs):
    """lhs - rhs elementwise, with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_sub', operator.sub, '_minus_scalar', '_rminus_scalar')


def multiply(lhs, rhs):
    """lhs * rhs elementwise, with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_mul', operator.mul, '_mul_scalar')


def divide(lhs, rhs):
    """lhs / rhs elementwise, with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_div', operator.truediv, '_div_scalar', '_rdiv_scalar')


true_divide = divide      # MXNet's second name for it


def maximum(lhs, rhs):
    """The elementwise larger, with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_maximum', lambda a, b: a if a > b else b, '_maximum_scalar')


def minimum(lhs, rhs):
    """The elementwise smaller, with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_minimum', lambda a, b: a if a < b else b, '_minimum_scalar')


def power(base, exp):
    """base ** exp elementwise, with broadcasting."""
    return _dispatch(base, exp, 'broadcast_power', operator.pow, '_power_scalar', '_rpower_scalar')


def modulo(lhs, rhs):
    """lhs mod rhs (the sign of rhs, as Python's %) elementwise, with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_mod', operator.mod, '_mod_scalar', '_rmod_scalar')


def equal(lhs, rhs):
    """1 where lhs == rhs, else 0 (in the array's dtype), with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_equal', lambda a, b: 1 if a == b else 0, '_equal_scalar')


def not_equal(lhs, rhs):
    """1 where lhs != rhs, else 0, with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_not_equal', lambda a, b: 1 if a != b else 0, '_not_equal_scalar')


def greater(lhs, rhs):
    """1 where lhs > rhs, else 0, with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_greater', lambda a, b: 1 if a > b else 0,
                     '_greater_scalar', '_lesser_scalar')


def greater_equal(lhs, rhs):
    """1 where lhs >= rhs, else 0, with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_greater_equal', lambda a, b: 1 if a >= b else 0,
                     '_greater_equal_scalar', '_lesser_equal_scalar')


def lesser(lhs, rhs):
    """1 where lhs < rhs, else 0, with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_lesser', lambda a, b: 1 if a < b else 0,
                     '_lesser_scalar', '_greater_scalar')


def lesser_equal(lhs, rhs):
    """1 where lhs <= rhs, else 0, with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_lesser_equal', lambda a, b: 1 if a <= b else 0,
                     '_lesser_equal_scalar', '_greater_equal_scalar')


def logical_and(lhs, rhs):
    """1 where both are non-zero, else 0, with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_logical_and', lambda a, b: 1 if a and b else 0, '_logical_and_scalar')


def logical_or(lhs, rhs):
    """1 where either is non-zero, else 0, with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_logical_or', lambda a, b: 1 if a or b else 0, '_logical_or_scalar')


def logical_xor(lhs, rhs):
    """1 where exactly one is non-zero, else 0, with broadcasting."""
    return _dispatch(lhs, rhs, 'broadcast_logical_xor', lambda a, b: 1 if bool(a) ^ bool(b) else 0,
                     '_logical_xor_scalar')
