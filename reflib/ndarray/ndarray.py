"""NDArray: an n-dimensional array that knows its device.

An NDArray is a thin handle around one buffer (a numpy array on ``cpu``, a
cupy array on ``gpu``) plus the Context it lives on.  Two facts matter for
everything the executor does later:

* The handle is what gets *bound*.  An executor keeps the NDArray objects it
  was given and reads ``arr._data`` at every forward, so anything that
  writes into the buffer (``a[:] = x``, ``a -= g``, ``copyto``) is seen by the
  next forward, while rebinding a Python name (``a = a - g``) is not.
* Basic slicing (``a[1:3]``, ``a[2]``) returns a view sharing the buffer
  when the selected block is contiguous, like MXNet; strided or column
  slices and advanced indexing return copies.
"""

import functools
import inspect
import math

import numpy as np

from .. import engine
from .. import profiler as _profiler
from . import tape
from ..base import MXNetError, ShapeError, TypeInferError, mx_real_t, numeric_types
from ..context import Context, current_context
from ..fluent import fluent_method
from ..operator.binary_math import MOD
from ..operator.common import to_host
from ..operator.shape import reshape_target
from ..shapes import is_np_shape, shape_is_known

__all__ = ['NDArray', 'array', 'zeros', 'ones', 'empty', 'full', 'arange',
           'zeros_like', 'ones_like', 'concatenate', 'waitall', 'from_xp',
           'to_numpy', 'move', 'norm', 'split_v2', 'to_dlpack_for_read', 'to_dlpack_for_write', 'from_dlpack']


# a numpy view/copy of a numpy or cupy array (a numpy scalar passes as it is): the operators'
# to_host, under the name NDArray's callers know
to_numpy = to_host


def move(x, ctx):
    """The raw array ``x`` placed on ``ctx`` (copied across devices if needed)."""
    xp = ctx.xp
    if ctx.device_type == 'gpu':
        with ctx.device_scope():
            return xp.asarray(x)
    return to_numpy(x)


def _copy_across(source, target, target_ctx):
    """Copy between host and device straight into ``target``'s buffer, where the two arrays
    match exactly (dtype, C order); False where they do not, or neither is on a device.

    (``move`` would first make a new array on the other side, then copy it in place: for a
    batch or the parameters that is a second pass over the bytes, and a fresh host array
    the size of the data.)"""
    if source.dtype != target.dtype or not (source.flags.c_contiguous and target.flags.c_contiguous):
        return False
    if isinstance(source, np.ndarray) and target_ctx.device_type == 'gpu':
        with target_ctx.device_scope():
            target.set(source)
        return True
    if isinstance(target, np.ndarray) and not isinstance(source, np.ndarray):
        source.get(out=target)
        return True
    return False


def _dtype(dtype):
    """numpy type object, as MXNet returns from ``NDArray.dtype`` (np.float32, not dtype('float32'))."""
    return np.dtype(dtype).type


def _call_operator(op_name, *args, **kwargs):
    """``mx.nd.<op_name>(*args, **kwargs)``: the operator call path of op_functions.py.

    That path is built on NDArray, so this file cannot import it: op_functions hands its
    ``invoke`` in when it is imported (reflib/ndarray/__init__.py imports both)."""
    return _operator_call(op_name, *args, **kwargs)


def use_operator_call(invoke):
    """Called once by op_functions.py: the function NDArray's operator methods go through."""
    global _operator_call
    _operator_call = invoke


# the class of ``mx.np`` arrays: reflib/numpy, which builds on NDArray, hands it in (use_np_class)
_np_class = [None]


def use_np_class(cls):
    """Called once by reflib/numpy: the class ``NDArray.as_np_ndarray`` makes."""
    _np_class[0] = cls


# (to bytes, from bytes) of one array's .nd record: serialize.py, which builds on NDArray, hands
# them in (use_record_codec) for pickling, as MXNet pickles an NDArray through its save format
# storage types by MXNet's numbers (the ids its files and C API use; -1: not yet known)
_STORAGE_TYPE_STR_TO_ID = {'undefined': -1, 'default': 0, 'row_sparse': 1, 'csr': 2}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}

_record_codec = [None, None]


def use_record_codec(to_bytes, from_bytes):
    _record_codec[:] = [to_bytes, from_bytes]


def _operator_form(method):
    """MXNet's NDArray methods of these names are its operators (``x.argmax(axis=1, out=y)``).
    reflib's keep a direct numpy path for the usual call and take the operator's when the
    call asks for what only the operator has: ``out=``, or another of its parameters."""
    name = method.__name__
    accepted = set(inspect.signature(method).parameters) - {'self'}

    @functools.wraps(method)
    def either(self, *args, **kwargs):
        # autograd records operators, and the profiler reports them
        if kwargs.keys() <= accepted and not tape.is_recording() and not _profiler.ACTIVE:
            return method(self, *args, **kwargs)
        return _call_operator(name, self, *args, **kwargs)
    return either


