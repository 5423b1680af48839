"""Tests for reflib/operator/multi_update.py (multi_sgd_update and the other multi-weight
optimizer steps, multi_sum_sq, multi_lars) and for update.py's AdamW (_adamw_update).

1. two steps of every operator against MXNet 1.9.1 (tests/golden/multi_update.npz, written by
   tests/golden/gen_multi_update.py): the outputs and every array afterwards, so the states
   updated in place and the arrays that must stay as they were are both checked; through the
   registry, through ``mx.nd`` (arrays in MXNet's interleaved order, ``out=`` the weights) and
   through the ``mx.nd.contrib`` functions;
2. a multi-weight operator is a loop of its one-weight operator, bit for bit;
3. the ``floats`` parameter kind, names and counts, symbols and graph files, bad input.
"""

import json

import numpy as np
import pytest

import reflib as mx
from reflib.base import BindError, ParamError, ShapeError, TypeInferError
from reflib.context import cpu
from reflib.operator import OpEnv
from reflib.operator.registry import Param
import device
from device import get
from op_golden import load_flat_cases

META, pieces = load_flat_cases('multi_update.npz')
CASES = META['cases']
UPDATES = [i for i, c in enumerate(CASES) if c['form'] == 'update']
REDUCTIONS = [i for i, c in enumerate(CASES) if c['form'] == 'reduction']
COUNT = {'_multi_lamb_update': 'num_tensors', '_multi_mp_lamb_update': 'num_tensors'}
SINGLE = ('_adamw_update', '_mp_adamw_update')



def tolerance(dtype):
    return dict(rtol=1e-3, atol=1e-3) if dtype == np.float16 else dict(rtol=1e-5, atol=1e-6)


def ids(indices):
    return ['%d-%s' % (i, CASES[i]['op']) for i in indices]


def params_of(case, step):
    """The step's parameters, with the weight count MXNet was given."""
    params = dict(case['steps'][step])
    if case['op'] not in SINGLE:
        params[COUNT.get(case['op'], 'num_weights')] = case['n_weights']
    return params


def layout(case):
    """(positions of the weights, positions of the gradients, positions of the scale arrays)."""
    kinds = case['kinds']
    return ([j for j, k in enumerate(kinds) if k.split('_')[0] in ('w', 'w16')],
            [j for j, k in enumerate(kinds) if k.split('_')[0] in ('g', 'g16')],
            [j for j, k in enumerate(kinds) if k == 'scale'])


def feed(case, golden, step, arrays, assign):
    """Put step ``step``'s gradients and scale into ``arrays`` (``assign(arrays, j, value)``)."""
    _, grads, scales = layout(case)
    for k, j in enumerate(grads):
        assign(arrays, j, golden['grad%d_%d' % (step, k)])
    for j in scales:        # no step changes it: its value after step s is the one step s used
        assign(arrays, j, golden['s%d_in%d' % (step, j)])


def check_step(case, golden, step, outs, arrays):
    for k, out in enumerate(outs):
        want = golden['s%d_out%d' % (step, k)]
        assert out.dtype == want.dtype and out.shape == want.shape
        np.testing.assert_allclose(out, want, err_msg='output %d, step %d' % (k, step),
                                   **tolerance(want.dtype))
    _, grads, _ = layout(case)
    for j, x in enumerate(arrays):
        if case['op'] == '_adamw_update' and j in grads:
            # MXNet 1.9.1's kernel writes clip(rescale_grad * grad) into grad, an input it does
            # not declare as written; reflib leaves the gradient as it was given
            np.testing.assert_array_equal(x, golden['grad%d_0' % step])
            continue
        want = golden['s%d_in%d' % (step, j)]
        np.testing.assert_allclose(x, want, err_msg='%s after step %d' % (case['kinds'][j], step),
                                   **tolerance(want.dtype))


def _set(arrays, j, value):
    arrays[j] = value.copy()


