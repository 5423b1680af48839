"""reflib: a readable reference implementation of Apache MXNet 1.x's symbolic API.

``import reflib as mx`` and an MXNet 1.x symbolic script runs unchanged.
"""

from . import base
from .base import MXNetError
from .context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus
from . import random
from . import ndarray
from . import ndarray as nd
from . import operator

__version__ = '0.1.0'
