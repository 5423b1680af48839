"""Sparse storage (mx.nd.sparse): the same calls under MXNet 1.9.1 (gen_sparse.py records
sparse.json) and under reflib (test_sparse.py).  Each case gives a JSON-able value; 'error'
where the library raises."""

import os
import pickle
import tempfile

import numpy as np


def _try(fn):
    try:
        return fn()
    except Exception:       # noqa: BLE001  (the case records only that the library refused)
        return 'error'


def _listed(values):
    """``values`` as lists, NaN as the string 'nan' (NaN != NaN would fail any comparison)."""
    if values.dtype.kind == 'f' and np.isnan(values).any():
        return np.where(np.isnan(values), 'nan', values.astype(object)).tolist()
    return values.tolist()


def _parts(arr, approx=False):
    """What an array is: its type, storage, shape, dtype, values and index arrays.  ``approx``
    marks values of functions whose last bit numpy and MXNet's C math library may round apart
    (the test compares those to a relative 1e-5)."""
    out = {'type': type(arr).__name__, 'stype': arr.stype, 'shape': list(arr.shape),
           'dtype': np.dtype(arr.dtype).name, 'dense': _listed(arr.asnumpy())}
    if arr.stype != 'default':
        out['data'] = _listed(arr.data.asnumpy())
        out['indices'] = arr.indices.asnumpy().tolist()
    if arr.stype == 'csr':
        # only the entries indptr covers: MXNet's CSR kernels can leave uninitialised ones past its end
        out['indptr'] = arr.indptr.asnumpy().tolist()
        out['data'], out['indices'] = out['data'][:out['indptr'][-1]], out['indices'][:out['indptr'][-1]]
    if approx:
        out['approx'] = True
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
    cases.update(_operator_cases(mx))
    record = {k: fn() for k, fn in cases.items()}
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, 'sparse.nd')
    nd.save(path, {'csr': csr, 'rsp': rsp, 'dense': dense})
    with open(path, 'rb') as f:
        record['saved bytes'] = f.read().hex()
    loaded = nd.load(path)
    record['loaded'] = {k: _parts(v) for k, v in sorted(loaded.items())}
    return record


# ------------------------------------------------------------------- operators on sparse arrays
# The storage of each operator's result (and its values and indices) on csr and row_sparse inputs

# operators that map 0 to 0 with a sparse kernel in MXNet, and others (dense results)
UNARY = ('abs', 'arcsin', 'arcsinh', 'arctan', 'arctanh', 'cbrt', 'ceil', 'degrees', 'expm1', 'fix', 'floor',
         'log1p', 'negative', 'radians', 'relu', 'rint', 'round', 'sign', 'sin', 'sinh', 'sqrt', 'square', 'tan',
         'tanh', 'trunc', 'stop_gradient', 'make_loss', 'zeros_like',
         'exp', 'sigmoid', 'rsqrt', 'cos', 'arccos', 'cosh', 'log', 'log2', 'log10', 'gamma', 'gammaln')
# x op scalar through the Python operators and mx.nd's functions
SCALAR = {
    'csr * 2': lambda x: x * 2, '2 * csr': lambda x: 2 * x, 'csr / 2': lambda x: x / 2, 'csr / 0': lambda x: x / 0,
    'csr + 0': lambda x: x + 0, 'csr - 0': lambda x: x - 0, 'csr + 1': lambda x: x + 1, '0 + csr': lambda x: 0 + x,
    '1 - csr': lambda x: 1 - x, '0 - csr': lambda x: 0 - x, '2 / csr': lambda x: 2 / x, '-csr': lambda x: -x,
    'abs(csr)': abs, 'csr ** 2': lambda x: x ** 2, 'csr % 2': lambda x: x % 2,
    'csr == 1': lambda x: x == 1, 'csr == 0': lambda x: x == 0, 'csr != 0': lambda x: x != 0,
    'csr != 1': lambda x: x != 1, 'csr > 0': lambda x: x > 0, 'csr > -1': lambda x: x > -1,
    'csr < 0': lambda x: x < 0, 'csr >= 0': lambda x: x >= 0, 'csr >= 0.5': lambda x: x >= 0.5,
    'csr <= 0': lambda x: x <= 0, 'csr <= -1': lambda x: x <= -1, '0 == csr': lambda x: 0 == x,
    '1 > csr': lambda x: 1 > x, '-1 > csr': lambda x: -1 > x,
}


