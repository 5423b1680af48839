"""Operators with no input that create an array: ``_zeros``, ``_ones``, ``_full``, and the
ranges ``_arange``, ``_linspace`` and ``_eye`` (``mx.sym.arange``, ``linspace``, ``eye``);
and ``reset_arrays``, which instead of creating an array zeroes the arrays it is given.

``mx.sym.zeros(shape=(0, 128))`` is how an unrolled RNN starts its state (``begin_state``):
a 0 in ``shape`` is a dimension to be inferred, here the batch size, which shape inference
brings back from the operator that reads the zeros (see FullyConnected's ``infer_shape``).
Forward fills the array the executor planned for the output, which has the inferred shape.
"""

import math

import numpy as np

from .registry import Operator, Param, OpEnv, get, register
from ..shapes import merge_shape
from ..base import ParamError, ShapeError, TypeInferError

_DTYPES = ('bfloat16', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8', 'bool')


def _filled(env, value, make):
    """The planned output array filled with ``value``, or ``make()`` where none is planned."""
    target = env.target(0)
    if target is None:
        return [make()]
    target[...] = value
    return [target]


class _Creation(Operator):
    """Shared by the three: parameters, shape and type rules, and an empty backward."""
    value = None

    params = {
        'shape': Param('shape', (), doc='the shape; a 0 (or -1) is a dimension left to inference', low=-1),
        'ctx': Param('str', '', doc='the device (the executor decides it here)'),
        'dtype': Param('enum', 'float32', choices=_DTYPES, doc='element type'),
    }

    def inputs(self, p):
        return []

    def fill(self, p):
        return self.value

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        # the given shape with its 0s (and -1s, MXNet takes either) unknown, merged with
        # whatever inference knows of the output
        given = tuple(max(d, 0) for d in p.shape)
        return [], [merge_shape(out_shapes[0], given, self.name)], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return [], [np.dtype(p.dtype)], aux_types

    def forward(self, p, env, inputs, aux):
        def make():
            if min(p.shape, default=0) < 0:
                raise ShapeError('%s: shape %s has unknown (-1) dimensions, which only a graph\'s shape '
                                 'inference can fill' % (self.name, tuple(p.shape)))
            with env.ctx.device_scope():
                return env.xp.full(tuple(p.shape), self.fill(p), dtype=p.dtype)
        return _filled(env, self.fill(p), make)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return []


@register
class Zeros(_Creation):
    """An array of zeros (``mx.sym.zeros``)."""
    name = '_zeros'
    value = 0


@register
class Ones(_Creation):
    """An array of ones (``mx.sym.ones``)."""
    name = '_ones'
    value = 1


@register
class Full(_Creation):
    """An array filled with ``value`` (``mx.sym.full``)."""
    name = '_full'
    params = dict(_Creation.params, value=Param('float', doc='the value of every element'))

    def fill(self, p):
        return p.value


class _Like(Operator):
    """An array of the input's shape and dtype, filled with a constant; no gradient flows back."""
    value = None
    blocks_gradient = True

    def forward(self, p, env, inputs, aux):
        return _filled(env, self.value, lambda: env.xp.full_like(inputs[0], self.value))

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(inputs[0])]

    def backward_reads(self, p):
        return [0], []


@register
class ZerosLike(_Like):
    """Zeros shaped like the input (``mx.sym.zeros_like``)."""
    name = 'zeros_like'
    value = 0


@register
class OnesLike(_Like):
    """Ones shaped like the input (``mx.sym.ones_like``); ZoneoutCell draws its masks from them."""
    name = 'ones_like'
    value = 1


# ================================================================ zeroing given arrays
_FLOATS = ('float16', 'float32', 'float64')


