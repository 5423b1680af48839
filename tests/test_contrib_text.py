"""mx.contrib.text (Vocabulary, token embeddings, count_tokens_from_str): against MXNet 1.9.1
(golden/text.json, from golden/gen_text.py), plus what MXNet cannot be asked offline
(GloVe/FastText reading their published format from disk, the refusal to download) and the
errors reflib gives for bad input: each names the file and the line, never a numpy traceback."""

import collections
import json
import os
import sys
import tarfile
import zipfile

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError
from reflib.contrib.text import embedding, vocab
from reflib.contrib.text.embedding import EmbeddingFileError
from reflib.gluon.utils import DownloadError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
from text_cases import run  # noqa: E402

with open(os.path.join(HERE, 'golden', 'text.json')) as _f:
    GOLDEN = json.load(_f)


@pytest.fixture(scope='module')
def results(tmp_path_factory):
    return run(mx, str(tmp_path_factory.mktemp('text_cases')))


def _close(mine, theirs):
    """Recorded arrays ([shape, dtype, values]) equal in shape and dtype and to float32's
    precision in value; everything else equal (JSON turns tuples into lists)."""
    if isinstance(theirs, list) and len(theirs) == 3 and isinstance(theirs[0], list) and isinstance(theirs[1], str):
        return (mine[:2] == theirs[:2]
                and np.allclose(np.array(mine[2], dtype=float), np.array(theirs[2], dtype=float), rtol=1e-5, atol=1e-6))
    if isinstance(theirs, list):
        return isinstance(mine, (list, tuple)) and len(mine) == len(theirs) and all(map(_close, mine, theirs))
    if isinstance(theirs, dict):
        return mine.keys() == theirs.keys() and all(_close(mine[k], theirs[k]) for k in theirs)
    return mine == theirs


@pytest.mark.parametrize('name', sorted(GOLDEN))
def test_same_result_as_mxnet(results, name):
    mine, theirs = results[name], GOLDEN[name]
    if ': error ' in name and theirs != 'no error':
        # reflib's TextError is an AssertionError and a ValueError at once, so it is caught
        # wherever MXNet's assert or ValueError is: the classes MXNet raised must be among ours.
        assert mine != 'no error' and set(theirs) <= set(mine), (mine, theirs)
    else:
        assert _close(json.loads(json.dumps(mine)), theirs), (mine, theirs)


# ------------------------------------------------------------------ bad input

def _write(path, text):
    path.write_text(text, encoding='utf8')
    return str(path)


@pytest.mark.parametrize('content,line,words', [
    ('a 1 2\nb\n', 2, 'expected a token and its vector'),
    ('a 1 2 3\nb 4 5 6\nc 7 8\n', 3, 'has a vector of 2 elements, but the earlier tokens have 3'),
    ('a 1 2\nb 1 two\n', 2, "'two' is not a number"),
    ('a 1 2\n\nb 1 2\n', 2, 'expected a token'),
    ('a 1 2\nb 1 nan\nc 1 1e999x\n', 3, "'1e999x' is not a number"),
])
def test_malformed_embedding_file_names_file_and_line(tmp_path, content, line, words):
    path = _write(tmp_path / 'bad.txt', content)
    with pytest.raises(EmbeddingFileError) as info:
        embedding.CustomEmbedding(path)
    message = str(info.value)
    assert path in message and 'line %d' % line in message and words in message
    # Caught as MXNet's assert or ValueError would be, and as reflib's MXNetError.
    assert isinstance(info.value, (AssertionError)) and isinstance(info.value, ValueError)
    assert isinstance(info.value, MXNetError)


def test_unknown_token_vector_of_wrong_length(tmp_path):
    path = _write(tmp_path / 'unk.txt', 'a 1 2 3\n<unk> 1 2\n')
    with pytest.raises(EmbeddingFileError, match=r'line 2: token .<unk>. has a vector of 2 elements'):
        embedding.CustomEmbedding(path)


def test_not_utf8_and_empty_files(tmp_path):
    raw = tmp_path / 'latin.txt'
    raw.write_bytes(b'a 1 2\ncaf\xe9 3 4\n')
    with pytest.raises(EmbeddingFileError, match='line 2: not utf8 text'):
        embedding.CustomEmbedding(str(raw))
    assert embedding.CustomEmbedding(str(raw), encoding='latin-1').token_to_idx['caf\xe9'] == 2
    empty = _write(tmp_path / 'empty.txt', '')
    with pytest.raises(EmbeddingFileError, match='no token vectors'):
        embedding.CustomEmbedding(empty)
    with pytest.raises(EmbeddingFileError, match='is not a file'):
        embedding.CustomEmbedding(str(tmp_path))


def test_update_with_vector_of_wrong_length(tmp_path):
    emb = embedding.CustomEmbedding(_write(tmp_path / 'e.txt', 'a 1 2 3\nb 4 5 6\n'))
    with pytest.raises(vocab.TextError, match=r'shape \(1, 2\).*need shape \(1, 3\)'):
        emb.update_token_vectors('a', mx.nd.array([1, 2]))
    with pytest.raises(AssertionError):            # the class MXNet's assert has
        emb.update_token_vectors(['a', 'b'], mx.nd.ones((3, 3)))
    with pytest.raises(ValueError, match="token 'zzz' is not indexed"):
        emb.update_token_vectors('zzz', mx.nd.ones(3))
    np.testing.assert_array_equal(emb.idx_to_vec.asnumpy(), [[0, 0, 0], [1, 2, 3], [4, 5, 6]])


