"""mx.contrib.text (vocabularies, token embeddings, token counting): the same calls under
MXNet 1.9.1 (gen_text.py records text.json) and under reflib (test_contrib_text.py).

``run(mx, folder)`` writes its small embedding files into ``folder`` and returns a JSON-able
dict: arrays as [shape, dtype, rounded values], errors as the names of the standard
exception classes they are instances of (MXNet asserts where reflib raises a TextError, which
is an AssertionError too, so the class names, not the messages, are what must agree).
Nothing here downloads: GloVe and FastText are only asked for their lists of file names.
"""

import collections
import os
import warnings

import numpy as np

_ERROR_KINDS = (AssertionError, ValueError, KeyError, TypeError, IndexError, OSError)


def _arr(a):
    a = a.asnumpy() if hasattr(a, 'asnumpy') else np.asarray(a)
    return [list(a.shape), np.dtype(a.dtype).name, np.round(a.astype(np.float64), 5).tolist()]


def _error(fn):
    """The standard exception classes the error ``fn()`` raises is an instance of."""
    try:
        fn()
    except Exception as err:  # noqa: BLE001 -- recording which kind it is
        return sorted(kind.__name__ for kind in _ERROR_KINDS if isinstance(err, kind))
    return 'no error'


def _vocab_record(v):
    return {'idx_to_token': v.idx_to_token, 'token_to_idx': sorted(v.token_to_idx.items()),
            'len': len(v), 'unknown_token': v.unknown_token, 'reserved_tokens': v.reserved_tokens}


def _embed_record(e):
    return dict(_vocab_record(e), vec_len=e.vec_len, idx_to_vec=_arr(e.idx_to_vec))


def _write(folder, name, lines, delim=' '):
    path = os.path.join(folder, name)
    with open(path, 'w', encoding='utf8') as f:
        f.write(''.join(delim.join(line) + '\n' for line in lines))
    return path


def _counting(text):
    source = ' Life is great ! \n life is good . \n'
    out = {'plain': sorted(text.utils.count_tokens_from_str(source).items()),
           'lower': sorted(text.utils.count_tokens_from_str(source, to_lower=True).items()),
           'star': sorted(text.utils.count_tokens_from_str('*Life*is*great*!*\n*life*is*good*.*\n',
                                                           '\\*', '\\n', True).items())}
    counter = collections.Counter({'life': 5, 'new': 1})
    updated = text.utils.count_tokens_from_str(source, counter_to_update=counter)
    out['update'] = [sorted(updated.items()), updated is counter]
    return out


def _vocabularies(text):
    counter = collections.Counter(['a', 'b', 'b', 'c', 'c', 'c', 'some_word$'])
    settings = [
        {},
        {'most_freq_count': 2},
        {'most_freq_count': 0},
        {'most_freq_count': 100},
        {'min_freq': 2},
        {'min_freq': 3, 'unknown_token': '<unknown>'},
        {'min_freq': 100},
        {'most_freq_count': 1, 'reserved_tokens': ['b']},
        {'reserved_tokens': ['b', 'a'], 'unknown_token': '<u>'},
        {'most_freq_count': 2, 'reserved_tokens': ['<pad>', 'b']},
        {'most_freq_count': -1},
        {'min_freq': 2, 'most_freq_count': 1, 'reserved_tokens': ['<pad>']},
    ]
    out = {}
    for k, kwargs in enumerate(settings):
        out['vocab %02d %s' % (k, sorted(kwargs.items()))] = _vocab_record(text.vocab.Vocabulary(counter, **kwargs))
    out['vocab no counter'] = _vocab_record(text.vocab.Vocabulary(reserved_tokens=['<pad>', '<bos>']))
    ints = text.vocab.Vocabulary(collections.Counter([3, 1, 1, 2, 2, 2]), unknown_token=0, reserved_tokens=[9])
    out['vocab int tokens'] = _vocab_record(ints)
    ties = text.vocab.Vocabulary(collections.Counter({'z': 2, 'y': 2, 'x': 2, 'w': 1}), most_freq_count=2)
    out['vocab ties'] = _vocab_record(ties)

    v = text.vocab.Vocabulary(counter, unknown_token='<unknown>', reserved_tokens=['<pad>'])
    out['to_indices'] = [v.to_indices('c'), v.to_indices(['c', 'a', 'nope', 'b']), v.to_indices([]),
                         v.to_indices('nope'), v.to_indices(['<pad>'])]
    out['to_tokens'] = [v.to_tokens(0), v.to_tokens([2, 0, 2, 3]), v.to_tokens([]), v.to_tokens(-1)]

    bad = {
        'to_tokens past end': lambda: v.to_tokens(100),
        'to_tokens in list past end': lambda: v.to_tokens([1, 100]),
        'to_tokens float': lambda: v.to_tokens(1.0),
        'min_freq 0': lambda: text.vocab.Vocabulary(counter, min_freq=0),
        'reserved duplicate': lambda: text.vocab.Vocabulary(counter, reserved_tokens=['b', 'b']),
        'reserved has unknown': lambda: text.vocab.Vocabulary(counter, reserved_tokens=['b', '<unk>']),
        'counter is a dict': lambda: text.vocab.Vocabulary({'a': 1}),
    }
    out.update({'error ' + name: _error(fn) for name, fn in bad.items()})
    return out


