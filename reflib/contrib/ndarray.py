"""``mx.contrib.ndarray`` (also ``mx.contrib.nd``): the older address of ``mx.nd.contrib``,
where MXNet 1.x scripts such as its CTC examples still find ``CTCLoss``.  The same functions."""

from ..ndarray.contrib import *          # noqa: F401,F403
from ..ndarray import contrib as _here

__all__ = [name for name in dir(_here) if not name.startswith('_')]
