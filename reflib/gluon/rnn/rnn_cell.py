"""Gluon's recurrent cells: one time step as a Block, and ``unroll`` to run it over a sequence.

A cell is called on one step's input (batch, features) and the list of its states and
returns ``(output, next states)``.  ``unroll(length, inputs)`` calls it ``length`` times
with the same parameters; the inputs may be one array with a time axis (``layout`` 'NTC'
or 'TNC') or a list of per-step arrays, and the outputs come back as either
(``merge_outputs``).  Everything works on NDArrays (imperative, on the autograd tape) and
on Symbols (inside a hybridized parent, or to build a graph by hand): ``F`` is whichever of
``reflib.ndarray`` / ``reflib.symbol`` the inputs belong to.

The step's operators are named as MXNet names them: ``<prefix>t<step>_i2h``,
``..._out``, so a graph built from these cells lists the same outputs as MXNet's.
The containers (SequentialRNNCell, BidirectionalCell) and the modifiers (DropoutCell,
ZoneoutCell, ResidualCell) wrap other cells; the arithmetic of every step is operators of
reflib/operator/ (FullyConnected, SliceChannel, Activation, ...), nothing is computed here.
"""

from ... import ndarray
from ... import symbol
from ...base import numeric_types
from ...ndarray import NDArray
from ...symbol import Symbol
from ..block import Block, HybridBlock, _indent
from ..nn import LeakyReLU
from ..parameter import GluonAssertionError

__all__ = ['RecurrentCell', 'HybridRecurrentCell', 'RNNCell', 'LSTMCell', 'GRUCell', 'SequentialRNNCell',
           'HybridSequentialRNNCell', 'DropoutCell', 'ModifierCell', 'ZoneoutCell', 'ResidualCell',
           'BidirectionalCell']

_TENSORS = (NDArray, Symbol)


# ------------------------------------------------------------------ sequences
def _as_list(value):
    """The pieces of a split as a list: an NDArray call gives a list (one array when there
    is one piece), a Symbol call one grouped Symbol whose outputs are the pieces."""
    if isinstance(value, Symbol):
        return list(value) if len(value.list_outputs()) > 1 else [value]
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _format_sequence(length, inputs, layout, merge, in_layout=None):
    """Bring a sequence to the form ``unroll`` wants.

    ``inputs`` is one array/Symbol with a time axis (at ``in_layout``'s T, by default
    ``layout``'s) or a list of per-step arrays.  ``merge`` False: a list of ``length``
    per-step arrays; True: one array with time at ``layout``'s T; None: as given.  Returns
    ``(inputs, time axis, F, batch size)``; the batch size is 0 for Symbols (unknown)."""
    if inputs is None:
        raise GluonAssertionError('unroll needs its inputs (inputs=None is no longer accepted): create the input '
                                  'variables first and pass them')
    axis, batch_axis = layout.find('T'), layout.find('N')
    in_axis = in_layout.find('T') if in_layout is not None else axis
    batch_size = 0
    if isinstance(inputs, Symbol):
        F = symbol
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise GluonAssertionError('unroll: a grouped Symbol with %d outputs is not one sequence; pass '
                                          'list(inputs) to give the steps one by one' % len(inputs.list_outputs()))
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1))
    elif isinstance(inputs, NDArray):
        F = ndarray
        batch_size = inputs.shape[batch_axis]
        if merge is False:
            steps = inputs.shape[in_axis]
            if length is not None and length != steps:
                raise GluonAssertionError('unroll(length=%d): the inputs have %d steps on axis %d (shape %s)'
                                          % (length, steps, in_axis, inputs.shape))
            inputs = _as_list(ndarray.split(inputs, axis=in_axis, num_outputs=steps, squeeze_axis=1))
    else:
        if length is not None and len(inputs) != length:
            raise GluonAssertionError('unroll(length=%d) got a list of %d steps' % (length, len(inputs)))
        if isinstance(inputs[0], Symbol):
            F = symbol
        else:
            F = ndarray
            batch_size = inputs[0].shape[0]
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if isinstance(inputs, _TENSORS) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _get_begin_state(cell, F, begin_state, inputs, batch_size):
    """``begin_state`` if given, else zeros from the cell (on the inputs' context)."""
    if begin_state is not None:
        return begin_state
    if F is ndarray:
        first = inputs if isinstance(inputs, NDArray) else inputs[0]
        with first.context:
            return cell.begin_state(func=ndarray.zeros, batch_size=batch_size)
    return cell.begin_state(func=symbol.zeros, batch_size=batch_size)


