"""Record golden values for the fused ``RNN`` operator and ``mx.rnn.FusedRNNCell`` from real
MXNet 1.9.1 (CPU):

    cd tests/golden && /tmp/mxv/bin/python gen_rnn_fused.py

It writes tests/golden/rnn_fused.npz holding

* the operator cases in CASES (op_cases.record_cases: inputs, forward outputs, head
  gradients and the gradients of data, parameters and the initial states);
* per cell configuration ``u<i>``: a random flat parameter vector, random data and begin
  states, the fused cell's unrolled output and final states, and the same computed by
  MXNet from ``unfuse()`` with the unpacked weights;
* ``meta``: the cases, and per configuration its cell arguments, the unpacked names in
  MXNet's order with where each lies in the flat vector, the arguments and outputs of the
  unrolled symbols and, for ``unfuse()``, the cells MXNet stacks (class and prefix); what
  unfuse() stacks with dropout, the graph of an NTC unroll, and mx.init.FusedRNN's values.
"""

import json
import os
import warnings

import numpy as np
import mxnet as mx

import op_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'rnn_fused.npz')

T, N, C, H = 3, 2, 3, 2


def rnn_inputs(mode, layers=1, bidirectional=False, steps=T, batch=N, features=C, hidden=H):
    """Input specs of one RNN case: data, parameters, state (and state_cell)."""
    d = 2 if bidirectional else 1
    gates = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}[mode] * hidden
    size = d * gates * ((features + hidden + 2) + (layers - 1) * (d * hidden + hidden + 2))
    specs = [(steps, batch, features), ((size,), 'small'), ((layers * d, batch, hidden), 'small')]
    if mode == 'lstm':
        specs.append(((layers * d, batch, hidden), 'small'))
    return specs


def case(mode, layers=1, bidirectional=False, **params):
    params = dict(state_size=H, num_layers=layers, mode=mode, **params)
    if bidirectional:
        params['bidirectional'] = True
    return ('RNN', params, rnn_inputs(mode, layers, bidirectional))


CASES = []
for _mode in ('rnn_tanh', 'rnn_relu', 'lstm', 'gru'):
    CASES.append(case(_mode, state_outputs=True))
    CASES.append(case(_mode, layers=2, bidirectional=True, state_outputs=True))
    CASES.append(case(_mode, layers=2))
    CASES.append(case(_mode, bidirectional=True))
CASES += [
    case('lstm', layers=3, state_outputs=True),
    case('gru', layers=2, bidirectional=True, p=0.0),
    # MXNet 1.9.1's CPU kernel (oneDNN) accepts the clip parameters and ignores them (without
    # oneDNN it refuses them: cuDNN only), so only bounds the cell states never reach are
    # recorded here; tests/test_rnn_fused.py checks what clipping does on its own
    case('lstm', state_outputs=True, lstm_state_clip_min=-50.0, lstm_state_clip_max=50.0),
    case('lstm', layers=2, bidirectional=True, lstm_state_clip_min=-40.0, lstm_state_clip_max=60.0,
         lstm_state_clip_nan=True),
]

# (mode, num_layers, bidirectional) of the FusedRNNCell configurations
CELLS = [('rnn_tanh', 1, False), ('rnn_relu', 2, False), ('lstm', 2, True), ('gru', 2, True),
         ('lstm', 1, False), ('gru', 1, False)]
CELL_H, CELL_C = 2, 3