@pytest.mark.parametrize('i', UPDATES, ids=ids(UPDATES))
def test_golden_two_steps(i):
    """The registry's forward, with the parameters as the strings MXNet stores."""
    case, golden = CASES[i], pieces(i)
    op = get(case['op'])
    arrays = [golden['in%d' % j].copy() for j in range(len(case['kinds']))]
    weights, _, _ = layout(case)
    for step in range(2):
        feed(case, golden, step, arrays, _set)
        p = op.parse_params({k: str(v) for k, v in params_of(case, step).items()})
        by_name = dict(zip(op.input_order(p), arrays))
        ins, states = [by_name[n] for n in op.inputs(p)], [by_name[n] for n in op.aux(p)]
        outs = op.forward(p, OpEnv(cpu()), ins, states)
        for j, out in zip(weights, outs):       # as out=weights has it
            arrays[j] = out.copy()
        check_step(case, golden, step, outs, arrays)


def _nd_assign(nds, j, value):
    nds[j][:] = value


@pytest.mark.parametrize('i', UPDATES, ids=ids(UPDATES))
def test_golden_two_steps_through_nd(i):
    """``mx.nd.<op>(*arrays, out=weights)`` with the arrays in MXNet's order, as its optimizers call it."""
    case, golden = CASES[i], pieces(i)
    nds = [mx.nd.array(golden['in%d' % j], dtype=golden['in%d' % j].dtype) for j in range(len(case['kinds']))]
    weights, _, _ = layout(case)
    out = [nds[j] for j in weights]
    fn = getattr(mx.nd, case['op'], None) or getattr(mx.nd._internal, case['op'])
    for step in range(2):
        feed(case, golden, step, nds, _nd_assign)
        got = fn(*nds, out=out[0] if case['op'] in SINGLE else out, **params_of(case, step))
        assert got is (out[0] if case['op'] in SINGLE else out)
        check_step(case, golden, step, [w.asnumpy() for w in out], [a.asnumpy() for a in nds])


_CONTRIB = {'_adamw_update': 'adamw_update', '_mp_adamw_update': 'mp_adamw_update',
            '_multi_adamw_update': 'multi_adamw_update', '_multi_mp_adamw_update': 'multi_mp_adamw_update',
            '_multi_lamb_update': 'multi_lamb_update', '_multi_mp_lamb_update': 'multi_mp_lamb_update'}
CONTRIB = [i for i in UPDATES if CASES[i]['op'] in _CONTRIB]


def _contrib_call(case, nds, params):
    """mx.nd.contrib.<function>(...) as MXNet's own tests call it: a list per kind; AdamW's
    rescale_grad as a number."""
    fn = getattr(mx.nd.contrib, _CONTRIB[case['op']])
    weights, _, scales = layout(case)
    per = len(nds) // case['n_weights'] if not scales else (len(nds) - 1) // case['n_weights']
    kinds = [[nds[k * per + j] for k in range(case['n_weights'])] for j in range(per)]
    params = {k: v for k, v in params.items() if k not in ('num_weights', 'num_tensors')}
    if case['op'] in SINGLE:
        scale = float(nds[scales[0]].asnumpy()[0])
        return fn(*[group[0] for group in kinds], scale, out=nds[weights[0]], **params)
    if 'lamb' in case['op']:
        params['lrs'] = params.pop('learning_rates')
        return fn(*kinds, out=kinds[0], **params)
    return fn(*kinds, nds[scales[0]], out=kinds[0], **params)


@pytest.mark.parametrize('i', CONTRIB, ids=ids(CONTRIB))
def test_golden_two_steps_through_contrib(i):
    case, golden = CASES[i], pieces(i)
    nds = [mx.nd.array(golden['in%d' % j], dtype=golden['in%d' % j].dtype) for j in range(len(case['kinds']))]
    weights, _, _ = layout(case)
    for step in range(2):
        feed(case, golden, step, nds, _nd_assign)
        _contrib_call(case, nds, dict(case['steps'][step]))
        check_step(case, golden, step, [nds[j].asnumpy() for j in weights], [a.asnumpy() for a in nds])


