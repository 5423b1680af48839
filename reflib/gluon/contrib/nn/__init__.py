"""``gluon.contrib.nn``: the layers of basic_layers.py, under the names MXNet 1.9.1 gives them
(``from mxnet.gluon.contrib.nn import HybridConcurrent``)."""

from .basic_layers import (Concurrent, HybridConcurrent, Identity, SparseEmbedding, SyncBatchNorm,
                           PixelShuffle1D, PixelShuffle2D, PixelShuffle3D)

__all__ = ['Concurrent', 'HybridConcurrent', 'Identity', 'SparseEmbedding', 'SyncBatchNorm',
           'PixelShuffle1D', 'PixelShuffle2D', 'PixelShuffle3D']
