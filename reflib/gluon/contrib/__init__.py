"""``gluon.contrib``: Gluon pieces MXNet 1.9.1 keeps outside the core API.

reflib has its ``nn`` part: layers that combine other layers (Concurrent, HybridConcurrent,
Identity), a row_sparse embedding (SparseEmbedding), batch normalisation through the
``_contrib_SyncBatchNorm`` operator (SyncBatchNorm) and pixel shuffling (PixelShuffle1D/2D/3D);
its ``rnn`` part: the projected LSTM (LSTMPCell), variational dropout
(VariationalDropoutCell), the convolutional RNN/LSTM/GRU cells (Conv1DRNNCell, ...) and
``dynamic_unroll`` (a cell stepped by ``contrib.foreach``); from ``data`` the
IntervalSampler and the WikiText data sets (``data.text``, read from disk); and ``cnn``'s
deformable convolution layers (DeformableConvolution, ModulatedDeformableConvolution); and
``estimator``, a ready-made training loop with event handlers.
"""

from . import cnn
from . import data
from . import estimator
from . import nn
from . import rnn

__all__ = ['cnn', 'data', 'estimator', 'nn', 'rnn']
