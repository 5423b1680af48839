"""Neural-network layers: FullyConnected, Activation, ...

Each class is one operator: its parameters, shape rule, forward and backward.
"""

from .registry import Operator, Param, register, merge_shape
from ..base import ShapeError


def _prod(dims):
    out = 1
    for d in dims:
        out *= d
    return out


@register
class FullyConnected(Operator):
    """``out = data · weightᵀ + bias``.

    With ``flatten=True`` (default) data of shape (N, d1, d2, ...) is seen as
    (N, d1*d2*...); with ``flatten=False`` the product runs over the last axis
    only.  weight has shape (num_hidden, input_dim), bias (num_hidden,).
    """
    name = 'FullyConnected'
    params = {
        'num_hidden': Param('int', doc='number of output units'),
        'no_bias': Param('bool', False, doc='leave out the bias term'),
        'flatten': Param('bool', True, doc='flatten all but the first axis of data'),
    }

    def inputs(self, p):
        return ['data', 'weight'] if p.no_bias else ['data', 'weight', 'bias']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        weight = (p.num_hidden, 0)
        if data is not None:
            if p.flatten:
                in_dim = _prod(data[1:]) if all(data[1:]) else 0
                out = merge_shape(out, (data[0], p.num_hidden), self.name)
            else:
                in_dim = data[-1]
                out = merge_shape(out, tuple(data[:-1]) + (p.num_hidden,), self.name)
            weight = (p.num_hidden, in_dim)
        shapes = [data, weight] + ([] if p.no_bias else [(p.num_hidden,)])
        return shapes, [out], aux_shapes

    def _flat(self, p, data):
        return data.reshape(data.shape[0], -1) if p.flatten else data.reshape(-1, data.shape[-1])

    def forward(self, p, env, inputs, aux):
        data, weight = inputs[0], inputs[1]
        out = self._flat(p, data) @ weight.T
        if not p.no_bias:
            out += inputs[2]
        out_shape = (data.shape[0], p.num_hidden) if p.flatten else data.shape[:-1] + (p.num_hidden,)
        return [out.reshape(out_shape)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        data, weight = inputs[0], inputs[1]
        grad = out_grads[0].reshape(-1, p.num_hidden)
        flat = self._flat(p, data)
        grads = [(grad @ weight).reshape(data.shape), grad.T @ flat]
        if not p.no_bias:
            grads.append(grad.sum(axis=0))
        return grads


@register
class Activation(Operator):
    """Elementwise nonlinearity chosen by ``act_type``."""
    name = 'Activation'
    params = {'act_type': Param('enum', choices=('relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'),
                                doc='which function')}

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        if p.act_type == 'relu':
            return [xp.maximum(x, 0)]
        if p.act_type == 'sigmoid':
            return [1 / (1 + xp.exp(-x))]
        if p.act_type == 'tanh':
            return [xp.tanh(x)]
        if p.act_type == 'softrelu':
            return [xp.logaddexp(0, x).astype(x.dtype)]
        return [x / (1 + xp.abs(x))]  # softsign

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, g, x, y = env.xp, out_grads[0], inputs[0], outputs[0]
        if p.act_type == 'relu':
            return [g * (x > 0)]
        if p.act_type == 'sigmoid':
            return [g * y * (1 - y)]
        if p.act_type == 'tanh':
            return [g * (1 - y * y)]
        if p.act_type == 'softrelu':
            return [g * (1 - xp.exp(-y))]  # d/dx log(1+e^x) = sigmoid(x) = 1 - e^{-y}
        return [g / (1 + xp.abs(x)) ** 2]  # softsign
