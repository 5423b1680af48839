"""``mx.name``: where MXNet keeps ``NameManager`` and ``Prefix``.  reflib's live with the
Symbol (reflib/symbol/naming.py); this module is MXNet's path to them, so that
``from mxnet.name import NameManager`` works unchanged."""

from .symbol.naming import NameManager, Prefix  # noqa: F401

__all__ = ['NameManager', 'Prefix']
