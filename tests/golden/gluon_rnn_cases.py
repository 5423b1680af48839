"""gluon.rnn: the same programs under MXNet 1.9.1 (gen_gluon_rnn.py records gluon_rnn.json)
and under reflib (test_gluon_rnn.py).

Every parameter, input, begin state and head gradient comes from a seeded numpy
RandomState (never from either library's initializers), so both libraries compute on the
same numbers.  A numeric case records the parameters' names and shapes, the outputs and
final states, and the gradient of every parameter, of the input and of the begin states
after backward of ``sum(head * output) + sum(head * state)``.  Other cases record names
(parameters, graph outputs, begin states), shapes, printed forms, the keys
``save_parameters`` writes, and 'error' where the library refuses.  Cells and layers get
explicit prefixes, so the names do not depend on what ran before."""

import os
import shutil
import tempfile

import numpy as np

T, N, C, H = 3, 2, 4, 3          # steps, batch, input features, hidden units


def _v(arr):
    return np.round(arr.asnumpy().astype(np.float64), 5).tolist()


def _try(fn):
    try:
        return fn()
    except Exception:       # noqa: BLE001  (the case records only that the library refused)
        return 'error'


def _params(block):
    return [[name, list(p.shape)] for name, p in block.collect_params().items()]


def _fill(mx, block, seed):
    """Every parameter from RandomState(seed), drawn in the order of the sorted names."""
    rs = np.random.RandomState(seed)
    params = block.collect_params()
    for name in sorted(params.keys()):
        params[name].set_data(mx.nd.array(rs.uniform(-0.5, 0.5, params[name].shape)))


def _arrays(mx, rs, shapes):
    out = []
    for shape in shapes:
        arr = mx.nd.array(rs.uniform(-1, 1, shape))
        arr.attach_grad()
        out.append(arr)
    return out


def _backward(mx, rs, outputs):
    """backward of sum(head * t) over ``outputs`` with seeded heads."""
    total = None
    for t in outputs:
        term = (t * mx.nd.array(rs.uniform(-1, 1, t.shape))).sum()
        total = term if total is None else total + term
    total.backward()


def _grads(block):
    return {name: _v(p.grad()) for name, p in block.collect_params().items() if p.grad_req != 'null'}


# ------------------------------------------------------------------ cells, numbers
def _cell_run(mx, make, layout='NTC', hybridize=False, merge=True, valid_length=None, train=True, seed=0,
              given_state=True):
    cell = make(mx)
    cell.initialize()
    rs = np.random.RandomState(seed)
    x_shape = (N, T, C) if layout == 'NTC' else (T, N, C)
    x = _arrays(mx, rs, [x_shape])[0]
    if hybridize:
        cell.hybridize()
    cell.unroll(T, x, layout=layout)            # first call: deferred shapes become known
    _fill(mx, cell, seed + 1)
    begin = _arrays(mx, rs, [info['shape'] for info in cell.state_info(N)]) if given_state else None
    lengths = mx.nd.array(valid_length) if valid_length is not None else None
    with mx.autograd.record(train_mode=train):
        out, states = cell.unroll(T, x, begin_state=begin, layout=layout, merge_outputs=merge,
                                  valid_length=lengths)
        outs = out if isinstance(out, list) else [out]
        _backward(mx, rs, outs + list(states))
    return {'params': _params(cell), 'merged': not isinstance(out, list), 'out': [_v(o) for o in outs],
            'states': [_v(s) for s in states], 'grads': _grads(cell), 'dx': _v(x.grad),
            'dstates': [_v(s.grad) for s in begin] if begin else None}


def _cell_step(mx, make, seed=0):
    """One step called directly (no unroll): output, states and gradients."""
    cell = make(mx)
    cell.initialize()
    _fill(mx, cell, seed + 1)
    rs = np.random.RandomState(seed)
    x = _arrays(mx, rs, [(N, C)])[0]
    begin = _arrays(mx, rs, [info['shape'] for info in cell.state_info(N)])
    with mx.autograd.record():
        out, states = cell(x, begin)
        _backward(mx, rs, [out] + list(states))
    return {'params': _params(cell), 'out': _v(out), 'states': [_v(s) for s in states], 'grads': _grads(cell),
            'dx': _v(x.grad), 'dstates': [_v(s.grad) for s in begin]}


