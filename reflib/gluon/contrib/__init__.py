"""``gluon.contrib``: Gluon pieces MXNet 1.9.1 keeps outside the core API.

reflib has its ``nn`` part: layers that combine other layers (Concurrent, HybridConcurrent,
Identity), a row_sparse embedding (SparseEmbedding), batch normalisation through the
``_contrib_SyncBatchNorm`` operator (SyncBatchNorm) and pixel shuffling (PixelShuffle1D/2D/3D);
and its ``rnn`` part: the projected LSTM (LSTMPCell), variational dropout
(VariationalDropoutCell) and the convolutional RNN/LSTM/GRU cells (Conv1DRNNCell, ...).
MXNet's ``contrib.data``, ``contrib.cnn`` and ``contrib.estimator`` are not here.
"""

from . import nn
from . import rnn

__all__ = ['nn', 'rnn']
