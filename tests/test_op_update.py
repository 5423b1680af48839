"""Tests for reflib/operator/update.py: the fused optimizer steps (sgd_update, adam_update, ...).

1. two steps of every operator against MXNet 1.9.1 (tests/golden/ops_update.npz, written by
   tests/golden/gen_ops_update.py): the output and every input afterwards, so the states it
   updates in place and the inputs it must leave alone are both checked;
2. the same through ``mx.nd`` (states updated in the caller's arrays, ``out=weight``) and
   through a bound symbol (states as auxiliary states);
3. names, shape and dtype inference, bad input.
"""


import numpy as np
import pytest

import reflib as mx
from reflib.base import ParamError, ShapeError, TypeInferError
from reflib.context import cpu
from reflib.operator import OpEnv
import device
from device import get
from op_golden import load_flat_cases

META, pieces = load_flat_cases('ops_update.npz')
CASES = META['cases']
OPERATORS = ['sgd_update', 'sgd_mom_update', 'mp_sgd_update', 'mp_sgd_mom_update', 'nag_mom_update',
             'mp_nag_mom_update', 'adam_update', 'rmsprop_update', 'rmspropalex_update', 'ftrl_update',
             'ftml_update', 'signsgd_update', 'signum_update', 'lamb_update_phase1', 'lamb_update_phase2',
             'mp_lamb_update_phase1', 'mp_lamb_update_phase2']



def step_params(case, step):
    return {k: (v[step] if isinstance(v, list) else v) for k, v in case['params'].items()}


def tolerance(dtype):
    return dict(rtol=1e-3, atol=1e-3) if dtype == np.float16 else dict(rtol=1e-5, atol=1e-6)


def check_step(i, step, out, arrays, golden, first=0):
    """The output and inputs ``first``... after ``step`` (the weight is skipped where ``out`` is it)."""
    want = golden['s%d_out' % step]
    assert out.dtype == want.dtype and out.shape == want.shape
    np.testing.assert_allclose(out, want, err_msg='output, step %d' % step, **tolerance(want.dtype))
    for j, x in list(enumerate(arrays))[first:]:
        want = golden['s%d_in%d' % (step, j)]
        np.testing.assert_allclose(x, want, err_msg='input %d after step %d' % (j, step), **tolerance(want.dtype))


def weight_follows_output(case):
    return case['op'] not in META['output_is_not_the_weight']


@pytest.mark.parametrize('i', range(len(CASES)), ids=['%d-%s' % (i, c['op']) for i, c in enumerate(CASES)])
def test_golden_two_steps(i):
    """The registry's forward, as the MXNet strings of the parameters parse."""
    case, golden = CASES[i], pieces(i)
    op = get(case['op'])
    arrays = [golden['in%d' % j].copy() for j in range(case['n_in'])]
    for step in range(2):
        arrays[1] = golden['grad%d' % step].copy()
        p = op.parse_params({k: str(v) for k, v in step_params(case, step).items()})
        n_in = len(op.inputs(p))
        assert op.inputs(p) + op.aux(p) == [n for n in _mxnet_input_names(case['op'])]
        out = op.forward(p, OpEnv(cpu()), arrays[:n_in], arrays[n_in:])[0]
        check_step(i, step, out, arrays, golden)
        if weight_follows_output(case):
            arrays[0] = out.astype(arrays[0].dtype)


@pytest.mark.parametrize('i', range(len(CASES)), ids=['%d-%s' % (i, c['op']) for i, c in enumerate(CASES)])
def test_golden_two_steps_through_nd(i):
    """mx.nd.<op>(weight, grad, states..., out=weight), as MXNet's optimizers call it."""
    case, golden = CASES[i], pieces(i)
    nds = [mx.nd.array(golden['in%d' % j], dtype=golden['in%d' % j].dtype) for j in range(case['n_in'])]
    fn = getattr(mx.nd, case['op'])
    for step in range(2):
        nds[1][:] = golden['grad%d' % step]
        if weight_follows_output(case):
            out = fn(*nds, out=nds[0], **step_params(case, step))
            assert out is nds[0]
        else:
            out = fn(*nds, **step_params(case, step))
        check_step(i, step, out.asnumpy(), [a.asnumpy() for a in nds], golden,
                   first=1 if weight_follows_output(case) else 0)


def _mxnet_input_names(op_name):
    """MXNet's input names, in its order (read from its registry by hand for 1.9.1)."""
    states = {'sgd_update': [], 'sgd_mom_update': ['mom'], 'mp_sgd_update': ['weight32'],
              'mp_sgd_mom_update': ['mom', 'weight32'], 'nag_mom_update': ['mom'],
              'mp_nag_mom_update': ['mom', 'weight32'], 'adam_update': ['mean', 'var'],
              'rmsprop_update': ['n'], 'rmspropalex_update': ['n', 'g', 'delta'],
              'ftrl_update': ['z', 'n'], 'ftml_update': ['d', 'v', 'z'], 'signsgd_update': [],
              'signum_update': ['mom'], 'lamb_update_phase1': ['mean', 'var'],
              'mp_lamb_update_phase1': ['mean', 'var', 'weight32'],
              'lamb_update_phase2': [], 'mp_lamb_update_phase2': ['weight32']}[op_name]
    first = ['weight', 'g', 'r1', 'r2'] if 'phase2' in op_name else ['weight', 'grad']
    return first + states


