"""``mx.sym``: build graphs.  Every registered operator is a function here."""

import types

import numpy as _np     # (not `np`: mx.sym.np would be host numpy)

from .symbol import Symbol, Variable, var, Group, invoke  # noqa: F401
from .naming import NameManager, Prefix  # noqa: F401
from .attribute import AttrScope  # noqa: F401
from .serialization import load, load_json  # noqa: F401
from .math_functions import maximum, minimum, hypot, pow, power  # noqa: F401,A004
from .. import operator as _ops


def _make_function(op_name):
    op = _ops.get(op_name)

    def creator(*args, **kwargs):
        return invoke(op_name, *args, **kwargs)
    creator.__name__ = op_name
    creator.__doc__ = op.help_text()
    return creator


# MXNet keeps its underscore operators (_plus_scalar, _Plus, ...) in mx.sym._internal
_internal = types.ModuleType(__name__ + '._internal', 'Internal operators, as mx.sym._internal.<name>.')
for _name in _ops.list_operators():
    if _name.isidentifier() and _name not in globals() and _ops.get(_name).has_function:
        globals()[_name] = _make_function(_name)
        if _name.startswith('_'):
            setattr(_internal, _name, globals()[_name])
del _name
from . import linalg, random  # noqa: E402,F401  (mx.sym.linalg.gemm, mx.sym.random.uniform, ... as in MXNet)
from . import contrib  # noqa: E402,F401  (mx.sym.contrib.ctc_loss, ... as in MXNet)
from . import image  # noqa: E402,F401  (mx.sym.image.to_tensor, ... as in MXNet)
from . import npx  # noqa: E402,F401  (mx.sym.npx.relu, ...: F.npx in a hybridized block)
from . import sparse  # noqa: E402  (mx.sym.sparse.elemwise_add, ... as in MXNet: the functions above)
vars(sparse).update({_name: globals()[_name] for _name in sparse.__all__})

fromjson = load_json


def _dtype_name(dtype):
    return _np.dtype('float32' if dtype is None else dtype).name


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """``ary`` cut along ``axis``: into ``indices_or_sections`` equal pieces (an int), or at
    those positions (a tuple): the ``_split_v2`` operator, as numpy's split."""
    if isinstance(indices_or_sections, int):
        return invoke('_split_v2', ary, axis=axis, squeeze_axis=squeeze_axis, sections=indices_or_sections)
    if isinstance(indices_or_sections, tuple):
        return invoke('_split_v2', ary, indices=(0,) + indices_or_sections, axis=axis, squeeze_axis=squeeze_axis)
    raise ValueError('split_v2: indices_or_sections must be an int or a tuple of ints, got %r'
                     % (indices_or_sections,))


def zeros(shape, dtype=None, **kwargs):
    """A symbol of zeros; a 0 in ``shape`` is inferred (an RNN's begin state uses ``(0, n)``)."""
    return invoke('_zeros', shape=shape, dtype=_dtype_name(dtype), **kwargs)


def ones(shape, dtype=None, **kwargs):
    """A symbol of ones; a 0 in ``shape`` is inferred."""
    return invoke('_ones', shape=shape, dtype=_dtype_name(dtype), **kwargs)


def full(shape, val, dtype=None, **kwargs):
    """A symbol filled with ``val``; a 0 in ``shape`` is inferred."""
    return invoke('_full', shape=shape, value=val, dtype=_dtype_name(dtype), **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """Evenly spaced values in [start, stop) (``_arange``); with ``infer_range`` and no stop,
    the length comes from the operator the range feeds."""
    return invoke('_arange', start=start, stop=stop, step=step, repeat=repeat, infer_range=infer_range,
                  name=name, dtype=_dtype_name(dtype))


def linspace(start, stop, num, endpoint=True, name=None, dtype=None):
    """``num`` evenly spaced values from start to stop (``_linspace``)."""
    return invoke('_linspace', start=start, stop=stop, num=num, endpoint=endpoint, name=name,
                  dtype=_dtype_name(dtype))


def eye(N, M=0, k=0, dtype=None, **kwargs):
    """An N x M matrix with ones on diagonal k (``_eye``)."""
    return invoke('_eye', N=N, M=M, k=k, dtype=_dtype_name(dtype), **kwargs)


def histogram(a, bins=10, range=None, **kwargs):
    """Counts of ``a``'s values in ``bins`` equal bins over ``range`` (which a symbol needs),
    or between the edges in the symbol ``bins``; two outputs, counts and edges."""
    if isinstance(bins, Symbol):
        return invoke('_histogram', data=a, bins=bins, **kwargs)
    if isinstance(bins, int) and not isinstance(bins, bool):
        if range is None:
            raise ValueError('histogram: a symbol needs range=(lo, hi) with an integer bins')
        return invoke('_histogram', data=a, bin_cnt=bins, range=range, **kwargs)
    raise ValueError('histogram: bins must be an int or a Symbol, got %r' % (bins,))
