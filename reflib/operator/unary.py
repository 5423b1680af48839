"""Unary math: ``exp``, ``log``, ``log2``, ``log10``, ``log1p``, ``expm1``, ``sqrt``,
``rsqrt``, ``cbrt``, ``rcbrt``, ``square``, ``abs``, ``negative``, ``reciprocal``,
``sign``, ``relu``, ``sigmoid``, ``hard_sigmoid``, ``softsign``, ``tanh``, ``clip``,
``smooth_l1``, ``Cast`` (a change of dtype), and contrib's ``quadratic`` and
``div_sqrt_dim`` (attention's scaling by the square root of the last axis).

Each is one class with its forward ``fn`` and its derivative ``deriv`` side by
side; the backward is ``out_grad * deriv(x, y)``.  float32 ``exp`` and the logarithms
(and trig.py's ``sin`` and ``cos``) are computed in float64 and rounded once on the host,
as the C library's functions that MXNet calls round them (common.rounded_once).  Python scalars meet arrays
only as ``x.dtype.type(value)``, so float32 data stays float32.  Outside an
operator's domain the IEEE answer comes back without a warning, as in MXNet
(log of a negative number is NaN, of 0 is -inf).  The trigonometric family is
in trig.py, gamma and erf in special.py, rounding in rounding.py.
"""

import math

import numpy as np

from .registry import Operator, Param, register
from .common import sign_of, rounded_once
from ..base import TypeInferError


# ================================================================ unary math
class UnaryMath(Operator):
    """One input, same-shape output; ``backward = out_grad * deriv(x, y)``."""

    def fn(self, xp, x):
        raise NotImplementedError

    def deriv(self, xp, x, y):
        """d(out)/d(in) at input ``x`` with output ``y``."""
        raise NotImplementedError

    def forward(self, p, env, inputs, aux):
        with np.errstate(all='ignore'):
            return [self.fn(env.xp, inputs[0])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        with np.errstate(all='ignore'):
            return [out_grads[0] * self.deriv(env.xp, inputs[0], outputs[0])]


class ZeroGradient(UnaryMath):
    """A piecewise-constant function (rounding, sign): its gradient is zero everywhere, so
    the plan runs nothing behind it (MXNet's zero propagation; sign is the exception)."""
    blocks_gradient = True

    def backward_reads(self, p):
        return [], []

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(inputs[0])]


@register
class Exp(UnaryMath):
    name = 'exp'

    def fn(self, xp, x):
        return rounded_once(xp, xp.exp, x)

    def deriv(self, xp, x, y):
        return y


@register
class Log(UnaryMath):
    """Natural log; the gradient is 1/x (so -inf/nan inputs follow IEEE rules, as in MXNet)."""
    name = 'log'

    def fn(self, xp, x):
        return rounded_once(xp, xp.log, x)

    def deriv(self, xp, x, y):
        return 1 / x


@register
class Sqrt(UnaryMath):
    """Square root; gradient 0.5/sqrt(x) (inf at 0, as in MXNet)."""
    name = 'sqrt'

    def fn(self, xp, x):
        return xp.sqrt(x)

    def deriv(self, xp, x, y):
        return 0.5 / y


@register
class Rsqrt(UnaryMath):
    """1/sqrt(x); gradient -0.5 * out**3 (-inf at 0)."""
    name = 'rsqrt'

    def fn(self, xp, x):
        return 1 / xp.sqrt(x)

    def deriv(self, xp, x, y):
        return -0.5 * y * y * y


@register
class Cbrt(UnaryMath):
    """Cube root (real, so negative inputs have one); gradient 1 / (3 * out**2)."""
    name = 'cbrt'

    def fn(self, xp, x):
        return xp.cbrt(x)

    def deriv(self, xp, x, y):
        return 1 / (3 * y * y)


@register
class Rcbrt(UnaryMath):
    """1 / cbrt(x); gradient -1 / (3 * x * cbrt(x))."""
    name = 'rcbrt'

    def fn(self, xp, x):
        return 1 / xp.cbrt(x)

    def deriv(self, xp, x, y):
        return -1 / (3 * x * xp.cbrt(x))