def test_golden_covers_every_operator():
    assert {c['op'] for c in CASES} == set(OPERATORS)


def test_clip_gradient_zero_clips_everything():
    """MXNet clips with any bound >= 0: clip_gradient=0 leaves only the weight decay."""
    w, g = np.array([1.0, -2.0], np.float32), np.array([5.0, 5.0], np.float32)
    out = mx.nd.sgd_update(mx.nd.array(w), mx.nd.array(g), lr=0.1, wd=0.5, clip_gradient=0).asnumpy()
    np.testing.assert_allclose(out, w * (1 - 0.05), rtol=1e-6)


def test_states_are_aux_states_of_a_symbol():
    w, g = mx.sym.var('w'), mx.sym.var('g')
    up = mx.sym.adam_update(w, g, lr=0.01, name='up')
    assert up.list_arguments() == ['w', 'g']
    assert up.list_auxiliary_states() == ['up_mean', 'up_var']
    assert up.list_outputs() == ['up_output']
    args, outs, aux = up.infer_shape(w=(2, 3))
    assert args == [(2, 3), (2, 3)] and outs == [(2, 3)] and aux == [(2, 3), (2, 3)]
    _, outs, aux = mx.sym.mp_sgd_mom_update(w, g, lr=0.1).infer_type(w='float16')
    assert outs == [np.float16] and aux == [np.float32, np.float32]
    args, _, _ = mx.sym.lamb_update_phase2(w, g, lr=0.1).infer_shape(w=(4, 5))
    assert args == [(4, 5), (4, 5), (1,), (1,)]
    assert mx.sym.lamb_update_phase2(w, g, lr=0.1, name='p2').list_arguments() == ['w', 'g', 'p2_r1', 'p2_r2']


def test_a_bound_update_changes_its_aux_states_each_forward():
    w, g = mx.sym.var('w'), mx.sym.var('g')
    up = mx.sym.sgd_mom_update(w, g, lr=0.1, momentum=0.9, name='up')
    weight, grad = np.array([[1.0, 2.0]], np.float32), np.array([[0.5, -1.0]], np.float32)
    mom = mx.nd.zeros((1, 2))
    exe = up.bind(device.CTX, {'w': mx.nd.array(weight), 'g': mx.nd.array(grad)}, aux_states=[mom])
    first = exe.forward()[0].asnumpy()
    np.testing.assert_allclose(mom.asnumpy(), -0.1 * grad, rtol=1e-6)
    np.testing.assert_allclose(first, weight - 0.1 * grad, rtol=1e-6)
    exe.forward()
    np.testing.assert_allclose(mom.asnumpy(), -0.19 * grad, rtol=1e-6)


@pytest.mark.parametrize('call,error,fragment', [
    (lambda: mx.nd.sgd_mom_update(mx.nd.ones((2, 3)), mx.nd.ones((2, 3)), mx.nd.ones((3,)), lr=0.1),
     ShapeError, "'mom' must have shape (2,3)"),
    (lambda: mx.nd.sgd_update(mx.nd.ones((2, 3)), mx.nd.ones((3, 2)), lr=0.1), ShapeError, "'grad'"),
    (lambda: mx.nd.adam_update(mx.nd.ones(3), mx.nd.ones(3, dtype='float64'), mx.nd.ones(3), mx.nd.ones(3), lr=0.1),
     TypeInferError, "'grad' must be float32"),
    (lambda: mx.nd.mp_sgd_update(mx.nd.ones(3, dtype='float16'), mx.nd.ones(3, dtype='float16'),
                                 mx.nd.ones(3, dtype='float16'), lr=0.1),
     TypeInferError, "'weight32' must be float32"),
    (lambda: mx.nd.lamb_update_phase2(mx.nd.ones(3), mx.nd.ones(3), mx.nd.ones(2), mx.nd.ones(1), lr=0.1),
     ShapeError, "'r1' must have shape (1,)"),
    (lambda: mx.nd.sgd_update(mx.nd.ones(3), mx.nd.ones(3)), ParamError, "'lr' is missing"),
    (lambda: mx.nd.ftml_update(*[mx.nd.ones(3)] * 5, lr=0.1), ParamError, "'t' is missing"),
])
def test_bad_input_is_refused_clearly(call, error, fragment):
    with pytest.raises(error) as info:
        call()
    assert fragment in str(info.value)


def test_symbol_type_mismatch_is_refused():
    up = mx.sym.mp_sgd_update(mx.sym.var('w'), mx.sym.var('g'), mx.sym.var('w32'), lr=0.1)
    with pytest.raises(TypeInferError):
        up.infer_type(w='float16', w32='float16')


def test_an_update_has_no_gradient():
    op = get('sgd_update')
    with pytest.raises(TypeError, match='no gradient'):
        op.backward(op.parse_params({'lr': 0.1}), OpEnv(cpu()), [np.ones(2)], [np.ones(2)] * 2, [np.ones(2)], [])