def _rnn_cell(mx, **kw):
    return mx.gluon.rnn.RNNCell(H, prefix='rnn_', **kw)


def _lstm_cell(mx, prefix='lstm_', **kw):
    return mx.gluon.rnn.LSTMCell(H, prefix=prefix, **kw)


def _gru_cell(mx, prefix='gru_', **kw):
    return mx.gluon.rnn.GRUCell(H, prefix=prefix, **kw)


def _sequential(mx, hybrid):
    kind = mx.gluon.rnn.HybridSequentialRNNCell if hybrid else mx.gluon.rnn.SequentialRNNCell
    stack = kind(prefix='stack_')
    with stack.name_scope():
        stack.add(mx.gluon.rnn.LSTMCell(H, prefix='l0_'))
        stack.add(mx.gluon.rnn.DropoutCell(0.5))
        stack.add(mx.gluon.rnn.GRUCell(H, prefix='l1_'))
    return stack


def _bidirectional(mx, prefix='bi_'):
    return mx.gluon.rnn.BidirectionalCell(_lstm_cell(mx, prefix + 'l_'), _gru_cell(mx, prefix + 'r_'),
                                          output_prefix=prefix + 'out_')


def _bidirectional_stack(mx):
    """Two bidirectional LSTM layers as cells: what LSTM(H, 2, bidirectional=True) unfuses into."""
    stack = mx.gluon.rnn.HybridSequentialRNNCell(prefix='bs_')
    with stack.name_scope():
        stack.add(mx.gluon.rnn.BidirectionalCell(_lstm_cell(mx, 'l0_'), _lstm_cell(mx, 'r0_')))
        stack.add(mx.gluon.rnn.BidirectionalCell(_lstm_cell(mx, 'l1_'), _lstm_cell(mx, 'r1_')))
    return stack


def _residual(mx):
    return mx.gluon.rnn.ResidualCell(mx.gluon.rnn.GRUCell(C, prefix='res_'))


def _zoneout(mx):
    return mx.gluon.rnn.ZoneoutCell(_lstm_cell(mx, 'zo_'), zoneout_outputs=0.5, zoneout_states=0.3)


# ------------------------------------------------------------------ layers, numbers
def _layer_run(mx, make, layout='TNC', with_states=True, hybridize=False, seed=0, train=True):
    layer = make(mx)
    layer.initialize()
    rs = np.random.RandomState(seed)
    x = _arrays(mx, rs, [(N, T, C) if layout == 'NTC' else (T, N, C)])[0]
    if hybridize:
        layer.hybridize()
    # first call: deferred shapes become known (and a hybridized layer traces its graph, which
    # returns the states or not from then on: the first call must be like the others)
    layer(x, layer.begin_state(N)) if with_states else layer(x)
    _fill(mx, layer, seed + 1)
    begin = _arrays(mx, rs, [info['shape'] for info in layer.state_info(N)])
    with mx.autograd.record(train_mode=train):
        result = layer(x, begin) if with_states else layer(x)
        if with_states:
            out, states = result
        else:
            out, states = result, []
        _backward(mx, rs, [out] + list(states))
    return {'params': _params(layer), 'returns': type(result).__name__ if not with_states else len(result),
            'out': _v(out), 'states': [_v(s) for s in states], 'grads': _grads(layer), 'dx': _v(x.grad),
            'dstates': [_v(s.grad) for s in begin] if with_states else None}


def _unfused(mx, make, layout='TNC', seed=0):
    """The layer's own cells (``_unfuse``, sharing its parameters) unrolled on the same input."""
    layer = make(mx)
    layer.initialize()
    rs = np.random.RandomState(seed)
    x = _arrays(mx, rs, [(N, T, C) if layout == 'NTC' else (T, N, C)])[0]
    layer(x)
    _fill(mx, layer, seed + 1)
    cells = layer._unfuse()
    with mx.autograd.record():
        out, states = cells.unroll(T, x, layout=layout, merge_outputs=True)
        _backward(mx, rs, [out])
    return {'params': sorted(cells.collect_params().keys()), 'out': _v(out), 'states': [_v(s) for s in states],
            'grads': _grads(cells), 'dx': _v(x.grad)}