def test_unknown_pretrained_and_embedding_names():
    with pytest.raises(KeyError, match='glove.*no pre-trained file .glove.7B.txt.'):
        embedding.GloVe('glove.7B.txt')
    with pytest.raises(KeyError, match='no token embedding .word2vec.; registered ones are .*fasttext'):
        embedding.get_pretrained_file_names('word2vec')
    with pytest.raises(AssertionError, match="unknown token embedding 'word2vec'"):
        embedding.create('word2vec')
    assert len(embedding.get_pretrained_file_names('fasttext')) == 327


# ------------------------------------------------------------------ published files, offline

def test_missing_pretrained_file_is_refused_not_downloaded(tmp_path):
    with pytest.raises(DownloadError) as info:
        embedding.GloVe('glove.6B.50d.txt', embedding_root=str(tmp_path))
    message = str(info.value)
    assert 'reflib does not download' in message
    assert 'gluon/embeddings/glove/glove.6B.zip' in message            # what to fetch
    assert str(tmp_path / 'glove' / 'glove.6B.50d.txt') in message     # where to put it
    assert isinstance(info.value, MXNetError) and isinstance(info.value, OSError)


def test_glove_reads_a_local_file_in_its_format(tmp_path):
    (tmp_path / 'glove').mkdir()
    _write(tmp_path / 'glove' / 'glove.6B.50d.txt', 'the 0.1 0.2\n, -0.5 1.5\nof 3 4\n')
    with pytest.warns(UserWarning, match='SHA-1 is not that of the published'):
        glove = embedding.create('GloVe', pretrained_file_name='glove.6B.50d.txt', embedding_root=str(tmp_path),
                                 init_unknown_vec=mx.nd.ones)
    assert glove.idx_to_token == ['<unk>', 'the', ',', 'of'] and glove.vec_len == 2
    np.testing.assert_allclose(glove.get_vecs_by_tokens(['of', 'zzz']).asnumpy(), [[3, 4], [1, 1]])


def test_fasttext_unpacks_a_local_archive_and_skips_its_header(tmp_path):
    folder = tmp_path / 'fasttext'
    folder.mkdir()
    with zipfile.ZipFile(folder / 'wiki.simple.zip', 'w') as archive:
        archive.writestr('wiki.simple.vec', '2 3\nhello 1 2 3\nworld 4 5 6\n')
    voc = vocab.Vocabulary(collections.Counter(['world', 'world', 'new']))
    with pytest.warns(UserWarning):                   # the header line; the SHA-1 of a home-made file
        ft = embedding.FastText(embedding_root=str(tmp_path), vocabulary=voc)
    assert ft.idx_to_token == ['<unk>', 'world', 'new']
    np.testing.assert_allclose(ft.idx_to_vec.asnumpy(), [[0, 0, 0], [4, 5, 6], [0, 0, 0]])


def test_tar_archive_member_outside_the_folder_is_refused(tmp_path):
    folder = tmp_path / 'root' / 'test_tar_embedding'
    folder.mkdir(parents=True)
    evil = tmp_path / 'evil.vec'
    evil.write_text('x 1 2\n')
    with tarfile.open(folder / 'evil.gz', 'w:gz') as archive:
        archive.add(str(evil), arcname='../../evil_out.vec')

    class test_tar_embedding(embedding._TokenEmbedding):   # a name of its own, not registered
        pretrained_file_name_sha1 = {'evil.vec': '0' * 40}

        @classmethod
        def _get_download_file_name(cls, name):
            return 'evil.gz'

    with pytest.raises(DownloadError, match='cannot unpack'):
        test_tar_embedding._get_pretrained_file(str(tmp_path / 'root'), 'evil.vec')
    assert not (tmp_path / 'evil_out.vec').exists()


def test_reserved_tokens_get_their_own_rows(tmp_path):
    # MXNet 1.9.1 indexes reserved tokens but gives them no rows, so every later row is one
    # token off; reflib gives each reserved token a row (its vector from the file, if any).
    path = _write(tmp_path / 'e.txt', 'a 1 2\n<pad> 7 7\nb 3 4\n')
    emb = embedding.CustomEmbedding(path, reserved_tokens=['<pad>', '<bos>'], init_unknown_vec=mx.nd.ones)
    assert emb.idx_to_token == ['<unk>', '<pad>', '<bos>', 'a', 'b']
    np.testing.assert_allclose(emb.get_vecs_by_tokens(['a', 'b', '<pad>', '<bos>', '?']).asnumpy(),
                               [[1, 2], [3, 4], [7, 7], [1, 1], [1, 1]])


def test_register_and_create_a_new_embedding(tmp_path):
    path = _write(tmp_path / 'mine.vec', 'hello 1 2\n')

    @embedding.register
    class MyTextEmbeddingForTest(embedding._TokenEmbedding):
        pretrained_file_name_sha1 = {'mine.vec': '0' * 40}

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self._load_embedding(path, ' ', mx.nd.zeros)

    made = embedding.create('mytextembeddingfortest')
    assert isinstance(made, MyTextEmbeddingForTest) and made.token_to_idx == {'<unk>': 0, 'hello': 1}
    assert embedding.get_pretrained_file_names()['mytextembeddingfortest'] == ['mine.vec']
    with pytest.raises(AssertionError, match='not a subclass'):
        embedding.register(dict)
