"""Tests for the fused ``RNN`` operator (reflib/operator/rnn.py), ``mx.rnn.FusedRNNCell``
(reflib/rnn/fused.py) and ``mx.init.FusedRNN``.

* golden values from MXNet 1.9.1 (tests/golden/gen_rnn_fused.py, rnn_fused.npz): the
  operator's outputs and the gradients of data, parameters and initial states for every
  mode, 1 to 3 layers, one or two directions, with and without state outputs; the fused
  cell's unrolled outputs and states, and those of MXNet's ``unfuse()`` stack, on the same
  weights; the layout ``unpack_weights`` reads; the FusedRNN initializer's values;
* finite differences (float64) for every mode, bidirectional, 2 layers, the states, the
  sequence lengths, clipping and dropout;
* what MXNet's CPU kernel cannot show (it ignores ``lstm_state_clip_*`` and
  ``sequence_length``): checked against independent computations here;
* shape inference (sizes MXNet infers, written down from the oracle) and bad input.
"""

import json
import warnings

import numpy as np
import pytest

import reflib as mx
from reflib.base import ParamError, ShapeError
from reflib.context import cpu
from reflib.operator import OpEnv
from device import get
from reflib.operator.rnn import param_blocks, _Reserve
from reflib.test_utils import check_op_gradient, op_forward
from op_golden import GoldenCases, infer_shapes

GOLDEN = GoldenCases('rnn_fused.npz')
ARRAYS, META = GOLDEN.arrays, GOLDEN.meta
GATES = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}
MODES = ['rnn_tanh', 'rnn_relu', 'lstm', 'gru']


def rnn_inputs(mode, layers=1, bidirectional=False, steps=3, batch=2, features=3, hidden=2, seed=0,
               projection=None):
    """float64 data, parameters and states of one RNN call, weights small enough not to saturate."""
    rng = np.random.default_rng(seed)
    d = 2 if bidirectional else 1
    size = param_blocks(mode, layers, d, features, hidden, projection)[1]
    xs = [rng.uniform(-1, 1, (steps, batch, features)), rng.uniform(-0.6, 0.6, (size,)),
          rng.uniform(-0.5, 0.5, (layers * d, batch, projection or hidden))]
    if mode == 'lstm':
        xs.append(rng.uniform(-0.5, 0.5, (layers * d, batch, hidden)))
    return xs


def rnn_params(mode, layers=1, bidirectional=False, hidden=2, **extra):
    return dict(state_size=hidden, num_layers=layers, mode=mode, bidirectional=bidirectional, **extra)


# ============================================================ golden values from MXNet
@pytest.mark.parametrize('i', GOLDEN.indices(), ids=GOLDEN.ids())
def test_golden_case(i):
    # float32 through up to 3 layers x 3 steps of gemms and gates, each summed in another
    # order than MXNet's oneDNN kernel: a few float32 ulps, hence rtol 1e-4 (atol 1e-6)
    GOLDEN.check(i, rtol=1e-4, atol=1e-6)


def test_golden_covers_every_mode_and_the_options():
    assert GOLDEN.operator_names() == {'RNN'}
    attrs = [c['attrs'] for c in GOLDEN.cases]
    assert {a['mode'] for a in attrs} == set(MODES)
    for mode in MODES:
        mine = [a for a in attrs if a['mode'] == mode]
        assert any(a.get('bidirectional') == 'True' and a['num_layers'] == '2' and a.get('state_outputs') == 'True'
                   for a in mine)
        assert any(a.get('state_outputs', 'False') == 'False' for a in mine)
    assert all(c['grad'] for c in GOLDEN.cases)


