"""Recurrent cells that build symbols: ``mx.rnn.RNNCell``, ``LSTMCell``, ``GRUCell`` and
``SequentialRNNCell``, with ``unroll`` and ``begin_state``.

A cell is not an operator.  Called on one step's input symbol and its states, it adds the
step's operators to the graph (two FullyConnected layers, the gates) and returns the
output and the next states; ``unroll(length, ...)`` calls it ``length`` times, every time
with the *same* weight variables, so an unrolled network has one set of parameters
however many steps it has.  The step's nodes get the names MXNet gives them
(``lstm_t0_i2h``, ``lstm_t1_i2h``, ...), so the graphs, their JSON and their checkpoints
are MXNet's.

The begin state is ``mx.sym.zeros(shape=(0, num_hidden))``: the batch size is a 0 that
shape inference fills in from the layer that reads the state.  An unrolled graph depends
on its length: that is why a language model trained on sentences of many lengths needs
one graph per length sharing one set of parameters, which is what BucketingModule does.
"""

import numpy as np

from .. import ndarray
from .. import symbol
from ..initializer import LSTMBias

__all__ = ['RNNParams', 'BaseRNNCell', 'RNNCell', 'LSTMCell', 'GRUCell', 'SequentialRNNCell', 'DropoutCell',
           'ModifierCell', 'ResidualCell', 'BidirectionalCell', 'ZoneoutCell']


def _normalize_sequence(length, inputs, layout, merge, in_layout=None):
    """``inputs`` as a list of ``length`` per-step symbols (``merge=False``), as one symbol with
    a time axis (``merge=True``), or as they are (``None``); and the time axis of ``layout``."""
    if inputs is None:
        raise ValueError('unroll needs its inputs: a symbol with a time axis, or a list of symbols')
    axis = layout.find('T')
    in_axis = in_layout.find('T') if in_layout is not None else axis
    if isinstance(inputs, symbol.Symbol):
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise ValueError('unroll: a grouped symbol is not one sequence; pass list(inputs) instead')
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1))
    else:
        if length is not None and len(inputs) != length:
            raise ValueError('unroll(length=%d) got %d inputs' % (length, len(inputs)))
        if merge is True:
            inputs = symbol.Concat(*[symbol.expand_dims(i, axis=axis) for i in inputs], dim=axis)
            in_axis = axis
    if isinstance(inputs, symbol.Symbol) and axis != in_axis:
        inputs = symbol.swapaxes(inputs, dim0=axis, dim1=in_axis)
    return inputs, axis


class RNNParams:
    """The weight variables of one or more cells, by name: cells given the same RNNParams
    share their weights.  Every name gets the container's prefix."""

    def __init__(self, prefix=''):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        """The variable ``prefix + name``, created (with ``kwargs``) the first time it is asked for."""
        name = self._prefix + name
        if name not in self._params:
            self._params[name] = symbol.Variable(name, **kwargs)
        return self._params[name]


