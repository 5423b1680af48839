"""Elementwise arithmetic between two tensors of one shape, or a tensor and a scalar.

These are the operators behind Symbol's ``+ - * / ** %`` overloads and
``mx.sym.maximum/minimum/hypot/pow``: ``elemwise_add`` ... ``_power``,
``_maximum``, ``_minimum``, ``_hypot``, ``_mod`` and their scalar forms
(``_plus_scalar``, ``_rpower_scalar``, ``_maximum_scalar``, ``_rmod_scalar``, ...),
plus ``add_n`` (any number of summands) and ``where``.  The node names MXNet
gives them come from the *hint* (``_plus0``, ``_mulscalar0``) while the JSON
records the canonical operator (``elemwise_add``, ``_mul_scalar``); both are
kept here.  The math of maximum, power, mod, ... lives in binary_math.py, shared
with their broadcast forms.
"""

from .registry import Operator, Param, register
from ..shapes import merge_shape, shape_is_known
from .common import shape_str
from .binary_math import MAXIMUM, MINIMUM, POWER, HYPOT, MOD
from ..base import ShapeError


def one_shape(op, names, in_shapes, out_shapes, broadcast_form=None):
    """Shape inference of an elementwise operator: every input and output has one shape.

    Each known shape fills in the unknown ones (in both directions, as MXNet); two
    that disagree raise a ShapeError naming both inputs.
    """
    known, source = None, None
    for name, shape in list(zip(names, in_shapes)) + [('output', s) for s in out_shapes]:
        if shape is None:
            continue
        try:
            known = merge_shape(known, shape, op)
        except ShapeError:
            hint = ' (%s broadcasts)' % broadcast_form if broadcast_form else ''
            raise ShapeError("%s: %s has shape %s but %s has shape %s; the inputs must have one shape%s"
                             % (op, _what(name), shape_str(shape), _what(source[0]), shape_str(source[1]), hint)
                             ) from None
        source = source or (name, shape)
    return [known] * len(in_shapes), [known] * len(out_shapes)


def _what(name):
    return 'the output' if name == 'output' else 'input %r' % name


# ------------------------------------------------------------ tensor (op) tensor
class _Binary(Operator):
    """Two inputs of one shape, one output of that shape."""
    hint = None
    broadcast_form = None       # the broadcasting twin, named in shape errors

    def inputs(self, p):
        return ['lhs', 'rhs']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        ins, outs = one_shape(self.name, self.inputs(p), in_shapes, out_shapes, self.broadcast_form)
        return ins, outs, aux_shapes


