"""MNISTIter, CSVIter, PrefetchingIter, ResizeIter and LibSVMIter against MXNet 1.9.1 and by hand.

The golden file io_iters.json holds MXNet's batches for the cases of
golden/io_iters_cases.py (made by golden/gen_io_iters.py); the same code runs them here
with reflib.  The other tests compute what a batch must hold independently (idx bytes
/ 256, CSV values) and check refusals and the threads' clean shutdown.
"""
import gzip
import json
import logging
import os
import shutil
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError
from reflib.io.std_shuffle import std_shuffle_order

GOLDEN_DIR = os.path.join(os.path.dirname(__file__), 'golden')
sys.path.insert(0, GOLDEN_DIR)
import io_iters_cases as cases  # noqa: E402

GOLDEN = json.load(open(os.path.join(GOLDEN_DIR, 'io_iters.json')))


@pytest.fixture(scope='module')
def folder(tmp_path_factory):
    path = str(tmp_path_factory.mktemp('io_iters'))
    cases.write_files(path)
    return path


def _json(value):
    return json.loads(json.dumps(value))


@pytest.mark.parametrize('i', range(len(cases.MNIST_CASES)), ids=lambda i: 'mnist%d' % i)
def test_mnist_batches_match_mxnet(folder, i):
    assert _json(cases.run_mnist(mx, folder, cases.MNIST_CASES[i])) == GOLDEN['mnist'][i]


def _without_padding(epochs):
    """Batches with their padded rows dropped (MXNet's are uninitialised memory there)."""
    out = []
    for epoch in epochs:
        out.append([dict(b, data=b['data'][:len(b['data']) - b['pad']], label=b['label'][:len(b['label']) - b['pad']],
                         index=b['index'][:len(b['index']) - b['pad']]) for b in epoch])
    return out


@pytest.mark.parametrize('i', range(len(cases.CSV_CASES)), ids=lambda i: 'csv%d' % i)
def test_csv_batches_match_mxnet(folder, i):
    got, want = _json(cases.run_csv(mx, folder, cases.CSV_CASES[i])), GOLDEN['csv'][i]
    if cases.CSV_CASES[i]['batch_size'] > len(cases.CSV_DATA) and not cases.CSV_CASES[i].get('round_batch', True):
        # a batch larger than the file without round_batch: MXNet pads with whatever its fresh
        # buffer held; reflib's fresh buffer is zeros
        assert all(row == [0.0] * 3 for row in got['epochs'][0][0]['data'][5:])
        got['epochs'], want = _without_padding(got['epochs']), dict(want, epochs=_without_padding(want['epochs']))
    assert got == want


@pytest.mark.parametrize('name', sorted(GOLDEN['wrappers']))
def test_wrappers_match_mxnet(folder, name):
    assert _json(cases.run_wrappers(mx, folder)[name]) == GOLDEN['wrappers'][name]


# ------------------------------------------------------------------ MNISTIter by hand
def test_mnist_pixels_are_bytes_over_256_in_file_order(folder):
    images, labels = cases.mnist_images()
    it = mx.io.MNISTIter(image=os.path.join(folder, 'img'), label=os.path.join(folder, 'lab'), batch_size=20,
                         shuffle=False, silent=True)
    batches = list(it)
    assert len(batches) == 2                       # 50 images: the last 10 are dropped
    data = np.concatenate([b.data[0].asnumpy() for b in batches])
    assert data.dtype == np.float32 and data.shape == (40, 1, 28, 28)
    assert np.array_equal(data[:, 0], images[:40] / np.float32(256))
    assert np.array_equal(np.concatenate([b.label[0].asnumpy() for b in batches]), labels[:40])