class BaseRNNCell:
    """What every cell shares: its parameters, its begin state, unroll, and the packing of
    its gate weights (``unpack_weights``/``pack_weights``)."""

    def __init__(self, prefix='', params=None):
        if params is None:
            params = RNNParams(prefix)
            self._own_params = True
        else:
            self._own_params = False
        self._prefix = prefix
        self._params = params
        self._modified = False
        self.reset()

    def reset(self):
        """Start naming steps (``t0``, ``t1``, ...) and begin states from 0 again."""
        self._init_counter = -1
        self._counter = -1

    def __call__(self, inputs, states):
        """One step: ``(output, next states)`` from this step's input and the states."""
        raise NotImplementedError()

    @property
    def params(self):
        """The cell's RNNParams (once asked for, the cell no longer counts them as its own)."""
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        """One dict per state: its shape (0 for the batch) and layout."""
        raise NotImplementedError()

    @property
    def state_shape(self):
        """The shape of each state of the cell, in the order of ``state_info`` (0 stands for the
        batch size).
        """
        return [info['shape'] for info in self.state_info]

    @property
    def _gate_names(self):
        return ()

    def _gate_params(self, **i2h_bias_attrs):
        """The four weight variables of a gated cell: i2h and h2h, weight and bias."""
        self._iW = self.params.get('i2h_weight')
        self._iB = self.params.get('i2h_bias', **i2h_bias_attrs)
        self._hW = self.params.get('h2h_weight')
        self._hB = self.params.get('h2h_bias')

    def _hidden_states(self, count):
        """``count`` states of (batch, num_hidden), the batch left to shape inference."""
        return [{'shape': (0, self._num_hidden), '__layout__': 'NC'} for _ in range(count)]

    def begin_state(self, func=symbol.zeros, **kwargs):
        """The first step's states, made by ``func`` (zeros by default; ``symbol.Variable``
        makes them inputs), named ``<prefix>begin_state_<k>``."""
        if self._modified:
            raise ValueError('this cell is wrapped by a modifier cell (DropoutCell, ...): call the modifier')
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                kwargs.update(info)
            states.append(func(name='%sbegin_state_%d' % (self._prefix, self._init_counter), **kwargs))
        return states

    def unpack_weights(self, args):
        """``args`` (name -> NDArray) with each packed ``i2h``/``h2h`` weight and bias split into
        one array per gate (``lstm_i2h_i_weight``, ``lstm_i2h_f_weight``, ...)."""
        args = args.copy()
        if not self._gate_names:
            return args
        h = self._num_hidden
        for group in ('i2h', 'h2h'):
            weight = args.pop('%s%s_weight' % (self._prefix, group))
            bias = args.pop('%s%s_bias' % (self._prefix, group))
            for j, gate in enumerate(self._gate_names):
                args['%s%s%s_weight' % (self._prefix, group, gate)] = weight[j * h:(j + 1) * h].copy()
                args['%s%s%s_bias' % (self._prefix, group, gate)] = bias[j * h:(j + 1) * h].copy()
        return args

    def pack_weights(self, args):
        """The inverse of ``unpack_weights``: per-gate arrays joined into the packed ones."""
        args = args.copy()
        if not self._gate_names:
            return args
        for group in ('i2h', 'h2h'):
            weights, biases = [], []
            for gate in self._gate_names:
                weights.append(args.pop('%s%s%s_weight' % (self._prefix, group, gate)))
                biases.append(args.pop('%s%s%s_bias' % (self._prefix, group, gate)))
            args['%s%s_weight' % (self._prefix, group)] = ndarray.concatenate(weights)
            args['%s%s_bias' % (self._prefix, group)] = ndarray.concatenate(biases)
        return args

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        """Apply the cell ``length`` times: ``(outputs, last states)``.

        ``inputs`` is one symbol with a time axis (``layout``'s T), split into steps, or a
        list of per-step symbols.  ``merge_outputs=True`` joins the outputs into one symbol
        along the time axis, ``False`` keeps a list, ``None`` keeps the form of the inputs.
        """
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, False)
        states = self.begin_state() if begin_state is None else begin_state
        outputs = []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
        outputs, _ = _normalize_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, inputs, activation, **kwargs):
        if isinstance(activation, str):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)


class RNNCell(BaseRNNCell):
    """Elman cell: ``h' = activation(W_i x + b_i + W_h h + b_h)``; state ``[h]``."""

    def __init__(self, num_hidden, activation='tanh', prefix='rnn_', params=None):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._activation = activation
        self._gate_params()

    @property
    def state_info(self):
        return self._hidden_states(1)

    @property
    def _gate_names(self):
        return ('',)

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=self._num_hidden, name='%si2h' % name)
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB,
                                    num_hidden=self._num_hidden, name='%sh2h' % name)
        output = self._get_activation(i2h + h2h, self._activation, name='%sout' % name)
        return output, [output]


class LSTMCell(BaseRNNCell):
    """LSTM cell; states ``[h, c]``.  The four gates come from one pair of layers of
    ``4 * num_hidden`` units, in the order input, forget, candidate, output; the forget
    gate's bias starts at ``forget_bias`` (the LSTMBias initializer on ``i2h_bias``)."""

    def __init__(self, num_hidden, prefix='lstm_', params=None, forget_bias=1.0):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._gate_params(init=LSTMBias(forget_bias=forget_bias))

    @property
    def state_info(self):
        return self._hidden_states(2)

    @property
    def _gate_names(self):
        return ['_i', '_f', '_c', '_o']

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        n = self._num_hidden
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB, num_hidden=4 * n,
                                    name='%si2h' % name)
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB, num_hidden=4 * n,
                                    name='%sh2h' % name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, name='%sslice' % name)
        in_gate = symbol.Activation(gates[0], act_type='sigmoid', name='%si' % name)
        forget_gate = symbol.Activation(gates[1], act_type='sigmoid', name='%sf' % name)
        candidate = symbol.Activation(gates[2], act_type='tanh', name='%sc' % name)
        out_gate = symbol.Activation(gates[3], act_type='sigmoid', name='%so' % name)
        next_c = symbol.elemwise_add(forget_gate * states[1], in_gate * candidate, name='%sstate' % name)
        next_h = symbol.elemwise_mul(out_gate, symbol.Activation(next_c, act_type='tanh'), name='%sout' % name)
        return next_h, [next_h, next_c]


