"""``mx.attribute``: where MXNet keeps ``AttrScope``.  reflib's lives with the Symbol
(reflib/symbol/attribute.py); this module is MXNet's path to it, so that
``from mxnet.attribute import AttrScope`` works unchanged."""

from .symbol.attribute import AttrScope  # noqa: F401

__all__ = ['AttrScope']
