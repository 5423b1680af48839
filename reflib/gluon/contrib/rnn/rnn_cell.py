"""Recurrent cells of ``gluon.contrib.rnn``: an LSTM whose output is projected to a smaller
size (LSTMPCell) and a modifier that applies one dropout mask per sequence, the same at
every step (VariationalDropoutCell); and ``dynamic_unroll``, which steps a cell with the
``contrib.foreach`` loop operator instead of writing one copy of the cell per step.

Both build on reflib/gluon/rnn/rnn_cell.py: the stepping, ``begin_state`` and ``unroll``
machinery is the one the core cells use; each step is operators of reflib/operator/.
"""

from ...rnn.rnn_cell import (HybridRecurrentCell, ModifierCell, BidirectionalCell, _TENSORS,
                             _as_list, _format_sequence, _get_begin_state, _mask_sequence_variable_length)
from ...parameter import GluonAssertionError

__all__ = ['LSTMPCell', 'VariationalDropoutCell', 'dynamic_unroll']


class LSTMPCell(HybridRecurrentCell):
    """LSTM with a projection of the hidden state (Sak et al., 2014).

    The gates are LSTMCell's (blocks input ``i``, forget ``f``, candidate ``g``, output
    ``o``, all but ``g`` sigmoid, ``g`` tanh), computed from the input and the previous
    *projected* state ``r``::

        c' = f * c + i * g        h = o * tanh(c')        r' = W_r h   (no bias)

    States ``[r, c]`` of shapes (batch, projection_size) and (batch, hidden_size); the
    output is ``r'``.  Parameters ``i2h_weight`` (4*hidden, input), ``h2h_weight``
    (4*hidden, projection), ``h2r_weight`` (projection, hidden), ``i2h_bias`` and
    ``h2h_bias`` (4*hidden,).  ``input_size=0`` leaves the input size to the first call.
    The default prefix is ``lstmp<n>_``."""

    def __init__(self, hidden_size, projection_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 h2r_weight_initializer=None, i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._projection_size = projection_size
        self._input_size = input_size
        rows = 4 * hidden_size
        self.i2h_weight = self.params.get('i2h_weight', shape=(rows, input_size), init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get('h2h_weight', shape=(rows, projection_size),
                                          init=h2h_weight_initializer, allow_deferred_init=True)
        self.h2r_weight = self.params.get('h2r_weight', shape=(projection_size, hidden_size),
                                          init=h2r_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get('i2h_bias', shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get('h2h_bias', shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size, self._projection_size), '__layout__': 'NC'},
                {'shape': (batch_size, self._hidden_size), '__layout__': 'NC'}]

    def _alias(self):
        return 'lstmp'

    def __repr__(self):
        rows, cols = self.i2h_weight.shape
        return '%s(%s -> %s -> %s)' % (type(self).__name__, cols if cols else None, rows,
                                       self.h2r_weight.shape[0])

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight, i2h_bias, h2h_bias):
        step = 't%d_' % self._counter
        rows = 4 * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=rows,
                               name=step + 'i2h')
        h2h = F.FullyConnected(data=states[0], weight=h2h_weight, bias=h2h_bias, num_hidden=rows,
                               name=step + 'h2h')
        gates = F.SliceChannel(F.elemwise_add(i2h, h2h, name='_plus0'), num_outputs=4, name=step + 'slice')
        in_gate = F.Activation(gates[0], act_type='sigmoid', name=step + 'i')
        forget_gate = F.Activation(gates[1], act_type='sigmoid', name=step + 'f')
        candidate = F.Activation(gates[2], act_type='tanh', name=step + 'c')
        out_gate = F.Activation(gates[3], act_type='sigmoid', name=step + 'o')
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name='_mul0'),
                                F.elemwise_mul(in_gate, candidate, name='_mul1'), name=step + 'state')
        hidden = F.elemwise_mul(out_gate, F.Activation(next_c, act_type='tanh', name='activation0'),
                                name=step + 'hidden')
        next_r = F.FullyConnected(data=hidden, weight=h2r_weight, no_bias=True,
                                  num_hidden=self._projection_size, name=step + 'out')
        return next_r, [next_r, next_c]