class GRUCell(BaseRNNCell):
    """GRU cell (Cho et al.); state ``[h]``.  Gates in the order reset, update, candidate; the
    reset gate multiplies the hidden layer's candidate part, as in MXNet and cuDNN."""

    def __init__(self, num_hidden, prefix='gru_', params=None):
        super().__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._gate_params()

    @property
    def state_info(self):
        return self._hidden_states(1)

    @property
    def _gate_names(self):
        return ['_r', '_z', '_o']

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        n, prev = self._num_hidden, states[0]
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB, num_hidden=3 * n,
                                    name='%s_i2h' % name)
        h2h = symbol.FullyConnected(data=prev, weight=self._hW, bias=self._hB, num_hidden=3 * n,
                                    name='%s_h2h' % name)
        i2h_r, i2h_z, i2h = symbol.SliceChannel(i2h, num_outputs=3, name='%s_i2h_slice' % name)
        h2h_r, h2h_z, h2h = symbol.SliceChannel(h2h, num_outputs=3, name='%s_h2h_slice' % name)
        reset = symbol.Activation(i2h_r + h2h_r, act_type='sigmoid', name='%s_r_act' % name)
        update = symbol.Activation(i2h_z + h2h_z, act_type='sigmoid', name='%s_z_act' % name)
        candidate = symbol.Activation(i2h + reset * h2h, act_type='tanh', name='%s_h_act' % name)
        next_h = symbol.elemwise_add((1. - update) * candidate, update * prev, name='%sout' % name)
        return next_h, [next_h]


class _CellGroup(BaseRNNCell):
    """Cells made of other cells (SequentialRNNCell, BidirectionalCell): the states, weights
    and resets of the group are those of its cells, in order."""

    def __init__(self, params=None):
        super().__init__(prefix='', params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def _adopt(self, cell):
        """Take ``cell`` in, sharing one params container (this group's, when it was given one)."""
        if self._override_cell_params:
            if not cell._own_params:
                raise ValueError('either give %s params or its cells, not both' % type(self).__name__)
            cell.params._params.update(self.params._params)
        self.params._params.update(cell.params._params)
        self._cells.append(cell)

    @property
    def state_info(self):
        return [info for cell in self._cells for info in cell.state_info]

    def begin_state(self, **kwargs):
        if self._modified:
            raise ValueError('this cell is wrapped by a modifier cell: call the modifier')
        return [state for cell in self._cells for state in cell.begin_state(**kwargs)]

    def unpack_weights(self, args):
        for cell in self._cells:
            args = cell.unpack_weights(args)
        return args

    def pack_weights(self, args):
        for cell in self._cells:
            args = cell.pack_weights(args)
        return args

    def _split_states(self, states):
        """``states`` cut into one list per cell."""
        pieces, start = [], 0
        for cell in self._cells:
            count = len(cell.state_info)
            pieces.append(states[start:start + count])
            start += count
        return pieces

    def reset(self):
        super().reset()
        for cell in getattr(self, '_cells', []):
            cell.reset()


class SequentialRNNCell(_CellGroup):
    """Cells stacked: each step runs them in order, the output of one the input of the next;
    the states are the cells' states, concatenated."""

    def add(self, cell):
        """Stack ``cell`` on top (with this container's params, when it was given some)."""
        self._adopt(cell)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        for cell, cell_states in zip(self._cells, self._split_states(states)):
            inputs, cell_states = cell(inputs, cell_states)
            next_states += cell_states
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        states = self.begin_state() if begin_state is None else begin_state
        last = len(self._cells) - 1
        next_states = []
        for k, (cell, cell_states) in enumerate(zip(self._cells, self._split_states(states))):
            inputs, cell_states = cell.unroll(length, inputs=inputs, begin_state=cell_states, layout=layout,
                                              merge_outputs=merge_outputs if k == last else None)
            next_states += cell_states
        return inputs, next_states


class DropoutCell(BaseRNNCell):
    """Dropout on the sequence passing through (no weights, no state): stacked between two
    cells in a SequentialRNNCell, it drops a fraction ``dropout`` of what one layer hands the
    next.  A merged sequence gets one Dropout node, a list one per step."""

    def __init__(self, dropout, prefix='dropout_', params=None):
        super().__init__(prefix, params)
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float, np.number)):
            raise ValueError('DropoutCell: dropout must be a number, got %r' % (dropout,))
        self.dropout = dropout

    @property
    def state_info(self):
        return []

    def __call__(self, inputs, states):
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, symbol.Symbol):
            return self(inputs, [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs)


class ModifierCell(BaseRNNCell):
    """A cell wrapped around ``base_cell`` that changes what it computes (ResidualCell); the
    base cell then refuses to be called on its own, and the modifier stands in for it."""

    def __init__(self, base_cell):
        super().__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self):
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self):
        return self.base_cell.state_info

    def begin_state(self, init_sym=symbol.zeros, **kwargs):
        if self._modified:
            raise ValueError('this cell is wrapped by a modifier cell: call the modifier')
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(init_sym, **kwargs)
        finally:
            self.base_cell._modified = True

    def unpack_weights(self, args):
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs, states):
        raise NotImplementedError()


