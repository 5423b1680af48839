"""Token embeddings: a vector for every token of a vocabulary.

An embedding file is text, one token a line followed by the elements of its vector::

    hello 0.1 0.2 0.3
    world 0.4 0.5 0.6

(GloVe and fastText publish theirs in this form; ``CustomEmbedding`` reads any such file,
with any element delimiter).  Loading one gives a ``_TokenEmbedding``: a ``Vocabulary`` of the
file's tokens plus ``idx_to_vec``, an NDArray whose row *i* is the vector of token *i*.
Row 0 is the unknown token's: its vector from the file when the file has one, else
``init_unknown_vec(shape=vec_len)`` (zeros by default).  Given a ``vocabulary``, the
embedding is re-indexed to that vocabulary's tokens, each taking its vector from the file
(or the unknown vector when the file lacks it); ``CompositeEmbedding`` does the same for
several embeddings at once and puts their vectors side by side.

GloVe and FastText know their published files by name (``get_pretrained_file_names``).
MXNet downloads a missing one; reflib never goes to the network, so the file (or the
archive it comes in) must already be under ``embedding_root``, and a missing one is a
DownloadError that says which URL to fetch and where to save it.
"""

import json
import logging
import os
import tarfile
import warnings
import zipfile

import numpy as np

from ... import base
from ... import ndarray as nd
from ...gluon.utils import DownloadError, check_sha1
from ...registry import Registry
from . import _pretrained
from . import vocab
from .vocab import TextError, UNKNOWN_IDX

__all__ = ['register', 'create', 'get_pretrained_file_names', 'GloVe', 'FastText',
           'CustomEmbedding', 'CompositeEmbedding', 'EmbeddingFileError']


class EmbeddingFileError(TextError):
    """An embedding file that is missing or cannot be read as ``token v1 v2 ...`` lines.

    The message names the file and the line.  Like its base it is both an AssertionError
    (MXNet asserts the shape of each line) and a ValueError (MXNet's number parsing raises it).
    """


# Embedding classes by lower-cased class name, for ``create('glove', ...)``.  MXNet warns
# when a name is registered again (the newer class wins), and so does this registry.
_REGISTRY = Registry('token embedding', on_replace='warn', error=TextError)


def register(embedding_cls):
    """Register a ``_TokenEmbedding`` subclass so that ``create`` finds it by name.

    The name is the class name, lower-cased.  Returns the class, so this is a decorator::

        @register
        class MyEmbedding(_TokenEmbedding):
            pretrained_file_name_sha1 = {'my.vec': '<sha1>'}
            ...
    """
    return _REGISTRY.register(embedding_cls)


def create(embedding_name, **kwargs):
    """An instance of the registered token embedding ``embedding_name`` (case-insensitive).

    ``kwargs`` go to its constructor, e.g. ``create('glove', pretrained_file_name=
    'glove.6B.50d.txt')``.  As in MXNet's registries, the name may also be an instance
    (returned as it is) or a JSON string ``'["name", {kwargs}]'`` / ``'{"name": kwargs}'``.
    An unknown name is a TextError listing the registered ones.
    """
    if isinstance(embedding_name, _TokenEmbedding):
        if kwargs:
            raise TextError('create: an embedding instance takes no further arguments, got %s'
                            % sorted(kwargs))
        return embedding_name
    if not isinstance(embedding_name, str):
        raise TextError('create: embedding_name must be a str, got %s' % type(embedding_name).__name__)
    if embedding_name.startswith('['):            # '["glove", {"pretrained_file_name": ...}]'
        name, more = json.loads(embedding_name)
        return create(name, **dict(more, **kwargs))
    if embedding_name.startswith('{'):            # '{"glove": {"pretrained_file_name": ...}}'
        (name, more), = json.loads(embedding_name).items()
        return create(name, **dict(more, **kwargs))
    return _REGISTRY.find(embedding_name)(**kwargs)


def get_pretrained_file_names(embedding_name=None):
    """The published pre-trained files each registered embedding knows by name.

    With ``embedding_name`` (e.g. 'glove'): the list of its file names, any of which can be
    passed as ``pretrained_file_name``.  Without: a dict from every registered embedding
    name to its list.  An unregistered name is a KeyError, as in MXNet.
    """
    if embedding_name is not None:
        if embedding_name not in _REGISTRY:
            raise KeyError('get_pretrained_file_names: no token embedding %r; registered ones are %s'
                           % (embedding_name, ', '.join(sorted(_REGISTRY))))
        return list(_REGISTRY[embedding_name].pretrained_file_name_sha1)
    return {name: list(cls.pretrained_file_name_sha1) for name, cls in _REGISTRY.items()}


