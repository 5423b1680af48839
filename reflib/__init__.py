"""reflib: a readable reference implementation of Apache MXNet 1.x's symbolic API.

``import reflib as mx`` and an MXNet 1.x symbolic script runs unchanged.
"""

from . import base
from . import util
from .util import is_np_shape, set_np_shape, np_shape, use_np_shape
from .util import is_np_array, np_array, use_np_array, use_np
from .base import MXNetError
from .context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus
from . import random
from . import ndarray
from . import ndarray as nd
from . import numpy as np
from . import numpy_extension as npx
# mx.nd.np and mx.nd.npx: MXNet's NumPy functions over arrays, reachable as F.np in a block's
# hybrid_forward run imperatively (F is mx.nd); set here because mx.np is built on mx.nd
ndarray.np, ndarray.npx = np, npx
from . import kvstore
from . import kvstore as kv
from . import operator
from . import symbol
from . import symbol as sym
from .symbol import AttrScope, NameManager
from . import name
from . import attribute
from . import autograd
from . import executor
from .executor import Executor
from . import test_utils
from . import io
from . import recordio
from . import model
from . import initializer
from . import initializer as init
from . import metric
from . import callback
from . import monitor
from . import monitor as mon
from .monitor import Monitor
from . import module
from . import module as mod
from . import visualization
from . import visualization as viz
from . import rnn
from . import lr_scheduler
from . import runtime
from . import profiler
from . import optimizer
from . import optimizer as opt
from . import gluon
from . import image
from . import contrib

__version__ = '0.1.0'

# In a distributed job (mpiexec with DMLC_NUM_SERVER set) a server rank starts serving here and
# never returns: the same script runs on every process, as in MXNet (reflib/kvstore/mpi.py).
kvstore.mpi.start_if_distributed()
