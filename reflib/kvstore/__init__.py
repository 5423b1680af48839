"""``mx.kv`` / ``mx.kvstore``: key-value stores that sum gradients and hold weights.

* ``create(name)`` makes a store: ``'local'`` / ``'device'`` (one process,
  several devices; ``kvstore.py``) or ``'dist_sync'`` / ``'dist_async'`` /
  ``'dist_device_sync'`` (several processes; ``dist.py``).
* ``KVStore`` is the local/device store, ``DistKVStore`` a worker's handle on
  the parameter servers, ``KVStoreBase`` the interface every store has (and
  the registry for custom ones).

The distributed pieces, one idea per file: ``server.py`` is what a parameter
server does with pushes and pulls; ``dist.py`` what a worker does (which
server holds which key, push, pull); ``mpi.py`` how their messages travel
(MPI ranks, roles, waiting without spinning, aborting a failed job).
"""

from .base import KVStoreBase, KVStoreError
from .kvstore import KVStore, create
from .dist import DistKVStore
from . import mpi

__all__ = ['create', 'KVStore', 'DistKVStore', 'KVStoreBase', 'KVStoreError']
