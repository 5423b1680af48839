"""``mx.npx``: the switches of MXNet's NumPy interface (``set_np``, ``reset_np``, ``is_np_array``,
``is_np_shape``), the device helpers MXNet's ``npx`` repeats, and MXNet's ``npx`` operators.

Each ``npx`` operator is a registry operator under another name (``npx.relu`` is ``relu``,
``npx.fully_connected`` is ``FullyConnected``, ...), with the same parameters, run through the
one imperative call path (so autograd records it) and its results handed back as
``mx.np.ndarray``; ``mx.sym.npx`` has the same operators on Symbols.  Not here: ``npx.reshape`` (its shape codes differ from ``Reshape``'s),
``npx.nonzero``, ``npx.arange_like``, ``npx.image`` and ``npx.random``.
"""

from ..context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus  # noqa: F401
from ..ndarray import waitall  # noqa: F401
from ..ndarray.ndarray import _call_operator
from ..numpy.multiarray import _np
from ..operator.npx_names import OPERATORS
from ..util import set_np, reset_np, is_np_array, is_np_shape  # noqa: F401


def _npx_function(name, op_name):
    def run(*args, **kwargs):
        return _np(_call_operator(op_name, *args, **kwargs))
    run.__name__ = run.__qualname__ = name
    run.__doc__ = ('``mx.npx.%s``: the ``%s`` operator (same inputs and parameters, see mx.nd.%s), '
                   'its results as mx.np.ndarray.' % (name, op_name, op_name))
    return run


for _name, _op_name in OPERATORS.items():
    globals()[_name] = _npx_function(_name, _op_name)

__all__ = ['set_np', 'reset_np', 'is_np_array', 'is_np_shape', 'waitall', 'Context', 'cpu', 'gpu',
           'cpu_pinned', 'current_context', 'num_gpus'] + sorted(OPERATORS)
