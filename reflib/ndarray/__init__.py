"""``mx.nd``: arrays on devices, and every registered operator as an imperative function."""

from .ndarray import *  # noqa: F401,F403
from .ndarray import NDArray  # noqa: F401
from .serialize import save, load, load_frombuffer  # noqa: F401
from . import op_functions as _op_functions
from .. import operator as _ops
from .. import random  # noqa: F401  (mx.nd.random.uniform, ... as in MXNet)

for _name in _ops.list_operators():
    if _name.isidentifier() and _name not in globals():
        globals()[_name] = _op_functions.make_function(_name)
del _name
from . import linalg  # noqa: E402,F401  (mx.nd.linalg.gemm, ... as in MXNet)
