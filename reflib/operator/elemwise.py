"""Elementwise arithmetic: tensor-tensor, tensor-scalar, broadcasting, and unary math.

These are the operators behind Symbol's ``+ - * / **`` overloads.  The node
names MXNet gives them come from the *hint* (``_plus0``, ``_mulscalar0``) while
the JSON records the canonical operator (``elemwise_add``, ``_mul_scalar``);
both are kept here.
"""

import numpy as np

from .registry import Operator, Param, register


# ------------------------------------------------------------ tensor (op) tensor
class _Binary(Operator):
    """Two inputs of one shape, one output of that shape."""
    hint = None

    def inputs(self, p):
        return ['lhs', 'rhs']


@register
class ElemwiseAdd(_Binary):
    name, aliases, hint = 'elemwise_add', ('_plus', '_Plus', '_add'), '_plus'

    def inplace(self, p):
        return [(0, 0), (1, 0)]

    def backward_reads(self, p):
        return [], []

    def forward(self, p, env, inputs, aux):
        # the planned array may be one summand's memory: a residual sum in place
        return [env.xp.add(inputs[0], inputs[1], out=env.target(0))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [out_grads[0], out_grads[0]]


@register
class ElemwiseSub(_Binary):
    name, aliases, hint = 'elemwise_sub', ('_minus', '_Minus', '_sub'), '_minus'

    def backward_reads(self, p):
        return [], []

    def forward(self, p, env, inputs, aux):
        return [env.xp.subtract(inputs[0], inputs[1], out=env.target(0))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [out_grads[0], env.xp.negative(out_grads[0], out=env.grad_target(1))]


@register
class ElemwiseMul(_Binary):
    name, aliases, hint = 'elemwise_mul', ('_mul', '_Mul'), '_mul'

    def backward_reads(self, p):
        return [0, 1], []

    def forward(self, p, env, inputs, aux):
        return [env.xp.multiply(inputs[0], inputs[1], out=env.target(0))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        g, xp = out_grads[0], env.xp
        return [xp.multiply(g, inputs[1], out=env.grad_target(0)),
                xp.multiply(g, inputs[0], out=env.grad_target(1))]


@register
class ElemwiseDiv(_Binary):
    name, aliases, hint = 'elemwise_div', ('_div', '_Div'), '_div'

    def backward_reads(self, p):
        return [0, 1], []

    def forward(self, p, env, inputs, aux):
        return [env.xp.divide(inputs[0], inputs[1], out=env.target(0))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        g, (a, b) = out_grads[0], inputs
        return [g / b, -g * a / (b * b)]


@register
class Power(_Binary):
    name, aliases, hint = '_power', ('_Power',), '_power'

    def forward(self, p, env, inputs, aux):
        return [inputs[0] ** inputs[1]]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        g, (a, b), out = out_grads[0], inputs, outputs[0]
        xp = env.xp
        safe_log = xp.log(xp.where(a > 0, a, 1))
        return [g * b * a ** (b - 1), g * out * safe_log]


# ------------------------------------------------------------ tensor (op) scalar
class _Scalar(Operator):
    """One input, a ``scalar`` parameter, output of the input's shape."""
    params = {'scalar': Param('float', 1.0, doc='the scalar operand'),
              'is_int': Param('bool', True, doc='accepted for JSON compatibility with MXNet 1.9; unused')}
    hint = None


def _scalar_op(name, hint, fwd, grad, aliases=()):
    """Register a scalar operator from its forward and its d(out)/d(in)."""
    cls = type(name, (_Scalar,), {
        'name': name, 'aliases': aliases, 'hint': hint,
        'forward': lambda self, p, env, inputs, aux: [fwd(inputs[0], p.scalar, env.xp)],
        'backward': lambda self, p, env, out_grads, inputs, outputs, aux:
            [out_grads[0] * grad(inputs[0], p.scalar, outputs[0], env.xp)],
    })
    register(cls)
    return cls


def _cast(x, like):
    """A Python scalar as a numpy scalar of ``like``'s dtype, so float32 stays float32.

    A numpy scalar (not a 0-d numpy array) because cupy accepts those as operands.
    """
    return like.dtype.type(x)


_scalar_op('_plus_scalar', '_plusscalar', lambda x, s, xp: x + _cast(s, x),
           lambda x, s, y, xp: 1, aliases=('_PlusScalar',))
_scalar_op('_minus_scalar', '_minusscalar', lambda x, s, xp: x - _cast(s, x),
           lambda x, s, y, xp: 1, aliases=('_MinusScalar',))
_scalar_op('_rminus_scalar', '_rminusscalar', lambda x, s, xp: _cast(s, x) - x,
           lambda x, s, y, xp: -1, aliases=('_RMinusScalar',))
_scalar_op('_mul_scalar', '_mulscalar', lambda x, s, xp: x * _cast(s, x),
           lambda x, s, y, xp: _cast(s, x), aliases=('_MulScalar',))
_scalar_op('_div_scalar', '_divscalar', lambda x, s, xp: x / _cast(s, x),
           lambda x, s, y, xp: 1 / _cast(s, x), aliases=('_DivScalar',))
_scalar_op('_rdiv_scalar', '_rdivscalar', lambda x, s, xp: _cast(s, x) / x,
           lambda x, s, y, xp: -y / x, aliases=('_RDivScalar',))
_scalar_op('_power_scalar', '_powerscalar', lambda x, s, xp: x ** _cast(s, x),
           lambda x, s, y, xp: _cast(s, x) * x ** _cast(s - 1, x), aliases=('_PowerScalar',))
_scalar_op('_rpower_scalar', '_rpowerscalar', lambda x, s, xp: _cast(s, x) ** x,
           lambda x, s, y, xp: y * _cast(np.log(s), x), aliases=('_RPowerScalar',))


@register
class Where(Operator):
    """``x`` where ``condition`` is non-zero, ``y`` elsewhere (all three of one shape).  The
    gradient goes to ``x`` or ``y`` by the same choice; ``condition`` gets none."""
    name = 'where'

    def inputs(self, p):
        return ['condition', 'x', 'y']

    def infer_type(self, p, in_types, out_types, aux_types):
        data = in_types[1] if in_types[1] is not None else (in_types[2] if in_types[2] is not None else out_types[0])
        return [in_types[0] if in_types[0] is not None else data, data, data], [data], aux_types

    def forward(self, p, env, inputs, aux):
        condition, x, y = inputs
        return [env.xp.where(condition != 0, x, y)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, g = env.xp, out_grads[0]
        chosen = inputs[0] != 0
        zero = xp.zeros_like(g)
        return [xp.zeros_like(inputs[0]), xp.where(chosen, g, zero), xp.where(chosen, zero, g)]

    def backward_reads(self, p):
        return [0], []