@register
class ResetArrays(Operator):
    """Set every one of the ``num_arrays`` given arrays to zero, in place; no output.

    ``mx.nd.reset_arrays(a, b, num_arrays=2)`` returns an empty list and leaves ``a`` and
    ``b`` all zeros (a view zeroes its part of the base array).  One call for many arrays is
    how MXNet zeroes a model's gradients at once.  The arrays are the operator's auxiliary
    states, the registry's way of letting an operator write into arrays it is handed, so
    nothing is recorded by autograd (MXNet 1.9.1 crashes when asked to record it).

    Floating-point arrays only: MXNet 1.9.1 fails on integer ones when the kernel runs (the
    error surfacing at the next read), reflib refuses them at once, before zeroing any.
    ``num_arrays`` is filled in from the number of arrays when left out, as for the other
    variadic operators (MXNet insists on it).  Its symbol form has no outputs to bind
    (MXNet 1.9.1 crashes composing it); use it on NDArrays.
    """
    name = 'reset_arrays'
    key_var_num_args = 'num_arrays'
    differentiable = False
    blocks_gradient = True
    eliminable = False         # two resets of the same arrays are two writes, not one value
    params = {'num_arrays': Param('int', doc='how many arrays follow', low=0)}

    def inputs(self, p):
        return []

    def aux(self, p):
        return ['array%d' % k for k in range(p.num_arrays)]

    def outputs(self, p):
        return []

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        return [], [], list(aux_shapes)         # any shapes: each array is zeroed as it is

    def infer_type(self, p, in_types, out_types, aux_types):
        for k, t in enumerate(aux_types):
            if t is not None and np.dtype(t).name not in _FLOATS:
                raise TypeInferError('%s: array %d is %s; only floating-point arrays (%s) can be reset, as '
                                     'in MXNet 1.9.1' % (self.name, k, np.dtype(t).name, ', '.join(_FLOATS)))
        return [], [], list(aux_types)

    def forward(self, p, env, inputs, aux):
        # the dtypes were checked first (infer_type), so either every array is zeroed or none
        for arr in aux:
            arr[...] = 0
        return []

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return []


# ================================================================ ranges
_RANGE_DTYPES = ('float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8')


def _numpy_dtype(op, name):
    if name == 'bfloat16':
        raise ParamError("%s: dtype='bfloat16' is not supported (numpy has no bfloat16)" % op)
    return np.dtype(name)


class _Range(Operator):
    """Shared by _arange, _linspace and _eye: no input, no gradient, a dtype parameter."""

    def inputs(self, p):
        return []

    def infer_type(self, p, in_types, out_types, aux_types):
        return [], [_numpy_dtype(self.name, p.dtype)], aux_types

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return []

    def _place(self, env, make):
        """``make(xp)``'s values, computed on the operator's device (never copied over from
        the host), in the planned output if any."""
        with env.ctx.device_scope():
            values = make(env.xp)
            return _filled(env, values, lambda: values)


