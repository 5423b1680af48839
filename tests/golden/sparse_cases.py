"""Sparse storage (mx.nd.sparse): the same calls under MXNet 1.9.1 (gen_sparse.py records
sparse.json) and under reflib (test_sparse.py).  Each case gives a JSON-able value; 'error'
where the library raises."""

import os
import tempfile

import numpy as np


def _try(fn):
    try:
        return fn()
    except Exception:       # noqa: BLE001  (the case records only that the library refused)
        return 'error'


def _parts(arr):
    out = {'type': type(arr).__name__, 'stype': arr.stype, 'shape': list(arr.shape),
           'dtype': np.dtype(arr.dtype).name, 'dense': arr.asnumpy().tolist()}
    if arr.stype != 'default':
        out['data'] = arr.data.asnumpy().tolist()
        out['indices'] = arr.indices.asnumpy().tolist()
    if arr.stype == 'csr':
        out['indptr'] = arr.indptr.asnumpy().tolist()
    return out


def _assigned(target, value, key=slice(None)):
    target[key] = value
    return target


def _iadd(target, other):
    target += other
    return target


def run(mx):
    nd, sparse = mx.nd, mx.nd.sparse
    csr = sparse.csr_matrix((np.array([1., 2., 3.], dtype='float32'), np.array([0, 2, 1]), np.array([0, 2, 2, 3])),
                            shape=(3, 4))
    rsp = sparse.row_sparse_array((np.array([[1., 2.], [3., 4.]], dtype='float32'), np.array([0, 2])), shape=(4, 2))
    dense = nd.array([[0, 1], [0, 0], [3, 0]])
    cases = {
        'csr from components': lambda: _parts(csr),
        'csr from a list (float32)': lambda: _parts(sparse.csr_matrix(([1, 2, 3], [0, 2, 1], [0, 2, 2, 3]),
                                                                        shape=(3, 4))),
        'csr keeps a float64 source': lambda: _parts(sparse.csr_matrix((np.array([1., 2.]), [0, 1], [0, 1, 2]),
                                                                         shape=(2, 2))),
        'csr dtype given': lambda: _parts(sparse.csr_matrix(([1, 2], [0, 1], [0, 1, 2]), shape=(2, 2),
                                                              dtype='float16')),
        'csr shape from the indices': lambda: list(sparse.csr_matrix(([1, 2, 3], [0, 2, 1], [0, 2, 2, 3])).shape),
        'csr from dense numpy': lambda: _parts(sparse.csr_matrix(np.array([[0, 1.], [2, 0]]))),
        'csr from dense NDArray': lambda: _parts(sparse.csr_matrix(nd.array([[0, 1.], [2, 0]]))),
        'csr of a shape': lambda: _parts(sparse.csr_matrix((2, 3))),
        'csr rows 1:3': lambda: _parts(csr[1:3]),
        'csr row 1': lambda: _parts(csr[1]),
        'csr rows by step': lambda: _try(lambda: csr[::2]),
        'csr dot dense': lambda: _parts(sparse.dot(csr, nd.ones((4, 2)))),
        'csr.T dot dense': lambda: _parts(sparse.dot(csr, nd.array([[1, 2], [3, 4], [5, 6]]), transpose_a=True)),
        'nd.dot of a csr': lambda: _parts(nd.dot(csr, nd.ones((4, 2)))),
        'csr * 2': lambda: _parts(csr * 2),
        'csr + csr': lambda: _parts(csr + csr),
        'csr + 1 (dense)': lambda: _parts(csr + 1),
        'sum of a csr, axis 0': lambda: _parts(nd.sum(csr, axis=0)),
        'rsp from components': lambda: _parts(rsp),
        'rsp shape from the indices': lambda: list(sparse.row_sparse_array(([[1, 2], [3, 4]], [0, 2])).shape),
        'rsp of a shape': lambda: _parts(sparse.row_sparse_array((4, 2))),
        'rsp + rsp': lambda: _parts(rsp + sparse.row_sparse_array(([[10, 20]], [1]), shape=(4, 2))),
        'rsp * 2': lambda: _parts(rsp * 2),
        'retain rows 2, 3': lambda: _parts(sparse.retain(rsp, nd.array([2, 3]))),
        'retain rows 3, 2 (unsorted)': lambda: _parts(sparse.retain(rsp, nd.array([3, 2], dtype='int64'))),
        'retain rows 1, 3 (none stored)': lambda: _parts(sparse.retain(rsp, nd.array([1, 3], dtype='int64'))),
        'dense to csr': lambda: _parts(dense.tostype('csr')),
        'dense to row_sparse': lambda: _parts(dense.tostype('row_sparse')),
        'cast_storage': lambda: _parts(nd.cast_storage(dense, stype='row_sparse')),
        'csr to row_sparse': lambda: _try(lambda: csr.tostype('row_sparse')),
        '3-d to csr': lambda: _try(lambda: nd.ones((2, 2, 2)).tostype('csr')),
        '3-d to row_sparse': lambda: _parts(nd.ones((2, 2, 2)).tostype('row_sparse')),
        'zeros csr': lambda: _parts(sparse.zeros('csr', (2, 3))),
        'zeros row_sparse': lambda: _parts(sparse.zeros('row_sparse', (2, 3))),
        'csr to default': lambda: _parts(csr.tostype('default')),
        'copy to cpu(1)': lambda: [type(csr.copyto(mx.cpu(1))).__name__, str(csr.copyto(mx.cpu(1)).context)],
        'copy into dense': lambda: _parts(csr.copyto(nd.zeros((3, 4)))),
        'sparse.add csr csr': lambda: _parts(sparse.add(csr, csr)),
        'sparse.add csr dense': lambda: _parts(sparse.add(csr, nd.ones((3, 4)))),
        'sparse.add rsp rsp': lambda: _parts(sparse.add(rsp, rsp)),
        'sparse.subtract csr csr': lambda: _parts(sparse.subtract(csr, csr)),
        'sparse.multiply csr dense': lambda: _parts(sparse.multiply(csr, nd.ones((3, 4)))),
        'sparse.multiply csr row': lambda: _parts(sparse.multiply(csr, nd.array([[1, 2, 3, 4]]))),
        'sparse.multiply csr column': lambda: _parts(sparse.multiply(csr, nd.array([[1], [2], [3]]))),
        'sparse.divide csr row': lambda: _parts(sparse.divide(csr, nd.array([[1, 2, 3, 4]]))),
        'sparse.multiply csr 2': lambda: _parts(sparse.multiply(csr, 2)),
        'sparse.add csr 2': lambda: _parts(sparse.add(csr, 2)),
        'sparse.multiply rsp rsp': lambda: _parts(sparse.multiply(rsp, rsp)),
        'sparse.multiply rsp dense': lambda: _parts(sparse.multiply(rsp, nd.ones((4, 2)))),
        'dense += rsp': lambda: _parts(_iadd(nd.ones((4, 2)), rsp)),
        'dense * csr': lambda: _parts(nd.ones((3, 4)) * csr),
        'retain of nothing stored': lambda: _parts(sparse.retain(sparse.zeros('row_sparse', (4, 2)),
                                                                 nd.array([1, 2]))),
        'rsp[:] = numpy': lambda: _parts(_assigned(sparse.zeros('row_sparse', (3, 2)), np.array([[0, 1], [0, 0], [2, 3]]))),
        'rsp[:] = 3': lambda: _parts(_assigned(sparse.zeros('row_sparse', (3, 2)), 3)),
        'rsp[:] = rsp': lambda: _parts(_assigned(sparse.zeros('row_sparse', (4, 2)), rsp)),
        'rsp[1] = 3': lambda: _try(lambda: _assigned(sparse.zeros('row_sparse', (3, 2)), 3, 1)),
        'csr[:] = dense': lambda: _parts(_assigned(sparse.zeros('csr', (3, 2)), nd.array([[0, 1], [0, 0], [2, 3]]))),
        'dense copyto csr': lambda: _parts(nd.array([[0, 1], [0, 0], [2, 3]]).copyto(sparse.zeros('csr', (3, 2)))),
        'dense copyto rsp': lambda: _parts(dense.copyto(sparse.zeros('row_sparse', (3, 2)))),
        'len': lambda: len(csr),
        'size': lambda: _try(lambda: csr.size),
        'repr': lambda: repr(csr),
    }
    record = {k: fn() for k, fn in cases.items()}
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, 'sparse.nd')
    nd.save(path, {'csr': csr, 'rsp': rsp, 'dense': dense})
    with open(path, 'rb') as f:
        record['saved bytes'] = f.read().hex()
    loaded = nd.load(path)
    record['loaded'] = {k: _parts(v) for k, v in sorted(loaded.items())}
    return record
