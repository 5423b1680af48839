"""``gluon.contrib.data``: the sampler MXNet 1.9.1 keeps outside ``gluon.data``
(IntervalSampler, in sampler.py).  Its ``text`` datasets (WikiText2/103) are not here: they
download their corpora, and reflib is offline."""

from .sampler import IntervalSampler

__all__ = ['IntervalSampler']