def _rnn(mx, activation, **kw):
    return mx.gluon.rnn.RNN(H, activation=activation, prefix='rnn_', **kw)


def _lstm(mx, **kw):
    return mx.gluon.rnn.LSTM(H, prefix='lstm_', **kw)


def _gru(mx, **kw):
    return mx.gluon.rnn.GRU(H, prefix='gru_', **kw)


def _nested(mx, bidirectional, input_size):
    """A layer inside a hybridized HybridSequential: the parent's graph infers its shapes."""
    net = mx.gluon.nn.HybridSequential(prefix='net_')
    with net.name_scope():
        net.add(mx.gluon.rnn.LSTM(H, num_layers=2, bidirectional=bidirectional, input_size=input_size,
                                  prefix='lstm_'))
        net.add(mx.gluon.nn.Dense(2, flatten=False, prefix='dense_'))
    net.initialize()
    net.hybridize()
    rs = np.random.RandomState(5)
    x = _arrays(mx, rs, [(T, N, C)])[0]
    net(x)
    _fill(mx, net, 6)
    with mx.autograd.record():
        out = net(x)
        _backward(mx, rs, [out])
    return {'params': _params(net), 'out': _v(out), 'grads': _grads(net), 'dx': _v(x.grad)}


# ------------------------------------------------------------------ graphs and names
def _symbolic(mx, make, merge=None, layout='NTC', valid_length=False):
    """Cells unrolled on Symbols: the graph's outputs, arguments, shapes, final states."""
    cell = make(mx)
    inputs = [mx.sym.Variable('rnn_t%d_data' % i) for i in range(T)]
    kw = {'valid_length': mx.sym.Variable('valid_length')} if valid_length else {}
    outputs, states = cell.unroll(T, inputs, layout=layout, merge_outputs=merge, **kw)
    outputs = outputs if isinstance(outputs, list) else [outputs]
    group = mx.sym.Group(outputs)
    shapes = {'rnn_t%d_data' % i: (N, C) for i in range(T)}
    if valid_length:
        shapes['valid_length'] = (N,)
    arg_shapes, out_shapes, _ = group.infer_shape(**shapes)
    return {'outputs': group.list_outputs(), 'arguments': group.list_arguments(),
            'arg_shapes': [list(s) for s in arg_shapes], 'out_shapes': [list(s) for s in out_shapes],
            'states': [s.list_outputs() for s in states]}


def _default_names(mx):
    rnn = mx.gluon.rnn
    with mx.name.NameManager():
        blocks = [rnn.RNNCell(H), rnn.LSTMCell(H), rnn.GRUCell(H), rnn.RNN(H), rnn.LSTM(H), rnn.GRU(H),
                  rnn.DropoutCell(0.5), rnn.SequentialRNNCell(), rnn.HybridSequentialRNNCell(),
                  rnn.ResidualCell(rnn.GRUCell(H)), rnn.ZoneoutCell(rnn.RNNCell(H)),
                  rnn.BidirectionalCell(rnn.LSTMCell(H), rnn.LSTMCell(H))]
        prefixes = [b.prefix for b in blocks]
        stack = rnn.HybridSequentialRNNCell()
        with stack.name_scope():
            stack.add(rnn.LSTMCell(H))
            stack.add(rnn.LSTMCell(H))
            stack.add(rnn.ResidualCell(rnn.GRUCell(H)))
    return {'prefixes': prefixes, 'stack params': sorted(stack.collect_params().keys())}


def _begin_states(mx):
    rnn = mx.gluon.rnn
    found = {}
    for name, block in [('LSTMCell', _lstm_cell(mx)), ('stack', _sequential(mx, False)),
                        ('bidirectional', _bidirectional(mx)), ('zoneout', _zoneout(mx)),
                        ('LSTM 2 bidirectional', _lstm(mx, num_layers=2, bidirectional=True)),
                        ('GRU', _gru(mx)), ('RNN', _rnn(mx, 'tanh', num_layers=3))]:
        found[name] = {
            'state_info': [[list(i['shape']), i['__layout__']] for i in block.state_info(N)],
            'nd': [list(s.shape) for s in block.begin_state(batch_size=N, func=mx.nd.zeros)],
            # a modifier cell's begin_state defaults to Symbols, the others' to NDArrays
            'default func gives': type(block.begin_state(batch_size=N)[0]).__name__,
            'sym': [s.name for s in block.begin_state(func=mx.sym.zeros)],
        }
    found['RNN dtype'] = [str(s.dtype) for s in rnn.RNN(H, dtype='float64', prefix='r_').begin_state(N)]
    return found


