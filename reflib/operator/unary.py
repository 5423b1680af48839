"""Unary math: ``exp``, ``log``, ``sqrt``, ``square``, ``abs``, ``negative``,
``reciprocal``, ``sign``, ``relu``, ``sigmoid``, ``tanh`` and ``clip``.

Each is one class with its forward ``fn`` and its derivative ``deriv`` side by
side; the backward is ``out_grad * deriv(x, y)``.  Python scalars meet arrays
only as ``x.dtype.type(value)``, so float32 data stays float32.
"""

from .registry import Operator, Param, register
from .common import sign_of


# ================================================================ unary math
class _Unary(Operator):
    """One input, same-shape output; ``backward = out_grad * deriv(x, y)``."""

    def fn(self, xp, x):
        raise NotImplementedError

    def deriv(self, xp, x, y):
        """d(out)/d(in) at input ``x`` with output ``y``."""
        raise NotImplementedError

    def forward(self, p, env, inputs, aux):
        return [self.fn(env.xp, inputs[0])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [out_grads[0] * self.deriv(env.xp, inputs[0], outputs[0])]


@register
class Exp(_Unary):
    name = 'exp'

    def fn(self, xp, x):
        return xp.exp(x)

    def deriv(self, xp, x, y):
        return y


@register
class Log(_Unary):
    """Natural log; the gradient is 1/x (so -inf/nan inputs follow IEEE rules, as in MXNet)."""
    name = 'log'

    def fn(self, xp, x):
        return xp.log(x)

    def deriv(self, xp, x, y):
        return 1 / x


@register
class Sqrt(_Unary):
    """Square root; gradient 0.5/sqrt(x) (inf at 0, as in MXNet)."""
    name = 'sqrt'

    def fn(self, xp, x):
        return xp.sqrt(x)

    def deriv(self, xp, x, y):
        return 0.5 / y


@register
class Square(_Unary):
    name = 'square'

    def fn(self, xp, x):
        return x * x

    def deriv(self, xp, x, y):
        return 2 * x


@register
class Abs(_Unary):
    """|x|; gradient sign(x), which is 0 at 0 (and at NaN)."""
    name = 'abs'

    def fn(self, xp, x):
        return xp.abs(x)

    def deriv(self, xp, x, y):
        return sign_of(x)


@register
class Negative(_Unary):
    name = 'negative'

    def fn(self, xp, x):
        return -x

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [-out_grads[0]]


@register
class Reciprocal(_Unary):
    """1/x; gradient -1/x**2."""
    name = 'reciprocal'

    def fn(self, xp, x):
        return 1 / x

    def deriv(self, xp, x, y):
        return -1 / (x * x)


@register
class Sign(_Unary):
    """-1, 0 or 1 (0 for NaN, as in MXNet); the gradient is zero everywhere."""
    name = 'sign'

    def fn(self, xp, x):
        return sign_of(x)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(inputs[0])]


@register
class Relu(_Unary):
    """max(x, 0); gradient 1 where x > 0, else 0 (0 at x == 0)."""
    name = 'relu'

    def fn(self, xp, x):
        return xp.maximum(x, 0)

    def deriv(self, xp, x, y):
        return x > 0


@register
class Sigmoid(_Unary):
    """1 / (1 + exp(-x)); gradient y * (1 - y)."""
    name = 'sigmoid'

    def fn(self, xp, x):
        return 1 / (1 + xp.exp(-x))

    def deriv(self, xp, x, y):
        return y * (1 - y)


@register
class Tanh(_Unary):
    """tanh(x); gradient 1 - y**2."""
    name = 'tanh'

    def fn(self, xp, x):
        return xp.tanh(x)

    def deriv(self, xp, x, y):
        return 1 - y * y


@register
class Clip(_Unary):
    """Limit values to [a_min, a_max].

    As in MXNet: values above a_max become a_max, then values below a_min
    become a_min (so with a_min > a_max everything ends up at one bound), NaN
    stays NaN, and the gradient passes wherever x is not outside the bounds
    (bounds included, NaN included).
    """
    name = 'clip'
    params = {'a_min': Param('float', doc='lower bound'),
              'a_max': Param('float', doc='upper bound')}

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        lo, hi = x.dtype.type(p.a_min), x.dtype.type(p.a_max)
        return [xp.where(x > hi, hi, xp.where(x < lo, lo, x))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x = inputs[0]
        lo, hi = x.dtype.type(p.a_min), x.dtype.type(p.a_max)
        return [out_grads[0] * ~((x < lo) | (x > hi))]
