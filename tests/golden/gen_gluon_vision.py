"""Record what MXNet 1.9.1's gluon.data.vision data sets give on small synthetic files.

    /tmp/mxv/bin/python tests/golden/gen_gluon_vision.py   ->  tests/golden/gluon_vision.json

The files are made here, byte for byte the same on every run: MNIST idx files of five
images (gzip-compressed), CIFAR-10/100 binary batches of three records, a RecordIO file of
PNG images (written by the library under test's own ``mx.recordio``), and a folder of PNG
files per class.  The PNGs come from the small encoder below (zlib only), so neither side
needs an image library to make them.

Each case in CASES is a function of the module ``mx`` (mxnet or reflib) and a scratch
folder, returning a JSON-ready answer.  Samples are encoded by gen_gluon_data's ``encode``,
except that an image of more than 64 values is summed up by its dtype, shape, context,
SHA-1 of its bytes and first values (the JSON stays small, and equal digests mean equal
pixels).  tests/test_gluon_vision_data.py imports this file and runs the same cases under
reflib.

MXNet checks each file's SHA-1 against the official data set's and downloads the official
one when they differ, so for MXNet ``main`` replaces the data sets' ``download`` (and
``check_sha1``) with an offline one that returns the file already in ``root``: reflib's
behaviour, which reads the files it is given.
"""
import gzip
import hashlib
import json
import os
import struct
import sys
import tempfile
import warnings
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_gluon_data import encode as _encode, error  # noqa: E402

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'gluon_vision.json')


def encode(value, mx):
    """gen_gluon_data's encoding, with large NDArrays summed up by a digest."""
    if isinstance(value, mx.nd.NDArray) and int(np.prod(value.shape)) > 64:
        pixels = value.asnumpy()
        return {'nd': np.dtype(value.dtype).name, 'shape': list(value.shape), 'ctx': str(value.context),
                'sha1': hashlib.sha1(np.ascontiguousarray(pixels).tobytes()).hexdigest(),
                'head': pixels.ravel()[:6].tolist()}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [encode(v, mx) for v in value]}
    return _encode(value, mx)


def _raises(fn):
    try:
        fn()
    except Exception as err:   # noqa: BLE001  (recording what MXNet raises)
        return error(err)
    return 'no error'


# ------------------------------------------------------------------ synthetic files
def write_mnist(root, prefix, count, seed):
    """``prefix``-images-idx3-ubyte.gz and -labels-idx1-ubyte.gz with ``count`` images."""
    os.makedirs(root, exist_ok=True)
    pixels = ((np.arange(count * 28 * 28) * 7 + seed * 13) % 256).astype(np.uint8)
    labels = ((np.arange(count) * 3 + seed) % 10).astype(np.uint8)
    files = {prefix + '-images-idx3-ubyte.gz': struct.pack('>IIII', 0x803, count, 28, 28) + pixels.tobytes(),
             prefix + '-labels-idx1-ubyte.gz': struct.pack('>II', 0x801, count) + labels.tobytes()}
    for name, raw in files.items():
        with open(os.path.join(root, name), 'wb') as f:
            f.write(gzip.compress(raw, mtime=0))


def cifar_records(count, label_bytes, seed):
    """``count`` CIFAR records: ``label_bytes`` label bytes, then 3 x 1024 pixel bytes."""
    records = []
    for i in range(count):
        labels = bytes((i * 7 + seed + k * 41) % (10 if label_bytes == 1 else 20 if k == 0 else 100)
                       for k in range(label_bytes))
        # each colour plane shifted by its own amount, so that a mixed-up channel order shows
        plane = np.arange(3072) // 1024
        pixels = ((np.arange(3072) * (i + 2) + seed * 5 + i * 11 + plane * 50) % 256).astype(np.uint8)
        records.append(labels + pixels.tobytes())
    return b''.join(records)


def write_cifar10(root):
    os.makedirs(root, exist_ok=True)
    # MXNet looks for all six files before it reads the part it is asked for
    for k, name in enumerate(['data_batch_%d.bin' % i for i in range(1, 6)] + ['test_batch.bin']):
        with open(os.path.join(root, name), 'wb') as f:
            f.write(cifar_records(3 if k < 5 else 2, 1, seed=k))


def write_cifar100(root):
    os.makedirs(root, exist_ok=True)
    for k, name in enumerate(['train.bin', 'test.bin']):
        with open(os.path.join(root, name), 'wb') as f:
            f.write(cifar_records(3 if k == 0 else 2, 2, seed=k + 4))


