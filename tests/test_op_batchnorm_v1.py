"""Tests for BatchNorm_v1, MXNet's older BatchNorm (reflib/operator/norm.py).

1. one forward and one backward through a bound executor, against MXNet 1.9.1's numbers
   (tests/golden/gen_ops_batchnorm_v1.py -> ops_batchnorm_v1.npz): outputs (the third the
   variance), gamma written to 1 by fix_gamma, the moving statistics after forward (unchanged)
   and after backward (updated), the input gradients -- training, use_global_stats, and a
   backward after an inference forward;
2. the names, defaults, auxiliary states and dtypes MXNet gives it;
3. backward against finite differences in float64 (``check_op_gradient``);
4. bad input: data of a rank or dtype MXNet 1.9.1 fails on, refused with a clear message.
"""

import json
import os

import numpy as np
import pytest

import reflib as mx
from reflib.base import MXNetError, ShapeError, TypeInferError
from reflib.context import cpu
from reflib.operator import OpEnv
from reflib.test_utils import check_op_gradient
from device import CTX, get

HERE = os.path.dirname(os.path.abspath(__file__))
with np.load(os.path.join(HERE, 'golden', 'ops_batchnorm_v1.npz')) as _npz:
    GOLDEN = {k: _npz[k] for k in _npz.files}
META = json.loads(str(GOLDEN['meta']))
CASES = META['cases']
rng = np.random.RandomState(3)


# ============================================================ 1. golden values from MXNet
@pytest.mark.parametrize('i', range(len(CASES)),
                         ids=['%d-%s%s%s' % (i, tuple(c['shape']), c['params'], '' if c['train'] else '-inference')
                              for i, c in enumerate(CASES)])
def test_forward_backward_as_mxnet(i):
    case, g = CASES[i], lambda key: GOLDEN['c%d_%s' % (i, key)]
    shape = tuple(case['shape'])
    sym = mx.sym.BatchNorm_v1(mx.sym.var('data'), name='bn', output_mean_var=True, **case['params'])
    exe = sym.simple_bind(CTX, data=shape)
    for name in ('data', 'bn_gamma', 'bn_beta'):
        exe.arg_dict[name][:] = g(name)
    for name in ('bn_moving_mean', 'bn_moving_var'):
        exe.aux_dict[name][:] = g(name)
    tol = dict(rtol=1e-5, atol=1e-6)
    outs = exe.forward(is_train=case['train'])
    assert len(outs) == 3
    for k, out in enumerate(outs):
        assert out.dtype == np.float32
        np.testing.assert_allclose(out.asnumpy(), g('out%d' % k), err_msg='output %d' % k, **tol)
    np.testing.assert_array_equal(exe.arg_dict['bn_gamma'].asnumpy(), g('gamma_fwd'))
    for name in ('bn_moving_mean', 'bn_moving_var'):
        np.testing.assert_array_equal(exe.aux_dict[name].asnumpy(), g(name + '_fwd'))    # forward leaves them
    exe.backward([mx.nd.array(g('head%d' % k)) for k in range(3)])
    for name in ('data', 'bn_gamma', 'bn_beta'):
        np.testing.assert_allclose(exe.grad_dict[name].asnumpy(), g('grad_' + name),
                                   err_msg="gradient of %s" % name, rtol=1e-5, atol=1e-6)
    for name in ('bn_moving_mean', 'bn_moving_var'):
        np.testing.assert_allclose(exe.aux_dict[name].asnumpy(), g(name + '_bwd'), err_msg=name, **tol)
        if not case['train'] or case['params'].get('use_global_stats'):
            # updated with the values they hold, or not at all: unchanged to the bit, as in MXNet
            np.testing.assert_array_equal(exe.aux_dict[name].asnumpy(), g(name))


