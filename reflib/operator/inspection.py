"""Operators that report on an array rather than compute with its values.

``shape_array`` and ``size_array`` give the shape and the element count as int64 arrays;
contrib's ``index_array`` gives every element's position (an int64 array with one more axis);
``all_finite`` and ``multi_all_finite`` give 1.0 when no element of their inputs is NaN or
infinite, else 0.0 (mixed-precision training skips a step on 0), and contrib's ``allclose``
gives 1 when two arrays agree within a tolerance, as ``numpy.allclose``.  Nothing flows back
through any of them: their inputs' gradients are zero, as in MXNet.
"""

import numpy as np

from .registry import Operator, Param, register
from ..base import ShapeError, TypeInferError
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


@register
class IndexArray(_Report):
    """Each element's position along ``axes`` (every axis by default): for data of shape
    (d0, ..., dn) an int64 array of shape (d0, ..., dn, len(axes)), as numpy's ``indices``
    moved to the last axis."""
    name = '_contrib_index_array'
    params = {'axes': Param('shape_or_none', None, doc='the axes whose positions are given; None: all')}

    def _axes(self, p, ndim):
        axes = tuple(range(ndim)) if p.axes is None else tuple(p.axes)
        for a in axes:
            if not -ndim <= a < ndim:
                raise ShapeError('%s: axis %d is out of range for data with %d dims (axes=%s)'
                                 % (self.name, a, ndim, axes))
        return tuple(a % ndim for a in axes) if ndim else ()

    def out_shape(self, p, in_shapes):
        shape = tuple(in_shapes[0])
        return shape + (len(self._axes(p, len(shape))),)

    def forward(self, p, env, inputs, aux):
        xp, shape = env.xp, inputs[0].shape
        axes = self._axes(p, len(shape))
        out = xp.empty(shape + (len(axes),), dtype=np.int64)
        for k, axis in enumerate(axes):
            along = xp.arange(shape[axis], dtype=np.int64).reshape((-1,) + (1,) * (len(shape) - axis - 1))
            out[..., k] = along
        return [out]


@register
class AllClose(_Report):
    """1 (uint8, shape ()) when every ``|a - b| <= atol + rtol * |b|``, as ``numpy.allclose``,
    else 0; NaNs count as equal with ``equal_nan``."""
    name = '_contrib_allclose'
    out_dtype = np.uint8
    params = {'rtol': Param('float', 1e-5, doc='the tolerance relative to |b|'),
              'atol': Param('float', 1e-8, doc='the absolute tolerance'),
              'equal_nan': Param('bool', True, doc='whether NaN equals NaN')}

    def inputs(self, p):
        return ['a', 'b']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        a, b = in_shapes
        if a is not None and b is not None and tuple(a) != tuple(b):
            raise ShapeError("%s: input 'a' has shape %s but input 'b' has shape %s"
                             % (self.name, tuple(a), tuple(b)))
        known = a if a is not None else b
        return [known, known], [()], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        a, b = in_types
        if a is not None and b is not None and np.dtype(a) != np.dtype(b):
            raise TypeInferError("%s: inputs 'a' (%s) and 'b' (%s) must have one dtype"
                                 % (self.name, np.dtype(a).name, np.dtype(b).name))
        known = a if a is not None else b
        return [known, known], [np.dtype(np.uint8)], aux_types

    def forward(self, p, env, inputs, aux):
        xp, (a, b) = env.xp, inputs
        self.infer_shape(p, [a.shape, b.shape], [None], [])
        kind = a.dtype.type
        with np.errstate(invalid='ignore'):
            close = (a == b) | (xp.abs(a - b) <= kind(p.atol) + kind(p.rtol) * xp.abs(b))
        if p.equal_nan:
            close |= xp.isnan(a) & xp.isnan(b)
        return [close.all().astype(np.uint8).reshape(())]


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
        return ['array_%d' % i for i in range(p.num_arrays)]      # MXNet's names: array_0, array_1, ...