def _embeddings(mx, text, folder):
    nd = mx.nd
    out = {}
    tab = _write(folder, 'tab.txt', [['a', '0.1', '0.2', '0.3', '0.4', '0.5'],
                                     ['b', '0.6', '0.7', '0.8', '0.9', '1.0'],
                                     ['C', '-1', '-2', '-3', '-4', '-5']], '\t')
    e = text.embedding.CustomEmbedding(tab, '\t')
    out['custom tab'] = _embed_record(e)
    out['custom lookups'] = {
        'one': _arr(e.get_vecs_by_tokens('b')),
        'unknown': _arr(e.get_vecs_by_tokens('A')),
        'lower backup': _arr(e.get_vecs_by_tokens('A', lower_case_backup=True)),
        'no upper backup': _arr(e.get_vecs_by_tokens('c', lower_case_backup=True)),
        'list': _arr(e.get_vecs_by_tokens(['b', 'zzz', 'a', 'C'])),
        'list of one': _arr(e.get_vecs_by_tokens(['a'])),
    }

    ones = text.embedding.CustomEmbedding(tab, '\t', init_unknown_vec=nd.ones, unknown_token='<u>')
    out['custom init ones'] = _embed_record(ones)

    # A file with its own unknown vector, a header line, a duplicate token and an
    # unknown-token duplicate (both skipped with warnings).
    with_unk = _write(folder, 'unk.txt', [['3', '5'],
                                          ['x', '1', '2', '3'],
                                          ['<unk>', '9', '9', '9'],
                                          ['y', '4', '5', '6'],
                                          ['x', '7', '7', '7'],
                                          ['<unk>', '8', '8', '8'],
                                          ['z', '-1.5e-1', '2E1', '0']])
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        u = text.embedding.CustomEmbedding(with_unk, init_unknown_vec=nd.ones)
    out['custom file unknown, header, duplicates'] = _embed_record(u)
    out['custom file unknown lookups'] = _arr(u.get_vecs_by_tokens(['nothing', 'x', '<unk>']))

    counter = collections.Counter(['c', 'c', 'b', 'b', 'b', 'a', 'zz', 'zz'])
    voc = text.vocab.Vocabulary(counter, most_freq_count=None, min_freq=1, unknown_token='<unk>',
                                reserved_tokens=['<pad>'])
    ev = text.embedding.CustomEmbedding(tab, '\t', vocabulary=voc)
    out['custom with vocabulary'] = _embed_record(ev)
    out['custom with vocabulary lookups'] = _arr(ev.get_vecs_by_tokens(['a', 'C', 'zz', '<pad>', 'what']))

    # update_token_vectors: one token (1-D and 2-D), several, and the unknown token itself.
    ev.update_token_vectors('a', nd.array([1, 1, 1, 1, 1]))
    ev.update_token_vectors(['b'], nd.array([[2, 2, 2, 2, 2]]))
    ev.update_token_vectors(['c', '<pad>'], nd.array([[3, 3, 3, 3, 3], [4, 4, 4, 4, 4]]))
    ev.update_token_vectors('<unk>', nd.array([5, 5, 5, 5, 5]))
    out['updated'] = _arr(ev.idx_to_vec)
    out['updated unknown lookup'] = _arr(ev.get_vecs_by_tokens('what'))
    bad = {
        'update unknown token': lambda: ev.update_token_vectors('what', nd.array([1, 1, 1, 1, 1])),
        'update wrong length': lambda: ev.update_token_vectors('a', nd.array([1, 1, 1])),
        'update list wrong rows': lambda: ev.update_token_vectors(['a', 'b'], nd.array([[1, 1, 1, 1, 1]])),
        'update list 1-D': lambda: ev.update_token_vectors(['a', 'b'], nd.array([1, 1, 1, 1, 1])),
        'update not an NDArray': lambda: ev.update_token_vectors('a', [1, 1, 1, 1, 1]),
    }
    out.update({'error ' + name: _error(fn) for name, fn in bad.items()})

    # CompositeEmbedding: one embedding, then two side by side.
    other = _write(folder, 'other.txt', [['a', '0.01', '0.02'], ['zz', '0.5', '0.6'], ['<unk2>', '7', '8']])
    e2 = text.embedding.CustomEmbedding(other, unknown_token='<unk2>')
    out['other'] = _embed_record(e2)
    one = text.embedding.CompositeEmbedding(voc, e)
    out['composite one'] = _embed_record(one)
    two = text.embedding.CompositeEmbedding(voc, [e, e2])
    out['composite two'] = _embed_record(two)
    out['composite two lookups'] = _arr(two.get_vecs_by_tokens(['zz', 'nope', 'C']))
    two.update_token_vectors(['zz'], nd.array([[0, 1, 2, 3, 4, 5, 6]]))
    out['composite two updated'] = _arr(two.idx_to_vec)

    # Bad files: a token alone on a line, a short vector, a word where a number belongs,
    # a missing file, an empty line.
    cases = {
        'token alone': [['a', '1', '2'], ['b']],
        'short vector': [['a', '1', '2', '3'], ['b', '1', '2', '3'], ['c', '1', '2']],
        'not a number': [['a', '1', '2'], ['b', '1', 'two']],
        'empty line': [['a', '1', '2'], [''], ['b', '1', '2']],
    }
    for name, lines in cases.items():
        path = _write(folder, name.replace(' ', '_') + '.txt', lines)
        out['error file ' + name] = _error(lambda: text.embedding.CustomEmbedding(path))
    out['error file missing'] = _error(lambda: text.embedding.CustomEmbedding(os.path.join(folder, 'none.txt')))
    out['error composite not embeddings'] = _error(lambda: text.embedding.CompositeEmbedding(voc, [voc]))
    out['error vocabulary not a Vocabulary'] = _error(lambda: text.embedding.CustomEmbedding(tab, '\t',
                                                                                           vocabulary=['a']))
    return out


