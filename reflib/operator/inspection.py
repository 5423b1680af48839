"""Operators that report on an array rather than compute with its values.

``shape_array`` and ``size_array`` give the shape and the element count as int64 arrays;
``all_finite`` and ``multi_all_finite`` give 1.0 when no element of their inputs is NaN or
infinite, else 0.0 (mixed-precision training skips a step on 0).  Nothing flows back through
any of them: their inputs' gradients are zero, as in MXNet.
"""

import numpy as np

from .registry import Operator, Param, register
from ..base import TypeInferError
from ..shapes import merge_shape


class _Report(Operator):
    """One output of a fixed dtype whose shape depends only on the input's; zero gradients."""
    out_dtype = np.int64
    blocks_gradient = True

    def out_shape(self, p, in_shapes):
        raise NotImplementedError

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        out = None if any(s is None for s in in_shapes) else self.out_shape(p, in_shapes)
        return list(in_shapes), [merge_shape(out_shapes[0], out, '%s output' % self.name)], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        return list(in_types), [np.dtype(self.out_dtype)], aux_types

    def backward_reads(self, p):
        return list(range(len(self.inputs(p)))), []

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        return [env.xp.zeros_like(x) for x in inputs]


@register
class ShapeArray(_Report):
    """The input's shape as a 1-d int64 array (one entry per axis)."""
    name = 'shape_array'

    def out_shape(self, p, in_shapes):
        return (len(in_shapes[0]),)

    def forward(self, p, env, inputs, aux):
        # filled entry by entry from Python ints: no host array is copied to a device
        out = env.xp.empty((inputs[0].ndim,), dtype=np.int64)
        for axis, size in enumerate(inputs[0].shape):
            out[axis] = size
        return [out]


@register
class SizeArray(_Report):
    """The input's number of elements as an int64 array of one entry."""
    name = 'size_array'

    def out_shape(self, p, in_shapes):
        return (1,)

    def forward(self, p, env, inputs, aux):
        return [env.xp.full((1,), inputs[0].size, dtype=np.int64)]


class _Finite(_Report):
    out_dtype = np.float32
    params = {'init_output': Param('bool', True, doc='start from 1; False ANDs into the given out=')}

    def out_shape(self, p, in_shapes):
        return (1,)

    def reads_out(self, p):
        return not p.init_output

    def check_dtypes(self, inputs):
        for k, x in enumerate(inputs):
            if x.dtype.kind != 'f':
                raise TypeInferError("%s: input %d has dtype %s; only floating point inputs can be "
                                     'checked' % (self.name, k, x.dtype.name))

    def forward(self, p, env, inputs, aux):
        self.check_dtypes(inputs)
        xp = env.xp
        finite = xp.ones((1,), dtype=np.float32)
        for x in inputs:
            finite *= xp.isfinite(x).all()
        target = env.target(0)
        if not p.init_output and target is not None:
            # what out= held stays 0 once it is 0: several calls AND their answers together
            finite *= target
            target[...] = finite
            return [target]
        return [finite]


@register
class AllFinite(_Finite):
    """1.0 if every element of the input is finite, else 0.0 (shape (1,), float32)."""
    name = 'all_finite'


@register
class MultiAllFinite(_Finite):
    """1.0 if every element of all ``num_arrays`` inputs is finite, else 0.0."""
    name = 'multi_all_finite'
    key_var_num_args = 'num_arrays'
    params = {'num_arrays': Param('int', 1, doc='how many inputs', low=1),
              'init_output': Param('bool', True, doc='start from 1; False ANDs into the given out=')}

    def inputs(self, p):
        return ['array%d' % i for i in range(p.num_arrays)]
