"""Operators on sparse arrays (reflib/ndarray/sparse.py's sparse forms) beyond the recorded cases
of test_sparse.py: on random arrays, a sparse form gives the numbers the operator gives on the
dense array, in the storage MXNet 1.9.1 gives; plus the mx.nd.sparse and mx.sym.sparse
namespaces, out=, in-place arithmetic and autograd."""

import pickle

import numpy as np
import pytest

import reflib as mx
from reflib.ndarray import sparse as sparse_module
from reflib.operator import get
from reflib.operator.registry import OpEnv
from reflib.operator.sparse_rows import SparseRows
from reflib.test_utils import check_op_gradient

ENV = OpEnv(mx.cpu(), True)

# MXNet 1.9.1's dir(mx.sym.sparse); reflib has no graph operator for the last five
SYMBOL_NAMES = {
    'ElementWiseSum', 'Embedding', 'FullyConnected', 'LinearRegressionOutput', 'LogisticRegressionOutput',
    'MAERegressionOutput', 'abs', 'adam_update', 'add_n', 'arccos', 'arccosh', 'arcsin', 'arcsinh', 'arctan',
    'arctanh', 'broadcast_add', 'broadcast_div', 'broadcast_minus', 'broadcast_mul', 'broadcast_plus',
    'broadcast_sub', 'cbrt', 'ceil', 'clip', 'concat', 'cos', 'cosh', 'degrees', 'dot', 'elemwise_add',
    'elemwise_div', 'elemwise_mul', 'elemwise_sub', 'exp', 'expm1', 'fix', 'floor', 'ftrl_update', 'gamma',
    'gammaln', 'log', 'log10', 'log1p', 'log2', 'make_loss', 'mean', 'negative', 'norm', 'radians', 'relu', 'rint',
    'round', 'rsqrt', 'sgd_mom_update', 'sgd_update', 'sigmoid', 'sign', 'sin', 'sinh', 'slice', 'sqrt', 'square',
    'stop_gradient', 'sum', 'tan', 'tanh', 'trunc', 'where', 'zeros_like'}
SYMBOL_NAMES_MISSING = {'cast_storage', 'retain', 'adagrad_update', '_contrib_round_ste', '_contrib_sign_ste'}


def _random(shape, density, seed, stype):
    rng = np.random.RandomState(seed)
    values = rng.uniform(-0.9, 0.9, shape).astype(np.float32)
    if stype == 'row_sparse':
        values[rng.rand(shape[0]) > density] = 0
    else:
        values[rng.rand(*shape) > density] = 0
    return mx.nd.array(values).tostype(stype)


def _same_numbers(a, b):
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


@pytest.mark.parametrize('stype', ['csr', 'row_sparse'])
@pytest.mark.parametrize('name', sparse_module._VALUEWISE)
def test_a_valuewise_operator_keeps_the_storage_and_gives_the_dense_numbers(name, stype):
    x = _random((6, 5), 0.4, 1, stype)
    params = {'scalar': 2.5} if name.endswith('_scalar') else {}
    out = getattr(mx.nd._internal if name.startswith('_') else mx.nd, name)(x, **params)
    assert out.stype == stype
    assert np.array_equal(out.indices.asnumpy(), x.indices.asnumpy())
    _same_numbers(out, getattr(mx.nd._internal if name.startswith('_') else mx.nd, name)(x.todense(), **params))


@pytest.mark.parametrize('stype', ['csr', 'row_sparse'])
@pytest.mark.parametrize('name', sparse_module._VALUEWISE_IF_ZERO_STAYS)
def test_a_scalar_operator_keeps_the_storage_only_where_zero_stays_zero(name, stype):
    x = _random((6, 5), 0.4, 2, stype)
    op = getattr(mx.nd._internal, name)
    for scalar in (-1.0, 0.0, 0.5):
        out, dense = op(x, scalar=scalar), op(x.todense(), scalar=scalar)
        zero_stays = (op(mx.nd.zeros((1,)), scalar=scalar).asnumpy() == 0).all()
        assert out.stype == (stype if zero_stays else 'default'), (name, scalar)
        _same_numbers(out, dense)


@pytest.mark.parametrize('stype', ['csr', 'row_sparse'])
@pytest.mark.parametrize('name', ['elemwise_add', 'elemwise_sub', 'elemwise_mul', '_grad_add', '_maximum', '_minimum'])
def test_two_arrays_of_one_form_keep_it(name, stype):
    a, b = _random((7, 4), 0.3, 3, stype), _random((7, 4), 0.3, 4, stype)
    op = getattr(mx.nd._internal if name.startswith('_') else mx.nd, name)
    out = op(a, b)
    assert out.stype == stype
    _same_numbers(out, op(a.todense(), b.todense()))
    if stype == 'csr':
        out.check_format(full_check=True)
        assert not (out.data.asnumpy() == 0).any()      # MXNet's CSR kernel stores no zero results


