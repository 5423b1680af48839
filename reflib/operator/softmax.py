"""softmax and log_softmax along one axis.

Both subtract the maximum along the axis before exponentiating, so large
inputs do not overflow.  ``temperature`` T divides the input first
(``softmax(x / T)``); ``dtype`` picks the output dtype (the arithmetic runs in
the input's dtype, then the result is cast, as MXNet 1.9 does).

softmax can also take a second input ``length`` (``use_length=True``): for
every slice along ``axis`` only the first ``length`` entries take part, the
rest come out as 0 and get no gradient.  ``length`` has the data's shape
without ``axis`` and holds integers.

Backward, with y the output and g its head gradient::

    softmax:      dx = y * (g - sum(g * y)) / T
    log_softmax:  dx = (g - exp(y) * sum(g)) / T
"""

import numpy as np

from .registry import Operator, Param, register
from .common import rounded_once
from ..shapes import merge_shape
from ..base import ParamError, ShapeError

_DTYPES = ('float16', 'float32', 'float64')


class _SoftmaxBase(Operator):
    params = {
        'axis': Param('int', -1, doc='the axis the probabilities sum to one along'),
        'temperature': Param('float_or_none', None, doc='divide the input by this first (None means 1)'),
        'dtype': Param('enum', None, choices=_DTYPES, doc='output dtype (None: same as the input)'),
        'use_length': Param('bool_or_none', False, doc='take a second input giving the valid length '
                                                        'of every slice'),
    }

    def _axis(self, p, ndim):
        axis = p.axis + ndim if p.axis < 0 else p.axis
        if not 0 <= axis < max(ndim, 1):
            raise ShapeError('%s: axis %d is out of range for a %d-d input' % (self.name, p.axis, ndim))
        return axis

    def inputs(self, p):
        return ['data', 'length'] if p.use_length else ['data']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], self.name)
        shapes = [data]
        if p.use_length:
            length = in_shapes[1]
            if data is not None:
                axis = self._axis(p, len(data))
                want = tuple(data[:axis]) + tuple(data[axis + 1:])
                length = merge_shape(length, want, "%s input 'length'" % self.name)
            shapes.append(length)
        return shapes, [data], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        data = in_types[0]
        if data is None and p.dtype is None:
            data = out_types[0]
        out = np.dtype(p.dtype) if p.dtype is not None else data
        types = [data]
        if p.use_length:
            types.append(in_types[1])  # an integer type, whatever the caller gave
        return types, [out], aux_types

    def _temperature(self, p, x):
        t = 1.0 if p.temperature is None else p.temperature
        return x.dtype.type(t)

    def _mask(self, p, env, x, length):
        """Boolean array, True where the position along the axis is below its slice's length."""
        xp = env.xp
        axis = self._axis(p, x.ndim)
        pos_shape = [1] * x.ndim
        pos_shape[axis] = x.shape[axis]
        pos = xp.arange(x.shape[axis]).reshape(pos_shape)
        return pos < xp.expand_dims(length.astype(np.int64), axis)

    def _out_dtype(self, p, x):
        return np.dtype(p.dtype) if p.dtype is not None else x.dtype


@register
class Softmax(_SoftmaxBase):
    """``exp(x / T)`` normalized to sum to one along ``axis``."""
    name = 'softmax'

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        axis = self._axis(p, x.ndim)
        z = x / self._temperature(p, x)
        if p.use_length:
            mask = self._mask(p, env, x, inputs[1])
            lowest = x.dtype.type(np.finfo(x.dtype).min)
            top = xp.where(mask, z, lowest).max(axis=axis, keepdims=True)
            # masked entries are shifted to 0 (no overflow), then zeroed after exp
            e = rounded_once(xp, xp.exp, xp.where(mask, z, top) - top) * mask
            total = e.sum(axis=axis, keepdims=True)
            y = e / xp.where(total > 0, total, x.dtype.type(1))  # an empty slice gives zeros
        else:
            e = rounded_once(xp, xp.exp, z - z.max(axis=axis, keepdims=True))
            y = e / e.sum(axis=axis, keepdims=True)
        return [y.astype(self._out_dtype(p, x), copy=False)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x, y, g = inputs[0], outputs[0], out_grads[0]
        axis = self._axis(p, x.ndim)
        dx = y * (g - (g * y).sum(axis=axis, keepdims=True)) / self._temperature(p, y)
        grads = [dx.astype(x.dtype, copy=False)]
        if p.use_length:
            grads.append(None)  # integer lengths get no gradient
        return grads


@register
class Softmin(Softmax):
    """``exp(-x / T)`` normalized to sum to one along ``axis``: the softmax of ``-x``."""
    name = 'softmin'

    def inputs(self, p):
        # MXNet's softmin takes data only: use_length is a parameter it cannot use either
        if p.use_length:
            raise ParamError("softmin: use_length=True needs a 'length' input, which softmin does not "
                             'take (MXNet 1.9.1 has none either); use softmax of -x')
        return ['data']

    def forward(self, p, env, inputs, aux):
        return super().forward(p, env, [-inputs[0]] + list(inputs[1:]), aux)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        grads = super().backward(p, env, out_grads, inputs, outputs, aux)
        return [-grads[0]] + grads[1:]


@register
class LogSoftmax(_SoftmaxBase):
    """``log(softmax(x / T))`` computed as ``z - max - log(sum(exp(z - max)))``."""
    name = 'log_softmax'

    def inputs(self, p):
        if p.use_length:
            # MXNet 1.9 accepts the flag here but cannot run backward with it
            raise ParamError('log_softmax: use_length=True is not supported (only softmax takes a length input)')
        return ['data']

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        axis = self._axis(p, x.ndim)
        # (x / 1 is x to the bit: a loss's log_softmax skips the division)
        z = x if p.temperature in (None, 1.0) else x / self._temperature(p, x)
        # computed in the planned output where its dtype is the input's (a loss's log_softmax
        # then costs no copy into it)
        target = env.target(0) if p.dtype is None else None
        shifted = xp.subtract(z, z.max(axis=axis, keepdims=True), out=target)
        # shifted - log(sum(exp(shifted))), the difference written over shifted
        total = rounded_once(xp, xp.exp, shifted).sum(axis=axis, keepdims=True)
        y = xp.subtract(shifted, rounded_once(xp, xp.log, total), out=shifted)
        return [y if p.dtype is None else y.astype(self._out_dtype(p, x), copy=False)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x, y, g = env.xp, inputs[0], outputs[0], out_grads[0]
        axis = self._axis(p, x.ndim)
        target = env.grad_target(0) if y.dtype == x.dtype else None
        dx = rounded_once(xp, xp.exp, y, out=target)
        dx = xp.subtract(g, xp.multiply(dx, g.sum(axis=axis, keepdims=True), out=dx), out=dx)
        if p.temperature not in (None, 1.0):
            dx = xp.divide(dx, self._temperature(p, y), out=dx)
        return [dx.astype(x.dtype, copy=False)]
