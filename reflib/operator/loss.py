"""Loss heads: operators whose backward makes its own head gradient.

A loss head's forward returns a *prediction* (SoftmaxOutput returns the
softmax probabilities, not the loss) while its backward returns the gradient
of the matching loss with respect to its data input.  That is why
``executor.backward()`` needs no ``out_grads`` for a network ending in one
(``is_loss = True``: backward never reads ``out_grads``).  The label input
gets no gradient.

By default the gradient is *not* divided by the batch size: Module sets the
optimizer's ``rescale_grad = 1/batch_size`` for that.

=========================  ==============  =====================================
operator                   forward         data gradient (times grad_scale / D)
=========================  ==============  =====================================
SoftmaxOutput              softmax         ``softmax - onehot(label)``
LinearRegressionOutput     identity        ``out - label``        (squared error / 2)
LogisticRegressionOutput   sigmoid         ``out - label``        (binary cross-entropy)
MAERegressionOutput        identity        ``+1 if out > label else -1``  (absolute error)
MakeLoss                   identity        ``1``                  (the data *is* the loss)
make_loss                  identity        ``1``                  (MakeLoss without parameters)
SVMOutput                  identity        (squared) hinge loss, see the class (D = 1)
=========================  ==============  =====================================

For the three regression heads D is the number of label elements per sample,
``label.size / label.shape[0]``: the loss is averaged over each sample's
outputs.  SoftmaxOutput's and MakeLoss's divisors depend on ``normalization``
(see each class).

softmax_cross_entropy, last in this file, is not a head: it outputs the loss
value itself and its backward uses the head gradient like any operator.
"""

import numpy as np

from .registry import Operator, Param, register
from ..shapes import merge_shape
from ..shapes import prod as _prod, format_shape as _fmt
from .common import any_true, to_host, rounded_once
from ..base import ShapeError, MXNetError

_NORMALIZATION = ('null', 'batch', 'valid')


def _scalar(value, like):
    """``value`` as a scalar of ``like``'s dtype, so float32 arithmetic stays float32."""
    return like.dtype.type(value)


