"""Automatic node names: ``fullyconnected0``, ``_plus1``, ``relu1`` ...

MXNet names an unnamed operator ``<hint><counter>`` where the hint is the
operator name in lower case (``FullyConnected`` -> ``fullyconnected``) or a
special hint for the arithmetic overloads (``a + b`` -> ``_plus``).  One
counter per hint lives in the current NameManager; ``with NameManager():``
starts fresh counters, ``with Prefix('net1_'):`` prepends a prefix.
"""

import threading

from ..base import classproperty, ClassPropertyType

__all__ = ['NameManager', 'Prefix']


class NameManager(metaclass=ClassPropertyType):
    """Hands out names; the innermost ``with`` block is the current one
    (``NameManager.current``, per thread)."""
    _current = threading.local()

    def __init__(self):
        self._counter = {}
        self._old = None

    def get(self, name, hint):
        """``name`` if the user gave one, else the next ``<hint><n>``."""
        if name:
            return name
        n = self._counter.get(hint, 0)
        self._counter[hint] = n + 1
        return '%s%d' % (hint, n)

    def __enter__(self):
        self._old = NameManager.current
        NameManager._current.value = self
        return self

    def __exit__(self, *exc):
        NameManager._current.value = self._old

    def _current_manager(cls):
        """The innermost NameManager entered on this thread; outside any ``with`` block, one made on
        first use whose counters then go on for the whole thread.  Assigning to
        ``NameManager.current`` replaces it for this thread alone, as in MXNet.
        """
        if not hasattr(NameManager._current, 'value'):
            NameManager._current.value = NameManager()
        return NameManager._current.value

    def _set_current_manager(cls, manager):
        NameManager._current.value = manager

    current = classproperty(_current_manager, _set_current_manager)
    del _current_manager, _set_current_manager


class Prefix(NameManager):
    """Prepends ``prefix`` to every name, given or generated."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)
