"""The fused recurrent layers ``RNN``, ``LSTM`` and ``GRU``: a whole stack of layers over a
whole sequence in one call of the ``RNN`` operator (reflib/operator/rnn.py).

The layer keeps one Parameter per matrix and bias, named as MXNet names them:
``l<k>_i2h_weight``, ``l<k>_h2h_weight``, ``l<k>_i2h_bias``, ``l<k>_h2h_bias`` for layer k
forwards in time and ``r<k>_...`` backwards (bidirectional), plus ``l<k>_h2r_weight`` for an
LSTM with ``projection_size``.  Each call flattens them into the operator's single
``parameters`` vector in the operator's order (all weights, layer by layer, direction by
direction, i2h before h2h; then all biases in the same order), so the gradient of the
vector lands back in the separate parameters through the concatenation's backward.

Without states the layer starts from zeros and returns only the output; given states
(a list, or one array for RNN/GRU) it returns ``(output, [final states])``.  The layer
equals the corresponding cells unrolled (``_unfuse()`` builds them, sharing the
parameters) -- the cells and the operator compute the same gates in the same order.
"""

import re

from ... import ndarray
from ... import symbol
from ...ndarray import NDArray
from ...symbol import Symbol
from ..block import HybridBlock
from ..parameter import GluonAssertionError, GluonValueError
from . import rnn_cell

__all__ = ['RNN', 'LSTM', 'GRU']

_GATES = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}

# the key save_parameters gives a fused parameter: MXNet's, from the time the layers were
# stacks of cells (``_unfused.<layer>.<l|r>_cell.<i2h|h2h>_<weight|bias>``), so parameter
# files move between MXNet and reflib
_FUSED_NAME = re.compile(r'(l|r)(\d+)_(i2h|h2h|h2r)_(weight|bias)\Z')


