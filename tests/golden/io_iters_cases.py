"""The cases of tests/test_io_iters.py, run the same way by MXNet 1.9.1 (gen_io_iters.py) and reflib.

``write_files(folder)`` makes the inputs: MNIST-style idx files of 50 images (scikit-learn's
8x8 digits, each pixel repeated 3x3 and the 24x24 result framed to 28x28, 0..16 scaled to
0..255, pixel (0, 0) holding the image's number so the order of the images is visible),
an idx file of 8x8 images, and small CSV files.  ``run_all(mx, folder)`` runs every case
with the module ``mx`` (mxnet or reflib) and returns JSON-ready results.

scikit-learn is not in MXNet's venv, so the digits are read from scikit-learn's own
``digits.csv.gz`` (the file ``load_digits`` reads), found through an importable sklearn or
in the repository's .venv.
"""
import glob
import gzip
import os
import struct

import numpy as np

N_IMAGES = 50
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def digits():
    """scikit-learn's digits: (images (n, 8, 8) uint8 0..16, labels (n,) uint8)."""
    try:
        import sklearn.datasets
        path = os.path.join(os.path.dirname(sklearn.datasets.__file__), 'data', 'digits.csv.gz')
    except ImportError:
        path = sorted(glob.glob(os.path.join(REPO, '.venv', 'lib', 'python*', 'site-packages', 'sklearn',
                                             'datasets', 'data', 'digits.csv.gz')))[0]
    with gzip.open(path, 'rt') as f:
        table = np.loadtxt(f, delimiter=',')
    return table[:, :64].reshape(-1, 8, 8).astype(np.uint8), table[:, 64].astype(np.uint8)


def write_idx(path, arr, opener=open):
    """``arr`` as an idx file of unsigned bytes (``opener=gzip.open`` for a ``.gz``)."""
    arr = np.ascontiguousarray(arr, np.uint8)
    with opener(path, 'wb') as f:
        f.write(struct.pack('>I', 0x0800 | arr.ndim) + struct.pack('>%dI' % arr.ndim, *arr.shape))
        f.write(arr.tobytes())


def mnist_images():
    """The 50 28x28 uint8 images and their labels written by write_files."""
    small, labels = digits()
    big = np.kron(small[:N_IMAGES], np.ones((3, 3), np.uint8))
    big = np.pad(big, ((0, 0), (2, 2), (2, 2)))
    big = np.minimum(big.astype(np.int64) * 16, 255).astype(np.uint8)
    big[:, 0, 0] = np.arange(N_IMAGES)
    return big, labels[:N_IMAGES]


CSV_DATA = [[1.5, -2.25, 3], [2, 3.75, -4.5], [3.125, 4, 5], [4, -5.5, 6.25], [5, 6, 7.875]]
CSV_LABEL = [[10], [20], [30], [40], [50]]


def write_csv(path, rows):
    with open(path, 'w') as f:
        f.write(''.join(','.join(repr(v) for v in row) + '\n' for row in rows))


def write_files(folder):
    images, labels = mnist_images()
    write_idx(os.path.join(folder, 'img'), images)
    write_idx(os.path.join(folder, 'lab'), labels)
    small, small_labels = digits()
    write_idx(os.path.join(folder, 'img8'), small[:20] * 15)
    write_idx(os.path.join(folder, 'lab8'), small_labels[:20])
    write_csv(os.path.join(folder, 'd.csv'), CSV_DATA)
    write_csv(os.path.join(folder, 'l.csv'), CSV_LABEL)
    write_csv(os.path.join(folder, 'six.csv'), [[i * 6 + j - 7.5 for j in range(6)] for i in range(5)])
    write_csv(os.path.join(folder, 'l2.csv'), [[i, -i] for i in range(5)])
    os.makedirs(os.path.join(folder, 'csvdir'), exist_ok=True)
    write_csv(os.path.join(folder, 'csvdir', 'a.csv'), CSV_DATA[:2])
    write_csv(os.path.join(folder, 'csvdir', 'b.csv'), CSV_DATA[2:])


MNIST_CASES = [
    dict(batch_size=16, shuffle=False),
    dict(batch_size=16, shuffle=True, seed=5),
    dict(batch_size=10, flat=True),                       # shuffle and seed at their defaults
    dict(batch_size=4, shuffle=False, num_parts=3, part_index=1),
    dict(batch_size=4, shuffle=True, seed=2, num_parts=4, part_index=3),
    dict(batch_size=4, shuffle=False, num_parts=7, part_index=6),
    dict(batch_size=50, shuffle=True, seed=11),
    dict(image='img8', label='lab8', batch_size=6, shuffle=True, seed=1),
]

