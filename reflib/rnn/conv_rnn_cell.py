"""Convolutional recurrent cells: ``mx.rnn.ConvRNNCell``, ``ConvLSTMCell`` and ``ConvGRUCell``
(Shi et al.'s ConvLSTM and its relatives).

They are the cells of rnn_cell.py with every FullyConnected layer replaced by a Convolution:
the input, the states and the output of a step are images (``(batch, channels, H, W)`` for
the default ``conv_layout='NCHW'``), the gates are channel groups of one convolution of the
input (``i2h``) plus one of the previous hidden state (``h2h``).  The input convolution takes
the kernel, stride, padding and dilation you give it; the hidden-state convolution keeps the
state's size (stride 1, padding ``dilate * (kernel - 1) // 2``), so its kernel must be odd.

Because the state is an image, its shape cannot be left to shape inference the way a
FullyConnected cell leaves it: the constructor takes one step's ``input_shape`` and works
out the state's shape from it (batch as 0: any batch size goes).

What MXNet 1.9.1 does and reflib keeps, odd as some of it is:

* the default activation is ``LeakyReLU(act_type='leaky', slope=0.2)``, not tanh, and in the
  LSTM it replaces tanh twice: on the candidate and on the cell state before the output gate;
* the hidden-state convolution is written for 2-D kernels (its stride is ``(1, 1)`` and its
  padding has two entries), so a 1-D cell fails in the constructor and a 3-D one later (in
  MXNet when unrolled; here when its shapes are inferred, where Convolution checks the stride);
* only the first two entries of ``h2h_kernel`` are checked for oddness;
* the GRU slices its gates along axis 1 whatever ``conv_layout`` says (the LSTM slices along
  the layout's channel axis): a channel-last GRU cuts its height into three, not its channels,
  so its graph builds but its shapes never infer;
* ``input_shape`` must be a tuple of whole numbers, all known (no 0);
* building a cell adds one unnamed Convolution (the one that sizes the state), so it uses up
  one ``convolution<n>`` name, as MXNet's does.
"""

import functools
import numbers

from .. import symbol
from .rnn_cell import BaseRNNCell

__all__ = ['BaseConvRNNCell', 'ConvRNNCell', 'ConvLSTMCell', 'ConvGRUCell']

# MXNet's default activation for the convolutional cells
_LEAKY = functools.partial(symbol.LeakyReLU, act_type='leaky', slope=0.2)


def _check_input_shape(input_shape):
    if not isinstance(input_shape, tuple):
        raise TypeError('input_shape must be a tuple (one step\'s input shape, batch first), got %s'
                        % type(input_shape).__name__)
    for dim in input_shape:
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
            raise TypeError('input_shape must hold whole numbers, got %r' % (input_shape,))