# ============================================================ finite differences
@pytest.mark.parametrize('mode', MODES)
def test_gradients_two_bidirectional_layers_with_states_in_and_out(mode):
    xs = rnn_inputs(mode, layers=2, bidirectional=True)
    check_op_gradient('RNN', xs, rnn_params(mode, 2, True, state_outputs=True), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize('mode', MODES)
def test_gradients_one_layer_output_only(mode):
    check_op_gradient('RNN', rnn_inputs(mode, steps=4, seed=1), rnn_params(mode), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize('mode', ['lstm', 'gru', 'rnn_tanh'])
def test_gradients_with_sequence_lengths(mode):
    xs = rnn_inputs(mode, layers=2, bidirectional=True, batch=3, seed=2) + [np.array([3.0, 1.0, 2.0])]
    params = rnn_params(mode, 2, True, state_outputs=True, use_sequence_length=True)
    grads = check_op_gradient('RNN', xs, params, grad_inputs=range(len(xs) - 1), rtol=1e-5, atol=1e-7)
    assert not grads[-1].any()                      # the lengths get no gradient


def test_gradients_with_clipped_cell_states():
    xs = rnn_inputs('lstm', layers=2, bidirectional=True, seed=3)
    params = rnn_params('lstm', 2, True, state_outputs=True, lstm_state_clip_min=-0.1, lstm_state_clip_max=0.12)
    outs, _ = op_forward('RNN', xs, params)
    cells = np.abs(outs[2])
    assert (np.isclose(cells, 0.1) | np.isclose(cells, 0.12)).any()      # some states are clipped
    check_op_gradient('RNN', xs, params, rtol=1e-5, atol=1e-7)


def test_gradients_with_an_lstm_projection():
    # MXNet 1.9.1 trains the projection only with cuDNN; these are its gradients by finite
    # differences, through two bidirectional layers whose upper one reads the projected states
    xs = rnn_inputs('lstm', layers=2, bidirectional=True, hidden=3, seed=6, projection=2)
    check_op_gradient('RNN', xs, rnn_params('lstm', 2, True, hidden=3, projection_size=2, state_outputs=True),
                      rtol=1e-5, atol=1e-7)


def test_gradients_with_an_lstm_projection_and_sequence_lengths():
    xs = rnn_inputs('lstm', layers=1, bidirectional=True, batch=3, hidden=3, seed=7, projection=2)
    xs.append(np.array([3.0, 1.0, 2.0]))
    params = rnn_params('lstm', 1, True, hidden=3, projection_size=2, state_outputs=True, use_sequence_length=True)
    check_op_gradient('RNN', xs, params, grad_inputs=range(len(xs) - 1), rtol=1e-5, atol=1e-7)


def test_gradients_with_dropout_between_layers():
    xs = rnn_inputs('gru', layers=3, seed=4)
    check_op_gradient('RNN', xs, rnn_params('gru', 3, p=0.4, state_outputs=True), rtol=1e-5, atol=1e-7)


# ============================================================ what MXNet's CPU kernel does not show
def test_sequence_lengths_equal_running_each_sample_alone():
    mode = 'lstm'
    xs = rnn_inputs(mode, layers=2, bidirectional=True, steps=4, batch=3, seed=5)
    lengths = np.array([2.0, 4.0, 1.0])
    params = rnn_params(mode, 2, True, state_outputs=True)
    out, h, c = op_forward('RNN', xs + [lengths], dict(params, use_sequence_length=True))[0][:3]
    for b, n in enumerate(lengths.astype(int)):
        alone = [xs[0][:n, b:b + 1], xs[1], xs[2][:, b:b + 1], xs[3][:, b:b + 1]]
        want_out, want_h, want_c = op_forward('RNN', alone, params)[0][:3]
        np.testing.assert_allclose(out[:n, b:b + 1], want_out, rtol=1e-12)
        assert not out[n:, b].any()                 # padding steps give zeros
        np.testing.assert_allclose(h[:, b:b + 1], want_h, rtol=1e-12)
        np.testing.assert_allclose(c[:, b:b + 1], want_c, rtol=1e-12)


def _lstm_reference(x, flat, h, c, hidden, low, high):
    """One forward LSTM layer written out step by step, the cell state clipped."""
    features, g = x.shape[2], 4 * hidden
    wi = flat[:g * features].reshape(g, features)
    wh = flat[g * features:g * (features + hidden)].reshape(g, hidden)
    bi = flat[g * (features + hidden):g * (features + hidden + 1)]
    bh = flat[g * (features + hidden + 1):]

    def sig(v):
        return 1 / (1 + np.exp(-v))
    outs = []
    for t in range(x.shape[0]):
        pre = x[t] @ wi.T + bi + h @ wh.T + bh
        i, f, cand, o = (pre[:, k * hidden:(k + 1) * hidden] for k in range(4))
        c = np.minimum(np.maximum(sig(f) * c + sig(i) * np.tanh(cand), low), high)
        h = sig(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs), h, c


def test_clipping_bounds_the_cell_state_as_written_out():
    xs = rnn_inputs('lstm', steps=5, seed=6)
    xs[1] *= 3
    params = rnn_params('lstm', state_outputs=True, lstm_state_clip_min=-0.2, lstm_state_clip_max=0.25)
    out, h, c = op_forward('RNN', xs, params)[0][:3]
    want_out, want_h, want_c = _lstm_reference(xs[0], xs[1], xs[2][0], xs[3][0], 2, -0.2, 0.25)
    np.testing.assert_allclose(out, want_out, rtol=1e-12)
    np.testing.assert_allclose(c[0], want_c, rtol=1e-12)
    assert c.min() >= -0.2 and c.max() <= 0.25
    unclipped = op_forward('RNN', xs, rnn_params('lstm', state_outputs=True))[0][2]
    assert np.abs(unclipped).max() > 0.25


def test_clip_nan_stops_a_nan_cell_state():
    xs = rnn_inputs('lstm', steps=1, seed=7)         # one step: the final state is the clipped NaN
    xs[3][0, 1, 0] = np.nan
    clip = dict(lstm_state_clip_min=-0.3, lstm_state_clip_max=0.3)
    c_nan = op_forward('RNN', xs, rnn_params('lstm', state_outputs=True, **clip))[0][2]
    assert np.isnan(c_nan[0, 1, 0])                 # NaN propagates by default
    c_stop = op_forward('RNN', xs, rnn_params('lstm', state_outputs=True, lstm_state_clip_nan=True, **clip))[0]
    assert np.isfinite(c_stop[0]).all() and np.isfinite(c_stop[2]).all()
    assert c_stop[2][0, 1, 0] == -0.3               # fmax/fmin pass over the NaN: the lower bound


def test_dropout_acts_in_training_only_and_scales_what_it_keeps():
    xs = [x.astype(np.float32) for x in rnn_inputs('rnn_tanh', layers=2, steps=20, batch=10, hidden=5, seed=8)]
    plain = op_forward('RNN', xs, rnn_params('rnn_tanh', 2, hidden=5))[0][0]
    params = rnn_params('rnn_tanh', 2, hidden=5, p=0.5)
    np.testing.assert_array_equal(op_forward('RNN', xs, params, is_train=False)[0][0], plain)
    outs = op_forward('RNN', xs, params, is_train=True)[0]
    assert not np.allclose(outs[0], plain)
    p = get('RNN').parse_params(params)
    mask = _Reserve(p, 20, 10, outs[-1])['mask', 0]
    assert set(np.unique(mask)) == {0.0, 2.0}
    assert 0.4 < (mask == 0).mean() < 0.6


# ============================================================ shapes and bad input
def test_shape_inference_fills_parameters_and_states_from_data():
    # the sizes MXNet 1.9.1 infers for data (5, 3, 7) and state_size 4
    ins, outs = infer_shapes('RNN', dict(state_size=4, num_layers=2, mode='lstm', state_outputs=True),
                             [(5, 3, 7), None, None, None])
    assert ins == [(5, 3, 7), (368,), (2, 3, 4), (2, 3, 4)]
    assert outs[:3] == [(5, 3, 4), (2, 3, 4), (2, 3, 4)]
    ins, outs = infer_shapes('RNN', dict(state_size=4, num_layers=2, mode='lstm', bidirectional=True),
                             [(5, 3, 7), None, None, None])
    assert ins[1:] == [(864,), (4, 3, 4), (4, 3, 4)] and outs[0] == (5, 3, 8)
    ins, outs = infer_shapes('RNN', dict(state_size=4, num_layers=2, mode='gru', state_outputs=True),
                             [(5, 3, 7), None, None])
    assert ins[1:] == [(276,), (2, 3, 4)] and outs[:2] == [(5, 3, 4), (2, 3, 4)]
    ins, outs = infer_shapes('RNN', dict(state_size=4, num_layers=2, mode='rnn_tanh', bidirectional=True),
                             [(5, 3, 7), None, None])
    assert ins[1:] == [(216,), (4, 3, 4)] and outs[0] == (5, 3, 8)
    ins, _ = infer_shapes('RNN', dict(state_size=4, num_layers=1, mode='gru', use_sequence_length=True),
                          [(5, 3, 7), None, None, None])
    assert ins[1:] == [(156,), (1, 3, 4), (3,)]
    ins, outs = infer_shapes('RNN', dict(state_size=4, num_layers=1, mode='lstm', projection_size=2,
                                         state_outputs=True), [(5, 3, 7), None, None, None])
    assert ins[1:] == [(184,), (1, 3, 2), (1, 3, 4)] and outs[:3] == [(5, 3, 2), (1, 3, 2), (1, 3, 4)]


def test_names_of_inputs_and_outputs():
    data = mx.sym.Variable('data')
    lstm = mx.sym.RNN(data, state_size=4, num_layers=2, mode='lstm', state_outputs=True, name='r')
    assert lstm.list_arguments() == ['data', 'r_parameters', 'r_state', 'r_state_cell']
    assert lstm.list_outputs() == ['r_output', 'r_state_output', 'r_statecell_output']
    gru = mx.sym.RNN(data, state_size=4, num_layers=1, mode='gru', use_sequence_length=True, name='g')
    assert gru.list_arguments() == ['data', 'g_parameters', 'g_state', 'g_sequence_length']
    assert gru.list_outputs() == ['g_output']


def test_the_begin_state_batch_comes_from_the_data():
    cell = mx.rnn.FusedRNNCell(3, num_layers=2, mode='gru', get_next_state=True)
    out, states = cell.unroll(4, mx.sym.Variable('data'), layout='TNC', merge_outputs=True)
    _, out_shapes, _ = mx.sym.Group([out] + states).infer_shape(data=(4, 5, 6))
    assert out_shapes == [(4, 5, 3), (2, 5, 3)]


def _forward(params, inputs):
    op = get('RNN')
    return op.forward(op.parse_params(params), OpEnv(cpu(), is_train=False), inputs, [])


def test_bad_input_is_refused_with_a_clear_message():
    xs = [x.astype(np.float32) for x in rnn_inputs('lstm')]
    params = rnn_params('lstm')
    with pytest.raises(ShapeError, match=r"RNN: input 'parameters' must have shape \(56,\) for data of "
                                         r"shape \(3,2,3\), got \(55,\)"):
        _forward(params, [xs[0], xs[1][:-1], xs[2], xs[3]])
    with pytest.raises(ShapeError, match=r"RNN: input 'state_cell' must have shape \(1,2,2\)"):
        _forward(params, xs[:3] + [xs[3][:, :1]])
    with pytest.raises(ShapeError, match="RNN: input 'data' must be 3-d"):
        _forward(params, [xs[0][0]] + xs[1:])
    with pytest.raises(ShapeError, match="RNN: input 'data' must be 3-d"):
        infer_shapes('RNN', params, [(3, 2), None, None, None])
    with pytest.raises(ShapeError, match="'parameters' must have shape"):
        infer_shapes('RNN', params, [(3, 2, 3), (50,), None, None])
    with pytest.raises(ParamError, match='lstm_state_clip_min and lstm_state_clip_max go together'):
        _forward(dict(params, lstm_state_clip_min=-1.0), xs)
    with pytest.raises(ParamError, match="projection_size=1 is for mode='lstm' only, got mode='gru'"):
        _forward(dict(rnn_params('gru'), projection_size=1), [x.astype(np.float32) for x in rnn_inputs('gru')])
    with pytest.raises(ShapeError, match=r"'sequence_length' must hold whole numbers in \[1, 3\]"):
        _forward(dict(params, use_sequence_length=True), xs + [np.array([4.0, 1.0], np.float32)])
    with pytest.raises(ParamError, match="RNN: parameter 'mode'"):
        get('RNN').parse_params(dict(params, mode='lstmx'))
    with pytest.raises(ParamError, match="RNN: parameter 'state_size' must be at least 1"):
        get('RNN').parse_params(dict(params, state_size=0))
    with pytest.raises(ParamError, match="RNN: required parameter 'mode'"):
        get('RNN').parse_params(dict(state_size=2, num_layers=1))


def test_float32_stays_float32_and_nd_rnn_runs():
    xs = [mx.nd.array(x) for x in rnn_inputs('gru', layers=2)]
    out = mx.nd.RNN(*xs, state_size=2, num_layers=2, mode='gru')
    assert out.dtype == np.float32 and out.shape == (3, 2, 2)


# ============================================================ FusedRNNCell
def _cell_case(i):
    meta = META['cells'][i]
    cell = mx.rnn.FusedRNNCell(2, num_layers=meta['num_layers'], mode=meta['mode'],
                               bidirectional=meta['bidirectional'], get_next_state=True, prefix=meta['prefix'])
    return meta, cell


def _run(sym, feed):
    exe = sym.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in feed.items()})
    return [o.asnumpy() for o in exe.forward(is_train=False)]