def test_mnist_shuffle_is_a_seeded_permutation_of_the_part(folder):
    def order(**kw):
        it = mx.io.MNISTIter(image=os.path.join(folder, 'img'), label=os.path.join(folder, 'lab'), batch_size=5,
                             silent=True, **kw)
        return [int(round(v * 256)) for b in it for v in b.data[0].asnumpy()[:, 0, 0, 0]]
    first = order(seed=7, num_parts=2, part_index=1)
    assert sorted(first) == list(range(25, 50)) and first != sorted(first)
    assert first == order(seed=7, num_parts=2, part_index=1)
    assert first != order(seed=8, num_parts=2, part_index=1)
    assert first == [25 + j for j in std_shuffle_order(25, 7)]


def test_std_shuffle_order_is_a_permutation():
    for n in (0, 1, 2, 17, 1000):
        got = std_shuffle_order(n, 123)
        assert sorted(got) == list(range(n))


def test_mnist_logs_as_mxnet_unless_silent(folder, capsys):
    mx.io.MNISTIter(image=os.path.join(folder, 'img'), label=os.path.join(folder, 'lab'), batch_size=16)
    assert capsys.readouterr().err.strip() == 'MNISTIter: load 50 images, shuffle=1, shape=[16,1,28,28]'
    # flat, MXNet 1.9.1 prints the shape in parentheses (seen running example/module/*.py on both)
    mx.io.MNISTIter(image=os.path.join(folder, 'img'), label=os.path.join(folder, 'lab'), batch_size=16,
                    flat=True, shuffle=False)
    assert capsys.readouterr().err.strip() == 'MNISTIter: load 50 images, shuffle=0, shape=(16,784)'


def _write(path, data):
    with open(path, 'wb') as f:
        f.write(data)
    return path


def test_mnist_refuses_bad_files_by_name(folder, tmp_path):
    img, lab = os.path.join(folder, 'img'), os.path.join(folder, 'lab')
    raw = open(img, 'rb').read()
    gz = _write(str(tmp_path / 'img.gz'), gzip.compress(raw))
    short = _write(str(tmp_path / 'short'), raw[:1000])
    kw = dict(batch_size=4, silent=True)
    for image, label, match in [(gz, lab, 'gzip-compressed.*gunzip'),
                                (str(tmp_path / 'none'), lab, 'cannot open'),
                                (short, lab, 'truncated.*50x28x28 = 39200 bytes'),
                                (lab, img, 'magic number is 0x00000801, expected 0x00000803'),
                                (img, os.path.join(folder, 'lab8'), '20 labels for the 50 images')]:
        with pytest.raises(MXNetError, match=match):
            mx.io.MNISTIter(image=image, label=label, **kw)
    with pytest.raises(MXNetError, match='batch_size 64 is larger than the 50 images'):
        mx.io.MNISTIter(image=img, label=lab, batch_size=64, silent=True)
    with pytest.raises(MXNetError, match='part_index must be below num_parts'):
        mx.io.MNISTIter(image=img, label=lab, num_parts=2, part_index=2, **kw)
    with pytest.raises(MXNetError, match="dtype 'float64' is not supported"):
        mx.io.MNISTIter(image=img, label=lab, dtype='float64', **kw)
    with pytest.raises(TypeError):
        mx.io.MNISTIter(img, lab)                  # keyword arguments only, as in MXNet


def test_unknown_arguments_are_ignored_with_a_warning(folder, caplog):
    with caplog.at_level(logging.WARNING):
        it = mx.io.MNISTIter(image=os.path.join(folder, 'img'), label=os.path.join(folder, 'lab'), batch_size=8,
                             shufle=False, silent=True, prefetch_buffer=2, ctx='cpu')
    assert it.batch_size == 8
    assert 'ignoring unknown argument(s) shufle' in caplog.text and 'prefetch_buffer' not in caplog.text


