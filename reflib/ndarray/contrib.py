"""``mx.nd.contrib``: the ``_contrib_*`` operators under their short names
(``contrib.ctc_loss``, ``contrib.SparseEmbedding``)."""

from .. import operator as _ops
from .op_functions import make_function

_PREFIX = '_contrib_'

for _name in _ops.list_operators():
    if _name.startswith(_PREFIX):
        globals()[_name[len(_PREFIX):]] = make_function(_name)
del _name