def _softmax(xp, x, axis):
    e = rounded_once(xp, xp.exp, x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _per_valid(xp, scale, valid, dtype):
    """``scale / max(count of valid, 1)`` as a 0-d array of ``dtype``, on the data's device.

    Divided in float64 and rounded once, as a Python float would be; kept on the device
    because reading the count back would make the host wait for the GPU on every backward.
    """
    count = xp.maximum(valid.sum(), 1).astype(np.float64)
    return (scale / count).astype(dtype)


def _class_index(label):
    """Labels as integer class indices, truncated toward zero (1.7 -> 1, -0.5 -> 0) like a C cast."""
    return label.astype(np.int64)


# ====================================================================== softmax
def _data_drives_type(in_types, out_types, aux_types):
    """Loss heads: the data's dtype fixes the output's and an unknown label's, never the reverse.

    MXNet infers nothing from a label alone (a float16 label does not make the
    network float16), so neither does reflib.
    """
    data = in_types[0] if in_types[0] is not None else out_types[0]
    if data is None:
        return list(in_types), list(out_types), list(aux_types)
    return [data] + [t if t is not None else data for t in in_types[1:]], [data] * len(out_types), list(aux_types)


@register
class SoftmaxOutput(Operator):
    """Softmax in forward; ``softmax - onehot(label)`` (scaled) in backward.

    Where the softmax runs and what the label looks like:

    ``multi_output``   data (N, C, d1, d2, ...): softmax over axis 1 at every
                       position; label (N, d1*d2*...) or (N, d1, d2, ...).
    ``preserve_shape`` softmax over the last axis; label = data.shape[:-1].
    neither            data seen as (N, everything else) and softmax over that
                       whole row; label = data.shape[:-1] too, but only its
                       first N values (in flat order) are used as the rows'
                       classes.  For 2-d data that is the usual (N,) label.

    A label with exactly the data's shape is taken as target probabilities in
    every mode: the gradient is ``(softmax - label) * grad_scale``, with no
    normalization, smoothing or ignoring.

    Class labels are floats truncated to integers; a class outside [0, C)
    simply subtracts nothing.  The gradient is then multiplied by::

        normalization  multi_output                 otherwise
        'null'         grad_scale / S               grad_scale
        'batch'        grad_scale / (S * N)         grad_scale / label.size
        'valid'        grad_scale / n_valid         grad_scale / n_valid

    where S = d1*d2*... (number of positions per sample) and n_valid counts
    the labels whose integer part differs from ``int(ignore_label)`` (counted
    even when ``use_ignore`` is off; at least 1).  With ``use_ignore`` the
    positions labelled ``ignore_label`` get zero gradient.  ``smooth_alpha``
    (not in multi_output mode) replaces the one-hot target by ``1 - alpha`` on
    the true class and ``alpha / (C - 1)`` on every other class.

    ``out_grad=True``: MXNet 1.9.1 is meant to multiply the gradient by the
    incoming head gradient, but its graph hands the operator its own output
    in that slot, so the gradient ends up multiplied by the softmax output.
    reflib reproduces that, so the numbers match.
    """
    name = 'SoftmaxOutput'
    aliases = ('Softmax',)
    is_loss = True

    def infer_type(self, p, in_types, out_types, aux_types):
        return _data_drives_type(in_types, out_types, aux_types)
    params = {
        'grad_scale': Param('float', 1.0, doc='multiply the gradient by this'),
        'ignore_label': Param('float', -1.0, doc='label value whose positions get no gradient '
                                                 '(with use_ignore) and are not counted as valid'),
        'multi_output': Param('bool', False, doc='softmax over axis 1 at every position of the other axes'),
        'use_ignore': Param('bool', False, doc='zero the gradient where label == ignore_label'),
        'preserve_shape': Param('bool', False, doc='softmax over the last axis'),
        'normalization': Param('enum', 'null', choices=_NORMALIZATION,
                               doc='what divides the gradient: see the class docstring'),
        'out_grad': Param('bool', False, doc='multiply the gradient by the head gradient '
                                             '(in MXNet 1.9.1: by the output)'),
        'smooth_alpha': Param('float', 0.0, doc='label smoothing: mass moved off the true class', low=0, high=1),
    }

    def inputs(self, p):
        return ['data', 'label']

    # ------------------------------------------------------------ shapes
    def _label_shapes(self, p, data):
        """The label shapes that fit ``data``; the first is the one inferred."""
        if p.multi_output:
            spatial = tuple(data[2:])
            return [(data[0], _prod(spatial)), (data[0],) + spatial, tuple(data)]
        return [tuple(data[:-1]), tuple(data)]

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], self.name)
        label = in_shapes[1]
        if data is not None:
            candidates = self._label_shapes(p, data)
            if label is None:
                label = candidates[0]
            else:
                for want in candidates:
                    if len(want) == len(label) and all(not a or not b or a == b for a, b in zip(want, label)):
                        label = merge_shape(label, want, self.name)
                        break
                else:
                    raise ShapeError("%s: input 'label' has shape %s, but data %s needs %s"
                                     % (self.name, _fmt(label), _fmt(data),
                                        ' or '.join(_fmt(c) for c in candidates)))
        return [data, label], [data], aux_shapes

    # ------------------------------------------------------- computation
    def _rows(self, p, x):
        """data as a 2-d (rows, classes) array for the non-multi_output modes."""
        if p.preserve_shape:
            return x.reshape(-1, x.shape[-1])
        return x.reshape(x.shape[0], -1)

    def forward(self, p, env, inputs, aux):
        x = inputs[0]
        if p.multi_output:
            return [_softmax(env.xp, x, 1)]
        return [_softmax(env.xp, self._rows(p, x), 1).reshape(x.shape)]

    def backward_reads(self, p):
        return [1], [0]                    # the label and the probabilities

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp = env.xp
        prob, label = outputs[0], inputs[1]
        if label.shape == prob.shape:
            # target probabilities given directly
            grad = (prob - label.astype(prob.dtype)) * _scalar(p.grad_scale, prob)
        else:
            classes = _class_index(label)
            ignore = int(p.ignore_label)
            if p.multi_output:
                grad, scale = self._multi_grad(p, xp, prob, classes, ignore)
            else:
                grad, scale = self._rows_grad(p, xp, prob, classes, ignore)
            if p.normalization == 'valid':
                scale = _per_valid(xp, p.grad_scale, classes != ignore, prob.dtype)
            else:
                scale = _scalar(scale, prob)
            grad = grad * scale
        grad = grad.reshape(prob.shape)
        if p.out_grad:
            grad = grad * prob  # MXNet 1.9.1 feeds the output where the head gradient should be
        return [grad, None]

    def _multi_grad(self, p, xp, prob, classes, ignore):
        n, c = prob.shape[0], prob.shape[1]
        probs = prob.reshape(n, c, -1)
        s = probs.shape[2]
        cls = classes.reshape(n, 1, s)
        target = (cls == xp.arange(c).reshape(1, c, 1)).astype(prob.dtype)
        grad = probs - target
        if p.use_ignore:
            grad = grad * (cls != ignore)
        scale = p.grad_scale / s
        if p.normalization == 'batch':
            scale /= n
        return grad, scale

    def _rows_grad(self, p, xp, prob, classes, ignore):
        probs = self._rows(p, prob)
        rows, k = probs.shape
        cls = classes.reshape(-1)[:rows].reshape(rows, 1)
        target = (cls == xp.arange(k).reshape(1, k)).astype(prob.dtype)
        if p.smooth_alpha and k > 1:
            alpha = p.smooth_alpha
            target = target * _scalar(1 - alpha, prob) + (1 - target) * _scalar(alpha / (k - 1), prob)
        grad = probs - target
        if p.use_ignore:
            grad = grad * (cls != ignore)
        scale = p.grad_scale
        if p.normalization == 'batch':
            scale /= classes.size
        return grad, scale


