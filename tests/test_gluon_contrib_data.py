"""gluon.contrib.data (reflib/gluon/contrib/data/): the WikiText data sets against MXNet 1.9.1
on a small corpus (golden/wikitext.json, from golden/gen_wikitext.py over
golden/wikitext_cases.py), reading MXNet's archive, and the error for a missing corpus.
(IntervalSampler's golden case is in test_gluon_contrib_rnn.py's file.)"""

import json
import os
import sys
import zipfile

import pytest

import reflib as mx
from reflib.gluon.utils import DownloadError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
import wikitext_cases  # noqa: E402

with open(os.path.join(HERE, 'golden', 'wikitext.json'), encoding='utf8') as _f:
    GOLDEN = json.load(_f)


def _plain(value):
    """Tuples as lists, as the JSON file has them."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def test_wikitext_reads_the_corpus_as_mxnet_does():
    got = _plain(wikitext_cases.run(mx))
    assert sorted(got) == sorted(GOLDEN)
    for key in GOLDEN:
        assert got[key] == GOLDEN[key], key


def test_wikitext_unpacks_mxnets_archive_and_names_what_is_missing(tmp_path):
    with zipfile.ZipFile(tmp_path / 'wikitext-2-v1.zip', 'w') as zipped:
        zipped.writestr('wikitext-2/wiki.test.tokens', wikitext_cases.TEST)
    test = mx.gluon.contrib.data.text.WikiText2(root=str(tmp_path), segment='test', seq_len=5)
    assert (tmp_path / 'wiki.test.tokens').exists()              # unpacked flat into root, as MXNet does
    assert len(test) == GOLDEN['test']['len']
    assert test[0][0].asnumpy().tolist() == GOLDEN['test']['rows'][0][0]
    with pytest.raises(DownloadError, match=r'WikiText2: wiki\.train\.tokens not found in .*wikitext-2-v1\.zip'):
        mx.gluon.contrib.data.text.WikiText2(root=str(tmp_path), segment='train')
    with pytest.raises(ValueError, match="segment must be one of"):
        mx.gluon.contrib.data.text.WikiText103(root=str(tmp_path), segment='valid')


def test_the_package_exports():
    data = mx.gluon.contrib.data
    assert data.__all__ == ['IntervalSampler', 'text']
    assert data.text.__all__ == ['WikiText2', 'WikiText103']
    assert data.text.WikiText2.__doc__ and data.text.WikiText103.__doc__