@pytest.mark.parametrize('i', REDUCTIONS, ids=ids(REDUCTIONS))
def test_golden_reductions(i):
    case, golden = CASES[i], pieces(i)
    xs = [golden['in%d' % j] for j in range(case['n_in'])]
    op = get(case['op'])
    params = dict(case['params'], **({'num_arrays': len(xs)} if case['op'] == 'multi_sum_sq' else {}))
    p = op.parse_params({k: str(v) for k, v in params.items()})
    out = op.forward(p, OpEnv(cpu()), [x.copy() for x in xs], [])[0]
    want = golden['out']
    assert out.dtype == want.dtype and out.shape == want.shape
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-7)
    nd_out = getattr(mx.nd, case['op'])(*[mx.nd.array(x, dtype=x.dtype) for x in xs], **params)
    np.testing.assert_array_equal(nd_out.asnumpy(), out)


def test_golden_covers_every_operator():
    assert {c['op'] for c in CASES} == set(META['arguments'])


def test_a_float16_square_overflows_as_in_mxnet():
    """multi_sum_sq squares in the array's dtype: 256 ** 2 is inf in float16."""
    out = mx.nd.multi_sum_sq(mx.nd.array([256.0, 1.0], dtype='float16'), mx.nd.array([3.0], dtype='float16'))
    assert out.dtype == np.float32 and np.isinf(out.asnumpy()[0]) and out.asnumpy()[1] == 9.0


# ---------------------------------------------------------------- one weight at a time
def _random_arrays(kinds, n, seed, mp=False):
    """``{kind: [one array per weight]}`` on the default context, shapes differing per weight;
    with ``mp`` the weights and gradients are float16 and ``weight32`` their float32 copies."""
    rng = np.random.RandomState(seed)
    shapes = [(3, 4), (5,), (2, 1, 3)][:n]
    out = {}
    for kind in kinds:
        dtype = 'float16' if mp and kind in ('weight', 'grad') else 'float32'
        low, high = (0.5, 1.5) if kind == 'var' else (-1.5, 1.5)
        out[kind] = [mx.nd.array(rng.uniform(low, high, size=s), dtype=dtype) for s in shapes]
    if 'weight32' in out:
        out['weight32'] = [w.astype('float32') for w in out['weight']]
    return out


def _copies(arrays):
    return {k: [a.copy() for a in v] for k, v in arrays.items()}


def _interleaved(arrays, kinds):
    return [arrays[kind][k] for k in range(len(arrays['weight'])) for kind in kinds]


def _assert_same(multi, single):
    for kind in multi:
        for a, b in zip(multi[kind], single[kind]):
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy(), err_msg=kind)


LRS, WDS, ETAS = (0.1, 0.05, 0.2), (0.1, 0.0, 0.01), (1.0, 0.5, 0.9)
SGD_LIKE = [
    ('multi_sgd_update', 'sgd_update', ('weight', 'grad'), {}),
    ('multi_sgd_mom_update', 'sgd_mom_update', ('weight', 'grad', 'mom'), {'momentum': 0.9}),
    ('multi_mp_sgd_update', 'mp_sgd_update', ('weight', 'grad', 'weight32'), {}),
    ('multi_mp_sgd_mom_update', 'mp_sgd_mom_update', ('weight', 'grad', 'mom', 'weight32'),
     {'momentum': 0.9}),
]


@pytest.mark.parametrize('multi,single,kinds,extra', SGD_LIKE, ids=[c[0] for c in SGD_LIKE])
@pytest.mark.parametrize('preloaded', [False, True], ids=['tuples', 'preloaded'])
def test_multi_sgd_is_a_loop_of_the_single_op(multi, single, kinds, extra, preloaded):
    shared = dict(extra, rescale_grad=0.5, clip_gradient=0.6)
    arrays = _random_arrays(kinds, 3, 1, mp='weight32' in kinds)
    looped = _copies(arrays)
    flat = _interleaved(arrays, kinds)
    if preloaded:
        rates = [mx.nd.array(LRS), mx.nd.array(WDS)]
        getattr(mx.nd, 'preloaded_' + multi)(*(flat + rates), out=arrays['weight'], num_weights=3, **shared)
    else:
        getattr(mx.nd, multi)(*flat, out=arrays['weight'], num_weights=3, lrs=LRS, wds=WDS, **shared)
    for k in range(3):
        # the preloaded rates are float32 values: the single op rounds its numbers so too
        getattr(mx.nd, single)(*[looped[kind][k] for kind in kinds], out=looped['weight'][k],
                               lr=float(np.float32(LRS[k])), wd=float(np.float32(WDS[k])), **shared)
    _assert_same(arrays, looped)


