"""The language model of reflib/book/lm_fit.py (chapter 14's), for gen_lm_fit.py (MXNet 1.9.1)
and tests/test_bucketing.py: loaded by its path, so that MXNet's interpreter needs no reflib."""

import importlib.util
import os

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'reflib', 'book', 'lm_fit.py')
_spec = importlib.util.spec_from_file_location('book_lm_fit', _PATH)
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)

WORDS, sentences, sym_gen_for, run = _module.WORDS, _module.sentences, _module.sym_gen_for, _module.run
EMBED, HIDDEN, BATCH, BUCKETS, EPOCHS = _module.EMBED, _module.HIDDEN, _module.BATCH, _module.BUCKETS, _module.EPOCHS
