"""Convolutional recurrent cells of ``gluon.contrib.rnn``: the Elman, LSTM and GRU cells with
their two affine maps replaced by convolutions (Shi et al., 2015), over 1, 2 or 3 spatial
dimensions.

The state keeps the spatial shape: the input-to-state convolution (``i2h_kernel``,
``i2h_pad``, ``i2h_dilate``, stride 1) decides it, and the state-to-state one
(``h2h_kernel``, odd, ``h2h_dilate``) is padded so as to keep it.  ``input_shape`` is one
sample's shape, channels included (``(C, W)`` for ``NCW``, ``(W, C)`` for ``NWC``), so every
parameter's shape is known at construction.  The gate blocks are laid along the channel
axis in the order of the core cells (LSTM: i, f, g, o; GRU: r, z, n).
"""

from ...rnn.rnn_cell import HybridRecurrentCell
from ...parameter import GluonAssertionError

__all__ = ['Conv1DRNNCell', 'Conv2DRNNCell', 'Conv3DRNNCell', 'Conv1DLSTMCell', 'Conv2DLSTMCell',
           'Conv3DLSTMCell', 'Conv1DGRUCell', 'Conv2DGRUCell', 'Conv3DGRUCell']


def _tuple(value, dims):
    """An int repeated ``dims`` times, or the given sequence as a tuple."""
    if isinstance(value, int):
        return (value,) * dims
    return tuple(value)


class _ConvCell(HybridRecurrentCell):
    """What all the convolutional cells share: the four parameters, the state shape and the
    two convolutions of a step."""
    _gates = 1

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad, i2h_dilate, h2h_dilate,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                 dims, conv_layout, activation, prefix, params):
        super().__init__(prefix=prefix, params=params)
        self._hidden_channels = hidden_channels
        self._input_shape = tuple(input_shape)
        self._conv_layout = conv_layout
        self._activation = activation
        self._i2h_kernel = _tuple(i2h_kernel, dims)
        self._h2h_kernel = _tuple(h2h_kernel, dims)
        self._i2h_pad = _tuple(i2h_pad, dims)
        self._i2h_dilate = _tuple(i2h_dilate, dims)
        self._h2h_dilate = _tuple(h2h_dilate, dims)
        if any(k % 2 == 0 for k in self._h2h_kernel):
            raise GluonAssertionError('Only support odd number, get h2h_kernel= %s' % (h2h_kernel,))
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate, self._h2h_kernel))
        self._channel_axis = conv_layout.find('C')
        if self._channel_axis == 1:
            in_channels, spatial = self._input_shape[0], self._input_shape[1:]
        else:
            in_channels, spatial = self._input_shape[-1], self._input_shape[:-1]
        self._in_channels = in_channels
        out_spatial = tuple(size + 2 * p - d * (k - 1) for size, p, d, k in
                            zip(spatial, self._i2h_pad, self._i2h_dilate, self._i2h_kernel))
        if self._channel_axis == 1:
            self._state_shape = (hidden_channels,) + out_spatial
        else:
            self._state_shape = out_spatial + (hidden_channels,)
        rows = self._gates * hidden_channels

        def weight_shape(channels, kernel):
            return (rows, channels) + kernel if self._channel_axis == 1 else (rows,) + kernel + (channels,)
        self.i2h_weight = self.params.get('i2h_weight', shape=weight_shape(in_channels, self._i2h_kernel),
                                          init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = self.params.get('h2h_weight', shape=weight_shape(hidden_channels, self._h2h_kernel),
                                          init=h2h_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get('i2h_bias', shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get('h2h_bias', shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size,) + self._state_shape, '__layout__': self._conv_layout}]

    def __repr__(self):
        return '%s(%s -> %s, %s, %s)' % (type(self).__name__, self._in_channels, self.i2h_weight.shape[0],
                                         self._activation, self._conv_layout)

    def _convolve(self, F, step, inputs, h, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        """Both convolutions of a step, named ``<step>i2h`` and ``<step>h2h``."""
        rows = self._gates * self._hidden_channels
        i2h = F.Convolution(data=inputs, weight=i2h_weight, bias=i2h_bias, kernel=self._i2h_kernel,
                            pad=self._i2h_pad, dilate=self._i2h_dilate, num_filter=rows,
                            layout=self._conv_layout, name=step + 'i2h')
        h2h = F.Convolution(data=h, weight=h2h_weight, bias=h2h_bias, kernel=self._h2h_kernel,
                            pad=self._h2h_pad, dilate=self._h2h_dilate, num_filter=rows,
                            layout=self._conv_layout, name=step + 'h2h')
        return i2h, h2h


class _ConvRNN(_ConvCell):
    """The convolutional Elman step: ``h' = activation(conv_i(x) + conv_h(h))``."""

    def _alias(self):
        return 'conv_rnn'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        step = 't%d_' % self._counter
        i2h, h2h = self._convolve(F, step, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        output = self._get_activation(F, F.elemwise_add(i2h, h2h, name='_plus0'), self._activation,
                                      name=step + 'out')
        return output, [output]


class _ConvLSTM(_ConvCell):
    """The convolutional LSTM step (LSTMCell's equations with convolutions); states ``[h, c]``."""
    _gates = 4

    def _alias(self):
        return 'conv_lstm'

    def state_info(self, batch_size=0):
        info = {'shape': (batch_size,) + self._state_shape, '__layout__': self._conv_layout}
        return [info, dict(info)]

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        step = 't%d_' % self._counter
        i2h, h2h = self._convolve(F, step, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        gates = F.SliceChannel(F.elemwise_add(i2h, h2h, name='_plus0'), num_outputs=4,
                               axis=self._channel_axis, name=step + 'slice')
        in_gate = F.Activation(gates[0], act_type='sigmoid', name=step + 'i')
        forget_gate = F.Activation(gates[1], act_type='sigmoid', name=step + 'f')
        candidate = self._get_activation(F, gates[2], self._activation, name=step + 'c')
        out_gate = F.Activation(gates[3], act_type='sigmoid', name=step + 'o')
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name='_mul0'),
                                F.elemwise_mul(in_gate, candidate, name='_mul1'), name=step + 'state')
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, self._activation),
                                name=step + 'out')
        return next_h, [next_h, next_c]


