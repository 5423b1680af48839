"""The gradient checkers themselves: they pass correct gradients and catch wrong ones."""
import numpy as np
import pytest

import reflib as mx
from reflib.operator.registry import Operator, register, _REGISTRY
from reflib.test_utils import check_numeric_gradient, check_op_gradient


def test_symbol_level_check_passes_a_real_network():
    x = mx.sym.Variable('x')
    hidden = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=3, name='fc'), act_type='tanh')
    y = mx.sym.broadcast_add(hidden * 2, x.sum())
    r = np.random.default_rng(1)
    loc = {'x': r.normal(size=(2, 4)), 'fc_weight': r.normal(size=(3, 4)), 'fc_bias': r.normal(size=3)}
    grads = check_numeric_gradient(y, loc, dtype=np.float64, rtol=1e-5, numeric_eps=1e-5)
    assert set(grads) == {'x', 'fc_weight', 'fc_bias'}


def test_symbol_level_check_handles_groups_and_float32():
    x = mx.sym.Variable('x')
    g = mx.sym.Group([mx.sym.exp(x), mx.sym.square(x)])
    check_numeric_gradient(g, {'x': np.array([0.1, -0.5, 1.0])})


@pytest.fixture
def broken_op():
    @register
    class _BrokenSquare(Operator):
        name = '_test_broken_square'

        def forward(self, p, env, inputs, aux):
            return [inputs[0] ** 2]

        def backward(self, p, env, out_grads, inputs, outputs, aux):
            return [out_grads[0] * inputs[0]]   # wrong: should be 2 * x
    yield '_test_broken_square'
    del _REGISTRY['_test_broken_square']


def test_both_checkers_catch_a_wrong_backward(broken_op):
    x = np.array([[0.5, -1.0, 2.0]])
    with pytest.raises(AssertionError, match='differs from finite differences'):
        check_op_gradient(broken_op, [x])
    sym = mx.sym.invoke(broken_op, mx.sym.Variable('x'))
    with pytest.raises(AssertionError, match="gradient of 'x'"):
        check_numeric_gradient(sym, {'x': x}, dtype=np.float64)


# ------------------------------------------------------------------ MXNet's mx.test_utils
tu = mx.test_utils


def test_default_tolerances_follow_the_dtype_as_in_mxnet():
    # float32: rtol 1e-4, atol 1e-3; float64: rtol 1e-5, atol 1e-20; integers exact
    a32 = np.array([1.0, 100.0], np.float32)
    tu.assert_almost_equal(a32, a32 + np.float32(5e-4))            # within atol 1e-3
    with pytest.raises(AssertionError, match='rtol=0.0001, atol=0.001'):
        tu.assert_almost_equal(a32, a32 + np.float32(0.02))
    a64 = np.array([1.0, 100.0])
    tu.assert_almost_equal(a64, a64 * (1 + 5e-6))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.array([0.0]), np.array([1e-15]))  # atol 1e-20
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.array([3], np.int32), np.array([4], np.int32))
    # mixed: the looser of the two dtypes' defaults
    tu.assert_almost_equal(a32, (a32 + np.float32(5e-4)).astype(np.float64))
    assert tu.get_rtol() == 1e-5 and tu.get_atol(dtype=np.float32) == 1e-3
    assert tu.default_numeric_eps()[np.dtype(np.float32)] == 2.0 ** -9


def test_assert_almost_equal_takes_ndarrays_and_names_the_worst_element():
    a = mx.nd.array([[1, 2], [3, 4]])
    b = np.array([[1, 2], [3, 4.5]], np.float32)
    with pytest.raises(AssertionError) as err:
        tu.assert_almost_equal(a, b, names=('mine', 'ref'))
    assert 'at (1, 1): mine=4.0, ref=4.5' in str(err.value)
    assert '1 of 4 elements' in str(err.value)
    tu.assert_almost_equal(a, a.asnumpy(), rtol={np.dtype(np.float32): 0}, atol=0)
    with pytest.raises(AssertionError, match='different shapes'):
        tu.assert_almost_equal(np.ones((2, 1)), np.ones((2, 3)), use_broadcast=False)
    tu.assert_almost_equal(np.ones((2, 1)), np.ones((2, 3)))   # broadcasts by default


