"""``mx.sym.contrib``: the ``_contrib_*`` operators under their short names, each node named
after the short name (``sparseembedding0``, ``ctc_loss0``), as MXNet names them."""

import math

from .. import operator as _ops
from . import random as _random
from .linalg import short_named

_PREFIX = '_contrib_'

for _name in _ops.list_operators():
    if _name.startswith(_PREFIX):
        globals()[_name[len(_PREFIX):]] = short_named(_name, _name[len(_PREFIX):].lower())
del _name


def rand_zipfian(true_classes, num_sampled, range_max):
    """The graph form of ``mx.nd.contrib.rand_zipfian``: ``num_sampled`` log-uniform classes in
    [0, range_max) and the expected counts of ``true_classes`` and of the samples (float64)."""
    log_range = math.log(range_max + 1)

    def expected_count(classes):
        c = classes.astype('float64')
        return ((c + 2.0) / (c + 1.0)).log() / log_range * num_sampled
    drawn = _random.uniform(0, log_range, shape=(num_sampled,), dtype='float64')
    samples = (drawn.exp() - 1).astype('int64') % range_max
    return samples, expected_count(true_classes), expected_count(samples)
