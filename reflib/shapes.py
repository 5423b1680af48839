"""Shape and dtype algebra: what shape inference merges, checks and prints.

The lowest layer under the operators: a shape is a tuple of dimensions, 0 (or an empty
tuple) meaning "not known yet", as in MXNet 1.x's legacy shapes.  Every operator's shape
rule, the symbol's inference pass and the executor's memory plan use these.
"""

import numpy as np

from .base import ShapeError, TypeInferError

__all__ = ['shape_is_known', 'merge_shape', 'merge_dtype', 'format_shape', 'prod']


def shape_is_known(shape):
    """True for a fully known shape.  () counts as unknown, as in MXNet 1.x's legacy shapes."""
    return shape is not None and len(shape) > 0 and all(d > 0 for d in shape)


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
