"""``mx.nd.contrib``: the ``_contrib_*`` operators under their short names
(``contrib.ctc_loss``, ``contrib.SparseEmbedding``)."""

import math

from .. import operator as _ops
from ..context import current_context
from .op_functions import make_function
from .random import uniform

_PREFIX = '_contrib_'

for _name in _ops.list_operators():
    if _name.startswith(_PREFIX):
        globals()[_name[len(_PREFIX):]] = make_function(_name)
del _name


# ------------------------------------------------------------- tests of each value
# Python functions over ordinary operators, as in MXNet: 1.0 where the test holds, else 0.0,
# in the data's dtype (and with autograd, a zero gradient: comparisons pass none back)
def isnan(data):
    """1 where ``data`` is NaN (the one value not equal to itself), else 0."""
    return data != data


def isinf(data):
    """1 where ``data`` is +inf or -inf, else 0."""
    return data.abs() == float('inf')


def isfinite(data):
    """1 where ``data`` is neither NaN nor infinite, else 0."""
    return (data == data) * (data.abs() != float('inf'))


# ------------------------------------------------------------- candidate sampling
def _expected_count(classes, num_sampled, log_range):
    """How often ``num_sampled`` log-uniform draws are expected to give each of ``classes``:
    ``num_sampled * log((c + 2) / (c + 1)) / log(range_max + 1)``, in float64."""
    c = classes.astype('float64')
    return ((c + 2.0) / (c + 1.0)).log() / log_range * num_sampled


def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
    """``num_sampled`` classes in [0, range_max) drawn, with repeats, from the log-uniform
    (Zipfian) distribution ``P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)`` -- frequent
    words first, as a vocabulary sorted by count has them -- for sampled softmax.  Returns
    the samples (int64), and the expected counts of ``true_classes`` and of the samples."""
    log_range = math.log(range_max + 1)
    ctx = current_context() if ctx is None else ctx
    drawn = uniform(0, log_range, shape=(num_sampled,), dtype='float64', ctx=ctx)
    # c = floor(exp(u) - 1) is log-uniform when u is uniform on [0, log(range_max + 1))
    samples = (drawn.exp() - 1).astype('int64') % range_max
    return (samples, _expected_count(true_classes.as_in_context(ctx), num_sampled, log_range),
            _expected_count(samples, num_sampled, log_range))