@pytest.mark.parametrize('i', range(len(META['cells'])),
                         ids=['%(mode)s-%(num_layers)d-bi%(bidirectional)s' % c for c in META['cells']])
def test_fused_cell_and_its_unfused_stack_give_mxnets_numbers(i):
    meta, cell = _cell_case(i)
    prefix, n_states = meta['prefix'], 2 if meta['mode'] == 'lstm' else 1
    assert [dict(s, shape=list(s['shape'])) for s in cell.state_info] == meta['state_info']
    data, vec = ARRAYS['u%d/data' % i], ARRAYS['u%d/parameters' % i]
    begin = [ARRAYS['u%d/begin%d' % (i, j)] for j in range(n_states)]

    out, states = cell.unroll(3, mx.sym.Variable('data'), layout='TNC', merge_outputs=True,
                              begin_state=[mx.sym.Variable('begin%d' % j) for j in range(n_states)])
    fused = mx.sym.Group([out] + states)
    assert fused.list_arguments() == meta['fused_arguments']
    assert fused.list_outputs() == meta['fused_outputs']
    feed = {'data': data, prefix + 'parameters': vec}
    feed.update({'begin%d' % j: s for j, s in enumerate(begin)})
    for k, got in enumerate(_run(fused, feed)):
        np.testing.assert_allclose(got, ARRAYS['u%d/fused_out%d' % (i, k)], rtol=1e-5, atol=1e-6)

    # unpack_weights reads the flat vector where MXNet's does, in MXNet's order
    counting = cell.unpack_weights({prefix + 'parameters': mx.nd.array(np.arange(vec.size, dtype=np.float32))})
    assert [[name, int(a.asnumpy().reshape(-1)[0]), list(a.shape)] for name, a in counting.items()] == \
        meta['unpacked']
    unpacked = cell.unpack_weights({prefix + 'parameters': mx.nd.array(vec)})
    packed = cell.pack_weights(unpacked)
    np.testing.assert_array_equal(packed[prefix + 'parameters'].asnumpy(), vec)

    stack = cell.unfuse()
    assert [[type(c).__name__, c._prefix] for c in stack._cells] == meta['stack']
    d = 2 if meta['bidirectional'] else 1
    names = ['ub_%d_%d_%d' % (layer, direction, j) for layer in range(meta['num_layers'])
             for direction in range(d) for j in range(n_states)]
    u_out, u_states = stack.unroll(3, mx.sym.Variable('data'), begin_state=[mx.sym.Variable(n) for n in names],
                                   layout='TNC', merge_outputs=True)
    flat_states = [s for group in u_states for s in (group if isinstance(group, list) else [group])]
    unfused = mx.sym.Group([u_out] + flat_states)
    assert unfused.list_arguments() == meta['unfused_arguments']
    feed = {'data': data}
    feed.update({n: begin[int(n[-1])][int(n[3]) * d + int(n[5])] for n in names})
    feed.update({k: v.asnumpy() for k, v in stack.pack_weights(dict(unpacked)).items()})
    got = _run(unfused, {k: v for k, v in feed.items() if k in unfused.list_arguments()})
    for k, value in enumerate(got):
        np.testing.assert_allclose(value, ARRAYS['u%d/unfused_out%d' % (i, k)], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[0], ARRAYS['u%d/fused_out0' % i], rtol=1e-5, atol=1e-6)