def test_almost_equal_allclose_same_and_assert_exception():
    # almost_equal's unset tolerances are float64's whatever the dtype (as in MXNet)
    assert not tu.almost_equal(np.float32([1.0]), np.float32([1.0005]))
    assert tu.almost_equal(np.float32([1.0]), np.float32([1.0005]), rtol=1e-3)
    assert tu.almost_equal([np.nan], [np.nan], equal_nan=True) and not tu.almost_equal([np.nan], [np.nan])
    tu.assert_allclose(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    with pytest.raises(AssertionError):
        tu.assert_allclose(np.array([1.0]), np.array([1.0 + 1e-6]))
    assert tu.same(mx.nd.array([1, 2]), np.array([1, 2])) and not tu.same(np.ones(2), np.ones(3))
    tu.assert_exception(int, ValueError, 'x')
    with pytest.raises(AssertionError, match='did not raise'):
        tu.assert_exception(int, ValueError, '3')


def test_np_reduce_over_axes_with_keepdims():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(tu.np_reduce(x, (0, 2), True, np.sum), x.sum(axis=(0, 2), keepdims=True))
    np.testing.assert_array_equal(tu.np_reduce(x, 1, False, np.max), x.max(axis=1))
    assert tu.np_reduce(x, None, False, np.sum) == x.sum()


def test_random_data_helpers():
    np.random.seed(3)
    one = tu.random_arrays((2, 3))
    assert one.shape == (2, 3) and one.dtype == np.float32
    two = tu.random_arrays((1,), ())
    assert [a.shape for a in two] == [(1,), ()]
    pick = tu.random_sample(list(range(10)), 4)
    assert len(set(pick)) == 4 and set(pick) <= set(range(10))
    nd = tu.rand_ndarray((3, 2), dtype='float64')
    assert isinstance(nd, mx.nd.NDArray) and nd.shape == (3, 2) and nd.dtype == np.float64
    assert tu.rand_ndarray((3, 2), stype='csr', density=0.5).stype == 'csr'
    for _ in range(20):
        s2, s3, sn = tu.rand_shape_2d(4, 5), tu.rand_shape_3d(2, 2, 2), tu.rand_shape_nd(4, dim=3)
        assert len(s2) == 2 and 1 <= s2[0] <= 4 and 1 <= s2[1] <= 5
        assert len(s3) == 3 and all(1 <= d <= 2 for d in s3)
        assert len(sn) == 4 and all(1 <= d <= 3 for d in sn)
    assert 0 in {d for _ in range(50) for d in tu.rand_shape_nd(3, dim=1, allow_zero_size=True)}


def test_default_context_is_the_current_one():
    assert tu.default_context() == mx.cpu(0)
    with mx.cpu(1):
        assert tu.default_context() == mx.cpu(1)
        tu.set_default_context(mx.cpu(2))
        assert mx.current_context() == mx.cpu(2)
    assert tu.default_context() == mx.cpu(0)


def test_check_symbolic_forward_and_backward():
    lhs, rhs = mx.sym.Variable('lhs'), mx.sym.Variable('rhs')
    dot = mx.sym.dot(lhs, rhs)
    m1, m2 = np.array([[1, 2], [3, 4]]), np.array([[5, 6], [7, 8]])
    outs = tu.check_symbolic_forward(dot, [m1, m2], [np.array([[19, 22], [43, 50]])])
    assert outs[0].dtype == np.float32
    tu.check_symbolic_forward(dot, {'lhs': m1, 'rhs': m2}, {dot.list_outputs()[0]: m1 @ m2}, dtype=np.float64)
    with pytest.raises(AssertionError, match='EXPECTED_dot'):
        tu.check_symbolic_forward(dot, [m1, m2], [m1 @ m2 + 1])
    with pytest.raises(ValueError, match='do not match'):
        tu.check_symbolic_forward(dot, {'lhs': m1}, [m1])
    head = np.ones((2, 2))
    want = {'lhs': head @ m2.T, 'rhs': m1.T @ head}
    grads = tu.check_symbolic_backward(dot, [m1, m2], [head], want)
    assert set(grads) == {'lhs', 'rhs'}
    # 'add' is checked as the change from the arrays' start; 'null' leaves them as they were
    tu.check_symbolic_backward(dot, [m1, m2], [head], want, grad_req='add')
    tu.check_symbolic_backward(dot, [m1, m2], [head], [want['lhs']], grad_req={'lhs': 'write', 'rhs': 'null'})
    with pytest.raises(AssertionError, match='BACKWARD_rhs'):
        tu.check_symbolic_backward(dot, [m1, m2], [head], {'rhs': want['lhs']})


def test_simple_forward():
    x = mx.sym.Variable('x')
    np.testing.assert_allclose(tu.simple_forward(x * 2, x=np.array([1.0, 2.0])), [2.0, 4.0])
    both = tu.simple_forward(mx.sym.Group([x + 1, x * 3]), x=np.array([1.0]))
    assert [b.tolist() for b in both] == [[2.0], [3.0]]


def test_check_numeric_gradient_grad_reqs_and_a_transposed_input():
    x, w = mx.sym.Variable('x'), mx.sym.Variable('w')
    y = mx.sym.dot(mx.sym.tanh(x), w)
    r = np.random.default_rng(2)
    xv = r.normal(size=(4, 3)).T            # not contiguous: the check copies it before perturbing
    wv = r.normal(size=(4, 2))
    tu.check_numeric_gradient(y, {'x': xv, 'w': wv}, dtype=np.float64)
    tu.check_numeric_gradient(y, [xv, wv], grad_nodes={'x': 'add', 'w': 'null'}, dtype=np.float64)
    tu.check_numeric_gradient(y, [xv, wv], grad_nodes=['w'])     # float32 and its defaults
    assert xv.flags.f_contiguous and not xv.flags.c_contiguous   # the caller's array is untouched
    with pytest.raises(ValueError, match='too small'):
        tu.check_numeric_gradient(y, [xv, wv], numeric_eps=1e-6)


def test_check_consistency_between_dtypes_on_cpu():
    sym = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3, name='fc')
    np.random.seed(0)
    ctx_list = [{'ctx': mx.cpu(0), 'data': (2, 4), 'type_dict': {'data': np.float64}},
                {'ctx': mx.cpu(0), 'data': (2, 4), 'type_dict': {'data': np.float32}}]
    truth = tu.check_consistency(sym, ctx_list)
    assert truth['fc_output'].dtype == np.float64 and set(truth) >= {'fc_output', 'data', 'fc_weight'}
    wrong = {k: v.asnumpy() * 1.01 for k, v in truth.items()}
    with pytest.raises(AssertionError, match='differs between ctx_list'):
        tu.check_consistency(sym, ctx_list, ground_truth=wrong)
    with pytest.raises(ValueError, match='differ in their arguments'):
        tu.check_consistency([sym, sym * 2], ctx_list)