class _RNNLayer(HybridBlock):
    """What the three layers share (see the module docstring); ``mode`` is the operator's."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                 mode, projection_size, h2r_weight_initializer, lstm_state_clip_min, lstm_state_clip_max,
                 lstm_state_clip_nan, dtype, use_sequence_length=False, **kwargs):
        super().__init__(**kwargs)
        if mode not in _GATES:
            raise GluonValueError("%s: mode %r is not one of %s (RNN's activation must be 'relu' or 'tanh')"
                                  % (type(self).__name__, mode, sorted(_GATES)))
        if layout not in ('TNC', 'NTC'):
            raise GluonAssertionError("%s: layout %r is not one of 'TNC', 'NTC'" % (type(self).__name__, layout))
        self._hidden_size = hidden_size
        self._projection_size = projection_size if projection_size else None
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._i2h_weight_initializer = i2h_weight_initializer
        self._h2h_weight_initializer = h2h_weight_initializer
        self._i2h_bias_initializer = i2h_bias_initializer
        self._h2h_bias_initializer = h2h_bias_initializer
        self._h2r_weight_initializer = h2r_weight_initializer
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._dtype = dtype
        self._use_sequence_length = use_sequence_length
        self.skip_states = None
        self._gates = _GATES[mode]

        rows = self._gates * hidden_size
        # what each layer hands the next (and the hidden side reads): h, or its projection
        width = self._projection_size or hidden_size
        layer_input = input_size
        for layer in range(num_layers):
            for d in self._directions():
                name = '%s%d_' % (d, layer)
                self._register_param(name + 'i2h_weight', (rows, layer_input), i2h_weight_initializer, dtype)
                self._register_param(name + 'h2h_weight', (rows, width), h2h_weight_initializer, dtype)
                self._register_param(name + 'i2h_bias', (rows,), i2h_bias_initializer, dtype)
                self._register_param(name + 'h2h_bias', (rows,), h2h_bias_initializer, dtype)
                if self._projection_size:
                    self._register_param(name + 'h2r_weight', (width, hidden_size), h2r_weight_initializer, dtype)
            layer_input = width * self._dir

    def _directions(self):
        return ['l', 'r'][:self._dir]

    def _register_param(self, name, shape, init, dtype):
        param = self.params.get(name, shape=shape, init=init, allow_deferred_init=True, dtype=dtype)
        setattr(self, name, param)
        return param

    def __repr__(self):
        rows, cols = self.l0_i2h_weight.shape
        text = '%s(%s -> %s, %s' % (type(self).__name__, cols if cols else None, rows // self._gates, self._layout)
        if self._num_layers != 1:
            text += ', num_layers=%s' % self._num_layers
        if self._dropout != 0:
            text += ', dropout=%s' % self._dropout
        if self._dir == 2:
            text += ', bidirectional'
        return text + ')'

    def _collect_params_with_prefix(self, prefix=''):
        if prefix:
            prefix += '.'
        bidirectional = self._dir == 2
        found = {}
        for key, param in self._reg_params.items():
            d, layer, side, kind = _FUSED_NAME.match(key).groups()
            cell = '%s.%s_cell.' % (layer, d) if bidirectional else '%s.' % layer
            found['%s_unfused.%s%s_%s' % (prefix, cell, side, kind)] = param
        for name, child in self._children.items():
            found.update(child._collect_params_with_prefix(prefix + name))
        return found

    def state_info(self, batch_size=0):
        """Describe the layer's recurrent states: one dict per state, in the order ``states`` takes them.

        Each dict holds the ``shape`` (num_layers * directions, batch_size, width), the
        ``__layout__`` ``'LNC'`` and the ``dtype``: the keyword arguments ``begin_state`` passes
        to its ``func``.  RNN and GRU have one state (h), LSTM two (h, then the cell state c).

        Args:
            batch_size: the batch size to put in the shapes (0: unknown, left to shape inference).

        >>> mx.gluon.rnn.LSTM(10, num_layers=2).state_info(4)[1]
        {'shape': (2, 4, 10), '__layout__': 'LNC', 'dtype': 'float32'}
        """
        raise NotImplementedError('%s must define state_info' % type(self).__name__)

    def _unfuse(self):
        """The same network as a HybridSequentialRNNCell of cells (BidirectionalCells for a
        bidirectional layer, DropoutCells between layers), sharing this layer's parameters."""
        if self._projection_size:
            raise GluonAssertionError('%s._unfuse: there is no cell for an LSTM with projection_size' % self.name)
        if self._lstm_state_clip_min is not None or self._lstm_state_clip_max is not None:
            raise GluonAssertionError('%s._unfuse: the cells do not clip the LSTM state' % self.name)
        activation = {'rnn_relu': 'relu', 'rnn_tanh': 'tanh'}

        def make_cell(**kwargs):
            if self._mode in activation:
                return rnn_cell.RNNCell(self._hidden_size, activation=activation[self._mode], **kwargs)
            cell_type = rnn_cell.LSTMCell if self._mode == 'lstm' else rnn_cell.GRUCell
            return cell_type(self._hidden_size, **kwargs)

        stack = rnn_cell.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            layer_input = self._input_size
            for layer in range(self._num_layers):
                kwargs = {'input_size': layer_input,
                          'i2h_weight_initializer': self._i2h_weight_initializer,
                          'h2h_weight_initializer': self._h2h_weight_initializer,
                          'i2h_bias_initializer': self._i2h_bias_initializer,
                          'h2h_bias_initializer': self._h2h_bias_initializer}
                if self._dir == 2:
                    stack.add(rnn_cell.BidirectionalCell(make_cell(prefix='l%d_' % layer, **kwargs),
                                                         make_cell(prefix='r%d_' % layer, **kwargs)))
                else:
                    stack.add(make_cell(prefix='l%d_' % layer, **kwargs))
                if self._dropout > 0 and layer != self._num_layers - 1:
                    stack.add(rnn_cell.DropoutCell(self._dropout))
                layer_input = self._hidden_size * self._dir
        return stack

    def cast(self, dtype):
        super().cast(dtype)
        self._dtype = dtype

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """The states to start from, ``func(name=..., shape=..., **kwargs)`` each: for
        NDArrays ``mx.nd.zeros`` with the real ``batch_size`` (``ctx``, ``dtype`` in
        ``kwargs``); for Symbols ``mx.sym.zeros`` (the batch left to shape inference) or
        ``mx.sym.var``."""
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            args = dict(info or {})
            args.update(kwargs)
            states.append(func(name='%sh0_%d' % (self.prefix, i), **args))
        return states

    def __call__(self, inputs, states=None, sequence_length=None):
        self.skip_states = states is None
        if states is None:
            if isinstance(inputs, NDArray):
                batch_size = inputs.shape[self._layout.find('N')]
                states = self.begin_state(batch_size, ctx=inputs.context, dtype=inputs.dtype)
            else:
                states = self.begin_state(0, func=symbol.zeros)
        if isinstance(states, (NDArray, Symbol)):
            states = [states]
        if self._use_sequence_length:
            return super().__call__(inputs, states, sequence_length)
        return super().__call__(inputs, states)

    def infer_shape(self, inputs, *args):
        """Only the first layer's input size can be unknown: it is the inputs' last axis
        (the operator's own inference cannot reach the separate parameters through the
        flattening)."""
        features = inputs.shape[2]
        for d in self._directions():
            param = getattr(self, '%s0_i2h_weight' % d)
            param.shape = (param.shape[0], features)

    def _flat_parameters(self, F, params):
        """One vector in the operator's order: weights (per layer, per direction: i2h, h2h
        and with projection h2r), then biases (i2h, h2h) in the same order."""
        sides = ['i2h', 'h2h'] + (['h2r'] if self._projection_size else [])
        names = ['%s%d_%s_weight' % (d, layer, side)
                 for layer in range(self._num_layers) for d in self._directions() for side in sides]
        names += ['%s%d_%s_bias' % (d, layer, side)
                  for layer in range(self._num_layers) for d in self._directions() for side in ('i2h', 'h2h')]
        pieces = [F.reshape(params[name], shape=(-1,)) for name in names]
        # joined by _rnn_param_concat, as MXNet joins them: a Concat whose shape rule shares the
        # unknown rest of the vector among *several* inputs of unknown size (a bidirectional
        # layer's two first-layer i2h weights, when input_size is left to inference)
        return F._internal._rnn_param_concat(*pieces, dim=0)

    def hybrid_forward(self, F, inputs, states, sequence_length=None, **params):
        if F is ndarray:
            batch_size = inputs.shape[self._layout.find('N')]
            if len(states) != len(self.state_info()):
                raise GluonValueError('%s expects %d recurrent states, got %d'
                                      % (self.name, len(self.state_info()), len(states)))
            for i, (state, info) in enumerate(zip(states, self.state_info(batch_size))):
                if state.shape != info['shape']:
                    raise GluonValueError('%s: invalid recurrent state shape: state %d must be %s, got %s'
                                          % (self.name, i, info['shape'], state.shape))
        if self._layout == 'NTC':
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        extra = [sequence_length] if self._use_sequence_length else []
        out = F.RNN(inputs, self._flat_parameters(F, params), *(list(states) + extra),
                    use_sequence_length=self._use_sequence_length, state_size=self._hidden_size,
                    projection_size=self._projection_size, num_layers=self._num_layers,
                    bidirectional=self._dir == 2, p=self._dropout, state_outputs=True, mode=self._mode,
                    lstm_state_clip_min=self._lstm_state_clip_min, lstm_state_clip_max=self._lstm_state_clip_max,
                    lstm_state_clip_nan=self._lstm_state_clip_nan)
        outputs = out[0]
        states = [out[1], out[2]] if self._mode == 'lstm' else [out[1]]
        if self._layout == 'NTC':
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs if self.skip_states else (outputs, states)


