"""LibSVMIter and NDArrayIter over sparse input, against MXNet 1.9.1 and by hand.

The golden file io_sparse.json holds MXNet's batches (bit for bit) for the cases of
golden/gen_io_sparse.py, which this file imports to run the same cases with reflib.  The
other tests check the refusals (each must name the file and line, or the argument) and
compare larger inputs with scikit-learn's reader.
"""
import json
import logging
import os
import sys

import numpy as np
import pytest
import scipy.sparse

import reflib as mx
from reflib.base import MXNetError
from reflib.io.libsvm import part_span, read_libsvm

GOLDEN_DIR = os.path.join(os.path.dirname(__file__), 'golden')
sys.path.insert(0, GOLDEN_DIR)
import gen_io_sparse as cases  # noqa: E402

GOLDEN = json.load(open(os.path.join(GOLDEN_DIR, 'io_sparse.json')))


@pytest.fixture(scope='module')
def folder(tmp_path_factory):
    path = str(tmp_path_factory.mktemp('io_sparse'))
    cases.write_files(path)
    return path


def _json(value):
    return json.loads(json.dumps(value))


def test_golden_has_every_case():
    assert set(GOLDEN) - {'directory_order'} == set(cases.case_names())


# ------------------------------------------------------------------ against MXNet
@pytest.mark.parametrize('name', [n for n in cases.case_names() if n.startswith('libsvm:')])
def test_libsvm_batches_match_mxnet(folder, name):
    want = GOLDEN[name]
    if name == 'libsvm:dir_b2' and cases.directory_order(folder) != GOLDEN['directory_order']:
        pytest.skip('this file system lists the directory in another order than when MXNet was recorded')
    kwargs, _ = cases.libsvm_arguments(folder, name[len('libsvm:'):])
    if 'empty' in want:
        # MXNet lets a StopIteration out of the constructor for a part that holds no line
        with pytest.raises(MXNetError, match='holds no samples'):
            mx.io.LibSVMIter(**kwargs)
    elif 'error' in want:
        # MXNet fails when the epoch reaches a line the label file's part lacks; reflib at once
        assert "label_libsvm" in want['error']
        with pytest.raises(MXNetError, match=r'label_libsvm .* has \d+ samples for the \d+ of data_libsvm'):
            mx.io.LibSVMIter(**kwargs)
    else:
        assert _json(cases.run_case(mx, folder, name)) == want


@pytest.mark.parametrize('name', [n for n in cases.case_names() if n.startswith('ndarray:')])
def test_ndarray_iter_sparse_batches_match_mxnet(folder, name):
    want, got = GOLDEN[name], _json(cases.run_case(mx, folder, name))
    if 'error' not in want:
        assert got == want
    else:
        # refused as MXNet refuses: NotImplementedError where it raises that; an MXNetError
        # where it raises TypeError (a bare scipy matrix; the message says where it is accepted)
        assert 'error' in got and got['not_implemented'] == want['not_implemented']


def test_ndarray_iter_sparse_refusals_say_why():
    with pytest.raises(NotImplementedError, match="works only with last_batch_handle='discard'.*got 'pad'"):
        mx.io.NDArrayIter({'data': cases._scipy()}, batch_size=2)
    with pytest.raises(MXNetError, match=r"only inside a list or a dict: pass \[data\] or \{'data': data\}"):
        mx.io.NDArrayIter(cases._scipy(), np.arange(5), batch_size=2, last_batch_handle='discard')


def test_ndarray_iter_sparse_refusal_is_an_mxnet_error_too():
    with pytest.raises(MXNetError):
        mx.io.NDArrayIter(cases._csr(mx), batch_size=2)


# ------------------------------------------------------------------ LibSVMIter by hand
def _write(tmp_path, text, name='in.t'):
    path = tmp_path / name
    path.write_bytes(text.encode('latin-1'))
    return str(path)


def _iter(path, shape=(5,), batch_size=2, **kw):
    return mx.io.LibSVMIter(data_libsvm=path, data_shape=shape, batch_size=batch_size, **kw)


