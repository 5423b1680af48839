"""gluon.rnn (reflib/gluon/rnn/) against MXNet 1.9.1 (golden/gluon_rnn.json, from
golden/gen_gluon_rnn.py): every cell and fused layer on parameters set from a seeded numpy
RandomState -- parameter names and shapes, outputs and final states, gradients of every
parameter, of the input and of the begin states; hybridized as well; valid_length; the
layers against their own cells (``_unfuse``); the unrolled graphs' names and shapes; the
keys save_parameters writes; the errors.  Then reflib against itself: hybridized equals
imperative, and the fused layer equals the cells unrolled."""

import json
import os
import sys
import warnings

import numpy as np
import pytest

import reflib as mx
import reflib.gluon.rnn  # noqa: F401  (mx.gluon.rnn, whether or not gluon/__init__ imports it)
from reflib.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'golden'))
import gluon_rnn_cases as cases  # noqa: E402

with open(os.path.join(HERE, 'golden', 'gluon_rnn.json')) as _f:
    GOLDEN = json.load(_f)


def test_a_repeated_output_gets_the_gradient_of_both_uses():
    """A hybridized block that returns one value twice (every cell returns its new h as
    output *and* as state): the gradients of both places add up, as MXNet's CachedOp makes
    them (reflib/executor/cached_graph.py gives the repeat an identity of its own)."""
    class Twice(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            y = F.tanh(x)
            return y, y
    block = Twice()
    block.hybridize()
    x = mx.nd.ones((1,))
    x.attach_grad()
    with mx.autograd.record():
        first, second = block(x)
        (first + second).backward()
    assert np.isclose(x.grad.asnumpy()[0], 2 * (1 - np.tanh(1.) ** 2))


RESULTS = {}


def _results():
    """Every case once (on first use), a failing one as its exception."""
    if not RESULTS:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            for name, fn in cases.cases_of(mx).items():
                try:
                    RESULTS[name] = fn()
                except Exception as err:       # noqa: BLE001  (reported by the case's test)
                    RESULTS[name] = err
    return RESULTS


def _same(got, want, where):
    """Equal structure and values, numbers to float32 precision (the cases round to 5 decimals)."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), '%s: keys %s, MXNet %s' % (
            where, sorted(got) if isinstance(got, dict) else got, sorted(want))
        for key in want:
            _same(got[key], want[key], '%s[%r]' % (where, key))
    elif isinstance(want, list):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), '%s: %r, MXNet %r' % (where, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, '%s[%d]' % (where, i))
    elif isinstance(want, float) and not isinstance(got, bool):
        assert np.isclose(got, want, rtol=1e-5, atol=2e-5, equal_nan=True), '%s: reflib %r, MXNet %r' % (
            where, got, want)
    else:
        assert got == want, '%s: reflib %r, MXNet %r' % (where, got, want)


@pytest.mark.parametrize('case', sorted(GOLDEN))
def test_same_result_as_mxnet(case):
    got = _results()[case]
    if isinstance(got, Exception):
        raise got
    _same(json.loads(json.dumps(got)), GOLDEN[case], case)


def test_golden_has_every_case():
    assert set(GOLDEN) == set(cases.cases_of(mx))


def test_the_package_exports_what_its_modules_declare():
    from reflib.gluon.rnn import rnn_cell, rnn_layer
    assert sorted(mx.gluon.rnn.__all__) == sorted(rnn_cell.__all__ + rnn_layer.__all__)
    assert all(hasattr(mx.gluon.rnn, name) for name in mx.gluon.rnn.__all__)


# ------------------------------------------------------------------ reflib against itself
def _close(a, b, where):
    """Equal to float32 precision; the cases' values are rounded to 5 decimals, so a last
    digit may differ."""
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=2e-5, err_msg=where)


def _compare_runs(plain, hybrid):
    for key in ('out', 'states', 'dx', 'dstates'):
        if plain.get(key) is not None:
            _close(hybrid[key], plain[key], key)
    for name in plain['grads']:
        _close(hybrid['grads'][name], plain['grads'][name], name)


@pytest.mark.parametrize('make', ['_rnn', '_lstm', '_gru'])
def test_a_hybridized_layer_computes_what_the_imperative_one_does(make):
    def build(m):
        maker = getattr(cases, make)
        extra = {'activation': 'tanh'} if make == '_rnn' else {}
        return maker(m, num_layers=2, bidirectional=True, layout='NTC', **extra)
    plain = cases._layer_run(mx, build, layout='NTC')
    hybrid = cases._layer_run(mx, build, layout='NTC', hybridize=True)
    _compare_runs(plain, hybrid)


@pytest.mark.parametrize('make', ['_rnn_cell', '_lstm_cell', '_gru_cell', '_bidirectional'])
def test_a_hybridized_cell_computes_what_the_imperative_one_does(make):
    plain = cases._cell_run(mx, getattr(cases, make), layout='TNC')
    hybrid = cases._cell_run(mx, getattr(cases, make), layout='TNC', hybridize=True)
    _compare_runs(plain, hybrid)


@pytest.mark.parametrize('mode', ['rnn_relu', 'rnn_tanh', 'lstm', 'gru'])
def test_the_fused_layer_equals_its_cells_unrolled(mode):
    """Two bidirectional layers: outputs, final states and every gradient, the cells
    sharing the layer's parameters (_unfuse), states laid out (layer, direction)."""
    rnn = mx.gluon.rnn
    make = {'rnn_relu': lambda: rnn.RNN(3, 2, 'relu', bidirectional=True, prefix='f_'),
            'rnn_tanh': lambda: rnn.RNN(3, 2, 'tanh', bidirectional=True, prefix='f_'),
            'lstm': lambda: rnn.LSTM(3, 2, bidirectional=True, prefix='f_'),
            'gru': lambda: rnn.GRU(3, 2, bidirectional=True, prefix='f_')}[mode]
    layer = make()
    layer.initialize()
    rs = np.random.RandomState(3)
    x = mx.nd.array(rs.uniform(-1, 1, (4, 2, 5)))
    begin = [mx.nd.array(rs.uniform(-1, 1, info['shape'])) for info in layer.state_info(2)]
    layer(x, begin)
    cases._fill(mx, layer, 4)
    cells = layer._unfuse()
    # the cells' begin states: per layer and direction [h, (c)], from the layer's (L*D, N, H)
    per_cell = [[s[k] for s in begin] for k in range(begin[0].shape[0])]
    cell_begin = [s for states in per_cell for s in states]
    head = mx.nd.array(rs.uniform(-1, 1, (4, 2, 6)))
    results = []
    for run in (lambda: layer(x, begin), lambda: cells.unroll(4, x, cell_begin, layout='TNC', merge_outputs=True)):
        x.attach_grad()
        with mx.autograd.record():
            out, states = run()
            (out * head).sum().backward()
        grads = {name: p.grad().asnumpy().copy() for name, p in layer.collect_params().items()}
        results.append((out.asnumpy(), [s.asnumpy() for s in states], grads, x.grad.asnumpy().copy()))
    (f_out, f_states, f_grads, f_dx), (c_out, c_states, c_grads, c_dx) = results
    _close(f_out, c_out, 'output')
    _close(f_dx, c_dx, 'input gradient')
    for name in f_grads:
        _close(f_grads[name], c_grads[name], name)
    count = len(f_states)          # 1, or 2 for LSTM's h and c
    for j in range(count):
        _close(f_states[j], np.stack(c_states[j::count]), 'state %d' % j)


def test_parameters_flatten_into_the_operators_vector_in_mxnets_order():
    """The layer's output equals the RNN operator run on the vector laid out by hand:
    all weights (per layer, per direction, i2h then h2h), then all biases."""
    layer = mx.gluon.rnn.GRU(3, 2, bidirectional=True, input_size=4, prefix='g_')
    layer.initialize()
    cases._fill(mx, layer, 9)
    x = mx.nd.array(np.random.RandomState(1).uniform(-1, 1, (3, 2, 4)))
    p = {name[len('g_'):]: param.data().asnumpy().ravel() for name, param in layer.collect_params().items()}
    order = ['%s%d_%s_weight' % (d, l, s) for l in range(2) for d in 'lr' for s in ('i2h', 'h2h')]
    order += ['%s%d_%s_bias' % (d, l, s) for l in range(2) for d in 'lr' for s in ('i2h', 'h2h')]
    flat = mx.nd.array(np.concatenate([p[k] for k in order]))
    want = mx.nd.RNN(x, flat, mx.nd.zeros((4, 2, 3)), state_size=3, num_layers=2, bidirectional=True, mode='gru')
    _close(layer(x).asnumpy(), want.asnumpy(), 'output')


def test_states_come_back_only_when_given():
    layer = mx.gluon.rnn.LSTM(3, input_size=4)
    layer.initialize()
    x = mx.nd.ones((5, 2, 4))
    assert isinstance(layer(x), mx.nd.NDArray)
    out, states = layer(x, layer.begin_state(2))
    assert out.shape == (5, 2, 3) and [s.shape for s in states] == [(1, 2, 3), (1, 2, 3)]
    gru = mx.gluon.rnn.GRU(3, input_size=4)
    gru.initialize()
    out, states = gru(x, mx.nd.zeros((1, 2, 3)))       # one array for a single state
    assert len(states) == 1


def test_errors_name_the_culprit():
    rnn = mx.gluon.rnn
    with pytest.raises(MXNetError, match="layout 'TCN'"):
        rnn.LSTM(3, layout='TCN')
    with pytest.raises(MXNetError, match="mode 'rnn_sigmoid'"):
        rnn.RNN(3, activation='sigmoid')
    layer = rnn.LSTM(3, input_size=4, prefix='bad_')
    layer.initialize()
    with pytest.raises(MXNetError, match=r'bad.*state 1 must be \(1, 2, 3\), got \(1, 2, 4\)'):
        layer(mx.nd.ones((5, 2, 4)), [mx.nd.zeros((1, 2, 3)), mx.nd.zeros((1, 2, 4))])
    cell = rnn.GRUCell(3, prefix='g_')
    rnn.ZoneoutCell(cell)
    with pytest.raises(AssertionError, match="'g' is wrapped by a modifier"):
        cell.begin_state(2)
    with pytest.raises(AssertionError, match='unroll\\(length=4\\).*3 steps'):
        rnn.GRUCell(3).unroll(4, mx.nd.ones((2, 3, 5)))
    with pytest.raises(NotImplementedError, match='use unroll'):
        rnn.BidirectionalCell(rnn.GRUCell(3), rnn.GRUCell(3))(mx.nd.ones((2, 5)), [])


@pytest.mark.parametrize('bidirectional', [False, True])
def test_projection_trains_as_the_stack_of_lstmp_cells(bidirectional):
    """The fused LSTM with projection_size (MXNet 1.9.1 trains it only with cuDNN, so there
    is no CPU golden for training) against gluon.contrib's LSTMPCells on the same weights,
    differentiated operator by operator: outputs, final states and every gradient."""
    kwargs = dict(num_layers=2, layout='TNC', bidirectional=bidirectional, projection_size=2, prefix='p_')
    layer = mx.gluon.rnn.LSTM(3, input_size=4, **kwargs)
    stack = mx.gluon.rnn.HybridSequentialRNNCell(prefix='p_')
    with stack.name_scope():
        for i in range(2):
            cell = mx.gluon.contrib.rnn.LSTMPCell(3, 2, prefix='l%d_' % i)
            if bidirectional:
                cell = mx.gluon.rnn.BidirectionalCell(
                    cell, mx.gluon.contrib.rnn.LSTMPCell(3, 2, prefix='r%d_' % i))
            stack.add(cell)
    layer.initialize()
    stack.initialize()
    stack.unroll(1, mx.nd.ones((1, 2, 4)), layout='TNC')        # (the cells' deferred shapes)
    cases._fill(mx, layer, 3)
    mine, theirs = layer.collect_params(), stack.collect_params()
    assert sorted(mine.keys()) == sorted(theirs.keys())
    for name in mine.keys():
        theirs[name].set_data(mine[name].data())
    rs = np.random.RandomState(4)
    x = mx.nd.array(rs.uniform(-1, 1, (3, 2, 4)))
    head = mx.nd.array(rs.uniform(-1, 1, (3, 2, 2 * (1 + bidirectional))))
    with mx.autograd.record():
        out, (h, c) = layer(x, layer.begin_state(2))
        (out * head).sum().backward()
    with mx.autograd.record():
        cell_out, cell_states = stack.unroll(3, x, layout='TNC', merge_outputs=True)
        (cell_out * head).sum().backward()
    _close(out.asnumpy(), cell_out.asnumpy(), 'output')
    _close(h.asnumpy(), np.stack([s.asnumpy() for s in cell_states[0::2]]), 'h')
    _close(c.asnumpy(), np.stack([s.asnumpy() for s in cell_states[1::2]]), 'c')
    for name in mine.keys():
        _close(mine[name].grad().asnumpy(), theirs[name].grad().asnumpy(), name)


def test_parameters_saved_by_the_layer_load_into_its_cells(tmp_path):
    """save_parameters writes MXNet's '_unfused.<layer>.<direction>_cell.' keys: the names a
    stack of cells with the same structure has."""
    layer = mx.gluon.rnn.LSTM(3, 2, bidirectional=True, input_size=4)
    layer.initialize()
    path = str(tmp_path / 'lstm.params')
    layer.save_parameters(path)
    other = mx.gluon.rnn.LSTM(3, 2, bidirectional=True, input_size=4)
    other.load_parameters(path)
    for a, b in zip(layer.collect_params().values(), other.collect_params().values()):
        assert (a.data().asnumpy() == b.data().asnumpy()).all()


@pytest.mark.parametrize('bidirectional', [False, True])
def test_use_sequence_length_equals_the_cells_with_valid_length(bidirectional):
    """The layers' use_sequence_length (MXNet 1.9.1 runs it only with cuDNN, so there is no
    CPU golden) against the cells unrolled with valid_length: padded steps give zeros, each
    sample's final states are those of its last real step (backwards: of the first step)."""
    layer = mx.gluon.rnn.LSTM(3, 2, bidirectional=bidirectional, input_size=4, use_sequence_length=True,
                              prefix='q_')
    layer.initialize()
    cases._fill(mx, layer, 2)
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (4, 2, 4)))
    lengths = mx.nd.array([2, 4])
    out, (h, c) = layer(x, layer.begin_state(2), lengths)
    cell_out, cell_states = layer._unfuse().unroll(4, x, layout='TNC', merge_outputs=True, valid_length=lengths)
    _close(out.asnumpy(), cell_out.asnumpy(), 'output')
    assert not out.asnumpy()[2:, 0].any()
    _close(h.asnumpy(), np.stack([s.asnumpy() for s in cell_states[0::2]]), 'h')
    _close(c.asnumpy(), np.stack([s.asnumpy() for s in cell_states[1::2]]), 'c')