def test_the_warning_leaves_the_scripts_logging_setup_alone(folder):
    # MXNet's example/module/mnist_mlp.py passes data_shape (unknown to MNISTIter), then calls
    # logging.basicConfig(level=DEBUG) and expects fit's INFO lines: a warning on the root
    # logger would have configured logging first, at WARNING
    script = ('import logging, reflib as mx\n'
              'mx.io.MNISTIter(image=%r, label=%r, batch_size=8, data_shape=(64,), silent=True)\n'
              'logging.basicConfig(level=logging.DEBUG)\n'
              'logging.info("fit would log this")\n'
              % (os.path.join(folder, 'img'), os.path.join(folder, 'lab')))
    run = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert 'ignoring unknown argument(s) data_shape' in run.stderr
    assert 'INFO:root:fit would log this' in run.stderr


def test_iter_next_uses_up_the_first_batch(folder):
    # MXNet's wrapper answers iter_next() True for its preloaded first batch without using it up
    # (a loop over iter_next/getdata repeats it forever); reflib's moves on
    it = mx.io.CSVIter(data_csv=os.path.join(folder, 'd.csv'), data_shape=(3,), batch_size=2)
    with pytest.raises(MXNetError, match='no current batch'):
        it.getdata()
    firsts, pads = [], []
    while it.iter_next():
        firsts.append(it.getdata().asnumpy()[0, 0])
        pads.append(it.getpad())
        assert it.getlabel().shape == (2,) and it.getindex().dtype == np.uint64
    assert firsts == [1.5, 3.125, 5.0] and pads == [0, 0, 1]


# ------------------------------------------------------------------ CSVIter by hand
def test_csv_refuses_bad_input_by_name(folder, tmp_path):
    bad = str(tmp_path / 'bad.csv')
    open(bad, 'w').write('1,2,3\n\n4,x,6\n')
    short = str(tmp_path / 'short.csv')
    open(short, 'w').write('1,2,3\n2,3\n')
    d = os.path.join(folder, 'd.csv')
    for kw, match in [(dict(data_csv=bad), r"line 3: 'x' is not a number"),
                      (dict(data_csv=short), 'line 2 has 2 values, the shape needs 3'),
                      (dict(data_csv=str(tmp_path / 'none.csv')), 'no such file'),
                      (dict(data_csv=d, label_csv=os.path.join(folder, 'l2.csv')), 'label_csv line 1 has 2 values'),
                      (dict(data_csv=d, dtype='float16'), "dtype 'float16' is not supported"),
                      (dict(data_csv=d, data_shape=(0, 3)), 'positive sizes')]:
        kw = dict(dict(data_shape=(3,), batch_size=2), **kw)
        with pytest.raises(MXNetError, match=match):
            mx.io.CSVIter(**kw)
    shutil.copy(d, str(tmp_path / 'few.csv'))
    open(str(tmp_path / 'one_label.csv'), 'w').write('1\n')
    with pytest.raises(MXNetError, match='has 1 rows for the 5 rows'):
        mx.io.CSVIter(data_csv=d, data_shape=(3,), batch_size=2, label_csv=str(tmp_path / 'one_label.csv'))


def test_csv_round_batch_needing_more_than_the_file_fails_clearly(folder):
    it = mx.io.CSVIter(data_csv=os.path.join(folder, 'd.csv'), data_shape=(3,), batch_size=7)
    list(it), it.reset(), list(it), it.reset()
    with pytest.raises(MXNetError, match='batch_size 7 needs more samples than the data has'):
        list(it)


def test_libsvm_iter_names_a_missing_file():
    # LibSVMIter itself is tested in test_io_sparse.py (MXNet crashes on a missing file)
    with pytest.raises(MXNetError, match="data_libsvm 'x.t': no such file or directory"):
        mx.io.LibSVMIter(data_libsvm='x.t', data_shape=(3,), batch_size=2)


# ------------------------------------------------------------------ PrefetchingIter
class _Failing(mx.io.DataIter):
    """Two good batches, then an error."""

    def __init__(self):
        super().__init__(2)
        self.provide_data = [mx.io.DataDesc('data', (2, 1))]
        self.provide_label = []
        self.n = 0

    def reset(self):
        self.n = 0

    def next(self):
        self.n += 1
        if self.n > 2:
            raise ValueError('broken record %d' % self.n)
        return mx.io.DataBatch([mx.nd.ones((2, 1)) * self.n], [], pad=0)