def _mask_sequence_variable_length(F, data, length, valid_length, time_axis, merge):
    """Zero every step at or past each sample's ``valid_length``; a list comes back as
    a list unless ``merge``."""
    if not isinstance(data, _TENSORS):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(data, sequence_length=valid_length, use_sequence_length=True, axis=time_axis)
    if not merge:
        outputs = _as_list(F.split(outputs, num_outputs=length, axis=time_axis, squeeze_axis=True))
    return outputs


def _reverse_sequences(sequences, unroll_step, valid_length=None):
    """The per-step list backwards in time; with ``valid_length`` each sample's own first
    ``valid_length`` steps are reversed and its padding stays where it is."""
    if valid_length is None:
        return list(reversed(sequences))
    F = symbol if isinstance(sequences[0], Symbol) else ndarray
    reversed_steps = F.SequenceReverse(F.stack(*sequences, axis=0), sequence_length=valid_length,
                                       use_sequence_length=True)
    if unroll_step == 1 and F is ndarray:       # split into one piece gives an array, not a list
        return [reversed_steps[0]]
    return _as_list(F.split(reversed_steps, axis=0, num_outputs=unroll_step, squeeze_axis=True))


def _cells_state_info(cells, batch_size):
    return [info for cell in cells for info in cell.state_info(batch_size)]


def _cells_begin_state(cells, **kwargs):
    return [state for cell in cells for state in cell.begin_state(**kwargs)]


def _check_not_modified(cell):
    if cell._modified:
        raise GluonAssertionError("cell '%s' is wrapped by a modifier cell (ZoneoutCell, ResidualCell, ...): call "
                                  "the modifier, not the cell it wraps" % cell.name)


