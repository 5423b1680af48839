"""``mx.sym``: build graphs.  Every registered operator is a function here."""

import types

from .symbol import Symbol, Variable, var, Group, invoke  # noqa: F401
from .naming import NameManager, Prefix  # noqa: F401
from .attribute import AttrScope  # noqa: F401
from .serialization import load, load_json  # noqa: F401
from .. import operator as _ops


def _make_function(op_name):
    op = _ops.get(op_name)

    def creator(*args, **kwargs):
        return invoke(op_name, *args, **kwargs)
    creator.__name__ = op_name
    creator.__doc__ = operator_doc(op)
    return creator


def operator_doc(op):
    """A help text built from the operator's registry entry."""
    lines = [(type(op).__doc__ or op.name).strip(), '', 'Parameters:']
    for key, spec in sorted(op.params.items()):
        default = 'required' if spec.required else 'default %r' % (spec.default,)
        lines.append('  %s (%s, %s) %s' % (key, spec.kind, default, spec.doc))
    return '\n'.join(lines)


# MXNet keeps its underscore operators (_plus_scalar, _Plus, ...) in mx.sym._internal
_internal = types.ModuleType(__name__ + '._internal', 'Internal operators, as mx.sym._internal.<name>.')
for _name in _ops.list_operators():
    if _name.isidentifier() and _name not in globals():
        globals()[_name] = _make_function(_name)
        if _name.startswith('_'):
            setattr(_internal, _name, globals()[_name])
del _name
from . import linalg  # noqa: E402,F401  (mx.sym.linalg.gemm, ... as in MXNet)

fromjson = load_json


def _dtype_name(dtype):
    import numpy as np
    return np.dtype('float32' if dtype is None else dtype).name


def zeros(shape, dtype=None, **kwargs):
    """A symbol of zeros; a 0 in ``shape`` is inferred (an RNN's begin state uses ``(0, n)``)."""
    return invoke('_zeros', shape=shape, dtype=_dtype_name(dtype), **kwargs)


def ones(shape, dtype=None, **kwargs):
    """A symbol of ones; a 0 in ``shape`` is inferred."""
    return invoke('_ones', shape=shape, dtype=_dtype_name(dtype), **kwargs)


def full(shape, val, dtype=None, **kwargs):
    """A symbol filled with ``val``; a 0 in ``shape`` is inferred."""
    return invoke('_full', shape=shape, value=val, dtype=_dtype_name(dtype), **kwargs)
