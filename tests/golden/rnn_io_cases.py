"""Sentences for gen_rnn_io.py and tests/test_rnn_io.py: the same words in either library."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lm_fit_cases import WORDS, sentences  # noqa: E402,F401  (defined once, in reflib/book/lm_fit.py)


def epoch(mx, iterator):
    """Every batch of one pass: (bucket_key, data, label, provide_data shape)."""
    return [(b.bucket_key, b.data[0].asnumpy(), b.label[0].asnumpy(), tuple(b.provide_data[0].shape))
            for b in iterator]


def run(mx, seed_random, seed_numpy):
    """The iterator's batches for two epochs, after seeding Python's and numpy's generators."""
    import random
    coded, vocab = mx.rnn.encode_sentences(sentences(), invalid_label=0, start_label=1)
    random.seed(seed_random)
    np.random.seed(seed_numpy)
    it = mx.rnn.BucketSentenceIter(coded, batch_size=4, buckets=[4, 7, 10], invalid_label=0)
    first = epoch(mx, it)
    it.reset()
    second = epoch(mx, it)
    tn = mx.rnn.BucketSentenceIter(coded, batch_size=4, invalid_label=0, layout='TN')
    return {'vocab': vocab, 'buckets': list(it.buckets), 'default': it.default_bucket_key,
            'auto_buckets': list(tn.buckets), 'tn_shapes': [s for _, _, _, s in epoch(mx, tn)],
            'epochs': [first, second]}
