"""``mx.contrib``: MXNet's experimental packages.  reflib has automatic mixed precision (amp)."""

from . import amp

__all__ = ['amp']