class BaseConvRNNCell(BaseRNNCell):
    """What the convolutional cells share: the two convolutions of a step (``i2h`` on the
    input, ``h2h`` on the previous hidden state, each with ``num_gates * num_hidden``
    filters), their four parameters, and states shaped like the input convolution's output.

    The parameters are ``<prefix>i2h_weight``, ``<prefix>h2h_weight``, ``<prefix>i2h_bias``
    and ``<prefix>h2h_bias``, each with its initializer (None leaves it to the one that
    ``init_params`` is given)."""

    def __init__(self, input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride, i2h_pad,
                 i2h_dilate, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, activation, prefix='', params=None, conv_layout='NCHW'):
        super().__init__(prefix=prefix, params=params)
        # the hidden-state convolution must keep the state's size: odd kernel, "same" padding
        # (MXNet looks at the first two entries only: the cell is written for 2-D kernels)
        self._h2h_kernel = h2h_kernel
        if h2h_kernel[0] % 2 != 1 or h2h_kernel[1] % 2 != 1:
            raise AssertionError('the h2h kernel must be odd in every dimension (it keeps the state\'s '
                                 'size), got h2h_kernel=%s' % (h2h_kernel,))
        self._h2h_pad = (h2h_dilate[0] * (h2h_kernel[0] - 1) // 2, h2h_dilate[1] * (h2h_kernel[1] - 1) // 2)
        self._h2h_dilate = h2h_dilate
        self._i2h_kernel = i2h_kernel
        self._i2h_stride = i2h_stride
        self._i2h_pad = i2h_pad
        self._i2h_dilate = i2h_dilate
        self._num_hidden = num_hidden
        self._input_shape = input_shape
        self._conv_layout = conv_layout
        self._activation = activation
        self._state_shape = self._infer_state_shape(input_shape)
        self._iW = self.params.get('i2h_weight', init=i2h_weight_initializer)
        self._hW = self.params.get('h2h_weight', init=h2h_weight_initializer)
        self._iB = self.params.get('i2h_bias', init=i2h_bias_initializer)
        self._hB = self.params.get('h2h_bias', init=h2h_bias_initializer)

    def _i2h_conv(self, data, layout, **kwargs):
        return symbol.Convolution(data=data, num_filter=self._num_hidden, kernel=self._i2h_kernel,
                                  stride=self._i2h_stride, pad=self._i2h_pad, dilate=self._i2h_dilate,
                                  layout=layout, **kwargs)

    def _infer_state_shape(self, input_shape):
        """The shape of a state: the input convolution's output for ``input_shape``, batch 0."""
        data = symbol.Variable('data')
        # unnamed, as in MXNet: the cell uses up one convolution<n> name
        conv = self._i2h_conv(data, self._conv_layout)
        _check_input_shape(input_shape)
        _, out_shapes, _ = conv.infer_shape(data=input_shape)
        if out_shapes is None:
            raise TypeError('cannot size the state from input_shape=%r: every dimension must be known '
                            '(no 0)' % (self._input_shape,))
        shape = out_shapes[0]
        return (0,) + tuple(shape[1:])

    @property
    def _num_gates(self):
        return len(self._gate_names)

    # how many states the cell carries, all of the input convolution's output shape
    _num_states = 2

    @property
    def state_info(self):
        return [{'shape': self._state_shape, '__layout__': self._conv_layout} for _ in range(self._num_states)]

    def _conv_forward(self, inputs, states, name):
        """This step's two convolutions: of the input, and of the previous hidden state."""
        num_filter = self._num_hidden * self._num_gates
        i2h = symbol.Convolution(name='%si2h' % name, data=inputs, num_filter=num_filter,
                                 kernel=self._i2h_kernel, stride=self._i2h_stride, pad=self._i2h_pad,
                                 dilate=self._i2h_dilate, weight=self._iW, bias=self._iB,
                                 layout=self._conv_layout)
        h2h = symbol.Convolution(name='%sh2h' % name, data=states[0], num_filter=num_filter,
                                 kernel=self._h2h_kernel, dilate=self._h2h_dilate, pad=self._h2h_pad,
                                 stride=(1, 1), weight=self._hW, bias=self._hB, layout=self._conv_layout)
        return i2h, h2h

    def __call__(self, inputs, states):
        raise NotImplementedError('BaseConvRNNCell is the base of the convolutional cells: use '
                                  'ConvRNNCell, ConvLSTMCell or ConvGRUCell')


class ConvRNNCell(BaseConvRNNCell):
    """Convolutional Elman cell: ``h' = activation(conv_i(x) + conv_h(h))``; state ``[h]``."""

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                 i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 activation=_LEAKY, prefix='ConvRNN_', params=None, conv_layout='NCHW'):
        super().__init__(input_shape=input_shape, num_hidden=num_hidden, h2h_kernel=h2h_kernel,
                         h2h_dilate=h2h_dilate, i2h_kernel=i2h_kernel, i2h_stride=i2h_stride, i2h_pad=i2h_pad,
                         i2h_dilate=i2h_dilate, i2h_weight_initializer=i2h_weight_initializer,
                         h2h_weight_initializer=h2h_weight_initializer,
                         i2h_bias_initializer=i2h_bias_initializer, h2h_bias_initializer=h2h_bias_initializer,
                         activation=activation, prefix=prefix, params=params, conv_layout=conv_layout)

    _num_states = 1

    @property
    def _gate_names(self):
        return ('',)

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        output = self._get_activation(i2h + h2h, self._activation, name='%sout' % name)
        return output, [output]


