"""Gluon: MXNet's imperative interface, where a model is Python code run on NDArrays.

Instead of declaring a graph (Symbol) and binding it, a Gluon program calls its layers on
NDArrays directly, records the computation with ``autograd`` and steps the parameters with
a Trainer.  ``hybridize()`` turns a HybridBlock back into a Symbol run by the executor.
"""

from .parameter import Parameter, Constant, ParameterDict, DeferredInitializationError
from .block import Block, HybridBlock, SymbolBlock
from . import nn
from . import rnn
from . import loss
from . import utils
from . import data
from . import contrib
from . import model_zoo      # (after contrib: SqueezeNet's fire modules are HybridConcurrent)
from .trainer import Trainer

__all__ = ['Parameter', 'Constant', 'ParameterDict', 'DeferredInitializationError', 'Block', 'HybridBlock',
           'SymbolBlock', 'Trainer', 'nn', 'rnn', 'loss', 'utils', 'data',
           'contrib', 'model_zoo']