@register
class Arange(_Range):
    """``start, start+step, ...`` up to ``stop`` (excluded), each value ``repeat`` times;
    ``stop=None`` counts from 0 up to ``start``.  Element i is ``dtype(start) + dtype(i) *
    dtype(step)``, computed in the output dtype as MXNet does (not numpy.arange's rounding).

    With ``infer_range=True`` and no ``stop``, the length comes from shape inference (the
    operator the range feeds) and the values start at ``start``.  An empty range and a 0
    step are refused, as in MXNet 1.9.1.
    """
    name = '_arange'
    params = {
        'start': Param('float', doc='the first value (the end, counting from 0, when stop is None)'),
        'stop': Param('float_or_none', None, doc='the end (excluded)'),
        'step': Param('float', 1.0, doc='the spacing'),
        'repeat': Param('int', 1, doc='how many times each value appears', low=1),
        'infer_range': Param('bool', False, doc='take the length from shape inference when stop is None'),
        'ctx': Param('str', '', doc='the device (the executor decides it here)'),
        'dtype': Param('enum', 'float32', choices=('bfloat16',) + _RANGE_DTYPES, doc='element type'),
    }

    def _inferred(self, p):
        return p.infer_range and p.stop is None

    def _bounds(self, p):
        start, stop = (0.0, p.start) if p.stop is None else (p.start, p.stop)
        if p.step == 0:
            raise ParamError('_arange: step must not be 0')
        if (stop - start) / p.step <= 0:
            raise ParamError('_arange: start=%s, stop=%s, step=%s give an empty range' % (start, stop, p.step))
        return start, int(math.ceil((stop - start) / p.step))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        if self._inferred(p):
            out = out_shapes[0]
            if out is not None and (len(out) != 1 or (out[0] and out[0] % p.repeat)):
                raise ShapeError('_arange: with infer_range the output must be 1-d with a length that divides by '
                                 'repeat=%d, got %s' % (p.repeat, out))
            return [], [out], aux_shapes
        _, count = self._bounds(p)
        return [], [merge_shape(out_shapes[0], (count * p.repeat,), self.name)], aux_shapes

    def forward(self, p, env, inputs, aux):
        dtype = _numpy_dtype(self.name, p.dtype)
        if self._inferred(p):
            target = env.target(0)
            if target is None:
                raise ShapeError('_arange: infer_range=True without stop needs a graph that fixes the length')
            start, count = p.start, target.shape[0] // p.repeat
        else:
            start, count = self._bounds(p)
        def make(xp):
            with np.errstate(over='ignore', invalid='ignore'):   # numpy's warnings; cupy has none
                values = dtype.type(start) + xp.arange(count).astype(dtype) * dtype.type(p.step)
            return xp.repeat(values.astype(dtype), p.repeat)
        return self._place(env, make)


@register
class Linspace(_Range):
    """``num`` evenly spaced values from ``start`` to ``stop`` (included unless
    ``endpoint=False``), computed in float64 and cast (so an integer dtype truncates)."""
    name = '_linspace'
    params = {
        'start': Param('float', doc='the first value'),
        'stop': Param('float', doc='the last value (or the end, with endpoint=False)'),
        'num': Param('int', doc='how many values', low=0),
        'endpoint': Param('bool', True, doc='whether stop is the last value'),
        'ctx': Param('str', '', doc='the device (the executor decides it here)'),
        'dtype': Param('enum', 'float32', choices=('bfloat16',) + _RANGE_DTYPES, doc='element type'),
    }

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        return [], [merge_shape(out_shapes[0], (p.num,), self.name)], aux_shapes

    def forward(self, p, env, inputs, aux):
        dtype = _numpy_dtype(self.name, p.dtype)
        spaces = (p.num - 1 if p.endpoint else p.num) or 1
        step = (p.stop - p.start) / spaces
        return self._place(env, lambda xp: (p.start + xp.arange(p.num, dtype=np.float64) * step).astype(dtype))


@register
class Eye(_Range):
    """An N x M matrix (M=0: N x N) of zeros with ones on diagonal ``k`` (above the main one
    for k > 0); a diagonal outside the matrix leaves it all zeros."""
    name = '_eye'
    params = {
        'N': Param('int', doc='rows', low=0),
        'M': Param('int', 0, doc='columns; 0 means N', low=0),
        'k': Param('int', 0, doc='which diagonal: 0 main, > 0 above, < 0 below'),
        'ctx': Param('str', '', doc='the device (the executor decides it here)'),
        'dtype': Param('enum', 'float32', choices=_RANGE_DTYPES, doc='element type'),
    }

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        return [], [merge_shape(out_shapes[0], (p.N, p.M or p.N), self.name)], aux_shapes

    def forward(self, p, env, inputs, aux):
        dtype = _numpy_dtype(self.name, p.dtype)
        return self._place(env, lambda xp: xp.eye(p.N, p.M or p.N, p.k, dtype=dtype))


def create(op_name, ctx, **params):
    """Run a creation operator outside a graph (``mx.nd.linspace``, ``mx.nd.eye``): its
    output as an array of ``ctx``'s array module."""
    op = get(op_name)
    p = op.parse_params({k: str(v) for k, v in params.items() if v is not None})
    return op.forward(p, OpEnv(ctx), [], [])[0]
