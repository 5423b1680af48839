"""The convolutional RNN cells gen_conv_rnn.py records in MXNet 1.9.1 and tests/test_conv_rnn.py
rebuilds in reflib: the same code, given either library as ``mx``."""

N, C, H, W = 2, 3, 5, 4     # one step's input: batch, channels, height, width (NCHW)
STEPS = 3
STEP_SHAPE = (N, C, H, W)

# each case: (cell, symbol, {input name: shape}); the symbol groups the outputs and the last states
CASES = ['rnn', 'rnn_tanh_strided', 'lstm', 'lstm_tanh', 'gru', 'gru_relu_dilated', 'stacked', 'bidirectional',
         'initializers', 'lstm_state_inputs', 'lstm_nhwc', 'gru_nhwc']
# channel-last graphs: compared as graphs only (reflib's Convolution runs channel-first layouts
# only; MXNet infers and runs the LSTM one, and cannot infer the GRU one: its gates are sliced
# along axis 1 whatever the layout)
GRAPH_ONLY = {'lstm_nhwc', 'gru_nhwc'}


def _list_inputs(mx, prefix):
    return [mx.sym.Variable('%st%d_data' % (prefix, i)) for i in range(STEPS)]


def _list_case(mx, cell, prefix, shape=STEP_SHAPE, begin_state=None):
    outputs, states = cell.unroll(STEPS, _list_inputs(mx, prefix), begin_state=begin_state)
    return cell, mx.sym.Group(list(outputs) + list(states)), {'%st%d_data' % (prefix, i): shape
                                                              for i in range(STEPS)}


def _merged_case(mx, cell):
    outputs, states = cell.unroll(STEPS, mx.sym.Variable('data'), layout='NTC', merge_outputs=True)
    flat = [s for pair in states for s in pair] if isinstance(cell, mx.rnn.BidirectionalCell) else list(states)
    return cell, mx.sym.Group([outputs] + flat), {'data': (N, STEPS, C, H, W)}


def build(mx, name):
    """(cell, symbol, input shapes) of case ``name``, built with the library ``mx``."""
    if name == 'rnn':
        return _list_case(mx, mx.rnn.ConvRNNCell(STEP_SHAPE, 3, prefix='rnn_'), 'rnn_')
    if name == 'rnn_tanh_strided':
        # stride, dilation and padding differing per axis on the input; a (3, 1) h2h kernel dilated by 2
        cell = mx.rnn.ConvRNNCell(STEP_SHAPE, 2, h2h_kernel=(3, 1), h2h_dilate=(2, 1), i2h_kernel=(3, 2),
                                  i2h_stride=(2, 1), i2h_pad=(1, 0), i2h_dilate=(1, 2), activation='tanh',
                                  prefix='rs_')
        return _list_case(mx, cell, 'rs_')
    if name == 'lstm':
        return _merged_case(mx, mx.rnn.ConvLSTMCell(STEP_SHAPE, 3))
    if name == 'lstm_tanh':
        cell = mx.rnn.ConvLSTMCell(STEP_SHAPE, 2, h2h_kernel=(5, 3), h2h_dilate=(1, 2), i2h_kernel=(1, 3),
                                   i2h_pad=(0, 1), activation='tanh', prefix='lt_')
        return _list_case(mx, cell, 'lt_')
    if name == 'gru':
        return _merged_case(mx, mx.rnn.ConvGRUCell(STEP_SHAPE, 3, prefix='gru_'))
    if name == 'gru_relu_dilated':
        cell = mx.rnn.ConvGRUCell(STEP_SHAPE, 2, h2h_dilate=(2, 1), i2h_dilate=(2, 2), i2h_pad=(2, 2),
                                  activation='relu', prefix='gr_')
        return _list_case(mx, cell, 'gr_')
    if name == 'stacked':
        cell = mx.rnn.SequentialRNNCell()
        cell.add(mx.rnn.ConvLSTMCell(STEP_SHAPE, 4, prefix='s0_'))
        cell.add(mx.rnn.ConvGRUCell((N, 4, H, W), 2, prefix='s1_'))
        return _merged_case(mx, cell)
    if name == 'bidirectional':
        cell = mx.rnn.BidirectionalCell(mx.rnn.ConvRNNCell(STEP_SHAPE, 2, prefix='l_'),
                                        mx.rnn.ConvLSTMCell(STEP_SHAPE, 3, prefix='r_'))
        return _merged_case(mx, cell)
    if name == 'initializers':
        cell = mx.rnn.ConvRNNCell(STEP_SHAPE, 2, i2h_weight_initializer=mx.init.Xavier(),
                                  h2h_weight_initializer='ones', i2h_bias_initializer=None,
                                  h2h_bias_initializer=mx.init.Constant(0.5), prefix='init_')
        return _list_case(mx, cell, 'init_')
    if name == 'lstm_state_inputs':
        # the begin states as inputs (nonzero), so the h2h convolutions see data from the first step
        cell = mx.rnn.ConvLSTMCell(STEP_SHAPE, 2, prefix='ls_')
        cell, net, shapes = _list_case(mx, cell, 'ls_', begin_state=cell.begin_state(func=mx.sym.Variable))
        shapes.update({'ls_begin_state_0': (N, 2, H, W), 'ls_begin_state_1': (N, 2, H, W)})
        return cell, net, shapes
    if name == 'lstm_nhwc':
        return _list_case(mx, mx.rnn.ConvLSTMCell((N, H, W, C), 3, conv_layout='NHWC', prefix='nl_'), 'nl_',
                          shape=(N, H, W, C))
    if name == 'gru_nhwc':
        return _list_case(mx, mx.rnn.ConvGRUCell((N, H, W, C), 3, conv_layout='NHWC', prefix='ng_'), 'ng_',
                          shape=(N, H, W, C))
    raise KeyError(name)


