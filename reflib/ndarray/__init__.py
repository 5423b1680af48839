"""``mx.nd``: arrays on devices, and every registered operator as an imperative function."""

import types

import numpy as _np     # (not `np`: mx.nd.np would be host numpy)

from .ndarray import *  # noqa: F401,F403
from .ndarray import NDArray, _ctx, split_v2  # noqa: F401
from .math_functions import *  # noqa: F401,F403  (maximum, power, modulo, equal, ...)
from .serialize import save, load, load_frombuffer  # noqa: F401
from . import op_functions as _op_functions
from .. import operator as _ops
from ..context import cpu
from ..operator.creation import create
from . import random  # noqa: F401  (mx.nd.random.uniform, ... as in MXNet)
from . import sparse  # noqa: F401  (mx.nd.sparse.csr_matrix, ... as in MXNet)
from .sparse import CSRNDArray, RowSparseNDArray, cast_storage  # noqa: F401

# MXNet keeps its underscore operators (_plus_scalar, _copy, ...) in mx.nd._internal too
_internal = types.ModuleType(__name__ + '._internal', 'Internal operators, as mx.nd._internal.<name>.')
for _name in _ops.list_operators():
    if _name.isidentifier() and _name not in globals() and _ops.get(_name).has_function:
        globals()[_name] = _op_functions.make_function(_name)
    if _name.isidentifier() and _name.startswith('_') and _name in globals():
        setattr(_internal, _name, globals()[_name])
del _name
from . import linalg  # noqa: E402,F401  (mx.nd.linalg.gemm, ... as in MXNet)
from . import contrib  # noqa: E402,F401  (mx.nd.contrib.ctc_loss, ... as in MXNet)
from . import image  # noqa: E402,F401  (mx.nd.image.to_tensor, ... as in MXNet)


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=None):
    """``num`` evenly spaced values from start to stop (the ``_linspace`` operator)."""
    ctx = _ctx(ctx)
    return NDArray(create('_linspace', ctx, start=start, stop=stop, num=num, endpoint=endpoint,
                          dtype=_np.dtype(dtype or 'float32').name), ctx)


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """An N x M matrix with ones on diagonal k (the ``_eye`` operator)."""
    ctx = _ctx(ctx)
    return NDArray(create('_eye', ctx, N=N, M=M, k=k, dtype=_np.dtype(dtype or 'float32').name), ctx)


def moveaxis(tensor, source, destination):
    """``tensor`` with axes ``source`` (an int or a list) moved to ``destination``: a transposed
    copy, as MXNet's."""
    xp = tensor.xp
    return NDArray(xp.ascontiguousarray(xp.moveaxis(tensor._data, source, destination)), tensor.context)


def from_numpy(ndarray, zero_copy=True):
    """An NDArray on the CPU holding ``ndarray``'s values.  With ``zero_copy`` (C-contiguous
    arrays only) it shares the memory, and, as in MXNet, the numpy array turns read-only, so
    that it cannot change under the NDArray; without, it is a copy."""
    if not isinstance(ndarray, _np.ndarray):
        raise TypeError('from_numpy: expected a numpy array, got %s' % type(ndarray).__name__)
    if not zero_copy:
        return array(ndarray, dtype=ndarray.dtype)
    if not ndarray.flags.c_contiguous:
        raise ValueError('from_numpy: only C-contiguous arrays can be shared (zero_copy=True); '
                         'pass zero_copy=False for a copy')
    if not ndarray.flags.writeable:
        # shared before: the NDArray's view must still write (numpy lets an array that owns its
        # memory turn writable again, just long enough to take a writable view)
        ndarray.flags.writeable = True
    shared = ndarray.view()          # stays writable for the NDArray
    ndarray.flags.writeable = False
    return NDArray(shared, cpu())


def onehot_encode(indices, out):
    """``out`` (n, k) overwritten with the one-hot rows of ``indices`` (n,): MXNet's old
    function, kept for old scripts (``one_hot`` is the operator to use); returns ``out``."""
    return _internal._onehot_encode(indices, out, out=out)


def histogram(a, bins=10, range=None):
    """Counts of ``a``'s values in bins, and the bin edges: ``bins`` equal bins over
    ``range``, or the bins between the edges in the NDArray ``bins``.  Without a range,
    as MXNet 1.9.1, numpy's histogram decides the bins (and both results are float32)."""
    if isinstance(bins, NDArray):
        return _histogram(a, bins)                                       # noqa: F821 (made above)
    if isinstance(bins, int) and not isinstance(bins, bool):
        if range is None:
            counts, edges = _np.histogram(a.asnumpy(), bins=bins)
            return array(counts, ctx=a.context), array(edges, ctx=a.context)  # noqa: F405
        return _histogram(a, bin_cnt=bins, range=range)                   # noqa: F821
    raise ValueError('histogram: bins must be an int or an NDArray, got %r' % (bins,))

