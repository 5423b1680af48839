"""Language-model data sets: WikiText-2 and WikiText-103, read from files already on disk.

A sample is ``(data, label)``, two int32 NDArrays of ``seq_len`` token indices: a stretch of
the corpus and the same stretch one token later (the next word to predict at every step).
The corpus is the segment's file (``wiki.train.tokens``, ``wiki.valid.tokens`` or
``wiki.test.tokens``) read line by line: each non-empty line's whitespace-separated tokens,
then ``'<eos>'``, all lines in one stream, cut into rows of ``seq_len`` (the tail that does
not fill a row is dropped).  Tokens become indices through ``vocabulary``: the one given,
or one built from this segment's token counts (``frequencies``) with ``'<eos>'`` reserved
(pass the training segment's ``vocabulary`` to the other segments, as MXNet's examples do).

MXNet downloads the archive (``wikitext-2-v1.zip``) into ``root`` and unpacks it there.
reflib does not download: it reads the segment's file from ``root``, unpacking it first
from MXNet's archive where only that is there, and a missing one raises DownloadError
naming both.  As for the image data sets, the files' SHA-1 is not checked: a smaller corpus
in the same format reads as well.
"""

import os
import shutil
import zipfile

import numpy as np

from .... import ndarray as nd
from ....base import data_dir
from ....contrib import text
from ...data.dataset import Dataset
from ...data.vision.datasets import _missing

__all__ = ['WikiText2', 'WikiText103']

EOS_TOKEN = '<eos>'
_SEGMENTS = {'train': 'wiki.train.tokens', 'validation': 'wiki.valid.tokens', 'test': 'wiki.test.tokens'}


class _WikiText(Dataset):
    """What both corpora share; ``namespace`` and ``archive`` name MXNet's download."""
    namespace = archive = None

    def __init__(self, root, segment, vocab, seq_len):
        if segment not in _SEGMENTS:
            raise ValueError('%s: segment must be one of %s, got %r' % (type(self).__name__, sorted(_SEGMENTS),
                                                                        segment))
        self._root = os.path.expanduser(root)
        self._segment, self._seq_len = segment, seq_len
        self._vocab, self._counter = vocab, None
        os.makedirs(self._root, exist_ok=True)          # (MXNet makes root too)
        self._data, self._label = self._read(self._path())

    @property
    def vocabulary(self):
        """The Vocabulary that turned tokens into indices."""
        return self._vocab

    @property
    def frequencies(self):
        """How often each token occurs in this segment (a collections.Counter)."""
        return self._counter

    def _path(self):
        """The segment's file in root, unpacked from MXNet's archive in root if need be."""
        name = _SEGMENTS[self._segment]
        path = os.path.join(self._root, name)
        archive = os.path.join(self._root, self.archive)
        if not os.path.exists(path) and os.path.exists(archive):
            with zipfile.ZipFile(archive) as zipped:          # every member flat into root, as MXNet
                for member in zipped.namelist():
                    base = os.path.basename(member)
                    if base:
                        with zipped.open(member) as source, open(os.path.join(self._root, base), 'wb') as target:
                            shutil.copyfileobj(source, target)
        if not os.path.exists(path):
            raise _missing(type(self).__name__, self._root, [name], self.namespace, fetch=[self.archive])
        return path

    def _read(self, path):
        with open(path, encoding='utf8') as f:
            content = f.read()
        self._counter = text.utils.count_tokens_from_str(content)
        if self._vocab is None:
            self._vocab = text.vocab.Vocabulary(counter=self._counter, reserved_tokens=[EOS_TOKEN])
        tokens = [token for line in content.splitlines() for token in line.split() + [EOS_TOKEN]
                  if line.split()]
        indices = np.array(self._vocab.to_indices(tokens), dtype=np.int32)
        rows = (len(indices) - 1) // self._seq_len
        data = indices[:rows * self._seq_len].reshape(rows, self._seq_len)
        label = indices[1:rows * self._seq_len + 1].reshape(rows, self._seq_len)
        return nd.array(data, dtype=np.int32), nd.array(label, dtype=np.int32)

    def __getitem__(self, idx):
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


class WikiText2(_WikiText):
    """WikiText-2 (Merity et al., 2016): about 2 million tokens of Wikipedia articles.
    ``root`` holds ``wiki.<segment>.tokens`` or MXNet's ``wikitext-2-v1.zip``;
    ``segment`` is 'train', 'validation' or 'test'."""
    namespace, archive = 'wikitext-2', 'wikitext-2-v1.zip'

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'wikitext-2'), segment='train', vocab=None,
                 seq_len=35):
        super().__init__(root, segment, vocab, seq_len)


class WikiText103(_WikiText):
    """WikiText-103: about 103 million tokens, the same articles' source at a larger scale.
    ``root`` holds ``wiki.<segment>.tokens`` or MXNet's ``wikitext-103-v1.zip``."""
    namespace, archive = 'wikitext-103', 'wikitext-103-v1.zip'

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'wikitext-103'), segment='train', vocab=None,
                 seq_len=35):
        super().__init__(root, segment, vocab, seq_len)