@pytest.mark.parametrize('mp', [False, True], ids=['float32', 'mp'])
def test_multi_adamw_is_a_loop_of_the_single_op(mp):
    kinds = ('weight', 'grad', 'mean', 'var') + (('weight32',) if mp else ())
    arrays = _random_arrays(kinds, 3, 2, mp)
    looped = _copies(arrays)
    scale = mx.nd.array([2.0])
    shared = {'beta1': 0.8, 'clip_gradient': 0.6}
    op = '_multi_mp_adamw_update' if mp else '_multi_adamw_update'
    getattr(mx.nd._internal, op)(*(_interleaved(arrays, kinds) + [scale]), out=arrays['weight'],
                                 num_weights=3, lrs=LRS, wds=WDS, etas=ETAS, **shared)
    single = mx.nd._internal._mp_adamw_update if mp else mx.nd._internal._adamw_update
    for k in range(3):
        single(*[looped[kind][k] for kind in kinds], scale, out=looped['weight'][k], lr=LRS[k], wd=WDS[k],
               eta=ETAS[k], **shared)
    _assert_same(arrays, looped)


@pytest.mark.parametrize('mp', [False, True], ids=['float32', 'mp'])
def test_multi_lamb_is_lamb_phase_one_and_two_per_weight(mp):
    """Phase 1, the norms (multi_sum_sq), phase 2: on the master copy in the mp_ form, which
    keeps the new weight (mp_lamb_update_phase2 does not write it back)."""
    kinds = ('weight', 'grad', 'mean', 'var') + (('weight32',) if mp else ())
    arrays = _random_arrays(kinds, 2, 3, mp)
    looped = _copies(arrays)
    shared = {'rescale_grad': 0.5, 'clip_gradient': 0.6, 'lower_bound': 0.5, 'upper_bound': 2.0}
    steps = (1, 4)
    op = '_multi_mp_lamb_update' if mp else '_multi_lamb_update'
    getattr(mx.nd._internal, op)(*_interleaved(arrays, kinds), out=arrays['weight'], num_tensors=2,
                                 learning_rates=LRS[:2], wds=WDS[:2], step_count=steps, **shared)
    for k in range(2):
        w, g, mean, var = (looped[kind][k] for kind in ('weight', 'grad', 'mean', 'var'))
        phase1 = dict(t=steps[k], wd=WDS[k], rescale_grad=0.5, clip_gradient=0.6)
        if mp:
            direction = mx.nd.mp_lamb_update_phase1(w, g, mean, var, looped['weight32'][k], **phase1)
        else:
            direction = mx.nd.lamb_update_phase1(w, g, mean, var, **phase1)
        r1 = mx.nd.multi_sum_sq(w, num_arrays=1).sqrt()
        r2 = mx.nd.multi_sum_sq(direction, num_arrays=1).sqrt()
        source = looped['weight32'][k] if mp else w
        new = mx.nd.lamb_update_phase2(source, direction, r1, r2, lr=LRS[k], lower_bound=0.5, upper_bound=2.0)
        if mp:
            looped['weight32'][k][:] = new
        w[:] = new.astype(w.dtype)
    _assert_same(arrays, looped)


def test_multi_lars_takes_multi_sum_sq_outputs():
    """LARS's rates from the sums of squares, as MXNet's LARS optimizer strings them together."""
    rng = np.random.RandomState(4)
    weights = [mx.nd.array(rng.uniform(-1, 1, size=s)) for s in ((3, 4), (5,))]
    grads = [mx.nd.array(rng.uniform(-1, 1, size=s)) for s in ((3, 4), (5,))]
    w_sq, g_sq = mx.nd.multi_sum_sq(*weights), mx.nd.multi_sum_sq(*grads)
    lrs, wds = mx.nd.array([0.1, 0.2]), mx.nd.array([0.01, 0.0])
    got = mx.nd.multi_lars(lrs, w_sq, g_sq, wds, eta=0.5, eps=1e-3, rescale_grad=2.0).asnumpy()
    for k in range(2):
        w_norm, g_norm = np.sqrt(w_sq.asnumpy()[k]), np.sqrt(g_sq.asnumpy()[k])
        want = lrs.asnumpy()[k] * 0.5 * w_norm / (g_norm * 2.0 + wds.asnumpy()[k] * w_norm + 1e-3)
        np.testing.assert_allclose(got[k], want, rtol=1e-6)


