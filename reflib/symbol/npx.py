"""``mx.sym.npx``: MXNet's ``npx`` operators on Symbols, so that a HybridBlock whose
``hybrid_forward`` calls ``F.npx.relu(x)`` (as d2l's MXNet edition writes them) can be
hybridized: traced with ``F = mx.sym``, the call adds a node of the registry operator that
``mx.npx.relu`` runs imperatively (the one table, reflib/operator/npx_names.py)."""

from ..operator.npx_names import OPERATORS
from .symbol import invoke


def _symbol_function(name, op_name):
    def creator(*args, **kwargs):
        return invoke(op_name, *args, **kwargs)
    creator.__name__ = creator.__qualname__ = name
    creator.__doc__ = ('``mx.sym.npx.%s``: a node of the ``%s`` operator (same inputs and parameters, '
                       'see mx.sym.%s).' % (name, op_name, op_name))
    return creator


for _name, _op_name in OPERATORS.items():
    globals()[_name] = _symbol_function(_name, _op_name)
del _name, _op_name

__all__ = sorted(OPERATORS)
