"""``mx.rnn.FusedRNNCell``: a whole stack of recurrent layers as one ``RNN`` operator.

Where an unrolled LSTMCell adds a handful of nodes per step and layer, a fused cell adds one
node for the whole sequence and every layer, with one weight variable, ``<prefix>parameters``:
the flat vector laid out as the RNN operator wants it (see reflib/operator/rnn.py).
``unpack_weights`` cuts that vector into the per-gate arrays the unfused cells would have
(``lstm_l0_i2h_i_weight``, ``lstm_r1_h2h_f_bias``, ...: direction ``l`` or ``r``, layer,
i2h or h2h, gate), and ``pack_weights`` joins them again, so checkpoints of fused and
unfused networks hold the same arrays.  ``unfuse()`` builds the equivalent stack of
ordinary cells, which computes the same numbers step by step.
"""

import warnings

from .. import ndarray
from .. import symbol
from ..initializer import FusedRNN
from .rnn_cell import (BaseRNNCell, BidirectionalCell, DropoutCell, GRUCell, LSTMCell, RNNCell,
                       SequentialRNNCell, _normalize_sequence)

__all__ = ['FusedRNNCell']

_GATE_NAMES = {'rnn_relu': [''], 'rnn_tanh': [''], 'lstm': ['_i', '_f', '_c', '_o'], 'gru': ['_r', '_z', '_o']}