CSV_CASES = [
    dict(data_csv='d.csv', data_shape=(3,), label_csv='l.csv', batch_size=2),
    dict(data_csv='d.csv', data_shape=(3,), batch_size=3),
    dict(data_csv='d.csv', data_shape=(3,), batch_size=3, round_batch=False),
    dict(data_csv='d.csv', data_shape=(3,), batch_size=7, round_batch=False),
    dict(data_csv='d.csv', data_shape=(3,), batch_size=7),
    dict(data_csv='six.csv', data_shape=(3, 2), label_csv='l2.csv', label_shape=(2,), batch_size=4),
    dict(data_csv='d.csv', data_shape=(3,), label_csv='l.csv', label_shape=(1, 1), batch_size=5),
    dict(data_csv='d.csv', data_shape=(1, 3), batch_size=2, dtype='int32'),
    dict(data_csv='six.csv', data_shape=(6,), label_csv='l.csv', batch_size=3, dtype='int64'),
    dict(data_csv='csvdir', data_shape=(3,), batch_size=2, round_batch=False),
]


def _desc(descs):
    return [[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout] for d in descs]


def _batch(b, mnist):
    data = b.data[0].asnumpy()
    out = dict(label=b.label[0].asnumpy().tolist(), pad=b.pad,
               index=None if b.index is None else np.asarray(b.index).tolist(),
               dtype=data.dtype.name, shape=list(data.shape))
    if mnist:
        flat = data.reshape(len(data), -1).astype(np.float64)
        out['marker'] = (flat[:, 0] * 256).round().astype(int).tolist()    # the image numbers
        out['sum'] = flat.sum(axis=1).tolist()
        out['moment'] = (flat * np.arange(flat.shape[1])).sum(axis=1).tolist()
    else:
        out['data'] = data.tolist()
    return out


def _epochs(it, epochs, mnist):
    got = []
    for _ in range(epochs):
        try:
            got.append([_batch(b, mnist) for b in it])
        except Exception as err:                                   # noqa: BLE001 (recorded)
            got.append('error: %s' % type(err).__name__)
            break
        it.reset()
    return got


def run_mnist(mx, folder, case):
    kw = dict(image='img', label='lab', silent=True)
    kw.update(case)
    kw['image'], kw['label'] = os.path.join(folder, kw['image']), os.path.join(folder, kw['label'])
    it = mx.io.MNISTIter(**kw)
    return dict(provide_data=_desc(it.provide_data), provide_label=_desc(it.provide_label),
                batch_size=it.batch_size, epochs=_epochs(it, 2, True))


def run_csv(mx, folder, case):
    kw = dict(case)
    for key in ('data_csv', 'label_csv'):
        if key in kw:
            kw[key] = os.path.join(folder, kw[key])
    it = mx.io.CSVIter(**kw)
    return dict(provide_data=_desc(it.provide_data), provide_label=_desc(it.provide_label),
                batch_size=it.batch_size, epochs=_epochs(it, 4, False))


def _values(it, epochs=2):
    """Every batch's data, label and pad, epoch after epoch (reset after each)."""
    got = []
    for _ in range(epochs):
        got.append([dict(data=[d.asnumpy().tolist() for d in b.data], label=[l.asnumpy().tolist() for l in b.label],
                         pad=b.pad) for b in it])
        it.reset()
    return got


def run_wrappers(mx, folder):
    out = {}
    a = mx.io.NDArrayIter({'x': np.arange(10).reshape(5, 2)}, {'y': np.arange(5)}, batch_size=2)
    b = mx.io.NDArrayIter({'z': np.arange(15).reshape(5, 3) * 0.5}, {'w': np.arange(5) + 100}, batch_size=2,
                          layout='NTC')
    p = mx.io.PrefetchingIter([a, b], rename_data=[{'x': 'x1'}, {'z': 'z1'}])
    out['prefetch_two'] = dict(provide_data=_desc(p.provide_data), provide_label=_desc(p.provide_label),
                               batch_size=p.batch_size, epochs=_values(p, 3))
    roll = mx.io.NDArrayIter(np.arange(10).reshape(5, 2), np.arange(5), batch_size=2, last_batch_handle='roll_over')
    out['prefetch_roll_over'] = _values(mx.io.PrefetchingIter(roll), 3)
    csv = mx.io.CSVIter(data_csv=os.path.join(folder, 'd.csv'), data_shape=(3,), batch_size=3)
    out['prefetch_csv'] = _values(mx.io.PrefetchingIter(csv), 3)
    for internal in (True, False):
        base = mx.io.NDArrayIter(np.arange(10).reshape(5, 2), np.arange(5), batch_size=2)
        r = mx.io.ResizeIter(base, 4, reset_internal=internal)
        out['resize_%s' % internal] = dict(batch_size=r.batch_size, provide_data=_desc(r.provide_data),
                                           epochs=_values(r, 3))
    csv = mx.io.CSVIter(data_csv=os.path.join(folder, 'd.csv'), data_shape=(3,), batch_size=2)
    out['resize_csv'] = _values(mx.io.ResizeIter(csv, 5, reset_internal=False), 2)
    return out


def run_all(mx, folder):
    write_files(folder)
    return dict(mnist=[run_mnist(mx, folder, c) for c in MNIST_CASES],
                csv=[run_csv(mx, folder, c) for c in CSV_CASES],
                wrappers=run_wrappers(mx, folder))
