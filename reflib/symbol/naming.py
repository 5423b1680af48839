"""Automatic node names: ``fullyconnected0``, ``_plus1``, ``relu1`` ...

MXNet names an unnamed operator ``<hint><counter>`` where the hint is the
operator name in lower case (``FullyConnected`` -> ``fullyconnected``) or a
special hint for the arithmetic overloads (``a + b`` -> ``_plus``).  One
counter per hint lives in the current NameManager; ``with NameManager():``
starts fresh counters, ``with Prefix('net1_'):`` prepends a prefix.
"""

import threading

from ..base import ClassPropertyType, thread_current

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

    current = thread_current(_current, lambda: NameManager(),
                             """The innermost NameManager entered on this thread; outside any ``with``
                             block, one made on first use whose counters then go on for the whole
                             thread.""")


class Prefix(NameManager):
    """Prepends ``prefix`` to every name, given or generated."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)
