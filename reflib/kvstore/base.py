"""What every KVStore offers, whatever moves the numbers: ``KVStoreBase``.

A key-value store holds one array per *key* (a parameter's name or index).
Workers ``push`` gradients to a key and ``pull`` the current value back.  The
local store (``kvstore.py``) does this inside one process, for several devices;
a distributed store (``dist.py``, later) does it across processes.  Both
subclass ``KVStoreBase`` so that Module can use either through the same
methods, and custom stores can be added with ``KVStoreBase.register``.
"""

from ..base import MXNetError
from ..registry import Registry

__all__ = ['KVStoreBase', 'KVStoreError', 'TestStore']


class KVStoreError(MXNetError, ValueError):
    """A KVStore was misused: an unknown or uninitialised key, a shape that does not fit, ..."""


class KVStoreBase:
    """The interface of a key-value store (local, device or distributed).

    ``pushpull`` and ``broadcast`` are the two calls a data-parallel trainer
    needs; ``set_optimizer`` moves the optimizer step into the store.
    ``is_capable`` lets a caller ask whether a store can do that.
    """

    # capabilities a store may have (see is_capable)
    OPTIMIZER = 'optimizer'

    # lower-cased class name -> class; ``create`` looks here before the built-in stores
    kv_registry = Registry('KVStore', error=KVStoreError)       # its base is set below the class

    def broadcast(self, key, value, out, priority=0):
        """Initialise ``key`` with ``value`` and copy it into every array of ``out``."""
        raise NotImplementedError()

    def pushpull(self, key, value, out=None, priority=0):
        """Sum ``value`` (over devices, and workers) into ``key`` and copy the result to ``out``."""
        raise NotImplementedError()

    def set_optimizer(self, optimizer):
        """Run ``optimizer`` inside the store: a push then updates the stored weight."""
        raise NotImplementedError()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the states of the optimizer the store runs (see ``set_optimizer``) to the file
        ``fname``; with ``dump_optimizer`` the optimizer itself is saved along with them.

        Only meaningful for a store that runs the update (``is_capable(OPTIMIZER)``); the base
        class raises NotImplementedError.
        """
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        """Restore the optimizer states that ``save_optimizer_states`` wrote to the file ``fname``
        into the optimizer the store runs.  The base class raises NotImplementedError.
        """
        raise NotImplementedError()

    def is_capable(self, capability):
        """Whether this store can do ``capability`` (``KVStoreBase.OPTIMIZER``: run the update)."""
        raise NotImplementedError()

    @property
    def type(self):
        """The store's name, as given to ``create`` (lower-cased)."""
        raise NotImplementedError()

    @property
    def rank(self):
        """This worker's number among ``num_workers`` (0 for a local store)."""
        raise NotImplementedError()

    @property
    def num_workers(self):
        """How many worker processes share the store (1 for a local store)."""
        raise NotImplementedError()

    @staticmethod
    def register(klass):
        """Class decorator: ``create(klass.__name__.lower())`` then returns ``klass()``."""
        return KVStoreBase.kv_registry.register(klass)


KVStoreBase.kv_registry.base = KVStoreBase


@KVStoreBase.register
class TestStore(KVStoreBase):
    """The smallest custom store, registered as ``'teststore'`` (MXNet ships it too): it sums
    a list of values on the first one's context and writes the sum back; it cannot run an
    optimizer, so a trainer over it updates the weights itself."""

    def broadcast(self, key, value, out, priority=0):
        for target in (out if isinstance(out, list) else [out]):
            target[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        if isinstance(value, (list, tuple)):
            ctx = value[0].context
            total = value[0].as_in_context(ctx).copy()
            for v in value[1:]:
                total += v.as_in_context(ctx)
        else:
            total = value
        targets = (list(value) if isinstance(value, (list, tuple)) else []) if out is None else \
            (out if isinstance(out, list) else [out])
        for target in targets:
            target[:] = total

    @staticmethod
    def is_capable(capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise KVStoreError('Unknown capability: %s' % (capability,))

    @property
    def type(self):
        return 'teststore'

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1

    def set_optimizer(self, optimizer):
        raise NotImplementedError('teststore cannot run an optimizer (is_capable("optimizer") is False)')

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Always raises NotImplementedError: this store runs no optimizer, so it has no states."""
        raise NotImplementedError('teststore holds no optimizer states')

    def load_optimizer_states(self, fname):
        """Always raises NotImplementedError: this store runs no optimizer, so it has no states."""
        raise NotImplementedError('teststore holds no optimizer states')