def _init_vector(init_unknown_vec, vec_len):
    """``init_unknown_vec(shape=vec_len)`` as a float32 numpy vector of length ``vec_len``.

    The callback is usually ``nd.zeros`` or ``nd.ones``; anything returning an NDArray, a
    numpy array or a number that broadcasts to ``(vec_len,)`` will do (MXNet assigns it into
    a row, which broadcasts the same way).
    """
    value = init_unknown_vec(shape=vec_len)
    value = value.asnumpy() if isinstance(value, nd.NDArray) else np.asarray(value)
    try:
        return np.broadcast_to(value.astype(np.float32), (vec_len,))
    except ValueError:
        raise TextError('init_unknown_vec(shape=%d) returned shape %s, which does not fit a vector '
                        'of length %d' % (vec_len, value.shape, vec_len)) from None


class _TokenEmbedding(vocab.Vocabulary):
    """The base of token embeddings: a ``Vocabulary`` with a vector for every token.

    Subclasses load vectors with ``_load_embedding`` from a file (``CustomEmbedding``, or
    ``GloVe``/``FastText`` from a published file found through ``_get_pretrained_file``), or
    take them from other embeddings (``CompositeEmbedding``).

    If a token appears on several lines of a file, its first vector is kept and the others are
    skipped with a warning.  A line with a one-element vector is taken for a header (fastText
    files start with ``<count> <dimension>``) and skipped with a warning.

    Attributes
    ----------
    vec_len : int
        The length of every token's vector.
    idx_to_vec : NDArray
        Shape ``(len(self), vec_len)``: row *i* is the vector of ``idx_to_token[i]``; row 0,
        the unknown token's, is also the vector of every token not indexed.
    """

    # A subclass that knows published files maps each file name to its SHA-1 here.
    pretrained_file_name_sha1 = {}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._vec_len = None
        self._idx_to_vec = None

    # ------------------------------------------------------------ published files
    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        """The file to fetch from the mirror for ``pretrained_file_name``: itself, unless a
        subclass knows it comes inside an archive."""
        return pretrained_file_name

    @classmethod
    def _get_pretrained_file_url(cls, pretrained_file_name):
        """Where MXNet's mirror keeps the file (or archive) holding ``pretrained_file_name``."""
        repo_url = os.environ.get('MXNET_GLUON_REPO', _pretrained.APACHE_REPO_URL)
        if not repo_url.endswith('/'):
            repo_url += '/'
        return '%sgluon/embeddings/%s/%s' % (repo_url, cls.__name__.lower(),
                                             cls._get_download_file_name(pretrained_file_name))

    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name):
        """KeyError (as in MXNet) unless this embedding knows ``pretrained_file_name``."""
        if pretrained_file_name not in cls.pretrained_file_name_sha1:
            name = cls.__name__.lower()
            raise KeyError('token embedding %s has no pre-trained file %r; its files are: %s'
                           % (name, pretrained_file_name, ', '.join(cls.pretrained_file_name_sha1)))

    @classmethod
    def _get_pretrained_file(cls, embedding_root, pretrained_file_name):
        """The path of ``pretrained_file_name`` under ``embedding_root/<class name>/``.

        MXNet downloads the file (or its archive, which it unpacks) when it is missing or its
        SHA-1 is not the published one.  reflib does not download:

        * the file is there: it is used; a SHA-1 other than the published one only warns (a
          trimmed or locally made file in the published format loads as well);
        * the file is missing but its archive is there (a user fetched it by hand): the archive
          is unpacked, as MXNet does after a download;
        * neither: DownloadError, naming the URL to fetch and the place to save it.
        """
        embedding_dir = os.path.join(os.path.expanduser(embedding_root), cls.__name__.lower())
        file_path = os.path.abspath(os.path.join(embedding_dir, pretrained_file_name))
        url = cls._get_pretrained_file_url(pretrained_file_name)
        archive_name = url.rsplit('/', 1)[-1]
        archive_path = os.path.abspath(os.path.join(embedding_dir, archive_name))

        if not os.path.isfile(file_path) and archive_path != file_path and os.path.isfile(archive_path):
            cls._unpack(archive_path, embedding_dir, pretrained_file_name)
        if not os.path.isfile(file_path):
            where = file_path if archive_path == file_path else '%s (or its archive %s, which reflib unpacks)' \
                % (file_path, archive_path)
            raise DownloadError('token embedding %s: the pre-trained file %r is not on disk, and reflib does '
                                'not download: fetch %s yourself and save it as %s'
                                % (cls.__name__.lower(), pretrained_file_name, url, where))

        expected = cls.pretrained_file_name_sha1.get(pretrained_file_name)
        if expected and not check_sha1(file_path, expected):
            warnings.warn('%s: SHA-1 is not that of the published %s (MXNet would download it again); '
                          'reflib loads the file as it is' % (file_path, pretrained_file_name),
                          UserWarning, stacklevel=3)
        return file_path

    @staticmethod
    def _unpack(archive_path, folder, wanted):
        """Unpack a .zip or .tar.gz archive into ``folder``, refusing members that would land
        outside it (an archive is outside input)."""
        try:
            if archive_path.endswith('.zip'):
                with zipfile.ZipFile(archive_path) as archive:
                    archive.extractall(folder)      # zipfile drops '..' and absolute parts itself
            elif archive_path.endswith('.gz'):
                with tarfile.open(archive_path, 'r:gz') as archive:
                    archive.extractall(folder, filter='data')
            else:
                raise DownloadError('%s: cannot unpack an archive of this kind to get %s' % (archive_path, wanted))
        except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as err:
            if isinstance(err, DownloadError):
                raise
            raise DownloadError('%s: cannot unpack it to get %s (%s); fetch it again'
                                % (archive_path, wanted, err)) from None

    # ------------------------------------------------------------ reading a file
    def _load_embedding(self, pretrained_file_path, elem_delim, init_unknown_vec, encoding='utf8'):
        """Index the tokens of an embedding file and set ``idx_to_vec`` from their vectors.

        Tokens already indexed (the unknown token, any reserved tokens) keep their indices and
        take their vector from the file when it has one, else ``init_unknown_vec``; every
        other token of the file is appended in file order.  A malformed line is an
        EmbeddingFileError naming the file and the line.
        """
        path = os.path.expanduser(pretrained_file_path)
        if not os.path.isfile(path):
            raise EmbeddingFileError('%r is not a file: pretrained_file_path must be the path of a token '
                                     'embedding file' % (pretrained_file_path,))
        logging.info('Loading pre-trained token embedding vectors from %s', path)

        preindexed = len(self._idx_to_token)     # the unknown token and the reserved ones
        special = {}                             # index < preindexed -> (line number, vector)
        vectors = []                             # the appended tokens' vectors, in order
        vec_len = None
        seen = set()
        try:
            with open(path, 'r', encoding=encoding) as f:
                for line_num, line in enumerate(f, 1):
                    token, vector = self._parse_line(line, elem_delim, path, line_num)
                    idx = self._token_to_idx.get(token)
                    if idx is not None and idx < preindexed and idx not in special:
                        # The unknown (or a reserved) token: its vector goes to its own row.
                        special[idx] = (line_num, vector)
                        seen.add(token)
                    elif token in seen:
                        warnings.warn('%s, line %d: token %r already has a vector from an earlier line; '
                                      'this one is skipped' % (path, line_num, token), stacklevel=3)
                    elif len(vector) == 1:
                        warnings.warn('%s, line %d: %r with a one-element vector is taken for a header '
                                      'and skipped' % (path, line_num, line.rstrip()), stacklevel=3)
                    else:
                        if vec_len is None:
                            vec_len = len(vector)
                        elif len(vector) != vec_len:
                            raise EmbeddingFileError(
                                '%s, line %d: token %r has a vector of %d elements, but the earlier '
                                'tokens have %d; all vectors must have one length'
                                % (path, line_num, token, len(vector), vec_len))
                        seen.add(token)
                        self._token_to_idx[token] = len(self._idx_to_token)
                        self._idx_to_token.append(token)
                        vectors.append(vector)
        except UnicodeDecodeError as err:
            # The decoder reads ahead of the lines handed out, so find the line itself.
            raise EmbeddingFileError('%s, %s: not %s text (%s); pass the file\'s encoding as encoding='
                                     % (path, _undecodable_line(path, encoding), encoding, err.reason)) from None

        if vec_len is None:
            if not special:
                raise EmbeddingFileError('%s: no token vectors in the file (it is empty, or has only '
                                         'one-element header lines)' % path)
            vec_len = len(next(iter(special.values()))[1])   # only special tokens: their length
        for idx, (line_num, vector) in special.items():
            if len(vector) != vec_len:
                raise EmbeddingFileError('%s, line %d: token %r has a vector of %d elements, but the other '
                                         'tokens have %d' % (path, line_num, self._idx_to_token[idx],
                                                             len(vector), vec_len))

        matrix = np.empty((len(self._idx_to_token), vec_len), dtype=np.float32)
        for idx in range(preindexed):
            matrix[idx] = special[idx][1] if idx in special else _init_vector(init_unknown_vec, vec_len)
        if vectors:
            matrix[preindexed:] = vectors
        self._vec_len = vec_len
        self._idx_to_vec = nd.array(matrix)

    @staticmethod
    def _parse_line(line, elem_delim, path, line_num):
        """(token, list of floats) from one line ``token<delim>v1<delim>v2...``."""
        elems = line.rstrip().split(elem_delim)
        if len(elems) < 2:
            raise EmbeddingFileError('%s, line %d: expected a token and its vector elements separated by '
                                     '%r, got %r' % (path, line_num, elem_delim, line.rstrip()[:80]))
        try:
            return elems[0], [float(x) for x in elems[1:]]
        except ValueError:
            bad = next(x for x in elems[1:] if not _is_float(x))
            raise EmbeddingFileError('%s, line %d: token %r: vector element %r is not a number'
                                     % (path, line_num, elems[0], bad[:40])) from None

    # ------------------------------------------------------------ re-indexing
    def _index_tokens_from_vocabulary(self, vocabulary):
        """Take over the indexing (copies of the maps) of ``vocabulary``."""
        self._token_to_idx = dict(vocabulary.token_to_idx)
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._unknown_token = vocabulary.unknown_token
        self._reserved_tokens = None if vocabulary.reserved_tokens is None else list(vocabulary.reserved_tokens)

    def _set_idx_to_vec_by_embeddings(self, token_embeddings, vocab_len, vocab_idx_to_token):
        """Set ``idx_to_vec`` for the tokens ``vocab_idx_to_token``: each row is the
        concatenation of the token's vectors in ``token_embeddings``.

        Row 0 takes each embedding's unknown vector; any other token an embedding does not
        index also gets that embedding's unknown vector (as a look-up of it would).
        """
        blocks = []
        for embed in token_embeddings:
            table = embed.idx_to_vec.asnumpy()
            rows = [UNKNOWN_IDX] + [embed.token_to_idx.get(token, UNKNOWN_IDX)
                                    for token in vocab_idx_to_token[1:vocab_len]]
            blocks.append(table[rows])
        self._vec_len = sum(embed.vec_len for embed in token_embeddings)
        self._idx_to_vec = nd.array(np.concatenate(blocks, axis=1).astype(np.float32))

    def _build_embedding_for_vocabulary(self, vocabulary):
        """Re-index this loaded embedding to ``vocabulary``'s tokens, keeping their vectors."""
        if vocabulary is None:
            return
        if not isinstance(vocabulary, vocab.Vocabulary):
            raise TextError('vocabulary must be a mx.contrib.text.vocab.Vocabulary, got %s'
                            % type(vocabulary).__name__)
        self._set_idx_to_vec_by_embeddings([self], len(vocabulary), vocabulary.idx_to_token)
        self._index_tokens_from_vocabulary(vocabulary)

    # ------------------------------------------------------------ using the vectors
    @property
    def vec_len(self):
        """int: the length of each token's vector."""
        return self._vec_len

    @property
    def idx_to_vec(self):
        """NDArray of shape (len(self), vec_len): row i is the vector of token i."""
        return self._idx_to_vec

    def get_vecs_by_tokens(self, tokens, lower_case_backup=False):
        """The vector of a token (1-D NDArray) or of a list of tokens (2-D, one row each).

        A token not indexed gets the unknown token's vector.  With ``lower_case_backup``, a
        token not found as it is is looked up again lower-cased ('Hello' finds 'hello').
        """
        single = not isinstance(tokens, list)
        if single:
            tokens = [tokens]
        if not tokens:
            raise TextError('get_vecs_by_tokens: the list of tokens is empty')

        def index(token):
            if token in self._token_to_idx or not lower_case_backup:
                return self._token_to_idx.get(token, UNKNOWN_IDX)
            return self._token_to_idx.get(token.lower(), UNKNOWN_IDX)

        # The Embedding operator is the look-up a network does: row i of the table per index.
        indices = nd.array([index(token) for token in tokens])
        vecs = nd.Embedding(indices, self._idx_to_vec, input_dim=self._idx_to_vec.shape[0],
                            output_dim=self._idx_to_vec.shape[1])
        return vecs[0] if single else vecs

    def update_token_vectors(self, tokens, new_vectors):
        """Overwrite the vectors of indexed tokens.

        Parameters
        ----------
        tokens : token or list of tokens
            Tokens already indexed.  To change the unknown vector, name the unknown token
            itself: an unindexed token is an error, not a silent update of row 0.
        new_vectors : NDArray
            Shape ``(len(tokens), vec_len)``; for one token also ``(vec_len,)``.
        """
        if self._idx_to_vec is None:
            raise TextError('update_token_vectors: this embedding has no vectors yet (idx_to_vec is not set)')
        single = not isinstance(tokens, list) or len(tokens) == 1
        if not isinstance(new_vectors, nd.NDArray):
            raise TextError('update_token_vectors: new_vectors must be an NDArray, got %s'
                            % type(new_vectors).__name__)
        if not isinstance(tokens, list):
            tokens = [tokens]
        if single and new_vectors.ndim == 1:
            new_vectors = new_vectors.reshape((1, -1))
        if new_vectors.ndim != 2:
            raise TextError('update_token_vectors: new_vectors must be 2-D (1-D also for a single token), '
                            'got shape %s' % (new_vectors.shape,))
        if new_vectors.shape != (len(tokens), self._vec_len):
            raise TextError('update_token_vectors: new_vectors has shape %s, but %d token(s) of vectors of '
                            'length %d need shape %s' % (new_vectors.shape, len(tokens), self._vec_len,
                                                         (len(tokens), self._vec_len)))

        indices = []
        for token in tokens:
            if token not in self._token_to_idx:
                raise TextError('update_token_vectors: token %r is not indexed. To update the unknown '
                                'vector, name the unknown token %r itself (this guards against updating '
                                'it by mistake)' % (token, self._idx_to_token[UNKNOWN_IDX]))
            indices.append(self._token_to_idx[token])
        if indices:
            self._idx_to_vec[nd.array(indices)] = new_vectors