def test_unroll_ntc_builds_mxnets_graph():
    want = META['unfuse_dropout']
    cell = mx.rnn.FusedRNNCell(3, num_layers=3, mode='lstm', bidirectional=True, dropout=0.25)
    with pytest.warns(UserWarning, match='TNC'):
        out, states = cell.unroll(5, mx.sym.Variable('data'), merge_outputs=True)
    nodes = [[n['op'], n['name'], n.get('attrs', {})] for n in json.loads(out.tojson())['nodes']]
    strip = [[op, name.rstrip('0123456789') if op == 'SwapAxis' else name, attrs] for op, name, attrs in nodes]
    assert strip == [[op, name.rstrip('0123456789') if op == 'SwapAxis' else name, attrs]
                     for op, name, attrs in want['ntc_nodes']]
    assert states == [] and out.infer_shape(data=(2, 5, 6))[1] == [tuple(s) for s in want['ntc_shapes']]
    assert out.attr_dict()['lstm_parameters']['__init__'] == want['initializer_attr']

    stack = cell.unfuse()
    assert [[type(c).__name__, c._prefix] + ([c.dropout] if isinstance(c, mx.rnn.DropoutCell) else [])
            for c in stack._cells] == want['stack']
    assert [[c._cells[0]._prefix, c._cells[1]._prefix, c._output_prefix] for c in stack._cells
            if isinstance(c, mx.rnn.BidirectionalCell)] == want['bi_prefixes']