def test_a_sparse_times_a_dense_array_keeps_the_sparse_pattern():
    for stype in ('csr', 'row_sparse'):
        x, dense = _random((5, 6), 0.3, 5, stype), mx.nd.array(np.random.RandomState(6).rand(5, 6))
        for out in (x * dense, mx.nd.elemwise_mul(dense, x)):
            assert out.stype == stype and np.array_equal(out.indices.asnumpy(), x.indices.asnumpy())
            _same_numbers(out, x.todense() * dense)
        assert (dense * x).stype == 'default'         # broadcast_mul(dense, sparse), as in MXNet


def test_a_csr_array_times_or_over_a_broadcast_row_stays_csr():
    x = _random((5, 6), 0.3, 7, 'csr')
    row = mx.nd.array(np.random.RandomState(8).rand(1, 6) + 1)
    for op in (mx.nd.broadcast_mul, mx.nd.broadcast_div):
        out = op(x, row)
        assert out.stype == 'csr'
        _same_numbers(out, op(x.todense(), row))
    with pytest.raises(mx.MXNetError, match='elemwise_div'):
        mx.nd.broadcast_div(x, mx.nd.ones((5, 6)))


def test_slices_and_taken_rows_of_a_csr_array():
    x = _random((8, 7), 0.4, 9, 'csr')
    dense = x.todense()
    for begin, end in [((2,), (6,)), ((1, 2), (7, 5)), ((None, -4), (-2, None)), ((5, 0), (5, 7))]:
        out = mx.nd.slice(x, begin=begin, end=end)
        assert out.stype == 'csr'
        out.check_format(full_check=True)
        _same_numbers(out, mx.nd.slice(dense, begin=begin, end=end))
    idx = mx.nd.array([7, 0, 3, 3, 12, -2])
    for mode in ('clip', 'wrap'):
        out = mx.nd.take(x, idx, mode=mode)
        assert out.stype == 'csr'
        _same_numbers(out, mx.nd.take(dense, idx, mode=mode))


def test_products_in_mxnets_storage():
    csr = _random((6, 5), 0.3, 10, 'csr')
    rng = np.random.RandomState(11)
    right, left = mx.nd.array(rng.rand(5, 3)), mx.nd.array(rng.rand(4, 6))
    cases = [((csr, right), {}, 'default'), ((csr, mx.nd.array(rng.rand(6, 3))), {'transpose_a': True}, 'row_sparse'),
             ((left, csr), {}, 'csr'), ((mx.nd.array(rng.rand(4, 5)), csr), {'transpose_b': True}, 'csr'),
             ((csr, mx.nd.array(rng.rand(6, 3)).tostype('row_sparse')), {'transpose_a': True}, 'row_sparse')]
    for (a, b), kwargs, stype in cases:
        out = mx.nd.dot(a, b, **kwargs)
        assert out.stype == stype
        want = mx.nd.dot(a.tostype('default'), b.tostype('default'), **kwargs).asnumpy()
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5)


def test_row_sparse_sums_stay_row_sparse():
    parts = [_random((6, 3), 0.4, seed, 'row_sparse') for seed in (12, 13, 14)]
    out = mx.nd.add_n(*parts)
    assert out.stype == 'row_sparse'
    _same_numbers(out, mx.nd.add_n(*[p.todense() for p in parts]))
    assert mx.nd.add_n(parts[0], parts[1].todense()).stype == 'default'


def test_a_lazy_update_changes_only_the_gradients_rows():
    rng = np.random.RandomState(15)
    weight, mean, var = (mx.nd.array(rng.rand(6, 3)) for _ in range(3))
    grad = mx.nd.sparse.row_sparse_array((rng.rand(2, 3).astype(np.float32), [1, 4]), shape=(6, 3))
    before = [a.asnumpy() for a in (weight, mean, var)]
    rows = mx.nd.array([1, 4], dtype='int64')
    expected = mx.nd.adam_update(*(mx.nd.take(mx.nd.array(b), rows) for b in before[:1]), grad.data,
                                 *(mx.nd.take(mx.nd.array(b), rows) for b in before[1:]), lr=0.1, wd=0.01)
    mx.nd.adam_update(weight, grad, mean, var, lr=0.1, wd=0.01, out=weight)
    after = weight.asnumpy()
    np.testing.assert_array_equal(after[[0, 2, 3, 5]], before[0][[0, 2, 3, 5]])
    np.testing.assert_array_equal(after[[1, 4]], expected.asnumpy())
    np.testing.assert_array_equal(mean.asnumpy()[[0, 2, 3, 5]], before[1][[0, 2, 3, 5]])
    with pytest.raises(mx.MXNetError, match='out=weight'):
        mx.nd.sgd_update(weight, grad, lr=0.1)