# =================================================================== regression
class _Regression(Operator):
    """Shared by the regression heads: label has the data's size, one gradient formula."""
    is_loss = True

    def infer_type(self, p, in_types, out_types, aux_types):
        return _data_drives_type(in_types, out_types, aux_types)
    params = {'grad_scale': Param('float', 1.0, doc='multiply the gradient by this')}

    def inputs(self, p):
        return ['data', 'label']

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], self.name)
        label = in_shapes[1]
        if data is not None:
            if label is None:
                # (N, 1) data gets an (N,) label, anything else a label of its own shape
                label = (data[0],) if len(data) == 2 and data[1] == 1 else tuple(data)
            elif len(label) == len(data) and all(not a or not b or a == b for a, b in zip(label, data)):
                label = merge_shape(label, data, self.name)
            else:
                # any label with the same first dim and the same number of elements fits
                first_ok = not (label and data and label[0] and data[0] and label[0] != data[0])
                sizes_ok = not (all(label) and all(data)) or _prod(label) == _prod(data)
                if not label or not first_ok or not sizes_ok:
                    raise ShapeError("%s: input 'label' has shape %s, which does not fit data %s "
                                     "(needs the same first dim and the same size)"
                                     % (self.name, _fmt(label), _fmt(data)))
        return [data, label], [data], aux_shapes

    def _diff_grad(self, xp, diff):
        """d(loss)/d(out) per element from ``out - label``."""
        return diff

    def backward_reads(self, p):
        return [1], [0]                    # the label and the output

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        out, label = outputs[0], inputs[1]
        per_sample = label.size // label.shape[0] if label.ndim else 1
        diff = out - label.reshape(out.shape).astype(out.dtype)
        grad = self._diff_grad(env.xp, diff) * _scalar(p.grad_scale / per_sample, out)
        return [grad, None]


@register
class LinearRegressionOutput(_Regression):
    """Identity forward; gradient of the squared error ``(out - label)^2 / 2``."""
    name = 'LinearRegressionOutput'

    def forward(self, p, env, inputs, aux):
        return [inputs[0].copy()]


@register
class LogisticRegressionOutput(_Regression):
    """Sigmoid forward; gradient of the binary cross-entropy, which is ``sigmoid - label``."""
    name = 'LogisticRegressionOutput'

    def forward(self, p, env, inputs, aux):
        xp, x = env.xp, inputs[0]
        e = rounded_once(xp, xp.exp, -xp.abs(x))  # never overflows
        one = _scalar(1, x)
        return [xp.where(x >= 0, one / (one + e), e / (one + e))]