class ConvLSTMCell(BaseConvRNNCell):
    """Convolutional LSTM (Shi et al., 2015); states ``[h, c]``.  The gates are four channel
    groups, in the order input, forget, candidate, output; the candidate and the cell state
    go through ``activation`` (LeakyReLU by default), the gates through sigmoids.  Unlike
    LSTMCell there is no ``forget_bias``: the biases start at ``i2h_bias_initializer``."""

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                 i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 activation=_LEAKY, prefix='ConvLSTM_', params=None, conv_layout='NCHW'):
        super().__init__(input_shape=input_shape, num_hidden=num_hidden, h2h_kernel=h2h_kernel,
                         h2h_dilate=h2h_dilate, i2h_kernel=i2h_kernel, i2h_stride=i2h_stride, i2h_pad=i2h_pad,
                         i2h_dilate=i2h_dilate, i2h_weight_initializer=i2h_weight_initializer,
                         h2h_weight_initializer=h2h_weight_initializer,
                         i2h_bias_initializer=i2h_bias_initializer, h2h_bias_initializer=h2h_bias_initializer,
                         activation=activation, prefix=prefix, params=params, conv_layout=conv_layout)

    @property
    def _gate_names(self):
        return ['_i', '_f', '_c', '_o']

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, axis=self._conv_layout.find('C'),
                                    name='%sslice' % name)
        in_gate = symbol.Activation(gates[0], act_type='sigmoid', name='%si' % name)
        forget_gate = symbol.Activation(gates[1], act_type='sigmoid', name='%sf' % name)
        candidate = self._get_activation(gates[2], self._activation, name='%sc' % name)
        out_gate = symbol.Activation(gates[3], act_type='sigmoid', name='%so' % name)
        next_c = symbol.elemwise_add(forget_gate * states[1], in_gate * candidate, name='%sstate' % name)
        next_h = symbol.elemwise_mul(out_gate, self._get_activation(next_c, self._activation),
                                     name='%sout' % name)
        return next_h, [next_h, next_c]


class ConvGRUCell(BaseConvRNNCell):
    """Convolutional GRU; state ``[h]``.  Gates in the order reset, update, candidate (the
    candidate through ``activation``, LeakyReLU by default); as in GRUCell the reset gate
    multiplies the hidden-state convolution's candidate part.  The gates are sliced along
    axis 1, which is the channel axis only for a channel-first ``conv_layout``."""

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                 i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 activation=_LEAKY, prefix='ConvGRU_', params=None, conv_layout='NCHW'):
        super().__init__(input_shape=input_shape, num_hidden=num_hidden, h2h_kernel=h2h_kernel,
                         h2h_dilate=h2h_dilate, i2h_kernel=i2h_kernel, i2h_stride=i2h_stride, i2h_pad=i2h_pad,
                         i2h_dilate=i2h_dilate, i2h_weight_initializer=i2h_weight_initializer,
                         h2h_weight_initializer=h2h_weight_initializer,
                         i2h_bias_initializer=i2h_bias_initializer, h2h_bias_initializer=h2h_bias_initializer,
                         activation=activation, prefix=prefix, params=params, conv_layout=conv_layout)

    _num_states = 1

    @property
    def _gate_names(self):
        return ['_r', '_z', '_o']

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        prev = states[0]
        i2h, h2h = self._conv_forward(inputs, states, name)
        i2h_r, i2h_z, i2h = symbol.SliceChannel(i2h, num_outputs=3, name='%s_i2h_slice' % name)
        h2h_r, h2h_z, h2h = symbol.SliceChannel(h2h, num_outputs=3, name='%s_h2h_slice' % name)
        reset = symbol.Activation(i2h_r + h2h_r, act_type='sigmoid', name='%s_r_act' % name)
        update = symbol.Activation(i2h_z + h2h_z, act_type='sigmoid', name='%s_z_act' % name)
        candidate = self._get_activation(i2h + reset * h2h, self._activation, name='%s_h_act' % name)
        next_h = symbol.elemwise_add((1. - update) * candidate, update * prev, name='%sout' % name)
        return next_h, [next_h]