def _reprs(mx):
    rnn = mx.gluon.rnn
    blocks = [_rnn_cell(mx), _rnn_cell(mx, activation='relu', input_size=C), _lstm_cell(mx), _gru_cell(mx),
              _sequential(mx, True), _bidirectional(mx), _residual(mx), _zoneout(mx), rnn.DropoutCell(0.25),
              _lstm(mx), _lstm(mx, num_layers=2, bidirectional=True, dropout=0.5, input_size=C),
              _gru(mx, layout='NTC'), _rnn(mx, 'tanh', num_layers=3)]
    return [repr(b) for b in blocks]


def _saved_keys(mx):
    """The keys save_parameters writes (MXNet's, which the files of either library share)."""
    folder = tempfile.mkdtemp()
    try:
        found = {}
        for name, block in [('LSTM', _lstm(mx, input_size=C)),
                            ('GRU 2 bidirectional', _gru(mx, num_layers=2, bidirectional=True, input_size=C)),
                            ('LSTMCell', _lstm_cell(mx, input_size=C)),
                            ('bidirectional', _bidirectional(mx)), ('zoneout', _zoneout(mx))]:
            block.initialize()
            if name in ('bidirectional', 'zoneout'):
                block.unroll(T, mx.nd.ones((N, T, C)))
            path = os.path.join(folder, 'p.params')
            block.save_parameters(path)
            found[name] = sorted(mx.nd.load(path).keys())
        return found
    finally:
        shutil.rmtree(folder)


def _projection(mx):
    layer = mx.gluon.rnn.LSTM(H, num_layers=2, bidirectional=True, projection_size=2, input_size=C,
                              prefix='lstmp_')
    return {'params': _params(layer), 'state_info': [list(i['shape']) for i in layer.state_info(N)]}


def _projection_forward(mx, bidirectional, num_layers):
    """The fused LSTM with projection_size, forward outside autograd (what MXNet 1.9.1's CPU
    kernel computes; it trains the projection only with cuDNN): output and final states."""
    layer = mx.gluon.rnn.LSTM(H, num_layers=num_layers, bidirectional=bidirectional, projection_size=2,
                              input_size=C, prefix='lstmp_')
    layer.initialize()
    _fill(mx, layer, 11)
    rs = np.random.RandomState(12)
    x = mx.nd.array(rs.uniform(-1, 1, (T, N, C)))
    states = [mx.nd.array(rs.uniform(-1, 1, info['shape'])) for info in layer.state_info(N)]
    out, (h, c) = layer(x, states)
    return {'params': _params(layer), 'output': _v(out), 'h': _v(h), 'c': _v(c)}


def _infer_shape(mx):
    layer = _lstm(mx, num_layers=2, bidirectional=True)
    layer.initialize()
    layer.infer_shape(mx.nd.ones((T, N, C)), layer.begin_state(N))
    cell = _gru_cell(mx)
    cell.initialize()
    cell(mx.nd.ones((N, C)), cell.begin_state(N))
    return {'layer': _params(layer), 'cell': _params(cell)}


def _errors(mx):
    rnn = mx.gluon.rnn

    def bad_state():
        layer = _lstm(mx, input_size=C)
        layer.initialize()
        return layer(mx.nd.ones((T, N, C)), [mx.nd.ones((1, N + 1, H)), mx.nd.ones((1, N + 1, H))])

    def modified_base():
        base = _lstm_cell(mx)
        rnn.ZoneoutCell(base)
        return base.begin_state(N)

    def step_bidirectional():
        cell = _bidirectional(mx)
        return cell(mx.nd.ones((N, C)), cell.begin_state(N))

    return {
        'layout TCN': _try(lambda: rnn.LSTM(H, layout='TCN')),
        'wrong state shape': _try(bad_state),
        'begin_state of a modified cell': _try(modified_base),
        'stepping a BidirectionalCell': _try(step_bidirectional),
        'modifying a cell twice': _try(lambda: rnn.ResidualCell(rnn.ResidualCell(_gru_cell(mx)).base_cell)),
        'wrong unroll length': _try(lambda: _gru_cell(mx).unroll(T + 1, mx.nd.ones((N, T, C)))),
    }


