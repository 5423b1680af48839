"""``mx.contrib.symbol`` (also ``mx.contrib.sym``): the older address of ``mx.sym.contrib``.
The same functions."""

from ..symbol.contrib import *           # noqa: F401,F403
from ..symbol import contrib as _here

__all__ = [name for name in dir(_here) if not name.startswith('_')]
