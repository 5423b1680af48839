"""Record LibSVMIter batches and NDArrayIter batches over sparse input from real MXNet 1.9.1.

    /tmp/mxv/bin/python tests/golden/gen_io_sparse.py   ->  tests/golden/io_sparse.json

``write_files(folder)`` writes the LibSVM inputs; ``LIBSVM_CASES`` and ``NDARRAY_CASES``
name the iterators; ``run_case(mx, folder, name)`` runs one with the module ``mx`` (mxnet
or reflib) and returns JSON-ready batches, numbers as their bit patterns so that the test
(tests/test_io_sparse.py, which imports this file) compares them exactly.

MXNet runs each case in a process of its own, which leaves without freeing the iterator:
MXNet 1.9.1 can crash freeing a LibSVMIter (a segmentation fault in ``MXDataIter.__del__``,
e.g. after an epoch that ended with borrowed lines).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'io_sparse.json')

# ------------------------------------------------------------------ LibSVM inputs
# MXNet's own documentation example (zero-based indices), and its label file
DOC_DATA = '1.0 0:0.5 2:1.2\n-2.0\n-3.0 0:0.6 1:2.4 2:1.2\n4 2:-1.2\n'
DOC_LABEL = '1.0\n-2.0 0:0.125\n-3.0 2:1.2\n4 1:1.0 2:-1.2\n'

# what MXNet's parser accepts besides plain lines: a comment as the first line, a weight
# after the label, qid, tabs, CRLF and CR line ends, blank lines, spaces around ':', a
# trailing comment, unsorted and repeated columns, lines with no features
MIXED = ('# a comment on the first line is skipped\n'
         '1 0:1.5 3:-2 11:0.25\r\n'
         '2:0.5 qid:7 4:1 2:3\r\n'
         '\n'
         '   \t \n'
         '-1\t5:1e-3\t6:.5\n'
         '0 7 : 2.5 1:+4\r'
         '3.5 11:1 0:2 11:5 # the rest is a comment 4:4\n'
         '-0\n'
         '7 qid:1 8:1.42060556987e-12 9:0.1 10:16777217\n'
         '8 1:3.4028235e38 2:1e39 3:1e-46 4:-2.5E-3\n'
         '9 0:1 1:2 2:3 3:4 4:5 5:6 6:7 7:8 8:9 9:10 10:11 11:12\n')
MIXED_COLUMNS = 12

# five short lines: cut in 3 or 7 parts, some parts hold no line
FIVE = '1 0:1.5 2:2\n-2\n3 0:0.6 1:2.4 2:1.2\n4 2:-1.2\n5 1:7\n'

ROWS17_COLUMNS = 40


def rows17():
    """17 lines of random sparse rows (sorted columns), of different lengths."""
    rng = np.random.RandomState(7)
    lines = []
    for i in range(17):
        count = rng.randint(0, 9)
        columns = np.sort(rng.choice(ROWS17_COLUMNS, count, replace=False))
        values = np.round(rng.uniform(-5, 5, count), 3)
        lines.append(' '.join([str(i % 5)] + ['%d:%s' % (c, repr(float(v))) for c, v in zip(columns, values)]))
    return '\n'.join(lines) + '\n'


def label_rows17():
    """Labels of three columns for rows17's lines (and two more lines than it has)."""
    return ''.join('%d %d:%d %d:1.5\n' % (i, i % 3, i + 1, (i + 1) % 3) if i % 4 else '%d\n' % i
                   for i in range(19))


DIRECTORY_FILES = [('first.t', '1 0:1\n2 1:2\n3 2:3'), ('empty.t', ''), ('second.t', '4 0:4\n5 1:5\n6 2:6\n')]


def write_files(folder):
    def write(name, text):
        with open(os.path.join(folder, name), 'w', newline='') as f:
            f.write(text)
    write('doc.t', DOC_DATA)
    write('doc_label.t', DOC_LABEL)
    write('mixed.t', MIXED)
    write('five.t', FIVE)
    write('rows17.t', rows17())
    write('label17.t', label_rows17())
    os.makedirs(os.path.join(folder, 'dir'), exist_ok=True)
    for name, text in DIRECTORY_FILES:
        write(os.path.join('dir', name), text)


def directory_order(folder):
    """The order the system lists the directory case's files in (MXNet reads them so)."""
    return os.listdir(os.path.join(folder, 'dir'))


def _libsvm(data, shape, batch_size, **kw):
    return dict(kw, data_libsvm=data, data_shape=shape, batch_size=batch_size)


