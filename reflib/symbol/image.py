"""``mx.sym.image``: the ``_image_*`` operators under their short names (``image.to_tensor``).

As in MXNet, a node made here is named after the short name (``to_tensor0``), not after
the operator.
"""

from .. import operator as _ops
from .linalg import short_named

_PREFIX = '_image_'

for _name in _ops.list_operators():
    if _name.startswith(_PREFIX):
        globals()[_name[len(_PREFIX):]] = short_named(_name, _name[len(_PREFIX):])
del _name