# ------------------------------------------------------------------ the bases
class RecurrentCell(Block):
    """The base of every cell: its states (``state_info``, ``begin_state``), stepping
    (calling it on one step) and ``unroll``.

    ``prefix`` names the cell's blocks and parameters; ``params`` shares another cell's
    parameters.  A cell counts its steps (``t0_``, ``t1_``, ... in the operators' names);
    ``reset()`` starts the count again, and ``unroll`` resets first."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Start counting steps and begin states from the beginning (this cell and the cells in it)."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            if isinstance(cell, RecurrentCell):     # (a block given as activation is a child too)
                cell.reset()

    def state_info(self, batch_size=0):
        """One dict per state: its ``shape`` (batch first) and ``__layout__``."""
        raise NotImplementedError('%s must define state_info' % type(self).__name__)

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """The states to start from: ``func(name=..., shape=..., **kwargs)`` per state.

        ``func`` is ``mx.nd.zeros`` (or ``ones``, ...) for NDArrays, with ``batch_size`` the
        real batch; for Symbols ``mx.sym.zeros`` leaves the batch (0) to shape inference and
        ``mx.sym.var`` makes the states inputs of the graph.  ``kwargs`` (``ctx``, ``dtype``,
        ...) go to ``func``."""
        _check_not_modified(self)
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            args = dict(info or {})
            args.update(kwargs)
            states.append(func(name='%sbegin_state_%d' % (self._prefix, self._init_counter), **args))
        return states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None, valid_length=None):
        """Run the cell over ``length`` steps: ``(outputs, final states)``.

        ``inputs``: one array with a time axis at ``layout``'s T, or a list of per-step
        (batch, ...) arrays.  ``begin_state``: the states to start from (zeros when None).
        ``merge_outputs``: True gives one array with time at ``layout``'s T, False a list,
        None whatever is at hand.  ``valid_length`` (batch,): each sample's real length; its
        outputs past it are zero and its final states are those of its last real step."""
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        outputs, every_state = [], []
        for step in range(length):
            output, states = self(inputs[step], states)
            outputs.append(output)
            if valid_length is not None:
                every_state.append(states)
        if valid_length is not None:
            # each sample's states as they were after its own last step
            states = [F.SequenceLast(F.stack(*per_step, axis=0), sequence_length=valid_length,
                                     use_sequence_length=True, axis=0)
                      for per_step in zip(*every_state)]
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        """Apply ``activation``: a name (tanh, relu, sigmoid, softsign or any Activation
        act_type), a LeakyReLU block (its slope), or any callable."""
        named = {'tanh': F.tanh, 'relu': F.relu, 'sigmoid': F.sigmoid, 'softsign': F.softsign}
        if isinstance(activation, str):
            if activation in named:
                return named[activation](inputs, **kwargs)
            return F.Activation(inputs, act_type=activation, **kwargs)
        if isinstance(activation, LeakyReLU):
            return F.LeakyReLU(inputs, act_type='leaky', slope=activation._alpha, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs, states):
        """One step: ``(output, next states)``."""
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A cell written as ``hybrid_forward(F, inputs, states, **params)``: it can be hybridized
    (each step then runs as one cached graph)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """Compute one time step of the cell; every hybrid cell defines it (call the cell, not this).

        Args:
            F: ``mx.nd`` or ``mx.sym``, the operators to compute with (see HybridBlock).
            inputs: this step's input, (batch, features).
            states: the list of current states, as ``state_info`` describes them.
            **kwargs: the cell's parameters by attribute name (``i2h_weight``, ``h2h_bias``, ...).

        Returns:
            ``(output, next_states)``: the step's output and the list of new states, as many as
            ``states``.
        """
        raise NotImplementedError('%s must define hybrid_forward' % type(self).__name__)


# ------------------------------------------------------------------ the three cells
class _GatedCell(HybridRecurrentCell):
    """What RNNCell, LSTMCell and GRUCell share: the input-to-hidden and hidden-to-hidden
    FullyConnected weights, ``gates`` rows per hidden unit, the first input size left to
    the first call (``input_size=0``)."""
    _gates = 1

    def __init__(self, hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, input_size, prefix, params):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        rows = self._gates * hidden_size
        self.i2h_weight = self.params.get('i2h_weight', shape=(rows, input_size), init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get('h2h_weight', shape=(rows, hidden_size), init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get('i2h_bias', shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get('h2h_bias', shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size, self._hidden_size), '__layout__': 'NC'}]

    def _mapping(self):
        rows, cols = self.i2h_weight.shape
        return '%s -> %s' % (cols if cols else None, rows)

    def __repr__(self):
        return '%s(%s)' % (type(self).__name__, self._mapping())

    def _linear(self, F, prefix, inputs, h, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        """Both sides' affine maps, named ``<prefix>i2h`` and ``<prefix>h2h``."""
        rows = self._gates * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=rows, name=prefix + 'i2h')
        h2h = F.FullyConnected(data=h, weight=h2h_weight, bias=h2h_bias, num_hidden=rows, name=prefix + 'h2h')
        return i2h, h2h