def test_unroll_a_list_with_next_states():
    want = META['unfuse_dropout']
    cell = mx.rnn.FusedRNNCell(2, num_layers=1, mode='gru', get_next_state=True, prefix='g_')
    outs, states = cell.unroll(2, [mx.sym.Variable('x0'), mx.sym.Variable('x1')], layout='TNC')
    # merge_outputs=None keeps the operator's one output, even for a list of inputs (as MXNet)
    assert isinstance(outs, mx.sym.Symbol) and [outs.list_outputs()] == want['list_outputs']
    split, _ = cell.unroll(2, [mx.sym.Variable('x0'), mx.sym.Variable('x1')], layout='TNC', merge_outputs=False)
    assert len(split) == 2 and split[0].infer_shape(x0=(4, 3), x1=(4, 3))[1] == [(4, 2)]
    assert [s.list_outputs() for s in states] == want['list_states']
    assert [s.attr('__layout__') for s in states] == want['state_attrs']
    with pytest.raises(NotImplementedError, match='unroll'):
        cell(mx.sym.Variable('x'), cell.begin_state())


def test_fused_cell_trains_with_the_unfused_gradients():
    # the fused layer's gradients, unpacked, equal the unfused stack's (independent graphs)
    cell = mx.rnn.FusedRNNCell(2, num_layers=2, mode='lstm', bidirectional=True, prefix='f_')
    out, _ = cell.unroll(3, mx.sym.Variable('data'), layout='TNC', merge_outputs=True)
    stack = cell.unfuse()
    u_out, _ = stack.unroll(3, mx.sym.Variable('data'), layout='TNC', merge_outputs=True)
    rng = np.random.default_rng(9)
    data = rng.uniform(-1, 1, (3, 2, 3)).astype(np.float32)
    head = rng.normal(size=(3, 2, 4)).astype(np.float32)
    shapes = dict(zip(out.list_arguments(), out.infer_shape(data=data.shape)[0]))
    vec = rng.uniform(-0.5, 0.5, shapes['f_parameters']).astype(np.float32)

    exe = out.simple_bind(mx.cpu(), data=data.shape)
    exe.arg_dict['data'][:] = data
    exe.arg_dict['f_parameters'][:] = vec
    exe.forward(is_train=True)
    exe.backward([mx.nd.array(head)])
    fused_grads = cell.unpack_weights({'f_parameters': exe.grad_dict['f_parameters']})

    u_exe = u_out.simple_bind(mx.cpu(), data=data.shape)
    u_exe.arg_dict['data'][:] = data
    for name, value in stack.pack_weights(cell.unpack_weights({'f_parameters': mx.nd.array(vec)})).items():
        u_exe.arg_dict[name][:] = value
    u_exe.forward(is_train=True)
    u_exe.backward([mx.nd.array(head)])
    np.testing.assert_allclose(u_exe.outputs[0].asnumpy(), exe.outputs[0].asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(u_exe.grad_dict['data'].asnumpy(), exe.grad_dict['data'].asnumpy(),
                               rtol=1e-4, atol=1e-6)
    unfused_grads = stack.unpack_weights({k: v for k, v in u_exe.grad_dict.items() if k != 'data'})
    assert set(unfused_grads) == set(fused_grads)
    for name, grad in fused_grads.items():
        np.testing.assert_allclose(unfused_grads[name].asnumpy(), grad.asnumpy(), rtol=1e-4, atol=1e-6,
                                   err_msg=name)


def test_bad_cell_arguments():
    with pytest.raises(ValueError, match='mode must be one of'):
        mx.rnn.FusedRNNCell(2, mode='LSTM')
    cell = mx.rnn.FusedRNNCell(2, mode='gru')
    with pytest.raises(ValueError, match='fits no input size'):
        cell.unpack_weights({'gru_parameters': mx.nd.zeros((7,))})
    with pytest.raises(ValueError, match='unsupported layout'):
        cell.unroll(2, mx.sym.Variable('x'), layout='NCT')


# ============================================================ mx.init.FusedRNN
def test_fused_rnn_initializer_gives_mxnets_values():
    cell = mx.rnn.FusedRNNCell(2, num_layers=2, mode='lstm', bidirectional=True, prefix='q_')
    out, _ = cell.unroll(3, mx.sym.Variable('data'), layout='TNC', merge_outputs=True)
    shapes = dict(zip(out.list_arguments(), out.infer_shape(data=(3, 2, 3))[0]))
    arr = mx.nd.zeros(shapes['q_parameters'])
    mx.init.Constant(0.25)(mx.init.InitDesc('q_parameters', attrs=out.attr_dict()['q_parameters']), arr)
    np.testing.assert_array_equal(arr.asnumpy(), ARRAYS['init/global_constant'])

    own = mx.init.FusedRNN(mx.init.Constant(-0.5), 2, 1, 'lstm', False, forget_bias=2.0)
    assert own.dumps() == META['initializer']['dumps']
    arr = mx.nd.zeros(((3 + 2 + 2) * 8,))
    own._init_weight(mx.init.InitDesc('x_parameters', global_init=mx.init.One()), arr)
    np.testing.assert_array_equal(arr.asnumpy(), ARRAYS['init/own_constant'])
    # rebuilt from its JSON (MXNet 1.9.1 fails here), it fills the same numbers
    again = mx.nd.zeros(arr.shape)
    mx.init.One()(mx.init.InitDesc('x_parameters', attrs={'__init__': own.dumps()}), again)
    np.testing.assert_array_equal(again.asnumpy(), arr.asnumpy())

    gru = mx.init.FusedRNN(None, 2, 1, 'gru', False)
    arr = mx.nd.zeros(((3 + 2 + 2) * 6,))
    mx.init.One()(mx.init.InitDesc('g_parameters', attrs={'__init__': gru.dumps()}), arr)
    np.testing.assert_array_equal(arr.asnumpy(), ARRAYS['init/gru_global_one'])


def test_module_initializes_a_fused_layer_through_its_attribute():
    cell = mx.rnn.FusedRNNCell(3, num_layers=1, mode='lstm', forget_bias=0.5, prefix='m_')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        out, _ = cell.unroll(4, mx.sym.Variable('data'), merge_outputs=True)
    mod = mx.mod.Module(mx.sym.MakeLoss(mx.sym.sum(out)), label_names=None)
    mod.bind([('data', (2, 4, 5))])
    mod.init_params(mx.init.Uniform(0.1))
    args = cell.unpack_weights(mod.get_params()[0])
    np.testing.assert_array_equal(args['m_l0_i2h_f_bias'].asnumpy(), 0.5)
    np.testing.assert_array_equal(args['m_l0_h2h_f_bias'].asnumpy(), 0.5)
    assert not args['m_l0_i2h_i_bias'].asnumpy().any()
    weight = args['m_l0_i2h_c_weight'].asnumpy()
    assert np.abs(weight).max() <= 0.1 and weight.std() > 0.01


def test_rnn_checkpoints_hold_the_per_gate_arrays(tmp_path):
    cell = mx.rnn.FusedRNNCell(2, num_layers=2, mode='gru', bidirectional=True, prefix='k_')
    out, _ = cell.unroll(3, mx.sym.Variable('data'), layout='TNC', merge_outputs=True)
    size = out.infer_shape(data=(3, 2, 4))[0][1][0]
    vec = mx.nd.array(np.random.default_rng(10).uniform(-1, 1, size))
    prefix = str(tmp_path / 'fused')
    mx.rnn.save_rnn_checkpoint(cell, prefix, 1, out, {'k_parameters': vec}, {})
    saved = mx.nd.load(prefix + '-0001.params')
    assert 'arg:k_r1_h2h_z_weight' in saved and 'arg:k_parameters' not in saved
    assert saved['arg:k_l1_i2h_r_weight'].shape == (2, 4)       # above the first layer: 2 directions x 2
    _, args, _ = mx.rnn.load_rnn_checkpoint(cell, prefix, 1)
    assert list(args) == ['k_parameters']
    np.testing.assert_array_equal(args['k_parameters'].asnumpy(), vec.asnumpy())