def _after_update(step, arrays):
    """The arrays (weight first, then the states) after ``step`` ran on them, or 'error'."""
    try:
        step(*arrays)
    except Exception:       # noqa: BLE001
        return 'error'
    return [_parts(a) for a in arrays]


def _operator_cases(mx):
    nd, sparse = mx.nd, mx.nd.sparse
    m = np.array([[0, 0.5, 0, -2], [0, 0, 0, 0], [-0.25, 0, 0.75, 0]], dtype='float32')
    m2 = np.array([[1, 2, 0, 0], [0, 0, 0, 0], [0, 0, 4, 0]], dtype='float32')
    csr, csr2 = nd.array(m).tostype('csr'), nd.array(m2).tostype('csr')
    rsp, rsp2 = nd.array(m).tostype('row_sparse'), nd.array(m2).tostype('row_sparse')
    rsp3 = sparse.row_sparse_array(([[1, 2, 3, 4]], [1]), shape=(3, 4))
    dense, row, col = nd.array(m2), nd.array([[1, 2, 4, 8]]), nd.array([[1], [2], [4]])
    forms = {'csr': csr, 'rsp': rsp}
    cases = {}
    for name in UNARY:
        for form, x in forms.items():
            cases['sparse.%s %s' % (name, form)] = (lambda n, x: lambda: _parts(getattr(sparse, n)(x),
                                                                                approx=True))(name, x)
    for text, fn in SCALAR.items():
        for form, x in forms.items():
            cases[text.replace('csr', form)] = (lambda fn, x: lambda: _parts(fn(x)))(fn, x)
    cases.update({
        'nd.equal csr 1': lambda: _parts(nd.equal(csr, 1)),
        'nd.greater_equal rsp 1': lambda: _parts(nd.greater_equal(rsp, 1)),
        'nd.maximum csr 0': lambda: _parts(nd.maximum(csr, 0)),
        '_equal_scalar csr': lambda: _parts(nd._internal._equal_scalar(csr, scalar=0.5)),
        '_plus_scalar rsp 0': lambda: _parts(nd._internal._plus_scalar(rsp, scalar=0)),
        'clip csr': lambda: _parts(nd.clip(csr, -0.3, 0.6)),
        'clip rsp': lambda: _parts(sparse.clip(rsp, a_min=0, a_max=0.6)),
        'clip csr without 0': lambda: _try(lambda: nd.clip(csr, 0.1, 1).asnumpy()),
        'nd.array of a scipy CSR matrix': lambda: _parts(nd.array(_scipy_csr(m))),
        'nd.array of a scipy CSR matrix, float64': lambda: _parts(nd.array(_scipy_csr(m), dtype='float64')),
        '_square_sum rsp axis=1 keepdims': lambda: _parts(nd._internal._square_sum(rsp, axis=1, keepdims=True)),
        '_square_sum rsp axis=1': lambda: _parts(nd._internal._square_sum(rsp, axis=1)),
        '_square_sum rsp axis=0': lambda: _parts(nd._internal._square_sum(rsp, axis=0)),
        'clip rsp without 0': lambda: _try(lambda: nd.clip(rsp, -1, -0.1).asnumpy()),
        # fluent methods and NDArray methods
        'csr.sign()': lambda: _parts(csr.sign()),
        'rsp.relu()': lambda: _parts(rsp.relu()),
        'csr.abs()': lambda: _parts(csr.abs()),
        'rsp.sqrt()': lambda: _parts(rsp.sqrt()),
        'csr.square()': lambda: _parts(csr.square()),
        'csr.clip()': lambda: _parts(csr.clip(-0.3, 0.3)),
        'rsp.zeros_like()': lambda: _parts(rsp.zeros_like()),
        'csr.exp()': lambda: _parts(csr.exp(), approx=True),
        'csr.sum()': lambda: _parts(csr.sum()),
        'csr.T': lambda: _parts(csr.T),
        'rsp.T': lambda: _parts(rsp.T),
        'csr.astype': lambda: _parts(csr.astype('float64')),
        # two sparse arrays
        'csr + csr2': lambda: _parts(csr + csr2),
        'csr - csr2': lambda: _parts(csr - csr2),
        'csr * csr2': lambda: _parts(csr * csr2),
        'csr / csr2': lambda: _parts(csr / csr2),
        'csr == csr2': lambda: _parts(csr == csr2),
        'csr > csr2': lambda: _parts(csr > csr2),
        'csr ** csr2': lambda: _parts(csr ** csr2),
        'rsp + rsp3': lambda: _parts(rsp + rsp3),
        'rsp - rsp3': lambda: _parts(rsp - rsp3),
        'rsp - rsp': lambda: _parts(rsp - rsp),
        'rsp * rsp3': lambda: _parts(rsp * rsp3),
        'rsp * rsp2': lambda: _parts(rsp * rsp2),
        'rsp / rsp2': lambda: _parts(rsp / rsp2),
        'rsp < rsp2': lambda: _parts(rsp < rsp2),
        'csr + rsp': lambda: _parts(csr + rsp),
        'csr * rsp': lambda: _parts(csr * rsp),
        'elemwise_add csr csr2': lambda: _parts(sparse.elemwise_add(csr, csr2)),
        'elemwise_sub rsp rsp3': lambda: _parts(sparse.elemwise_sub(rsp, rsp3)),
        'elemwise_mul rsp rsp3': lambda: _parts(sparse.elemwise_mul(rsp, rsp3)),
        'elemwise_div csr csr2': lambda: _parts(sparse.elemwise_div(csr, csr2)),
        '_grad_add csr csr2': lambda: _parts(nd._internal._grad_add(csr, csr2)),
        '_maximum csr csr2': lambda: _parts(nd._internal._maximum(csr, csr2)),
        '_minimum csr csr2': lambda: _parts(nd._internal._minimum(csr, csr2)),
        '_maximum rsp rsp3': lambda: _parts(nd._internal._maximum(rsp, rsp3)),
        '_minimum rsp rsp3': lambda: _parts(nd._internal._minimum(rsp, rsp3)),
        'nd.maximum csr csr2': lambda: _parts(nd.maximum(csr, csr2)),
        # a sparse and a dense array
        'csr * dense': lambda: _parts(csr * dense),
        'dense * csr': lambda: _parts(dense * csr),
        'elemwise_mul dense csr': lambda: _parts(nd.elemwise_mul(dense, csr)),
        'rsp * dense': lambda: _parts(rsp * dense),
        'dense * rsp': lambda: _parts(dense * rsp),
        'elemwise_mul dense rsp': lambda: _parts(nd.elemwise_mul(dense, rsp)),
        'csr + dense': lambda: _parts(csr + dense),
        'dense + csr': lambda: _parts(dense + csr),
        'dense - rsp': lambda: _parts(dense - rsp),
        'dense / csr': lambda: _parts(dense / csr),
        'csr - dense': lambda: _parts(csr - dense),
        'csr / dense': lambda: _try(lambda: _parts(csr / dense)),
        'elemwise_div csr dense': lambda: _parts(nd.elemwise_div(csr, dense)),
        'csr * row': lambda: _parts(csr * row),
        'csr * col': lambda: _parts(csr * col),
        'csr / row': lambda: _parts(csr / row),
        'csr / col': lambda: _parts(csr / col),
        'csr + row': lambda: _parts(csr + row),
        'rsp * row': lambda: _parts(rsp * row),
        'rsp / col': lambda: _parts(rsp / col),
        'broadcast_mul csr dense': lambda: _parts(nd.broadcast_mul(csr, dense)),
        'broadcast_mul csr 1-d': lambda: _parts(nd.broadcast_mul(csr, nd.array([1, 2, 4, 8]))),
        'broadcast_div csr 1x1': lambda: _parts(nd.broadcast_div(csr, nd.array([[4]]))),
        'broadcast_mul dense csr': lambda: _parts(nd.broadcast_mul(dense, csr)),
        'broadcast_add csr row': lambda: _parts(nd.broadcast_add(csr, row)),
        'sparse.multiply rsp 2': lambda: _parts(sparse.multiply(rsp, 2)),
        'sparse.subtract 1 csr': lambda: _parts(sparse.subtract(1, csr)),
        'sparse.divide csr csr2': lambda: _parts(sparse.divide(csr, csr2)),
        # sums
        'add_n rsp rsp2 rsp3': lambda: _parts(sparse.add_n(rsp, rsp2, rsp3)),
        'add_n rsp': lambda: _parts(nd.add_n(rsp)),
        'ElementWiseSum rsp rsp3': lambda: _parts(sparse.ElementWiseSum(rsp, rsp3)),
        'add_n dense rsp': lambda: _parts(nd.add_n(dense, rsp)),
        'add_n rsp dense rsp2': lambda: _parts(nd.add_n(rsp, dense, rsp2)),
        'add_n csr csr2': lambda: _parts(nd.add_n(csr, csr2)),
        # reductions
        'sum csr': lambda: _parts(nd.sum(csr)),
        'sum csr axis 1': lambda: _parts(nd.sum(csr, axis=1)),
        'sparse.sum rsp axis 0': lambda: _parts(sparse.sum(rsp, axis=0)),
        'mean rsp axis 0': lambda: _parts(nd.mean(rsp, axis=0), approx=True),
        'sparse.mean csr axis 1 keepdims': lambda: _parts(sparse.mean(csr, axis=1, keepdims=True), approx=True),
        'norm csr': lambda: _parts(nd.norm(csr), approx=True),
        'sparse.norm rsp': lambda: _parts(sparse.norm(rsp), approx=True),
        'norm csr axis 1': lambda: _parts(nd.norm(csr, axis=1), approx=True),
        # rows and columns
        'slice csr rows': lambda: _parts(nd.slice(csr, begin=(1,), end=(3,))),
        'slice csr rows and columns': lambda: _parts(nd.slice(csr, begin=(0, 1), end=(3, 3))),
        'slice csr None and negative': lambda: _parts(nd.slice(csr, begin=(None, -3), end=(-1, None))),
        'slice csr step 1': lambda: _parts(nd.slice(csr, begin=(0,), end=(2,), step=(1,))),
        'slice csr step 2': lambda: _parts(nd.slice(csr, begin=(0,), end=(3,), step=(2,))),
        'sparse.slice csr': lambda: _parts(sparse.slice(csr, begin=(1, 0), end=(3, 2))),
        'slice rsp': lambda: _parts(nd.slice(rsp, begin=(0,), end=(2,))),
        'slice_axis csr': lambda: _parts(nd.slice_axis(csr, axis=0, begin=0, end=2)),
        'csr.slice': lambda: _parts(csr.slice(begin=(0, 2), end=(2, 4))),
        'take csr clip': lambda: _parts(nd.take(csr, nd.array([2, 0, 7, -1]), mode='clip')),
        'take csr wrap': lambda: _parts(nd.take(csr, nd.array([2, 0, 7, -1]), mode='wrap')),
        'take csr raise': lambda: _parts(nd.take(csr, nd.array([2, 0]), mode='raise')),
        'take csr axis 1': lambda: _parts(nd.take(csr, nd.array([1, 0]), axis=1)),
        'concat csr dim 0': lambda: _parts(sparse.concat(csr, csr2, dim=0)),
        'concat csr dim 1': lambda: _parts(nd.concat(csr, csr2, dim=1)),
        'concat rsp dim 0': lambda: _parts(nd.concat(rsp, rsp2, dim=0)),
        'where csr': lambda: _parts(sparse.where(csr, dense, dense * 2)),
        # products
        'dot dense csr': lambda: _parts(nd.dot(nd.array([[1, 0, 2], [0, 0, 0]]), csr)),
        'dot dense csr.T': lambda: _parts(nd.dot(nd.array([[1, 0, 2, 0], [0, 1, 0, 0]]), csr, transpose_b=True)),
        'dot dense.T csr': lambda: _parts(nd.dot(nd.array([[1, 0], [0, 0], [2, 0]]), csr, transpose_a=True)),
        'dot csr.T rsp': lambda: _parts(nd.dot(csr, nd.array([[1, 2], [5, 6], [0, 0]]).tostype('row_sparse'),
                                               transpose_a=True)),
        'dot csr rsp': lambda: _parts(nd.dot(csr, nd.array([[1, 2], [5, 6], [0, 0], [0, 1]]).tostype('row_sparse'))),
        'dot csr dense.T': lambda: _parts(nd.dot(csr, nd.ones((2, 4)), transpose_b=True)),
        'dot csr csr.T': lambda: _parts(nd.dot(csr, csr2, transpose_b=True)),
        'dot rsp dense': lambda: _parts(nd.dot(rsp, nd.ones((4, 2)))),
        'dot dense rsp': lambda: _parts(nd.dot(nd.ones((2, 3)), rsp)),
        'dot dense csr as default': lambda: _parts(nd.dot(nd.array([[1, 0, 2]]), csr, forward_stype='default')),
        'dot csr dense as csr': lambda: _parts(nd.dot(csr, nd.ones((4, 2)), forward_stype='csr')),
        'sparse.dot csr.T dense': lambda: _parts(sparse.dot(csr, nd.ones((3, 2)), transpose_a=True)),
        # storage fallback of other operators
        'FullyConnected csr': lambda: _parts(sparse.FullyConnected(csr, nd.ones((2, 4)), nd.ones(2), num_hidden=2)),
        'Embedding rsp weight': lambda: _parts(sparse.Embedding(nd.array([0, 2]), rsp, input_dim=3, output_dim=4)),
        'LinearRegressionOutput csr': lambda: _parts(sparse.LinearRegressionOutput(csr, dense)),
        'transpose csr': lambda: _parts(nd.transpose(csr)),
        'cast csr': lambda: _parts(nd.cast(csr, dtype='float64')),
        # in place: the result is stored back in the array's own form
        'csr += csr2': lambda: _parts(_iadd(csr.copy(), csr2)),
        'csr += 1': lambda: _parts(_iadd(csr.copy(), 1)),
        'rsp *= 2': lambda: _parts(_imul(rsp.copy(), 2)),
        'rsp += dense': lambda: _parts(_iadd(rsp.copy(), dense)),
        # optimizer updates with a row_sparse gradient
        **_update_cases(mx),
        # making them
        'csr from coordinates': lambda: _parts(sparse.csr_matrix(
            (np.array([1., 2, 3]), (np.array([0, 2, 0]), np.array([1, 0, 0]))), shape=(3, 3))),
        'csr from coordinates, shape inferred': lambda: _parts(sparse.csr_matrix(
            (np.array([1., 2, 3]), (np.array([0, 2, 0]), np.array([1, 0, 0]))))),
        'csr shape mismatch': lambda: _try(lambda: sparse.csr_matrix((2, 2), shape=(3, 2))),
        'csr of dense shape mismatch': lambda: _try(lambda: sparse.csr_matrix(nd.ones((2, 2)), shape=(3, 2))),
        'rsp shape mismatch': lambda: _try(lambda: sparse.row_sparse_array((2, 2), shape=(3, 2))),
        'csr shape from no indices': lambda: _try(lambda: sparse.csr_matrix(
            (np.zeros(0, 'float32'), np.zeros(0, 'int64'), np.zeros(3, 'int64'))).shape),
        'rsp shape from no indices': lambda: _try(lambda: sparse.row_sparse_array(
            (np.zeros((0, 2), 'float32'), np.zeros(0, 'int64'))).shape),
        'zeros of an unknown stype': lambda: _try(lambda: sparse.zeros('dense', (2, 2))),
        'retain with an unknown argument': lambda: _parts(sparse.retain(rsp, nd.array([0]), invalid='x')),
        'retain of a dense array, no indices': lambda: _try(lambda: sparse.retain(dense, invalid='x')),
        'pickled csr': lambda: _parts(pickle.loads(pickle.dumps(csr))),
        'pickled rsp': lambda: _parts(pickle.loads(pickle.dumps(rsp))),
    })
    return cases