LIBSVM_CASES = {
    'doc_b3': (_libsvm('doc.t', (3,), 3), 3),
    'doc_label_file': (_libsvm('doc.t', (3,), 3, label_libsvm='doc_label.t', label_shape=(3,)), 3),
    'doc_b4': (_libsvm('doc.t', (3,), 4), 2),
    'doc_b8': (_libsvm('doc.t', (3,), 8), 2),
    'doc_names': (_libsvm('doc.t', (3,), 2, data_name='x', label_name='y', round_batch='1',
                          prefetch_buffer=1, dtype='float32'), 1),
    'mixed_b3': (_libsvm('mixed.t', (MIXED_COLUMNS,), 3), 3),
    'mixed_b1': (_libsvm('mixed.t', (MIXED_COLUMNS,), 1), 1),
    'rows17_b5': (_libsvm('rows17.t', (ROWS17_COLUMNS,), 5), 3),
    'rows17_b17': (_libsvm('rows17.t', (ROWS17_COLUMNS,), 17), 2),
    'rows17_b20': (_libsvm('rows17.t', (ROWS17_COLUMNS,), 20), 2),
    'rows17_label_file': (_libsvm('rows17.t', (ROWS17_COLUMNS,), 6, label_libsvm='label17.t',
                                  label_shape=(3,)), 3),
    'dir_b2': (_libsvm('dir', (3,), 2), 2),
}
_COLUMNS = {'rows17': ROWS17_COLUMNS, 'mixed': MIXED_COLUMNS, 'five': 3}
for _n, _parts in (('rows17', (2, 3, 5)), ('mixed', (2, 3, 4)), ('five', (3, 7))):
    for _parts_n in _parts:
        for _k in range(_parts_n):
            _shape = (_COLUMNS[_n],)
            LIBSVM_CASES['%s_part%d_of%d' % (_n, _k, _parts_n)] = (
                _libsvm('%s.t' % _n, _shape, 2, num_parts=_parts_n, part_index=_k), 2)
for _k in range(2):
    LIBSVM_CASES['rows17_label_part%d_of2' % _k] = (
        _libsvm('rows17.t', (ROWS17_COLUMNS,), 3, label_libsvm='label17.t', label_shape=(3,), num_parts=2,
                part_index=_k), 2)


# ------------------------------------------------------------------ NDArrayIter inputs
def dense_5x4(dtype=np.float32):
    return np.array([[1, 0, 2, 0], [0, 0, 0, 0], [0, 3, 0, 0], [4, 5, 6, 0], [0, 0, 7, 8]], dtype)


def _csr(mx, dtype=np.float32):
    return mx.nd.sparse.csr_matrix(dense_5x4(dtype))


def _scipy(dtype=np.float32):
    import scipy.sparse
    return scipy.sparse.csr_matrix(dense_5x4(dtype))


NDARRAY_CASES = {
    'csr_discard': lambda mx: (dict(data=_csr(mx), label=np.arange(5), batch_size=2, last_batch_handle='discard'), 2),
    'csr_csr_label': lambda mx: (dict(data=_csr(mx), label=_csr(mx), batch_size=2, last_batch_handle='discard'), 1),
    'csr_dense_dict': lambda mx: (dict(data={'a_csr': _csr(mx), 'b_dense': dense_5x4()}, label=None, batch_size=3,
                                       last_batch_handle='discard'), 2),
    'csr_float64': lambda mx: (dict(data=_csr(mx, np.float64), label=np.arange(5), batch_size=2,
                                    last_batch_handle='discard'), 1),
    'scipy_in_list_float64': lambda mx: (dict(data=[_scipy(np.float64)], label=[np.arange(5)], batch_size=2,
                                              last_batch_handle='discard'), 1),
    'scipy_in_dict': lambda mx: (dict(data={'data': _scipy()}, label=[], batch_size=5,
                                      last_batch_handle='discard'), 1),
    'csr_shuffle': lambda mx: (dict(data=_csr(mx, np.float64), label=np.arange(5), batch_size=2, shuffle=True,
                                    last_batch_handle='discard'), 3),
    'scipy_shuffle': lambda mx: (dict(data={'data': _scipy()}, label=_csr(mx), batch_size=1, shuffle=True,
                                      last_batch_handle='discard'), 2),
    'row_sparse_pad': lambda mx: (dict(data=mx.nd.sparse.row_sparse_array(dense_5x4(np.float64)),
                                       label=np.arange(5), batch_size=2), 2),
    'row_sparse_shuffle_roll_over': lambda mx: (dict(data=mx.nd.sparse.row_sparse_array(dense_5x4()),
                                                     label=np.arange(5), batch_size=2, shuffle=True,
                                                     last_batch_handle='roll_over'), 3),
    # refused by MXNet: recorded as the exception's class name
    'csr_pad_refused': lambda mx: (dict(data={'data': _csr(mx)}, label=dense_5x4(), batch_size=2), 1),
    'csr_label_roll_over_refused': lambda mx: (dict(data=dense_5x4(), label=_csr(mx), batch_size=2,
                                                    last_batch_handle='roll_over'), 1),
    'scipy_pad_refused': lambda mx: (dict(data={'data': _scipy()}, label=dense_5x4(), batch_size=2), 1),
    'scipy_bare_refused': lambda mx: (dict(data=_scipy(), label=np.arange(5), batch_size=2,
                                           last_batch_handle='discard'), 1),
}
SHUFFLE_SEED = 3
# iterators kept from being freed until the recording process exits (see the module's notes)
_KEEP_ALIVE = []