class NDArray:
    """An array on a device.

    >>> import reflib as mx
    >>> a = mx.nd.ones((2, 3))
    >>> b = a * 2 + 1
    >>> b.asnumpy()
    array([[3., 3., 3.],
           [3., 3., 3.]], dtype=float32)
    >>> a[:] = 5          # writes into a's buffer
    >>> float(a.asnumpy()[0, 0])
    5.0
    """
    # _entry (set only when autograd is involved): the recorded call that made this array, or
    # the Variable its gradient goes to (tape.py)
    __slots__ = ('_data', '_ctx', '_entry', '__weakref__')
    # numpy must defer to NDArray's reflected operators (np_scalar * nd)
    __array_priority__ = 1000.0

    def __init__(self, data, ctx=None):
        # a Context is never changed once made: one given is shared, not copied
        if type(ctx) is not Context:
            ctx = Context(ctx) if ctx is not None else current_context()
        self._ctx = ctx
        self._data = data

    # ----------------------------------------------------------- properties
    @property
    def shape(self):
        """The array's dimensions, a tuple of ints (``(2, 3)`` for two rows of three).

        >>> mx.nd.zeros((2, 3)).shape
        (2, 3)
        """
        return tuple(self._data.shape)

    @property
    def dtype(self):
        """The element type as a numpy type object (``numpy.float32``, not ``dtype('float32')``),
        which is what MXNet 1.x returns.

        >>> mx.nd.zeros((2,)).dtype
        <class 'numpy.float32'>
        """
        return self._data.dtype.type

    @property
    def context(self):
        """The Context (device) that holds the array's memory, e.g. ``cpu(0)`` or ``gpu(1)``.
        ``ctx`` is another name for the same property.
        """
        return self._ctx

    ctx = context

    @property
    def size(self):
        """The number of elements: the product of ``shape`` (0 for a zero-size array)."""
        return int(self._data.size)

    @property
    def ndim(self):
        """The number of dimensions, ``len(shape)``."""
        return self._data.ndim

    @property
    def stype(self):
        """The storage type: ``'default'`` for a dense array; the sparse subclasses return
        ``'csr'`` or ``'row_sparse'``.
        """
        return 'default'

    @property
    def writable(self):
        """Whether the array's values may be written (``a[:] = ...``).

        True for arrays reflib makes, and for ``mx.nd.from_numpy(a, zero_copy=True)`` too
        (that call turns the *numpy* array read-only, not the NDArray's view of it); False
        where the buffer underneath is a read-only numpy array, such as one wrapped with
        ``from_xp`` or ``from_dlpack``.  A cupy (GPU) buffer is always writable.

        >>> mx.nd.ones((2,)).writable
        True
        """
        data = self._data
        return not isinstance(data, np.ndarray) or bool(data.flags.writeable)

    @property
    def T(self):
        """All axes reversed (a copy)."""
        if tape.is_recording():
            return _call_operator('transpose', self)
        return NDArray(self.xp.ascontiguousarray(self._data.T), self._ctx)

    @property
    def handle(self):
        """The underlying buffer (numpy or cupy array).  reflib's stand-in for MXNet's C handle."""
        return self._data

    # -------------------------------------------------------------- copying
    def asnumpy(self):
        """A numpy copy of the data (from any device).  Like every wait on an array, it raises
        the failure of the operator that was to compute it, if any (reflib/engine.py)."""
        engine.rethrow(self._data)
        return np.array(to_numpy(self._data), copy=True)

    def asscalar(self):
        """The value of a one-element array as a numpy scalar of the array's dtype.

        Raises:
            ShapeError: the array holds more (or fewer) than one element.

        >>> mx.nd.array([5]).asscalar()
        np.float32(5.0)
        """
        if self.size != 1:
            raise ShapeError('asscalar needs an array of one element, this one has shape %s' % (self.shape,))
        return self.asnumpy().reshape(-1)[0]

    def astype(self, dtype, copy=True):
        """The values converted to ``dtype`` (a name such as ``'int32'`` or a numpy type).

        Args:
            dtype: the element type of the result.
            copy: when False and the array already has ``dtype``, the array itself is returned
                instead of a copy.

        Returns:
            NDArray: on the same context; while autograd records, the result of the ``Cast``
            operator, so the gradient flows back through it.
        """
        if not copy and self._data.dtype == np.dtype(dtype):
            return self
        if tape.is_recording():
            return _call_operator('Cast', self, dtype=np.dtype(dtype).name)
        return _carry_failure(NDArray(self._data.astype(dtype), self._ctx), self)

    def copy(self):
        """A new array on the same context holding a copy of the values; writing into one does not
        change the other.  While autograd records, the copy is the recorded ``_copy`` operator.
        """
        if tape.is_recording():
            return _call_operator('_copy', self)
        return _carry_failure(NDArray(self._data.copy(), self._ctx), self)

    def copyto(self, other):
        """Copy into ``other``: an NDArray (written in place) or a Context (a new array)."""
        failed = engine.failure_of([self._data])
        if isinstance(other, NDArray):
            if other is self:
                return other
            if other.shape != self.shape:
                raise ShapeError('copyto: shape mismatch, source %s vs target %s' % (self.shape, other.shape))
            if failed is not None:          # the copy fails as its source did (engine.py)
                engine.fail([other._data], failed)
                return other
            if other.stype != 'default':    # into a sparse array: its non-zeros, in its storage
                other[:] = self
                return other
            if not _copy_across(self._data, other._data, other._ctx):
                other._data[...] = move(self._data, other._ctx)
            return other
        if isinstance(other, Context):
            copy = NDArray(move(self._data, other).copy(), other)
            if failed is not None:
                engine.fail([copy._data], failed)
            return copy
        raise TypeError('copyto does not support type %s' % type(other).__name__)

    def as_np_ndarray(self):
        """This array as an ``mx.np.ndarray``: the same memory (writes show in both), no copy.
        Only a dense array converts, as in MXNet."""
        if self.stype != 'default':
            raise ValueError('as_np_ndarray: only a dense (default storage) array converts, this one '
                             'is %s; convert it with tostype("default") first' % self.stype)
        return _np_class[0](self._data, self._ctx)

    def as_in_context(self, context):
        """The array on ``context``: the array itself when it already lives there, else a copy made
        there (``copyto(context)``).

        Args:
            context (Context): the device wanted.

        Returns:
            NDArray
        """
        if self._ctx == context:
            return self
        return self.copyto(context)

    # ------------------------------------------------------------- DLPack
    def to_dlpack_for_read(self):
        """A DLPack capsule sharing this array's memory (for torch, cupy, numpy, ... to read)."""
        engine.rethrow(self._data)
        return self._data.__dlpack__()

    def to_dlpack_for_write(self):
        """A DLPack capsule sharing this array's memory, for another library to write into: a
        DLPack 1.0 capsule, which says it may be written (an older, unversioned one reads as
        read-only in numpy 2), where the array module can make one."""
        engine.rethrow(self._data)
        try:
            return self._data.__dlpack__(max_version=(1, 0))
        except TypeError:
            return self._data.__dlpack__()

    # ------------------------------------------------------------- pickling
    def __getstate__(self):
        """As MXNet pickles an NDArray: ``{'handle': the bytes of its record in an .nd file}``."""
        return {'handle': bytearray(_record_codec[0](self))}

    def __setstate__(self, state):
        loaded = _record_codec[1](bytes(state['handle']))
        self._data, self._ctx = loaded._data, loaded._ctx

    # ------------------------------------------------------------- autograd
    def attach_grad(self, grad_req='write', stype=None):
        """Make this array a variable of autograd: a zero gradient buffer (``.grad``) that
        ``backward`` writes (``grad_req='write'``) or adds (``'add'``) into."""
        stype = stype or self.stype
        if stype == 'default':
            began = _profiler.now_us() if _profiler.ACTIVE else None
            grad = NDArray(self.xp.zeros(self.shape, dtype=self._data.dtype), self._ctx)
            if began is not None:       # MXNet makes the buffer with its zeros_like operator
                _profiler.ran('zeros_like', began, self._ctx, [grad._data])
        else:                 # a sparse buffer, as MXNet's zeros_like of a sparse array
            grad = zeros(self.shape, self._ctx, self._data.dtype, stype=stype)
        tape.mark_variable(self, grad, grad_req)

    @property
    def grad(self):
        """The gradient buffer of a variable (``attach_grad``), None for any other array."""
        entry = getattr(self, '_entry', None)
        return entry.grad if isinstance(entry, tape.Variable) else None

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        """Differentiate this array's recorded computation (``autograd.backward([self], ...)``)."""
        tape.backward([self], [out_grad], retain_graph, train_mode)

    @property
    def _fresh_grad(self):
        """Whether a backward wrote this variable's gradient since the flag was last cleared."""
        entry = getattr(self, '_entry', None)
        return isinstance(entry, tape.Variable) and entry.fresh

    @_fresh_grad.setter
    def _fresh_grad(self, value):
        entry = getattr(self, '_entry', None)
        if not isinstance(entry, tape.Variable):
            raise MXNetError('_fresh_grad: this array is not a variable of autograd (attach_grad first)')
        entry.fresh = bool(value)

    def split_v2(self, indices_or_sections, axis=0, squeeze_axis=False):
        """``mx.nd.split_v2(self, ...)``: cut into equal pieces or at the given positions."""
        return split_v2(self, indices_or_sections, axis, squeeze_axis)

    def detach(self):
        """The same values, cut from the recorded computation: no gradient flows through it."""
        return NDArray(self._data, self._ctx)

    def wait_to_read(self):
        """reflib computes eagerly, so nothing is left to wait for; but as in MXNet, the
        failure of the operator that was to compute this array is raised here (engine.py)."""
        engine.rethrow(self._data)

    def reshape(self, *shape, **kwargs):
        """A view with a new shape; accepts MXNet's special codes 0, -1, -2, -3, -4."""
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = shape[0]
        shape = kwargs.pop('shape', shape)
        reverse = kwargs.pop('reverse', False)
        if kwargs:
            raise TypeError('reshape got unexpected arguments %s' % sorted(kwargs))
        target = reshape_target(self.shape, tuple(shape), reverse)
        if tape.is_recording():
            return _call_operator('Reshape', self, shape=target)
        return NDArray(self._data.reshape(target), self._ctx)

    @_operator_form
    def reshape_like(self, other):
        """A view of the values reshaped to ``other.shape`` (the sizes must agree).

        Args:
            other (NDArray): the array whose shape is taken.
        """
        return self.reshape(other.shape)

    # flatten, expand_dims and squeeze: a copy, as MXNet's operators make; ``inplace=True``
    # gives a view of the same memory instead (MXNet's methods take it too)
    @_operator_form
    def flatten(self, inplace=False):
        """The array as 2-D: the first axis kept, every other axis merged into the second, so shape
        ``(2, 3, 4)`` becomes ``(2, 12)`` (a 0-d array becomes ``(1, 1)``).

        Args:
            inplace: False (default) returns a copy, as MXNet's Flatten operator does; True a view
                sharing this array's memory.

        >>> mx.nd.ones((2, 3, 4)).flatten().shape
        (2, 12)
        """
        view = self.reshape((self.shape[0], -1)) if self.ndim else self.reshape((1, 1))
        return view if inplace else view.copy()

    @_operator_form
    def expand_dims(self, axis, inplace=False):
        """The array with a new axis of length 1 inserted at position ``axis``.

        Args:
            axis (int): where the new axis goes (negative counts from the end).
            inplace: False (default) returns a copy; True a view sharing this array's memory.

        >>> mx.nd.ones((2, 3)).expand_dims(0).shape
        (1, 2, 3)
        """
        view = NDArray(self.xp.expand_dims(self._data, axis), self._ctx)
        return view if inplace else view.copy()

    @_operator_form
    def squeeze(self, axis=None, inplace=False):
        """The array without its axes of length 1.

        Args:
            axis: an int or tuple of ints naming the axes to drop (each must have length 1);
                None drops every length-1 axis.  With legacy shapes, squeezing every axis away
                leaves shape ``(1,)`` rather than a 0-d array.
            inplace: False (default) returns a copy (the ``squeeze`` operator); True a view.

        >>> mx.nd.ones((1, 3, 1)).squeeze().shape
        (3,)
        """
        if not inplace:
            return _call_operator('squeeze', self, axis=axis)
        view = self.xp.squeeze(self._data, axis=None if axis is None else tuple(
            [axis] if isinstance(axis, int) else axis))
        if view.ndim == 0 and not is_np_shape():     # legacy shapes: every axis squeezed leaves (1,)
            view = view.reshape(1)
        return NDArray(view, self._ctx)

    @_operator_form
    def transpose(self, axes=None):
        """The axes permuted, as a new (contiguous) array.

        Args:
            axes: the new order of the axes, a tuple; None (default) reverses them, like ``.T``.
        """
        return NDArray(self.xp.ascontiguousarray(self._data.transpose(axes)), self._ctx)

    @property
    def xp(self):
        """The array module that computes on this array's buffer: numpy for a CPU context, cupy
        for a GPU one.
        """
        return self._ctx.xp

    def __getattr__(self, name):
        # MXNet's fluent methods (x.sort(), x.topk(k=2), x.clip(0, 6, out=y)): the operator of
        # that name, found when asked for (see reflib/fluent.py)
        if name.startswith('__'):
            raise AttributeError(name)
        return fluent_method(self, name, _call_operator, 'NDArray')

    def tostype(self, stype):
        """A copy with storage type ``stype``: 'default', 'csr' (2-D) or 'row_sparse'."""
        if stype == 'default':
            return self.copy()
        cast = STORAGE_CASTS.get(stype)
        if cast is None:
            raise MXNetError("tostype: unknown storage type %r; MXNet's are 'default', 'row_sparse' and "
                             "'csr'" % (stype,))
        return cast(self)

    def tolist(self):
        """The values as nested Python lists (copied to the host first)."""
        return self.asnumpy().tolist()

    def __array__(self, dtype=None, copy=None):
        engine.rethrow(self._data)
        arr = to_numpy(self._data)
        return arr.astype(dtype) if dtype is not None else arr

    # ------------------------------------------------------- reductions etc.
    @_operator_form
    def sum(self, axis=None, keepdims=False):
        """The sum over ``axis`` (every axis when None), in the array's own dtype: unlike numpy,
        an int32 sum stays int32.

        Args:
            axis: an int, a tuple of ints, or None.
            keepdims: keep the reduced axes with length 1.

        Returns:
            NDArray: a reduction over all axes gives shape ``(1,)``, as in MXNet 1.x.

        >>> mx.nd.array([[1, 2], [3, 4]]).sum(axis=0).asnumpy()
        array([4., 6.], dtype=float32)
        """
        # dtype=: numpy would widen int32/uint8 sums to 64 bits, MXNet keeps the dtype
        return self._wrap(self._data.sum(axis=_axis(axis), keepdims=keepdims, dtype=self._data.dtype))

    @_operator_form
    def mean(self, axis=None, keepdims=False):
        """The mean over ``axis`` (every axis when None).  On an integer array the integer sum is
        divided by the count with truncation, and the dtype is kept, as MXNet does.

        Args:
            axis: an int, a tuple of ints, or None.
            keepdims: keep the reduced axes with length 1.
        """
        if not _is_int(self._data):
            return self._wrap(self._data.mean(axis=_axis(axis), keepdims=keepdims))
        # integer arrays: integer sum, then MXNet's truncating integer division
        total = self._data.sum(axis=_axis(axis), keepdims=keepdims, dtype=self._data.dtype)
        count = _scalar(self.size // max(int(np.prod(total.shape)), 1) if self.size else 1, total.dtype)
        return self._wrap(_true_div(self.xp, self.xp.asarray(total), count))

    @_operator_form
    def max(self, axis=None, keepdims=False):
        """The largest value over ``axis`` (every axis when None); ``keepdims`` keeps the reduced
        axes with length 1.  An empty reduction raises the operator's error.
        """
        if self.size == 0:      # the operator names the empty axis
            return _call_operator('max', self, axis=axis, keepdims=keepdims)
        return self._wrap(self._data.max(axis=_axis(axis), keepdims=keepdims))

    @_operator_form
    def min(self, axis=None, keepdims=False):
        """The smallest value over ``axis`` (every axis when None); ``keepdims`` keeps the reduced
        axes with length 1.  An empty reduction raises the operator's error.
        """
        if self.size == 0:
            return _call_operator('min', self, axis=axis, keepdims=keepdims)
        return self._wrap(self._data.min(axis=_axis(axis), keepdims=keepdims))

    @_operator_form
    def argmax(self, axis=None, keepdims=False):
        """The position of the largest value along ``axis`` (over the flattened array when None),
        returned in the array's own dtype (float32 indices for a float32 array, as in MXNet).

        >>> mx.nd.array([[1, 5], [7, 2]]).argmax(axis=1).asnumpy()
        array([1., 0.], dtype=float32)
        """
        return self._wrap(self._data.argmax(axis=axis).astype(self._data.dtype))

    @_operator_form
    def abs(self):
        """The absolute value of each element, as a new array."""
        return self._wrap(abs(self._data))

    @_operator_form
    def square(self):
        """Each element times itself, as a new array of the same dtype."""
        return self._wrap(self._data * self._data)

    @_operator_form
    def sqrt(self):
        """The square root of each element; an integer array stays integer (the root is truncated),
        as in MXNet.
        """
        return self._wrap(self._same_dtype(self.xp.sqrt(self._data)))

    @_operator_form
    def exp(self):
        """``e`` to the power of each element; an integer array keeps its dtype."""
        return self._wrap(self._same_dtype(self.xp.exp(self._data)))

    @_operator_form
    def log(self):
        """The natural logarithm of each element; an integer array keeps its dtype."""
        return self._wrap(self._same_dtype(self.xp.log(self._data)))

    @_operator_form
    def clip(self, a_min, a_max):
        """Each element limited to ``[a_min, a_max]``.  The bounds are first cast to the array's
        dtype, so an int array clipped at 2.5 is clipped at 2.

        >>> mx.nd.array([-1.5, 0.5, 4]).clip(0, 2).asnumpy()
        array([0. , 0.5, 2. ], dtype=float32)
        """
        # bounds are cast to the array's dtype first (int array: clip(0, 2.5) clips at 2)
        dtype = self._data.dtype
        return self._wrap(self.xp.clip(self._data, _scalar(a_min, dtype), _scalar(a_max, dtype)))

    def _same_dtype(self, raw):
        """Math on integer arrays stays integer in MXNet (sqrt of int32 is int32)."""
        with np.errstate(invalid='ignore'):
            return raw.astype(self._data.dtype, copy=False)

    @_operator_form
    def norm(self, ord=2, axis=None, keepdims=False):
        """The L2 (``ord=2``) or L1 norm over ``axis`` (all axes by default), accumulated in float64."""
        if ord not in (1, 2):
            raise MXNetError('norm: ord must be 1 or 2, got %r' % (ord,))
        wide = self._data.astype(np.float64)
        axis = _axis(axis)
        if ord == 1:
            out = abs(wide).sum(axis=axis, keepdims=keepdims)
        else:
            out = self.xp.sqrt((wide * wide).sum(axis=axis, keepdims=keepdims))
        return self._wrap(out.astype(self._data.dtype))

    def _wrap(self, raw):
        """NDArray around a fresh result; 0-d results become shape (1,) as in MXNet."""
        if getattr(raw, 'ndim', 0) == 0:
            raw = self.xp.asarray(raw, dtype=self._data.dtype).reshape(1)
        return _carry_failure(NDArray(raw, self._ctx), self)

    # ------------------------------------------------------------- indexing
    def __getitem__(self, key):
        """MXNet 1.x indexing.

        Basic indexing (ints, slices, ``...``, ``None``) returns a view sharing
        the buffer when the selected elements are contiguous in memory
        (``a[1]``, ``a[1:3]``, ``a[1, 2]``) and a copy otherwise (``a[:, 1]``,
        ``a[::2]``).  Indexing every axis with an int gives shape ``(1,)``, not
        a 0-d array (inside ``mx.np_shape()``: ``()``, as in MXNet).  Advanced
        indexing (lists, NDArrays) returns a copy.
        """
        if tape.is_recording():
            return self._recorded_item(key)
        key = _index(key)
        out = self._data[key]
        if getattr(out, 'ndim', 0) == 0:
            # every axis got an int: take the one-element block as a view
            block = tuple(slice(i, i + 1) for i in _normalize_ints(key, self.shape))
            return NDArray(self._data[block].reshape(() if is_np_shape() else 1), self._ctx)
        if _is_basic(key) and not out.flags.c_contiguous:
            out = out.copy()
        return NDArray(out, self._ctx)

    def _recorded_item(self, key):
        """``self[key]`` as operators autograd records: ``slice`` over the axes the key cuts,
        then ``Reshape`` to the shape the key gives (ints drop axes, None adds them); ``take``
        for an NDArray of rows."""
        if isinstance(key, NDArray):
            return _call_operator('take', self, key, axis=0)
        if isinstance(key, (list, np.ndarray)) and np.asarray(key).dtype.kind in 'iu' and np.ndim(key) >= 1:
            # rows by a list or array of ints (of any shape): the same take, the indices as an NDArray
            rows = NDArray(self.xp.asarray(np.asarray(key), dtype=self._data.dtype), self._ctx)
            return _call_operator('take', self, rows, axis=0)
        if not _is_basic(key):
            # any other mix (lists and arrays on several axes, with ints and slices): the flat
            # positions the key selects, found by indexing an array of positions the same way,
            # then one recorded take of those from the flattened array (its backward
            # scatter-adds, so a position selected twice gets both gradients)
            positions = self.xp.arange(self.size, dtype=np.int64).reshape(self.shape)[_index(key)]
            if positions.ndim == 0:
                positions = positions.reshape(() if is_np_shape() else (1,))
            flat = _call_operator('Reshape', self, shape=(-1,))
            return _call_operator('take', flat, NDArray(positions, self._ctx), axis=0)
        # the result's shape, from indexing a stand-in of this shape that holds no memory
        shape = np.broadcast_to(np.zeros((), bool), self.shape)[key].shape or ((1,) if not is_np_shape() else ())
        begin, end, step = [], [], []
        for axis, k in enumerate(_axis_keys(key, self.ndim)):
            if isinstance(k, slice):
                begin.append(k.start), end.append(k.stop), step.append(k.step)
                continue
            i = int(k) + self.shape[axis] if int(k) < 0 else int(k)
            begin.append(i), end.append(i + 1), step.append(None)
        out = _call_operator('slice', self, begin=tuple(begin), end=tuple(end), step=tuple(step))
        return out if out.shape == shape else _call_operator('Reshape', out, shape=shape)

    def __setitem__(self, key, value):
        if tape.is_recording() and key is not None:
            # (a[None] = v is a[...] = v in MXNet, the one assignment it lets through)
            raise MXNetError('Inplace operations (+=, -=, x[:]=, etc) are not supported when recording with '
                             'autograd: NDArray[...] = value inside autograd.record() would change values the '
                             'gradient reads; assign outside the record section')
        if not self.writable:
            raise MXNetError('cannot write into this NDArray of shape %s: it is read-only (its buffer is '
                             'a read-only numpy array, see NDArray.writable); write into a copy() instead'
                             % (self.shape,))
        key = _index(key)
        if isinstance(value, NDArray):
            failed = engine.failure_of([value._data])
            if failed is not None:      # a write from a failed result fails the target (engine.py)
                engine.fail([self._data], failed)
            if value._ctx != self._ctx:
                value = move(value._data, self._ctx)
            else:
                value = value._data
        elif not isinstance(value, numeric_types):
            if _profiler.ACTIVE and _profiler.records('api'):   # host values copied in, as MXNet's call
                _profiler.span('MXNET_C_API', 'MXNDArraySyncCopyFromCPU', _profiler.now_us())
            value = self.xp.asarray(value)
        if getattr(value, 'size', 0) == 1 and getattr(value, 'ndim', 0) > 0 and getattr(self._data[key], 'ndim', 1) == 0:
            value = value.reshape(())       # one element from a one-element array, as MXNet allows
        try:
            self._data[key] = value
        except ValueError as err:
            raise ShapeError('cannot assign a value of shape %s to NDArray[%r] (the array has shape %s): %s'
                             % (getattr(value, 'shape', ()), key, self.shape, err)) from None

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        for i in range(self.shape[0]):
            yield self[i]

    def __bool__(self):
        if self.size == 1:
            return bool(self.asnumpy().reshape(-1)[0])
        if self.size == 0:
            return False
        raise ValueError('the truth value of an NDArray with more than one element is ambiguous')

    def __repr__(self):
        body = str(self.asnumpy())
        return '\n%s\n<NDArray %s @%s>' % (body, 'x'.join(str(d) for d in self.shape), self._ctx)

    # ----------------------------------------------------------- arithmetic
    # MXNet's rules, which differ from numpy's:
    # * a Python/numpy scalar is passed as a double and cast to the array's
    #   dtype *before* the op: int32 array * 1.5 multiplies by 1, and
    #   float32 array + np.float64(0.1) stays float32;
    # * two arrays must have the same dtype (no promotion);
    # * arrays on different CPU contexts (cpu(0), cpu(1), cpu_pinned) mix
    #   freely and the result lives on the left operand's context; a cpu and
    #   a gpu array (or two gpus) do not mix;
    # * integer division truncates toward zero and stays integer;
    # * comparisons return 0/1 in the operands' dtype.
    def _operand(self, other, op):
        if isinstance(other, NDArray):
            if other._ctx != self._ctx and not (_cpu_like(self._ctx) and _cpu_like(other._ctx)):
                raise MXNetError('%s: operands live on different contexts (%s and %s); '
                                 'copy one with as_in_context first' % (op, self._ctx, other._ctx))
            if other._data.dtype != self._data.dtype:
                raise TypeInferError('%s: operands have different dtypes (%s and %s); MXNet does not '
                                     'promote, convert one with astype first'
                                     % (op, self._data.dtype, other._data.dtype))
            # a sparse operand takes part with its dense values (MXNet's storage fallback)
            return other._data if other.stype == 'default' else other._dense_data()
        if isinstance(other, numeric_types):
            return _scalar(other, self._data.dtype)
        raise TypeError('type %s not supported' % type(other))

    def _binary(self, other, fn, name, reverse=False):
        if tape.is_recording() or _profiler.ACTIVE:     # as the operator MXNet runs, so it is seen
            return self._recorded_binary(other, name, reverse)
        rhs = self._operand(other, name)
        lhs, rhs = (rhs, self._data) if reverse else (self._data, rhs)
        try:
            # asarray: numpy turns 0-d results into scalars
            return _carry_failure(NDArray(self.xp.asarray(fn(self.xp, lhs, rhs)), self._ctx), self, other)
        except ValueError as err:
            raise ShapeError('%s: shapes %s and %s do not broadcast (%s)'
                             % (name, getattr(lhs, 'shape', ()), getattr(rhs, 'shape', ()), err)) from None

    def _recorded_binary(self, other, name, reverse):
        """``self <name> other`` as the operator autograd records (MXNet's NDArray operators are
        these operators): ``broadcast_*`` between arrays, ``_*_scalar`` with a number."""
        array_op, scalar_op, reverse_op = _RECORDED[name]
        if isinstance(other, NDArray):
            lhs, rhs = (other, self) if reverse else (self, other)
            return _call_operator(array_op, lhs, rhs)
        if not isinstance(other, numeric_types):
            raise TypeError('type %s not supported' % type(other))
        # MXNet hands the scalar over as a float (the graph of autograd.get_symbol shows 2.0)
        return _call_operator(reverse_op if reverse else scalar_op, self, scalar=float(other))

    def _inplace(self, other, fn, name):
        """``a op= b``: compute, then write into a's own buffer (bound executors see it)."""
        tape.check_writable(self)
        if tape.is_recording():       # the result's recorded call is now where this array came from
            result = self._binary(other, fn, name)
            self._data[...] = result._data
            if getattr(result, '_entry', None) is not None:
                self._entry = result._entry
            return self
        result = self._binary(other, fn, name)._data
        if result.shape != self._data.shape:
            raise ShapeError('%s: cannot update shape %s in place with a result of shape %s'
                             % (name, self.shape, tuple(result.shape)))
        self._data[...] = result
        return _carry_failure(self, other)

    def __add__(self, o): return self._binary(o, _add, '+')
    def __radd__(self, o): return self._binary(o, _add, '+', reverse=True)
    def __sub__(self, o): return self._binary(o, _sub, '-')
    def __rsub__(self, o): return self._binary(o, _sub, '-', reverse=True)
    def __mul__(self, o): return self._binary(o, _mul, '*')
    def __rmul__(self, o): return self._binary(o, _mul, '*', reverse=True)
    def __truediv__(self, o): return self._binary(o, _true_div, '/')
    def __rtruediv__(self, o): return self._binary(o, _true_div, '/', reverse=True)
    def __mod__(self, o): return self._binary(o, _mod, '%')
    def __rmod__(self, o): return self._binary(o, _mod, '%', reverse=True)
    def __pow__(self, o): return self._binary(o, _power, '**')
    def __rpow__(self, o): return self._binary(o, _power, '**', reverse=True)
    def __neg__(self):
        if tape.is_recording():
            return _call_operator('negative', self)
        return _carry_failure(NDArray(self.xp.asarray(-self._data), self._ctx), self)

    def __pos__(self): return self
    def __abs__(self): return self.abs()

    def __iadd__(self, o): return self._inplace(o, _add, '+=')
    def __isub__(self, o): return self._inplace(o, _sub, '-=')
    def __imul__(self, o): return self._inplace(o, _mul, '*=')
    def __itruediv__(self, o): return self._inplace(o, _true_div, '/=')
    def __imod__(self, o): return self._inplace(o, _mod, '%=')

    # comparisons give 0/1 arrays of the same dtype, as in MXNet
    def _compare(self, o, fn, name):
        out = self._binary(o, fn, name)
        out._data = out._data.astype(self._data.dtype)
        return out

    def __eq__(self, o): return self._compare(o, lambda xp, a, b: a == b, '==')
    def __ne__(self, o): return self._compare(o, lambda xp, a, b: a != b, '!=')
    def __gt__(self, o): return self._compare(o, lambda xp, a, b: a > b, '>')
    def __ge__(self, o): return self._compare(o, lambda xp, a, b: a >= b, '>=')
    def __lt__(self, o): return self._compare(o, lambda xp, a, b: a < b, '<')
    def __le__(self, o): return self._compare(o, lambda xp, a, b: a <= b, '<=')
    __hash__ = object.__hash__


# what autograd records for each Python operator: (with an array, with a scalar, with the
# scalar on the left), as MXNet's NDArray operators call them
_RECORDED = {
    '+': ('broadcast_add', '_plus_scalar', '_plus_scalar'),
    '-': ('broadcast_sub', '_minus_scalar', '_rminus_scalar'),
    '*': ('broadcast_mul', '_mul_scalar', '_mul_scalar'),
    '/': ('broadcast_div', '_div_scalar', '_rdiv_scalar'),
    '%': ('broadcast_mod', '_mod_scalar', '_rmod_scalar'),
    '**': ('broadcast_power', '_power_scalar', '_rpower_scalar'),
    '==': ('broadcast_equal', '_equal_scalar', '_equal_scalar'),
    '!=': ('broadcast_not_equal', '_not_equal_scalar', '_not_equal_scalar'),
    '>': ('broadcast_greater', '_greater_scalar', '_lesser_scalar'),
    '>=': ('broadcast_greater_equal', '_greater_equal_scalar', '_lesser_equal_scalar'),
    '<': ('broadcast_lesser', '_lesser_scalar', '_greater_scalar'),
    '<=': ('broadcast_lesser_equal', '_lesser_equal_scalar', '_greater_equal_scalar'),
}
_RECORDED.update({op + '=': _RECORDED[op] for op in '+-*/%'})


# Python's own slice, under the name MXNet's ndarray module gives it (its ``slice`` is the operator)
py_slice = slice


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """``ary`` cut along ``axis``: into ``indices_or_sections`` equal pieces (an int), or at
    those positions (a tuple), as numpy's split (the ``_split_v2`` operator)."""
    if isinstance(indices_or_sections, int):
        if ary.shape[axis] % indices_or_sections:
            raise ValueError('split_v2: an axis of size %d does not split into %d equal pieces'
                             % (ary.shape[axis], indices_or_sections))
        return _call_operator('_split_v2', ary, axis=axis, squeeze_axis=squeeze_axis,
                              sections=indices_or_sections)
    if isinstance(indices_or_sections, tuple):
        return _call_operator('_split_v2', ary, indices=(0,) + indices_or_sections, axis=axis,
                              squeeze_axis=squeeze_axis)
    raise ValueError('split_v2: indices_or_sections must be an int or a tuple of ints, got %r'
                     % (indices_or_sections,))


# mx.nd.to_dlpack_for_read(x) is x.to_dlpack_for_read(), and so for write
to_dlpack_for_read = NDArray.to_dlpack_for_read
to_dlpack_for_write = NDArray.to_dlpack_for_write


class _Capsule:
    """A bare DLPack capsule dressed as the producer numpy's ``from_dlpack`` expects; numpy
    itself checks from the tensor that it lives on the host."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)            # kDLCPU


def from_dlpack(dlpack):
    """An NDArray sharing the memory of a DLPack capsule (or of any object with ``__dlpack__``):
    a host tensor becomes a CPU array, a CUDA tensor a GPU one (with cupy)."""
    source = _Capsule(dlpack) if type(dlpack).__name__ == 'PyCapsule' else dlpack
    try:
        return NDArray(np.from_dlpack(source), Context('cpu', 0))
    except (BufferError, RuntimeError, TypeError) as host_error:
        try:
            import cupy                # only for a device tensor: reflib never needs cupy to import
        except ImportError:
            raise MXNetError('from_dlpack: not a host tensor (%s), and there is no cupy for a device one'
                             % host_error) from None
        raw = cupy.from_dlpack(dlpack)
        return NDArray(raw, Context('gpu', raw.device.id))


def _cpu_like(ctx):
    return ctx.device_type != 'gpu'


def _scalar(value, dtype):
    """A scalar operand as MXNet sees it: a double cast (C-style, truncating) to ``dtype``."""
    with np.errstate(invalid='ignore', over='ignore'):
        return np.array(float(value), dtype=np.float64).astype(dtype)[()]


def _is_int(x):
    return np.issubdtype(x.dtype, np.integer)


# Element-wise kernels: ``fn(xp, a, b)`` with a, b of one dtype (arrays or numpy scalars).
def _add(xp, a, b):
    return xp.add(a, b)


def _sub(xp, a, b):
    return xp.subtract(a, b)


def _mul(xp, a, b):
    return xp.multiply(a, b)


def _mod(xp, a, b):
    # floor modulo (sign of the divisor), 0 for a zero divisor: MXNet's mod operators' math
    return MOD.value(xp, a, b)


def _true_div(xp, a, b):
    if not _is_int(a):
        return xp.true_divide(a, b)
    # MXNet has no true division for integers: C++ '/', truncating toward zero
    if bool(to_numpy((b == 0).any())):       # on a GPU: an explicit one-byte read-back
        raise MXNetError('integer division by zero')
    quotient = xp.floor_divide(a, b)
    inexact_negative = (xp.mod(a, b) != 0) & ((a < 0) != (b < 0))
    return quotient + inexact_negative.astype(quotient.dtype)


def _power(xp, a, b):
    if not _is_int(a):
        return xp.power(a, b)
    # computed in floating point and cast back, so 2 ** -1 is 0 rather than an error
    with np.errstate(invalid='ignore', over='ignore', divide='ignore'):
        return xp.power(a.astype(np.float64), b.astype(np.float64)).astype(a.dtype)


def _axis(axis):
    if axis is None or isinstance(axis, int):
        return axis
    axis = tuple(axis)
    return axis if axis else None


def _index(key):
    """Translate NDArray indices into raw ones."""
    if isinstance(key, NDArray):
        return to_numpy(key._data).astype(np.int64)
    if isinstance(key, tuple):
        return tuple(_index(k) for k in key)
    return key


def _is_basic(key):
    """Whether ``key`` is basic indexing (gives a numpy view), not advanced (gives a copy)."""
    parts = key if isinstance(key, tuple) else (key,)
    return all(k is None or k is Ellipsis
               or (isinstance(k, (slice, int, np.integer)) and not isinstance(k, (bool, np.bool_)))
               for k in parts)


def _axis_keys(key, ndim):
    """A basic key as one int or slice per axis of the array (``...`` expanded, None dropped)."""
    parts = [k for k in (key if isinstance(key, tuple) else (key,)) if k is not None]
    if Ellipsis in parts:
        at = parts.index(Ellipsis)
        parts[at:at + 1] = [slice(None)] * (ndim - len(parts) + 1)
    return parts + [slice(None)] * (ndim - len(parts))


def _normalize_ints(key, shape):
    """The non-negative positions of an all-int key (already bounds-checked by numpy)."""
    parts = key if isinstance(key, tuple) else (key,)
    ints = [int(k) for k in parts if k is not None and k is not Ellipsis]
    return [i + d if i < 0 else i for i, d in zip(ints, shape)]


# ------------------------------------------------------------------ creation
def _ctx(ctx):
    return Context(ctx) if ctx is not None else current_context()


def from_xp(raw, ctx=None):
    """Wrap a raw numpy/cupy array (no copy)."""
    return NDArray(raw, _ctx(ctx))


def array(source_array, ctx=None, dtype=None):
    """A new NDArray holding a copy of ``source_array``.

    Like MXNet 1.x, the dtype defaults to float32 for every source except an
    NDArray, whose dtype is kept: ``array(np.arange(3))`` is float32, not int64.
    A scalar gives a 0-d array (shape ``()``), as in MXNet; a scipy CSR matrix a CSRNDArray.
    """
    if getattr(source_array, 'format', None) == 'csr' and CSR_FROM_SCIPY:    # a scipy.sparse CSR matrix
        return CSR_FROM_SCIPY[0](source_array, ctx=ctx, dtype=dtype)
    ctx = _ctx(ctx)
    if isinstance(source_array, NDArray):
        src = source_array.asnumpy()
        dtype = dtype or src.dtype
    elif isinstance(source_array, np.ndarray) or hasattr(source_array, '__cuda_array_interface__'):
        src = source_array
        dtype = dtype or mx_real_t
    else:
        dtype = dtype or mx_real_t
        try:
            src = np.asarray(source_array, dtype=dtype)
        except (ValueError, TypeError) as err:
            # a ragged list ([[1, 2], [3]]) or something that is not numbers at all
            raise ShapeError('array: source_array must be a rectangular nest of numbers (or an array), '
                             'got %s: %s' % (type(source_array).__name__, err)) from None
    src = src.astype(dtype)
    if _profiler.ACTIVE and _profiler.records('api'):     # MXNet copies the host values in by this call
        _profiler.span('MXNET_C_API', 'MXNDArraySyncCopyFromCPU', _profiler.now_us())
    return NDArray(move(src, ctx).copy(), ctx)


def _as_shape(shape, what):
    """A tuple of non-negative ints from an int or a sequence of them, or a ShapeError."""
    try:
        dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    except TypeError:
        dims = None
    if dims is None or not all(isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_))
                               for d in dims):
        raise ShapeError('%s: shape must be an int or a tuple of ints, got %r' % (what, shape))
    if any(d < 0 for d in dims):
        raise ShapeError('%s: shape %s has a negative dimension' % (what, tuple(int(d) for d in dims)))
    return tuple(int(d) for d in dims)


# storage type -> the function that converts a dense NDArray to it, and the sparse zeros
# (zeros(shape, stype='csr')); sparse.py, which builds on this file, fills both in
STORAGE_CASTS = {}
STORAGE_ZEROS = []
# a scipy CSR matrix given to array() becomes a CSRNDArray, as in MXNet: sparse.py's csr_matrix
CSR_FROM_SCIPY = []


def _carry_failure(result, *sources):
    """``result``, failed as any NDArray among ``sources`` failed (engine.py: what reads a failed
    result fails too).  With nothing failed anywhere, one cheap test."""
    if engine.pending():
        failed = engine.failure_of([s._data for s in sources if isinstance(s, NDArray)])
        if failed is not None:
            engine.fail([result._data], failed)
    return result


def _alloc(fill, shape, ctx, dtype):
    ctx = _ctx(ctx)
    shape = _as_shape(shape, 'creating an NDArray')
    with ctx.device_scope():
        return NDArray(ctx.xp.full(shape, fill, dtype=dtype or mx_real_t), ctx)


def check_out(out, shape, dtype, what):
    """MXNet writes into ``out=`` only when it has exactly the result's shape and dtype."""
    if not isinstance(out, NDArray):
        raise TypeError('%s: out= must be an NDArray, got %s' % (what, type(out).__name__))
    if tuple(out.shape) != tuple(shape):
        raise ShapeError('%s: out= has shape %s, the result has shape %s' % (what, out.shape, tuple(shape)))
    if np.dtype(out.dtype) != np.dtype(dtype):
        raise TypeInferError('%s: out= has dtype %s, the result is %s'
                             % (what, np.dtype(out.dtype).name, np.dtype(dtype).name))


def _known_shape(shape, what):
    """``shape`` for a filled array: under legacy shapes () and 0 dimensions mean "unknown",
    so MXNet's zeros and ones refuse them; inside ``mx.np_shape()`` they are a scalar and
    a zero size."""
    dims = _as_shape(shape, what)
    if not shape_is_known(dims):
        raise ShapeError('%s: shape %s is not known under legacy shapes (() and 0 dimensions mean '
                         'unknown); for a scalar or a zero-size array use mx.np_shape()' % (what, dims))
    return dims


def _filled(fill, shape, ctx, dtype, out, what):
    """A new array, or ``out`` (MXNet's out=) filled in place and returned."""
    if out is None:
        if _profiler.ACTIVE:        # MXNet's _zeros / _ones operators
            began = _profiler.now_us()
            made = _alloc(fill, _known_shape(shape, what), ctx, dtype)
            _profiler.ran('_' + what, began, made.context, [made._data])
            return made
        return _alloc(fill, _known_shape(shape, what), ctx, dtype)
    check_out(out, _as_shape(shape, what), dtype or mx_real_t, what)
    out[:] = fill
    return out


def zeros(shape, ctx=None, dtype=None, out=None, stype=None, **kwargs):
    """A new array of ``shape`` filled with 0.

    Args:
        shape: an int or a tuple of ints.
        ctx (Context): where to allocate it; the current context by default.
        dtype: the element type, float32 by default.
        out (NDArray): when given, filled with 0 in place and returned instead (it must have
            this shape and dtype).
        stype: ``'csr'`` or ``'row_sparse'`` for an all-zero sparse array; None or
            ``'default'`` for a dense one.

    Raises:
        ShapeError: the shape is not a valid one, or (under legacy shapes) it holds a 0 or
            is ``()``, which MXNet reads as unknown; use ``mx.np_shape()`` for those.

    >>> mx.nd.zeros((2, 3)).asnumpy()
    array([[0., 0., 0.],
           [0., 0., 0.]], dtype=float32)
    """
    if stype not in (None, 'default'):
        return STORAGE_ZEROS[0](stype, shape, ctx, dtype)
    return _filled(0, shape, ctx, dtype, out, 'zeros')


def ones(shape, ctx=None, dtype=None, out=None, **kwargs):
    """A new array of ``shape`` filled with 1; the arguments are those of ``zeros`` (no
    ``stype``).
    """
    return _filled(1, shape, ctx, dtype, out, 'ones')


def empty(shape, ctx=None, dtype=None, stype=None):
    """A new array of ``shape``.  MXNet leaves the memory uninitialized; reflib fills it with
    zeros so that runs are reproducible.  ``stype`` gives a sparse array, as in ``zeros``.
    """
    # zero-filled rather than garbage: reproducible notebooks matter more than the memset
    if stype not in (None, 'default'):
        return STORAGE_ZEROS[0](stype, shape, ctx, dtype)
    return _alloc(0, shape, ctx, dtype)


def full(shape, val, ctx=None, dtype=None, out=None):
    """A new array of ``shape`` with every element set to ``val``.

    Args:
        shape: an int or a tuple of ints.
        val: the fill value (cast to ``dtype``).
        ctx (Context): where to allocate it; the current context by default.
        dtype: the element type, float32 by default.
        out (NDArray): when given, it is filled with ``val`` in place and returned.

    >>> mx.nd.full((2,), 7).asnumpy()
    array([7., 7.], dtype=float32)
    """
    if out is not None:       # MXNet fills out= whatever shape was asked for
        out[:] = val
        return out
    if _profiler.ACTIVE:            # MXNet's _full operator
        began = _profiler.now_us()
        made = _alloc(val, shape, ctx, dtype)
        _profiler.ran('_full', began, made.context, [made._data])
        return made
    return _alloc(val, shape, ctx, dtype)   # MXNet's full fills any shape, (0, 3) too


def zeros_like(data, out=None, **kwargs):
    """A new array of zeros with the shape, dtype and context of ``data``; with ``out=``,
    ``out`` (which must match them) is zeroed in place and returned.
    """
    if out is not None:
        check_out(out, data.shape, data.dtype, 'zeros_like')
        out[:] = 0
        return out
    return zeros(data.shape, data.context, data.dtype)


def ones_like(data, out=None, **kwargs):
    """A new array of ones with the shape, dtype and context of ``data``; with ``out=``,
    ``out`` (which must match them) is set to one in place and returned.
    """
    if out is not None:
        check_out(out, data.shape, data.dtype, 'ones_like')
        out[:] = 1
        return out
    return ones(data.shape, data.context, data.dtype)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=None):
    """Evenly spaced values in [start, stop), each repeated ``repeat`` times.

    ``infer_range`` is accepted (and ignored) so positional calls line up with MXNet's signature.

    MXNet computes element i as ``dtype(start) + dtype(i) * dtype(step)`` in
    the output dtype, which is not always what numpy.arange gives for float32.
    """
    if stop is None:
        start, stop = 0, start
    dtype = np.dtype(dtype or mx_real_t)
    count = max(int(math.ceil((stop - start) / step)), 0)
    with np.errstate(over='ignore'):
        values = _scalar(start, dtype) + np.arange(count).astype(dtype) * _scalar(step, dtype)
    values = values.astype(dtype)
    if repeat > 1:
        values = np.repeat(values, repeat)
    return array(values, ctx=ctx, dtype=dtype)