def _scipy_csr(dense):
    import scipy.sparse     # (only these cases need it)
    return scipy.sparse.csr_matrix(dense)


def _imul(target, other):
    target *= other
    return target


def _update_cases(mx):
    nd, sparse = mx.nd, mx.nd.sparse
    grad = sparse.row_sparse_array((np.array([[0.5, -1.], [2., 0.25]], dtype='float32'), np.array([1, 3])),
                                   shape=(4, 2))

    def weight(stype='default'):
        return nd.array([[1., 2.], [3., 4.], [5., 6.], [7., 8.]]).tostype(stype)

    def state(stype='default'):
        return (nd.ones((4, 2)) * 0.5).tostype(stype)

    def case(step, *arrays):
        return lambda: _after_update(step, list(arrays))
    hyper = dict(lr=0.1, wd=0.1)
    return {
        'sgd_update lazy': case(lambda w: nd.sgd_update(w, grad, out=w, **hyper), weight()),
        'sgd_update not lazy': case(lambda w: nd.sgd_update(w, grad, lazy_update=False, out=w, **hyper), weight()),
        'sgd_update clipped': case(lambda w: sparse.sgd_update(w, grad, out=w, rescale_grad=2, clip_gradient=1.5,
                                                               **hyper), weight()),
        'sgd_update without out': case(lambda w: nd.sgd_update(w, grad, **hyper).asnumpy(), weight()),
        'sgd_update of nothing stored': case(lambda w: nd.sgd_update(
            w, sparse.zeros('row_sparse', (4, 2)), out=w, **hyper), weight()),
        'sgd_update row_sparse weight': case(lambda w: nd.sgd_update(w, grad, out=w, **hyper), weight('row_sparse')),
        'sgd_update csr gradient': case(lambda w: nd.sgd_update(w, grad.tostype('default').tostype('csr'),
                                                                **hyper).copyto(w), weight()),
        'sgd_mom_update lazy': case(lambda w, m: nd.sgd_mom_update(w, grad, m, momentum=0.9, out=w, **hyper),
                                    weight(), state()),
        'sgd_mom_update not lazy': case(lambda w, m: nd.sgd_mom_update(w, grad, m, momentum=0.9, lazy_update=False,
                                                                       out=w, **hyper), weight(), state()),
        'sgd_mom_update row_sparse': case(lambda w, m: nd.sgd_mom_update(w, grad, m, momentum=0.9, out=w, **hyper),
                                          weight('row_sparse'), state('row_sparse')),
        'sgd_mom_update row_sparse weight, dense mom': case(
            lambda w, m: nd.sgd_mom_update(w, grad, m, momentum=0.9, out=w, **hyper), weight('row_sparse'), state()),
        'adam_update lazy': case(lambda w, m, v: nd.adam_update(w, grad, m, v, out=w, **hyper),
                                 weight(), state(), state()),
        'adam_update not lazy': case(lambda w, m, v: sparse.adam_update(w, grad, m, v, lazy_update=False, out=w,
                                                                        **hyper), weight(), state(), state()),
        'adam_update row_sparse': case(lambda w, m, v: nd.adam_update(w, grad, m, v, out=w, **hyper),
                                       weight('row_sparse'), state('row_sparse'), state('row_sparse')),
        'ftrl_update dense weight': case(lambda w, z, n: nd.ftrl_update(w, grad, z, n, **hyper).copyto(w),
                                         weight(), state(), state()),
        'ftrl_update row_sparse': case(lambda w, z, n: sparse.ftrl_update(w, grad, z, n, out=w, **hyper),
                                       weight('row_sparse'), state('row_sparse'), state('row_sparse')),
        'adagrad_update': case(lambda w, h: sparse.adagrad_update(w, grad, h, lr=0.1, out=w), weight(), state()),
        'adagrad_update clipped': case(lambda w, h: sparse.adagrad_update(
            w, grad, h, lr=0.1, epsilon=1e-6, rescale_grad=2, clip_gradient=1.5, out=w), weight(), state()),
        'adagrad_update clipped to 0': case(lambda w, h: sparse.adagrad_update(w, grad, h, lr=0.1, clip_gradient=0,
                                                                              out=w), weight(), state()),
        'adagrad_update row_sparse': case(lambda w, h: sparse.adagrad_update(w, grad, h, lr=0.1, out=w),
                                          weight('row_sparse'), state('row_sparse')),
        'adagrad_update with wd': case(lambda w, h: sparse.adagrad_update(w, grad, h, lr=0.1, wd=0.1, out=w),
                                       weight(), state()),
        'adagrad_update without out': case(lambda w, h: sparse.adagrad_update(w, grad, h, lr=0.1).asnumpy(),
                                           weight(), state()),
        'adagrad_update dense gradient': case(lambda w, h: sparse.adagrad_update(
            w, grad.tostype('default'), h, lr=0.1, out=w), weight(), state()),
    }
