"""gluon.data.vision's data sets against MXNet 1.9.1, and on missing or damaged files.

golden/gluon_vision.json holds MXNet's samples (images by digest, labels with their
dtypes), lengths, batches and errors for the synthetic files golden/gen_gluon_vision.py
writes; this file imports that script, writes the same files, runs the same cases with
reflib and compares them exactly (errors by the built-in classes MXNet's derive from).
The rest checks what MXNet does not do the same way: reflib never downloads and names the
missing file, reads CIFAR from its official folder or archive, and refuses truncated or
damaged files with an error naming them.
"""
import builtins
import gzip
import io
import json
import os
import socket
import sys
import tarfile
import warnings

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError
from reflib.gluon.data import vision
from reflib.gluon.data.vision.datasets import DatasetFileError
from reflib.gluon.utils import DownloadError

GOLDEN_DIR = os.path.join(os.path.dirname(__file__), 'golden')
sys.path.insert(0, GOLDEN_DIR)
import gen_gluon_vision as cases  # noqa: E402

with open(os.path.join(GOLDEN_DIR, 'gluon_vision.json')) as f:
    GOLDEN = json.load(f)


def _errors_as_classes(got, want, where):
    """``got`` equals ``want``, an error matching when reflib's derives from every built-in
    class MXNet's does."""
    if isinstance(want, dict) and set(want) == {'error', 'builtin'}:
        assert isinstance(got, dict) and 'builtin' in got, '%s: reflib gave %r, MXNet raised %s' % (where, got, want)
        assert set(want['builtin']) <= set(got['builtin']), '%s: reflib %s, MXNet %s' % (where, got, want)
        assert want['error'] == 'MXNetError' or hasattr(builtins, want['error']), where
    elif isinstance(want, dict):
        assert isinstance(got, dict) and set(got) == set(want), '%s: keys %s, MXNet %s' % (where, got, want)
        for key in want:
            _errors_as_classes(got[key], want[key], '%s[%r]' % (where, key))
    else:
        assert got == want, '%s: reflib %r, MXNet %r' % (where, got, want)


def test_golden_has_every_case():
    assert set(GOLDEN) == set(cases.CASES)


@pytest.mark.parametrize('name', sorted(cases.CASES))
def test_same_as_mxnet(name):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        got = cases.run_case(mx, name)
    if name == 'public_names':
        # reflib adds its DatasetFileError to the module's names
        assert set(got['datasets']) - set(GOLDEN[name]['datasets']) == {'DatasetFileError'}
        got['datasets'] = GOLDEN[name]['datasets']
    _errors_as_classes(got, GOLDEN[name], name)


# ------------------------------------------------------------------ no download
@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError('a data set opened a network connection')
    monkeypatch.setattr(socket, 'socket', refuse)
    monkeypatch.setattr(socket, 'create_connection', refuse)


@pytest.mark.parametrize('cls, files', [
    (vision.MNIST, ['train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz']),
    (vision.FashionMNIST, ['train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz']),
    (vision.CIFAR10, ['data_batch_1.bin', 'cifar-10-binary.tar.gz']),
    (vision.CIFAR100, ['train.bin', 'cifar-100-binary.tar.gz'])])
def test_a_missing_file_is_named_with_its_root_and_nothing_is_downloaded(tmp_path, no_network, cls, files):
    with pytest.raises(DownloadError) as info:
        cls(root=str(tmp_path))
    message = str(info.value)
    assert str(tmp_path) in message and 'does not download' in message
    assert all(name in message for name in files), message
    assert isinstance(info.value, OSError) and isinstance(info.value, MXNetError)
    assert os.listdir(str(tmp_path)) == []


def test_only_the_chosen_part_is_needed(tmp_path):
    cases.write_mnist(str(tmp_path), 't10k', 2, seed=3)
    assert len(vision.MNIST(root=str(tmp_path), train=False)) == 2
    with pytest.raises(DownloadError, match='train-images-idx3-ubyte.gz'):
        vision.MNIST(root=str(tmp_path))


def test_root_may_start_with_a_tilde(tmp_path, monkeypatch):
    monkeypatch.setenv('HOME', str(tmp_path))
    cases.write_mnist(str(tmp_path / 'digits'), 'train', 2, seed=1)
    assert len(vision.MNIST(root='~/digits')) == 2