def png_bytes(pixels):
    """A PNG file of the uint8 array ``pixels`` (H x W grey, H x W x 3 RGB, H x W x 4 RGBA)."""
    pixels = np.asarray(pixels, dtype=np.uint8)
    height, width = pixels.shape[:2]
    colour_type = 0 if pixels.ndim == 2 else {3: 2, 4: 6}[pixels.shape[2]]
    scanlines = b''.join(b'\x00' + pixels[row].tobytes() for row in range(height))

    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, colour_type, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(scanlines, 9)) + chunk(b'IEND', b''))


def sample_image(i, shape=(4, 5, 3)):
    return ((np.arange(int(np.prod(shape))).reshape(shape) * (i + 1) + 3 * i) % 256).astype(np.uint8)


def write_records(mx, folder):
    """a.rec / a.idx: three colour PNGs (labels 0.0, 1.0 and [1.5, 2.5]), a grey PNG, an RGBA
    PNG and a record whose image is not an image."""
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(folder, 'a.idx'), os.path.join(folder, 'a.rec'), 'w')
    header = mx.recordio.IRHeader
    for i in range(3):
        label = float(i) if i < 2 else [1.5, 2.5]
        rec.write_idx(i, mx.recordio.pack(header(0, label, i, 0), png_bytes(sample_image(i))))
    rec.write_idx(3, mx.recordio.pack(header(0, 7.0, 3, 0), png_bytes(sample_image(3, (3, 4)))))
    rec.write_idx(4, mx.recordio.pack(header(0, 8.0, 4, 0), png_bytes(sample_image(4, (2, 3, 4)))))
    rec.write_idx(5, mx.recordio.pack(header(0, 9.0, 5, 0), b'not an image'))
    rec.close()
    return os.path.join(folder, 'a.rec')


def write_image_folder(root):
    """root/<class>/<image>: classes 'dog' and 'cat' (listed sorted), a grey image, an
    upper-case extension, a text file and a file directly in root (both skipped)."""
    for c, cls in enumerate(['dog', 'cat']):
        os.makedirs(os.path.join(root, cls))
        for j in range(2):
            with open(os.path.join(root, cls, 'im%d.%s' % (j, 'PNG' if j else 'png')), 'wb') as f:
                f.write(png_bytes(sample_image(c * 2 + j, (3, 2, 3))))
    with open(os.path.join(root, 'cat', 'grey.png'), 'wb') as f:
        f.write(png_bytes(sample_image(9, (2, 2))))
    with open(os.path.join(root, 'cat', 'notes.txt'), 'w') as f:
        f.write('not an image')
    with open(os.path.join(root, 'readme.md'), 'w') as f:
        f.write('not a class')
    os.makedirs(os.path.join(root, 'empty'))


# ------------------------------------------------------------------ cases
def _samples(dataset, mx, indices):
    return {str(i): encode(dataset[i], mx) for i in indices}


def _first_batch(dataset, mx, size=2):
    return encode(next(iter(mx.gluon.data.DataLoader(dataset, size))), mx)


def _scaled(data, label):
    return data.astype('float32') / 255, label


def case_mnist(mx, folder):
    vision = mx.gluon.data.vision
    write_mnist(folder, 'train', 5, seed=1)
    write_mnist(folder, 't10k', 3, seed=2)
    train, test = vision.MNIST(root=folder), vision.MNIST(root=folder, train=False)
    return {'len': [len(train), len(test)],
            'train': _samples(train, mx, [0, 2, 4, -1]),
            'test': _samples(test, mx, [0, 2]),
            'transform': encode(vision.MNIST(root=folder, transform=_scaled)[3], mx),
            'batch': _first_batch(train, mx),
            'past_end': _raises(lambda: train[5])}


def case_fashion_mnist(mx, folder):
    vision = mx.gluon.data.vision
    write_mnist(folder, 'train', 4, seed=5)
    write_mnist(folder, 't10k', 2, seed=6)
    train, test = vision.FashionMNIST(root=folder), vision.FashionMNIST(root=folder, train=False)
    return {'len': [len(train), len(test)], 'train': _samples(train, mx, [1, 3]), 'test': _samples(test, mx, [1]),
            'is_mnist': isinstance(train, vision.MNIST)}


def case_cifar10(mx, folder):
    vision = mx.gluon.data.vision
    write_cifar10(folder)
    train, test = vision.CIFAR10(root=folder), vision.CIFAR10(root=folder, train=False)
    return {'len': [len(train), len(test)],
            'train': _samples(train, mx, [0, 4, 14]),
            'test': _samples(test, mx, [1]),
            'pixel_order': train[0][0].asnumpy()[:2, :2].tolist(),
            'transform': encode(vision.CIFAR10(root=folder, train=False, transform=_scaled)[0], mx),
            'batch': _first_batch(test, mx)}


