"""The array class of ``mx.np`` and the functions over it (see the package's docstring for
what is and is not covered); ``mx.np.random`` builds on this module."""


import builtins as _builtins
import operator as _operator

import numpy as _onp

from ..base import MXNetError, numeric_types
from ..fluent import FLUENT_METHODS
from ..context import current_context
from ..ndarray import ndarray as _legacy
from ..ndarray import tape as _tape
from ..ndarray.ndarray import NDArray, _call_operator
from ..shapes import prod as _prod
from ..util import np_shape as _np_shape

__all__ = ['ndarray', 'array', 'zeros', 'ones', 'full', 'empty', 'arange', 'zeros_like', 'ones_like',
           'concatenate', 'stack', 'split', 'reshape', 'sum', 'mean', 'dot', 'maximum', 'minimum', 'max',
           'min', 'amax', 'amin', 'prod', 'argmax', 'argmin', 'clip', 'where', 'transpose', 'expand_dims',
           'squeeze', 'linspace', 'power', 'tile', 'repeat', 'cumsum', 'var', 'std', 'meshgrid',
           'genfromtxt', 'broadcast_to', 'flip', 'ravel', 'eye', 'identity', 'full_like']

_float32 = _onp.dtype('float32')

# NDArray's fluent methods that MXNet 1.9.1's mx.np.ndarray keeps with the same meaning
_NUMPY_FLUENT = frozenset(['repeat', 'swapaxes'])


def _np(x):
    """A fresh result (or a list of them) as ``mx.np.ndarray``: the same object, its class
    changed, so autograd's record of it stays."""
    if type(x) is NDArray:
        x.__class__ = ndarray
    elif isinstance(x, (list, tuple)):
        return type(x)(_np(v) for v in x)
    return x


def as_np_arrays(arrays):
    """Each dense legacy NDArray of ``arrays`` (a list, kept as it is otherwise) turned into an
    ``mx.np.ndarray`` in place: the same objects, so what autograd knows of them stays.
    Gluon uses it for the parameters and outputs of blocks run under ``npx.set_np()``."""
    for x in arrays:
        if type(x) is NDArray:
            x.__class__ = ndarray
    return arrays


def _converting(method):
    """NDArray's ``method``, its fresh result handed back as ``mx.np.ndarray``."""
    def run(self, *args, **kwargs):
        return _np(method(self, *args, **kwargs))
    run.__name__ = method.__name__
    run.__doc__ = 'As NDArray.%s, giving an mx.np.ndarray.' % method.__name__
    return run