# ------------------------------------------------------------------ CIFAR's other layouts
def _cifar_archive(path, folder, names):
    with tarfile.open(path, 'w:gz') as tar:
        for k, name in enumerate(names):
            raw = cases.cifar_records(2, 1, seed=k)
            info = tarfile.TarInfo('%s/%s' % (folder, name) if folder else name)
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))


def _labels(dataset):
    return [int(dataset[i][1]) for i in range(len(dataset))]


def test_cifar_reads_the_official_folder(tmp_path):
    cases.write_cifar10(str(tmp_path / 'cifar-10-batches-bin'))
    flat = tmp_path / 'flat'
    cases.write_cifar10(str(flat))
    assert _labels(vision.CIFAR10(root=str(tmp_path), train=False)) == _labels(
        vision.CIFAR10(root=str(flat), train=False))


@pytest.mark.parametrize('folder', ['', 'cifar-10-batches-bin'])
def test_cifar_reads_inside_its_archive(tmp_path, folder):
    names = ['data_batch_%d.bin' % i for i in range(1, 6)] + ['test_batch.bin']
    _cifar_archive(str(tmp_path / 'cifar-10-binary.tar.gz'), folder, names)
    train = vision.CIFAR10(root=str(tmp_path))
    assert len(train) == 10 and train[0][0].shape == (32, 32, 3)
    assert _labels(vision.CIFAR10(root=str(tmp_path), train=False)) == [5, 2]
    assert sorted(os.listdir(str(tmp_path))) == ['cifar-10-binary.tar.gz']     # nothing unpacked


def test_cifar_archive_without_the_file(tmp_path):
    _cifar_archive(str(tmp_path / 'cifar-10-binary.tar.gz'), '', ['data_batch_1.bin'])
    with pytest.raises(DatasetFileError, match='holds no test_batch.bin'):
        vision.CIFAR10(root=str(tmp_path), train=False)


def test_cifar_damaged_archive(tmp_path):
    (tmp_path / 'cifar-10-binary.tar.gz').write_bytes(b'\x1f\x8b' + b'\x00' * 50)
    with pytest.raises(DatasetFileError, match='cifar-10-binary.tar.gz'):
        vision.CIFAR10(root=str(tmp_path))


# ------------------------------------------------------------------ damaged files
def _mnist_root(tmp_path):
    cases.write_mnist(str(tmp_path), 'train', 3, seed=1)
    return tmp_path


def _rewrite_gz(path, change):
    with gzip.open(str(path), 'rb') as f:
        raw = f.read()
    path.write_bytes(gzip.compress(change(raw), mtime=0))


@pytest.mark.parametrize('damage, match', [
    (lambda raw: raw[:-5], 'truncated'),
    (lambda raw: raw[:10], 'too short'),
    (lambda raw: b'\x00\x00\x08\x01' + raw[4:], 'not an idx file'),
])
def test_damaged_mnist_images_are_named(tmp_path, damage, match):
    root = _mnist_root(tmp_path)
    path = root / 'train-images-idx3-ubyte.gz'
    _rewrite_gz(path, damage)
    with pytest.raises(DatasetFileError, match=match) as info:
        vision.MNIST(root=str(root))
    assert str(path) in str(info.value)


def test_truncated_gzip_is_named(tmp_path):
    root = _mnist_root(tmp_path)
    path = root / 'train-images-idx3-ubyte.gz'
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(DatasetFileError, match='cannot read .*train-images-idx3-ubyte.gz'):
        vision.MNIST(root=str(root))


def test_a_file_that_is_not_gzip_is_named(tmp_path):
    root = _mnist_root(tmp_path)
    (root / 'train-labels-idx1-ubyte.gz').write_bytes(b'plain bytes, not gzip')
    with pytest.raises(DatasetFileError, match='train-labels-idx1-ubyte.gz'):
        vision.MNIST(root=str(root))


def test_image_and_label_counts_must_agree(tmp_path):
    root = _mnist_root(tmp_path)
    _rewrite_gz(root / 'train-labels-idx1-ubyte.gz', lambda raw: raw[:4] + (2).to_bytes(4, 'big') + raw[8:10])
    with pytest.raises(DatasetFileError, match='3 images but .* 2 labels'):
        vision.MNIST(root=str(root))