class RNNCell(_GatedCell):
    """Elman cell: ``h' = activation(W_i x + b_i + W_h h + b_h)``; the output is ``h'``.

    ``activation``: a name ('tanh', 'relu', ... any Activation act_type), a LeakyReLU
    block or a callable.  Parameters ``i2h_weight`` (hidden, input), ``h2h_weight``
    (hidden, hidden), ``i2h_bias`` and ``h2h_bias`` (hidden,), both biases zero at first.
    The default prefix is ``rnn<n>_``."""

    def __init__(self, hidden_size, activation='tanh', i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', input_size=0, prefix=None,
                 params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation

    def _alias(self):
        return 'rnn'

    def __repr__(self):
        return '%s(%s, %s)' % (type(self).__name__, self._mapping(), self._activation)

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        i2h, h2h = self._linear(F, prefix, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        output = self._get_activation(F, F.elemwise_add(i2h, h2h, name=prefix + 'plus0'), self._activation,
                                      name=prefix + 'out')
        return output, [output]


class LSTMCell(_GatedCell):
    """Long short-term memory cell.  The four gate blocks of the weights' rows are, in
    order, input ``i``, forget ``f``, candidate ``g`` and output ``o``::

        i, f, o = recurrent_activation(...)   g = activation(...)   (of W_i x + b_i + W_h h + b_h)
        c' = f * c + i * g                     h' = o * activation(c')

    States ``[h, c]``; the output is ``h'``.  Weights (4*hidden, input) and (4*hidden,
    hidden).  The default prefix is ``lstm<n>_``."""
    _gates = 4

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', input_size=0, prefix=None,
                 params=None, activation='tanh', recurrent_activation='sigmoid'):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size, self._hidden_size), '__layout__': 'NC'},
                {'shape': (batch_size, self._hidden_size), '__layout__': 'NC'}]

    def _alias(self):
        return 'lstm'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        i2h, h2h = self._linear(F, prefix, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        gates = F.SliceChannel(F.elemwise_add(i2h, h2h, name=prefix + 'plus0'), num_outputs=4,
                               name=prefix + 'slice')
        act, rec = self._activation, self._recurrent_activation
        in_gate = self._get_activation(F, gates[0], rec, name=prefix + 'i')
        forget_gate = self._get_activation(F, gates[1], rec, name=prefix + 'f')
        candidate = self._get_activation(F, gates[2], act, name=prefix + 'c')
        out_gate = self._get_activation(F, gates[3], rec, name=prefix + 'o')
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + 'mul0'),
                                F.elemwise_mul(in_gate, candidate, name=prefix + 'mul1'), name=prefix + 'state')
        next_h = F.elemwise_mul(out_gate, F.Activation(next_c, act_type=act, name=prefix + 'activation0'),
                                name=prefix + 'out')
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    """Gated recurrent unit, cuDNN's variant (the reset gate scales the hidden side *after*
    its matrix product, bias included).  Gate blocks in order reset ``r``, update ``z``,
    new ``n``::

        r = sigmoid(i2h_r + h2h_r)     z = sigmoid(i2h_z + h2h_z)
        n = tanh(i2h_n + r * h2h_n)    h' = (1 - z) * n + z * h

    Weights (3*hidden, input) and (3*hidden, hidden).  The default prefix is ``gru<n>_``."""
    _gates = 3

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', input_size=0, prefix=None,
                 params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)

    def _alias(self):
        return 'gru'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        h = states[0]
        i2h, h2h = self._linear(F, prefix, inputs, h, i2h_weight, h2h_weight, i2h_bias, h2h_bias)
        i2h_r, i2h_z, i2h_n = F.SliceChannel(i2h, num_outputs=3, name=prefix + 'i2h_slice')
        h2h_r, h2h_z, h2h_n = F.SliceChannel(h2h, num_outputs=3, name=prefix + 'h2h_slice')
        reset = F.Activation(F.elemwise_add(i2h_r, h2h_r, name=prefix + 'plus0'), act_type='sigmoid',
                             name=prefix + 'r_act')
        update = F.Activation(F.elemwise_add(i2h_z, h2h_z, name=prefix + 'plus1'), act_type='sigmoid',
                              name=prefix + 'z_act')
        new = F.Activation(F.elemwise_add(i2h_n, F.elemwise_mul(reset, h2h_n, name=prefix + 'mul0'),
                                          name=prefix + 'plus2'), act_type='tanh', name=prefix + 'h_act')
        ones = F.ones_like(update, name=prefix + 'ones_like0')
        next_h = F.elemwise_add(F.elemwise_mul(F.elemwise_sub(ones, update, name=prefix + 'minus0'), new,
                                               name=prefix + 'mul1'),
                                F.elemwise_mul(update, h, name=prefix + 'mul20'), name=prefix + 'out')
        return next_h, [next_h]


