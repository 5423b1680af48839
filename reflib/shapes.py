"""Shape and dtype algebra: what shape inference merges, checks and prints.

The lowest layer under the operators: a shape is a tuple of dimensions, 0 (or an empty
tuple) meaning "not known yet", as in MXNet 1.x's legacy shapes.  Every operator's shape
rule, the symbol's inference pass and the executor's memory plan use these.

MXNet 1.6 added a second reading, NumPy shape semantics (``mx.np_shape()``): ``()`` is a
scalar, a 0 dimension is a real size of zero, and an unknown dimension is written -1 (an
unknown shape None).  The switch is per thread, as in MXNet.  The operators' shape rules
keep the legacy encoding inside (0 = not known yet); the symbol's inference turns the
caller's -1 into that 0 on the way in and back into -1 on the way out (see
``symbol/infer.py``), and ``shape_is_known`` answers by the reading in force.
"""

import threading

import numpy as np

from .base import ShapeError, TypeInferError

__all__ = ['shape_is_known', 'merge_shape', 'merge_dtype', 'format_shape', 'prod',
           'is_np_shape', 'set_np_shape', 'zeros_unknown']

_state = threading.local()


def is_np_shape():
    """Whether this thread reads shapes with NumPy semantics (off by default, as in MXNet)."""
    return getattr(_state, 'np_shape', False)


def set_np_shape(active):
    """Turn NumPy shape semantics on or off for this thread; returns the previous state."""
    previous = is_np_shape()
    _state.np_shape = bool(active)
    return previous


class zeros_unknown:
    """While active, a 0 dimension means "not known yet" even under NumPy shape semantics:
    an inference pass the caller gave -1 dimensions runs under it, because the operators'
    rules carry such a dimension as 0 (see the module docstring)."""

    def __enter__(self):
        self._previous = getattr(_state, 'zeros_unknown', False)
        _state.zeros_unknown = True
        return self

    def __exit__(self, *exc):
        _state.zeros_unknown = self._previous


def zero_is_size():
    """Whether a 0 dimension is a real size here (NumPy semantics, outside ``zeros_unknown``)."""
    return is_np_shape() and not getattr(_state, 'zeros_unknown', False)


def shape_is_known(shape):
    """True for a fully known shape.  Under legacy shapes () and 0 dimensions count as
    unknown; under NumPy shape semantics () is a scalar, 0 a size and -1 unknown."""
    if shape is None:
        return False
    if zero_is_size():
        return all(d >= 0 for d in shape)
    return len(shape) > 0 and all(d > 0 for d in shape)


def merge_shape(old, new, where):
    """Unify two proposals for one shape; 0 dims are unknown.  Raises ShapeError naming ``where``."""
    if new is None:
        return old
    new = tuple(int(d) for d in new)
    if old is None:
        return new
    if len(old) != len(new) or any(a and b and a != b for a, b in zip(old, new)):
        raise ShapeError('%s: inconsistent shapes: known to be %s, but %s is required here'
                         % (where, _fmt(old), _fmt(new)))
    merged = []
    for a, b in zip(old, new):
        merged.append(a or b)
    return tuple(merged)


def merge_dtype(old, new, where):
    """Unify two proposals for one dtype during type inference.

    Args:
        old: the dtype known so far, or None.
        new: the proposed dtype, or None (no proposal).
        where (str): what is being inferred, named in the error.

    Returns:
        The known dtype (``old`` when both agree; a numpy dtype when only ``new`` is given;
        None when neither is).

    Raises:
        TypeInferError: ``old`` and ``new`` differ.
    """
    if new is None:
        return old
    new = np.dtype(new)
    if old is None:
        return new
    if np.dtype(old) != new:
        raise TypeInferError('%s: inconsistent dtype, expected %s got %s' % (where, np.dtype(old).name, new.name))
    return old


def format_shape(shape):
    """``(2,3)`` for error messages; ``unknown`` for None."""
    return '(%s)' % ','.join(str(d) for d in shape) if shape is not None else 'unknown'


_fmt = format_shape


def prod(dims):
    """Product of a shape's dims (1 for ``()``), in Python ints: no overflow, no numpy scalar."""
    out = 1
    for d in dims:
        out *= d
    return out
