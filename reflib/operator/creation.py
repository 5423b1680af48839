"""Operators with no input that create an array: ``_zeros``, ``_ones``, ``_full``.

``mx.sym.zeros(shape=(0, 128))`` is how an unrolled RNN starts its state (``begin_state``):
a 0 in ``shape`` is a dimension to be inferred, here the batch size, which shape inference
brings back from the operator that reads the zeros (see FullyConnected's ``infer_shape``).
Forward fills the array the executor planned for the output, which has the inferred shape.
"""

import numpy as np

from .registry import Operator, Param, merge_shape, register

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
        'shape': Param('shape', (), doc='the shape; a 0 is a dimension left to inference', low=0),
        'ctx': Param('str', '', doc='the device (the executor decides it here)'),
        'dtype': Param('enum', 'float32', choices=_DTYPES, doc='element type'),
    }

    def inputs(self, p):
        return []

    def fill(self, p):
        return self.value

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        # the given shape with its 0s unknown, merged with whatever inference knows of the output
        return [], [merge_shape(out_shapes[0], tuple(p.shape), self.name)], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return [], [np.dtype(p.dtype)], aux_types

    def forward(self, p, env, inputs, aux):
        def make():
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