def test_check_speed_returns_seconds_per_run():
    sym = mx.sym.FullyConnected(mx.sym.Variable('data'), num_hidden=3, name='fc')
    for typ in ('whole', 'forward'):
        t = tu.check_speed(sym, N=2, typ=typ, data=(2, 4))
        assert 0 < t < 5
    assert tu.check_speed(sym, location={'data': np.ones((2, 4)), 'fc_weight': np.ones((3, 4)),
                                         'fc_bias': np.ones(3)}, N=1) > 0
    with pytest.raises(ValueError, match='typ'):
        tu.check_speed(sym, typ='backward', data=(2, 4))


def test_environment_retry_and_discard_stderr(capfd):
    import os
    os.environ.pop('REFLIB_TEST_X', None)
    with tu.environment('REFLIB_TEST_X', '1'):
        assert os.environ['REFLIB_TEST_X'] == '1' and mx.util.getenv('REFLIB_TEST_X') == '1'
        with tu.environment({'REFLIB_TEST_X': None}):
            assert 'REFLIB_TEST_X' not in os.environ
        assert os.environ['REFLIB_TEST_X'] == '1'
    assert 'REFLIB_TEST_X' not in os.environ
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) == 3
    flaky()
    assert len(calls) == 3
    with tu.discard_stderr():
        os.write(2, b'hidden\n')
    os.write(2, b'shown\n')
    assert capfd.readouterr().err == 'shown\n'


def test_verify_generator_chi_square():
    # the p values of the chi-square distribution: 3.841 at 1 dof and 5.991 at 2 are the 5% points
    from reflib.test_utils import _chi2_sf
    assert abs(_chi2_sf(3.841459, 1) - 0.05) < 1e-6 and abs(_chi2_sf(5.991465, 2) - 0.05) < 1e-6
    assert abs(_chi2_sf(2.0, 2) - np.exp(-1)) < 1e-12           # 2 dof: exp(-x/2) exactly
    # scipy.stats.chi2.sf's values (series branch, continued-fraction branch, far tail)
    np.testing.assert_allclose([_chi2_sf(0.5, 7), _chi2_sf(30.0, 40), _chi2_sf(100.0, 10)],
                               [0.9994464813904249, 0.8752187849674751, 5.4497019829205215e-17], rtol=1e-10)
    rng = np.random.default_rng(0)
    buckets = [(0.0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0)]
    ps = tu.verify_generator(lambda n: rng.uniform(size=n), buckets, [0.25] * 4, nsamples=20000)
    assert len(ps) == 5
    tu.verify_generator(lambda n: rng.integers(0, 3, size=n), [0, 1, 2], [1 / 3] * 3, nsamples=20000)
    with pytest.raises(AssertionError, match='chi-square'):
        tu.verify_generator(lambda n: rng.uniform(size=n) ** 2, buckets, [0.25] * 4, nsamples=20000)


