"""Normalization layers: BatchNorm, LayerNorm, InstanceNorm, GroupNorm.

Each standardises the data over some axes (subtract the mean, divide by
``sqrt(var + eps)``, var the biased divide-by-N variance) and then scales
and shifts it with learned ``gamma`` and ``beta``.  They differ in the axes
the statistics run over and the axis gamma and beta run along:

============  ==========================  ================================
operator      statistics over             gamma, beta of shape
============  ==========================  ================================
BatchNorm     every axis but ``axis``     (data.shape[axis],)
LayerNorm     ``axis`` only               (data.shape[axis],)
InstanceNorm  axes 2, 3, ... (per N, C)   (C,)
GroupNorm     each group of channels and  (num_groups,) -- one per group,
              axes 2, 3, ... (per N, G)   not per channel, in MXNet 1.9.1
============  ==========================  ================================

BatchNorm_v1, MXNet's older BatchNorm, is BatchNorm with the channel axis fixed at 1
(2-d and 4-d float32 data) that returns the variance rather than 1/sqrt(var + eps).

LRN and L2Normalization, which divide by a norm without centring, are in
normalize.py.
"""

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape, merge_dtype
from ..shapes import format_shape as _fmt_shape, prod as _prod
from .common import same_as_data, normalize_axis, shape_str
from ..base import ShapeError, ParamError, TypeInferError


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
    eliminable = False
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
        return [out] + self._stat_outputs(mean, var, inv_std)

    def _stat_outputs(self, mean, var, inv_std):
        """The second and third outputs: the mean used and 1/sqrt(var + eps)."""
        return [mean.copy(), inv_std]

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


