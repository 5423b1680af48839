"""Rounding to whole numbers: ``round``, ``rint``, ``fix``, ``trunc``, ``floor``, ``ceil``.

All have a zero gradient, as in MXNet.  Two of them are not numpy's:

* ``round`` sends halves away from zero (2.5 -> 3, -2.5 -> -3), like C's ``round``;
* ``rint`` sends halves *down*, toward -inf (2.5 -> 2, -2.5 -> -3, 1.5 -> 1): MXNet
  1.9.1 takes the floor whenever x is no farther from it than from the ceiling.  numpy's
  ``rint`` sends halves to the even neighbour instead (1.5 -> 2, -2.5 -> -2).

``fix`` and ``trunc`` both round toward zero.
"""

from .registry import register
from .unary import ZeroGradient


@register
class Round(ZeroGradient):
    """To the nearest whole number, halves away from zero."""
    name = 'round'

    def fn(self, xp, x):
        if x.dtype.kind != 'f':
            return x.copy()             # already whole (through a float, large int32s would move)
        whole = xp.trunc(x)
        # x - trunc(x) is exact, so a half is seen as one (x + 0.5 would round first)
        away = xp.abs(x - whole) >= x.dtype.type(0.5)
        return xp.where(away, whole + xp.sign(x), whole)


@register
class Rint(ZeroGradient):
    """To the nearest whole number, halves toward -inf (MXNet's rule, see the module doc)."""
    name = 'rint'

    def fn(self, xp, x):
        below, above = xp.floor(x), xp.ceil(x)
        return xp.where(x - below <= above - x, below, above)


@register
class Fix(ZeroGradient):
    """Toward zero: floor for positive x, ceil otherwise."""
    name = 'fix'

    def fn(self, xp, x):
        return xp.where(x > 0, xp.floor(x), xp.ceil(x))


@register
class Trunc(ZeroGradient):
    """Toward zero (drop the fractional part)."""
    name = 'trunc'

    def fn(self, xp, x):
        return xp.trunc(x)


@register
class Floor(ZeroGradient):
    name = 'floor'

    def fn(self, xp, x):
        return xp.floor(x)


@register
class Ceil(ZeroGradient):
    name = 'ceil'

    def fn(self, xp, x):
        return xp.ceil(x)
