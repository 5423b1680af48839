"""``gluon.rnn``: recurrent cells that run one step at a time and unroll over a sequence
(rnn_cell.py), and the fused layers that run a whole stack over a whole sequence in one
``RNN`` operator (rnn_layer.py).

(The names are listed one by one rather than star-imported, so that a linter can check
them; tests/test_gluon_rnn.py checks that the list agrees with the modules' __all__.)
"""

from .rnn_cell import (RecurrentCell, HybridRecurrentCell, RNNCell, LSTMCell, GRUCell, SequentialRNNCell,
                       HybridSequentialRNNCell, DropoutCell, ModifierCell, ZoneoutCell, ResidualCell,
                       BidirectionalCell)
from .rnn_layer import RNN, LSTM, GRU

__all__ = ['RecurrentCell', 'HybridRecurrentCell', 'RNNCell', 'LSTMCell', 'GRUCell', 'SequentialRNNCell',
           'HybridSequentialRNNCell', 'DropoutCell', 'ModifierCell', 'ZoneoutCell', 'ResidualCell',
           'BidirectionalCell', 'RNN', 'LSTM', 'GRU']
