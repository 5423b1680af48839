"""The base class every metric derives from, the registry behind ``create``, and
CompositeEvalMetric (several metrics updated together).
"""

import json
import logging
from collections import OrderedDict

import numpy

from ..base import MXNetError, ShapeError, numeric_types
from ..registry import Registry
from ..ndarray import NDArray

_LOG = logging.getLogger('reflib.metric')

__all__ = ['EvalMetric', 'MetricError', 'check_label_shapes', 'register', 'alias', 'create',
           'CompositeEvalMetric']


class MetricError(MXNetError, ValueError):
    """A metric was misused: unknown name, missing output or label, unsupported data."""


def _numpy(x):
    """A numpy array from an NDArray (any device) or anything array-like."""
    return x.asnumpy() if isinstance(x, NDArray) else numpy.asarray(x)


def _num(x):
    """numpy scalars as Python numbers, so that running sums stay in double precision.

    (With numpy >= 2, ``0.0 + numpy.float32(x)`` is a float32; MXNet, on numpy 1.x, summed
    in float64.)
    """
    if isinstance(x, numpy.floating):
        return float(x)
    if isinstance(x, numpy.integer):
        return int(x)
    return x


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Raise if labels and predictions do not pair up; optionally wrap single arrays in lists.

    By default only the lengths are compared (the number of arrays, or of samples when
    given two arrays); ``shape=True`` compares the full shapes.
    """
    if shape:
        label_shape, pred_shape = labels.shape, preds.shape
    else:
        label_shape, pred_shape = len(labels), len(preds)
    if label_shape != pred_shape:
        raise ShapeError('labels and predictions do not match: %s %s of labels vs %s of predictions'
                         % ('shape' if shape else 'length', label_shape, pred_shape))
    if wrap:
        if isinstance(labels, NDArray):
            labels = [labels]
        if isinstance(preds, NDArray):
            preds = [preds]
    return labels, preds


# ------------------------------------------------------------------ base class
class EvalMetric:
    """Base class: running sums plus the get/reset protocol; subclasses implement ``update``.

    ``output_names`` / ``label_names`` select, by name, which predictions and labels
    ``update_dict`` passes on (all of them, in order, when None).
    """

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        # a plain EvalMetric subclass written by a user only updates the local sums:
        # then get_global() falls back to get()
        self._has_global_stats = kwargs.pop('has_global_stats', False)
        self._kwargs = kwargs          # constructor arguments, for get_config()
        self.reset()

    def __str__(self):
        return 'EvalMetric: {}'.format(dict(self.get_name_value()))

    def get_config(self):
        """The arguments that rebuild this metric with ``create(**config)``."""
        config = self._kwargs.copy()
        config.update({'metric': type(self).__name__, 'name': self.name,
                       'output_names': self.output_names, 'label_names': self.label_names})
        return config

    # ------------------------------------------------------------- feeding
    def update_dict(self, label, pred):
        """``update`` with ``{name: NDArray}`` dicts, picking ``label_names``/``output_names``."""
        self._batches = getattr(self, '_batches', 0) + 1       # fit calls this once per batch
        pred = _select(pred, self.output_names, 'output', self.name)
        label = _select(label, self.label_names, 'label', self.name)
        self.update(label, pred)

    def update(self, labels, preds):
        """Add one batch: ``labels`` and ``preds`` are lists of NDArrays, paired in order."""
        raise NotImplementedError('%s must implement update(labels, preds)' % type(self).__name__)

    def _add(self, value, count):
        """Add to both the local and the global running sums."""
        value = _num(value)
        if not numpy.all(numpy.isfinite(value)) and not getattr(self, '_said_nonfinite', False):
            # training on goes on silently to NaN: say once where it started
            self._said_nonfinite = True
            _LOG.warning('metric %r became %s at batch %d since its last reset (in fit: of this epoch): '
                         'the data, the labels or the weights of that batch are not finite (a learning '
                         'rate too large, or NaN/inf in the input)', self.name, value,
                         getattr(self, '_batches', 0) or 1)
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += count
        self.global_num_inst += count

    # ------------------------------------------------------------- resetting
    def reset(self):
        """Clear everything (local and global)."""
        self._batches = 0
        self._said_nonfinite = False
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        """Clear the local sums only; the global ones keep counting."""
        self.num_inst = 0
        self.sum_metric = 0.0

    # ------------------------------------------------------------- reading
    def get(self):
        """``(name, value)`` over what was seen since the last reset or reset_local."""
        if self.num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, _num(self.sum_metric / self.num_inst))

    def get_global(self):
        """``(name, value)`` over what was seen since the last reset."""
        if not self._has_global_stats:
            return self.get()
        if self.global_num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, _num(self.global_sum_metric / self.global_num_inst))

    def get_name_value(self):
        """``[(name, value), ...]`` from ``get()`` (one pair per metric, composite or not)."""
        return _zip_pairs(self.get())

    def get_global_name_value(self):
        """``[(name, value), ...]`` from ``get_global()``."""
        if not self._has_global_stats:
            return self.get_name_value()
        return _zip_pairs(self.get_global())


def _zip_pairs(name_value):
    name, value = name_value
    if not isinstance(name, list):
        name = [name]
    if not isinstance(value, list):
        value = [value]
    return list(zip(name, value))


def _select(arrays, names, what, metric_name):
    """The arrays of ``names`` from a name -> array dict (all of them, in order, if names is None)."""
    if names is None:
        return list(arrays.values())
    missing = [n for n in names if n not in arrays]
    if missing:
        raise MetricError('metric %r: no %s named %s; the %ss given are %s'
                          % (metric_name, what, ', '.join(map(repr, missing)), what, list(arrays)))
    return [arrays[n] for n in names]


# ------------------------------------------------------------------ registry
_REGISTRY = Registry('metric', base=EvalMetric, error=MetricError)


def register(klass, name=None):
    """Make an EvalMetric subclass creatable by name (its lower-cased class name by default)."""
    return _REGISTRY.register(klass, name)


def alias(*aliases):
    """Decorator registering a metric class under extra names: ``@alias('acc')``."""
    return _REGISTRY.alias(*aliases)


def create(metric, *args, **kwargs):
    """An EvalMetric from a name, a function, a list of those, or a metric (returned as is).

    * ``'acc'``, ``'ce'``, ``'rmse'``, ... : a registered name or alias, any case; extra
      arguments go to the constructor (``create('top_k_accuracy', top_k=5)``);
    * a JSON string, as MXNet's registry reads one: ``'["top_k_accuracy", {"top_k": 5}]'``
      (name and keyword arguments) or ``'{"metric": "f1", "average": "micro"}'`` (a config);
    * a config dict (what ``get_config()`` returns), its ``'metric'`` naming the class
      (further arguments are ignored, as in MXNet);
    * a function ``feval(label, pred)`` on numpy arrays: a :class:`CustomMetric`;
    * a list: a :class:`CompositeEvalMetric` of each element created in turn.
    """
    if isinstance(metric, EvalMetric):
        if args or kwargs:
            raise MetricError('create: %s is already a metric; extra arguments make no sense' % metric.name)
        return metric
    if isinstance(metric, type) and issubclass(metric, EvalMetric):
        return metric(*args, **kwargs)
    if callable(metric):
        # CustomMetric (custom.py) builds on this file: it is reached by its registered name
        return _REGISTRY['custommetric'](metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    if isinstance(metric, dict):
        # the config alone builds the metric: MXNet 1.9.1 ignores any further arguments here
        config = dict(metric)
        if 'metric' not in config:
            raise MetricError('create: a metric config needs the key \'metric\' (the class or a registered '
                              'name); got the keys %s' % sorted(config))
        return create(config.pop('metric'), **config)
    if not isinstance(metric, str):
        raise MetricError('create: expected a metric name, a function, a list or an EvalMetric, got %s'
                          % type(metric).__name__)
    if metric.startswith(('[', '{')):
        return _create_from_json(metric, args, kwargs)
    return _REGISTRY.find(metric)(*args, **kwargs)


def _create_from_json(text, args, kwargs):
    """``create`` of ``'["name", {kwargs}]'`` or ``'{"metric": "name", ...}'``."""
    if args or kwargs:
        raise MetricError('create: a JSON metric spec carries its own arguments; got %r with extra '
                          'arguments %r %r' % (text, args, kwargs))
    try:
        spec = json.loads(text)
    except ValueError as err:
        raise MetricError('create: %r is not valid JSON (%s)' % (text, err)) from None
    if isinstance(spec, dict):
        return create(spec)
    if (not isinstance(spec, list) or len(spec) != 2 or not isinstance(spec[0], str)
            or not isinstance(spec[1], dict)):
        raise MetricError('create: a JSON list spec is ["name", {keyword arguments}], got %r' % (text,))
    return create(spec[0], **spec[1])


# ------------------------------------------------------------------ composite
@register
@alias('composite')
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get()`` returns ``([names], [values])``."""

    def __init__(self, metrics=None, name='composite', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.metrics = [create(m) for m in (metrics or [])]

    def add(self, metric):
        """Append a child metric (anything ``create`` accepts)."""
        self.metrics.append(create(metric))

    def get_metric(self, index):
        """The child metric at ``index``."""
        try:
            return self.metrics[index]
        except IndexError:
            raise MetricError('CompositeEvalMetric has %d metrics, there is no index %d'
                              % (len(self.metrics), index)) from None

    def update_dict(self, labels, preds):
        # keep only the selected names, then let every child apply its own selection
        if self.label_names is not None:
            labels = OrderedDict((k, v) for k, v in labels.items() if k in self.label_names)
        if self.output_names is not None:
            preds = OrderedDict((k, v) for k, v in preds.items() if k in self.output_names)
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        super().reset()
        for metric in getattr(self, 'metrics', []):   # reset() runs once before self.metrics exists
            metric.reset()

    def reset_local(self):
        super().reset_local()
        for metric in self.metrics:
            metric.reset_local()

    def _collect(self, method):
        names, values = [], []
        for metric in self.metrics:
            name, value = getattr(metric, method)()
            names.extend([name] if isinstance(name, str) else name)
            values.extend([value] if isinstance(value, numeric_types) else value)
        return (names, values)

    def get(self):
        return self._collect('get')

    def get_global(self):
        return self._collect('get_global')

    def get_config(self):
        config = super().get_config()
        config.update({'metrics': [m.get_config() for m in self.metrics]})
        return config