# ------------------------------------------------------------------ recording
def encode(arr):
    """An array as JSON: dtype, shape and the bit patterns of its values (exact)."""
    arr = np.ascontiguousarray(arr)
    if arr.dtype.kind == 'f':
        bits = arr.view({4: np.uint32, 8: np.uint64, 2: np.uint16}[arr.dtype.itemsize])
    else:
        bits = arr
    return {'dtype': arr.dtype.name, 'shape': list(arr.shape), 'bits': bits.ravel().tolist()}


def encode_array(x):
    """An NDArray (any storage) as JSON: its storage type and its components."""
    if x.stype == 'csr':
        return {'stype': 'csr', 'shape': list(x.shape), 'data': encode(x.data.asnumpy()),
                'indices': encode(x.indices.asnumpy()), 'indptr': encode(x.indptr.asnumpy())}
    return {'stype': x.stype, 'type': type(x).__name__, 'value': encode(x.asnumpy())}


def _descs(descs):
    return [[d.name, list(d.shape), np.dtype(d.dtype).name] for d in descs]


def _epochs(it, epochs):
    out = []
    for _ in range(epochs):
        batches = []
        for batch in it:
            batches.append({'data': [encode_array(d) for d in batch.data],
                            'label': [encode_array(l) for l in (batch.label or [])],
                            'pad': int(batch.pad),
                            'index': None if batch.index is None else np.asarray(batch.index).tolist()})
        out.append(batches)
        it.reset()
    return out


def libsvm_arguments(folder, name):
    """``(LibSVMIter's keyword arguments, epochs to run)`` of case ``name``, paths in ``folder``."""
    kwargs, epochs = LIBSVM_CASES[name]
    kwargs = dict(kwargs)
    for key in ('data_libsvm', 'label_libsvm'):
        if key in kwargs:
            kwargs[key] = os.path.join(folder, kwargs[key])
    return kwargs, epochs


def run_libsvm(mx, folder, name):
    kwargs, epochs = libsvm_arguments(folder, name)
    try:
        it = mx.io.LibSVMIter(**kwargs)
        _KEEP_ALIVE.append(it)
        return {'provide_data': _descs(it.provide_data), 'provide_label': _descs(it.provide_label),
                'epochs': _epochs(it, epochs)}
    except StopIteration:
        return {'empty': True}      # MXNet's answer for a part that holds no line
    except mx.base.MXNetError as err:
        return {'error': str(err).strip().splitlines()[-1]}


def run_ndarray(mx, name):
    kwargs, epochs = NDARRAY_CASES[name](mx)
    np.random.seed(SHUFFLE_SEED)
    try:
        it = mx.io.NDArrayIter(**kwargs)
    except Exception as err:      # noqa: BLE001 (the refusals are recorded by class)
        return {'error': type(err).__name__, 'not_implemented': isinstance(err, NotImplementedError)}
    return {'provide_data': _descs(it.provide_data), 'provide_label': _descs(it.provide_label),
            'epochs': _epochs(it, epochs)}


def run_case(mx, folder, name):
    kind, case = name.split(':', 1)
    return run_libsvm(mx, folder, case) if kind == 'libsvm' else run_ndarray(mx, case)


def case_names():
    return ['libsvm:' + n for n in LIBSVM_CASES] + ['ndarray:' + n for n in NDARRAY_CASES]


def _record_one(folder, name):
    """Run one case under MXNet in this process and print its JSON (the child's work)."""
    import mxnet
    print(json.dumps(run_case(mxnet, folder, name)), flush=True)
    os._exit(0)    # without running MXNet's destructors


def main():
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        write_files(folder)
        for name in case_names():
            done = subprocess.run([sys.executable, os.path.abspath(__file__), '--one', folder, name],
                                  check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            results[name] = json.loads(done.stdout.strip().splitlines()[-1])
        results['directory_order'] = directory_order(folder)
    with open(GOLDEN, 'w') as f:
        json.dump(results, f, separators=(',', ':'))
    print('wrote', GOLDEN, os.path.getsize(GOLDEN), 'bytes,', len(results) - 1, 'cases')


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == '--one':
        _record_one(sys.argv[2], sys.argv[3])
    else:
        main()
