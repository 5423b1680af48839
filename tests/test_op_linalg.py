"""Tests for reflib/operator/linalg.py, linalg_diag.py and linalg_factor.py, and the
``mx.sym.linalg`` / ``mx.nd.linalg`` namespaces.

1. forward outputs and input gradients against MXNet 1.9.1's (tests/golden/ops_linalg.npz,
   written by tests/golden/gen_ops_linalg.py), names and inferred shapes included;
2. backward against finite differences in float64 (potrf and syevd, which read one triangle
   of a symmetric input and return the symmetric gradient, through the relation between the two);
3. shape inference and bad input.
"""

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError, ShapeError
from device import get
from reflib.test_utils import check_op_gradient, numeric_grad, op_forward
from op_golden import GoldenCases, infer_shapes

GOLDEN = GoldenCases('ops_linalg.npz')
OPERATORS = ['gemm', 'gemm2', 'potrf', 'potri', 'trsm', 'trmm', 'syrk', 'sumlogdiag', 'extractdiag',
             'makediag', 'extracttrian', 'maketrian', 'inverse', 'det', 'slogdet', 'syevd', 'gelqf']
# syevd's float32 eigenvectors and gradients carry MXNet's own float32 error, amplified by
# 1 / (gap between eigenvalues): about 1e-4 for the 4x4 case (its float64 answer is as far)
TOLERANCE = {'_linalg_syevd': dict(rtol=1e-4, atol=2e-4)}


def rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape)


def well_conditioned(*shape, seed=0):
    """Matrices with a dominant diagonal in [1, 2], both triangles filled."""
    a = rand(*shape, seed=seed) * 0.3
    n = shape[-1]
    a[..., np.arange(n), np.arange(n)] = 1.5 + 0.5 * rand(*shape[:-1], seed=seed + 7)
    return a


def spd(*shape, seed=0):
    a = rand(*shape, seed=seed)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


# ================================================================ golden values from MXNet
@pytest.mark.parametrize('i', GOLDEN.indices(), ids=GOLDEN.ids())
def test_golden_case(i):
    GOLDEN.check(i, **TOLERANCE.get(GOLDEN.cases[i]['op'], {}))


def test_golden_covers_every_operator():
    names = GOLDEN.operator_names()
    for short in OPERATORS:
        assert '_linalg_' + short in names, short


def test_namespaces_hold_mxnets_names():
    """mx.sym.linalg / mx.nd.linalg hold MXNet's short names; every one but syevd is also
    ``mx.sym.linalg_<name>`` (MXNet 1.9.1 has no linalg_syevd)."""
    for short in GOLDEN.meta['namespace']:
        assert callable(getattr(mx.sym.linalg, short)), short
        assert callable(getattr(mx.nd.linalg, short)), short
        if short != 'syevd':
            assert get('linalg_' + short) is get('_linalg_' + short)
    assert not hasattr(mx.sym, 'linalg_syevd')


def test_symbol_names_follow_the_short_name():
    a, b = mx.sym.var('a'), mx.sym.var('b')
    with mx.sym.NameManager():
        assert mx.sym.linalg.gemm2(a, b).name == 'gemm20'
        assert mx.sym.linalg_gemm2(a, b).name == 'linalg_gemm20'
        det = mx.sym.linalg.det(a)
        assert det.name == 'det0' and det.list_outputs() == ['det0_output0']
        assert mx.sym.linalg.slogdet(a).list_outputs() == ['slogdet0_output0', 'slogdet0_output1']
    with mx.sym.Prefix('net_'):
        assert mx.sym.linalg.potrf(a).name == 'net_potrf0'


def test_ndarray_namespace_computes():
    a = spd(2, 3, 3)
    got = mx.nd.linalg.potrf(mx.nd.array(a, dtype='float64')).asnumpy()
    np.testing.assert_allclose(got, np.linalg.cholesky(a), rtol=1e-12)
    ab = mx.nd.linalg.gemm2(mx.nd.array(a), mx.nd.array(a), transpose_b=True)
    np.testing.assert_allclose(ab.asnumpy(), a @ np.swapaxes(a, -1, -2), rtol=1e-5)