def _base_cell_step(mx):
    cell = mx.rnn.BaseConvRNNCell(STEP_SHAPE, 2, (3, 3), (1, 1), (3, 3), (1, 1), (1, 1), (1, 1), None, None,
                                  'zeros', 'zeros', 'tanh')
    return cell(mx.sym.Variable('x'), cell.begin_state())


def _unroll_and_infer(mx, cell, shape):
    outputs, _ = cell.unroll(1, [mx.sym.Variable('x')])
    return outputs[0].infer_shape(x=shape)


# bad inputs: name -> a callable that must raise (the recorded exception type: MXNet's)
ERRORS = {
    'even_h2h_kernel': lambda mx: mx.rnn.ConvRNNCell(STEP_SHAPE, 2, h2h_kernel=(2, 2)),
    'even_second_h2h_kernel': lambda mx: mx.rnn.ConvLSTMCell(STEP_SHAPE, 2, h2h_kernel=(3, 4)),
    'one_entry_h2h_kernel': lambda mx: mx.rnn.ConvGRUCell(STEP_SHAPE, 2, h2h_kernel=(3,)),
    'one_entry_h2h_dilate': lambda mx: mx.rnn.ConvGRUCell(STEP_SHAPE, 2, h2h_dilate=(1,)),
    'int_h2h_kernel': lambda mx: mx.rnn.ConvRNNCell(STEP_SHAPE, 2, h2h_kernel=3),
    'lstm_has_no_forget_bias': lambda mx: mx.rnn.ConvLSTMCell(STEP_SHAPE, 2, forget_bias=1.0),
    'input_shape_none': lambda mx: mx.rnn.ConvRNNCell(None, 2),
    'input_shape_list': lambda mx: mx.rnn.ConvRNNCell(list(STEP_SHAPE), 2),
    'input_shape_unknown_batch': lambda mx: mx.rnn.ConvLSTMCell((0, C, H, W), 2),
    'input_shape_float': lambda mx: mx.rnn.ConvRNNCell((N, C, 5.0, W), 2),
    'input_shape_3d': lambda mx: mx.rnn.ConvRNNCell((C, H, W), 2),
    'zero_hidden': lambda mx: mx.rnn.ConvRNNCell(STEP_SHAPE, 0),
    'float_hidden': lambda mx: mx.rnn.ConvGRUCell(STEP_SHAPE, 4.0),
    'bad_layout': lambda mx: mx.rnn.ConvRNNCell(STEP_SHAPE, 2, conv_layout='XYZW'),
    'layout_rank_mismatch': lambda mx: mx.rnn.ConvRNNCell(STEP_SHAPE, 2, conv_layout='NCW'),
    'zero_stride': lambda mx: mx.rnn.ConvRNNCell(STEP_SHAPE, 2, i2h_stride=(0, 1)),
    'short_i2h_pad': lambda mx: mx.rnn.ConvRNNCell(STEP_SHAPE, 2, i2h_pad=(1,)),
    'kernel_exceeds_input': lambda mx: mx.rnn.ConvRNNCell((N, C, 2, 2), 2, i2h_kernel=(5, 5), i2h_pad=(0, 0)),
    'activation_none': lambda mx: mx.rnn.ConvRNNCell(STEP_SHAPE, 2, activation=None).unroll(
        1, [mx.sym.Variable('x')]),
    'base_cell_step': _base_cell_step,
    'input_unlike_input_shape': lambda mx: _unroll_and_infer(mx, mx.rnn.ConvRNNCell(STEP_SHAPE, 2), (N, C, H, 6)),
    # a 3-D cell: MXNet fails when unrolling (the h2h convolution's stride is (1, 1)), reflib
    # at the latest when inferring shapes
    'three_d_cell': lambda mx: _unroll_and_infer(
        mx, mx.rnn.ConvRNNCell((N, C, 4, H, W), 2, h2h_kernel=(3, 3, 3), h2h_dilate=(1, 1, 1),
                               i2h_kernel=(3, 3, 3), i2h_stride=(1, 1, 1), i2h_pad=(1, 1, 1),
                               i2h_dilate=(1, 1, 1), conv_layout='NCDHW'), (N, C, 4, H, W)),
}