def test_training_forward_gives_the_variance_and_batchnorm_gives_inverse_std():
    """Same data, same result; the third output is var here, 1/sqrt(var + eps) in BatchNorm."""
    x, gamma, beta = rng.uniform(-2, 2, (3, 4, 2, 2)), rng.uniform(0.5, 2, 4), rng.uniform(-1, 1, 4)
    aux = [np.zeros(4), np.ones(4)]
    env = OpEnv(cpu(), True)
    v1, v2 = get('BatchNorm_v1'), get('BatchNorm')
    p1 = v1.parse_params({'fix_gamma': False, 'eps': 0.01})
    p2 = v2.parse_params({'fix_gamma': False, 'eps': 0.01})
    out1 = v1.forward(p1, env, [x, gamma, beta], [a.copy() for a in aux])
    out2 = v2.forward(p2, env, [x, gamma, beta], [a.copy() for a in aux])
    np.testing.assert_allclose(out1[0], out2[0], rtol=1e-12)
    var = x.var(axis=(0, 2, 3))
    np.testing.assert_allclose(out1[2], var, rtol=1e-12)
    np.testing.assert_allclose(out2[2], 1 / np.sqrt(var + 0.01), rtol=1e-12)


def test_nd_function_runs_inference_with_the_moving_statistics():
    x = mx.nd.array(rng.uniform(-2, 2, (4, 3)))
    gamma, beta = mx.nd.array([1.0, 2.0, 3.0]), mx.nd.array([0.5, 0.0, -0.5])
    mean, var = mx.nd.array([0.1, 0.2, 0.3]), mx.nd.array([1.0, 2.0, 4.0])
    out, m, v = mx.nd.BatchNorm_v1(x, gamma, beta, mean, var, fix_gamma=False, output_mean_var=True, eps=0.0)
    want = (x.asnumpy() - mean.asnumpy()) / np.sqrt(var.asnumpy()) * gamma.asnumpy() + beta.asnumpy()
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    assert m.asnumpy().tolist() == mean.asnumpy().tolist() and v.asnumpy().tolist() == var.asnumpy().tolist()


# ============================================================ 2. names, defaults, dtypes
def test_names_and_defaults_as_mxnet():
    sym = mx.sym.BatchNorm_v1(mx.sym.var('data'), name='bn')
    assert sym.list_arguments() == META['arguments']
    assert sym.list_auxiliary_states() == META['aux_states']
    assert sym.list_outputs() == META['outputs']
    shown = mx.sym.BatchNorm_v1(mx.sym.var('data'), name='bn', output_mean_var=True)
    assert shown.list_outputs() == META['outputs_shown']
    nodes = {n['name']: n.get('attrs', {}) for n in json.loads(sym.tojson())['nodes']}
    assert {k: nodes[k].get('__init__') for k in META['aux_states']} == META['aux_init']
    p = get('BatchNorm_v1').parse_params({})
    assert (p.eps, p.momentum, p.fix_gamma, p.use_global_stats, p.output_mean_var) == (1e-3, 0.9, True, False, False)
    assert not hasattr(p, 'axis')
    # MXNet lists the parameters after data, gamma and beta; reflib lists the auxiliary
    # states there too (as it does for BatchNorm, where MXNet does as well)
    args = mx.operator.get_operator_arguments('BatchNorm_v1')
    want = META['operator_arguments']
    assert args.names == want['names'][:3] + ['moving_mean', 'moving_var'] + want['names'][3:]
    assert args.types[5:] == want['types'][3:]


def test_inferred_shapes_and_float32_types_as_mxnet():
    shown = mx.sym.BatchNorm_v1(mx.sym.var('data'), name='bn', output_mean_var=True)
    assert [list(map(list, group)) for group in shown.infer_shape(data=(4, 3))] == META['infer_shape_2d']
    got = shown.infer_type(data='float32')
    assert [[np.dtype(t).name for t in group] for group in got] == META['infer_type']['float32']


@pytest.mark.parametrize('dtype', ['float16', 'float64'])
def test_other_dtypes_are_refused_where_mxnet_fails_when_it_runs(dtype):
    # MXNet infers these (float16 data, float32 parameters) and then fails in forward
    assert 'data type do not match' in META['errors'][dtype]
    shown = mx.sym.BatchNorm_v1(mx.sym.var('data'), name='bn')
    with pytest.raises(TypeInferError, match='BatchNorm_v1.*must be float32, got %s' % dtype):
        shown.infer_type(data=dtype)
    with pytest.raises(TypeInferError, match='must be float32'):
        shown.simple_bind(CTX, data=(2, 3), type_dict={'data': dtype})
    with pytest.raises(TypeInferError, match='must be float32'):
        mx.nd.BatchNorm_v1(mx.nd.ones((2, 3), dtype=dtype), mx.nd.ones(3), mx.nd.ones(3), mx.nd.zeros(3),
                           mx.nd.ones(3))