def test_a_label_past_the_classes_is_refused(tmp_path):
    root = _mnist_root(tmp_path)
    _rewrite_gz(root / 'train-labels-idx1-ubyte.gz', lambda raw: raw[:8] + b'\x01\x0c\x02')
    with pytest.raises(DatasetFileError, match='label 12, but there are only 10 classes'):
        vision.MNIST(root=str(root))


def test_a_huge_header_count_costs_no_more_than_the_file(tmp_path):
    root = _mnist_root(tmp_path)
    _rewrite_gz(root / 'train-images-idx3-ubyte.gz', lambda raw: raw[:4] + (2 ** 31).to_bytes(4, 'big') + raw[8:])
    with pytest.raises(DatasetFileError, match='truncated'):
        vision.MNIST(root=str(root))


def test_truncated_cifar_batch_is_named(tmp_path):
    cases.write_cifar100(str(tmp_path))
    path = tmp_path / 'test.bin'
    path.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(DatasetFileError, match='test.bin is truncated or damaged: 6147 bytes'):
        vision.CIFAR100(root=str(tmp_path), train=False)


def test_cifar100_label_ranges(tmp_path):
    cases.write_cifar100(str(tmp_path))
    path = tmp_path / 'train.bin'
    raw = bytearray(path.read_bytes())
    raw[0] = 25                    # coarse labels go up to 19, fine ones to 99
    path.write_bytes(bytes(raw))
    assert len(vision.CIFAR100(root=str(tmp_path), fine_label=True)) == 3
    with pytest.raises(DatasetFileError, match='label 25, but there are only 20 classes'):
        vision.CIFAR100(root=str(tmp_path))


def test_record_with_a_bad_image_names_the_record_and_file(tmp_path):
    path = cases.write_records(mx, str(tmp_path))
    dataset = vision.ImageRecordDataset(path)
    with pytest.raises(DatasetFileError, match='record 5 of .*a.rec: cannot decode image') as info:
        dataset[5]
    assert isinstance(info.value, MXNetError)


def test_folder_image_that_is_not_an_image_is_named(tmp_path):
    (tmp_path / 'cls').mkdir()
    (tmp_path / 'cls' / 'broken.jpg').write_bytes(b'JFIF? no')
    dataset = vision.ImageFolderDataset(str(tmp_path))
    with pytest.raises(DatasetFileError, match='broken.jpg: cannot decode image'):
        dataset[0]


def test_missing_image_folder_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match='ImageFolderDataset: no such folder.*nowhere'):
        vision.ImageFolderDataset(str(tmp_path / 'nowhere'))


@pytest.mark.parametrize('flag', [-1, 2, 'grey'])
def test_flag_is_0_or_1(tmp_path, flag):
    path = cases.write_records(mx, str(tmp_path))
    with pytest.raises(MXNetError, match='flag must be 1 .* or 0'):
        vision.ImageRecordDataset(path, flag=flag)
    with pytest.raises(MXNetError, match='flag must be 1 .* or 0'):
        vision.ImageFolderDataset(str(tmp_path), flag=flag)


def test_folder_warnings_name_the_skipped_files(tmp_path):
    cases.write_image_folder(str(tmp_path))
    with pytest.warns(UserWarning) as caught:
        vision.ImageFolderDataset(str(tmp_path))
    messages = sorted(str(w.message) for w in caught)
    assert 'notes.txt' in messages[0] and 'readme.md' in messages[1]


# ------------------------------------------------------------------ with the DataLoader
def test_mnist_through_a_dataloader_with_workers(tmp_path):
    cases.write_mnist(str(tmp_path), 'train', 5, seed=1)
    dataset = vision.MNIST(root=str(tmp_path)).transform_first(lambda x: x.astype('float32') / 255)
    batches = list(mx.gluon.data.DataLoader(dataset, 2, num_workers=2, thread_pool=True))
    assert [b[0].shape for b in batches] == [(2, 28, 28, 1), (2, 28, 28, 1), (1, 28, 28, 1)]
    assert np.concatenate([b[1].asnumpy() for b in batches]).tolist() == [1, 4, 7, 0, 3]
    assert batches[0][0].dtype == np.float32