BAD_LINES = [
    ('1 0:1\n2 3\n', 2, "'3' is not index:value"),
    ('1 0:1 abc\n', 1, "'abc' is not index:value"),
    ('x 0:1\n', 1, "the label 'x' is not a number"),
    ('1 0:1\n\n1 -1:0.6\n', 3, "'-1:0.6': the index must be a whole number"),
    ('1 1.5:2\n', 1, "'1.5:2': the index must be a whole number"),
    ('1 0:x\n', 1, "'0:x': the value is not a number"),
    ('1 0:inf\n', 1, "'0:inf': the value is not a number"),
    ('1 0:1 qid:3\n', 1, "'qid:3': a qid must come right after the label"),
    ('1 0:1\n2 7:1\n', 2, 'column index 7 is outside the 5 columns'),
    ('1 0:1\n2 5:1\n', 2, r'column index 5 is outside the 5 columns of the shape \(indices are zero-based: 0 to 4\)'),
    ('1 0:1\n2 99999999999999999999999:1\n', 2, 'column index 99999999999999999999999 is outside'),
    ('1 0:1\n# a comment here\n2 1:1\n', 2, 'this comment line would be read as a sample by MXNet'),
]


@pytest.mark.parametrize('text,line,match', BAD_LINES)
def test_bad_lines_are_refused_naming_file_and_line(tmp_path, text, line, match):
    path = _write(tmp_path, text)
    with pytest.raises(MXNetError, match=match) as err:
        _iter(path)
    assert '%s:%d:' % (path, line) in str(err.value)


def test_line_numbers_count_crlf_once_and_follow_a_part(tmp_path):
    path = _write(tmp_path, '1 0:1\r\n2 1:1\r\n3 2:1\r\n4 9:1\r\n')
    with pytest.raises(MXNetError, match=r'in.t:4: column index 9'):
        _iter(path)
    with pytest.raises(MXNetError, match=r'in.t:4: column index 9'):
        _iter(path, batch_size=1, num_parts=2, part_index=1)
    assert _iter(path, batch_size=1, num_parts=2, part_index=0).next().label[0].asnumpy().tolist() == [1.0]


def test_comments_mxnet_skips_are_skipped(tmp_path):
    # on the first line, and anywhere when the comment holds no character of a number
    path = _write(tmp_path, '# header 2024\n1 0:1 # trailing 3:3\n#~~ no digits ~~\n2 1:2\n')
    batch = _iter(path).next()
    assert batch.data[0].indices.asnumpy().tolist() == [0, 1]
    assert batch.label[0].asnumpy().tolist() == [1.0, 2.0]


def test_a_byte_order_mark_is_passed_over(tmp_path):
    path = _write(tmp_path, '\xef\xbb\xbf1 0:1\n2 1:1\n')
    assert _iter(path).next().label[0].asnumpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize('kw,match', [
    (dict(round_batch=False), 'round_batch=False is not supported'),
    (dict(round_batch='0'), 'round_batch=False is not supported'),
    (dict(shape=(5, 1)), 'data_shape must have one dimension'),
    (dict(label_shape=(3,)), r'label_shape must be \(1,\) without label_libsvm'),
    (dict(batch_size=0), 'batch_size must be at least 1'),
    (dict(num_parts=0), 'num_parts must be at least 1'),
    (dict(part_index=-1), 'part_index must be at least 0'),
    (dict(num_parts=2, part_index=2), 'part_index must be below num_parts'),
    (dict(dtype='float64'), "dtype 'float64' is not supported"),
    (dict(batch_size=5), 'batch_size 5 needs more samples than the data has'),
])
def test_bad_arguments_are_refused(tmp_path, kw, match):
    path = _write(tmp_path, '1 0:1\n2 1:1\n')
    kw = dict(kw)
    shape = kw.pop('shape', (5,))
    with pytest.raises(MXNetError, match=match):
        _iter(path, shape, **kw)