@register
class Log2(UnaryMath):
    name = 'log2'

    def fn(self, xp, x):
        return rounded_once(xp, xp.log2, x)

    def deriv(self, xp, x, y):
        return 1 / (x * x.dtype.type(math.log(2)))


@register
class Log10(UnaryMath):
    name = 'log10'

    def fn(self, xp, x):
        return rounded_once(xp, xp.log10, x)

    def deriv(self, xp, x, y):
        return 1 / (x * x.dtype.type(math.log(10)))


@register
class Log1p(UnaryMath):
    """log(1 + x), accurate for small x; gradient 1 / (1 + x)."""
    name = 'log1p'

    def fn(self, xp, x):
        return xp.log1p(x)

    def deriv(self, xp, x, y):
        return 1 / (1 + x)


@register
class Expm1(UnaryMath):
    """exp(x) - 1, accurate for small x; gradient exp(x)."""
    name = 'expm1'

    def fn(self, xp, x):
        return xp.expm1(x)

    def deriv(self, xp, x, y):
        return xp.exp(x)


@register
class Square(UnaryMath):
    name = 'square'

    def fn(self, xp, x):
        return x * x

    def deriv(self, xp, x, y):
        return 2 * x


@register
class Abs(UnaryMath):
    """``|x|``; gradient ``sign(x)``, which is 0 at 0 (and at NaN)."""
    name = 'abs'

    def fn(self, xp, x):
        return xp.abs(x)

    def deriv(self, xp, x, y):
        return sign_of(x)


@register
class Negative(UnaryMath):
    name = 'negative'

    def fn(self, xp, x):
        return -x

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [-out_grads[0]]


@register
class Reciprocal(UnaryMath):
    """1/x; gradient -1/x**2."""
    name = 'reciprocal'

    def fn(self, xp, x):
        return 1 / x

    def deriv(self, xp, x, y):
        return -1 / (x * x)


@register
class Sign(ZeroGradient):
    """-1, 0 or 1 (0 for NaN, as in MXNet); the gradient is zero everywhere."""
    name = 'sign'
    blocks_gradient = False    # MXNet runs a backward for sign (it reads the head gradient)

    def fn(self, xp, x):
        return sign_of(x)


@register
class Relu(UnaryMath):
    """max(x, 0); gradient 1 where x > 0, else 0 (0 at x == 0)."""
    name = 'relu'

    def fn(self, xp, x):
        return xp.maximum(x, 0)

    def deriv(self, xp, x, y):
        return x > 0


@register
class Sigmoid(UnaryMath):
    """1 / (1 + exp(-x)); gradient y * (1 - y)."""
    name = 'sigmoid'

    def fn(self, xp, x):
        return 1 / (1 + rounded_once(xp, xp.exp, -x))

    def deriv(self, xp, x, y):
        return y * (1 - y)


