"""``mx.sym.linalg``: the ``_linalg_*`` operators under their short names (``linalg.gemm``).

As in MXNet, a node made here is named after the short name (``gemm0``, ``det1``), not
after the operator (``_linalg_gemm0``).
"""

from .. import operator as _ops
from .naming import NameManager
from .symbol import invoke

_PREFIX = '_linalg_'


def short_named(op_name, short):
    """``mx.sym.<namespace>.<short>``: operator ``op_name``, its nodes named ``<short><n>``."""
    def creator(*args, **kwargs):
        if not kwargs.get('name'):
            # the short name as the hint, counted by the current manager; its prefix (if it
            # is a Prefix) is added once, by invoke, as to a name the user gave
            kwargs['name'] = NameManager.get(NameManager.current, None, short)
        return invoke(op_name, *args, **kwargs)
    creator.__name__ = short
    creator.__doc__ = _ops.get(op_name).help_text()
    return creator


for _name in _ops.list_operators():
    if _name.startswith(_PREFIX):
        globals()[_name[len(_PREFIX):]] = short_named(_name, _name[len(_PREFIX):])
del _name