class _ConvGRU(_ConvCell):
    """The convolutional GRU step (GRUCell's equations with convolutions; the reset gate
    scales the state side after its convolution)."""
    _gates = 3

    def _alias(self):
        return 'conv_gru'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        step = 't%d_' % self._counter
        h = states[0]
        i2h, h2h = self._convolve(F, step, inputs, h, i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        axis = self._channel_axis
        i2h_r, i2h_z, i2h_n = F.SliceChannel(i2h, num_outputs=3, axis=axis, name=step + 'i2h_slice')
        h2h_r, h2h_z, h2h_n = F.SliceChannel(h2h, num_outputs=3, axis=axis, name=step + 'h2h_slice')
        reset = F.Activation(F.elemwise_add(i2h_r, h2h_r), act_type='sigmoid', name=step + 'r_act')
        update = F.Activation(F.elemwise_add(i2h_z, h2h_z), act_type='sigmoid', name=step + 'z_act')
        new = self._get_activation(F, F.elemwise_add(i2h_n, F.elemwise_mul(reset, h2h_n)), self._activation,
                                   name=step + 'h_act')
        next_h = F.elemwise_add(F.elemwise_mul(F.elemwise_sub(F.ones_like(update), update), new),
                                F.elemwise_mul(update, h), name=step + 'out')
        return next_h, [next_h]


def _make(base, dims, layout, name, doc):
    """One public class: ``base``'s step over ``dims`` spatial dimensions, default ``layout``."""
    one = (0,) * dims

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad=one,
                 i2h_dilate=(1,) * dims, h2h_dilate=(1,) * dims, i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 conv_layout=layout, activation='tanh', prefix=None, params=None):
        base.__init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad, i2h_dilate,
                      h2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                      h2h_bias_initializer, dims, conv_layout, activation, prefix, params)
    __init__.__doc__ = 'Build the cell (see the class docstring for the arguments).'
    return type(name, (base,), {'__init__': __init__, '__doc__': doc, '__module__': __name__})


_ARGS = """

    ``input_shape``: one sample's shape with channels; ``hidden_channels``: the state's
    channels; ``i2h_kernel``/``h2h_kernel`` (odd), ``i2h_pad``, ``i2h_dilate``,
    ``h2h_dilate``: ints or one per spatial dimension; ``conv_layout``: %s (default) or
    its channel-last form; ``activation``: a name, a LeakyReLU block or a callable.
    Parameters ``i2h_weight``, ``h2h_weight``, ``i2h_bias``, ``h2h_bias``."""

Conv1DRNNCell = _make(_ConvRNN, 1, 'NCW', 'Conv1DRNNCell',
                      'Convolutional Elman cell over one spatial dimension; prefix ``conv_rnn<n>_``.'
                      + _ARGS % 'NCW')
Conv2DRNNCell = _make(_ConvRNN, 2, 'NCHW', 'Conv2DRNNCell',
                      'Convolutional Elman cell over two spatial dimensions; prefix ``conv_rnn<n>_``.'
                      + _ARGS % 'NCHW')
Conv3DRNNCell = _make(_ConvRNN, 3, 'NCDHW', 'Conv3DRNNCell',
                      'Convolutional Elman cell over three spatial dimensions; prefix ``conv_rnn<n>_``.'
                      + _ARGS % 'NCDHW')
Conv1DLSTMCell = _make(_ConvLSTM, 1, 'NCW', 'Conv1DLSTMCell',
                       'Convolutional LSTM cell over one spatial dimension, states ``[h, c]``; prefix '
                       '``conv_lstm<n>_``.' + _ARGS % 'NCW')
Conv2DLSTMCell = _make(_ConvLSTM, 2, 'NCHW', 'Conv2DLSTMCell',
                       'Convolutional LSTM cell over two spatial dimensions, states ``[h, c]``; prefix '
                       '``conv_lstm<n>_``.' + _ARGS % 'NCHW')
Conv3DLSTMCell = _make(_ConvLSTM, 3, 'NCDHW', 'Conv3DLSTMCell',
                       'Convolutional LSTM cell over three spatial dimensions, states ``[h, c]``; prefix '
                       '``conv_lstm<n>_``.' + _ARGS % 'NCDHW')
Conv1DGRUCell = _make(_ConvGRU, 1, 'NCW', 'Conv1DGRUCell',
                      'Convolutional GRU cell over one spatial dimension; prefix ``conv_gru<n>_``.'
                      + _ARGS % 'NCW')
Conv2DGRUCell = _make(_ConvGRU, 2, 'NCHW', 'Conv2DGRUCell',
                      'Convolutional GRU cell over two spatial dimensions; prefix ``conv_gru<n>_``.'
                      + _ARGS % 'NCHW')
Conv3DGRUCell = _make(_ConvGRU, 3, 'NCDHW', 'Conv3DGRUCell',
                      'Convolutional GRU cell over three spatial dimensions; prefix ``conv_gru<n>_``.'
                      + _ARGS % 'NCDHW')