def test_out_takes_a_sparse_result_in_any_storage():
    x = _random((4, 5), 0.5, 16, 'csr')
    dense_out = mx.nd.zeros((4, 5))
    assert mx.nd.sqrt(abs(x), out=dense_out) is dense_out
    _same_numbers(dense_out, mx.nd.sqrt(abs(x.todense())))
    csr_out = mx.nd.sparse.zeros('csr', (4, 5))
    assert mx.nd.negative(x, out=csr_out) is csr_out and csr_out.stype == 'csr'
    _same_numbers(csr_out, -x.todense())


def test_in_place_arithmetic_keeps_the_array_and_its_form():
    x = _random((4, 5), 0.5, 17, 'row_sparse')
    same = x
    x += 1
    x *= 2
    assert x is same and x.stype == 'row_sparse'
    _same_numbers(x, (_random((4, 5), 0.5, 17, 'row_sparse').todense() + 1) * 2)


def test_a_sparse_array_hashes_by_identity_and_pickles():
    x = _random((4, 5), 0.5, 18, 'csr')
    assert hash(x) == hash(x) and {x: 1}[x] == 1
    back = pickle.loads(pickle.dumps(x))
    assert type(back) is type(x) and np.array_equal(back.indptr.asnumpy(), x.indptr.asnumpy())
    _same_numbers(back, x)


def test_autograd_through_a_sparse_product_takes_the_dense_path():
    csr = _random((4, 3), 0.5, 19, 'csr')
    w = mx.nd.array(np.random.RandomState(20).rand(3, 2))
    w.attach_grad()
    with mx.autograd.record():
        loss = mx.nd.dot(csr, w).sum()
    loss.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), csr.asnumpy().T @ np.ones((4, 2)), rtol=1e-6)


def test_the_nd_sparse_namespace_has_mxnets_operators():
    for name in sparse_module._NAMESPACE_OPERATORS + ('dot', 'retain', 'cast_storage', 'adagrad_update',
                                                        'add', 'subtract', 'multiply', 'divide', 'zeros_like'):
        assert callable(getattr(mx.nd.sparse, name)), name
    x = _random((3, 4), 0.5, 21, 'csr')
    assert mx.nd.sparse.sum(x).stype == 'default' and mx.nd.sparse.abs(x).stype == 'csr'
    assert mx.nd.sparse.elemwise_add(x.todense(), x.todense()).stype == 'default'


def test_the_sym_sparse_namespace_is_the_ordinary_operators():
    assert set(mx.sym.sparse.__all__) == SYMBOL_NAMES
    assert not SYMBOL_NAMES_MISSING & set(dir(mx.sym.sparse))
    a, b = mx.sym.var('a'), mx.sym.var('b')
    assert mx.sym.sparse.elemwise_add(a, b, name='s').tojson() == mx.sym.elemwise_add(a, b, name='s').tojson()
    assert mx.sym.sparse.zeros_like(a, name='z').tojson() == mx.sym.zeros_like(a, name='z').tojson()


@pytest.mark.parametrize('params', [{'axis': (1,), 'keepdims': True}, {'axis': (0,)}, {'axis': (1,)},
                                    {}, {'axis': (0, 1), 'keepdims': True}])
def test_square_sum_gradient_matches_finite_differences(params):
    """_square_sum on a dense input (MXNet 1.9.1 has only its row_sparse kernel)."""
    x = np.random.RandomState(3).uniform(-1, 1, (3, 4))
    check_op_gradient('_square_sum', [x], params)


@pytest.mark.parametrize('params', [{'axis': (1,), 'keepdims': True}, {'axis': (0,)}, {'axis': (1,)}])
def test_square_sum_of_stored_rows_is_the_dense_result(params):
    """Given its stored rows (SparseRows), _square_sum gives the dense numbers, and a gradient in
    those rows equal to the dense gradient there (zero in the absent rows)."""
    op = get('_square_sum')
    p = op.parse_params(params)
    rows = np.array([0, 2, 3])
    values = np.random.RandomState(0).uniform(-1, 1, (3, 4)).astype(np.float32)
    x = SparseRows(rows, values, (5, 4))
    dense = x.dense(np)
    out = op.forward(p, ENV, [x], [])[0]
    np.testing.assert_allclose(out, op.forward(p, ENV, [dense], [])[0], rtol=1e-6)
    head = np.arange(1, out.size + 1, dtype=np.float32).reshape(out.shape)
    grad = op.backward(p, ENV, [head], [x], [out], [])[0]
    assert isinstance(grad, SparseRows) and grad.rows.tolist() == [0, 2, 3]
    np.testing.assert_allclose(grad.dense(np), op.backward(p, ENV, [head], [dense], [out], [])[0], rtol=1e-6)
    # a row_sparse head (from dot with a CSR lhs): only rows stored in both
    if params.get('keepdims'):
        sparse_head = SparseRows(np.array([1, 2]), head[[1, 2]], head.shape)
        grad = op.backward(p, ENV, [sparse_head], [x], [out], [])[0]
        assert grad.rows.tolist() == [2] and np.allclose(grad.values, 2 * values[1] * head[2])
