"""Dividing by a norm of the input: LRN (across channels) and L2Normalization.

Unlike the layers in norm.py these neither centre the data nor learn a scale:
each value is divided by a quantity computed from its neighbourhood.

LRN, local response normalisation across channels (data (N, C, H, W))::

    out[n, c] = x[n, c] / (knorm + alpha / nsize * sum(x[n, c'] ** 2)) ** beta

the sum running over the channels c' with ``|c' - c| <= (nsize - 1) // 2``
that exist.  alpha is divided by ``nsize`` even where the window is cut by
the edge, and for an even ``nsize`` the window is one channel *narrower* than
nsize (nsize=4 sums 3 channels), as in MXNet 1.9.1.

L2Normalization: ``out = x / sqrt(sum(x ** 2) + eps)`` with the sum over

    instance   every axis but the first (each sample as one vector)
    channel    axis 1 (each position of each sample); data needs >= 3 dims
    spatial    axes 2, 3, ... (each channel of each sample); data needs >= 3 dims
"""

from .registry import Operator, Param, register
from ..shapes import merge_shape
from .common import same_as_data, shape_str
from ..base import ShapeError


def _channel_window_sum(xp, v, half):
    """``sum(v[:, c - half : c + half + 1])`` for every channel c, the window cut at the edges."""
    out = v.copy()
    channels = v.shape[1]
    for shift in range(1, min(half, channels - 1) + 1):
        out[:, shift:] += v[:, :channels - shift]
        out[:, :channels - shift] += v[:, shift:]
    return out


@register
class LRN(Operator):
    """Local response normalisation across channels (see the module docstring).

    The second output, the denominator's base ``knorm + alpha / nsize * sum``,
    is kept for backward.  MXNet infers a shape for data of any rank but only
    computes 4-d data; reflib refuses other ranks up front.  ``nsize=0``, which
    MXNet accepts and answers with zeros, is refused too.
    """
    name = 'LRN'
    params = {
        'alpha': Param('float', 1e-4, doc='scale of the sum of squares (divided by nsize)'),
        'beta': Param('float', 0.75, doc='power of the denominator'),
        'knorm': Param('float', 2.0, doc='added to the scaled sum of squares'),
        'nsize': Param('int', doc='width of the channel window', low=1),
    }

    def outputs(self, p):
        return ['output', 'tmp_norm']

    def visible_outputs(self, p):
        return 1

    def _check(self, shape):
        if len(shape) != 4:
            raise ShapeError("%s: input 'data' must be 4-d (N, C, H, W), got shape %s" % (self.name, shape_str(shape)))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = same_as_data(in_shapes, out_shapes, '%s: input data' % self.name)
        if data is not None:
            self._check(data)
        return [data], [data] * len(out_shapes), aux_shapes

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        self._check(x.shape)
        scale = x.dtype.type(p.alpha / p.nsize)
        base = _channel_window_sum(env.xp, x * x, (p.nsize - 1) // 2) * scale + x.dtype.type(p.knorm)
        return [x * base ** x.dtype.type(-p.beta), base]

    def backward_reads(self, p):
        return [0], [0, 1]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x, (out, base), g = inputs[0], outputs[:2], out_grads[0]
        # each x[c'] in a window enters base[c]: d out[c] / d x[c'] = -2 beta alpha/nsize out[c] / base[c] x[c']
        spread = _channel_window_sum(env.xp, g * out / base, (p.nsize - 1) // 2)
        coef = x.dtype.type(2 * p.beta * p.alpha / p.nsize)
        return [g * base ** x.dtype.type(-p.beta) - coef * x * spread]


_L2_MODES = ('channel', 'instance', 'spatial')


@register
class L2Normalization(Operator):
    """Divide by the L2 norm over the axes ``mode`` picks (see the module docstring).

    The second output, the norm ``sqrt(sum(x ** 2) + eps)`` with the summed axes
    kept as 1, is kept for backward.  For 1-d data in instance mode every element
    is its own sample: the result is ``x / sqrt(x ** 2 + eps)``, as in MXNet.
    """
    eliminable = False
    name = 'L2Normalization'
    params = {
        'eps': Param('float', 1e-10, doc='added to the sum of squares before the square root'),
        'mode': Param('enum', 'instance', choices=_L2_MODES, doc='which axes the norm runs over'),
    }

    def outputs(self, p):
        return ['output', 'norm']

    def visible_outputs(self, p):
        return 1

    def _axes(self, p, shape):
        ndim = len(shape)
        if p.mode != 'instance' and ndim < 3:
            raise ShapeError("%s: mode=%r needs input 'data' with at least 3 dims, got shape %s"
                             % (self.name, p.mode, shape_str(shape)))
        if p.mode == 'channel':
            return (1,)
        return tuple(range(1 if p.mode == 'instance' else 2, ndim))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = same_as_data(in_shapes, out_shapes[:1], '%s: input data' % self.name)
        outs = [data] + list(out_shapes[1:])
        if data is not None:
            axes = self._axes(p, data)
            norm = tuple(1 if i in axes else d for i, d in enumerate(data))
            outs[1:] = [merge_shape(s, norm, '%s: output norm' % self.name) for s in out_shapes[1:]]
        return [data], outs, aux_shapes

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        axes = self._axes(p, x.shape)
        norm = xp.sqrt((x * x).sum(axis=axes, keepdims=True) + x.dtype.type(p.eps))
        return [x / norm, norm]

    def backward_reads(self, p):
        return [], [0, 1]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        (out, norm), g = outputs[:2], out_grads[0]
        axes = self._axes(p, out.shape)
        return [(g - out * (g * out).sum(axis=axes, keepdims=True)) / norm]