def cell_case(i, mode, layers, bidirectional, arrays, rng):
    """A FusedRNNCell and its unfused stack in MXNet on the same weights and begin states."""
    d = 2 if bidirectional else 1
    prefix = '%s_' % mode
    fused = mx.rnn.FusedRNNCell(CELL_H, num_layers=layers, mode=mode, bidirectional=bidirectional,
                                get_next_state=True, prefix=prefix)
    data = mx.sym.Variable('data')
    n_states = 2 if mode == 'lstm' else 1
    begin = [mx.sym.Variable('begin%d' % j) for j in range(n_states)]
    f_out, f_states = fused.unroll(T, data, begin_state=begin, layout='TNC', merge_outputs=True)
    f_sym = mx.sym.Group([f_out] + f_states)

    x = rng.uniform(-1, 1, (T, N, CELL_C)).astype(np.float32)
    states = [rng.uniform(-0.5, 0.5, (layers * d, N, CELL_H)).astype(np.float32) for _ in range(n_states)]
    shapes = f_sym.infer_shape(data=x.shape)[0]
    size = dict(zip(f_sym.list_arguments(), shapes))[prefix + 'parameters'][0]
    vec = rng.uniform(-0.5, 0.5, (size,)).astype(np.float32)
    feed = {'data': x, prefix + 'parameters': vec}
    feed.update({'begin%d' % j: s for j, s in enumerate(states)})
    exe = f_sym.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in feed.items()})
    f_values = [o.asnumpy() for o in exe.forward(is_train=False)]

    unpacked = fused.unpack_weights({prefix + 'parameters': mx.nd.array(vec)})
    stack = fused.unfuse()
    # the stack's begin states: layer by layer, direction by direction, each cell's [h(, c)]
    u_begin, u_feed = [], {}
    for layer in range(layers):
        for direction in range(d):
            for j in range(n_states):
                name = 'ub_%d_%d_%d' % (layer, direction, j)
                u_begin.append(mx.sym.Variable(name))
                u_feed[name] = states[j][layer * d + direction]
    u_out, u_states = stack.unroll(T, data, begin_state=u_begin, layout='TNC', merge_outputs=True)
    u_flat_states = []
    for s in u_states:
        u_flat_states += s if isinstance(s, list) else [s]
    u_sym = mx.sym.Group([u_out] + u_flat_states)
    packed = stack.pack_weights(dict(unpacked))
    u_args = {'data': mx.nd.array(x)}
    u_args.update({k: mx.nd.array(v) for k, v in u_feed.items()})
    u_args.update({k: v for k, v in packed.items() if k in u_sym.list_arguments()})
    u_exe = u_sym.bind(mx.cpu(), u_args)
    u_values = [o.asnumpy() for o in u_exe.forward(is_train=False)]

    # the unfused final states in the fused layout: (L*D, N, H) per state kind
    u_as_fused = [np.stack(u_values[1 + j::n_states]) for j in range(n_states)]
    np.testing.assert_allclose(u_values[0], f_values[0], rtol=1e-4, atol=1e-5)
    for j in range(n_states):
        np.testing.assert_allclose(u_as_fused[j], f_values[1 + j], rtol=1e-4, atol=1e-5)

    arrays['u%d/data' % i] = x
    arrays['u%d/parameters' % i] = vec
    for j, s in enumerate(states):
        arrays['u%d/begin%d' % (i, j)] = s
    for k, v in enumerate(f_values):
        arrays['u%d/fused_out%d' % (i, k)] = v
    for k, v in enumerate(u_values):
        arrays['u%d/unfused_out%d' % (i, k)] = v
    # where each unpacked array lies in the flat vector: unpack 0, 1, 2, ... and read the first
    counting = fused.unpack_weights({prefix + 'parameters': mx.nd.arange(size)})
    layout = [[name, int(v.asnumpy().reshape(-1)[0]), list(v.shape)] for name, v in counting.items()]
    for name, start, shape in layout:
        assert np.array_equal(counting[name].asnumpy().reshape(-1), np.arange(start, start + np.prod(shape)))
        assert np.array_equal(unpacked[name].asnumpy().reshape(-1), vec[start:start + np.prod(shape)])
    return {'mode': mode, 'num_layers': layers, 'bidirectional': bidirectional, 'prefix': prefix,
            'unpacked': layout, 'fused_arguments': f_sym.list_arguments(),
            'fused_outputs': f_sym.list_outputs(), 'unfused_arguments': u_sym.list_arguments(),
            'unfused_outputs': u_sym.list_outputs(), 'state_info': [dict(s) for s in fused.state_info],
            'stack': [[type(c).__name__, c._prefix] for c in stack._cells]}