@register
class BatchNormV1(BatchNorm):
    """MXNet's older BatchNorm: BatchNorm's computation, with the channel axis fixed at 1.

    ``out = (x - mean) / sqrt(var + eps) * gamma + beta`` per channel, as BatchNorm
    (above) computes it, with the same parameters bar ``axis``, ``cudnn_off`` and the
    calibration ranges, and the same auxiliary states (``moving_mean``, ``moving_var``,
    updated by backward; ``fix_gamma`` writes 1 into gamma).  It differs in:

    * data: 2-d (N, C) or 4-d (N, C, H, W) only, channels on axis 1.  MXNet 1.9.1 infers
      shapes for other ranks and then fails when it runs; reflib refuses them at once.
    * dtype: float32 only.  MXNet 1.9.1's kernel is float32-only (CPU and GPU): it infers
      float16 and float64 and then fails when it runs; reflib refuses them at once.
    * outputs: the third, ``var``, is the variance itself (BatchNorm returns
      ``1/sqrt(var + eps)`` there).  In inference, and with ``use_global_stats``, the mean
      and var returned are the moving statistics.
    * gradient: the chain rule through ``m = mean(x)`` and ``v = mean((x - m)**2)``,
      evaluated at the mean and var the forward returned.  After a training forward that
      is BatchNorm's gradient.  A backward after an *inference* forward (allowed, as in
      MXNet) evaluates it at the moving statistics, where ``sum(x - m)`` no longer
      vanishes, so it differs from BatchNorm's there (as MXNet 1.9.1's two operators do).
      The moving statistics then stay put (to rounding): they are updated with the values
      they hold.
      With ``use_global_stats`` the gradient is ``grad * gamma / sqrt(moving_var + eps)``.
    """
    name = 'BatchNorm_v1'
    params = {key: BatchNorm.params[key]
              for key in ('eps', 'momentum', 'fix_gamma', 'use_global_stats', 'output_mean_var')}

    def _axis(self, p, ndim):
        if ndim not in (2, 4):
            raise ShapeError('%s: input %r must be 2-d (batch, channel) or 4-d (batch, channel, height, '
                             'width), got %d-d (MXNet 1.9.1 fails on it too; BatchNorm takes any rank)'
                             % (self.name, 'data', ndim))
        return 1

    def infer_type(self, p, in_types, out_types, aux_types):
        data = in_types[0] if in_types[0] is not None else (out_types[0] if out_types else None)
        if data is not None and np.dtype(data) != np.float32:
            raise TypeInferError('%s: input %r must be float32, got %s (MXNet 1.9.1 computes it in float32 '
                                 'only and fails on other dtypes; BatchNorm takes them)'
                                 % (self.name, 'data', np.dtype(data).name))
        return super().infer_type(p, in_types, out_types, aux_types)

    def _stat_outputs(self, mean, var, inv_std):
        return [mean.copy(), var.copy()]       # the variance itself, not 1/sqrt(var + eps)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, data, gamma, grad = env.xp, inputs[0], inputs[1], out_grads[0]
        reduce_axes = (0,) if data.ndim == 2 else (0, 2, 3)
        bshape = (1, -1) + (1,) * (data.ndim - 2)
        mean, var = outputs[1], outputs[2]
        inv_std = (1 / xp.sqrt(var + p.eps)).astype(var.dtype)
        centred = data - mean.reshape(bshape)
        d_beta = grad.sum(axis=reduce_axes)
        d_gamma = (xp.zeros_like(gamma) if p.fix_gamma
                   else (grad * centred).sum(axis=reduce_axes) * inv_std)
        g_hat = grad if p.fix_gamma else grad * gamma.reshape(bshape)   # d loss / d normalised x
        if not self._uses_batch_stats(p, env):
            return [g_hat * inv_std.reshape(bshape), d_gamma, d_beta]
        self._update_moving_stats(p, aux, mean, var)
        count = data.size // data.shape[1]
        # through v = mean((x - m)**2): dv/dx = 2 (x - m) / count, dv/dm = -2 sum(x - m) / count;
        # through m = mean(x): dm/dx = 1 / count
        d_var = -0.5 * inv_std ** 3 * (g_hat * centred).sum(axis=reduce_axes)
        d_mean = -inv_std * g_hat.sum(axis=reduce_axes) - 2 * d_var * centred.sum(axis=reduce_axes) / count
        d_data = (g_hat * inv_std.reshape(bshape) + centred * (2 * d_var / count).reshape(bshape)
                  + (d_mean / count).reshape(bshape))
        return [d_data.astype(data.dtype, copy=False), d_gamma, d_beta]

    @staticmethod
    def _update_moving_stats(p, aux, mean, var):
        """moving = moving * momentum + stat * (1 - momentum) with the mean and var forward
        returned, the momentum a float32 as in MXNet."""
        momentum = np.float32(p.momentum)
        for moving, stat in zip(aux, (mean, var)):
            moving *= momentum
            moving += stat * (np.float32(1) - momentum)


@register
class SyncBatchNorm(BatchNorm):
    """contrib's SyncBatchNorm: BatchNorm over channel axis 1 whose batch statistics would
    be those of the whole batch across ``ndev`` devices, meeting under ``key``.

    With one device (``ndev=1``, the default) it computes BatchNorm's numbers, as in MXNet,
    except that its third output (``output_mean_var``) is the variance itself where
    BatchNorm gives ``1/sqrt(var + eps)``, as MXNet's SyncBatchNorm does.  reflib
    runs a model's devices one after another, so while one device's forward runs the other
    devices' halves of the batch have not been seen: ``ndev > 1`` is refused at bind time
    rather than computed with the wrong statistics."""
    name = '_contrib_SyncBatchNorm'
    params = dict({key: BatchNorm.params[key]
                   for key in ('eps', 'momentum', 'fix_gamma', 'use_global_stats', 'output_mean_var')},
                  ndev=Param('int', 1, doc='how many devices share the statistics', low=1),
                  key=Param('str', doc='the name the devices meet under'))

    def _stat_outputs(self, mean, var, inv_std):
        return [mean.copy(), var.copy()]       # the variance itself, as MXNet's SyncBatchNorm gives

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        # BatchNorm's backward reads 1/sqrt(var + eps), computed again as forward computed it
        inv_std = (1 / env.xp.sqrt(outputs[2] + p.eps)).astype(outputs[1].dtype)
        return super().backward(p, env, out_grads, inputs, [outputs[0], outputs[1], inv_std], aux)

    def _axis(self, p, ndim):
        if p.ndev != 1:
            raise ParamError('%s: ndev=%d: reflib runs the devices of a model one after another, so '
                             'statistics across devices are not available; use ndev=1 (BatchNorm per '
                             'device)' % (self.name, p.ndev))
        return 1


