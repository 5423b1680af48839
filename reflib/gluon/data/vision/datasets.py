"""The image data sets of ``gluon.data.vision``, read from files already on disk.

MNIST, FashionMNIST   the idx files, gzip-compressed, MXNet's names in ``root``
CIFAR10, CIFAR100     the binary batches (``data_batch_1.bin`` ..., ``train.bin`` ...)
ImageRecordDataset    the images of a RecordIO file (``im2rec``'s output) and their labels
ImageFolderDataset    ``root/<class name>/<image file>``, one folder per class

Each sample is ``(image, label)``: the image an NDArray of uint8, height x width x
channels (RGB, or one grey channel), the label as MXNet gives it (a numpy int32 for MNIST
and CIFAR, the record's float or float32 array, the class index as an int).  A
``transform`` function, when given, receives ``(image, label)`` and its result is the
sample.

MXNet downloads a missing data set into ``$MXNET_HOME/datasets`` (``~/.mxnet``).  reflib
does not download: the files must already be in ``root`` (under MXNet's names, so a folder
MXNet filled works as it is), and a missing one raises DownloadError naming it and the URL
MXNet would have fetched it from.  The bytes are checked as they are read, so a truncated
or damaged file raises DatasetFileError naming it.  A file need not be MXNet's exact copy
(its SHA-1 is not checked): a smaller set in the same format reads as well.
"""

import errno
import gzip
import os
import struct
import tarfile
import warnings
import zlib

import numpy as np

from .... import ndarray as nd
from .... import recordio
from ....base import MXNetError, data_dir
from ....image_codec import decode
from ....io.mnist import parse_idx
from ...utils import DownloadError, _get_repo_file_url
from ..dataset import Dataset, RecordFileDataset

__all__ = ['MNIST', 'FashionMNIST', 'CIFAR10', 'CIFAR100', 'ImageRecordDataset', 'ImageFolderDataset',
           'DatasetFileError']


class DatasetFileError(MXNetError, ValueError):
    """A data set's file is truncated, damaged or not in the format it should be."""


# ------------------------------------------------------------------ files of a data set
def _missing(dataset, root, names, namespace, where='', fetch=None):
    """The DownloadError for files ``names`` of ``dataset`` that are not in ``root``
    (``where`` adds the other places looked in; ``fetch``: the files MXNet would download,
    ``names`` by default)."""
    put = 'it' if len(names) == 1 else 'them'
    if fetch is not None:
        put += ' or ' + ' and '.join(fetch)
    urls = ', '.join(_get_repo_file_url('gluon/dataset/' + namespace, name) for name in fetch or names)
    return DownloadError('%s: %s not found in %s%s; reflib does not download data sets: put %s there '
                         '(MXNet downloads %s)' % (dataset, ', '.join(names), os.path.abspath(root), where, put, urls))


def _read_stream(stream, size, path, dataset):
    """Up to ``size`` bytes of ``stream``, in pieces, so that a header that promises more
    than the file holds costs no more memory than the file does."""
    pieces, left = [], size
    try:
        while left > 0:
            piece = stream.read(min(left, 1 << 24))
            if not piece:
                break
            pieces.append(piece)
            left -= len(piece)
    except (OSError, EOFError, zlib.error) as err:
        raise DatasetFileError('%s: cannot read %s: %s' % (dataset, path, err)) from None
    return b''.join(pieces)


def _read_idx_gz(path, ndim, dataset):
    """The uint8 array of the gzip-compressed idx file ``path`` (``ndim`` dimensions)."""
    header_size = 4 * (1 + ndim)
    with open(path, 'rb') as f, gzip.GzipFile(fileobj=f) as stream:
        header = _read_stream(stream, header_size, path, dataset)
        if len(header) == header_size and header[:4] == bytes((0, 0, 0x08, ndim)):
            size = int(np.prod(struct.unpack('>%dI' % ndim, header[4:]), dtype=np.int64))
            body = _read_stream(stream, size, path, dataset)
        else:
            body = b''       # parse_idx names what is wrong with the header
    try:
        return parse_idx(header + body, ndim, path, dataset)
    except MXNetError as err:
        raise DatasetFileError(str(err)) from None


class _DownloadedDataset(Dataset):
    """A data set held in memory: images in one NDArray, labels in a numpy array, loaded
    from ``root`` by the subclass's ``_get_data`` when the data set is made."""

    def __init__(self, root, transform):
        self._root = os.path.expanduser(root)
        self._transform = transform
        self._data = None
        self._label = None
        self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)

    def _get_data(self):
        raise NotImplementedError('%s must define _get_data' % type(self).__name__)

    def _check_labels(self, labels, classes, path):
        if labels.size and int(labels.max()) >= classes:
            raise DatasetFileError('%s: %s holds the label %d, but there are only %d classes: the file is damaged'
                                   % (type(self).__name__, path, int(labels.max()), classes))


