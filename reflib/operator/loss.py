"""Loss heads: operators whose backward makes its own head gradient.

A loss head's forward returns a prediction (SoftmaxOutput returns the softmax
probabilities, not the loss!) while its backward returns the gradient of the
matching loss with respect to its input.  That is why ``executor.backward()``
needs no ``out_grads`` for a network ending in one.  Note the gradient is
*not* divided by the batch size (unless ``normalization='batch'``): Module
sets the optimizer's ``rescale_grad = 1/batch_size`` for that.
"""

import numpy as np

from .registry import Operator, Param, register, merge_shape


def _softmax(xp, x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    e = xp.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


@register
class SoftmaxOutput(Operator):
    """Softmax in forward; ``softmax - onehot(label)`` (times grad_scale) in backward."""
    name = 'SoftmaxOutput'
    aliases = ('Softmax',)
    is_loss = True
    params = {
        'grad_scale': Param('float', 1.0, doc='multiply the gradient by this'),
        'ignore_label': Param('float', -1.0, doc='label value whose samples get no gradient (with use_ignore)'),
        'multi_output': Param('bool', False, doc='softmax over axis 1 for every position of the other axes'),
        'use_ignore': Param('bool', False, doc='zero the gradient where label == ignore_label'),
        'preserve_shape': Param('bool', False, doc='softmax over the last axis, keep the data shape'),
        'normalization': Param('enum', 'null', choices=('null', 'batch', 'valid'),
                               doc='divide the gradient by 1, the batch size, or the number of valid labels'),
        'out_grad': Param('bool', False, doc='multiply by the incoming head gradient (rarely used)'),
        'smooth_alpha': Param('float', 0.0, doc='label smoothing: move this much mass off the true class'),
    }

    def inputs(self, p):
        return ['data', 'label']

    def _label_shape(self, p, data):
        if p.multi_output:
            return (data[0],) + tuple(data[2:])
        if p.preserve_shape:
            return tuple(data[:-1])
        return (data[0],)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], self.name)
        label = in_shapes[1]
        if data is not None:
            label = merge_shape(label, self._label_shape(p, data), self.name + " input 'label'")
        return [data, label], [data], aux_shapes

    def _axis_view(self, p, x):
        """(array laid out so the class axis is 1 for softmax, a function to undo the layout)."""
        if p.multi_output or p.preserve_shape:
            return x, (1 if p.multi_output else x.ndim - 1)
        return x.reshape(x.shape[0], -1), 1

    def forward(self, p, env, inputs, aux):
        x, axis = self._axis_view(p, inputs[0])
        return [_softmax(env.xp, x, axis).reshape(inputs[0].shape)]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp = env.xp
        prob, axis = self._axis_view(p, outputs[0])
        label = inputs[1].astype(np.int64) if hasattr(inputs[1], 'astype') else inputs[1]
        num_class = prob.shape[axis]
        label_shape = prob.shape[:axis] + prob.shape[axis + 1:]
        label = label.reshape(label_shape)
        valid = xp.ones(label_shape, dtype=prob.dtype)
        if p.use_ignore:
            valid = (label != int(p.ignore_label)).astype(prob.dtype)
        target = xp.moveaxis(_onehot(xp, xp.clip(label, 0, num_class - 1), num_class, prob.dtype), -1, axis)
        if p.smooth_alpha:
            target = target * (1 - p.smooth_alpha) + (1 - target) * (p.smooth_alpha / (num_class - 1))
        grad = (prob - target) * xp.expand_dims(valid, axis)
        if p.out_grad and out_grads[0] is not None:
            grad = grad * out_grads[0].reshape(grad.shape)
        scale = p.grad_scale
        if p.normalization == 'batch':
            scale /= prob.shape[0]
        elif p.normalization == 'valid':
            scale /= max(float(valid.sum()), 1.0)
        grad = grad * np.asarray(scale, dtype=prob.dtype)
        return [grad.reshape(inputs[0].shape), xp.zeros_like(inputs[1])]


def _onehot(xp, labels, depth, dtype):
    eye = xp.eye(depth, dtype=dtype)
    return eye[labels]