def test_compare_optimizer():
    tu.compare_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9),
                         mx.optimizer.SGD(learning_rate=0.1, momentum=0.9), (3, 4), np.float32)
    with pytest.raises(AssertionError):
        tu.compare_optimizer(mx.optimizer.SGD(learning_rate=0.1), mx.optimizer.SGD(learning_rate=0.2),
                             (3, 4), np.float32)


def test_base_and_util_names():
    assert mx.base.py_str(b'abc') == 'abc' and mx.util.py_str(b'x') == 'x'
    assert mx.base._as_list(3) == [3] and mx.base._as_list((1, 2)) == (1, 2)
    assert mx.base.data_dir().endswith('.mxnet')
    with tu.environment('MXNET_HOME', '/tmp/somewhere'):
        assert mx.base.data_dir() == '/tmp/somewhere'
    assert mx.base.string_types == (str,) and isinstance(np.float32(1), mx.base.numeric_types)
    assert isinstance(np.int64(1), mx.base.integer_types)
    assert issubclass(mx.base.NotImplementedForSymbol, mx.MXNetError)
    mx.util.setenv('REFLIB_TEST_Y', 'v')
    assert mx.util.getenv('REFLIB_TEST_Y') == 'v'
    mx.util.setenv('REFLIB_TEST_Y', None)
    assert mx.util.getenv('REFLIB_TEST_Y') is None
    assert mx.mon is mx.monitor


def test_numeric_gradient_differences_the_outputs_before_projecting():
    """With many outputs of some size, the float32 sum of out * proj is large, and a change of
    eps * proj in one element falls below its rounding step: differencing that sum gave 0 or
    twice the gradient.  Differencing the outputs element by element in float64 and then
    projecting (as MXNet does) gets it right at float32's defaults."""
    x = np.random.RandomState(3).uniform(0, 100, (2, 16, 8, 8)).astype(np.float32)
    for net in (mx.sym.depth_to_space(mx.sym.Variable('x'), block_size=2),
                mx.sym.space_to_depth(mx.sym.Variable('x'), block_size=2)):
        grads = check_numeric_gradient(net, {'x': x})
        assert grads['x'].shape == x.shape


def test_create_sparse_array_gives_the_array_in_canonical_form():
    from reflib.test_utils import create_sparse_array, create_sparse_array_zd
    rows = create_sparse_array((5, 3), 'row_sparse', rsp_indices=[3, 1, 3], data_init=2.0)
    assert rows.indices.asnumpy().tolist() == [1, 3]
    assert (rows.asnumpy()[[1, 3]] == 2).all() and not rows.asnumpy()[[0, 2, 4]].any()
    empty = create_sparse_array_zd((4, 4), 'csr', 0.0)
    assert empty.stype == 'csr' and empty.data.shape == (0,)
    full = create_sparse_array_zd((3, 4), 'csr', 1.0, data_init=5.0)
    assert (full.asnumpy() == 5).all()


def test_gluon_hybridize_consistency_passes_a_block_and_catches_one_that_differs():
    def dense(prefix):
        block = mx.gluon.nn.HybridSequential(prefix=prefix)
        with block.name_scope():
            block.add(mx.gluon.nn.Dense(4, activation='tanh'), mx.gluon.nn.Dense(2))
        return block

    x = mx.nd.array(np.random.RandomState(0).normal(size=(3, 5)))
    mx.test_utils.check_gluon_hybridize_consistency(dense, [x])

    class Differs(mx.gluon.HybridBlock):        # hybridized, it adds 1 more
        def hybrid_forward(self, F, x):
            return x * 2 + (1 if F is mx.sym else 0)

    with pytest.raises(AssertionError, match='hybridized run'):
        mx.test_utils.check_gluon_hybridize_consistency(lambda prefix: Differs(prefix=prefix), [x])
    with pytest.raises(AssertionError, match='numpy_func'):
        mx.test_utils.check_gluon_hybridize_consistency(dense, [x], numpy_func=lambda a: a[:, :2])
