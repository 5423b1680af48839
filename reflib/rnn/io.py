"""Text for language models: ``encode_sentences`` (words to ids) and ``BucketSentenceIter``
(sentences grouped by length into buckets, one bucket per batch).

Both behave as MXNet 1.9.1's, random order included: ``reset`` shuffles the list of batches
with Python's ``random`` module and each bucket's sentences with numpy's global generator,
so seeding both gives MXNet's batches, in MXNet's order.
"""

import bisect
import random
import warnings

import numpy as np

from .. import ndarray
from ..base import MXNetError
from ..io import DataBatch, DataDesc, DataIter

__all__ = ['encode_sentences', 'BucketSentenceIter']


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key='\n', start_label=0,
                     unknown_token=None):
    """``(list of lists of ids, vocabulary)`` from a list of lists of words.

    Without ``vocab`` a new vocabulary is built: ids from ``start_label`` on, in order of
    first appearance, skipping ``invalid_label`` (which ``invalid_key`` maps to).  With one,
    a word it lacks is an error, unless ``unknown_token`` names the word to use instead
    (then added to the vocabulary).
    """
    new_vocab = vocab is None
    if new_vocab:
        vocab = {invalid_key: invalid_label}
    next_id = start_label
    encoded = []
    for sentence in sentences:
        ids = []
        for word in sentence:
            if word not in vocab:
                if not (new_vocab or unknown_token):
                    raise MXNetError('encode_sentences: unknown word %r (give unknown_token to map such '
                                     'words to one id)' % (word,))
                if next_id == invalid_label:
                    next_id += 1
                if unknown_token:
                    word = unknown_token
                vocab[word] = next_id
                next_id += 1
            ids.append(vocab[word])
        encoded.append(ids)
    return encoded, vocab


class BucketSentenceIter(DataIter):
    """Batches of sentences for a language model: the label of each word is the next word.

    Each sentence goes to the smallest bucket (a length) that holds it and is padded there
    with ``invalid_label``; a sentence longer than the largest bucket is dropped.  Without
    ``buckets``, every length that has at least ``batch_size`` sentences is a bucket.  Every
    batch comes from one bucket and carries its length as ``bucket_key``, which is what
    BucketingModule switches on; ``default_bucket_key`` is the largest bucket.  ``layout``
    'NT' gives (batch, length) arrays, 'TN' (length, batch).
    """

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1, data_name='data',
                 label_name='softmax_label', dtype='float32', layout='NT'):
        super().__init__(batch_size)
        if not buckets:
            counts = np.bincount([len(s) for s in sentences])
            buckets = [length for length, count in enumerate(counts) if count >= batch_size]
        buckets = sorted(buckets)
        if layout not in ('NT', 'TN'):
            raise MXNetError('BucketSentenceIter: layout must be NT (batch major) or TN (time major), got %r'
                             % (layout,))
        rows = [[] for _ in buckets]
        used, discarded = set(), 0
        for sentence in sentences:
            k = bisect.bisect_left(buckets, len(sentence))
            used.add(k)
            if k == len(buckets):
                discarded += 1
                continue
            row = np.full((buckets[k],), invalid_label, dtype=dtype)
            row[:len(sentence)] = sentence
            rows[k].append(row)
        if discarded:
            warnings.warn('BucketSentenceIter: discarded %d sentences longer than the largest bucket (%d)'
                          % (discarded, buckets[-1]), stacklevel=2)
        self.buckets = [length for k, length in enumerate(buckets) if k in used]
        self.data = [np.asarray(bucket, dtype=dtype) for bucket in rows if bucket]
        if not self.data:
            raise MXNetError('BucketSentenceIter: no sentence fits in the buckets %s' % (buckets,))
        self.batch_size = batch_size
        self.data_name, self.label_name = data_name, label_name
        self.dtype = dtype
        self.invalid_label = invalid_label
        self.layout = layout
        self.major_axis = layout.find('N')
        self.default_bucket_key = max(self.buckets)
        shape = ((batch_size, self.default_bucket_key) if self.major_axis == 0
                 else (self.default_bucket_key, batch_size))
        self.provide_data = [DataDesc(data_name, shape, layout=layout)]
        self.provide_label = [DataDesc(label_name, shape, layout=layout)]
        # one entry per full batch: (bucket, first row); a bucket's last partial batch is left out
        self.idx = [(k, start) for k, bucket in enumerate(self.data)
                    for start in range(0, len(bucket) - batch_size + 1, batch_size)]
        self.curr_idx = 0
        self.nddata, self.ndlabel = [], []
        self.reset()

    def reset(self):
        """Shuffle the batches and the sentences in each bucket (Python's and numpy's generators)."""
        self.curr_idx = 0
        random.shuffle(self.idx)
        for bucket in self.data:
            np.random.shuffle(bucket)
        self.nddata, self.ndlabel = [], []
        for bucket in self.data:
            label = np.empty_like(bucket)
            label[:, :-1] = bucket[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(ndarray.array(bucket, dtype=self.dtype))
            self.ndlabel.append(ndarray.array(label, dtype=self.dtype))

    def next(self):
        """Return the next batch (batches come in the shuffled order ``reset`` made) or raise
        StopIteration at the end of the epoch.

        The batch holds ``batch_size`` sentences of one bucket: the data, and as label the
        same sentences shifted one step left (the last step is ``invalid_label``).  Its
        ``bucket_key`` is the bucket's length and its ``provide_data``/``provide_label`` give
        that bucket's shapes; ``pad`` is always 0.
        """
        if self.curr_idx == len(self.idx):
            raise StopIteration
        k, start = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[k][start:start + self.batch_size]
        label = self.ndlabel[k][start:start + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[k],
                         provide_data=[DataDesc(self.data_name, data.shape, layout=self.layout)],
                         provide_label=[DataDesc(self.label_name, label.shape, layout=self.layout)])
