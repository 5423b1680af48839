"""Trigonometric and hyperbolic functions and their inverses, and the angle
conversions ``degrees`` and ``radians`` (``tanh`` is in unary.py with the
other activations).

Each derivative is the textbook one, written as MXNet evaluates it: from the
input for most, from the output for ``tan`` (1 + tan(x)**2).  Outside the
domain (arcsin(2), arccosh(0.5)) the answer is NaN without a warning, and at a
domain's edge the gradient is inf (arcsin at 1), as in MXNet.
"""

import math

from .registry import register
from .common import rounded_once
from .unary import UnaryMath


@register
class Sin(UnaryMath):
    name = 'sin'

    def fn(self, xp, x):
        return rounded_once(xp, xp.sin, x)

    def deriv(self, xp, x, y):
        return xp.cos(x)


@register
class Cos(UnaryMath):
    name = 'cos'

    def fn(self, xp, x):
        return rounded_once(xp, xp.cos, x)

    def deriv(self, xp, x, y):
        return -xp.sin(x)


@register
class Tan(UnaryMath):
    name = 'tan'

    def fn(self, xp, x):
        return xp.tan(x)

    def deriv(self, xp, x, y):
        return 1 + y * y


@register
class Arcsin(UnaryMath):
    """Inverse sine on [-1, 1]; gradient 1 / sqrt(1 - x**2)."""
    name = 'arcsin'

    def fn(self, xp, x):
        return xp.arcsin(x)

    def deriv(self, xp, x, y):
        return 1 / xp.sqrt(1 - x * x)


@register
class Arccos(UnaryMath):
    """Inverse cosine on [-1, 1]; gradient -1 / sqrt(1 - x**2)."""
    name = 'arccos'

    def fn(self, xp, x):
        return xp.arccos(x)

    def deriv(self, xp, x, y):
        return -1 / xp.sqrt(1 - x * x)


@register
class Arctan(UnaryMath):
    """Inverse tangent; gradient 1 / (1 + x**2)."""
    name = 'arctan'

    def fn(self, xp, x):
        return xp.arctan(x)

    def deriv(self, xp, x, y):
        return 1 / (1 + x * x)


@register
class Sinh(UnaryMath):
    name = 'sinh'

    def fn(self, xp, x):
        return xp.sinh(x)

    def deriv(self, xp, x, y):
        return xp.cosh(x)


@register
class Cosh(UnaryMath):
    name = 'cosh'

    def fn(self, xp, x):
        return xp.cosh(x)

    def deriv(self, xp, x, y):
        return xp.sinh(x)


@register
class Arcsinh(UnaryMath):
    """Inverse hyperbolic sine; gradient 1 / sqrt(x**2 + 1)."""
    name = 'arcsinh'

    def fn(self, xp, x):
        return xp.arcsinh(x)

    def deriv(self, xp, x, y):
        return 1 / xp.sqrt(x * x + 1)


@register
class Arccosh(UnaryMath):
    """Inverse hyperbolic cosine on [1, inf); gradient 1 / sqrt(x**2 - 1).

    As in MXNet the gradient formula is applied wherever it gives a number, even
    below -1 where the function itself is NaN.
    """
    name = 'arccosh'

    def fn(self, xp, x):
        return xp.arccosh(x)

    def deriv(self, xp, x, y):
        return 1 / xp.sqrt(x * x - 1)


@register
class Arctanh(UnaryMath):
    """Inverse hyperbolic tangent on (-1, 1); gradient 1 / (1 - x**2)."""
    name = 'arctanh'

    def fn(self, xp, x):
        return xp.arctanh(x)

    def deriv(self, xp, x, y):
        return 1 / (1 - x * x)


def _factor(x, value):
    # float data stays in its dtype; integer data is scaled by the real factor and the result
    # truncated back (degrees of int32 5 is 286, as in MXNet, not 5 * 57)
    return x.dtype.type(value) if x.dtype.kind == 'f' else value


@register
class Degrees(UnaryMath):
    """Radians to degrees: x * 180/pi."""
    name = 'degrees'

    def fn(self, xp, x):
        return x * _factor(x, 180 / math.pi)

    def deriv(self, xp, x, y):
        return x.dtype.type(180 / math.pi)


@register
class Radians(UnaryMath):
    """Degrees to radians: x * pi/180."""
    name = 'radians'

    def fn(self, xp, x):
        return x * _factor(x, math.pi / 180)

    def deriv(self, xp, x, y):
        return x.dtype.type(math.pi / 180)
