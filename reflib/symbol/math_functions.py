"""``mx.sym.maximum``, ``minimum``, ``hypot``, ``pow`` and ``power``: one function for
any mix of Symbols and numbers, as MXNet 1.9.1's front end has them.

Two Symbols get the same-shape operator (``_Maximum``: no broadcasting), a Symbol
and a number the scalar one (``_MaximumScalar``; for ``pow(2, x)``
``_RPowerScalar``), and two numbers a plain Python answer (``maximum(2, 3)`` is
3).  The operator is called by the name MXNet's front end uses, so the node is
named as there (``_maximum0``, ``_maximumscalar0``, ``_rpowerscalar0``).
"""

from numbers import Number

import numpy as np

from .symbol import Symbol, invoke

__all__ = ['maximum', 'minimum', 'hypot', 'pow', 'power']


def _dispatch(what, left, right, tensor_op, scalar_op, reversed_op, numbers):
    if isinstance(left, Symbol) and isinstance(right, Symbol):
        return invoke(tensor_op, left, right)
    if isinstance(left, Symbol) and isinstance(right, Number):
        return invoke(scalar_op, left, scalar=right)
    if isinstance(left, Number) and isinstance(right, Symbol):
        return invoke(reversed_op, right, scalar=left)
    if isinstance(left, Number) and isinstance(right, Number):
        return numbers(left, right)
    raise TypeError('%s: operands must be Symbols or numbers, got (%s, %s)'
                    % (what, type(left).__name__, type(right).__name__))


def maximum(left, right):
    """The elementwise larger of two Symbols, or of a Symbol and a number (no broadcasting)."""
    return _dispatch('maximum', left, right, '_Maximum', '_MaximumScalar', '_MaximumScalar',
                     lambda a, b: a if a > b else b)


def minimum(left, right):
    """The elementwise smaller of two Symbols, or of a Symbol and a number (no broadcasting)."""
    return _dispatch('minimum', left, right, '_Minimum', '_MinimumScalar', '_MinimumScalar',
                     lambda a, b: a if a < b else b)


def hypot(left, right):
    """sqrt(left**2 + right**2) elementwise (no broadcasting); numpy's hypot for two numbers."""
    return _dispatch('hypot', left, right, '_Hypot', '_HypotScalar', '_HypotScalar', np.hypot)


def pow(base, exp):   # noqa: A001  (MXNet's name)
    """base ** exp elementwise, either one a Symbol or a number (no broadcasting)."""
    return _dispatch('pow', base, exp, '_Power', '_PowerScalar', '_RPowerScalar', lambda a, b: a ** b)


def power(base, exp):
    """The same as :func:`pow`."""
    return pow(base, exp)
