"""SoftmaxActivation: MXNet's older softmax layer, kept for old symbol files.

(``softmax`` in softmax.py is the general one; ``Softmax`` is an old name of
SoftmaxOutput, in loss.py.)

``mode='channel'``: softmax over axis 1 at every position of the other axes;
data needs at least 3 dims.

``mode='instance'`` (the default): MXNet 1.9.1 computes the softmax over the
*last* axis, and its backward then uses the softmax gradient along axis 1::

    dx = y * (g - sum(g * y, axis=1))

For 2-d data (N, C) the two axes are one and the gradient is the true one.
For data with more dims the gradient is not that of the forward; reflib
reproduces MXNet's numbers.  (For 1-d data, where MXNet's backward fails,
reflib uses the true gradient along axis 0.)
"""

from .registry import Operator, Param, register
from .common import same_as_data, shape_str, rounded_once
from ..base import ShapeError


@register
class SoftmaxActivation(Operator):
    """Softmax over the last axis ('instance') or over axis 1 ('channel'); see the module doc."""
    name = 'SoftmaxActivation'
    unnamed_inputs = True      # the monitor reports its input as <name>_input0, as MXNet
    params = {
        'mode': Param('enum', 'instance', choices=('channel', 'instance'),
                      doc="'instance': over the last axis; 'channel': over axis 1"),
    }

    def _check(self, p, shape):
        if p.mode == 'channel' and len(shape) < 3:
            raise ShapeError("%s: mode='channel' needs input 'data' with at least 3 dims, got shape %s"
                             % (self.name, shape_str(shape)))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = same_as_data(in_shapes, out_shapes, '%s: input data' % self.name)
        if data is not None:
            self._check(p, data)
        return [data], [data], aux_shapes

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        self._check(p, x.shape)
        axis = 1 if p.mode == 'channel' else x.ndim - 1
        e = rounded_once(xp, xp.exp, x - x.max(axis=axis, keepdims=True))
        return [e / e.sum(axis=axis, keepdims=True)]

    def backward_reads(self, p):
        return [], [0]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        y, g = outputs[0], out_grads[0]
        axis = 1 if y.ndim > 1 else 0            # MXNet's backward: along axis 1 in both modes
        return [y * (g - (g * y).sum(axis=axis, keepdims=True))]
