"""``mx.contrib.text``: vocabularies and token embeddings for text, as in MXNet 1.9.1.

* ``utils.count_tokens_from_str``: token counts (a ``collections.Counter``) from a string;
* ``vocab.Vocabulary``: token <-> index, with an unknown token at index 0, reserved tokens,
  and counter keys filtered by frequency;
* ``embedding``: token vectors loaded from ``token v1 v2 ...`` text files
  (``CustomEmbedding``; ``GloVe`` and ``FastText`` for their published files, which reflib
  reads from disk but never downloads), and ``CompositeEmbedding`` joining several.
"""

from . import utils
from . import vocab
from . import embedding

__all__ = ['utils', 'vocab', 'embedding']