class ResidualCell(ModifierCell):
    """The base cell's output plus its input (a residual connection, as in GNMT); the input
    and the output must have the same size."""

    def __call__(self, inputs, states):
        output, states = self.base_cell(inputs, states)
        return symbol.elemwise_add(output, inputs, name='%s_plus_residual' % output.name), states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state,
                                                    layout=layout, merge_outputs=merge_outputs)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, symbol.Symbol)
        inputs, _ = _normalize_sequence(length, inputs, layout, merge_outputs)
        if merge_outputs:
            return symbol.elemwise_add(outputs, inputs, name='%s_plus_residual' % outputs.name), states
        return [symbol.elemwise_add(out, inp, name='%s_plus_residual' % out.name)
                for out, inp in zip(outputs, inputs)], states


class BidirectionalCell(_CellGroup):
    """Two cells over one sequence, ``l_cell`` forwards and ``r_cell`` backwards; at each step
    the two outputs are concatenated (``<output_prefix>t<k>``, or ``<output_prefix>out`` for a
    merged sequence).  The states are the two cells' last states.  It can only be unrolled:
    a step needs the whole sequence."""

    def __init__(self, l_cell, r_cell, params=None, output_prefix='bi_'):
        super().__init__(params=params)
        self._output_prefix = output_prefix
        self._adopt(l_cell)
        self._adopt(r_cell)

    def __call__(self, inputs, states):
        raise NotImplementedError('a BidirectionalCell cannot be stepped: unroll it')

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None):
        self.reset()
        inputs, axis = _normalize_sequence(length, inputs, layout, False)
        states = self.begin_state() if begin_state is None else begin_state
        (l_cell, r_cell), (l_begin, r_begin) = self._cells, self._split_states(states)
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=l_begin, layout=layout,
                                            merge_outputs=merge_outputs)
        r_outputs, r_states = r_cell.unroll(length, inputs=list(reversed(inputs)), begin_state=r_begin,
                                            layout=layout, merge_outputs=merge_outputs)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, symbol.Symbol) and isinstance(r_outputs, symbol.Symbol)
            if not merge_outputs:
                if isinstance(l_outputs, symbol.Symbol):
                    l_outputs = list(symbol.SliceChannel(l_outputs, axis=axis, num_outputs=length,
                                                         squeeze_axis=1))
                if isinstance(r_outputs, symbol.Symbol):
                    r_outputs = list(symbol.SliceChannel(r_outputs, axis=axis, num_outputs=length,
                                                         squeeze_axis=1))
        if merge_outputs:
            # the backward cell saw the sequence reversed: flip its outputs back into time order
            l_outputs, r_outputs = [l_outputs], [symbol.reverse(r_outputs, axis=axis)]
        else:
            r_outputs = list(reversed(r_outputs))
        outputs = [symbol.Concat(l_out, r_out, dim=1 + merge_outputs,
                                 name=('%sout' % self._output_prefix) if merge_outputs
                                 else '%st%d' % (self._output_prefix, i))
                   for i, (l_out, r_out) in enumerate(zip(l_outputs, r_outputs))]
        return (outputs[0] if merge_outputs else outputs), [l_states, r_states]


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al.): in training, each unit of the output (and of each state)
    keeps its previous value with probability ``zoneout_outputs`` (``zoneout_states``)
    instead of taking the new one.  The choice is a Dropout of ones: at inference Dropout
    keeps everything, so the cell computes its base cell's values."""

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        if isinstance(base_cell, BidirectionalCell):
            raise ValueError('a BidirectionalCell cannot be stepped: zone out the cells inside it instead')
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output = None

    def reset(self):
        super().reset()
        self.prev_output = None

    def __call__(self, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def keep_new(p, like):
            return symbol.Dropout(symbol.ones_like(like), p=p)

        # before the first step the previous output is zeros, shaped by the new one (0 = inferred)
        prev_output = self.prev_output if self.prev_output is not None else symbol.zeros((0, 0))
        output = (symbol.where(keep_new(self.zoneout_outputs, next_output), next_output, prev_output)
                  if self.zoneout_outputs != 0. else next_output)
        if self.zoneout_states != 0.:
            next_states = [symbol.where(keep_new(self.zoneout_states, new), new, old)
                           for new, old in zip(next_states, states)]
        self.prev_output = output
        return output, next_states