@register
class MAERegressionOutput(_Regression):
    """Identity forward; gradient of ``|out - label|``.  A tie counts as -1, as in MXNet."""
    name = 'MAERegressionOutput'

    def forward(self, p, env, inputs, aux):
        return [inputs[0].copy()]

    def _diff_grad(self, xp, diff):
        return (diff > 0).astype(diff.dtype) * 2 - 1


# ===================================================================== MakeLoss
@register
class MakeLoss(Operator):
    """Marks its input as a loss: identity forward, constant gradient.

    The gradient of every element is ``grad_scale / D`` with D chosen by
    ``normalization``: 'null' 1; 'batch' the number of rows when the data is
    seen as 2-d with its last axis as columns (``prod(shape[:-1])``, so 3 for
    (3, 4) and 6 for (2, 3, 4)); 'valid' the number of elements greater than
    ``valid_thresh`` (at least 1).
    """
    eliminable = False
    name = 'MakeLoss'
    is_loss = True
    params = {
        'grad_scale': Param('float', 1.0, doc='the gradient of every element'),
        'valid_thresh': Param('float', 0.0, doc="elements above this count as valid (normalization='valid')"),
        'normalization': Param('enum', 'null', choices=_NORMALIZATION,
                               doc='divide the gradient by 1, the number of rows, or the valid count'),
    }

    def forward(self, p, env, inputs, aux):
        return [inputs[0].copy()]

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x = inputs[0]
        scale = p.grad_scale
        if p.normalization == 'batch':
            scale /= _prod(x.shape[:-1])
        elif p.normalization == 'valid':
            scale = _per_valid(env.xp, scale, x > _scalar(p.valid_thresh, x), x.dtype)
        target = env.grad_target(0)
        if target is None:
            target = env.xp.empty(x.shape, dtype=x.dtype)
        target[...] = scale
        return [target]


@register
class MakeLossPlain(Operator):
    """``make_loss``: MXNet 1.9.1's second, parameterless loss marker, a separate operator
    (its own name in a symbol's JSON, its output named ``loss`` where MakeLoss's is
    ``output``).  Identity forward; the gradient of every element is 1 whatever the head
    gradient, in the data's dtype.  MXNet keeps keyword arguments it does not know
    (``grad_scale=2``) as node attributes and ignores them; reflib refuses them, since
    MakeLoss is the operator that has them.

    >>> import reflib as mx
    >>> mx.sym.make_loss(mx.sym.Variable('x'), name='l').list_outputs()
    ['l_loss']
    """
    name = 'make_loss'
    is_loss = True

    def outputs(self, p):
        return ['loss']

    def forward(self, p, env, inputs, aux):
        return [inputs[0].copy()]

    def backward_reads(self, p):
        return [], []                      # the gradient is ones: no value is read

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        x = inputs[0]
        target = env.grad_target(0)
        if target is None:
            return [env.xp.ones(x.shape, dtype=x.dtype)]
        target.fill(1)
        return [target]


# ==================================================================== SVMOutput
@register
class SVMOutput(Operator):
    """Identity forward; the gradient of a one-vs-rest hinge loss in backward.

    Data is seen as rows of class scores along its last axis, the label as one
    class per row (label shape ``data.shape[:-1]``, floats truncated to ints).
    With m the margin and c the regularization coefficient, each score x gets::

                       true class                other classes
        L2 (default)   -2 c max(m - x, 0)        2 c max(m + x, 0)
        use_linear     -c  [m > x]                c  [m > -x]

    the gradients of ``c max(m -/+ x, 0) ** 2`` and ``c max(m -/+ x, 0)``.
    A label outside [0, classes) makes every score of its row an "other
    class".  Nothing is divided by the batch size and the head gradient is
    ignored (a loss head), as in MXNet 1.9.1.
    """
    eliminable = False
    name = 'SVMOutput'
    is_loss = True
    params = {
        'margin': Param('float', 1.0, doc='scores closer than this to the wrong side are penalised'),
        'regularization_coefficient': Param('float', 1.0, doc='multiplies the gradient'),
        'use_linear': Param('bool', False, doc='hinge loss (L1-SVM) instead of squared hinge (L2-SVM)'),
    }

    def inputs(self, p):
        return ['data', 'label']

    def infer_type(self, p, in_types, out_types, aux_types):
        return _data_drives_type(in_types, out_types, aux_types)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data = merge_shape(in_shapes[0], out_shapes[0], self.name)
        label = in_shapes[1]
        if data is not None:
            want = tuple(data[:-1])
            if label is not None and (len(label) != len(want)
                                      or any(a and b and a != b for a, b in zip(label, want))):
                raise ShapeError("%s: input 'label' has shape %s, but data %s needs %s (one class per row)"
                                 % (self.name, _fmt(label), _fmt(data), _fmt(want)))
            label = merge_shape(label, want, self.name)
        return [data, label], [data], aux_shapes

    def forward(self, p, env, inputs, aux):
        return [inputs[0].copy()]

    def backward_reads(self, p):
        return [1], [0]                    # the label and the output (the scores)

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x, label = env.xp, outputs[0], inputs[1]
        k = x.shape[-1]
        true = _class_index(label).reshape(label.shape + (1,)) == xp.arange(k)
        margin, coef = _scalar(p.margin, x), _scalar(p.regularization_coefficient, x)
        zero = _scalar(0, x)
        if p.use_linear:
            grad = xp.where(true, -(margin > x).astype(x.dtype), (margin > -x).astype(x.dtype))
        else:
            grad = xp.where(true, -2 * xp.maximum(margin - x, zero), 2 * xp.maximum(margin + x, zero))
        return [grad * coef, None]


