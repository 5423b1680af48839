"""``mx.npx``: the switches of MXNet's NumPy interface (``set_np``, ``reset_np``, ``is_np_array``,
``is_np_shape``) and the device helpers MXNet's ``npx`` repeats.  MXNet's ``npx`` operators
(``npx.relu``, ``npx.softmax``, ...) are not in this subset."""

from ..context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus  # noqa: F401
from ..ndarray import waitall  # noqa: F401
from ..util import set_np, reset_np, is_np_array, is_np_shape  # noqa: F401

__all__ = ['set_np', 'reset_np', 'is_np_array', 'is_np_shape', 'waitall', 'Context', 'cpu', 'gpu',
           'cpu_pinned', 'current_context', 'num_gpus']