# ------------------------------------------------------------------ stacks
class _CellStack:
    """What both sequential cells share: ``add``, the states of all their cells one after
    the other, stepping every cell in turn and unrolling them one after the other."""

    def __repr__(self):
        lines = ['(%s): %s' % (key, _indent(repr(cell), 2)) for key, cell in self._children.items()]
        return '%s(\n%s\n)' % (type(self).__name__, '\n'.join(lines))

    def add(self, cell):
        """Append ``cell``: it reads the output of the cell before it."""
        self.register_child(cell)

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        _check_not_modified(self)
        return _cells_begin_state(self._children.values(), **kwargs)

    def _step(self, inputs, states):
        """One step through every cell; each takes its own slice of ``states``."""
        self._counter += 1
        next_states, pos = [], 0
        for cell in self._children.values():
            if isinstance(cell, BidirectionalCell):
                raise GluonAssertionError('%s: a BidirectionalCell (%s) cannot be stepped, only unrolled'
                                          % (type(self).__name__, cell.name))
            count = len(cell.state_info())
            inputs, cell_states = cell(inputs, states[pos:pos + count])
            pos += count
            next_states.extend(cell_states)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None, valid_length=None):
        """Unroll each cell over the whole sequence in turn (see RecurrentCell.unroll)."""
        self.reset()
        inputs, _, F, batch_size = _format_sequence(length, inputs, layout, None)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        cells = list(self._children.values())
        next_states, pos = [], 0
        for i, cell in enumerate(cells):
            count = len(cell.state_info())
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=begin_state[pos:pos + count],
                                         layout=layout, merge_outputs=merge_outputs if i == len(cells) - 1 else None,
                                         valid_length=valid_length)
            pos += count
            next_states.extend(states)
        return inputs, next_states

    def __getitem__(self, i):
        return self._children[str(i)]

    def __len__(self):
        return len(self._children)


class SequentialRNNCell(_CellStack, RecurrentCell):
    """Cells stacked: each step runs them in the order added (a plain Block; its cells
    may be hybridized, it may not)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def __call__(self, inputs, states):
        return self._step(inputs, states)


class HybridSequentialRNNCell(_CellStack, HybridRecurrentCell):
    """Cells stacked, all HybridBlocks, so that the stack can sit inside a hybridized block."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def __call__(self, inputs, states):
        return self._step(inputs, states)

    def hybrid_forward(self, F, inputs, states):
        return self._step(inputs, states)


# ------------------------------------------------------------------ dropout
class DropoutCell(HybridRecurrentCell):
    """Dropout on each step's input (in training); no states.  ``rate``: the fraction
    dropped; ``axes``: axes along which one mask is shared."""

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        if not isinstance(rate, numeric_types):
            raise GluonAssertionError('DropoutCell: rate must be a number, got %r' % (rate,))
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return '%s(rate=%s, axes=%s)' % (type(self).__name__, self._rate, self._axes)

    def state_info(self, batch_size=0):
        return []

    def _alias(self):
        return 'dropout'

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(data=inputs, p=self._rate, axes=self._axes, name='t%d_fwd' % self._counter)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None, valid_length=None):
        """A whole sequence at once when it is one array (valid_length plays no part: a
        padded step is dropped out like any other)."""
        self.reset()
        inputs, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, _TENSORS):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout, merge_outputs=merge_outputs,
                              valid_length=None)


# ------------------------------------------------------------------ modifiers
class ModifierCell(HybridRecurrentCell):
    """A cell that wraps another (``base_cell``) and changes what it does.  The wrapped
    cell is then only used through the modifier; the modifier's parameters are the base
    cell's."""

    def __init__(self, base_cell):
        if base_cell._modified:
            raise GluonAssertionError("cell '%s' is already wrapped by a modifier: a cell can be modified once"
                                      % base_cell.name)
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=symbol.zeros, **kwargs):
        _check_not_modified(self)
        self.base_cell._modified = False       # the one place the modifier lets its base act
        try:
            return self.base_cell.begin_state(func=func, **kwargs)
        finally:
            self.base_cell._modified = True

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError('%s must define hybrid_forward' % type(self).__name__)

    def __repr__(self):
        return '%s(%s)' % (type(self).__name__, self.base_cell)