def _registry(text):
    names = text.embedding.get_pretrained_file_names()
    out = {'glove files': text.embedding.get_pretrained_file_names('glove'),
           'fasttext count': len(text.embedding.get_pretrained_file_names('fasttext')),
           'fasttext first': text.embedding.get_pretrained_file_names('fasttext')[:5],
           'has glove and fasttext': sorted(k for k in names if k in ('glove', 'fasttext')),
           'url glove': text.embedding.GloVe._get_pretrained_file_url('glove.twitter.27B.25d.txt'),
           'url fasttext': text.embedding.FastText._get_pretrained_file_url('wiki.en.vec')}
    bad = {
        'unknown embedding name': lambda: text.embedding.get_pretrained_file_names('unknown$$'),
        'unknown pretrained file glove': lambda: text.embedding.GloVe('glove.no.such.txt'),
        'unknown pretrained file fasttext': lambda: text.embedding.create('fasttext', pretrained_file_name='x.vec'),
        'create unregistered': lambda: text.embedding.create('no_such_embedding'),
    }
    out.update({'error ' + name: _error(fn) for name, fn in bad.items()})
    return out


def run(mx, folder):
    text = mx.contrib.text
    record = {}
    for part, value in [('count', _counting(text)), ('vocab', _vocabularies(text)),
                        ('embed', _embeddings(mx, text, folder)), ('registry', _registry(text))]:
        for name, v in value.items():
            record['%s: %s' % (part, name)] = v
    return record