# ================================================================ finite differences
GRADIENT_CASES = [
    ('_linalg_gemm', {'transpose_a': True, 'alpha': 0.7, 'beta': -1.5},
     [rand(3, 2), rand(3, 4, seed=1), rand(2, 4, seed=2)]),
    ('_linalg_gemm', {'axis': 0, 'transpose_b': True}, [rand(3, 2, 4), rand(5, 2, 4, seed=1), rand(3, 2, 5, seed=2)]),
    ('_linalg_gemm2', {'transpose_b': True, 'alpha': 2.0}, [rand(2, 2, 3), rand(2, 4, 3, seed=1)]),
    ('_linalg_gemm2', {'axis': 1}, [rand(2, 3, 2, 4), rand(2, 4, 2, 3, seed=1)]),
    ('_linalg_potri', {}, [well_conditioned(2, 3, 3)]),
    ('_linalg_potri', {'lower': False}, [well_conditioned(2, 3, 3)]),
    ('_linalg_trsm', {}, [well_conditioned(3, 3), rand(3, 2, seed=1)]),
    ('_linalg_trsm', {'transpose': True, 'rightside': True, 'lower': False, 'alpha': -0.5},
     [well_conditioned(2, 3, 3), rand(2, 4, 3, seed=1)]),
    ('_linalg_trsm', {'rightside': True}, [well_conditioned(3, 3), rand(2, 3, seed=1)]),
    ('_linalg_trmm', {'transpose': True, 'alpha': 2.0}, [well_conditioned(3, 3), rand(3, 2, seed=1)]),
    ('_linalg_trmm', {'rightside': True, 'lower': False}, [well_conditioned(2, 3, 3), rand(2, 4, 3, seed=1)]),
    ('_linalg_syrk', {}, [rand(2, 3)]),
    ('_linalg_syrk', {'transpose': True, 'alpha': 0.5}, [rand(2, 4, 3)]),
    ('_linalg_sumlogdiag', {}, [spd(2, 3, 3)]),
    ('_linalg_extractdiag', {'offset': -1}, [rand(2, 3, 3)]),
    ('_linalg_makediag', {'offset': 2}, [rand(2, 3)]),
    ('_linalg_extracttrian', {'lower': False}, [rand(2, 3, 3)]),
    ('_linalg_extracttrian', {'offset': -1}, [rand(4, 4)]),
    ('_linalg_maketrian', {'offset': 1}, [rand(2, 6)]),
    ('_linalg_maketrian', {'lower': False}, [rand(6)]),
    ('_linalg_inverse', {}, [well_conditioned(2, 3, 3)]),
    ('_linalg_det', {}, [well_conditioned(2, 3, 3)]),
    ('_linalg_det', {}, [rand(3, 3, seed=5)]),
    ('_linalg_slogdet', {}, [np.array([[0.2, 1.5, -0.1], [1.2, 0.1, 0.25], [-0.2, 0.3, 1.7]])]),
    ('_linalg_gelqf', {}, [rand(2, 2, 4)]),
    ('_linalg_gelqf', {}, [well_conditioned(3, 3)]),
]


@pytest.mark.parametrize('name,params,inputs', GRADIENT_CASES,
                         ids=['%s%s' % (c[0], c[1]) for c in GRADIENT_CASES])
def test_gradient_matches_finite_differences(name, params, inputs):
    check_op_gradient(name, inputs, params, rtol=1e-5, atol=1e-7)


