"""Metrics of the network's own output (Loss, Torch, Caffe) and of a user's function
(CustomMetric, and ``np``, which wraps a function of numpy arrays)."""

from ..ndarray import NDArray
from .metric import EvalMetric, register, check_label_shapes, _numpy, _num

__all__ = ['Loss', 'Torch', 'Caffe', 'CustomMetric', 'np']


# ------------------------------------------------------------------ losses and custom
@register
class Loss(EvalMetric):
    """The mean of the predictions themselves (for a network whose output is its loss)."""

    def __init__(self, name='loss', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, _, preds):
        if isinstance(preds, NDArray):
            preds = [preds]
        for pred in preds:
            pred = _numpy(pred)
            self._add(pred.sum(), pred.size)


@register
class Torch(Loss):
    """Loss under the name 'torch'."""

    def __init__(self, name='torch', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class Caffe(Loss):
    """Loss under the name 'caffe'."""

    def __init__(self, name='caffe', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class CustomMetric(EvalMetric):
    """A metric from a function ``feval(label, pred)`` of numpy arrays.

    ``feval`` returns either a number (one instance) or a ``(sum, count)`` tuple.  The name
    defaults to the function's name (``custom(<lambda>)`` for a lambda).  With
    ``allow_extra_outputs`` there may be more predictions than labels (RNN states).
    """

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None, label_names=None):
        if name is None:
            name = feval.__name__
            if '<' in name:
                name = 'custom(%s)' % name
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs,
                         output_names=output_names, label_names=label_names, has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            result = self._feval(_numpy(label), _numpy(pred))
            if isinstance(result, tuple):
                value, count = result
                self._add(value, _num(count))
            else:
                self._add(result, 1)

    def get_config(self):
        raise NotImplementedError('CustomMetric wraps a Python function and cannot be serialized')


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """A CustomMetric from a function of numpy arrays (usable as a decorator).

    >>> @mx.metric.np
    ... def mean_abs(label, pred):
    ...     return abs(label - pred).mean()
    >>> mean_abs.update([mx.nd.array([1, 2])], [mx.nd.array([1.5, 2])])
    >>> mean_abs.get()
    ('mean_abs', 0.25)
    """
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
