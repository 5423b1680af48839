"""``gluon.contrib.data``: the sampler MXNet 1.9.1 keeps outside ``gluon.data``
(IntervalSampler, in sampler.py) and, in ``text``, the WikiText-2/103 language-model data
sets, read from files already on disk (reflib does not download)."""

from . import text
from .sampler import IntervalSampler

__all__ = ['IntervalSampler', 'text']