@register
class ElemwiseAdd(_Binary):
    name, aliases, hint = 'elemwise_add', ('_plus', '_Plus', '_add'), '_plus'
    broadcast_form = 'broadcast_add'

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
    broadcast_form = 'broadcast_sub'

    def backward_reads(self, p):
        return [], []

    def forward(self, p, env, inputs, aux):
        return [env.xp.subtract(inputs[0], inputs[1], out=env.target(0))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [out_grads[0], env.xp.negative(out_grads[0], out=env.grad_target(1))]


@register
class ElemwiseMul(_Binary):
    name, aliases, hint = 'elemwise_mul', ('_mul', '_Mul'), '_mul'
    broadcast_form = 'broadcast_mul'

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
    broadcast_form = 'broadcast_div'

    def backward_reads(self, p):
        return [0, 1], []

    def forward(self, p, env, inputs, aux):
        return [env.xp.divide(inputs[0], inputs[1], out=env.target(0))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        g, (a, b) = out_grads[0], inputs
        return [g / b, -g * a / (b * b)]


class MathBinary(_Binary):
    """``fn`` (a binary_math.BinaryFn) on two inputs of one shape."""
    fn = None

    def forward(self, p, env, inputs, aux):
        return [self.fn.value(env.xp, inputs[0], inputs[1])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        (a, b), g, xp = inputs, out_grads[0], env.xp
        if not self.fn.differentiable:
            return [xp.zeros_like(a), xp.zeros_like(b)]
        return [g * self.fn.d_lhs(xp, a, b, outputs[0]), g * self.fn.d_rhs(xp, a, b, outputs[0])]


@register
class Power(MathBinary):
    """lhs ** rhs; gradients rhs * lhs ** (rhs - 1) and out * log(lhs) (NaN for a negative
    base, as in MXNet)."""
    name, aliases, hint, fn, broadcast_form = '_power', ('_Power',), '_power', POWER, 'broadcast_power'


@register
class Maximum(MathBinary):
    """The larger of lhs and rhs (NaN if either is); a tie gives lhs the gradient."""
    name, aliases, fn, broadcast_form = '_maximum', ('_Maximum',), MAXIMUM, 'broadcast_maximum'

    def backward_reads(self, p):
        return [0, 1], []


@register
class Minimum(MathBinary):
    """The smaller of lhs and rhs (NaN if either is); a tie gives lhs the gradient."""
    name, aliases, fn, broadcast_form = '_minimum', ('_Minimum',), MINIMUM, 'broadcast_minimum'

    def backward_reads(self, p):
        return [0, 1], []


@register
class Hypot(MathBinary):
    """sqrt(lhs**2 + rhs**2); gradients lhs/out and rhs/out (NaN at (0, 0), as in MXNet)."""
    name, aliases, fn, broadcast_form = '_hypot', ('_Hypot',), HYPOT, 'broadcast_hypot'


@register
class Mod(MathBinary):
    """lhs mod rhs with the sign of rhs (Python's %), 0 where rhs is 0; gradients 1 and
    -floor(lhs / rhs)."""
    name, aliases, fn, broadcast_form = '_mod', ('_Mod',), MOD, 'broadcast_mod'

    def backward_reads(self, p):
        return [0, 1], []


@register
class AddN(Operator):
    """The sum of ``num_args`` inputs of one shape, added left to right (MXNet's order)."""
    name = 'add_n'
    aliases = ('ElementWiseSum',)
    key_var_num_args = 'num_args'
    params = {'num_args': Param('int', doc='number of inputs (set from the number of arguments)', low=1)}

    def inputs(self, p):
        return ['arg%d' % i for i in range(p.num_args)]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        ins, outs = one_shape(self.name, self.inputs(p), in_shapes, out_shapes)
        return ins, outs, aux_shapes

    def backward_reads(self, p):
        return [], []

    def forward(self, p, env, inputs, aux):
        total = env.xp.array(inputs[0], copy=True)
        for x in inputs[1:]:
            total += x
        return [total]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [out_grads[0]] * len(inputs)


@register
class GradAdd(ElemwiseAdd):
    """``elemwise_add`` under the name MXNet's gradient aggregation gives it."""
    name, aliases, hint = '_grad_add', (), '_grad_add'


# ------------------------------------------------------------ tensor (op) scalar
class _Scalar(Operator):
    """One input, a ``scalar`` parameter, output of the input's shape."""
    params = {'scalar': Param('float', 1.0, doc='the scalar operand'),
              'is_int': Param('bool', True, doc='accepted for JSON compatibility with MXNet 1.9; unused')}
    hint = None


def _scalar_op(name, hint, fwd, grad, aliases=(), ufunc=None):
    """Register a scalar operator from its forward and its d(out)/d(in).  ``ufunc`` (the
    name of the ``xp`` ufunc that ``fwd`` is, for an operator whose result keeps the input's
    dtype) lets forward and backward compute straight into the executor's planned arrays."""
    def forward(self, p, env, inputs, aux):
        x, target = inputs[0], env.target(0) if ufunc else None
        if target is None:
            return [fwd(x, p.scalar, env.xp)]
        return [getattr(env.xp, ufunc)(x, _cast(p.scalar, x), out=target)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        d = grad(inputs[0], p.scalar, outputs[0], env.xp)
        target = env.grad_target(0) if ufunc else None
        if target is None:
            return [out_grads[0] * d]
        return [env.xp.multiply(out_grads[0], d, out=target)]

    cls = type(name, (_Scalar,), {'name': name, 'aliases': aliases, 'hint': hint,
                                  'forward': forward, 'backward': backward})
    register(cls)
    return cls


def _cast(x, like):
    """A Python scalar as a numpy scalar of ``like``'s dtype, so float32 stays float32.

    A numpy scalar (not a 0-d numpy array) because cupy accepts those as operands.
    """
    return like.dtype.type(x)


_scalar_op('_plus_scalar', '_plusscalar', lambda x, s, xp: x + _cast(s, x),
           lambda x, s, y, xp: 1, aliases=('_PlusScalar',), ufunc='add')
_scalar_op('_minus_scalar', '_minusscalar', lambda x, s, xp: x - _cast(s, x),
           lambda x, s, y, xp: 1, aliases=('_MinusScalar',), ufunc='subtract')
_scalar_op('_rminus_scalar', '_rminusscalar', lambda x, s, xp: _cast(s, x) - x,
           lambda x, s, y, xp: -1, aliases=('_RMinusScalar',))
_scalar_op('_mul_scalar', '_mulscalar', lambda x, s, xp: x * _cast(s, x),
           lambda x, s, y, xp: _cast(s, x), aliases=('_MulScalar',), ufunc='multiply')
_scalar_op('_div_scalar', '_divscalar', lambda x, s, xp: x / _cast(s, x),
           lambda x, s, y, xp: 1 / _cast(s, x), aliases=('_DivScalar',))
_scalar_op('_rdiv_scalar', '_rdivscalar', lambda x, s, xp: _cast(s, x) / x,
           lambda x, s, y, xp: -y / x, aliases=('_RDivScalar',))


class MathScalar(_Scalar):
    """``fn`` (a binary_math.BinaryFn) between the input and ``scalar``, the scalar on the
    right, or on the left for ``reverse`` (``_rmod_scalar``: scalar mod data).

    The scalar takes the input's dtype first (``x.dtype.type``), as in MXNet: float32
    stays float32, and an integer input sees 2.7 as 2.
    """
    fn = None
    reverse = False

    def _operands(self, p, x):
        s = _cast(p.scalar, x)
        return (s, x) if self.reverse else (x, s)

    def forward(self, p, env, inputs, aux):
        return [self.fn.value(env.xp, *self._operands(p, inputs[0]))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x, g, xp = inputs[0], out_grads[0], env.xp
        if not self.fn.differentiable:
            return [xp.zeros_like(x)]
        a, b = self._operands(p, x)
        d = (self.fn.d_rhs if self.reverse else self.fn.d_lhs)(xp, a, b, outputs[0])
        return [g * d]


@register
class PowerScalar(MathScalar):
    name, aliases, hint, fn = '_power_scalar', ('_PowerScalar',), '_powerscalar', POWER


@register
class RPowerScalar(MathScalar):
    """scalar ** data; the gradient out * log(scalar) is NaN for a negative scalar, as in MXNet."""
    name, aliases, hint, fn, reverse = '_rpower_scalar', ('_RPowerScalar',), '_rpowerscalar', POWER, True


@register
class MaximumScalar(MathScalar):
    """max(data, scalar); the gradient passes where data >= scalar (ties included)."""
    name, aliases, fn = '_maximum_scalar', ('_MaximumScalar',), MAXIMUM


@register
class MinimumScalar(MathScalar):
    """min(data, scalar); the gradient passes where data <= scalar (ties included)."""
    name, aliases, fn = '_minimum_scalar', ('_MinimumScalar',), MINIMUM


@register
class HypotScalar(MathScalar):
    name, aliases, fn = '_hypot_scalar', ('_HypotScalar',), HYPOT


@register
class ModScalar(MathScalar):
    """data mod scalar (sign of the scalar; 0 if the scalar is 0)."""
    name, aliases, fn = '_mod_scalar', ('_ModScalar',), MOD


@register
class RModScalar(MathScalar):
    """scalar mod data (sign of data; 0 where data is 0); gradient -floor(scalar / data)."""
    name, aliases, fn, reverse = '_rmod_scalar', ('_RModScalar',), MOD, True


@register
class Where(Operator):
    """``x`` where ``condition`` is non-zero, ``y`` elsewhere.  ``condition`` has the shape of
    ``x`` and ``y``, or is 1-D and picks whole rows (its length is their first axis).  The
    gradient goes to ``x`` or ``y`` by the same choice; ``condition`` gets none."""
    name = 'where'

    def inputs(self, p):
        return ['condition', 'x', 'y']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        condition, x, y = in_shapes
        if not shape_is_known(condition):
            # as MXNet: nothing is inferred until the condition's shape is known, since it alone
            # says whether it picks elements or rows
            return list(in_shapes), list(out_shapes), aux_shapes
        data = out_shapes[0]
        for name, shape in (('x', x), ('y', y)):
            data = merge_shape(data, shape, "where: input %r against the output and the other input" % name)
        if data is not None:
            rows = len(condition) == 1 and len(data) > 1
            wanted = (condition[0],) + tuple(data[1:]) if rows else condition
            merge_shape(data, wanted, "where: input 'condition' %s (it must have the shape of x and y, or be "
                        "1-D of their first dim's length)" % shape_str(condition))
        return [condition, data, data], [data], aux_shapes

    @staticmethod
    def _chosen(condition, like):
        """condition != 0, shaped to broadcast over ``like`` (a 1-D condition picks rows)."""
        chosen = condition != 0
        if chosen.ndim == 1 and like.ndim > 1:
            chosen = chosen.reshape((-1,) + (1,) * (like.ndim - 1))
        return chosen

    def infer_type(self, p, in_types, out_types, aux_types):
        data = in_types[1] if in_types[1] is not None else (in_types[2] if in_types[2] is not None else out_types[0])
        return [in_types[0] if in_types[0] is not None else data, data, data], [data], aux_types

    def forward(self, p, env, inputs, aux):
        condition, x, y = inputs
        if condition.shape != x.shape and (condition.ndim != 1 or x.ndim < 2 or condition.shape[0] != x.shape[0]):
            raise ShapeError("where: input 'condition' %s must have the shape of x and y %s, or be 1-D of "
                             "their first dim's length" % (shape_str(condition.shape), shape_str(x.shape)))
        return [env.xp.where(self._chosen(condition, x), x, y)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, g = env.xp, out_grads[0]
        chosen = self._chosen(inputs[0], g)
        zero = xp.zeros_like(g)
        return [xp.zeros_like(inputs[0]), xp.where(chosen, g, zero), xp.where(chosen, zero, g)]

    def backward_reads(self, p):
        return [0], []