# ============================================================ 3. finite differences
@pytest.mark.parametrize('shape,params', [
    ((4, 3), {}),
    ((4, 3), {'fix_gamma': False}),
    ((2, 3, 2, 2), {'fix_gamma': False, 'eps': 0.1}),
    ((2, 2, 3, 1), {}),
    ((2, 3, 2, 2), {'use_global_stats': True, 'fix_gamma': False}),
])
def test_gradient_against_finite_differences(shape, params):
    c = shape[1]
    inputs = [rng.uniform(-2, 2, shape), rng.uniform(0.5, 2, c), rng.uniform(-1, 1, c)]
    aux = [rng.uniform(-0.5, 0.5, c), rng.uniform(0.5, 2, c)]
    # fix_gamma overwrites gamma with 1: its numeric gradient is 0, as the analytic one
    grads = check_op_gradient('BatchNorm_v1', inputs, params, aux=aux)
    if params.get('fix_gamma', True):
        assert not np.any(grads[1])


def test_moving_statistics_are_updated_by_backward_with_the_returned_mean_and_var():
    op = get('BatchNorm_v1')
    p = op.parse_params({'momentum': 0.75})
    x = rng.uniform(-2, 2, (6, 2)).astype(np.float32)
    gamma, beta = np.ones(2, np.float32), np.zeros(2, np.float32)
    moving = [np.array([0.5, -0.5], np.float32), np.array([2.0, 3.0], np.float32)]
    env = OpEnv(cpu(), True)
    outs = op.forward(p, env, [x, gamma, beta], moving)
    assert moving[0].tolist() == [0.5, -0.5] and moving[1].tolist() == [2.0, 3.0]
    op.backward(p, env, [np.ones_like(x), None, None], [x, gamma, beta], outs, moving)
    np.testing.assert_allclose(moving[0], 0.75 * np.array([0.5, -0.5]) + 0.25 * x.mean(axis=0), rtol=1e-6)
    np.testing.assert_allclose(moving[1], 0.75 * np.array([2.0, 3.0]) + 0.25 * x.var(axis=0), rtol=1e-6)


# ============================================================ 4. bad input
@pytest.mark.parametrize('shape', [(4,), (2, 3, 4), (2, 3, 2, 2, 2)])
def test_ranks_mxnet_fails_on_are_refused(shape):
    label = {1: '1d', 3: '3d', 5: '5d'}[len(shape)]
    assert META['errors'][label] is not None           # MXNet fails on them (when it runs)
    sym = mx.sym.BatchNorm_v1(mx.sym.var('data'), name='bn')
    with pytest.raises(ShapeError, match="BatchNorm_v1: input 'data' must be 2-d .* or 4-d"):
        sym.infer_shape(data=shape)
    with pytest.raises(ShapeError, match='must be 2-d'):
        c = shape[1] if len(shape) > 1 else 1
        mx.nd.BatchNorm_v1(mx.nd.ones(shape), mx.nd.ones(c), mx.nd.ones(c), mx.nd.zeros(c), mx.nd.ones(c))


def test_wrong_parameter_shapes_and_unknown_parameters():
    sym = mx.sym.BatchNorm_v1(mx.sym.var('data'), name='bn')
    with pytest.raises(MXNetError, match='bn_gamma|gamma'):
        sym.infer_shape(data=(2, 3), bn_gamma=(4,))
    with pytest.raises(MXNetError, match="unknown parameter 'axis'"):
        mx.sym.BatchNorm_v1(mx.sym.var('data'), axis=1)
    op = get('BatchNorm_v1')
    with pytest.raises(ShapeError, match="'gamma' must have shape \\(3,\\)"):
        op.forward(op.parse_params({}), OpEnv(cpu(), True), [np.ones((2, 3)), np.ones(4), np.ones(3)],
                   [np.zeros(3), np.ones(3)])