class ZoneoutCell(ModifierCell):
    """Zoneout: in training each unit of the output (``zoneout_outputs``) and of each
    state (``zoneout_states``) keeps, with that probability, its previous value instead
    of the new one.  The masks come from the Dropout operator; outside training nothing
    is kept back."""

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        if isinstance(base_cell, BidirectionalCell):
            raise GluonAssertionError('ZoneoutCell cannot wrap a BidirectionalCell (%s), which cannot be stepped: '
                                      'wrap the cells inside it instead' % base_cell.name)
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self):
        return '%s(p_out=%s, p_state=%s, %s)' % (type(self).__name__, self.zoneout_outputs, self.zoneout_states,
                                                  self.base_cell)

    def _alias(self):
        return 'zoneout'

    def reset(self):
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def keep_new(p, like):
            # Dropout of ones: 0 where the old value is kept, nonzero where the new one is
            return F.Dropout(F.ones_like(like), p=p)
        prev_output = self._prev_output if self._prev_output is not None else F.zeros_like(next_output)
        if self.zoneout_outputs != 0.:
            output = F.where(keep_new(self.zoneout_outputs, next_output), next_output, prev_output)
        else:
            output = next_output
        if self.zoneout_states != 0.:
            states = [F.where(keep_new(self.zoneout_states, new), new, old) for new, old in zip(next_states, states)]
        else:
            states = next_states
        self._prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """A residual connection around the base cell: the output is the base cell's output
    plus the step's input (the sizes must agree)."""

    def __init__(self, base_cell):
        super().__init__(base_cell)

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        return F.elemwise_add(output, inputs, name='t%d_fwd' % self._counter), states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None, valid_length=None):
        """The base cell unrolled, then the inputs added (padded steps' inputs zeroed first)."""
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs, valid_length=valid_length)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, _TENSORS)
        inputs, axis, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if valid_length is not None:
            inputs = _mask_sequence_variable_length(F, inputs, length, valid_length, axis, merge_outputs)
        if merge_outputs:
            return F.elemwise_add(outputs, inputs), states
        return [F.elemwise_add(o, i) for o, i in zip(outputs, inputs)], states


# ------------------------------------------------------------------ bidirectional
class BidirectionalCell(HybridRecurrentCell):
    """Two cells over one sequence: ``l_cell`` forwards in time, ``r_cell`` backwards
    (with ``valid_length``, each sample backwards from its own last step).  Each step's
    output is the two outputs side by side; the states are ``l_cell``'s then ``r_cell``'s.
    It can only be unrolled.  Its outputs are named ``<output_prefix>t<step>`` (or
    ``<output_prefix>out`` merged)."""

    def __init__(self, l_cell, r_cell, output_prefix='bi_'):
        super().__init__(prefix='', params=None)
        self.register_child(l_cell, 'l_cell')
        self.register_child(r_cell, 'r_cell')
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise NotImplementedError('BidirectionalCell cannot be stepped (the backward half needs the whole '
                                  'sequence): use unroll')

    def __repr__(self):
        return '%s(forward=%s, backward=%s)' % (type(self).__name__, self._children['l_cell'],
                                                self._children['r_cell'])

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        _check_not_modified(self)
        return _cells_begin_state(self._children.values(), **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None, valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        reversed_inputs = _reverse_sequences(inputs, length, valid_length)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        l_cell, r_cell = self._children['l_cell'], self._children['r_cell']
        n_left = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=states[:n_left], layout=layout,
                                            merge_outputs=merge_outputs, valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(length, inputs=reversed_inputs, begin_state=states[n_left:],
                                            layout=layout, merge_outputs=False, valid_length=valid_length)
        r_outputs = _reverse_sequences(r_outputs, length, valid_length)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, _TENSORS)
        if merge_outputs:
            l_outputs, _, _, _ = _format_sequence(length, l_outputs, layout, True)
            outputs = F.concat(l_outputs, F.stack(*r_outputs, axis=axis), dim=2, name='%sout' % self._output_prefix)
        else:
            l_outputs, _, _, _ = _format_sequence(length, l_outputs, layout, False)
            outputs = [F.concat(l_out, r_out, dim=1, name='%st%d' % (self._output_prefix, i))
                       for i, (l_out, r_out) in enumerate(zip(l_outputs, r_outputs))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis, merge_outputs)
        return outputs, l_states + r_states