# ---------------------------------------------------------------- AdamW's skipped step
@pytest.mark.parametrize('scale', [0.0, float('nan'), float('inf'), float('-inf')])
def test_adamw_skips_the_step_for_a_rescale_grad_of_zero_or_not_finite(scale):
    w, g = mx.nd.array([1.0, -2.0]), mx.nd.array([0.5, 0.5])
    mean, var = mx.nd.array([0.1, 0.2]), mx.nd.array([1.0, 2.0])
    out = mx.nd.contrib.adamw_update(w, g, mean, var, scale, lr=0.1, eta=1.0, wd=0.1)
    assert out.asnumpy().tolist() == [1.0, -2.0]            # the weight as given
    assert mean.asnumpy().tolist() == pytest.approx([0.1, 0.2]) and var.asnumpy().tolist() == [1.0, 2.0]
    w16 = mx.nd.array([1.0, -2.0], dtype='float16')
    w32 = mx.nd.array([1.0001, -2.0001])
    out16 = mx.nd.contrib.mp_adamw_update(w16, g.astype('float16'), mean, var, w32, scale, lr=0.1, eta=1.0)
    assert out16.dtype == np.float16 and out16.asnumpy().tolist() == [1.0, -2.0]
    np.testing.assert_array_equal(w32.asnumpy(), np.array([1.0001, -2.0001], np.float32))


def test_adamw_refuses_an_empty_rescale_grad():
    op = get('_adamw_update')
    p = op.parse_params({'lr': '0.1', 'eta': '1'})
    ones = np.ones(2, np.float32)
    with pytest.raises(ShapeError, match="_adamw_update: input 'rescale_grad' must hold a value"):
        op.forward(p, OpEnv(cpu()), [ones, ones, np.zeros(0, np.float32)], [ones.copy(), ones.copy()])


def test_adamw_reads_the_first_value_of_rescale_grad_of_any_shape():
    args = [mx.nd.array([1.0, -2.0]), mx.nd.array([0.5, 0.5]), mx.nd.zeros(2), mx.nd.zeros(2)]
    one = mx.nd.contrib.adamw_update(*[a.copy() for a in args], mx.nd.array([2.0]), lr=0.1, eta=1.0)
    two = mx.nd.contrib.adamw_update(*[a.copy() for a in args], mx.nd.array([[2.0, 7.0]]), lr=0.1, eta=1.0)
    np.testing.assert_array_equal(one.asnumpy(), two.asnumpy())


# ---------------------------------------------------------------- parameters, names, counts
@pytest.mark.parametrize('value,expected', [
    ((0.1, 0.2), (0.1, 0.2)), ([1, 2], (1.0, 2.0)), ('(0.1, 0.2)', (0.1, 0.2)), ('[0.1, 0.2]', (0.1, 0.2)),
    ('[0.1 0.2]', (0.1, 0.2)), ('0.5', (0.5,)), (0.5, (0.5,)), (np.array([0.25, 4.0]), (0.25, 4.0)),
    ((np.float32(0.5),), (0.5,)), ('(1e-3,)', (1e-3,)),
])
def test_a_tuple_of_floats_parses_from_what_mxnet_accepts(value, expected):
    assert Param('floats').parse(value, 'multi_sgd_update', 'lrs') == expected


@pytest.mark.parametrize('value', ['abc', '(0.1 0.2)', '0.1,0.2', (True,), ((1,),), (float('nan'),),
                                   '(inf,)', None, ('a',)])
def test_a_bad_tuple_of_floats_is_refused_naming_the_parameter(value):
    with pytest.raises(ParamError, match=r"multi_sgd_update: parameter 'lrs' "):
        Param('floats').parse(value, 'multi_sgd_update', 'lrs')


def test_operator_arguments_are_mxnets():
    for name, want in META['arguments'].items():
        got = mx.operator.get_operator_arguments(name)
        assert [got.names, got.types] == [want['names'], want['types']], name