def case_cifar100(mx, folder):
    vision = mx.gluon.data.vision
    write_cifar100(folder)
    coarse, fine = vision.CIFAR100(root=folder), vision.CIFAR100(root=folder, fine_label=True)
    test = vision.CIFAR100(root=folder, fine_label=True, train=False)
    return {'len': [len(coarse), len(fine), len(test)],
            'coarse': _samples(coarse, mx, [0, 2]), 'fine': _samples(fine, mx, [0, 2]), 'test': _samples(test, mx, [1]),
            'is_cifar10': isinstance(coarse, vision.CIFAR10)}


def case_default_roots(mx, folder):
    """Where each data set looks by default, under ``$MXNET_HOME`` (``~/.mxnet``)."""
    vision = mx.gluon.data.vision
    home = mx.base.data_dir()
    out = {}
    for cls in (vision.MNIST, vision.FashionMNIST, vision.CIFAR10, vision.CIFAR100):
        defaults = list(cls.__init__.__defaults__)
        defaults[0] = os.path.relpath(defaults[0], home)
        out[cls.__name__] = defaults
    return out


def case_image_record_dataset(mx, folder):
    vision = mx.gluon.data.vision
    path = write_records(mx, folder)
    colour, grey = vision.ImageRecordDataset(path), vision.ImageRecordDataset(path, flag=0)
    return {'len': len(colour),
            'colour': _samples(colour, mx, [0, 1, 2, 3, 4]),
            'grey': _samples(grey, mx, [0, 1, 2, 3, 4]),
            'transform': encode(vision.ImageRecordDataset(path, transform=lambda x, y: (x.shape, y * 2))[1], mx),
            'batch': _first_batch(colour, mx),
            'not_an_image': _raises(lambda: colour[5]),
            'past_end': _raises(lambda: colour[6])}


def _relative_items(items, root):
    return [[os.path.relpath(path, root), label] for path, label in items]


def case_image_folder_dataset(mx, folder):
    vision = mx.gluon.data.vision
    write_image_folder(folder)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        colour = vision.ImageFolderDataset(folder)
    grey = vision.ImageFolderDataset(folder, flag=0, transform=lambda x, y: (x, y + 10))
    return {'synsets': colour.synsets, 'items': _relative_items(colour.items, folder), 'len': len(colour),
            'warnings': [w.category.__name__ for w in caught],
            'colour': _samples(colour, mx, [0, 1, 2, 3, 4]),
            'grey': _samples(grey, mx, [0, 2, 4]),
            'batch': _first_batch(colour.take(3).filter(lambda sample: sample[0].shape[0] == 3), mx),
            'past_end': _raises(lambda: colour[5]),
            'missing_root': _raises(lambda: vision.ImageFolderDataset(os.path.join(folder, 'none')))}


def case_public_names(mx, folder):
    vision = mx.gluon.data.vision
    return {'datasets': sorted(vision.datasets.__all__),
            'vision': sorted(n for n in dir(vision) if not n.startswith('_') and n != 'transforms')}


CASES = {name[len('case_'):]: fn for name, fn in sorted(globals().items()) if name.startswith('case_')}


def run_case(mx, name):
    with tempfile.TemporaryDirectory() as folder:
        return json.loads(json.dumps(CASES[name](mx, folder)))


def _offline(mx):
    """MXNet's data sets read the files in ``root`` as they are (see the module docstring)."""
    datasets = mx.gluon.data.vision.datasets

    def local_file(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
        fname = os.path.join(path, url.split('/')[-1]) if os.path.isdir(path) else path
        if not os.path.exists(fname):
            raise FileNotFoundError(fname)
        return fname
    datasets.download = local_file
    datasets.check_sha1 = lambda filename, sha1_hash: True


def main():
    import mxnet as mx
    assert mx.__version__ == '1.9.1', mx.__version__
    _offline(mx)
    golden = {name: run_case(mx, name) for name in CASES}
    with open(GOLDEN, 'w') as f:
        json.dump(golden, f, indent=None, sort_keys=True)
        f.write('\n')
    print('wrote %s (%d cases, %d bytes)' % (GOLDEN, len(golden), os.path.getsize(GOLDEN)))


if __name__ == '__main__':
    sys.exit(main())
