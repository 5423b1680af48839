"""Context: *where* an array lives and therefore which array module computes on it.

In MXNet a Context is a (device type, device id) pair.  reflib maps that pair to
an array module: ``cpu(i)`` arrays are numpy arrays and ``gpu(i)`` arrays are
cupy arrays on CUDA device ``i``.  Operator code is written once against
``xp`` (numpy or cupy), so the same forward/backward runs on both.

``cpu(0)`` and ``cpu(1)`` are *different* contexts even though both are
numpy: MXNet lets you pretend to have several CPU devices, which is how the
book demonstrates model and data parallelism on a laptop.
"""

import contextlib
import threading
import warnings

import numpy as np

from .base import ContextError, classproperty, ClassPropertyType

__all__ = ['Context', 'cpu', 'gpu', 'cpu_pinned', 'current_context', 'num_gpus']


# numpy needs no device scope; one shared do-nothing ``with`` block serves every call
_NO_SCOPE = contextlib.nullcontext()


class Context(metaclass=ClassPropertyType):
    """A device: ``Context('cpu', 0)``, ``Context('gpu', 1)``.

    >>> import reflib as mx
    >>> mx.cpu(1)
    cpu(1)
    >>> mx.cpu(1) == mx.Context('cpu', 1)
    True
    >>> with mx.Context('cpu', 2):
    ...     mx.current_context()
    cpu(2)
    """
    devtype2str = {1: 'cpu', 2: 'gpu', 3: 'cpu_pinned', 5: 'cpu_shared'}
    devstr2type = {v: k for k, v in devtype2str.items()}
    _local = threading.local()

    def _default_ctx(cls):
        """``Context.default_ctx``: this thread's current context, as MXNet's deprecated class
        property gives it (``mx.current_context()`` is the way to ask); assigning to it sets
        this thread's current context (inside a ``with`` block: until the block ends)."""
        warnings.warn('Context.default_ctx is deprecated (as in MXNet): use mx.current_context()',
                      DeprecationWarning, stacklevel=3)
        return current_context()

    def _set_default_ctx(cls, ctx):
        warnings.warn('Context.default_ctx is deprecated (as in MXNet): use mx.test_utils.set_default_context',
                      DeprecationWarning, stacklevel=3)
        set_current_context(ctx)

    default_ctx = classproperty(_default_ctx, _set_default_ctx)
    del _default_ctx, _set_default_ctx

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            device_type, device_id = device_type.device_type, device_type.device_id
        if isinstance(device_type, int):
            device_type = self.devtype2str.get(device_type, device_type)
        if device_type not in self.devstr2type:
            raise ContextError("unknown device type %r; expected one of %s"
                               % (device_type, sorted(self.devstr2type)))
        self.device_type = device_type
        self.device_id = int(device_id)

    @property
    def device_typeid(self):
        """MXNet's number for the device type: 1 for ``cpu``, 2 for ``gpu``, 3 for ``cpu_pinned``
        (the numbers its files and C API use).

        >>> mx.gpu(0).device_typeid
        2
        """
        return self.devstr2type[self.device_type]

    @property
    def xp(self):
        """The array module that holds arrays of this context (numpy or cupy)."""
        if self.device_type == 'gpu':
            return _cupy()
        return np

    def __hash__(self):
        return hash((self.device_type, self.device_id))

    def __eq__(self, other):
        return self is other or (isinstance(other, Context) and self.device_type == other.device_type
                and self.device_id == other.device_id)

    def __ne__(self, other):
        return not self == other

    def __repr__(self):
        return '%s(%d)' % (self.device_type, self.device_id)

    __str__ = __repr__

    def __enter__(self):
        stack = _ctx_stack()
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _ctx_stack().pop()

    def device_scope(self):
        """A ``with`` block that makes this device current for the array module.

        cupy allocates on the *current* CUDA device, so gpu(1) work must run
        inside ``cupy.cuda.Device(1)``; numpy needs nothing.
        """
        if self.device_type == 'gpu':
            return _cupy().cuda.Device(self.device_id)
        return _NO_SCOPE

    def empty_cache(self):
        """Give cached device memory back (cupy's memory pool); a no-op on cpu."""
        if self.device_type == 'gpu':
            _cupy().get_default_memory_pool().free_all_blocks()


def _ctx_stack():
    local = Context._local
    if not hasattr(local, 'stack'):
        local.stack = []
    return local.stack


def current_context():
    """The context of the innermost ``with ctx:`` block, ``cpu(0)`` outside any."""
    stack = _ctx_stack()
    return stack[-1] if stack else _CPU0


def set_current_context(ctx):
    """Make ``ctx`` this thread's current context: inside a ``with`` block until the block
    ends (the block's own context is replaced), outside any for good, as MXNet's setter of
    ``Context.default_ctx`` does."""
    stack = _ctx_stack()
    if stack:
        stack[-1] = Context(ctx)
    else:
        stack.append(Context(ctx))


# a Context is never changed after it is made, so the default one is made once: every
# NDArray made outside a ``with ctx:`` block asks for it
_CPU0 = Context('cpu', 0)


def cpu(device_id=0):
    """The Context of the host's CPU; ``device_id`` (0 by default) tells CPU contexts apart
    but chooses no hardware.

    >>> mx.cpu()
    cpu(0)
    """
    return Context('cpu', device_id)


def cpu_pinned(device_id=0):
    """The Context of host memory pinned for fast copies to a GPU (MXNet's ``cpu_pinned``).  In
    reflib its arrays are ordinary numpy arrays; they mix with ``cpu`` arrays freely.
    """
    return Context('cpu_pinned', device_id)


def gpu(device_id=0):
    """The Context of GPU ``device_id`` (0 by default).  Making it needs no GPU; allocating an
    array on it needs cupy and that device.

    >>> mx.gpu(1)
    gpu(1)
    """
    return Context('gpu', device_id)


_CUPY = None


def _cupy():
    """Import cupy once, with an error that says what to install when it is missing."""
    global _CUPY
    if _CUPY is None:
        try:
            import cupy  # noqa: F401  (optional dependency)
            cupy.cuda.runtime.getDeviceCount()
        except Exception as err:  # ImportError, or CUDA driver errors
            raise ContextError(
                "gpu context needs cupy and a CUDA device (pip install cupy-cuda12x); "
                "cupy is unusable here: %s" % (err,)) from None
        _CUPY = cupy
    return _CUPY


def num_gpus():
    """How many CUDA devices cupy can see (0 without cupy)."""
    try:
        return _cupy().cuda.runtime.getDeviceCount()
    except ContextError:
        return 0
