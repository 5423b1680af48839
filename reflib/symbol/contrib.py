"""``mx.sym.contrib``: the ``_contrib_*`` operators under their short names, each node named
after the short name (``sparseembedding0``, ``ctc_loss0``), as MXNet names them."""

from .. import operator as _ops
from .linalg import short_named

_PREFIX = '_contrib_'

for _name in _ops.list_operators():
    if _name.startswith(_PREFIX):
        globals()[_name[len(_PREFIX):]] = short_named(_name, _name[len(_PREFIX):].lower())
del _name