# ------------------------------------------------------------------ the cases
def cases_of(mx):
    """Every case, by name, as a function that computes it (inside a fresh NameManager, so
    that automatic names do not depend on what ran before)."""
    def fresh(fn):
        def run():
            with mx.name.NameManager():
                return fn()
        return run
    return {name: fresh(fn) for name, fn in _cases(mx).items()}


def _cases(mx):
    return {
        # cells: every kind, NTC and TNC, hybridized or not, begin states given or zeros
        'RNNCell tanh': lambda: _cell_run(mx, _rnn_cell),
        'RNNCell relu TNC': lambda: _cell_run(mx, lambda m: _rnn_cell(m, activation='relu'), layout='TNC'),
        'RNNCell softsign, per-step outputs': lambda: _cell_run(mx, lambda m: _rnn_cell(m, activation='softsign'),
                                                                merge=False),
        # (one step: MXNet's unroll fails on a block as activation, which its reset() takes for a cell)
        'RNNCell LeakyReLU block as activation, one step': lambda: _cell_step(
            mx, lambda m: _rnn_cell(m, activation=m.gluon.nn.LeakyReLU(0.1), input_size=C)),
        'LSTMCell': lambda: _cell_run(mx, _lstm_cell),
        'LSTMCell TNC zero begin state': lambda: _cell_run(mx, _lstm_cell, layout='TNC', given_state=False),
        'LSTMCell relu/softsign activations': lambda: _cell_run(
            mx, lambda m: _lstm_cell(m, activation='relu', recurrent_activation='softsign')),
        'GRUCell': lambda: _cell_run(mx, _gru_cell),
        'GRUCell TNC per-step outputs': lambda: _cell_run(mx, _gru_cell, layout='TNC', merge=False),
        'RNNCell hybridized': lambda: _cell_run(mx, _rnn_cell, hybridize=True),
        'LSTMCell hybridized': lambda: _cell_run(mx, _lstm_cell, hybridize=True),
        'GRUCell hybridized TNC': lambda: _cell_run(mx, _gru_cell, hybridize=True, layout='TNC'),
        'SequentialRNNCell (dropout, predict mode)': lambda: _cell_run(mx, lambda m: _sequential(m, False),
                                                                       train=False),
        'HybridSequentialRNNCell hybridized (predict mode)': lambda: _cell_run(
            mx, lambda m: _sequential(m, True), hybridize=True, train=False),
        'BidirectionalCell': lambda: _cell_run(mx, _bidirectional),
        'BidirectionalCell TNC per-step': lambda: _cell_run(mx, _bidirectional, layout='TNC', merge=False),
        'BidirectionalCell hybridized': lambda: _cell_run(mx, _bidirectional, hybridize=True),
        'two bidirectional LSTM cells': lambda: _cell_run(mx, _bidirectional_stack, layout='TNC'),
        'ResidualCell': lambda: _cell_run(mx, _residual),
        'ResidualCell per-step': lambda: _cell_run(mx, _residual, merge=False),
        'ZoneoutCell (predict mode)': lambda: _cell_run(mx, _zoneout, train=False),
        'DropoutCell (predict mode)': lambda: _cell_run(mx, lambda m: m.gluon.rnn.DropoutCell(0.5), train=False,
                                                        given_state=False),
        # valid_length: padded steps give zero outputs, states stop at each sample's end
        'LSTMCell valid_length': lambda: _cell_run(mx, _lstm_cell, valid_length=[2, 3]),
        'GRUCell valid_length TNC per-step': lambda: _cell_run(mx, _gru_cell, valid_length=[3, 1], layout='TNC',
                                                               merge=False),
        'BidirectionalCell valid_length': lambda: _cell_run(mx, _bidirectional, valid_length=[1, 3]),
        'BidirectionalCell valid_length hybridized': lambda: _cell_run(mx, _bidirectional, valid_length=[2, 3],
                                                                       hybridize=True),
        'ResidualCell valid_length': lambda: _cell_run(mx, _residual, valid_length=[2, 3]),
        # the fused layers
        'RNN relu': lambda: _layer_run(mx, lambda m: _rnn(m, 'relu')),
        'RNN tanh NTC, no states': lambda: _layer_run(mx, lambda m: _rnn(m, 'tanh'), layout='NTC',
                                                      with_states=False),
        'RNN tanh 2 layers bidirectional': lambda: _layer_run(
            mx, lambda m: _rnn(m, 'tanh', num_layers=2, bidirectional=True)),
        'LSTM': lambda: _layer_run(mx, _lstm),
        'LSTM NTC, no states': lambda: _layer_run(mx, _lstm, layout='NTC', with_states=False),
        'LSTM 2 layers bidirectional': lambda: _layer_run(mx, lambda m: _lstm(m, num_layers=2, bidirectional=True)),
        'LSTM 2 layers bidirectional NTC hybridized': lambda: _layer_run(
            mx, lambda m: _lstm(m, num_layers=2, bidirectional=True, layout='NTC'), layout='NTC', hybridize=True),
        'LSTM 3 layers, dropout (in predict mode: none)': lambda: _layer_run(
            mx, lambda m: _lstm(m, num_layers=3, dropout=0.4, input_size=C), with_states=False, train=False),
        'GRU': lambda: _layer_run(mx, _gru),
        'GRU hybridized, no states': lambda: _layer_run(mx, _gru, hybridize=True, with_states=False),
        'GRU 2 layers bidirectional': lambda: _layer_run(mx, lambda m: _gru(m, num_layers=2, bidirectional=True)),
        'GRU 2 layers bidirectional hybridized': lambda: _layer_run(
            mx, lambda m: _gru(m, num_layers=2, bidirectional=True), hybridize=True),
        # the layer equals its cells
        'LSTM 2 layers bidirectional unfused': lambda: _unfused(mx, lambda m: _lstm(m, num_layers=2,
                                                                                     bidirectional=True)),
        'GRU 2 layers unfused NTC': lambda: _unfused(mx, lambda m: _gru(m, num_layers=2, layout='NTC'),
                                                     layout='NTC'),
        'RNN relu bidirectional unfused': lambda: _unfused(mx, lambda m: _rnn(m, 'relu', bidirectional=True)),
        # a layer inside a hybridized parent
        'LSTM in a hybridized HybridSequential': lambda: _nested(mx, False, 0),
        'bidirectional LSTM in a hybridized HybridSequential, input_size given': lambda: _nested(mx, True, C),
        'bidirectional LSTM in a hybridized HybridSequential, input_size inferred': lambda: _nested(mx, True, 0),
        # graphs, names, shapes
        'symbolic RNNCell': lambda: _symbolic(mx, _rnn_cell),
        'symbolic LSTMCell merged TNC': lambda: _symbolic(mx, _lstm_cell, merge=True, layout='TNC'),
        'symbolic GRUCell': lambda: _symbolic(mx, _gru_cell),
        'symbolic HybridSequentialRNNCell': lambda: _symbolic(mx, lambda m: _sequential(m, True)),
        'symbolic BidirectionalCell': lambda: _symbolic(mx, _bidirectional),
        'symbolic BidirectionalCell merged valid_length': lambda: _symbolic(mx, _bidirectional, merge=True,
                                                                            valid_length=True),
        'symbolic ResidualCell': lambda: _symbolic(mx, _residual),
        'symbolic ZoneoutCell': lambda: _symbolic(mx, _zoneout),
        'default names': lambda: _default_names(mx),
        'begin states': lambda: _begin_states(mx),
        'repr': lambda: _reprs(mx),
        'save_parameters keys': lambda: _saved_keys(mx),
        'LSTM projection_size parameters': lambda: _projection(mx),
        'LSTM projection_size forward': lambda: _projection_forward(mx, False, 1),
        'LSTM projection_size forward, 2 bidirectional layers': lambda: _projection_forward(mx, True, 2),
        'infer_shape': lambda: _infer_shape(mx),
        'errors': lambda: _errors(mx),
    }


def run(mx):
    return {name: fn() for name, fn in cases_of(mx).items()}
