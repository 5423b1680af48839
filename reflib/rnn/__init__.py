"""``mx.rnn``: recurrent cells that build unrolled symbols (rnn_cell.py) and their convolutional
versions (conv_rnn_cell.py), the fused cell that runs a whole stack as one RNN operator
(fused.py), text iterators for language models (io.py), and checkpoints of cell weights (rnn.py)."""

from .rnn_cell import (RNNParams, BaseRNNCell, RNNCell, LSTMCell, GRUCell,  # noqa: F401
                       SequentialRNNCell, DropoutCell, ModifierCell, ResidualCell, BidirectionalCell,
                       ZoneoutCell)
from .conv_rnn_cell import BaseConvRNNCell, ConvRNNCell, ConvLSTMCell, ConvGRUCell  # noqa: F401
from .fused import FusedRNNCell  # noqa: F401
from .io import encode_sentences, BucketSentenceIter  # noqa: F401
from .rnn import save_rnn_checkpoint, load_rnn_checkpoint, do_rnn_checkpoint  # noqa: F401