def test_potrf_gradient_is_the_symmetric_one():
    """potrf reads A's lower triangle; MXNet returns the symmetric gradient S.  Perturbing one
    lower element A[i, j] moves both A[i, j] and A[j, i] of the symmetric matrix, so the finite
    differences are S[i, j] + S[j, i] below the diagonal, S[i, i] on it and 0 above."""
    a = spd(2, 4, 4, seed=3)
    head = rand(2, 4, 4, seed=4)
    op = get('_linalg_potrf')
    p = op.parse_params({})
    sym_grad = op.backward(p, mx.operator.OpEnv(mx.cpu()), [head], [a], op_forward('_linalg_potrf', [a])[0], [])[0]
    np.testing.assert_allclose(sym_grad, np.swapaxes(sym_grad, -1, -2), rtol=1e-12, atol=1e-12)

    def loss():
        return float((op_forward('_linalg_potrf', [a])[0][0] * head).sum())
    numeric = numeric_grad(loss, a, eps=1e-6)
    expected = np.tril(sym_grad + np.swapaxes(sym_grad, -1, -2)) - sym_grad * np.eye(4)
    np.testing.assert_allclose(numeric, expected, rtol=1e-6, atol=1e-8)


def test_syevd_gradient_is_the_symmetric_one():
    """syevd reads A's lower triangle; as for potrf, the finite differences of the lower
    elements are S[i, j] + S[j, i] of MXNet's symmetric gradient S (0 above the diagonal)."""
    a = spd(2, 4, 4, seed=5)
    heads = [rand(2, 4, 4, seed=6), rand(2, 4, seed=7)]
    op = get('_linalg_syevd')
    p = op.parse_params({})
    outs = op_forward('_linalg_syevd', [a])[0]
    np.testing.assert_allclose(np.einsum('bki,bk,bkj->bij', outs[0], outs[1], outs[0]), a, rtol=1e-12, atol=1e-12)
    sym_grad = op.backward(p, mx.operator.OpEnv(mx.cpu()), heads, [a], outs, [])[0]
    np.testing.assert_allclose(sym_grad, np.swapaxes(sym_grad, -1, -2), rtol=1e-12, atol=1e-12)

    def loss():
        u, values = op_forward('_linalg_syevd', [a])[0]
        return float((u * heads[0]).sum() + (values * heads[1]).sum())
    numeric = numeric_grad(loss, a, eps=1e-6)
    expected = np.tril(sym_grad + np.swapaxes(sym_grad, -1, -2)) - sym_grad * np.eye(4)
    np.testing.assert_allclose(numeric, expected, rtol=1e-5, atol=1e-7)


def test_syevd_and_gelqf_factor_their_input():
    a = spd(3, 3, seed=2)
    u, values = op_forward('_linalg_syevd', [a])[0]
    assert np.all(np.diff(values) > 0)
    rows = np.arange(3)
    assert np.all(u[rows, np.argmax(np.abs(u), axis=1)] > 0)       # MXNet's sign convention
    wide = rand(2, 3, 5, seed=3)
    q, low = op_forward('_linalg_gelqf', [wide])[0]
    np.testing.assert_allclose(low @ q, wide, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-12)
    np.testing.assert_array_equal(low, np.tril(low))


def test_triangular_ops_ignore_the_other_triangle():
    """trsm, trmm and potri read one triangle of A: the other can hold anything."""
    a, b = well_conditioned(3, 3), rand(3, 2, seed=1)
    junk = a + np.triu(rand(3, 3, seed=9) * 100, 1)
    for name in ('_linalg_trsm', '_linalg_trmm', '_linalg_potri'):
        inputs = ([a, b], [junk, b]) if name != '_linalg_potri' else ([a], [junk])
        np.testing.assert_allclose(op_forward(name, inputs[1])[0][0], op_forward(name, inputs[0])[0][0],
                                   rtol=1e-12, err_msg=name)


def test_forward_against_numpy():
    a = well_conditioned(2, 3, 3)
    b = rand(2, 3, 4, seed=1)
    low = np.tril(a)
    (x,), _ = op_forward('_linalg_trsm', [a, b], {'alpha': 2.0})
    np.testing.assert_allclose(low @ x, 2 * b, rtol=1e-10, atol=1e-12)
    (potri,), _ = op_forward('_linalg_potri', [a])
    np.testing.assert_allclose(potri, np.linalg.inv(low @ np.swapaxes(low, -1, -2)), rtol=1e-10)
    sign, logabs = op_forward('_linalg_slogdet', [a])[0]
    np.testing.assert_allclose(sign * np.exp(logabs), np.linalg.det(a), rtol=1e-10)
    (tri,), _ = op_forward('_linalg_extracttrian', [np.arange(9.0).reshape(3, 3)], {'lower': False})
    np.testing.assert_array_equal(tri, [0, 1, 4, 2, 5, 8])   # the upper triangle, column by column
    (back,), _ = op_forward('_linalg_maketrian', [tri], {'lower': False})
    np.testing.assert_array_equal(back, np.triu(np.arange(9.0).reshape(3, 3)))


