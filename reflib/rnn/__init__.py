"""``mx.rnn``: recurrent cells that build unrolled symbols (see rnn_cell.py)."""

from .rnn_cell import (RNNParams, BaseRNNCell, RNNCell, LSTMCell, GRUCell,  # noqa: F401
                       SequentialRNNCell)
