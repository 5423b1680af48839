"""One small registry: things MXNet lets a user name with a string, found by that name.

Operators (``'FullyConnected'``), metrics (``'acc'``), initializers (``'xavier'``),
optimizers (``'sgd'``) and KVStore classes are each kept in one of these.  A registry is a
dict from name to entry, so ``Optimizer.opt_registry`` and ``KVStoreBase.kv_registry`` stay
the plain mappings MXNet code reads; what it adds is the rules each kind keeps:

* ``base``: entries must be subclasses of it (a clear error names the culprit);
* ``lower``: names are case-insensitive (stored lower-cased), as for every kind but operators;
* ``on_replace``: registering under a taken name ``'replace'``s the entry silently,
  ``'warn'``s (as MXNet does, even for the same class), or ``'raise'``s (operators: two
  with one name is a bug);
* ``error``: the exception ``find`` raises for an unknown name, listing the known ones.
"""

import warnings

__all__ = ['Registry']


class Registry(dict):
    def __init__(self, kind, base=None, lower=True, on_replace='replace', error=KeyError):
        super().__init__()
        self.kind, self.base, self.lower, self.on_replace, self.error = kind, base, lower, on_replace, error

    def key(self, name):
        """The dict key ``name`` is stored under: lower-cased when the registry's names are
        case-insensitive (``lower=True``), else ``name`` as it is.
        """
        return name.lower() if self.lower else name

    def register(self, entry, name=None):
        """Add ``entry`` under ``name`` (default: its class's name); returns ``entry``, so that
        it serves as a class decorator."""
        klass = entry if isinstance(entry, type) else type(entry)
        if self.base is not None and not (isinstance(entry, type) and issubclass(entry, self.base)):
            raise self.error('register: %r is not a subclass of %s' % (entry, self.base.__name__))
        key = self.key(name or klass.__name__)
        old = self.get(key)
        if old is not None:
            if self.on_replace == 'raise' and old is not entry:
                raise AssertionError('%s %r registered twice' % (self.kind, key))
            if self.on_replace == 'warn':       # as MXNet: even the same class, registered again
                was = old if isinstance(old, type) else type(old)
                warnings.warn('%s %r: %s.%s replaces %s.%s' % (self.kind, key, klass.__module__, klass.__name__,
                                                              was.__module__, was.__name__),
                              UserWarning, stacklevel=2)
        self[key] = entry
        return entry

    def alias(self, *names):
        """A class decorator registering under extra names: ``@alias('acc')``."""
        def decorate(klass):
            for name in names:
                self.register(klass, name)
            return klass
        return decorate

    def find(self, name):
        """The entry registered as ``name``; ``error`` naming the known ones if there is none."""
        entry = self.get(self.key(name))
        if entry is None:
            raise self.error('unknown %s %r; registered %ss are %s'
                             % (self.kind, name, self.kind, ', '.join(sorted(self))))
        return entry