def test_float32_stays_float32():
    a = well_conditioned(3, 3).astype(np.float32)
    for name in ('_linalg_potri', '_linalg_inverse', '_linalg_det', '_linalg_sumlogdiag', '_linalg_extracttrian'):
        for out in op_forward(name, [a])[0]:
            assert out.dtype == np.float32, name


# ================================================================ shapes and bad input
@pytest.mark.parametrize('name,params,ins,outs', [
    ('_linalg_gemm', {}, [(2, 3), (3, 4), None], [(2, 4)]),
    ('_linalg_gemm', {}, [None, None, (5, 2, 4)], [(5, 2, 4)]),
    ('_linalg_gemm2', {'axis': 1, 'transpose_b': True}, [(2, 3, 4, 5), (2, 4, 4, 5)], [(2, 3, 4, 4)]),
    ('_linalg_syrk', {'transpose': True}, [(7, 2, 3)], [(7, 3, 3)]),
    ('_linalg_trsm', {'rightside': True}, [(3, 3), (5, 3)], [(5, 3)]),
    ('_linalg_potrf', {}, [None], [None]),
    ('_linalg_det', {}, [(4, 4)], [(1,)]),
    ('_linalg_slogdet', {}, [(2, 5, 4, 4)], [(2, 5), (2, 5)]),
    ('_linalg_sumlogdiag', {}, [(3, 2, 2)], [(3,)]),
    ('_linalg_extractdiag', {'offset': -1}, [(3, 4, 4)], [(3, 3)]),
    ('_linalg_makediag', {'offset': 1}, [(3, 4)], [(3, 5, 5)]),
    ('_linalg_extracttrian', {'offset': 1}, [(4, 4)], [(6,)]),
    ('_linalg_maketrian', {'offset': -1}, [(2, 10)], [(2, 5, 5)]),
    ('_linalg_syevd', {}, [(2, 3, 3)], [(2, 3, 3), (2, 3)]),
    ('_linalg_gelqf', {}, [(2, 3, 5)], [(2, 3, 5), (2, 3, 3)]),
])
def test_shape_inference(name, params, ins, outs):
    assert infer_shapes(name, params, ins)[1] == outs


def test_same_shape_ops_infer_the_input_from_the_output():
    assert infer_shapes('_linalg_inverse', {}, [None], [(2, 3, 3)]) == ([(2, 3, 3)], [(2, 3, 3)])


@pytest.mark.parametrize('name,params,shapes,fragment', [
    ('_linalg_gemm2', {}, [(2, 3), (4, 5)], 'inner dims'),
    ('_linalg_gemm2', {}, [(2, 2, 3), (3, 3, 4)], 'batch'),
    ('_linalg_gemm2', {}, [(2, 3), (1, 3, 4)], 'number of dims'),
    ('_linalg_gemm2', {'axis': -1}, [(2, 3), (3, 4)], 'column axis'),
    ('_linalg_gemm', {}, [(2, 3), (3, 4), (2, 5)], "'C'"),
    ('_linalg_potrf', {}, [(3, 4)], 'square'),
    ('_linalg_inverse', {}, [(3,)], 'at least 2 dims'),
    ('_linalg_trsm', {}, [(3, 3), (4, 2)], 'rows must be 3'),
    ('_linalg_extractdiag', {'offset': 3}, [(3, 3)], 'offset=3'),
    ('_linalg_maketrian', {}, [(5,)], 'triangular number'),
    ('_linalg_gelqf', {}, [(4, 3)], 'no more rows than columns'),
    ('_linalg_syevd', {}, [(2, 3)], 'square'),
])
def test_bad_shapes_are_refused_clearly(name, params, shapes, fragment):
    with pytest.raises(ShapeError) as info:
        infer_shapes(name, params, shapes)
    assert name in str(info.value) and fragment in str(info.value)


