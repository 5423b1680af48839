"""The data helpers of ``mx.test_utils`` that MXNet's example scripts call: ``download``,
``get_mnist``, ``get_mnist_ubyte``, ``get_mnist_iterator``, ``get_cifar10``.

MXNet fetches the files from the web when they are missing.  reflib downloads nothing: it
reads the files MXNet would have left on disk (same names, same folders) and, when one is
missing, says which file to put where.  So a script such as
example/python-howto/monitor_weights.py runs unchanged once ``data/`` holds the four MNIST
idx files::

    >>> import reflib as mx
    >>> train, val = mx.test_utils.get_mnist_iterator(batch_size=100, input_shape=(784,))  # doctest: +SKIP
"""

import gzip
import logging
import os
import zipfile

import numpy as np

from .base import MXNetError
from .io import MNISTIter
from .io.mnist import parse_idx

__all__ = ['download', 'get_mnist', 'get_mnist_ubyte', 'get_mnist_iterator', 'get_cifar10']

_MNIST_FILES = ('train-images-idx3-ubyte', 'train-labels-idx1-ubyte',
                't10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte')


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """The local path MXNet's ``download`` would write ``url`` to (``fname`` defaults to the
    URL's last part, inside ``dirname`` if given), returned when that file exists.

    reflib has no network access by design: a missing file (or ``overwrite=True``) raises
    MXNetError naming the URL and the path to put its content at.  ``retries`` is accepted
    for MXNet's signature and unused.
    """
    if fname is None:
        fname = url.split('/')[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if dirname:
        os.makedirs(dirname, exist_ok=True)     # MXNet creates the folder before fetching
    if not overwrite and os.path.exists(fname):
        logging.info('%s exists, skipping download', fname)
        return fname
    raise MXNetError('download(%r): reflib downloads nothing; put that file at %r (relative to %r) and run again'
                     % (url, fname, os.getcwd()))


def _read_gzipped_idx(path, ndim):
    try:
        with gzip.open(path, 'rb') as f:
            raw = f.read()
    except (OSError, EOFError) as err:
        raise MXNetError('get_mnist: cannot read %r: %s' % (path, err)) from None
    return parse_idx(raw, ndim, path, 'get_mnist')


def get_mnist():
    """MNIST as numpy arrays, from the four ``*-ubyte.gz`` files in the working folder (where
    MXNet's ``get_mnist`` downloads them): ``train_data``/``test_data`` float32 (N, 1, 28, 28)
    scaled to [0, 1], ``train_label``/``test_label`` int8 (N,)."""
    base = 'http://data.mxnet.io/data/mnist/'
    out = {}
    for part, prefix in (('train', 'train'), ('test', 't10k')):
        labels = _read_gzipped_idx(download(base + prefix + '-labels-idx1-ubyte.gz'), 1)
        images = _read_gzipped_idx(download(base + prefix + '-images-idx3-ubyte.gz'), 3)
        if len(images) != len(labels):
            raise MXNetError('get_mnist: %d %s images but %d labels' % (len(images), prefix, len(labels)))
        # MXNet reshapes to 28 x 28 whatever the header says; the same here, loudly when it cannot
        out[part + '_data'] = images.reshape(len(images), 1, 28, 28).astype(np.float32) / 255
        out[part + '_label'] = labels.astype(np.int8)
    return out


def get_mnist_ubyte():
    """Makes sure ``data/`` holds the four MNIST idx files (MXNet downloads and unzips
    ``mnist.zip`` there when one is missing; reflib unzips ``data/mnist.zip`` if present)."""
    os.makedirs('data', exist_ok=True)
    if all(os.path.exists(os.path.join('data', name)) for name in _MNIST_FILES):
        return
    archive = download('http://data.mxnet.io/mxnet/data/mnist.zip', dirname='data')
    with zipfile.ZipFile(archive) as zf:
        zf.extractall('data')


_CIFAR_FILES = ('train.rec', 'test.rec', 'train.lst', 'test.lst')


def get_cifar10():
    """Makes sure ``data/cifar/`` holds CIFAR-10's record and list files (MXNet downloads and
    unzips ``cifar10.zip`` into ``data/`` when one is missing; reflib unzips
    ``data/cifar10.zip`` if present, and otherwise says where to put it)."""
    os.makedirs('data', exist_ok=True)
    if all(os.path.exists(os.path.join('data', 'cifar', name)) for name in _CIFAR_FILES):
        return
    archive = download('http://data.mxnet.io/mxnet/data/cifar10.zip', dirname='data')
    with zipfile.ZipFile(archive) as zf:
        zf.extractall('data')       # zipfile drops absolute paths and '..' from member names


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """MXNet's pair of MNISTIter over ``data/``, both shuffled with seed 0 (MNISTIter's defaults);
    flat (N, 784) batches unless ``input_shape`` has three dimensions."""
    get_mnist_ubyte()
    flat = len(input_shape) != 3
    # MXNet also passes input_shape, which MNISTIter ignores; it is left out here
    train = MNISTIter(image='data/train-images-idx3-ubyte', label='data/train-labels-idx1-ubyte',
                      batch_size=batch_size, shuffle=True, flat=flat, num_parts=num_parts, part_index=part_index)
    val = MNISTIter(image='data/t10k-images-idx3-ubyte', label='data/t10k-labels-idx1-ubyte',
                    batch_size=batch_size, flat=flat, num_parts=num_parts, part_index=part_index)
    return train, val
