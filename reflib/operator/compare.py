"""Comparisons and logic: ``==, !=, >, >=, <, <=``, and, or, xor, not.

Each binary one comes in MXNet's three forms: same-shape (``_equal``, behind
Symbol's ``a == b``), broadcasting (``broadcast_equal``, behind ``mx.nd.equal``)
and tensor-scalar (``_equal_scalar``, behind ``a == 2``).  MXNet has no
reversed scalar comparisons: Python turns ``2 < x`` into ``x > 2``, and
``mx.nd.lesser(2, x)`` calls ``_greater_scalar``.

As in MXNet the result is 1 or 0 in the inputs' dtype (not bool), NaN compares
unequal to everything and counts as true in the logical ones, and every
gradient is zero.
"""

from .registry import register
from .binary_math import (EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESSER, LESSER_EQUAL,
                          LOGICAL_AND, LOGICAL_OR, LOGICAL_XOR)
from .elemwise import MathBinary, MathScalar
from .broadcast import MathBroadcast
from .unary import UnaryMath


class _NoGradient:
    """Comparisons read nothing in backward: every gradient is zero, so, as in MXNet, no
    gradient passes them at all (the plan runs nothing behind them)."""
    blocks_gradient = True

    def backward_reads(self, p):
        return [], []


# (math, what it tests, same-shape name and its alias, broadcast name, scalar name and its alias)
_FAMILY = [
    (EQUAL, 'lhs == rhs', '_equal', '_Equal', 'broadcast_equal', '_equal_scalar', '_EqualScalar'),
    (NOT_EQUAL, 'lhs != rhs', '_not_equal', '_Not_Equal', 'broadcast_not_equal',
     '_not_equal_scalar', '_NotEqualScalar'),
    (GREATER, 'lhs > rhs', '_greater', '_Greater', 'broadcast_greater', '_greater_scalar', '_GreaterScalar'),
    (GREATER_EQUAL, 'lhs >= rhs', '_greater_equal', '_Greater_Equal', 'broadcast_greater_equal',
     '_greater_equal_scalar', '_GreaterEqualScalar'),
    (LESSER, 'lhs < rhs', '_lesser', '_Lesser', 'broadcast_lesser', '_lesser_scalar', '_LesserScalar'),
    (LESSER_EQUAL, 'lhs <= rhs', '_lesser_equal', '_Lesser_Equal', 'broadcast_lesser_equal',
     '_lesser_equal_scalar', '_LesserEqualScalar'),
    (LOGICAL_AND, 'lhs and rhs are both non-zero', '_logical_and', '_Logical_And', 'broadcast_logical_and',
     '_logical_and_scalar', '_LogicalAndScalar'),
    (LOGICAL_OR, 'lhs or rhs is non-zero', '_logical_or', '_Logical_Or', 'broadcast_logical_or',
     '_logical_or_scalar', '_LogicalOrScalar'),
    (LOGICAL_XOR, 'exactly one of lhs and rhs is non-zero', '_logical_xor', '_Logical_Xor',
     'broadcast_logical_xor', '_logical_xor_scalar', '_LogicalXorScalar'),
]


def _class_name(op_name):
    return ''.join(part.capitalize() for part in op_name.strip('_').split('_'))


def _doc(what, form):
    return '1 where %s, else 0, in the inputs\' dtype (%s); the gradient is zero.' % (what, form)


# Nine functions times three forms differ only in these names: made in a loop rather
# than written out 27 times.
for _fn, _what, _same, _same_alias, _bcast, _scalar, _scalar_alias in _FAMILY:
    register(type(_class_name(_same), (_NoGradient, MathBinary),
                  {'name': _same, 'aliases': (_same_alias,), 'fn': _fn, 'broadcast_form': _bcast,
                   '__doc__': _doc(_what, 'two inputs of one shape')}))
    register(type(_class_name(_bcast), (_NoGradient, MathBroadcast),
                  {'name': _bcast, 'fn': _fn, '__doc__': _doc(_what, 'inputs broadcast together')}))
    register(type(_class_name(_scalar), (_NoGradient, MathScalar),
                  {'name': _scalar, 'aliases': (_scalar_alias,), 'fn': _fn,
                   '__doc__': _doc(_what.replace('lhs', 'data').replace('rhs', 'scalar'),
                                   'scalar cast to the data\'s dtype first')}))
del _fn, _what, _same, _same_alias, _bcast, _scalar, _scalar_alias


@register
class LogicalNot(UnaryMath):
    """1 where the input is 0, else 0 (NaN counts as true, so gives 0); zero gradient."""
    name = 'logical_not'
    blocks_gradient = True

    def fn(self, xp, x):
        return (x == 0).astype(x.dtype)

    def backward_reads(self, p):
        return [], []

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(inputs[0])]