# =====================================================================
# LayerNorm, InstanceNorm, GroupNorm: statistics per sample
# =====================================================================

def _standardize(xp, x, axes, eps):
    """``x`` standardised over ``axes``: ``(xhat, mean, std)``, mean and std with kept dims."""
    mean = x.mean(axis=axes, keepdims=True)
    centred = x - mean
    std = xp.sqrt((centred * centred).mean(axis=axes, keepdims=True) + x.dtype.type(eps))
    return centred / std, mean, std


def _standardize_grad(g_hat, xhat, std, axes):
    """The gradient of x from that of ``xhat = (x - mean) / std``, the statistics taken over ``axes``.

    mean and std depend on x too, so the gradient loses its mean over ``axes`` and its
    projection on xhat.
    """
    return (g_hat - g_hat.mean(axis=axes, keepdims=True)
            - xhat * (g_hat * xhat).mean(axis=axes, keepdims=True)) / std


class _PerSampleNorm(Operator):
    """Shared by LayerNorm, InstanceNorm and GroupNorm.

    A subclass says, through ``_layout``, how to see the data so that the
    statistics run over ``axes`` of that view and gamma and beta along its axis
    ``gamma_axis``.  Outputs: the result, then the mean and the standard
    deviation ``sqrt(var + eps)`` it used (shown with ``output_mean_var``,
    otherwise kept for backward).  Head gradients of mean and std are ignored,
    as in MXNet 1.9.1.
    """
    min_ndim = 1

    def inputs(self, p):
        return ['data', 'gamma', 'beta']

    def outputs(self, p):
        return ['output', 'mean', 'std']

    def visible_outputs(self, p):
        return 3 if getattr(p, 'output_mean_var', False) else 1

    def _layout(self, p, shape):
        """``(view shape, statistics axes, gamma axis, statistics shape)`` for data of ``shape``."""
        raise NotImplementedError

    def _param_shape(self, p, shape):
        view, _, gamma_axis, _ = self._layout(p, shape)
        return (view[gamma_axis],)

    def _check_data(self, p, shape):
        if len(shape) < self.min_ndim:
            raise ShapeError('%s: input data must have at least %d dims, got shape %s'
                             % (self.name, self.min_ndim, shape_str(shape)))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = same_as_data(in_shapes, out_shapes[:1], '%s: input data' % self.name)
        param = stat = None
        if data is not None:
            self._check_data(p, data)
            param = self._param_shape(p, data)
            stat = self._layout(p, data)[3]
        params = [merge_shape(s, param, '%s: input %s' % (self.name, n))
                  for s, n in zip(in_shapes[1:], ('gamma', 'beta'))]
        stats = [merge_shape(s, stat, '%s: output %s' % (self.name, n))
                 for s, n in zip(out_shapes[1:], self.outputs(p)[1:])]
        return [data] + params, [data] + stats, aux_shapes

    def _views(self, p, data, gamma, beta):
        """The data's view, the statistics axes and gamma, beta shaped to broadcast against it."""
        self._check_data(p, data.shape)
        want = self._param_shape(p, data.shape)
        for arr, name in ((gamma, 'gamma'), (beta, 'beta')):
            if tuple(arr.shape) != want:
                raise ShapeError('%s: %r must have shape %s for data %s, got %s'
                                 % (self.name, name, shape_str(want), shape_str(data.shape),
                                    shape_str(arr.shape)))
        view, axes, gamma_axis, _ = self._layout(p, data.shape)
        bshape = [1] * len(view)
        bshape[gamma_axis] = -1
        return data.reshape(view), axes, gamma.reshape(bshape), beta.reshape(bshape)

    def forward(self, p, env, inputs, aux):
        data = inputs[0]
        x, axes, gamma, beta = self._views(p, data, inputs[1], inputs[2])
        xhat, mean, std = _standardize(env.xp, x, axes, p.eps)
        out = (xhat * gamma + beta).reshape(data.shape)
        stat = self._layout(p, data.shape)[3]
        return [out, mean.reshape(stat), std.reshape(stat)]

    def backward_reads(self, p):
        return [0, 1], [1, 2]            # data and gamma; the mean and std forward used

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        data, gamma_in = inputs[0], inputs[1]
        x, axes, gamma, _ = self._views(p, data, gamma_in, inputs[2])
        kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        mean, std = outputs[1].reshape(kept), outputs[2].reshape(kept)
        xhat = (x - mean) / std
        g = out_grads[0].reshape(x.shape)
        gamma_axis = self._layout(p, data.shape)[2]
        others = tuple(i for i in range(x.ndim) if i != gamma_axis)
        # summed over every sample: a float32 sum down a long axis drifts by ~1e-4 (numpy adds
        # strided values one by one), so the sum runs in float64, as MXNet's safe accumulation
        wide = np.float64 if g.dtype in (np.float16, np.float32) else None
        d_gamma = (g * xhat).sum(axis=others, dtype=wide).astype(g.dtype, copy=False).reshape(gamma_in.shape)
        d_beta = g.sum(axis=others, dtype=wide).astype(g.dtype, copy=False).reshape(gamma_in.shape)
        d_data = _standardize_grad(g * gamma, xhat, std, axes).reshape(data.shape)
        return [d_data, d_gamma, d_beta]