def describe_unfuse_with_dropout():
    """What unfuse() stacks for a 3-layer bidirectional LSTM with dropout, and the symbol of an
    NTC unroll without next states."""
    cell = mx.rnn.FusedRNNCell(3, num_layers=3, mode='lstm', bidirectional=True, dropout=0.25)
    stack = cell.unfuse()
    out, states = cell.unroll(5, mx.sym.Variable('data'), merge_outputs=True)
    gru = mx.rnn.FusedRNNCell(2, num_layers=1, mode='gru', get_next_state=True, prefix='g_')
    g_out, g_states = gru.unroll(2, [mx.sym.Variable('x0'), mx.sym.Variable('x1')], layout='TNC')
    return {'stack': [[type(c).__name__, c._prefix] + ([c.dropout] if hasattr(c, 'dropout') else [])
                      for c in stack._cells],
            'bi_prefixes': [[c._cells[0]._prefix, c._cells[1]._prefix, c._output_prefix]
                            for c in stack._cells if isinstance(c, mx.rnn.BidirectionalCell)],
            'ntc_nodes': [[n['op'], n['name'], n.get('attrs', {})] for n in json.loads(out.tojson())['nodes']],
            'ntc_states': len(states),
            'ntc_shapes': [list(s) for s in out.infer_shape(data=(2, 5, 6))[1]],
            'list_outputs': [o.list_outputs() for o in g_out], 'list_states': [s.list_outputs() for s in g_states],
            'state_attrs': [s.attr('__layout__') for s in g_states],
            'initializer_attr': out.attr_dict()['lstm_parameters']['__init__']}


def initializer_values(arrays):
    """mx.init.FusedRNN: through the cell's parameter attribute with Constant as the global
    initializer, and given its own init (forget bias 2)."""
    cell = mx.rnn.FusedRNNCell(2, num_layers=2, mode='lstm', bidirectional=True, prefix='q_')
    out, _ = cell.unroll(3, mx.sym.Variable('data'), layout='TNC', merge_outputs=True)
    shapes = dict(zip(out.list_arguments(), out.infer_shape(data=(3, 2, 3))[0]))
    arr = mx.nd.zeros(shapes['q_parameters'])
    desc = mx.init.InitDesc('q_parameters', attrs=out.attr_dict()['q_parameters'])
    mx.init.Constant(0.25)(desc, arr)
    arrays['init/global_constant'] = arr.asnumpy()
    own = mx.init.FusedRNN(mx.init.Constant(-0.5), 2, 1, 'lstm', False, forget_bias=2.0)
    arr = mx.nd.zeros(((3 + 2 + 2) * 8,))
    # (MXNet 1.9.1 cannot rebuild a FusedRNN with an init of its own from dumps(): its
    # constructor looks the inner name up in the wrong registry, KeyError 'constant')
    own._init_weight(mx.init.InitDesc('x_parameters', global_init=mx.init.One()), arr)
    arrays['init/own_constant'] = arr.asnumpy()
    # a variable carrying the initializer in its __init__ attribute, under a global One
    gru = mx.init.FusedRNN(None, 2, 1, 'gru', False)
    arr = mx.nd.zeros(((3 + 2 + 2) * 6,))
    mx.init.One()(mx.init.InitDesc('g_parameters', attrs={'__init__': gru.dumps()}), arr)
    arrays['init/gru_global_one'] = arr.asnumpy()
    return {'dumps': own.dumps(), 'global_constant_shape': list(shapes['q_parameters'])}


def main():
    warnings.simplefilter('ignore')
    arrays, meta = {}, {}
    # parameters and states of moderate size: an RNN saturates with [-2, 2] everywhere
    op_cases.record_cases(mx, CASES, arrays, meta)
    rng = np.random.RandomState(7)
    meta['cells'] = [cell_case(i, *config, arrays, rng) for i, config in enumerate(CELLS)]
    meta['unfuse_dropout'] = describe_unfuse_with_dropout()
    meta['initializer'] = initializer_values(arrays)
    arrays['meta'] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **arrays)
    print('wrote %s: %d cases, %d cell configurations, %d arrays'
          % (OUT, len(CASES), len(CELLS), len(arrays)))


if __name__ == '__main__':
    main()
