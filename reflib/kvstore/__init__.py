"""``mx.kv`` / ``mx.kvstore``: key-value stores that sum gradients and hold weights.

* ``create(name)`` makes a store: ``'local'`` / ``'device'`` (one process,
  several devices; ``kvstore.py``) or ``'dist_sync'`` (several processes over
  MPI; ``dist.py``, not yet in reflib).
* ``KVStore`` is the local/device store, ``KVStoreBase`` the interface every
  store has (and the registry for custom ones).

For ``dist*`` names ``create`` imports ``dist.py`` and calls its
``create(name)``; while there is no ``dist.py`` (or mpi4py is missing) it
raises a KVStoreError saying that distributed stores need MPI.
"""

from .base import KVStoreBase, KVStoreError
from .kvstore import KVStore, create

__all__ = ['create', 'KVStore', 'KVStoreBase', 'KVStoreError']