def _nd_shape(shape):
    """A shape argument as a tuple of ints (an int is a 1-d shape)."""
    if isinstance(shape, (int, _onp.integer)):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def _target_shape(size, shape, what):
    """The shape NumPy's reshape rules give ``shape`` for ``size`` elements: one -1 is
    inferred, and no other negative dimension is allowed.  Raises MXNetError as MXNet does."""
    shape = _nd_shape(shape)
    unknown = [i for i, d in enumerate(shape) if d == -1]
    if len(unknown) > 1:
        raise MXNetError('%s: can only specify one unknown dimension (-1), got %s' % (what, shape))
    bad = [d for d in shape if d < -1]
    if bad:
        raise MXNetError('%s: dimension %d is invalid: NumPy reshape takes sizes and one -1, not '
                         "MXNet's codes -2, -3, -4" % (what, bad[0]))
    if unknown:
        rest = _prod(d for d in shape if d != -1)
        if rest == 0 or size % rest:
            raise MXNetError('%s: cannot reshape array of size %d into shape %s' % (what, size, shape))
        shape = tuple(size // rest if d == -1 else d for d in shape)
    if _prod(shape) != size:
        raise MXNetError('%s: cannot reshape array of size %d into shape %s' % (what, size, shape))
    return shape


def _to_shape(x, shape):
    """``x`` (an NDArray) with the exactly known ``shape``, as a recorded operator."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    with _np_shape():
        if not shape:
            return _call_operator('Reshape', x, shape=())
        if 0 in shape:
            # the Reshape operator reads a 0 as "keep that dimension": take the shape from a
            # stand-in of the target shape that holds no memory
            like = NDArray(_onp.broadcast_to(_onp.zeros((), x._data.dtype), shape), x.context)
            return _call_operator('reshape_like', x, like)
        return _call_operator('Reshape', x, shape=shape)


def _check(x, what):
    """``x`` as an operand of the function ``what``: an ``mx.np.ndarray`` (legacy NDArrays are
    refused with TypeError, as MXNet's NumPy operators refuse them)."""
    if isinstance(x, ndarray):
        return x
    if isinstance(x, NDArray):
        raise TypeError('mx.np.%s takes mx.np.ndarray operands, got a legacy NDArray; convert it with '
                        'as_np_ndarray()' % what)
    raise TypeError('mx.np.%s: an operand of type %s is not supported here; make an array with '
                    'mx.np.array first' % (what, type(x).__name__))


class ndarray(NDArray):
    """An array of MXNet's NumPy interface (``mx.np.ndarray``): an NDArray whose results are
    ``mx.np.ndarray`` too, printed and reshaped as NumPy does.

    >>> import reflib as mx
    >>> mx.np.array([1, 2]) * 2
    array([2., 4.])
    """
    __slots__ = ()

    @property
    def dtype(self):
        """The element type as a ``numpy.dtype`` (``dtype('float32')``), as NumPy's arrays have."""
        return self._data.dtype

    @property
    def T(self):
        """All axes reversed."""
        return _np(NDArray.T.fget(self))

    @property
    def grad(self):
        """The gradient buffer ``attach_grad`` gave this array, as an ``mx.np.ndarray`` (the
        same memory); None before ``attach_grad``."""
        grad = NDArray.grad.fget(self)
        return None if grad is None else ndarray(grad._data, grad.context)

    def __repr__(self):
        # NumPy's repr, with MXNet's rule for the dtype: float32 (MXNet's default) is never
        # named, even where NumPy puts it on a line of its own; bool is not named either (NumPy
        # never names it); every other dtype is named, float64 and int64 included
        text = repr(self.asnumpy())
        dtype = self._data.dtype
        if 'dtype=' in text:
            if dtype == _float32:
                text = text[:text.rindex(',')] + ')'
        elif dtype not in (_float32, _onp.bool_):
            text = text[:-1] + ', dtype=%s)' % dtype.name
        return text

    def __str__(self):
        return str(self.asnumpy())

    def as_nd_ndarray(self):
        """This array as a legacy NDArray: the same memory (writes show in both), no copy."""
        return NDArray(self._data, self.context)

    def as_np_ndarray(self):
        """This array itself: it is an ``mx.np.ndarray`` already."""
        return self

    def reshape(self, *shape, **kwargs):
        """The values in a new shape, by NumPy's rules: one dimension may be -1 (inferred);
        MXNet's codes 0, -2, -3, -4 are not read, and a shape of another size raises MXNetError.
        ``order`` must be ``'C'``."""
        order = kwargs.pop('order', 'C')
        if kwargs:
            raise TypeError('reshape got unexpected arguments %s' % sorted(kwargs))
        if order != 'C':
            raise NotImplementedError("reshape: only order='C' is supported, as in MXNet")
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = shape[0]
        target = _target_shape(self.size, shape, 'reshape')
        if _tape.is_recording():
            return _np(_to_shape(self, target))
        return ndarray(self._data.reshape(target), self.context)

    def _scalar(self, kind):
        if self.size != 1:
            raise TypeError('only size-1 arrays can be converted to Python scalars')
        return kind(self.asnumpy().reshape(()))

    def __float__(self):
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def item(self, *args):
        """The value of a one-element array (or of the element ``args`` index) as a Python
        number, as NumPy's ``item``: it waits for the value and copies it to the host."""
        return self.asnumpy().item(*args)

    def flatten(self):
        """A 1-d copy of the values, as NumPy's ``flatten``."""
        return self.reshape(-1).copy()

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        """``mx.np.sum(self, ...)``."""
        return sum(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        """``mx.np.mean(self, ...)``."""
        return mean(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def dot(self, b, out=None):
        """``mx.np.dot(self, b)``."""
        return dot(self, b, out=out)

    def max(self, axis=None, out=None, keepdims=False):
        """``mx.np.max(self, ...)``."""
        return max(self, axis=axis, out=out, keepdims=keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        """``mx.np.min(self, ...)``."""
        return min(self, axis=axis, out=out, keepdims=keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        """``mx.np.prod(self, ...)``."""
        return prod(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def argmax(self, axis=None, out=None):
        """``mx.np.argmax(self, axis)``: int64 positions."""
        return argmax(self, axis=axis, out=out)

    def argmin(self, axis=None, out=None):
        """``mx.np.argmin(self, axis)``: int64 positions."""
        return argmin(self, axis=axis, out=out)

    def clip(self, min=None, max=None, out=None):     # noqa: A002  (NumPy's argument names)
        """``mx.np.clip(self, min, max)``."""
        return clip(self, min, max, out=out)

    def __getitem__(self, key):
        if isinstance(key, ndarray):
            key = key.as_nd_ndarray()
        return _np(NDArray.__getitem__(self, key))

    def _binary(self, other, fn, name, reverse=False):
        if isinstance(other, NDArray) and not isinstance(other, ndarray):
            raise TypeError('type %s not supported: mx.np.ndarray and a legacy NDArray do not mix; '
                            'convert one with as_np_ndarray() or as_nd_ndarray()' % type(other))
        return _np(NDArray._binary(self, other, fn, name, reverse))

    def _compare(self, o, fn, name):
        out = NDArray._binary(self, o, fn, name)
        return ndarray(out._data.astype(bool), out.context)

    def __truediv__(self, o):
        lhs, rhs = _true_division_operands(self, o)
        return NDArray.__truediv__(lhs, rhs)

    def __rtruediv__(self, o):
        lhs, rhs = _true_division_operands(self, o)
        return NDArray.__rtruediv__(lhs, rhs)

    def __neg__(self):
        return _np(NDArray.__neg__(self))


    def __getattr__(self, name):
        # the few fluent methods (reflib/fluent.py) MXNet 1.9.1's NumPy arrays keep, run under
        # NumPy shapes and handing back mx.np arrays; it refuses the rest (x.tile, x.exp, ...)
        if name not in _NUMPY_FLUENT:
            if name.startswith('__') or name not in FLUENT_METHODS:
                raise AttributeError('mx.np.ndarray object has no attribute %r' % name)
            raise AttributeError('mx.np.ndarray object has no attribute %r (MXNet 1.9.1 keeps it for legacy '
                                 'NDArrays only: call mx.np.%s or mx.npx.%s on the array)' % (name, name, name))
        method = NDArray.__getattr__(self, name)

        def run(*args, **kwargs):
            with _np_shape():
                return _np(method(*args, **kwargs))
        run.__name__ = name
        return run

    def broadcast_to(self, shape):
        """This array broadcast to ``shape``; see ``mx.np.broadcast_to``."""
        return broadcast_to(self, shape)

    def cumsum(self, axis=None, dtype=None, out=None):
        """The running sum along ``axis`` (None: over the flattened array); see ``mx.np.cumsum``."""
        return cumsum(self, axis=axis, dtype=dtype, out=out)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """The variance over ``axis`` (None: all); see ``mx.np.var``."""
        return var(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """The standard deviation over ``axis`` (None: all); see ``mx.np.std``."""
        return std(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)

    copy = _converting(NDArray.copy)
    astype = _converting(NDArray.astype)
    detach = _converting(NDArray.detach)
    as_in_context = _converting(NDArray.as_in_context)
    as_in_ctx = as_in_context       # MXNet's NumPy arrays have both names
    transpose = _converting(NDArray.transpose)
    abs = _converting(NDArray.abs)
    square = _converting(NDArray.square)
    expand_dims = _converting(NDArray.expand_dims)


def _true_division_operands(lhs, rhs):
    """NumPy's true division of integers gives floats: integer operands become float32 first
    (MXNet's NumPy arrays do the same)."""
    def floating(x):
        if isinstance(x, ndarray) and x._data.dtype.kind in 'iub':
            return x.astype('float32')
        return x
    return floating(lhs), floating(rhs)


_legacy.use_np_class(ndarray)


# ------------------------------------------------------------------ creation
def _dtype(dtype):
    """A dtype argument, float32 when None (the default of MXNet's NumPy arrays)."""
    return _float32 if dtype is None else _onp.dtype(dtype)


def _created(op_name, shape, dtype, ctx, **params):
    with _np_shape():
        return _np(_call_operator(op_name, shape=_nd_shape(shape), ctx=ctx or current_context(),
                                  dtype=_dtype(dtype).name, **params))


def array(object, dtype=None, ctx=None):
    """A new array holding a copy of ``object`` (a list, a number, a numpy array or an array).
    Without ``dtype``: an array's or numpy array's dtype is kept, anything else is float32."""
    if isinstance(object, NDArray) and not isinstance(object, ndarray):
        raise ValueError('mx.np.array: a legacy NDArray is converted with as_np_ndarray(), not here')
    if dtype is None:
        dtype = object.dtype if isinstance(object, (ndarray, _onp.ndarray)) else _float32
    with _np_shape():
        return _np(_legacy.array(object, ctx=ctx, dtype=_onp.dtype(dtype)))


def zeros(shape, dtype=None, order='C', ctx=None):
    """An array of ``shape`` filled with 0 (float32 unless ``dtype`` says otherwise)."""
    _c_order(order)
    return _created('_zeros', shape, dtype, ctx)


def ones(shape, dtype=None, order='C', ctx=None):
    """An array of ``shape`` filled with 1 (float32 unless ``dtype`` says otherwise)."""
    _c_order(order)
    return _created('_ones', shape, dtype, ctx)


def full(shape, fill_value, dtype=None, order='C', ctx=None, out=None):
    """An array of ``shape`` filled with ``fill_value`` (float32 unless ``dtype`` says otherwise)."""
    _c_order(order)
    result = _created('_full', shape, dtype, ctx, value=float(fill_value))
    return _into(result, out)


def empty(shape, dtype=None, order='C', ctx=None):
    """An array of ``shape`` whose values are not set (reflib gives zeros)."""
    return zeros(shape, dtype=dtype, order=order, ctx=ctx)


def arange(start, stop=None, step=1, dtype=None, ctx=None):
    """Evenly spaced values in ``[start, stop)`` (``[0, start)`` without ``stop``), float32
    unless ``dtype`` says otherwise."""
    if stop is None:
        start, stop = 0, start
    with _np_shape():
        return _np(_call_operator('_arange', start=float(start), stop=float(stop), step=float(step),
                                  ctx=ctx or current_context(), dtype=_dtype(dtype).name))


def _like(op_name, a, dtype, what):
    _check(a, what)
    with _np_shape():
        result = _call_operator(op_name, a)
        if dtype is not None and _onp.dtype(dtype) != result._data.dtype:
            result = _call_operator('Cast', result, dtype=_onp.dtype(dtype).name)
    return _np(result)


def zeros_like(a, dtype=None, order='C', ctx=None, out=None):
    """An array of ``a``'s shape and dtype (or ``dtype``) filled with 0."""
    _c_order(order)
    return _into(_on(_like('zeros_like', a, dtype, 'zeros_like'), ctx), out)


def ones_like(a, dtype=None, order='C', ctx=None, out=None):
    """An array of ``a``'s shape and dtype (or ``dtype``) filled with 1."""
    _c_order(order)
    return _into(_on(_like('ones_like', a, dtype, 'ones_like'), ctx), out)


def _c_order(order):
    if order != 'C':
        raise NotImplementedError("only order='C' is supported, as in MXNet")


def _on(result, ctx):
    return result if ctx is None else result.as_in_context(ctx)


def _into(result, out):
    """``result``, or written into ``out`` (an mx.np.ndarray of the same shape) and ``out``."""
    if out is None:
        return result
    if out.shape != result.shape:
        raise MXNetError('out= has shape %s, the result has shape %s' % (out.shape, result.shape))
    out[...] = result
    return out


# ------------------------------------------------------------------ joining and cutting
def concatenate(seq, axis=0, out=None):
    """The arrays of ``seq`` joined along ``axis`` (``axis=None``: all of them flattened)."""
    arrays = [_check(a, 'concatenate') for a in seq]
    if axis is None:
        arrays = [a.reshape(-1) for a in arrays]
        axis = 0
    with _np_shape():
        result = _call_operator('Concat', *arrays, dim=axis, num_args=len(arrays))
    return _into(_np(result), out)


def stack(arrays, axis=0, out=None):
    """The arrays (all of one shape) joined along a new axis ``axis``."""
    arrays = [_check(a, 'stack') for a in arrays]
    with _np_shape():
        result = _call_operator('stack', *arrays, axis=axis, num_args=len(arrays))
    return _into(_np(result), out)


def split(ary, indices_or_sections, axis=0):
    """``ary`` cut along ``axis`` into a list: ``indices_or_sections`` equal parts (an int;
    ValueError when the axis does not divide), or at those positions (a list of ints)."""
    _check(ary, 'split')
    size = ary.shape[axis]
    if isinstance(indices_or_sections, (int, _onp.integer)):
        if indices_or_sections <= 0 or size % indices_or_sections:
            raise ValueError('array split does not result in an equal division: an axis of size %d '
                             'into %d parts' % (size, indices_or_sections))
        step = size // indices_or_sections
        indices = tuple(range(0, size, step)) if size else (0,) * indices_or_sections
    else:
        indices = (0,) + tuple(int(i) for i in indices_or_sections)
    with _np_shape():
        parts = _call_operator('_split_v2', ary, indices=indices, axis=axis, squeeze_axis=False)
    return _np(list(parts) if isinstance(parts, (list, tuple)) else [parts])


def reshape(a, newshape, order='C'):
    """``a`` in the shape ``newshape``, by NumPy's rules (see ``ndarray.reshape``)."""
    return _check(a, 'reshape').reshape(newshape, order=order)


# ------------------------------------------------------------------ reductions
def _reduced_shape(shape, axis, keepdims):
    """The shape NumPy's reduction over ``axis`` gives (read off a stand-in with no memory)."""
    return _onp.broadcast_to(_onp.zeros((), bool), shape).sum(axis=axis, keepdims=keepdims).shape


def _reduce(op_name, a, axis, dtype, out, keepdims):
    _check(a, op_name)
    if isinstance(axis, list):
        axis = tuple(axis)
    with _np_shape():
        if axis is None:
            result = _call_operator(op_name, a, keepdims=keepdims)
        else:
            result = _call_operator(op_name, a, axis=axis, keepdims=keepdims)
        result = _to_shape(result, _reduced_shape(a.shape, axis, keepdims))
        if dtype is not None and _onp.dtype(dtype) != result._data.dtype:
            result = _call_operator('Cast', result, dtype=_onp.dtype(dtype).name)
    return _into(_np(result), out)


def sum(a, axis=None, dtype=None, out=None, keepdims=False):
    """The sum of ``a``'s elements over ``axis`` (an int, a tuple, or None for all)."""
    return _reduce('sum', a, axis, dtype, out, keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """The mean of ``a``'s elements over ``axis`` (an int, a tuple, or None for all)."""
    return _reduce('mean', a, axis, dtype, out, keepdims)


def max(a, axis=None, out=None, keepdims=False):          # noqa: A001  (NumPy's name)
    """The largest of ``a``'s elements over ``axis`` (None: all), in ``a``'s dtype."""
    return _reduce('max', a, axis, None, out, keepdims)


def min(a, axis=None, out=None, keepdims=False):          # noqa: A001  (NumPy's name)
    """The smallest of ``a``'s elements over ``axis`` (None: all), in ``a``'s dtype."""
    return _reduce('min', a, axis, None, out, keepdims)


amax, amin = max, min


def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    """The product of ``a``'s elements over ``axis`` (None: all)."""
    return _reduce('prod', a, axis, dtype, out, keepdims)


def _arg_extreme(op_name, a, axis, out):
    _check(a, op_name)
    with _np_shape():
        flat = axis is None               # the position in the flattened array: a 0-d result
        if flat:
            a, axis = _to_shape(a, (a.size,)), 0
        found = _call_operator(op_name, a, axis=axis)
        if flat:
            found = _to_shape(found, ())
        # the operator gives float32 positions; MXNet's NumPy arg functions give int64
        return _into(_np(_call_operator('Cast', found, dtype='int64')), out)


def argmax(a, axis=None, out=None):
    """The position of the largest element along ``axis`` (None: in the flattened array), as int64."""
    return _arg_extreme('argmax', a, axis, out)


def argmin(a, axis=None, out=None):
    """The position of the smallest element along ``axis`` (None: in the flattened array), as int64."""
    return _arg_extreme('argmin', a, axis, out)


def clip(a, a_min, a_max, out=None):
    """``a`` with its elements limited to [``a_min``, ``a_max``] (either may be None: no limit)."""
    _check(a, 'clip')
    if a_min is None and a_max is None:
        raise ValueError('clip: a_min and a_max cannot both be None')
    low = -_onp.inf if a_min is None else float(a_min)
    high = _onp.inf if a_max is None else float(a_max)
    with _np_shape():
        return _into(_np(_call_operator('clip', a, a_min=low, a_max=high)), out)


def where(condition, x, y):
    """``x`` where ``condition`` is true (nonzero), else ``y``: three arrays of one shape, or
    scalars for ``x`` and ``y``."""
    _check(condition, 'where')
    like = condition if condition._data.dtype.kind == 'f' else None
    dtype = next((v._data.dtype for v in (x, y) if isinstance(v, NDArray)), _float32)
    x, y = (full(condition.shape, v, dtype=dtype, ctx=condition.context) if isinstance(v, numeric_types)
            else _check(v, 'where') for v in (x, y))
    with _np_shape():
        cond = like if like is not None else _call_operator('Cast', condition, dtype=dtype.name)
        return _np(_call_operator('where', cond, x, y))


def transpose(a, axes=None):
    """``a`` with its axes permuted (``axes``; None: reversed)."""
    _check(a, 'transpose')
    with _np_shape():
        if axes is None:
            return _np(_call_operator('transpose', a))
        return _np(_call_operator('transpose', a, axes=tuple(axes)))


def expand_dims(a, axis):
    """``a`` with a new axis of length 1 at ``axis``."""
    _check(a, 'expand_dims')
    with _np_shape():
        return _np(_call_operator('expand_dims', a, axis=axis))


def squeeze(a, axis=None):
    """``a`` without its axes of length 1 (only ``axis`` when given)."""
    _check(a, 'squeeze')
    with _np_shape():
        if axis is None:
            return _np(_call_operator('squeeze', a))
        return _np(_call_operator('squeeze', a, axis=axis))


def linspace(start, stop, num=50, endpoint=True, dtype=None, ctx=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (``stop`` included unless
    ``endpoint`` is False), float32 unless ``dtype`` says otherwise."""
    values = _onp.linspace(start, stop, num, endpoint=endpoint, dtype=_onp.float64)
    return array(values.astype(_dtype(dtype)), dtype=_dtype(dtype), ctx=ctx)


# ------------------------------------------------------------------ products and elementwise
def dot(a, b, out=None):
    """NumPy's dot product: vectors give their inner product (shape ``()``), matrices their
    product, an N-d ``a`` with a 1-d or 2-d ``b`` sums over ``a``'s last axis; a 0-d operand
    multiplies.  A ``b`` of more than 2 dimensions is not supported here."""
    _check(a, 'dot'), _check(b, 'dot')
    with _np_shape():
        if a.ndim == 0 or b.ndim == 0:
            return _into(a * b, out)
        if b.ndim > 2:
            raise NotImplementedError('mx.np.dot: a second operand of more than 2 dimensions is not '
                                      'supported in reflib')
        result = _call_operator('dot', a, b)
        expected = a.shape[:-1] + b.shape[:-2] + b.shape[-1:] if b.ndim == 2 else a.shape[:-1]
        result = _to_shape(result, expected)
    return _into(_np(result), out)


def _same_kind(op_name, x, out):
    """An elementwise function whose result keeps ``x``'s dtype (integers stay integers)."""
    _check(x, op_name)
    with _np_shape():
        return _into(_np(_call_operator(op_name, x)), out)


def _extreme(which, x1, x2, out):
    scalars = [isinstance(x, numeric_types) for x in (x1, x2)]
    with _np_shape():
        if all(scalars):
            # (builtins: this module's max and min are NumPy's reductions)
            return _into(array(_builtins.max(x1, x2) if which == 'maximum' else _builtins.min(x1, x2)), out)
        if scalars[0] or scalars[1]:
            arr, scalar = (x2, x1) if scalars[0] else (x1, x2)
            result = _call_operator('_%s_scalar' % which, _check(arr, which), scalar=float(scalar))
        else:
            result = _call_operator('broadcast_%s' % which, _check(x1, which), _check(x2, which))
    return _into(_np(result), out)


def maximum(x1, x2, out=None):
    """The elementwise larger of ``x1`` and ``x2`` (arrays that broadcast, or a number)."""
    return _extreme('maximum', x1, x2, out)


def minimum(x1, x2, out=None):
    """The elementwise smaller of ``x1`` and ``x2`` (arrays that broadcast, or a number)."""
    return _extreme('minimum', x1, x2, out)



def power(x1, x2, out=None):
    """``x1`` raised to ``x2``, elementwise: two arrays that broadcast, or an array and a
    number.  As in MXNet 1.9.1, a number meeting an integer array takes the array's dtype
    first (``power(int32 array, 0.5)`` raises to the power 0)."""
    scalars = [isinstance(x, numeric_types) for x in (x1, x2)]
    if all(scalars):
        return _into(array(x1 ** x2), out)
    with _np_shape():
        if scalars[0] or scalars[1]:
            arr, scalar = (_check(x2, 'power'), x1) if scalars[0] else (_check(x1, 'power'), x2)
            if arr._data.dtype.kind in 'iub':
                scalar = int(scalar)
            op_name = '_rpower_scalar' if scalars[0] else '_power_scalar'
            result = _call_operator(op_name, arr, scalar=float(scalar))
        else:
            result = _call_operator('broadcast_power', _check(x1, 'power'), _check(x2, 'power'))
    return _into(_np(result), out)


def tile(A, reps):
    """``A`` repeated ``reps`` times (an int, or one count per axis: NumPy's rules when
    ``reps`` and ``A`` differ in length)."""
    _check(A, 'tile')
    reps = (int(reps),) if isinstance(reps, (int, _onp.integer)) else tuple(int(r) for r in reps)
    with _np_shape():
        return _np(_call_operator('tile', A, reps=reps))


def repeat(a, repeats, axis=None):
    """Each element of ``a`` repeated ``repeats`` times (an int) along ``axis`` (None:
    over the flattened array)."""
    _check(a, 'repeat')
    if not isinstance(repeats, (int, _onp.integer)):
        raise TypeError('mx.np.repeat: repeats must be an int in MXNet 1.9.1, got %r' % (repeats,))
    with _np_shape():
        return _np(_call_operator('repeat', a, repeats=int(repeats), axis=axis))


def cumsum(a, axis=None, dtype=None, out=None):
    """The running sum of ``a`` along ``axis`` (None: over the flattened array), in ``a``'s
    dtype unless ``dtype`` is given."""
    _check(a, 'cumsum')
    params = {} if dtype is None else {'dtype': _onp.dtype(dtype).name}
    with _np_shape():
        return _into(_np(_call_operator('_np_cumsum', a, axis=axis, **params)), out)


def _moment(a, axis, dtype, out, ddof, keepdims, what):
    """The variance of ``a`` over ``axis`` (divided by the count less ``ddof``), or its
    square root, from recorded operators.

    An integer array is computed in its own dtype, every mean truncated, as MXNet 1.9.1
    computes it: ``var`` of int32 [1, 2, ..., 6] is 3 (the mean 3, then 19 // 6), not 2.92.

    Unlike MXNet 1.9.1, whose ``np.var`` and ``np.std`` give every input a zero gradient,
    autograd here differentiates them (tests/test_npx.py records MXNet's zeros)."""
    _check(a, what)
    centred = a - mean(a, axis=axis, keepdims=True)
    variance = mean(centred * centred, axis=axis, keepdims=keepdims)
    if ddof:
        count = a.size // _builtins.max(1, variance.size)
        scaled = variance * (count / (count - ddof))
        variance = scaled if scaled._data.dtype == variance._data.dtype else scaled.astype(variance._data.dtype)
    result = _same_kind('sqrt', variance, None) if what == 'std' else variance
    if dtype is not None and result._data.dtype != _onp.dtype(dtype):
        result = result.astype(dtype)
    return _into(result, out)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """The variance of ``a``'s elements over ``axis`` (None: all), ``ddof`` subtracted from
    the count it divides by."""
    return _moment(a, axis, dtype, out, ddof, keepdims, 'var')


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """The standard deviation of ``a``'s elements over ``axis`` (None: all)."""
    return _moment(a, axis, dtype, out, ddof, keepdims, 'std')


def meshgrid(*xi, **kwargs):
    """Coordinate arrays from 1-d arrays, as NumPy's ``meshgrid``: ``indexing='xy'`` (the
    default: the first two axes swapped, as for plotting) or ``'ij'``.  Each result is its
    input reshaped and broadcast (recorded, so gradients flow back to the inputs)."""
    indexing = kwargs.pop('indexing', 'xy')
    kwargs.pop('copy', None)                    # the results are always new arrays here
    if kwargs.pop('sparse', False):
        raise NotImplementedError('mx.np.meshgrid: sparse=True is not supported in reflib')
    if kwargs:
        raise TypeError('mx.np.meshgrid: unexpected keyword arguments %s' % sorted(kwargs))
    if indexing not in ('xy', 'ij'):
        raise ValueError("mx.np.meshgrid: indexing must be 'xy' or 'ij', got %r" % (indexing,))
    arrays = [_check(x, 'meshgrid') for x in xi]
    sizes = [x.size for x in arrays]
    if indexing == 'xy' and len(arrays) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    with _np_shape():
        for k, x in enumerate(arrays):
            axis = {0: 1, 1: 0}.get(k, k) if indexing == 'xy' and len(arrays) > 1 else k
            shape = [1] * len(arrays)
            shape[axis] = x.size
            column = _call_operator('Reshape', x, shape=tuple(shape))
            grids.append(_np(_call_operator('broadcast_to', column, shape=tuple(sizes))))
    return grids


def genfromtxt(*args, **kwargs):
    """Read a text table with NumPy's ``genfromtxt`` (same arguments) into an array of the
    dtype NumPy gives (float64 for numbers), on ``ctx`` when given."""
    ctx = kwargs.pop('ctx', None)
    table = _onp.genfromtxt(*args, **kwargs)
    return array(table, dtype=table.dtype, ctx=ctx)


def broadcast_to(array, shape):
    """``array`` repeated along new leading axes and its axes of length 1 to fill ``shape``
    (NumPy's broadcasting rules)."""
    _check(array, 'broadcast_to')
    shape = _nd_shape(shape)
    if len(shape) < array.ndim:
        raise MXNetError('mx.np.broadcast_to: cannot broadcast an array of shape %s to the shorter shape %s'
                         % (array.shape, shape))
    with _np_shape():
        padded = _to_shape(array, (1,) * (len(shape) - array.ndim) + tuple(array.shape))
        return _np(_call_operator('broadcast_to', padded, shape=shape))



# ------------------------------------------------------------------ elementwise functions
# NumPy name -> (registry operator, what it computes).  Each keeps an integer input's dtype,
# as MXNet 1.9.1's do where NumPy would give floats (np.cos of int32 [0, 1, 2] is [1, 0, 0],
# floor of int32 is int32, arcsin of int32 2 is the integer a NaN converts to)
_UNARY = {
    'exp': ('exp', 'e raised to each element of ``x``.'),
    'log': ('log', 'The natural logarithm of each element of ``x``.'),
    'log10': ('log10', 'The base-10 logarithm of each element of ``x``.'),
    'sqrt': ('sqrt', 'The square root of each element of ``x``.'),
    'square': ('square', 'Each element of ``x`` squared.'),
    'abs': ('abs', 'The absolute value of each element of ``x``.'),
    'tanh': ('tanh', 'The hyperbolic tangent of each element of ``x``.'),
    'sinh': ('sinh', 'The hyperbolic sine of each element of ``x``.'),
    'cosh': ('cosh', 'The hyperbolic cosine of each element of ``x``.'),
    'sin': ('sin', 'The sine of each element of ``x`` (radians).'),
    'cos': ('cos', 'The cosine of each element of ``x`` (radians).'),
    'log2': ('log2', 'The base-2 logarithm of each element of ``x``.'),
    'log1p': ('log1p', 'log(1 + x) for each element of ``x``, accurate near 0.'),
    'expm1': ('expm1', 'exp(x) - 1 for each element of ``x``, accurate near 0.'),
    'floor': ('floor', 'The largest integer not above each element of ``x``.'),
    'ceil': ('ceil', 'The smallest integer not below each element of ``x``.'),
    'trunc': ('trunc', 'Each element of ``x`` with its fraction dropped (toward zero).'),
    'fix': ('fix', 'Each element of ``x`` rounded toward zero.'),
    'rint': ('rint', 'Each element of ``x`` rounded to the nearest integer, a half downward '
                     '(MXNet 1.9.1\'s rint: 1.5 gives 1, -0.5 gives -1; NumPy rounds halves to even).'),
    'sign': ('sign', '-1, 0 or 1: the sign of each element of ``x``.'),
    'negative': ('negative', 'Each element of ``x`` negated.'),
    'reciprocal': ('reciprocal', '1 / x for each element of ``x``.'),
    'tan': ('tan', 'The tangent of each element of ``x`` (radians).'),
    'arcsin': ('arcsin', 'The inverse sine of each element of ``x``.'),
    'arccos': ('arccos', 'The inverse cosine of each element of ``x``.'),
    'arctan': ('arctan', 'The inverse tangent of each element of ``x``.'),
    'cbrt': ('cbrt', 'The cube root of each element of ``x``.'),
    'degrees': ('degrees', 'Each element of ``x`` converted from radians to degrees.'),
    'radians': ('radians', 'Each element of ``x`` converted from degrees to radians.'),
    'absolute': ('abs', 'The absolute value of each element of ``x`` (``abs``).'),
    'fabs': ('abs', 'The absolute value of each element of ``x`` (``abs``).'),
}


def _elementwise(name, op_name, doc):
    def function(x, out=None):
        return _same_kind(op_name, x, out)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


for _name, (_op_name, _doc) in _UNARY.items():
    globals()[_name] = _elementwise(_name, _op_name, _doc)


# NumPy's arithmetic and comparison functions: the array operators, which broadcast and take
# a number on either side
_BY_OPERATOR = {
    'add': _operator.add, 'subtract': _operator.sub, 'multiply': _operator.mul,
    'divide': _operator.truediv, 'true_divide': _operator.truediv, 'mod': _operator.mod,
    'equal': _operator.eq, 'not_equal': _operator.ne, 'greater': _operator.gt,
    'greater_equal': _operator.ge, 'less': _operator.lt, 'less_equal': _operator.le,
}


def _by_operator(name, operation):
    def function(x1, x2, out=None):
        if isinstance(x1, numeric_types) and isinstance(x2, numeric_types):
            return _into(array(operation(x1, x2)), out)
        for x in (x1, x2):
            if not isinstance(x, numeric_types):
                _check(x, name)
        with _np_shape():
            return _into(operation(x1, x2), out)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = ('``x1 %s x2`` elementwise, as the array operator computes it: two arrays that '
                        'broadcast, or an array and a number.' % name.replace('_', ' '))
    return function


for _name, _operation in _BY_OPERATOR.items():
    globals()[_name] = _by_operator(_name, _operation)
del _name, _op_name, _doc, _operation


def flip(m, axis=None, out=None):
    """``m`` with the order of its elements reversed along ``axis`` (an int, a tuple, or None
    for every axis)."""
    _check(m, 'flip')
    axes = tuple(range(m.ndim)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    with _np_shape():
        return _into(_np(_call_operator('reverse', m, axis=axes)), out)


def ravel(x, order='C'):
    """``x`` as a 1-d array (C order)."""
    _c_order(order)
    _check(x, 'ravel')
    return _np(_to_shape(x, (x.size,)))


def eye(N, M=None, k=0, dtype=None, ctx=None):
    """An N x M (M = N by default) array with ones on diagonal ``k`` and zeros elsewhere,
    float32 unless ``dtype`` says otherwise."""
    with _np_shape():
        return _np(_call_operator('_eye', N=int(N), M=int(M or 0), k=int(k), ctx=ctx or current_context(),
                                  dtype=_dtype(dtype).name))


def identity(n, dtype=None, ctx=None):
    """The n x n identity matrix, float32 unless ``dtype`` says otherwise."""
    return eye(n, dtype=dtype, ctx=ctx)


def full_like(a, fill_value, dtype=None, order='C', ctx=None, out=None):
    """An array of ``a``'s shape and dtype (or ``dtype``) filled with ``fill_value``."""
    _check(a, 'full_like')
    return _into(full(a.shape, fill_value, dtype=a.dtype if dtype is None else dtype, order=order,
                      ctx=ctx or a.context), out)


__all__ += list(_UNARY) + list(_BY_OPERATOR)