def test_label_file_arguments_are_checked(tmp_path):
    data = _write(tmp_path, '1 0:1\n2 1:1\n3 2:1\n', 'd.t')
    label = _write(tmp_path, '0 0:1\n0 1:1\n', 'l.t')
    with pytest.raises(MXNetError, match=r'label_shape must be more than \(1,\) with label_libsvm'):
        _iter(data, label_libsvm=label)
    with pytest.raises(MXNetError, match='label_shape must have one dimension'):
        _iter(data, label_libsvm=label, label_shape=(2, 3))
    with pytest.raises(MXNetError, match=r"label_libsvm '.*l.t' has 2 samples for the 3 of data_libsvm '.*d.t'"):
        _iter(data, label_libsvm=label, label_shape=(2,))
    with pytest.raises(MXNetError, match='l.t:2: column index 1 is outside the 1 columns'):
        read_libsvm(label, 1, what='label_libsvm')


def test_missing_and_empty_inputs_are_named(tmp_path):
    with pytest.raises(MXNetError, match=r"data_libsvm '.*nowhere.t': no such file or directory"):
        _iter(str(tmp_path / 'nowhere.t'))
    with pytest.raises(MXNetError, match='holds no data'):
        _iter(_write(tmp_path, ''))
    (tmp_path / 'dir').mkdir()
    with pytest.raises(MXNetError, match='holds no data'):
        _iter(str(tmp_path / 'dir'))
    with pytest.raises(MXNetError, match='holds no samples'):
        _iter(_write(tmp_path, '\n  \n#~~~\n', 'blank.t'))


def test_a_directory_is_read_in_the_order_the_system_lists_it(tmp_path, monkeypatch):
    (tmp_path / 'dir').mkdir()
    for name, label in (('a.t', 1), ('b.t', 2), ('c.t', 3)):
        (tmp_path / 'dir' / name).write_text('%d %d:1\n' % (label, label))
    monkeypatch.setattr(os, 'listdir', lambda path: ['c.t', 'a.t', 'b.t'])
    batch = _iter(str(tmp_path / 'dir'), batch_size=3).next()
    assert batch.label[0].asnumpy().tolist() == [3.0, 1.0, 2.0]


def test_part_spans_follow_mxnet_line_splitter():
    # each cut moves past the line it falls in, even a line that starts exactly at the cut
    text = 'aa\nbb\ncc\n'
    assert part_span([text], 3, 0) == (0, 6)      # the cut at 3 is the start of 'bb': it stays in part 0
    assert part_span([text], 3, 1) == (6, 9)
    assert part_span([text], 3, 2) == (9, 9)
    # a cut at a file's start stays there; a file without a final line break ends its line
    assert part_span(['aa\nb', 'cc\n'], 2, 1) == (4, 7)
    assert part_span(['aaaa', 'cc\n'], 2, 1) == (4, 7)


def test_iterator_protocol(tmp_path):
    path = _write(tmp_path, cases.DOC_DATA)
    it = _iter(path, (3,), 3)
    seen = []
    while it.iter_next():
        data = it.getdata()
        data.check_format(True)
        assert isinstance(data, mx.nd.sparse.CSRNDArray) and data.context == mx.cpu()
        seen.append((it.getlabel().asnumpy().tolist(), it.getpad(), it.getindex().tolist()))
    assert seen == [([1.0, -2.0, -3.0], 0, [0, 1, 2]), ([4.0, 1.0, -2.0], 2, [3, 0, 1])]
    # the next epochs start after the borrowed lines: rows 2, 3 (+ 0), then rows 1, 2, 3
    it.reset()
    assert [(b.pad, b.index.tolist()) for b in it] == [(1, [2, 3, 0])]
    it.reset()
    assert [(b.pad, b.index.tolist()) for b in it] == [(0, [1, 2, 3])]