def test_potrf_of_a_matrix_that_is_not_positive_definite():
    with pytest.raises(MXNetError, match='_linalg_potrf.*positive definite'):
        op_forward('_linalg_potrf', [np.array([[1.0, 2.0], [2.0, 1.0]])])


def test_symbol_shape_errors_name_the_node():
    a, b = mx.sym.var('a'), mx.sym.var('b')
    with pytest.raises(MXNetError):
        mx.sym.linalg.gemm2(a, b, name='prod').infer_shape(a=(2, 3), b=(4, 5))


@pytest.mark.parametrize('n', [0, 1, 2, 5, 17, 300, 3000])
def test_triangle_indices_are_numpys_tril_indices(n):
    """extracttrian/maketrian work their indices out arithmetically (cupy's tril_indices
    waits on the device); they are numpy's, in numpy's order, for every offset."""
    from reflib.operator.linalg_diag import _tril_index
    for k in sorted({0, -1, -2, -n // 2, min(-n + 1, 0), -n, -n - 3}):
        rows, cols = _tril_index(np, n, k)
        want = np.tril_indices(n, k)
        assert rows.tolist() == want[0].tolist() and cols.tolist() == want[1].tolist(), (n, k)


def test_potrf_upper_factor_reads_the_upper_triangle_with_mxnets_gradient():
    """lower=False: U with A = U^T U (MXNet 1.9.1's values, from the oracle venv)."""
    a = np.array([[4.0, 2.0], [2.0, 3.0]])
    upper = mx.nd.linalg.potrf(mx.nd.array(a, dtype='float64'), lower=False).asnumpy()
    np.testing.assert_allclose(upper, [[2, 1], [0, np.sqrt(2)]], rtol=1e-12)
    r = np.random.RandomState(0)
    b = r.normal(size=(3, 3))
    spd3, head = b @ b.T + 3 * np.eye(3), r.normal(size=(3, 3))
    net = mx.sym.linalg.potrf(mx.sym.var('a'), lower=False)
    exe = net.bind(mx.cpu(), {'a': mx.nd.array(spd3, dtype='float64')},
                   args_grad={'a': mx.nd.zeros((3, 3), dtype='float64')})
    exe.forward(is_train=True)
    exe.backward(mx.nd.array(head, dtype='float64'))
    mxnet_grad = [[0.022405, 0.005737, 0.243363], [0.005737, 0.010523, 0.074472],
                  [0.243363, 0.074472, -0.054905]]
    np.testing.assert_allclose(exe.grad_dict['a'].asnumpy(), mxnet_grad, atol=1e-6)
    # finite differences of the upper triangle: S[i, j] + S[j, i] above the diagonal
    op, p = get('_linalg_potrf'), get('_linalg_potrf').parse_params({'lower': 'False'})
    sym_grad = exe.grad_dict['a'].asnumpy()

    def loss():
        return float((op_forward('_linalg_potrf', [spd3], {'lower': 'False'})[0][0] * head).sum())
    numeric = numeric_grad(loss, spd3, eps=1e-6)
    np.testing.assert_allclose(numeric, np.triu(2 * sym_grad) - sym_grad * np.eye(3), rtol=1e-5, atol=1e-8)
    assert p.lower is False


def test_potri_of_either_factor_is_the_inverse():
    # MXNet 1.9.1: potrf(A, lower) then potri(factor, lower) gives A^-1 both ways
    a = np.array([[4.0, 2.0], [2.0, 3.0]])
    for lower in (True, False):
        factor = mx.nd.linalg.potrf(mx.nd.array(a, dtype='float64'), lower=lower)
        inverse = mx.nd.linalg.potri(factor, lower=lower).asnumpy()
        np.testing.assert_allclose(inverse, [[0.375, -0.25], [-0.25, 0.5]], rtol=1e-12)
