"""Normalization layers: BatchNorm."""

import numpy as np

from .registry import Operator, Param, register, merge_shape, merge_dtype
from .registry import format_shape as _fmt_shape
from .common import same_as_data
from ..base import ShapeError, ParamError


@register
class BatchNorm(Operator):
    """Normalise each channel (``axis``) to zero mean and unit variance, then scale and shift.

    ``out = (x - mean) / sqrt(var + eps) * gamma + beta`` per channel.

    Training (``env.is_train`` and not ``use_global_stats``): mean and var are
    the batch's own statistics over every axis but ``axis`` (var is the
    biased, divide-by-N variance), and the moving statistics are updated in
    place by *backward* (as MXNet 1.9.1 does on CPU):
    ``moving = moving * momentum + batch_stat * (1 - momentum)``.
    Otherwise the moving statistics are used as they are.  A training forward
    alone therefore leaves them untouched; only a forward + backward step
    moves them (MXNet on GPU/cuDNN updates them in forward instead).

    ``fix_gamma=True`` (the default) uses gamma = 1 and gives gamma a zero
    gradient.  The three outputs are the result, the mean used and, despite
    its name ``var``, the inverse standard deviation ``1/sqrt(var + eps)``
    used -- exactly what MXNet returns with ``output_mean_var=True``.  Their
    head gradients do not flow back (MXNet ignores them too).
    """
    name = 'BatchNorm'
    params = {
        'eps': Param('float', 1e-3, doc='added to the variance before the square root'),
        'momentum': Param('float', 0.9, doc='decay of the moving statistics'),
        'fix_gamma': Param('bool', True, doc='use gamma = 1 and do not learn it'),
        'use_global_stats': Param('bool', False, doc='always normalise with the moving statistics'),
        'output_mean_var': Param('bool', False, doc='also return the mean and inverse std used'),
        'axis': Param('int', 1, doc='the channel axis'),
        'cudnn_off': Param('bool', False, doc='unused here'),
        'min_calib_range': Param('float_or_none', None, doc='quantisation only; unused here'),
        'max_calib_range': Param('float_or_none', None, doc='quantisation only; unused here'),
    }

    def inputs(self, p):
        return ['data', 'gamma', 'beta']

    def aux(self, p):
        return ['moving_mean', 'moving_var']

    def aux_init(self, p):
        return {'moving_mean': 'zero', 'moving_var': 'one'}

    def outputs(self, p):
        return ['output', 'mean', 'var']

    def visible_outputs(self, p):
        return 3 if p.output_mean_var else 1

    def _axis(self, p, ndim):
        if not -ndim <= p.axis < ndim:
            raise ParamError('%s: axis %d is out of range for %d-d input %r' % (self.name, p.axis, ndim, 'data'))
        return p.axis % ndim

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = same_as_data(in_shapes, out_shapes[:1], '%s: input data' % self.name)
        channel = None
        if data is not None:
            channel = (data[self._axis(p, len(data))],)
        names = ['gamma', 'beta']
        params = [merge_shape(s, channel, '%s: input %s' % (self.name, n)) for s, n in zip(in_shapes[1:], names)]
        aux = [merge_shape(s, channel, '%s: aux %s' % (self.name, n))
               for s, n in zip(aux_shapes, self.aux(p))]
        outs = [data] + [channel] * (len(out_shapes) - 1)
        return [data] + params, outs, aux

    def infer_type(self, p, in_types, out_types, aux_types):
        data = in_types[0] if in_types[0] is not None else (out_types[0] if out_types else None)
        if data is None:
            return super().infer_type(p, in_types, out_types, aux_types)
        # half-precision data keeps its statistics and parameters in float32, as in MXNet
        param = np.dtype(np.float32) if np.dtype(data) == np.float16 else np.dtype(data)
        ins = [data] + [merge_dtype(t, param, '%s: input %s' % (self.name, n))
                        for t, n in zip(in_types[1:], ('gamma', 'beta'))]
        aux = [merge_dtype(t, param, '%s: aux %s' % (self.name, n)) for t, n in zip(aux_types, self.aux(p))]
        return ins, [data] + [param] * (len(out_types) - 1), aux

    def _check(self, data, arrays, names, axis):
        channels = data.shape[axis]
        for arr, name in zip(arrays, names):
            if tuple(arr.shape) != (channels,):
                raise ShapeError('%s: %r must have shape (%d,) (channels of data axis %d), got %s'
                                 % (self.name, name, channels, axis, _fmt_shape(arr.shape)))

    def _uses_batch_stats(self, p, env):
        return env.is_train and not p.use_global_stats

    def inplace(self, p):
        return [(0, 0)]

    def backward_reads(self, p):
        return [0, 1], [1, 2]            # data and gamma; the mean and 1/std forward used

    def forward(self, p, env, inputs, aux):
        xp, data, gamma, beta = env.xp, inputs[0], inputs[1], inputs[2]
        axis = self._axis(p, data.ndim)
        self._check(data, [gamma, beta] + list(aux), ['gamma', 'beta', 'moving_mean', 'moving_var'], axis)
        if p.fix_gamma:
            # MXNet writes 1 into the bound gamma array, so weight decay cannot drift it
            gamma[...] = 1
        reduce_axes = tuple(a for a in range(data.ndim) if a != axis)
        bshape = [1] * data.ndim
        bshape[axis] = -1
        if self._uses_batch_stats(p, env):
            # half-precision data: accumulate the statistics in float32, their own dtype
            work = data.astype(np.float32) if data.dtype == np.float16 else data
            mean = work.mean(axis=reduce_axes)
            var = ((work - mean.reshape(bshape)) ** 2).mean(axis=reduce_axes)
            # The moving statistics are NOT updated here: MXNet 1.9.1 (CPU) updates
            # them in backward, so a training forward alone leaves them unchanged.
        else:
            mean, var = aux[0], aux[1]
        inv_std = (1 / xp.sqrt(var + p.eps)).astype(mean.dtype)
        scale = inv_std if p.fix_gamma else inv_std * gamma
        centre, scale = mean.reshape(bshape).astype(data.dtype), scale.reshape(bshape).astype(data.dtype)
        out = xp.subtract(data, centre, out=env.target(0))     # the planned array, or a new one
        xp.multiply(out, scale, out=out)
        out += beta.reshape(bshape).astype(data.dtype)
        return [out, mean.copy(), inv_std]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, gamma = env.xp, inputs[0], inputs[1]
        grad = out_grads[0]
        axis = self._axis(p, data.ndim)
        reduce_axes = tuple(a for a in range(data.ndim) if a != axis)
        bshape = [1] * data.ndim
        bshape[axis] = -1
        mean, inv_std = outputs[1].reshape(bshape), outputs[2].reshape(bshape)
        normalised = (data - mean) * inv_std
        d_beta = grad.sum(axis=reduce_axes)
        grad_dot_norm = (grad * normalised).sum(axis=reduce_axes)
        d_gamma = xp.zeros_like(gamma) if p.fix_gamma else grad_dot_norm.astype(gamma.dtype)
        scale = inv_std if p.fix_gamma else inv_std * gamma.reshape(bshape)
        if self._uses_batch_stats(p, env):
            self._update_moving_stats(p, data, outputs[1], aux, reduce_axes, bshape)
            # mean and var depend on x too: the gradient loses its per-channel mean and its
            # projection on the normalised input
            count = data.size // data.shape[axis]
            d_data = scale * (grad - (d_beta.reshape(bshape) + normalised * grad_dot_norm.reshape(bshape)) / count)
        else:
            d_data = grad * scale
        return [d_data.astype(data.dtype, copy=False), d_gamma, d_beta.astype(gamma.dtype, copy=False)]

    @staticmethod
    def _update_moving_stats(p, data, mean, aux, reduce_axes, bshape):
        """moving = moving * momentum + batch_stat * (1 - momentum), in the caller's aux arrays.

        Runs in backward, as in MXNet 1.9.1 on CPU.  The batch variance is
        recomputed from the saved mean (the forward kept only 1/sqrt(var+eps)),
        which gives bit-for-bit the value the forward used.
        """
        work = data.astype(np.float32) if data.dtype == np.float16 else data
        var = ((work - mean.reshape(bshape)) ** 2).mean(axis=reduce_axes)
        moving_mean, moving_var = aux
        moving_mean *= p.momentum
        moving_mean += (1 - p.momentum) * mean.astype(moving_mean.dtype)
        moving_var *= p.momentum
        moving_var += (1 - p.momentum) * var.astype(moving_var.dtype)


# =====================================================================
# LeakyReLU family
# =====================================================================

# SELU's fixed constants (Klambauer et al., 2017)
