"""Operators on sequences: ``reverse`` (flip along axes, what a bidirectional RNN does to its
backward half's outputs), ``SwapAxis`` (exchange two axes, what turns a time-major sequence
batch-major), and the three that respect each sample's length in a padded batch:
``SequenceMask``, ``SequenceLast`` and ``SequenceReverse``."""

import numpy as np

from ..base import ShapeError
from .registry import Operator, Param, register
from ..shapes import merge_shape


def _axis(op, axis, ndim):
    if not -ndim <= axis < ndim:
        raise ShapeError('%s: axis %d is out of range for %d dimensions' % (op, axis, ndim))
    return axis % ndim


@register
class Reverse(Operator):
    """The input with the order of its elements reversed along each axis in ``axis``."""
    name = 'reverse'
    aliases = ('flip',)
    params = {'axis': Param('shape', doc='the axes to reverse')}

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        axes = tuple(_axis(self.name, a, x.ndim) for a in p.axis)
        return [env.xp.ascontiguousarray(env.xp.flip(x, axis=axes))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        g = out_grads[0]
        axes = tuple(_axis(self.name, a, g.ndim) for a in p.axis)
        return [env.xp.ascontiguousarray(env.xp.flip(g, axis=axes))]


@register
class SwapAxis(Operator):
    """The input with axes ``dim1`` and ``dim2`` exchanged."""
    eliminable = False
    name = 'SwapAxis'
    aliases = ('swapaxes',)
    params = {'dim1': Param('int', 0, doc='the first axis'), 'dim2': Param('int', 0, doc='the second axis')}

    def _swapped(self, p, shape):
        a, b = _axis(self.name, p.dim1, len(shape)), _axis(self.name, p.dim2, len(shape))
        swapped = list(shape)
        swapped[a], swapped[b] = swapped[b], swapped[a]
        return tuple(swapped)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        if data is not None:
            out = merge_shape(out, self._swapped(p, data), 'SwapAxis output')
        if out is not None:
            data = merge_shape(data, self._swapped(p, out), "SwapAxis input 'data'")   # its own inverse
        return [data], [out], aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        return [env.xp.ascontiguousarray(env.xp.swapaxes(x, _axis(self.name, p.dim1, x.ndim),
                                                         _axis(self.name, p.dim2, x.ndim)))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        g = out_grads[0]
        return [env.xp.ascontiguousarray(env.xp.swapaxes(g, _axis(self.name, p.dim1, g.ndim),
                                                         _axis(self.name, p.dim2, g.ndim)))]


class _Masked(Operator):
    """Shared by SequenceMask, SequenceLast and SequenceReverse: the time axis ``axis`` (0 or
    1) of ``data``, the batch axis the other, and ``sequence_length`` (one length per sample,
    read only with ``use_sequence_length``) saying how many steps of each sample are real."""
    eliminable = False

    params = {
        'use_sequence_length': Param('bool', False, doc='read the lengths from the second input'),
        'axis': Param('int', 0, doc='the time axis, 0 (T, N, ...) or 1 (N, T, ...)', low=0, high=1),
    }

    def inputs(self, p):
        return ['data', 'sequence_length'] if p.use_sequence_length else ['data']

    def _out_shape(self, p, data):
        return data

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, out = in_shapes[0], out_shapes[0]
        shapes = list(in_shapes)
        if data is not None:
            if len(data) < 2:
                raise ShapeError('%s: data must have a time and a batch axis, got shape %s' % (self.name, data))
            out = merge_shape(out, self._out_shape(p, data), '%s output' % self.name)
            if p.use_sequence_length:
                shapes[1] = merge_shape(in_shapes[1], (data[1 - p.axis],), "%s input 'sequence_length'" % self.name)
        return shapes, [out], aux_shapes

    def infer_type(self, p, in_types, out_types, aux_types):
        types = list(in_types)
        data = in_types[0] if in_types[0] is not None else out_types[0]
        types[0] = data
        return types, [data], aux_types

    @staticmethod
    def _time_major(xp, x, axis):
        return x if axis == 0 else xp.swapaxes(x, 0, 1)

    def _lengths(self, p, env, inputs, steps, batch):
        """One length per sample, as ints (all ``steps`` without use_sequence_length)."""
        xp = env.xp
        if not p.use_sequence_length:
            return xp.full((batch,), steps, dtype=np.int64)
        lengths = inputs[1].astype(np.int64)
        return xp.clip(lengths, 0, steps)

    def _mask(self, p, env, inputs, x):
        """(steps, batch) booleans: which steps of each sample are real (x is time-major)."""
        xp = env.xp
        steps, batch = x.shape[0], x.shape[1]
        lengths = self._lengths(p, env, inputs, steps, batch)
        return xp.arange(steps)[:, None] < lengths[None, :]

    def _no_length_grad(self, p, env, inputs, grad):
        return [grad] + ([env.xp.zeros_like(inputs[1])] if p.use_sequence_length else [])


@register
class SequenceMask(_Masked):
    """``data`` with every step past a sample's length set to ``value``."""
    name = 'SequenceMask'
    # in MXNet's order, which positional calls follow: use_sequence_length, value, axis
    params = {'use_sequence_length': _Masked.params['use_sequence_length'],
              'value': Param('float', 0.0, doc='what the padded steps become'),
              'axis': _Masked.params['axis']}

    def _apply(self, p, env, inputs, x, fill):
        xp = env.xp
        t = self._time_major(xp, x, p.axis)
        mask = self._mask(p, env, inputs, t).reshape(t.shape[:2] + (1,) * (t.ndim - 2))
        return self._time_major(xp, xp.where(mask, t, xp.asarray(fill, dtype=x.dtype)), p.axis)

    def forward(self, p, env, inputs, aux):
        return [env.xp.ascontiguousarray(self._apply(p, env, inputs, inputs[0], p.value))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        grad = env.xp.ascontiguousarray(self._apply(p, env, inputs, out_grads[0], 0))
        return self._no_length_grad(p, env, inputs, grad)


@register
class SequenceLast(_Masked):
    """The last real step of each sample: ``data`` without its time axis."""
    name = 'SequenceLast'

    def _out_shape(self, p, data):
        return tuple(d for i, d in enumerate(data) if i != p.axis)

    def _last(self, p, env, inputs, t):
        lengths = self._lengths(p, env, inputs, t.shape[0], t.shape[1])
        return env.xp.maximum(lengths - 1, 0), env.xp.arange(t.shape[1])

    def forward(self, p, env, inputs, aux):
        t = self._time_major(env.xp, inputs[0], p.axis)
        last, samples = self._last(p, env, inputs, t)
        return [env.xp.ascontiguousarray(t[last, samples])]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp = env.xp
        t = self._time_major(xp, inputs[0], p.axis)
        grad = xp.zeros(t.shape, dtype=out_grads[0].dtype)
        last, samples = self._last(p, env, inputs, t)
        grad[last, samples] = out_grads[0]
        return self._no_length_grad(p, env, inputs, xp.ascontiguousarray(self._time_major(xp, grad, p.axis)))


@register
class SequenceReverse(_Masked):
    """Each sample's real steps in reverse order; the padded steps after them stay put."""
    name = 'SequenceReverse'

    def _reverse(self, p, env, inputs, x):
        xp = env.xp
        t = self._time_major(xp, x, p.axis)
        steps, batch = t.shape[0], t.shape[1]
        lengths = self._lengths(p, env, inputs, steps, batch)
        rows = xp.arange(steps)[:, None]
        # step s of a sample of length L comes from step L-1-s while s < L, from itself after
        source = xp.where(rows < lengths[None, :], lengths[None, :] - 1 - rows, rows)
        return self._time_major(xp, t[source, xp.arange(batch)[None, :]], p.axis)

    def forward(self, p, env, inputs, aux):
        return [env.xp.ascontiguousarray(self._reverse(p, env, inputs, inputs[0]))]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        # reversing is its own inverse: the gradient is reversed the same way
        grad = env.xp.ascontiguousarray(self._reverse(p, env, inputs, out_grads[0]))
        return self._no_length_grad(p, env, inputs, grad)