def test_inputs_are_interleaved_and_states_are_aux():
    op = get('multi_mp_sgd_mom_update')
    p = op.parse_params({'lrs': '(0.1, 0.2)', 'wds': '(0, 0)', 'num_weights': '2'})
    assert op.input_order(p) == ['weight_0', 'grad_0', 'mom_0', 'weight32_0',
                                 'weight_1', 'grad_1', 'mom_1', 'weight32_1']
    assert op.inputs(p) == ['weight_0', 'grad_0', 'weight_1', 'grad_1']
    assert op.aux(p) == ['mom_0', 'weight32_0', 'mom_1', 'weight32_1']
    assert op.outputs(p) == ['output0', 'output1']
    adamw = get('_adamw_update')
    assert adamw.input_order(adamw.parse_params({'lr': '0.1', 'eta': '1'})) == [
        'weight', 'grad', 'mean', 'var', 'rescale_grad']
    pre = get('preloaded_multi_sgd_update')
    assert pre.input_order(pre.parse_params({'num_weights': '2'}))[-2:] == ['lrs', 'wds']


def test_num_weights_is_counted_from_the_arrays_when_left_out():
    w, g = [mx.nd.ones((2,)), mx.nd.ones((3,))], [mx.nd.ones((2,)), mx.nd.ones((3,))]
    out = mx.nd.multi_sgd_update(w[0], g[0], w[1], g[1], lrs=(0.1, 0.2), wds=(0.0, 0.0), out=w)
    np.testing.assert_allclose(np.concatenate([a.asnumpy() for a in out]), [0.9, 0.9, 0.8, 0.8, 0.8],
                               rtol=1e-6)
    mean, var = mx.nd.zeros((2,)), mx.nd.zeros((2,))
    mx.nd._internal._multi_adamw_update(w[0], g[0], mean, var, mx.nd.array([1.0]), lrs=(0.1,), wds=(0.0,),
                                        etas=(1.0,))
    assert mean.asnumpy().tolist() == pytest.approx([0.1, 0.1])


def test_without_out_the_new_weights_come_back():
    """MXNet 1.9.1 fails without out=; reflib returns the new weights (and leaves the old)."""
    w, g = mx.nd.array([1.0, 2.0]), mx.nd.array([1.0, 1.0])
    new = mx.nd.multi_sgd_update(w, g, w, g, lrs=(0.1, 0.5), wds=(0.0, 0.0), num_weights=2)
    np.testing.assert_allclose(np.concatenate([a.asnumpy() for a in new]), [0.9, 1.9, 0.5, 1.5], rtol=1e-6)
    assert w.asnumpy().tolist() == [1.0, 2.0]


# ---------------------------------------------------------------- symbols and graph files
def test_a_symbol_lists_mxnets_arguments_and_states():
    graph = META['graph']
    v = [mx.sym.var(n) for n in ('w0', 'g0', 'm0', 'w1', 'g1', 'm1')]
    sym = mx.sym.multi_mp_sgd_update(*v, lrs=(0.1, 0.2), wds=(0.0, 0.01), num_weights=2, name='up')
    assert sym.list_arguments() == graph['arguments'] and sym.list_auxiliary_states() == graph['aux']
    # the file lists the node's inputs in MXNet's (interleaved) order, both ways
    assert _node_input_names(json.loads(sym.tojson())) == _node_input_names(json.loads(graph['json']))
    loaded = mx.sym.load_json(graph['json'])
    assert loaded.list_arguments() == graph['arguments'] and loaded.list_auxiliary_states() == graph['aux']


def _node_input_names(doc):
    nodes = doc['nodes']
    return [nodes[src]['name'] for src, _, _ in nodes[-1]['inputs']]