def _stacked_state(layer, width, batch_size):
    return {'shape': (layer._num_layers * layer._dir, batch_size, width), '__layout__': 'LNC',
            'dtype': layer._dtype}


class RNN(_RNNLayer):
    """A stack of Elman layers, ``h' = activation(W_i x + b_i + W_h h + b_h)`` per step.

    ``hidden_size``: units per layer and direction; ``num_layers``; ``activation`` 'relu'
    (the default) or 'tanh'; ``layout`` 'TNC' (the operator's) or 'NTC'; ``dropout`` on
    each layer's output but the last's (training only); ``bidirectional``; ``input_size``
    0 to take it from the first input; initializers for the four parameters of each layer
    (biases zero by default); ``dtype`` of the parameters and default states.

    Call it on ``inputs`` (T, N, C) (or (N, T, C)) and optionally ``states``, one array
    (num_layers * directions, N, hidden_size)."""

    def __init__(self, hidden_size, num_layers=1, activation='relu', layout='TNC', dropout=0, bidirectional=False,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer='zeros',
                 h2h_bias_initializer='zeros', input_size=0, dtype='float32', **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         'rnn_' + activation, None, None, None, None, False, dtype, **kwargs)

    def state_info(self, batch_size=0):
        return [_stacked_state(self, self._hidden_size, batch_size)]


class LSTM(_RNNLayer):
    """A stack of LSTM layers (gates input, forget, candidate, output as in LSTMCell).

    Parameters as RNN's, plus ``projection_size`` (an LSTM whose hidden state is projected
    by ``h2r_weight``; reflib's operator refuses to run it), ``state_clip_min/max/nan``
    (clip the cell state, as the operator does).  The states are ``[h, c]``, each
    (num_layers * directions, N, hidden_size)."""

    def __init__(self, hidden_size, num_layers=1, layout='TNC', dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer='zeros',
                 h2h_bias_initializer='zeros', projection_size=None, h2r_weight_initializer=None,
                 state_clip_min=None, state_clip_max=None, state_clip_nan=False, dtype='float32', **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         'lstm', projection_size, h2r_weight_initializer, state_clip_min, state_clip_max,
                         state_clip_nan, dtype, **kwargs)

    def state_info(self, batch_size=0):
        return [_stacked_state(self, self._projection_size or self._hidden_size, batch_size),
                _stacked_state(self, self._hidden_size, batch_size)]


class GRU(_RNNLayer):
    """A stack of GRU layers (cuDNN's variant, as GRUCell: gates reset, update, new).

    Parameters as RNN's (no activation); ``states`` one array (num_layers * directions,
    N, hidden_size)."""

    def __init__(self, hidden_size, num_layers=1, layout='TNC', dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer='zeros',
                 h2h_bias_initializer='zeros', dtype='float32', **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         'gru', None, None, None, None, False, dtype, **kwargs)

    def state_info(self, batch_size=0):
        return [_stacked_state(self, self._hidden_size, batch_size)]