# ------------------------------------------------------------------ MNIST
class MNIST(_DownloadedDataset):
    """MNIST's handwritten digits: 28 x 28 x 1 uint8 images, int32 labels 0-9.

    :param root: the folder holding ``train-images-idx3-ubyte.gz``,
        ``train-labels-idx1-ubyte.gz``, ``t10k-images-idx3-ubyte.gz`` and
        ``t10k-labels-idx1-ubyte.gz`` (only the pair of the chosen part is read).
    :param train: the training part (60000 images) when true, else the test part (10000).
    :param transform: a function of ``(image, label)`` giving the sample, or None.
    """

    _namespace = 'mnist'
    _parts = {True: ('train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz'),
              False: ('t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz')}

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'mnist'), train=True, transform=None):
        self._train = train
        super().__init__(root, transform)

    def _get_data(self):
        dataset = type(self).__name__
        names = self._parts[bool(self._train)]
        paths = [os.path.join(self._root, name) for name in names]
        missing = [name for name, path in zip(names, paths) if not os.path.isfile(path)]
        if missing:
            raise _missing(dataset, self._root, missing, self._namespace)
        images = _read_idx_gz(paths[0], 3, dataset)
        labels = _read_idx_gz(paths[1], 1, dataset)
        if len(images) != len(labels):
            raise DatasetFileError('%s: %s holds %d images but %s holds %d labels'
                                   % (dataset, paths[0], len(images), paths[1], len(labels)))
        self._check_labels(labels, 10, paths[1])
        # one grey channel last: height x width x 1, as the image transforms expect
        self._data = nd.array(images[..., np.newaxis], dtype=np.uint8)
        self._label = labels.astype(np.int32)


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: MNIST's format and sizes, ten kinds of clothing.

    :param root: the folder holding the four idx files, under MNIST's names.
    :param train: the training part (60000 images) when true, else the test part (10000).
    :param transform: a function of ``(image, label)`` giving the sample, or None.
    """

    _namespace = 'fashion-mnist'

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'fashion-mnist'), train=True, transform=None):
        super().__init__(root, train, transform)


# ------------------------------------------------------------------ CIFAR
class CIFAR10(_DownloadedDataset):
    """CIFAR-10: 32 x 32 x 3 uint8 colour images, int32 labels 0-9.

    A binary batch file is a sequence of records, each one label byte and then the image
    as 1024 red, 1024 green and 1024 blue bytes (rows of 32).  The files are looked for in
    ``root`` (where MXNet unpacks them), then in the folder the official archive unpacks
    to (``cifar-10-batches-bin``), then inside the archive ``cifar-10-binary.tar.gz`` in
    ``root``, read without unpacking it.

    :param root: the folder holding ``data_batch_1.bin`` ... ``data_batch_5.bin`` and
        ``test_batch.bin`` (only the chosen part's files are read).
    :param train: the training part (5 files, 50000 images) when true, else the test part.
    :param transform: a function of ``(image, label)`` giving the sample, or None.
    """

    _namespace = 'cifar10'
    _archive = 'cifar-10-binary.tar.gz'
    _folder = 'cifar-10-batches-bin'
    _parts = {True: ['data_batch_%d.bin' % i for i in range(1, 6)], False: ['test_batch.bin']}
    _label_bytes = 1
    _classes = 10

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'cifar10'), train=True, transform=None):
        self._train = train
        super().__init__(root, transform)

    def _label_column(self):
        return 0

    def _get_data(self):
        images, labels = [], []
        for _, path, raw in self._batch_files():
            batch_images, batch_labels = self._parse_batch(raw, path)
            images.append(batch_images)
            labels.append(batch_labels)
        self._data = nd.array(np.concatenate(images), dtype=np.uint8)
        self._label = np.concatenate(labels)

    def _parse_batch(self, raw, path):
        record = self._label_bytes + 3 * 32 * 32
        if len(raw) % record:
            raise DatasetFileError('%s: %s is truncated or damaged: %d bytes is not a whole number of %d-byte '
                                   'records' % (type(self).__name__, path, len(raw), record))
        rows = np.frombuffer(raw, np.uint8).reshape(-1, record)
        labels = rows[:, self._label_column()].astype(np.int32)
        self._check_labels(labels, self._classes, path)
        # channel planes -> height x width x channels
        images = rows[:, self._label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        return images, labels

    def _batch_files(self):
        """(name, where it was read from, bytes) for each file of the chosen part."""
        names = self._parts[bool(self._train)]
        found, missing = [], []
        for name in names:
            for path in (os.path.join(self._root, name), os.path.join(self._root, self._folder, name)):
                if os.path.isfile(path):
                    with open(path, 'rb') as f:
                        found.append((name, path, f.read()))
                    break
            else:
                missing.append(name)
        if not missing:
            return found
        archive = os.path.join(self._root, self._archive)
        if not os.path.isfile(archive):
            raise _missing(type(self).__name__, self._root, missing, self._namespace,
                           where=' (nor in its subfolder %s, nor the archive %s that holds them)'
                           % (self._folder, self._archive), fetch=[self._archive])
        return found + self._read_archive(archive, missing)

    def _read_archive(self, archive, names):
        """The files ``names`` from inside ``archive``, found by their base names."""
        dataset = type(self).__name__
        try:
            with tarfile.open(archive) as tar:
                members = {os.path.basename(m.name): m for m in tar.getmembers() if m.isfile()}
                absent = [name for name in names if name not in members]
                if absent:
                    raise DatasetFileError('%s: %s holds no %s' % (dataset, archive, ', '.join(absent)))
                return [(name, '%s:%s' % (archive, members[name].name), tar.extractfile(members[name]).read())
                        for name in names]
        except (tarfile.TarError, OSError, EOFError, zlib.error) as err:
            raise DatasetFileError('%s: cannot read the archive %s: %s' % (dataset, archive, err)) from None


class CIFAR100(CIFAR10):
    """CIFAR-100: 32 x 32 x 3 uint8 colour images, each with a coarse label (one of 20
    super-classes) and a fine one (one of 100 classes); int32.

    A record is two label bytes (coarse, fine) and the image, as in CIFAR-10.  The files
    are looked for in ``root``, then in ``cifar-100-binary``, then inside the archive
    ``cifar-100-binary.tar.gz``.

    :param root: the folder holding ``train.bin`` and ``test.bin``.
    :param fine_label: the fine labels (100 classes) when true, else the coarse ones (20).
    :param train: the training part (50000 images) when true, else the test part (10000).
    :param transform: a function of ``(image, label)`` giving the sample, or None.
    """

    _namespace = 'cifar100'
    _archive = 'cifar-100-binary.tar.gz'
    _folder = 'cifar-100-binary'
    _parts = {True: ['train.bin'], False: ['test.bin']}
    _label_bytes = 2

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'cifar100'), fine_label=False, train=True,
                 transform=None):
        self._fine_label = fine_label
        self._classes = 100 if fine_label else 20
        super().__init__(root, train, transform)

    def _label_column(self):
        return 1 if self._fine_label else 0


# ------------------------------------------------------------------ images in files
def _check_flag(flag, owner):
    # MXNet refuses other flags only when the first image is decoded; here at once
    if flag not in (0, 1):
        raise MXNetError('%s: flag must be 1 (colour, 3 channels) or 0 (grey, 1 channel), got %r' % (owner, flag))
    return int(flag)


def _image_array(payload, flag):
    """Encoded image bytes -> uint8 NDArray, height x width x 3 RGB (flag 1) or x 1 (flag 0)."""
    pixels = decode(payload, flag)
    if pixels.ndim == 2:
        pixels = pixels[..., np.newaxis]
    return nd.array(pixels, dtype=np.uint8)


class ImageRecordDataset(RecordFileDataset):
    """The images of a RecordIO file and their labels, read through its index file.

    Each record is an image record (``mx.recordio.pack``): a header with the label, then
    the encoded image (JPEG or PNG).  The label is the header's: a float, or a float32
    numpy array when the record holds several.

    :param filename: the ``.rec`` file; its index is the ``.idx`` file beside it.
    :param flag: 1 for colour images (3 channels, RGB), 0 for grey (1 channel).
    :param transform: a function of ``(image, label)`` giving the sample, or None.
    """

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        self._flag = _check_flag(flag, 'ImageRecordDataset')
        self._transform = transform

    def __getitem__(self, idx):
        record = super().__getitem__(idx)
        try:
            header, payload = recordio.unpack(record)
            image = _image_array(payload, self._flag)
        except MXNetError as err:
            raise DatasetFileError('ImageRecordDataset: record %d of %s: %s' % (idx, self.filename, err)) from None
        if self._transform is not None:
            return self._transform(image, header.label)
        return image, header.label


class ImageFolderDataset(Dataset):
    """Image files sorted into one folder per class: ``root/<class name>/<image file>``.

    The classes are the sub-folders of ``root`` in sorted order; ``synsets[i]`` is the name
    of class ``i``.  ``items`` lists every image as ``(path, class index)``, class by class,
    the files of a class in sorted order.  Only ``.jpg``, ``.jpeg`` and ``.png`` files are
    images (any case); other files, and files directly in ``root``, are skipped with a
    warning.

    :param root: the folder of class folders.
    :param flag: 1 for colour images (3 channels, RGB), 0 for grey (1 channel).
    :param transform: a function of ``(image, label)`` giving the sample, or None.
    """

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = _check_flag(flag, 'ImageFolderDataset')
        self._transform = transform
        self._exts = ['.jpg', '.jpeg', '.png']
        self._list_images(self._root)

    def _list_images(self, root):
        if not os.path.isdir(root):
            raise FileNotFoundError(errno.ENOENT, 'ImageFolderDataset: no such folder', root)
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn('ImageFolderDataset: skipping %s: not a folder, so not a class' % path, stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn('ImageFolderDataset: skipping %s: %r is not an image extension (%s)'
                                  % (filename, ext, ', '.join(self._exts)), stacklevel=3)
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        filename, label = self.items[idx]
        with open(filename, 'rb') as f:
            payload = f.read()
        try:
            image = _image_array(payload, self._flag)
        except MXNetError as err:
            raise DatasetFileError('ImageFolderDataset: %s: %s' % (filename, err)) from None
        if self._transform is not None:
            return self._transform(image, label)
        return image, label

    def __len__(self):
        return len(self.items)