def _threads():
    return {t for t in threading.enumerate() if t.name.startswith('PrefetchingIter')}


def test_prefetching_reraises_in_the_caller_and_shuts_down():
    before = _threads()
    it = mx.io.PrefetchingIter(_Failing())
    assert [b.data[0].asnumpy()[0, 0] for b in (it.next(), it.next())] == [1, 2]
    with pytest.raises(ValueError, match='broken record 3'):
        it.next()
    it.reset()
    assert it.next().data[0].asnumpy()[0, 0] == 1
    it.close()
    assert _threads() == before
    with pytest.raises(MXNetError, match='has stopped'):
        it.next()


def test_prefetching_threads_end_with_the_iterator():
    before = _threads()
    it = mx.io.PrefetchingIter(mx.io.NDArrayIter(np.ones((6, 2)), batch_size=2))
    next(it)
    del it
    deadline = time.time() + 5
    while _threads() != before and time.time() < deadline:
        time.sleep(0.01)
    assert _threads() == before


def test_prefetching_refuses_mismatched_iterators():
    a = mx.io.NDArrayIter(np.ones((4, 2)), batch_size=2)
    b = mx.io.NDArrayIter(np.ones((6, 2)), batch_size=2)
    it = mx.io.PrefetchingIter([a, b])
    it.next(), it.next()
    with pytest.raises(MXNetError, match='ran out at different batches'):
        it.next()
    it.close()
    with pytest.raises(MXNetError, match=r"rename_data\[0\] has no new name for 'data'"):
        mx.io.PrefetchingIter(a, rename_data=[{'x': 'y'}])


def test_prefetching_equals_the_wrapped_iterator_when_shuffled():
    np.random.seed(4)
    plain = [b.data[0].asnumpy() for b in _epochs(
        mx.io.NDArrayIter(np.arange(20).reshape(10, 2), batch_size=3, shuffle=True), 3)]
    np.random.seed(4)
    fetched = [b.data[0].asnumpy() for b in _epochs(
        mx.io.PrefetchingIter(mx.io.NDArrayIter(np.arange(20).reshape(10, 2), batch_size=3, shuffle=True)), 3)]
    assert len(plain) == len(fetched) == 12
    assert all(np.array_equal(p, f) for p, f in zip(plain, fetched))


def _epochs(it, n):
    """The batches of ``n`` epochs of ``it``, reset after each."""
    batches = []
    for _ in range(n):
        batches += list(it)
        it.reset()
    return batches


# ------------------------------------------------------------------ the protocol
def test_datadesc_helpers():
    descs = mx.io.DataDesc.get_list([('a', (1, 2)), ('b', (3,))], [('a', np.float16), ('b', np.int32)])
    assert [(d.name, d.shape, d.dtype) for d in descs] == [('a', (1, 2), np.float16), ('b', (3,), np.int32)]
    assert repr(mx.io.DataDesc.get_list([('a', (1, 2))], None)[0]) == "DataDesc[a,(1, 2),<class 'numpy.float32'>,NCHW]"
    assert mx.io.DataDesc.get_batch_axis('NTC') == 0 and mx.io.DataDesc.get_batch_axis('CHW') == -1
    assert str(mx.io.DataBatch([mx.nd.ones((2, 3))])) == 'DataBatch: data shapes: [(2, 3)] label shapes: None'


def test_resize_iter_forwards_the_protocol():
    base = mx.io.NDArrayIter(np.arange(5).reshape(5, 1), batch_size=2)
    base.default_bucket_key = 7
    it = mx.io.ResizeIter(base, 3)
    assert it.default_bucket_key == 7 and it.batch_size == 2
    pads = []
    while it.iter_next():
        pads.append(it.getpad())
        assert it.getdata()[0].shape == (2, 1) and it.getindex() is None
    assert pads == [0, 0, 1]
