"""``mx.npx``: the switches of MXNet's NumPy interface (``set_np``, ``reset_np``, ``is_np_array``,
``is_np_shape``), the device helpers MXNet's ``npx`` repeats, and MXNet's ``npx`` operators.

Each ``npx`` operator is a registry operator under another name (``npx.relu`` is ``relu``,
``npx.fully_connected`` is ``FullyConnected``, ...), with the same parameters, run through the
one imperative call path (so autograd records it) and its results handed back as
``mx.np.ndarray``; ``mx.sym.npx`` has the same operators on Symbols.  ``save`` and ``load``
write and read mx.np arrays in MXNet's file format.  Not here: ``npx.reshape`` (its shape codes differ from ``Reshape``'s),
``npx.nonzero``, ``npx.arange_like``, ``npx.image`` and ``npx.random``.
"""

from ..context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus  # noqa: F401
from ..ndarray import waitall  # noqa: F401
from ..ndarray.ndarray import NDArray, _call_operator
from ..ndarray.serialize import save as _save_arrays, load as _load_arrays
from ..numpy.multiarray import _np, as_np_arrays, ndarray
from ..operator.npx_names import OPERATORS
from ..util import set_np, reset_np, is_np_array, is_np_shape  # noqa: F401
from ..util import np_shape as _np_shape


def _npx_function(name, op_name):
    def run(*args, **kwargs):
        return _np(_call_operator(op_name, *args, **kwargs))
    run.__name__ = run.__qualname__ = name
    run.__doc__ = ('``mx.npx.%s``: the ``%s`` operator (same inputs and parameters, see mx.nd.%s), '
                   'its results as mx.np.ndarray.' % (name, op_name, op_name))
    return run


def save(file, arr):
    """Write ``arr`` (an mx.np.ndarray, a list of them, or a dict from str to them) to ``file``
    in MXNet's NDArray file format, in its NumPy-shape form (0-d arrays allowed): the bytes
    MXNet 1.9.1's ``npx.save`` writes.  As in MXNet, only under ``npx.set_np()``."""
    if not is_np_array():
        raise ValueError('npx.save: mx.np arrays are saved under NumPy semantics only, as in MXNet: call '
                         'npx.set_np() first')
    if isinstance(arr, ndarray):
        arrays = [arr]
    elif isinstance(arr, (list, tuple)):
        arrays = list(arr)
    elif isinstance(arr, dict):
        arrays = list(arr.values())
        if not all(isinstance(k, str) for k in arr):
            raise TypeError('npx.save: the keys of a dict must be str')
    else:
        raise ValueError('npx.save: give an mx.np.ndarray, a list of them or a dict of (str, mx.np.ndarray) '
                         'pairs, not %s' % type(arr).__name__)
    wrong = [type(a).__name__ for a in arrays if not isinstance(a, ndarray)]
    if wrong:
        raise TypeError('npx.save: only mx.np.ndarray values are saved here, got %s (a legacy NDArray is '
                        'saved with mx.nd.save, or converted with as_np_ndarray())' % wrong[0])
    with _np_shape(True):
        _save_arrays(file, arr)


def load(file):
    """The arrays ``npx.save`` (or ``mx.nd.save`` in NumPy-shape form) wrote to ``file``: a list
    of mx.np.ndarray, or a dict when names were saved.  As in MXNet, only under ``npx.set_np()``."""
    if not is_np_array():
        raise ValueError('npx.load: mx.np arrays are loaded under NumPy semantics only, as in MXNet: call '
                         'npx.set_np() first')
    with _np_shape(True):
        loaded = _load_arrays(file)
    if isinstance(loaded, dict):
        as_np_arrays([a for a in loaded.values() if type(a) is NDArray])
    else:
        as_np_arrays(loaded)
    return loaded


for _name, _op_name in OPERATORS.items():
    globals()[_name] = _npx_function(_name, _op_name)

__all__ = ['set_np', 'reset_np', 'is_np_array', 'is_np_shape', 'waitall', 'Context', 'cpu', 'gpu',
           'cpu_pinned', 'current_context', 'num_gpus', 'save', 'load'] + sorted(OPERATORS)