def test_a_loaded_mxnet_graph_computes_the_update():
    loaded = mx.sym.load_json(META['graph']['json'])
    rng = np.random.RandomState(5)
    w16 = [rng.uniform(-1, 1, size=(3,)).astype(np.float16) for _ in range(2)]
    g16 = [rng.uniform(-1, 1, size=(3,)).astype(np.float16) for _ in range(2)]
    masters = [mx.nd.array(w, dtype='float32') for w in w16]
    args = {'w0': mx.nd.array(w16[0], dtype='float16'), 'g0': mx.nd.array(g16[0], dtype='float16'),
            'w1': mx.nd.array(w16[1], dtype='float16'), 'g1': mx.nd.array(g16[1], dtype='float16')}
    exe = loaded.bind(device.CTX, args, aux_states={'m0': masters[0], 'm1': masters[1]})
    outs = [o.asnumpy() for o in exe.forward()]
    for k, lr, wd in ((0, 0.1, 0.0), (1, 0.2, 0.01)):
        master = w16[k].astype(np.float32)
        lr, wd = np.float32(lr), np.float32(wd)
        want = (np.float32(1) - lr * wd) * master - lr * g16[k].astype(np.float32)
        np.testing.assert_allclose(masters[k].asnumpy(), want, rtol=1e-6)
        np.testing.assert_array_equal(outs[k], want.astype(np.float16))


def test_contrib_symbols_compose_adamw():
    w, g, m, v = (mx.sym.var(n) for n in ('w', 'g', 'm', 'v'))
    sym = mx.sym.contrib.adamw_update(w, g, m, v, 2.0, lr=0.1, eta=1.0, name='up')
    assert sym.list_arguments() == ['w', 'g'] and sym.list_auxiliary_states() == ['m', 'v']
    mean, var = mx.nd.zeros((2,)), mx.nd.zeros((2,))
    exe = sym.bind(device.CTX, {'w': mx.nd.array([1.0, 2.0]), 'g': mx.nd.array([0.5, -0.5])},
                   aux_states={'m': mean, 'v': var})
    got = exe.forward()[0].asnumpy()
    want = mx.nd.contrib.adamw_update(mx.nd.array([1.0, 2.0]), mx.nd.array([0.5, -0.5]), mx.nd.zeros((2,)),
                                      mx.nd.zeros((2,)), 2.0, lr=0.1, eta=1.0).asnumpy()
    np.testing.assert_array_equal(got, want)
    assert mean.asnumpy().tolist() == pytest.approx([0.1, -0.1])
    s16 = mx.sym.contrib.mp_adamw_update(w, g, m, v, mx.sym.var('w32'), mx.sym.var('s'), lr=0.1, eta=1.0)
    assert s16.list_auxiliary_states() == ['m', 'v', 'w32'] and s16.list_arguments() == ['w', 'g', 's']


# ---------------------------------------------------------------- bad input
def _two():
    return [mx.nd.ones((2, 3)), mx.nd.ones((2, 3))], [mx.nd.ones((2, 3)), mx.nd.ones((2, 3))]


