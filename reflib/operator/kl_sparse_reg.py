"""IdentityAttachKLSparseReg: an identity whose gradient pushes mean activations toward a target.

The regulariser of sparse autoencoders: the activations of each unit (each
column of the 2-d data, values in (0, 1) such as a sigmoid's) should average
to a small ``sparseness_target`` t.  Forward is the identity.  Backward keeps
a moving average ``avg`` of each unit's mean activation (the auxiliary state
``moving_avg``, starting at 0), updated *in backward*, then adds the gradient
of ``penalty * KL(t || avg)`` with respect to the activation::

    avg  = momentum * avg + (1 - momentum) * mean(data, axis=0)
    grad = head + penalty * (-t / avg + (1 - t) / (1 - avg))

as MXNet 1.9.1 does.  MXNet infers shapes for data of more dims but fails in
backward; reflib asks for 2-d data (N, units) up front.
"""

from .registry import Operator, Param, register
from ..shapes import merge_shape
from .common import same_as_data, fresh_copy, shape_str
from ..base import ShapeError


@register
class IdentityAttachKLSparseReg(Operator):
    """Identity forward; backward adds the KL sparseness penalty's gradient (see the module doc)."""
    eliminable = False
    name = 'IdentityAttachKLSparseReg'
    params = {
        'sparseness_target': Param('float', 0.1, doc='the mean activation each unit should have'),
        'penalty': Param('float', 0.001, doc='weight of the KL penalty'),
        'momentum': Param('float', 0.9, doc='decay of the moving average of the mean activations'),
    }

    def aux(self, p):
        return ['moving_avg']

    def aux_init(self, p):
        return {'moving_avg': 'zero'}

    def _check(self, shape):
        if len(shape) != 2:
            raise ShapeError("%s: input 'data' must be 2-d (batch, units), got shape %s"
                             % (self.name, shape_str(shape)))

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = same_as_data(in_shapes, out_shapes, '%s: input data' % self.name)
        aux = list(aux_shapes)
        if data is not None:
            self._check(data)
            aux = [merge_shape(aux_shapes[0], (data[1],), '%s: aux moving_avg' % self.name)]
        return [data], [data], aux

    def forward(self, p, env, inputs, aux):
        self._check(inputs[0].shape)
        return [fresh_copy(env.xp, inputs[0])]

    def backward_reads(self, p):
        return [0], []

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        data, avg = inputs[0], aux[0]
        avg *= avg.dtype.type(p.momentum)
        avg += avg.dtype.type(1 - p.momentum) * data.mean(axis=0).astype(avg.dtype, copy=False)
        t = data.dtype.type(p.sparseness_target)
        one = data.dtype.type(1)
        push = data.dtype.type(p.penalty) * (-t / avg + (one - t) / (one - avg))
        return [out_grads[0] + push.astype(data.dtype, copy=False)]