def _undecodable_line(path, encoding):
    """'line N' for the first line of ``path`` that does not decode, read line by line as
    bytes (right for the ASCII-based encodings; for others, such as UTF-16, 'some line')."""
    with open(path, 'rb') as f:
        for line_num, raw in enumerate(f, 1):
            try:
                raw.decode(encoding)
            except UnicodeDecodeError:
                return 'line %d' % line_num
    return 'some line'


def _is_float(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


_REGISTRY.base = _TokenEmbedding


def _default_root():
    """$MXNET_HOME/embeddings (~/.mxnet/embeddings), read when an embedding is made."""
    return os.path.join(base.data_dir(), 'embeddings')


@register
class GloVe(_TokenEmbedding):
    """The GloVe word vectors (Pennington, Socher and Manning, 2014,
    https://nlp.stanford.edu/projects/glove/; vectors under the PDDL licence).

    Parameters
    ----------
    pretrained_file_name : str, default 'glove.840B.300d.txt'
        One of ``get_pretrained_file_names('glove')``.  The file (or the zip it is published
        in, e.g. glove.6B.zip for glove.6B.50d.txt) must be in ``embedding_root/glove/``:
        reflib does not download it.
    embedding_root : str, default $MXNET_HOME/embeddings
        The folder of embedding files.
    init_unknown_vec : callable, default nd.zeros
        Called with ``shape=vec_len`` for the unknown token's vector.
    vocabulary : Vocabulary or None
        Index this vocabulary's tokens (with their GloVe vectors) instead of every token of
        the file.
    ``**kwargs``
        ``unknown_token`` and ``reserved_tokens``, as for ``Vocabulary``.
    """

    pretrained_archive_name_sha1 = _pretrained.GLOVE_ARCHIVES
    pretrained_file_name_sha1 = _pretrained.GLOVE_FILES

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        # glove.<corpus>.<dim>d.txt comes in the archive named after the same corpus:
        # glove.6B.50d.txt in glove.6B.zip, glove.twitter.27B.25d.txt in glove.twitter.27B.zip.
        corpus = pretrained_file_name.split('.')[1]
        return next(archive for archive in cls.pretrained_archive_name_sha1 if archive.split('.')[1] == corpus)

    def __init__(self, pretrained_file_name='glove.840B.300d.txt', embedding_root=None,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        GloVe._check_pretrained_file_names(pretrained_file_name)
        super().__init__(**kwargs)
        path = GloVe._get_pretrained_file(embedding_root or _default_root(), pretrained_file_name)
        self._load_embedding(path, ' ', init_unknown_vec)
        self._build_embedding_for_vocabulary(vocabulary)


@register
class FastText(_TokenEmbedding):
    """The fastText word vectors (Bojanowski et al., 2016, https://fasttext.cc/; vectors under
    CC BY-SA 3.0): Wikipedia vectors per language (wiki.<lang>.vec) and crawl-300d-2M.vec.

    Parameters
    ----------
    pretrained_file_name : str, default 'wiki.simple.vec'
        One of ``get_pretrained_file_names('fasttext')``.  The file (or its zip, wiki.simple.zip
        for wiki.simple.vec) must be in ``embedding_root/fasttext/``: reflib does not download it.
    embedding_root : str, default $MXNET_HOME/embeddings
        The folder of embedding files.
    init_unknown_vec : callable, default nd.zeros
        Called with ``shape=vec_len`` for the unknown token's vector.
    vocabulary : Vocabulary or None
        Index this vocabulary's tokens instead of every token of the file.
    ``**kwargs``
        ``unknown_token`` and ``reserved_tokens``, as for ``Vocabulary``.
    """

    pretrained_archive_name_sha1 = _pretrained.FASTTEXT_ARCHIVES
    pretrained_file_name_sha1 = _pretrained.FASTTEXT_FILES

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        # wiki.en.vec is published as wiki.en.zip.
        return pretrained_file_name.rsplit('.', 1)[0] + '.zip'

    def __init__(self, pretrained_file_name='wiki.simple.vec', embedding_root=None,
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        FastText._check_pretrained_file_names(pretrained_file_name)
        super().__init__(**kwargs)
        path = FastText._get_pretrained_file(embedding_root or _default_root(), pretrained_file_name)
        self._load_embedding(path, ' ', init_unknown_vec)
        self._build_embedding_for_vocabulary(vocabulary)


class CustomEmbedding(_TokenEmbedding):
    """A token embedding from a file of one's own: ``token<d>v1<d>v2...<d>vk`` lines, ``<d>``
    being ``elem_delim`` and k the same on every line.

    Parameters
    ----------
    pretrained_file_path : str
        The file.
    elem_delim : str, default ' '
        What separates the token and the vector elements on a line.
    encoding : str, default 'utf8'
        The file's text encoding.
    init_unknown_vec : callable, default nd.zeros
        Called with ``shape=vec_len`` for the unknown token's vector, unless the file has a
        line for the unknown token.
    vocabulary : Vocabulary or None
        Index this vocabulary's tokens instead of every token of the file.
    ``**kwargs``
        ``unknown_token`` and ``reserved_tokens``, as for ``Vocabulary``.
    """

    def __init__(self, pretrained_file_path, elem_delim=' ', encoding='utf8',
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super().__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        self._build_embedding_for_vocabulary(vocabulary)


class CompositeEmbedding(_TokenEmbedding):
    """The tokens of ``vocabulary``, each with its vectors from ``token_embeddings`` put end to end.

    Parameters
    ----------
    vocabulary : Vocabulary
        The tokens to index, in its order.
    token_embeddings : _TokenEmbedding or list of them
        Where the vectors come from; a token one of them lacks gets that one's unknown vector
        in its part of the row.
    """

    def __init__(self, vocabulary, token_embeddings):
        # Not Vocabulary.__init__: the indexing is the given vocabulary's, copied below.
        if not isinstance(vocabulary, vocab.Vocabulary):
            raise TextError('CompositeEmbedding: vocabulary must be a mx.contrib.text.vocab.Vocabulary, got %s'
                            % type(vocabulary).__name__)
        if not isinstance(token_embeddings, list):
            token_embeddings = [token_embeddings]
        if not token_embeddings:
            raise TextError('CompositeEmbedding: token_embeddings is an empty list')
        for embed in token_embeddings:
            if not isinstance(embed, _TokenEmbedding) or embed.idx_to_vec is None:
                raise TextError('CompositeEmbedding: token_embeddings must be token embeddings with vectors '
                                '(such as CustomEmbedding or GloVe), got %s' % type(embed).__name__)
        self._index_tokens_from_vocabulary(vocabulary)
        self._set_idx_to_vec_by_embeddings(token_embeddings, len(self), self._idx_to_token)