@register
class LayerNorm(_PerSampleNorm):
    """Standardise along one axis (the features of each sample), then scale and shift.

    ``out = (x - mean) / sqrt(var + eps) * gamma + beta`` with mean and var taken
    along ``axis`` alone and gamma, beta of length ``data.shape[axis]``.  With
    ``output_mean_var`` the mean and std come out too, shaped like the data with
    ``axis`` reduced to 1.
    """
    name = 'LayerNorm'
    params = {
        'axis': Param('int', -1, doc='the axis the statistics run along'),
        'eps': Param('float', 1e-5, doc='added to the variance before the square root'),
        'output_mean_var': Param('bool', False, doc='also return the mean and std'),
    }

    def _layout(self, p, shape):
        axis = normalize_axis(self.name, 'axis', p.axis, len(shape))
        stat = tuple(1 if i == axis else d for i, d in enumerate(shape))
        return tuple(shape), (axis,), axis, stat


@register
class InstanceNorm(_PerSampleNorm):
    """Standardise each channel of each sample over its spatial positions, then scale and shift.

    Data is (N, C, d1, d2, ...) with at least 3 dims; gamma and beta have length C.
    """
    eliminable = False
    name = 'InstanceNorm'
    min_ndim = 3
    params = {'eps': Param('float', 1e-3, doc='added to the variance before the square root')}

    def _layout(self, p, shape):
        n, c = shape[0], shape[1]
        return (n, c, _prod(shape[2:])), (2,), 1, (n, c)


@register
class GroupNorm(_PerSampleNorm):
    """Standardise each group of channels of each sample, then scale and shift per group.

    Data is (N, C, d1, ...) with at least 3 dims and C a multiple of ``num_groups``;
    the C / num_groups channels of a group and all their positions share one mean and
    std.  In MXNet 1.9.1 gamma and beta have one value per *group*: shape
    (num_groups,).  With ``output_mean_var`` the mean and std come out as (N, num_groups).
    """
    name = 'GroupNorm'
    min_ndim = 3
    params = {
        'num_groups': Param('int', 1, doc='how many groups the channels are split into', low=1),
        'eps': Param('float', 1e-5, doc='added to the variance before the square root'),
        'output_mean_var': Param('bool', False, doc='also return the mean and std'),
    }

    def _check_data(self, p, shape):
        super()._check_data(p, shape)
        if shape[1] and shape[1] % p.num_groups:
            raise ShapeError('%s: the %d channels of data %s do not split into num_groups=%d groups'
                             % (self.name, shape[1], shape_str(shape), p.num_groups))

    def _layout(self, p, shape):
        n, g = shape[0], p.num_groups
        rest = _prod(shape[1:]) // g
        return (n, g, rest), (2,), 1, (n, g)
