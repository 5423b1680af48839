"""``mx.model``: MXNet's module of this name, as a facade over where reflib keeps each piece.

* checkpoints (``save_checkpoint``, ``load_checkpoint``, ``load_params``): reflib/checkpoint.py;
* ``BatchEndParam``, the tuple batch-end callbacks get: reflib/callback.py;
* ``FeedForward``, MXNet's legacy training API: reflib/feedforward.py.

Nothing inside reflib imports this file: it exists so that MXNet scripts find the names.
"""

from .callback import BatchEndParam
from .checkpoint import load_checkpoint, load_params, save_checkpoint, split_params
from .feedforward import FeedForward

__all__ = ['BatchEndParam', 'save_checkpoint', 'load_checkpoint', 'load_params', 'split_params', 'FeedForward']
