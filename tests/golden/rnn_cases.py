"""The RNN graphs gen_rnn.py records in MXNet and tests/test_rnn.py rebuilds in reflib: the
same code, given either library as ``mx``."""

DATA_SHAPE = (2, 3, 4)      # batch, time, features (layout NTC)
STEPS = 3

CASES = ['lstm', 'gru', 'rnn_tanh', 'rnn_relu', 'stacked_lstm_gru', 'lstm_list_io', 'residual_dropout_stack',
         'residual_list_io', 'bidirectional', 'bidirectional_list_io', 'zoneout']
# cases whose training forward is random (Dropout masks): compared at inference, no backward
INFERENCE_ONLY = {'zoneout'}


def build(mx, name):
    """(cell, symbol): the cell unrolled over STEPS steps, outputs and last states grouped."""
    data = mx.sym.Variable('data')
    if name == 'lstm':
        cell = mx.rnn.LSTMCell(5, prefix='lstm_', forget_bias=2.0)
    elif name == 'gru':
        cell = mx.rnn.GRUCell(5, prefix='gru_')
    elif name == 'rnn_tanh':
        cell = mx.rnn.RNNCell(5, prefix='rnn_')
    elif name == 'rnn_relu':
        cell = mx.rnn.RNNCell(5, activation='relu', prefix='relu_')
    elif name == 'stacked_lstm_gru':
        cell = mx.rnn.SequentialRNNCell()
        cell.add(mx.rnn.LSTMCell(6, prefix='l0_'))
        cell.add(mx.rnn.GRUCell(5, prefix='l1_'))
    elif name == 'residual_dropout_stack':
        # a residual GRU over an LSTM, a dropout between them (p=0: the numbers stay deterministic,
        # and the graph still gets MXNet's Dropout-free path); a second dropout of 0.3 at the end
        cell = mx.rnn.SequentialRNNCell()
        cell.add(mx.rnn.LSTMCell(4, prefix='l0_'))
        cell.add(mx.rnn.DropoutCell(0.0, prefix='d0_'))
        cell.add(mx.rnn.ResidualCell(mx.rnn.GRUCell(4, prefix='l1_')))
    elif name == 'residual_list_io':
        cell = mx.rnn.ResidualCell(mx.rnn.RNNCell(4, prefix='r_'))
        steps = list(mx.sym.split(data, axis=1, num_outputs=STEPS, squeeze_axis=1))
        outputs, states = cell.unroll(STEPS, steps, merge_outputs=False)
        return cell, mx.sym.Group(list(outputs) + list(states))
    elif name == 'zoneout':
        cell = mx.rnn.ZoneoutCell(mx.rnn.LSTMCell(4, prefix='z_'), zoneout_outputs=0.3, zoneout_states=0.2)
    elif name == 'bidirectional':
        cell = mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(4, prefix='fw_'), mx.rnn.GRUCell(3, prefix='bw_'))
    elif name == 'bidirectional_list_io':
        cell = mx.rnn.BidirectionalCell(mx.rnn.RNNCell(4, prefix='fw_'), mx.rnn.RNNCell(4, prefix='bw_'),
                                        output_prefix='both_')
        steps = list(mx.sym.split(data, axis=1, num_outputs=STEPS, squeeze_axis=1))
        outputs, states = cell.unroll(STEPS, steps, merge_outputs=False)
        return cell, mx.sym.Group(list(outputs) + [s for pair in states for s in pair])
    elif name == 'lstm_list_io':
        # inputs as a list of per-step symbols, outputs kept as a list
        cell = mx.rnn.LSTMCell(5, prefix='lstm_')
        steps = list(mx.sym.split(data, axis=1, num_outputs=STEPS, squeeze_axis=1))
        outputs, states = cell.unroll(STEPS, steps, merge_outputs=False)
        return cell, mx.sym.Group(list(outputs) + list(states))
    else:
        raise KeyError(name)
    outputs, states = cell.unroll(STEPS, data, layout='NTC', merge_outputs=True)
    flat = [s for pair in states for s in pair] if isinstance(cell, mx.rnn.BidirectionalCell) else list(states)
    return cell, mx.sym.Group([outputs] + flat)