class VariationalDropoutCell(ModifierCell):
    """Variational dropout (Gal and Ghahramani, 2016) around ``base_cell``: in training, the
    step's input (``drop_inputs``), the first state going into the base cell
    (``drop_states``) and the base cell's output (``drop_outputs``) are multiplied by
    dropout masks drawn at the first step and reused at every later step, so each unit is
    dropped for the whole sequence.  ``reset()`` (which ``unroll`` calls) forgets the
    masks.  Outside training the masks are ones and the cell is its base cell.

    Without ``drop_states``, ``unroll`` drops the whole sequence at once: one Dropout per
    side with the mask shared along the time axis."""

    def __init__(self, base_cell, drop_inputs=0., drop_states=0., drop_outputs=0.):
        if drop_states and isinstance(base_cell, BidirectionalCell):
            raise GluonAssertionError('VariationalDropoutCell: drop_states needs a cell that can be stepped; '
                                      '%s is a BidirectionalCell: wrap the cells inside it instead'
                                      % base_cell.name)
        super().__init__(base_cell)
        self.drop_inputs = drop_inputs
        self.drop_states = drop_states
        self.drop_outputs = drop_outputs
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def _alias(self):
        return 'vardrop'

    def __repr__(self):
        return '%s(p_out = %s, p_state = %s)' % (type(self).__name__, self.drop_outputs, self.drop_states)

    def reset(self):
        """Forget the masks (the next step draws new ones) and restart the step count."""
        super().reset()
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def _mask(self, F, like, rate, index):
        """A dropout mask shaped like ``like``: 0 where dropped, 1/(1-rate) where kept."""
        return F.Dropout(F.ones_like(like, name='ones_like%d' % index), p=rate, name='dropout%d' % index)

    def hybrid_forward(self, F, inputs, states):
        if self.drop_states and self.drop_states_mask is None:
            self.drop_states_mask = self._mask(F, states[0], self.drop_states, 0)
        if self.drop_inputs and self.drop_inputs_mask is None:
            self.drop_inputs_mask = self._mask(F, inputs, self.drop_inputs, 1)
        if self.drop_states:
            states = [F.elemwise_mul(states[0], self.drop_states_mask, name='_mul0')] + list(states[1:])
        if self.drop_inputs:
            inputs = F.elemwise_mul(inputs, self.drop_inputs_mask, name='_mul1')
        output, next_states = self.base_cell(inputs, states)
        if self.drop_outputs:
            if self.drop_outputs_mask is None:
                self.drop_outputs_mask = self._mask(F, output, self.drop_outputs, 2)
            output = F.elemwise_mul(output, self.drop_outputs_mask, name='_mul2')
        return output, next_states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None, valid_length=None):
        """Unroll (see RecurrentCell.unroll).  With ``drop_states`` the cell is stepped;
        otherwise the base cell is unrolled on the dropped-out inputs and its outputs are
        dropped out, each with one mask for all the steps."""
        if self.drop_states:
            return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                                  merge_outputs=merge_outputs, valid_length=valid_length)
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, True)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        if self.drop_inputs:
            inputs = F.Dropout(inputs, p=self.drop_inputs, axes=(axis,))
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs, begin_state=states, layout=layout,
                                                    merge_outputs=True, valid_length=valid_length)
        finally:
            self.base_cell._modified = True
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(axis,))
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, _TENSORS)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, merge_outputs)
        return outputs, states


def dynamic_unroll(cell, inputs, begin_state, drop_inputs=0, drop_outputs=0, layout='TNC', valid_length=None):
    """Run ``cell`` over every step of ``inputs`` (one array or Symbol, time on ``layout``'s T)
    inside one ``F.contrib.foreach`` loop; returns ``(outputs, final states)``, the outputs
    merged along the time axis of ``layout``.

    Unlike ``cell.unroll``, the graph holds the cell once, whatever the sequence's length.
    ``drop_inputs``/``drop_outputs``: dropout on the whole input/output sequence, one mask
    shared along axis ``layout.find('T')`` of the time-major arrays (for 'NTC' that is the
    batch axis, as in MXNet 1.9.1).  With ``valid_length`` (one length per sample) a sample's
    states stop changing after its last valid step, and its outputs past it are zeros: the
    loop carries the step number as one more state, and each new state is taken only where
    ``valid_length > step``.
    """
    inputs, axis, F, _ = _format_sequence(0, inputs, layout, True)
    axes = None
    if axis != 0:                   # foreach walks axis 0: time goes first
        axes = list(range(len(layout)))
        axes[0], axes[axis] = axes[axis], axes[0]
        inputs = F.transpose(inputs, axes=axes)
    if drop_inputs:
        inputs = F.Dropout(inputs, p=drop_inputs, axes=(axis,))
    states = _as_list(begin_state)
    if valid_length is None:
        def step(x, carried):
            return cell(x, carried)
    else:
        states = states + [F.zeros((1,))]

        def step(x, carried):
            previous, number = carried[:-1], carried[-1]
            out, new_states = cell(x, previous)
            running = F.broadcast_greater(valid_length, number)
            kept = [F.where(running, new, old) for new, old in zip(_as_list(new_states), previous)]
            return out, kept + [number + 1]
    outputs, states = F.contrib.foreach(step, inputs, states)
    if drop_outputs:
        outputs = F.Dropout(outputs, p=drop_outputs, axes=(axis,))
    if axes is not None:
        outputs = F.transpose(outputs, axes=axes)
    if valid_length is None:
        return outputs, states
    outputs = F.SequenceMask(outputs, sequence_length=valid_length, use_sequence_length=True, axis=axis)
    return outputs, _as_list(states)[:-1]
