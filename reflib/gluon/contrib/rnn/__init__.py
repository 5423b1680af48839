"""``gluon.contrib.rnn``: the extra recurrent cells of rnn_cell.py (LSTMPCell,
VariationalDropoutCell) and conv_rnn_cell.py (the convolutional RNN/LSTM/GRU cells over 1, 2
and 3 spatial dimensions), under the names MXNet 1.9.1 gives them
(``from mxnet.gluon.contrib.rnn import LSTMPCell``).  ``dynamic_unroll`` stays in
``rnn_cell``, where MXNet has it too."""

from .rnn_cell import LSTMPCell, VariationalDropoutCell
from .conv_rnn_cell import (Conv1DRNNCell, Conv2DRNNCell, Conv3DRNNCell, Conv1DLSTMCell, Conv2DLSTMCell,
                            Conv3DLSTMCell, Conv1DGRUCell, Conv2DGRUCell, Conv3DGRUCell)

__all__ = ['Conv1DRNNCell', 'Conv2DRNNCell', 'Conv3DRNNCell', 'Conv1DLSTMCell', 'Conv2DLSTMCell',
           'Conv3DLSTMCell', 'Conv1DGRUCell', 'Conv2DGRUCell', 'Conv3DGRUCell', 'LSTMPCell',
           'VariationalDropoutCell']