# ======================================================== softmax_cross_entropy
@register
class SoftmaxCrossEntropy(Operator):
    """The summed cross-entropy of the rows' softmax and their class labels, as shape (1,).

    ``out = -sum_i log(softmax(data[i])[label[i]])`` for 2-d data (N, C) and a
    1-d label (N,) of class indices.  Not a loss head: the gradient is the head
    gradient times ``softmax(data) - onehot(label)``.  MXNet cannot
    differentiate the label and reads out of bounds for a label outside
    [0, C); reflib gives the label no gradient and refuses such labels.
    MXNet also needs the label's shape given; reflib infers (N,) from data.
    """
    name = 'softmax_cross_entropy'

    def inputs(self, p):
        return ['data', 'label']

    def infer_type(self, p, in_types, out_types, aux_types):
        return _data_drives_type(in_types, out_types, aux_types)

    def infer_shape(self, p, in_shapes, out_shapes, aux_shapes):
        data, label = in_shapes
        if data is not None and len(data) != 2:
            raise ShapeError("%s: input 'data' must be 2-d (batch, classes), got shape %s" % (self.name, _fmt(data)))
        if label is not None and len(label) != 1:
            raise ShapeError("%s: input 'label' must be 1-d (batch,), got shape %s" % (self.name, _fmt(label)))
        if data is not None:
            label = merge_shape(label, data[:1], "%s: input 'label' (one class per row of data %s)"
                                % (self.name, _fmt(data)))
        out = merge_shape(out_shapes[0], (1,), '%s: output' % self.name)
        return [data, label], [out], aux_shapes

    def _log_softmax(self, xp, x):
        shifted = x - x.max(axis=1, keepdims=True)
        return shifted - rounded_once(xp, xp.log, rounded_once(xp, xp.exp, shifted).sum(axis=1, keepdims=True))

    def forward(self, p, env, inputs, aux):
        xp, x, label = env.xp, inputs[0], inputs[1]
        if x.ndim != 2 or label.shape != x.shape[:1]:
            raise ShapeError("%s: needs data (batch, classes) and label (batch,), got %s and %s"
                             % (self.name, _fmt(x.shape), _fmt(label.shape)))
        classes = _class_index(label)
        if any_true((classes < 0) | (classes >= x.shape[1])):
            raise MXNetError('%s: every label must be a class index in [0, %d), got %s'
                             % (self.name, x.shape[1], to_host(label)))
        picked = self._log_softmax(xp, x)[xp.arange(x.shape[0]), classes]
        return [-picked.sum(keepdims=True).reshape(1)]

    def backward_reads(self, p):
        return [0, 1], []

    def backward(self, p, env, out_grads, inputs, outputs, aux):
        xp, x, label = env.xp, inputs[0], inputs[1]
        target = _class_index(label).reshape(-1, 1) == xp.arange(x.shape[1])
        grad = rounded_once(xp, xp.exp, self._log_softmax(xp, x)) - target.astype(x.dtype)
        return [grad * out_grads[0].reshape(1, 1), None]