class FusedRNNCell(BaseRNNCell):
    """``num_layers`` layers of ``mode`` ('rnn_relu', 'rnn_tanh', 'lstm' or 'gru') cells of
    ``num_hidden`` units, run by one RNN operator.  ``bidirectional`` doubles every layer
    (and the output's size), ``dropout`` drops out what a layer hands the next in training,
    and ``get_next_state`` makes ``unroll`` return the final states (else an empty list).
    The prefix defaults to ``'<mode>_'``; ``forget_bias`` is the LSTM forget gates' first
    bias, set by the ``FusedRNN`` initializer the parameter variable carries."""

    def __init__(self, num_hidden, num_layers=1, mode='lstm', bidirectional=False, dropout=0.,
                 get_next_state=False, forget_bias=1.0, prefix=None, params=None):
        if mode not in _GATE_NAMES:
            raise ValueError('FusedRNNCell: mode must be one of %s, got %r' % (sorted(_GATE_NAMES), mode))
        if prefix is None:
            prefix = '%s_' % mode
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._dropout = dropout
        self._get_next_state = get_next_state
        self._directions = ['l', 'r'] if bidirectional else ['l']
        init = FusedRNN(None, num_hidden, num_layers, mode, bidirectional, forget_bias)
        self._parameter = self.params.get('parameters', init=init)

    @property
    def state_info(self):
        """One state (LSTM: two) of shape (layers * directions, batch, num_hidden)."""
        count = 2 if self._mode == 'lstm' else 1
        shape = (len(self._directions) * self._num_layers, 0, self._num_hidden)
        return [{'shape': shape, '__layout__': 'LNC'} for _ in range(count)]

    @property
    def _gate_names(self):
        return _GATE_NAMES[self._mode]

    # ------------------------------------------------------------- weights
    def _pieces(self, input_size):
        """``(name, start, shape)`` of every per-gate array in the flat vector, in its order:
        all weights (layer, direction, then i2h gates and h2h gates), then all biases."""
        h, b = self._num_hidden, len(self._directions)
        pieces, pos = [], 0
        for kind in ('weight', 'bias'):
            for layer in range(self._num_layers):
                cols = input_size if layer == 0 else b * h
                for direction in self._directions:
                    for group, width in (('i2h', cols), ('h2h', h)):
                        shape = (h, width) if kind == 'weight' else (h,)
                        for gate in self._gate_names:
                            name = '%s%s%d_%s%s_%s' % (self._prefix, direction, layer, group, gate, kind)
                            pieces.append((name, pos, shape))
                            pos += h * (width if kind == 'weight' else 1)
        return pieces, pos

    def _input_size(self, total):
        """The first layer's input size, from the flat vector's length."""
        h, b, g = self._num_hidden, len(self._directions), len(self._gate_names)
        upper = (self._num_layers - 1) * (b * h + h + 2)
        size, rest = divmod(total, b * g * h)
        input_size = size - upper - h - 2
        if rest or input_size < 1:
            raise ValueError('FusedRNNCell %r: a parameter vector of %d numbers fits no input size for %d '
                             'layers of %d %s units' % (self._prefix, total, self._num_layers, h, self._mode))
        return input_size

    def unpack_weights(self, args):
        """``args`` with ``<prefix>parameters`` replaced by the per-gate arrays (copies)."""
        args = args.copy()
        flat = args.pop(self._parameter.name)
        pieces, _ = self._pieces(self._input_size(flat.size))
        for name, start, shape in pieces:
            size = shape[0] * (shape[1] if len(shape) > 1 else 1)
            args[name] = flat[start:start + size].reshape(shape).copy()
        return args

    def pack_weights(self, args):
        """The inverse of ``unpack_weights``: the per-gate arrays joined into ``<prefix>parameters``."""
        args = args.copy()
        first = args['%sl0_i2h%s_weight' % (self._prefix, self._gate_names[0])]
        pieces, total = self._pieces(first.shape[1])
        flat = ndarray.zeros((total,), ctx=first.context, dtype=first.dtype)
        for name, start, shape in pieces:
            size = shape[0] * (shape[1] if len(shape) > 1 else 1)
            flat[start:start + size] = args.pop(name).reshape((size,))
        args[self._parameter.name] = flat
        return args

    # ------------------------------------------------------------- graph
    def __call__(self, inputs, states):
        raise NotImplementedError('a FusedRNNCell runs the whole sequence at once: unroll it')

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        """One RNN node over the ``length`` steps: ``(outputs, states)``, the states empty
        unless ``get_next_state``.  The operator wants time first: an NTC sequence is
        swapped to TNC and back (a warning says TNC would save the two swaps)."""
        self.reset()
        inputs, axis = _normalize_sequence(length, inputs, layout, True)
        if axis == 1:
            warnings.warn('FusedRNNCell: the NTC layout costs two swapaxes; TNC is faster')
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1)
        elif axis != 0:
            raise ValueError('FusedRNNCell: unsupported layout %r (the time axis must be first or second)'
                             % layout)
        states = self.begin_state() if begin_state is None else begin_state
        named = {'state': states[0]}
        if self._mode == 'lstm':
            named['state_cell'] = states[1]
        rnn = symbol.RNN(data=inputs, parameters=self._parameter, state_size=self._num_hidden,
                         num_layers=self._num_layers, bidirectional=self._bidirectional, p=self._dropout,
                         state_outputs=self._get_next_state, mode=self._mode, name=self._prefix + 'rnn',
                         **named)
        if self._get_next_state:
            outputs = rnn[0]
            states = [rnn[k] for k in range(1, 3 if self._mode == 'lstm' else 2)]
            for state in states:
                state._set_attr(__layout__='LNC')
        else:
            outputs, states = rnn, []
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def unfuse(self):
        """The same network as a SequentialRNNCell of ordinary cells (prefixes ``<prefix>l<k>_``
        and, bidirectional, ``<prefix>r<k>_`` in a BidirectionalCell), with a DropoutCell
        between layers when there is dropout: it can be stepped, and its weights are what
        ``unpack_weights`` gives, packed per cell."""
        def make(cell_prefix):
            if self._mode == 'lstm':
                return LSTMCell(self._num_hidden, prefix=cell_prefix)
            if self._mode == 'gru':
                return GRUCell(self._num_hidden, prefix=cell_prefix)
            return RNNCell(self._num_hidden, activation=self._mode[len('rnn_'):], prefix=cell_prefix)

        stack = SequentialRNNCell()
        for layer in range(self._num_layers):
            if self._bidirectional:
                stack.add(BidirectionalCell(make('%sl%d_' % (self._prefix, layer)),
                                            make('%sr%d_' % (self._prefix, layer)),
                                            output_prefix='%sbi_l%d_' % (self._prefix, layer)))
            else:
                stack.add(make('%sl%d_' % (self._prefix, layer)))
            if self._dropout > 0 and layer != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout, prefix='%s_dropout%d_' % (self._prefix, layer)))
        return stack
