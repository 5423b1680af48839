"""``mx.nd.linalg``: the ``_linalg_*`` operators under their short names (``linalg.potrf``)."""

from .. import operator as _ops
from .op_functions import make_function

_PREFIX = '_linalg_'

for _name in _ops.list_operators():
    if _name.startswith(_PREFIX):
        globals()[_name[len(_PREFIX):]] = make_function(_name)
del _name