@register
class HardSigmoid(UnaryMath):
    """alpha * x + beta limited to [0, 1]; the gradient is alpha strictly inside, 0 at and
    beyond the ends (and at NaN).  MXNet puts no bounds on alpha and beta."""
    name = 'hard_sigmoid'
    params = {'alpha': Param('float', 0.2, doc='slope'),
              'beta': Param('float', 0.5, doc='offset')}

    def _line(self, p, x):
        return x.dtype.type(p.alpha) * x + x.dtype.type(p.beta)

    def forward(self, p, env, inputs, aux):
        line = self._line(p, inputs[0])
        one = line.dtype.type(1)
        return [env.xp.where(line > one, one, env.xp.where(line < 0, line.dtype.type(0), line))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        line = self._line(p, inputs[0])
        return [out_grads[0] * ((line > 0) & (line < 1)) * line.dtype.type(p.alpha)]


@register
class Quadratic(UnaryMath):
    """a * x**2 + b * x + c, gradient 2 * a * x + b: the example operator of MXNet's guide to
    writing one (``mx.nd.contrib.quadratic``)."""
    name = '_contrib_quadratic'
    params = {'a': Param('float', 0.0, doc='the coefficient of x**2'),
              'b': Param('float', 0.0, doc='the coefficient of x'),
              'c': Param('float', 0.0, doc='the constant')}

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        a, b, c = (x.dtype.type(v) for v in (p.a, p.b, p.c))
        return [x * (a * x + b) + c]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x = inputs[0]
        return [out_grads[0] * (x.dtype.type(2 * p.a) * x + x.dtype.type(p.b))]


@register
class DivSqrtDim(UnaryMath):
    """x / sqrt(d), d the length of the last axis: the scaling of dot-product attention's
    scores (``mx.nd.contrib.div_sqrt_dim``)."""
    name = '_contrib_div_sqrt_dim'

    def _root(self, x):
        return x.dtype.type(math.sqrt(x.shape[-1])) if x.ndim else x.dtype.type(1)

    def forward(self, p, env, inputs, aux):
        return [inputs[0] / self._root(inputs[0])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [out_grads[0] / self._root(inputs[0])]


@register
class Softsign(UnaryMath):
    """x / (1 + |x|); gradient 1 / (1 + |x|)**2."""
    name = 'softsign'

    def fn(self, xp, x):
        return x / (1 + xp.abs(x))

    def deriv(self, xp, x, y):
        d = 1 + xp.abs(x)
        return 1 / (d * d)


@register
class Tanh(UnaryMath):
    """tanh(x); gradient 1 - y**2."""
    name = 'tanh'

    def fn(self, xp, x):
        return xp.tanh(x)

    def deriv(self, xp, x, y):
        return 1 - y * y


@register
class Clip(UnaryMath):
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


@register
class SmoothL1(UnaryMath):
    """The smooth L1 loss of ``data``, elementwise, with s = ``scalar``:
    0.5 * (s*x)**2 where |x| < 1/s**2, |x| - 0.5/s**2 elsewhere.

    The gradient is s**2 * x inside and sign(x) outside.  MXNet accepts any scalar.
    """
    name = 'smooth_l1'
    params = {'scalar': Param('float', 1.0, doc='s: the quadratic part spans |x| < 1/s**2')}

    def forward(self, p, env, inputs, aux):
        x, xp = inputs[0], env.xp
        s2 = x.dtype.type(p.scalar) * x.dtype.type(p.scalar)
        with np.errstate(all='ignore'):
            edge = 1 / s2
            half = x.dtype.type(0.5) / s2
            inside = x.dtype.type(0.5) * x * x * s2
            return [xp.where(x > edge, x - half, xp.where(x < -edge, -x - half, inside))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x, xp = inputs[0], env.xp
        s2 = x.dtype.type(p.scalar) * x.dtype.type(p.scalar)
        with np.errstate(all='ignore'):
            edge = 1 / s2
            one = x.dtype.type(1)
            slope = xp.where(x > edge, one, xp.where(x < -edge, -one, s2 * x))
        return [out_grads[0] * slope]


# ================================================================ dtype
# MXNet's Cast choices; reflib (numpy) has no bfloat16, so that one is refused when used
CAST_DTYPES = ('bfloat16', 'bool', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8')


@register
class Cast(Operator):
    """The input converted to ``dtype`` (float to int truncates toward zero; out-of-range
    values wrap as C conversions do on x86); the gradient is converted back to the
    input's dtype."""
    name = 'Cast'
    aliases = ('cast',)
    params = {'dtype': Param('enum', choices=CAST_DTYPES, doc='the output dtype')}

    def _dtype(self, p):
        if p.dtype == 'bfloat16':
            raise TypeInferError('Cast: dtype bfloat16 is not supported by reflib (numpy has no bfloat16)')
        return np.dtype(p.dtype)

    def infer_type(self, p, in_types, out_types, aux_types):
        # the output's dtype says nothing about the input's
        return list(in_types), [self._dtype(p)], aux_types

    def backward_reads(self, p):
        return [], []

    def forward(self, p, env, inputs, aux):
        with np.errstate(all='ignore'):
            return [inputs[0].astype(self._dtype(p))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        with np.errstate(all='ignore'):
            return [out_grads[0].astype(inputs[0].dtype)]