def test_unknown_arguments_are_ignored_with_a_warning(tmp_path, caplog):
    path = _write(tmp_path, cases.DOC_DATA)
    with caplog.at_level(logging.WARNING):     # whatever level an earlier test left the root logger at
        it = _iter(path, (3,), 2, shuffle=True, prefetch_buffer=2, ctx='cpu')
    assert it.provide_data[0].shape == (2, 3)
    assert 'ignoring unknown argument(s) shuffle' in caplog.text


def _svmlight_text(rng, rows, columns):
    lines = []
    for i in range(rows):
        cols = np.sort(rng.choice(columns, rng.randint(0, 12), replace=False))
        # quarters are exact in every parser, so scikit-learn's values must be the same
        vals = rng.randint(-400, 400, len(cols)) / 4.0
        lines.append(' '.join(['%d' % rng.randint(0, 3)] + ['%d:%s' % (c, v) for c, v in zip(cols, vals)]))
    return '\n'.join(lines) + '\n'


def test_a_larger_file_reads_as_scikit_learn_reads_it(tmp_path):
    sklearn_datasets = pytest.importorskip('sklearn.datasets')
    rng = np.random.RandomState(0)
    path = _write(tmp_path, _svmlight_text(rng, 3000, 500))
    matrix, labels = sklearn_datasets.load_svmlight_file(path, n_features=500, zero_based=True, dtype=np.float32)
    it = _iter(path, (500,), 1000)
    got = [batch.data[0].asscipy() for batch in it]
    both = scipy.sparse.vstack(got).tocsr()
    assert (both != matrix).nnz == 0
    assert np.array_equal(both.indptr, matrix.indptr) and np.array_equal(both.indices, matrix.indices)
    it.reset()
    assert np.array_equal(np.concatenate([b.label[0].asnumpy() for b in it]), labels.astype(np.float32))


def test_parts_together_hold_every_line_once(tmp_path):
    rng = np.random.RandomState(1)
    path = _write(tmp_path, _svmlight_text(rng, 200, 50))
    whole = read_libsvm(path, 50)
    for num_parts in (2, 3, 7):
        parts = [read_libsvm(path, 50, num_parts, k) for k in range(num_parts)]
        assert np.array_equal(np.concatenate([p.labels for p in parts]), whole.labels)
        assert np.array_equal(np.concatenate([p.indices for p in parts]), whole.indices)
        assert [w for p in parts for w in p.where] == whole.where


# ------------------------------------------------------------------ NDArrayIter by hand
def test_ndarray_iter_csr_batches_are_dense_rows():
    dense = cases.dense_5x4()
    it = mx.io.NDArrayIter(mx.nd.sparse.csr_matrix(dense), dense[:, 0], batch_size=2, last_batch_handle='discard')
    batches = list(it)
    assert [type(b.data[0]) for b in batches] == [mx.nd.NDArray, mx.nd.NDArray]
    assert np.array_equal(np.concatenate([b.data[0].asnumpy() for b in batches]), dense[:4])
    assert isinstance(it.data[0][1], mx.nd.sparse.CSRNDArray)      # the input itself stays CSR


def test_ndarray_iter_csr_shuffle_keeps_csr_and_follows_numpys_generator():
    dense = cases.dense_5x4(np.float64)
    np.random.seed(11)
    it = mx.io.NDArrayIter({'data': scipy.sparse.csr_matrix(dense)}, np.arange(5), batch_size=5,
                           shuffle=True, last_batch_handle='discard')
    np.random.seed(11)
    order = np.arange(5)
    np.random.shuffle(order)
    assert isinstance(it.data[0][1], mx.nd.sparse.CSRNDArray) and it.data[0][1].dtype == np.float64
    batch = it.next()
    assert np.array_equal(batch.data[0].asnumpy(), dense[order])
    assert np.array_equal(batch.label[0].asnumpy(), order.astype(np.float32))


def test_ndarray_iter_other_scipy_formats_are_refused():
    coo = scipy.sparse.coo_matrix(cases.dense_5x4())
    with pytest.raises(MXNetError, match='invalid type coo_matrix'):
        mx.io.NDArrayIter({'data': coo}, batch_size=2, last_batch_handle='discard')
