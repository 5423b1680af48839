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

from .. import profiler as _profiler
from ..base import string_types
from .base import KVStoreBase, KVStoreError
from .kvstore import KVStore, LOCAL_TYPES, _UNAVAILABLE, _KVTypeError
from . import dist
from .dist import DistKVStore
from . import mpi

__all__ = ['create', 'KVStore', 'DistKVStore', 'KVStoreBase', 'KVStoreError']


# the factory sits above both kinds of store: kvstore.py and dist.py need not know each other
def create(name='local'):
    """A new KVStore.

    ``'local'`` (also ``'local_update_cpu'``, ``'local_allreduce_cpu'``) sums on
    the CPU; ``'device'`` (also ``'local_allreduce_device'``) sums on the
    first value's device.  Names are case-insensitive.  Names containing
    ``dist`` ask for a distributed store, which runs over MPI.  A class
    registered with ``KVStoreBase.register`` is found by its lower-cased name.
    """
    if not isinstance(name, string_types):
        raise _KVTypeError('kvstore.create: the name must be a str such as "local", got %s %r'
                           % (type(name).__name__, name))
    key = name.lower()
    if _profiler.ACTIVE and _profiler.records('api'):
        _profiler.span('MXNET_C_API', 'MXKVStoreCreate', _profiler.now_us())
    if key in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[key]()
    if key in LOCAL_TYPES:
        return KVStore(key)
    if 'dist' in key:
        return dist.create(key)
    if key in _UNAVAILABLE:
        raise KVStoreError('kvstore.create(%r): this store is not available in reflib: %s' % (name, _UNAVAILABLE[key]))
    raise KVStoreError('kvstore.create(%r): unknown KVStore type; reflib has %s and the distributed '
                       '"dist_sync" (and registered ones: %s)'
                       % (name, ', '.join(repr(t) for t in LOCAL_TYPES), sorted(KVStoreBase.kv_registry) or 'none'))

