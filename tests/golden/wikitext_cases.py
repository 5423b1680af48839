"""gluon.contrib.data.text's WikiText data sets on a small corpus written here (three segment
files in MXNet's names): the same program under MXNet 1.9.1 (gen_wikitext.py records
wikitext.json; MXNet reads only files whose SHA-1 is the real corpus's, so the generator lets
its check pass) and under reflib (test_gluon_contrib_data.py)."""

import os
import shutil
import tempfile

TRAIN = """
 = Valkyria Chronicles III =

 Senjō no Valkyria 3 : <unk> Chronicles ( Japanese : 戦場のヴァルキュリア3 ) is a game .
 The game began development in 2010 , carrying over a large portion of the work .

 = = Gameplay = =

 As with previous <unk> Chronicles games , the game is a tactical role @-@ playing game .
"""
VALID = """
 = Homarus gammarus =

 Homarus gammarus , known as the European lobster , is a species of <unk> lobster .
"""
TEST = """
 = Robert Boulter =

 Robert Boulter is an English film , television and theatre actor . He had a role in 2000 .
"""


def _rows(mx, dataset):
    return [[dataset[i][0].asnumpy().tolist(), dataset[i][1].asnumpy().tolist()] for i in range(len(dataset))]


def run(mx):
    root = tempfile.mkdtemp()
    try:
        for name, content in (('wiki.train.tokens', TRAIN), ('wiki.valid.tokens', VALID),
                              ('wiki.test.tokens', TEST)):
            with open(os.path.join(root, name), 'w', encoding='utf8') as f:
                f.write(content)
        text = mx.gluon.contrib.data.text
        train = text.WikiText2(root=root, segment='train', seq_len=7)
        valid = text.WikiText2(root=root, segment='validation', vocab=train.vocabulary, seq_len=7)
        test = text.WikiText103(root=root, segment='test', seq_len=5)
        found = {}
        for name, data in (('train', train), ('valid', valid), ('test', test)):
            found[name] = {'len': len(data), 'rows': _rows(mx, data), 'dtype': str(data[0][0].dtype),
                           'vocabulary': data.vocabulary.idx_to_token,
                           'frequencies': sorted(data.frequencies.items())}
        found['valid_shares_vocabulary'] = valid.vocabulary is train.vocabulary
        return found
    finally:
        shutil.rmtree(root)