def concatenate(arrays, axis=0, always_copy=True):
    """The arrays joined along ``axis`` into a new array on the first array's context.

    Args:
        arrays (list of NDArray): arrays of one dtype whose shapes agree except along ``axis``.
        axis (int): the axis to join along, 0 by default.
        always_copy: accepted for MXNet's signature; the result is always a new array.

    Raises:
        TypeInferError: the arrays have different dtypes.

    >>> a = mx.nd.ones((2, 3))
    >>> mx.nd.concatenate([a, a], axis=1).shape
    (2, 6)
    """
    ctx = arrays[0].context
    dtypes = sorted({str(a.dtype.__name__) for a in arrays})
    if len(dtypes) > 1:
        raise TypeInferError('concatenate: arrays have different dtypes %s' % dtypes)
    return NDArray(ctx.xp.concatenate([a._data for a in arrays], axis=axis), ctx)


def norm(data, ord=2, axis=None, keepdims=False, out=None, **kwargs):
    """``mx.nd.norm``: see NDArray.norm."""
    result = data.norm(ord=ord, axis=axis, keepdims=keepdims)
    if out is None:
        return result
    check_out(out, result.shape, result.dtype, 'norm')
    out[:] = result
    return out


def waitall():
    """reflib runs eagerly, so no computation is pending; but as MXNet's, this raises the first
    failure nobody has waited on yet, and forgets the others (reflib/engine.py)."""
    with _profiler.api_call('MXNDArrayWaitAll') if _profiler.ACTIVE else _profiler.QUIET:
        engine.rethrow_all()
