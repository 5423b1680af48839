"""``mx.nd.image``: the ``_image_*`` operators under their short names (``image.to_tensor``)."""

from .. import operator as _ops
from .op_functions import make_function

_PREFIX = '_image_'


def _short(op_name):
    fn = make_function(op_name)
    fn.__name__ = op_name[len(_PREFIX):]
    return fn


for _name in _ops.list_operators():
    if _name.startswith(_PREFIX):
        globals()[_name[len(_PREFIX):]] = _short(_name)
del _name