@pytest.mark.parametrize('call,error,fragment', [
    (lambda w, g: mx.nd.multi_sgd_update(w[0], g[0], w[1], lrs=(0.1, 0.1), wds=(0, 0), num_weights=2),
     BindError, "multi_sgd_update with num_weights=2: missing inputs ['grad_1']"),
    (lambda w, g: mx.nd.multi_sgd_update(w[0], g[0], w[1], g[1], lrs=(0.1,), wds=(0,), num_weights=1),
     BindError, 'multi_sgd_update with num_weights=1 takes 2 inputs'),
    (lambda w, g: mx.nd.multi_sgd_mom_update(w[0], g[0], w[1], g[1], lrs=(0.1, 0.1), wds=(0, 0)),
     ParamError, 'multi_sgd_mom_update: 4 inputs are not 3 per weight (weight, grad, mom); pass num_weights'),
    (lambda w, g: mx.nd.multi_sgd_update(w[0], g[0], w[1], g[1], lrs=(0.1,), wds=(0, 0), num_weights=2),
     ParamError, "multi_sgd_update: parameter 'lrs' has 1 value, but num_weights=2"),
    (lambda w, g: mx.nd.multi_sgd_update(w[0], g[0], lrs=(0.1,), wds=(0, 0), num_weights=1),
     ParamError, "multi_sgd_update: parameter 'wds' has 2 values, but num_weights=1"),
    (lambda w, g: mx.nd.multi_sgd_update(w[0], g[0], lrs='abc', wds=(0,), num_weights=1),
     ParamError, "multi_sgd_update: parameter 'lrs' expects a tuple of finite numbers"),
    (lambda w, g: mx.nd._internal._multi_lamb_update(w[0], g[0], w[1], g[1], learning_rates=(0.1,), wds=(0,),
                                                      step_count=(1, 2)),
     ParamError, "_multi_lamb_update: parameter 'step_count' has 2 values, but num_tensors=1"),
    (lambda w, g: mx.nd.multi_sgd_update(w[0], g[0], lrs=(0.1,), wds=(0,), num_weights=0),
     ParamError, "parameter 'num_weights' must be at least 1"),
    (lambda w, g: mx.nd.multi_sgd_mom_update(w[0], g[0], mx.nd.ones((3,)), lrs=(0.1,), wds=(0,),
                                             num_weights=1),
     ShapeError, "multi_sgd_mom_update, weight 0 (inputs weight_0, grad_0, mom_0): sgd_mom_update: "
                 "input 'mom'"),
    (lambda w, g: mx.nd.multi_sgd_update(w[0], g[0], w[1].astype('float16'), g[1].astype('float16'),
                                         lrs=(0.1, 0.1), wds=(0, 0), num_weights=2),
     TypeInferError, 'input weight_1 is float16, but weight_0 is float32'),
    (lambda w, g: mx.nd.multi_mp_sgd_update(w[0].astype('float16'), g[0].astype('float16'),
                                            w[0].astype('float16'), lrs=(0.1,), wds=(0,), num_weights=1),
     TypeInferError, "'weight32' must be float32"),
    (lambda w, g: mx.nd.preloaded_multi_sgd_update(w[0], g[0], w[1], g[1], mx.nd.ones((3,)), mx.nd.ones((2,)),
                                                   num_weights=2),
     ShapeError, "preloaded_multi_sgd_update: input 'lrs' must hold one value per weight (num_weights=2)"),
    (lambda w, g: mx.nd.preloaded_multi_sgd_update(w[0], g[0], mx.nd.ones((1,), dtype='float64'),
                                                   mx.nd.ones((1,)), num_weights=1),
     TypeInferError, "preloaded_multi_sgd_update: input 'lrs' must be float32"),
    (lambda w, g: mx.nd.contrib.adamw_update(w[0], g[0], w[1], g[1], mx.nd.ones((1,), dtype='float64'),
                                             lr=0.1, eta=1.0),
     TypeInferError, "'rescale_grad'"),
    (lambda w, g: mx.nd.multi_sum_sq(w[0].astype('int32')), TypeInferError,
     'multi_sum_sq: the arrays must be'),
    (lambda w, g: mx.nd.multi_sum_sq(w[0], g[0].astype('float16')), TypeInferError,
     'input array_1 is float16'),
    (lambda w, g: mx.nd.multi_lars(*[mx.nd.ones((2,), dtype='float64')] * 4, eta=1, eps=0),
     TypeInferError, "multi_lars: input 'lrs' must be float32"),
    (lambda w, g: mx.nd.multi_lars(mx.nd.ones((2,)), mx.nd.ones((3,)), mx.nd.ones((2,)), mx.nd.ones((2,)),
                                   eta=1, eps=0), ShapeError, 'weights_sum_sq'),
    (lambda w, g: mx.nd.multi_lars(*[mx.nd.ones((2,))] * 4, eta=1), ParamError, "'eps' is missing"),
])
def test_bad_input_is_refused_clearly(call, error, fragment):
    with pytest.raises(error) as info:
        call(*_two())
    assert fragment in str(info.value)


def test_a_symbol_with_too_many_inputs_for_num_weights_is_refused():
    v = [mx.sym.var('x%d' % k) for k in range(5)]
    with pytest.raises(BindError, match=r'multi_sgd_update .* with num_weights=2 takes 4 inputs'):
        mx.sym.multi_sgd_update(*v, lrs=(0.1, 0.1), wds=(0, 0), num_weights=2)


def test_an_update_has_no_gradient():
    op = get('multi_sgd_update')
    p = op.parse_params({'lrs': '(0.1,)', 'wds': '(0,)'})
    with pytest.raises(TypeError, match='no gradient'):
        op.backward(p, OpEnv(cpu()), [np.ones(2)], [np.ones(2)] * 2, [np.ones(2)], [])
