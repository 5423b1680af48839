"""``mx.np.linalg``: ``norm``, the one function of MXNet's ``np.linalg`` that d2l calls."""

import numpy as _onp

from ..util import np_shape as _np_shape
from ..ndarray.ndarray import _call_operator
from .multiarray import _check, _np, _reduced_shape, _to_shape

__all__ = ['norm']


def norm(x, ord=None, axis=None, keepdims=False):      # noqa: A002  (NumPy's argument name)
    """The Euclidean norm of ``x`` over ``axis`` (an int, a pair, or None for every element:
    the Frobenius norm of a matrix), or with ``ord=1`` the sum of absolute values of a vector.
    Other orders are refused here (NotImplementedError)."""
    _check(x, 'linalg.norm')
    vector = x.ndim == 1 if axis is None else isinstance(axis, (int, _onp.integer)) or len(axis) == 1
    if ord in (None, 'fro') or (ord == 2 and vector):
        p = 2
    elif ord == 1 and vector:
        p = 1
    else:
        raise NotImplementedError('mx.np.linalg.norm: ord=%r over %s is not supported in reflib; the '
                                  'Euclidean (None, "fro") and, for vectors, ord=1 are'
                                  % (ord, 'a vector' if vector else 'a matrix'))
    if isinstance(axis, list):
        axis = tuple(axis)
    with _np_shape():
        if axis is None:
            result = _call_operator('norm', x, ord=p, keepdims=keepdims)
        else:
            axes = (axis,) if isinstance(axis, (int, _onp.integer)) else tuple(axis)
            result = _call_operator('norm', x, ord=p, axis=axes, keepdims=keepdims)
        return _np(_to_shape(result, _reduced_shape(x.shape, axis, keepdims)))
