"""A strict stand-in for cupy, for the tests only: a GPU's rules, checked on a CPU.

reflib promises that ``gpu(i)`` arrays are cupy arrays and that every operator is written
once against ``xp``.  CI has no GPU, so this module plays cupy there: its arrays keep
their numbers in numpy, but they behave as cupy's do where a GPU differs from numpy,
so code that would break or silently copy on a device fails here.

* An array refuses to become a host value without an explicit transfer:
  ``np.asarray(x)``, ``float(x)``, ``bool(x)``, ``x.item()``, ``x.tolist()`` and ``for v in x``
  raise ``TransferError`` (cupy refuses the first and synchronises, copying to the host,
  for the others).  The explicit transfers, ``x.get()`` and ``cupy.asnumpy(x)``, and the
  host-to-device ones (``cupy.asarray(numpy_array)``) are counted, see ``TRANSFERS``.
* A numpy function called on its arrays goes where cupy's ``__array_function__`` and
  ``__array_ufunc__`` send it: to the cupy function of that name, or ``TypeError`` when
  cupy has none.  A numpy array handed to a cupy function (other than the few that copy
  host data in) is a ``TypeError``, as cupy's kernels refuse them.
* It has only the names real cupy 14 has (``tests/golden/cupy_names.json``, recorded
  from the wheel by ``gen_cupy_names.py``): ``xp.errstate``, ``Generator.normal`` or
  ``ndarray.itemset`` do not exist here either.  Reductions return 0-d arrays, never
  numpy scalars.
* Arrays belong to the device that was current when they were made (``cuda.Device``);
  mixing devices in one call is a ``ValueError``, as in cupy.

``install()`` puts it in ``sys.modules`` as ``cupy``, ``cupyx`` and ``cupyx.scipy.special``,
so that reflib's own ``import cupy`` finds it; reflib itself is not changed for it.
It is never "GPU support": only a real device proves that (bench/gpu_check.py).
"""

import contextlib
import json
import operator
import os
import sys
import threading
import types

import numpy as np

_NAMES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'golden', 'cupy_names.json')
with open(_NAMES_FILE) as _f:
    NAMES = {k: (set(v) if isinstance(v, list) else v) for k, v in json.load(_f).items()}

# cupy's kernels never warn about 0/0 or overflow: numpy's warnings are silenced here too
def _quiet():
    return np.errstate(all='ignore')

SIGNATURES = NAMES['signatures']


def _check_call(key, args, kwargs):
    """Refuse what cupy's own signature refuses: an unknown keyword, too many positionals."""
    params = SIGNATURES.get(key)
    if params is None:
        return
    varargs = any(p.startswith('*') for p in params)          # ndarray.reshape(*shape, ...)
    unknown = [k for k in kwargs if k not in params and '*' + k not in params]
    if unknown:
        raise TypeError('%s() got an unexpected keyword argument %r (cupy 14 takes %s)'
                        % (key, unknown[0], ', '.join(params)))
    if not varargs and len(args) > len(params):
        raise TypeError('%s() takes at most %d positional arguments (%s), %d given'
                        % (key, len(params), ', '.join(params), len(args)))


DEVICE_COUNT = 2          # enough to catch arrays of gpu(0) and gpu(1) mixed in one call


class TransferError(TypeError):
    """A device array was turned into host data implicitly (cupy refuses or syncs here)."""


class _Transfers:
    """Counts of explicit copies between host and device, and the no-transfer windows."""

    def __init__(self):
        self.d2h = 0                  # device to host: .get(), asnumpy
        self.h2d = 0                  # host to device: asarray(numpy), numpy index arrays
        self._forbidden = threading.local()

    def reset(self):
        self.d2h = self.h2d = 0

    def record(self, direction, what):
        if getattr(self._forbidden, 'depth', 0):
            raise TransferError('%s copy (%s) inside a block that must not move data between '
                                'host and device' % (direction, what))
        setattr(self, direction, getattr(self, direction) + 1)

    @contextlib.contextmanager
    def forbidden(self):
        """A block (an operator's forward, a training step) where any transfer raises."""
        local = self._forbidden
        local.depth = getattr(local, 'depth', 0) + 1
        try:
            yield self
        finally:
            local.depth -= 1


TRANSFERS = _Transfers()

# ---------------------------------------------------------------- devices
_current = threading.local()


def _current_device():
    return getattr(_current, 'id', 0)


class Device:
    """``with cupy.cuda.Device(i):`` makes device ``i`` current (arrays are made there)."""

    def __init__(self, device=None):
        self.id = _current_device() if device is None else int(device)
        if not 0 <= self.id < DEVICE_COUNT:
            raise RuntimeError('cudaErrorInvalidDevice: invalid device ordinal %d' % self.id)

    def __enter__(self):
        self._previous = _current_device()
        _current.id = self.id
        return self

    def __exit__(self, *exc):
        _current.id = self._previous

    def use(self):
        _current.id = self.id

    def synchronize(self):
        pass

    def __repr__(self):
        return '<CUDA Device %d>' % self.id

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)


# ---------------------------------------------------------------- the array
_NDARRAY_NAMES = NAMES['cupy.ndarray']
_IMPLICIT = ('__array__', '__float__', '__int__', '__index__', '__complex__', '__bool__',
             'item', 'tolist', '__iter__', 'tobytes')


def _implicit(name):
    def refuse(self, *args, **kwargs):
        raise TransferError('cupy array: %s would copy device data to the host implicitly; '
                            'use .get() / cupy.asnumpy() where a host value is really needed'
                            % name)
    refuse.__name__ = name
    return refuse


class _Pointer:
    __slots__ = ('ptr', 'device_id')

    def __init__(self, ptr, device_id):
        self.ptr, self.device_id = ptr, device_id


class ndarray:
    """cupy.ndarray's stand-in: numbers held in a numpy array, a device id beside them."""
    __slots__ = ('_host', '_device')
    __array_priority__ = 100
    __hash__ = None

    def __init__(self, shape, dtype=float, *args, **kwargs):
        self._host = np.empty(shape, dtype)
        self._device = _current_device()

    @classmethod
    def _wrap(cls, host, device=None):
        a = cls.__new__(cls)
        a._host = host
        a._device = _current_device() if device is None else device
        return a

    # ---- the properties that never leave the device
    shape = property(lambda self: self._host.shape)
    dtype = property(lambda self: self._host.dtype)
    ndim = property(lambda self: self._host.ndim)
    size = property(lambda self: self._host.size)
    itemsize = property(lambda self: self._host.itemsize)
    nbytes = property(lambda self: self._host.nbytes)
    strides = property(lambda self: self._host.strides)
    flags = property(lambda self: self._host.flags)
    device = property(lambda self: Device(self._device))
    data = property(lambda self: _Pointer(self._host.__array_interface__['data'][0], self._device))

    @property
    def base(self):
        base = self._host.base
        return None if base is None else ndarray._wrap(base, self._device)

    @shape.setter
    def shape(self, value):
        self._host.shape = value

    T = property(lambda self: ndarray._wrap(self._host.T, self._device))
    real = property(lambda self: ndarray._wrap(self._host.real, self._device))
    imag = property(lambda self: ndarray._wrap(self._host.imag, self._device))

    def __len__(self):
        return len(self._host)

    def __repr__(self):            # printing syncs in cupy too; it is a debugging aid, not counted
        return 'strict_cupy.' + repr(self._host).replace('\n', '\n' + ' ' * 12)

    __str__ = __repr__

    # ---- explicit transfers
    def get(self, stream=None, order='C', out=None, blocking=True):
        TRANSFERS.record('d2h', 'ndarray.get')
        host = np.array(self._host, order=order, copy=True)
        if out is not None:
            # cupy writes straight into ``out``, so it must match exactly
            if not isinstance(out, np.ndarray) or out.dtype != self.dtype or out.shape != self.shape:
                raise TypeError('ndarray.get(out=): out must be a numpy array of shape %s and dtype %s'
                                % (self.shape, self.dtype))
            if not out.flags.c_contiguous:
                raise RuntimeError('ndarray.get(out=): out must be C-contiguous')
            out[...] = host
            return out
        return host

    def set(self, arr, stream=None):
        if not isinstance(arr, np.ndarray):
            raise TypeError('Only numpy.ndarray can be set to cupy.ndarray')
        if arr.shape != self.shape:
            raise ValueError('ndarray.set: shape mismatch %s vs %s' % (arr.shape, self.shape))
        if arr.dtype != self.dtype:
            raise TypeError('ndarray.set: dtype mismatch %s vs %s' % (arr.dtype, self.dtype))
        if not self._host.flags.c_contiguous:
            raise RuntimeError('Cannot set to non-contiguous array')
        TRANSFERS.record('h2d', 'ndarray.set')
        self._host[...] = arr

    # ---- numpy's protocols: where cupy sends numpy's functions
    def __array_function__(self, func, types_, args, kwargs):
        module = _module_for(func.__module__)
        target = getattr(module, func.__name__, None) if module is not None else None
        if target is None:
            return NotImplemented            # numpy then raises TypeError, as with cupy
        return target(*args, **kwargs)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        target = getattr(_cupy, ufunc.__name__, None)
        if not isinstance(target, _Ufunc):
            return NotImplemented
        # ``np.float32(2) > x`` reaches here with the scalar made a 0-d numpy array by numpy;
        # cupy takes it as the scalar it was
        inputs = tuple(i[()] if isinstance(i, np.ndarray) and i.ndim == 0 else i for i in inputs)
        if method == '__call__':
            return target(*inputs, **kwargs)
        bound = getattr(target, method, None)
        if bound is None:
            return NotImplemented
        return bound(*inputs, **kwargs)

    # ---- indexing
    def __getitem__(self, key):
        return _wrap_result(self._host[_device_index(key, self._device)], self._device)

    def __setitem__(self, key, value):
        self._host[_device_index(key, self._device)] = _operand(value, self._device, '__setitem__',
                                                               host_ok=True)


for _name in _IMPLICIT:
    setattr(ndarray, _name, _implicit(_name))


_ARITHMETIC = {'add': operator.add, 'sub': operator.sub, 'mul': operator.mul,
               'truediv': operator.truediv, 'floordiv': operator.floordiv, 'mod': operator.mod,
               'pow': operator.pow, 'matmul': operator.matmul, 'and': operator.and_,
               'or': operator.or_, 'xor': operator.xor, 'lshift': operator.lshift,
               'rshift': operator.rshift}
_COMPARISONS = ('lt', 'le', 'eq', 'ne', 'gt', 'ge')


def _binary_operand(self, other, name):
    """The numpy operand for ``self <op> other``, as cupy's kernels accept them."""
    if isinstance(other, ndarray):
        _check_device(other, self._device, name)
        return other._host
    if isinstance(other, (np.ndarray, list, tuple)):
        raise TypeError('Unsupported type %s (cupy.ndarray.%s): move host data to the device '
                        'first' % (type(other), name))
    if isinstance(other, (int, float, complex, bool, np.generic)):
        return other
    return NotImplemented


def _make_binary(func, name, reflected=False, inplace=False):
    def method(self, other):
        host = _binary_operand(self, other, name)
        if host is NotImplemented:
            return NotImplemented
        with _quiet():
            if inplace:
                func(self._host, host)         # operator.iadd & co. write into the numpy array
                return self
            result = func(host, self._host) if reflected else func(self._host, host)
        return _wrap_result(result, self._device)
    method.__name__ = name
    return method


for _op, _func in _ARITHMETIC.items():
    setattr(ndarray, '__%s__' % _op, _make_binary(_func, '__%s__' % _op))
    setattr(ndarray, '__r%s__' % _op, _make_binary(_func, '__r%s__' % _op, reflected=True))
    _ifunc = getattr(operator, 'i' + _op.rstrip('_'))
    setattr(ndarray, '__i%s__' % _op, _make_binary(_ifunc, '__i%s__' % _op, inplace=True))
for _op in _COMPARISONS:
    setattr(ndarray, '__%s__' % _op, _make_binary(getattr(operator, _op), '__%s__' % _op))


def _make_unary(func):
    return lambda self: _wrap_result(func(self._host), self._device)


for _op in ('neg', 'pos', 'abs', 'invert'):
    setattr(ndarray, '__%s__' % _op, _make_unary(getattr(operator, _op)))


def _method(name):
    def method(self, *args, **kwargs):
        _check_call('ndarray.' + name, args, kwargs)
        args, kwargs = _unwrap_all(args, kwargs, self._device, 'ndarray.' + name)
        with _quiet():
            return _wrap_result(getattr(self._host, name)(*args, **kwargs), self._device)
    method.__name__ = name
    return method


_OWN = set(vars(ndarray)) | {'__class__', '__init_subclass__', '__subclasshook__', '__doc__',
                             '__module__', '__slots__', '__dict__', '__weakref__'}
for _name in sorted(_NDARRAY_NAMES):
    if _name in _OWN or not hasattr(np.ndarray, _name):
        continue
    if callable(getattr(np.ndarray, _name)) and not _name.startswith('__'):
        setattr(ndarray, _name, _method(_name))


# ---------------------------------------------------------------- moving arguments
def _check_device(a, device, where):
    if a._device != device:
        raise ValueError('%s: array on device %d used on device %d (cupy: "The device where the '
                         'array resides (%d) is different from the current device (%d)")'
                         % (where, a._device, device, a._device, device))


def _operand(value, device, where, host_ok=False):
    """A host-side operand for numpy, from a device array or a scalar."""
    if isinstance(value, ndarray):
        _check_device(value, device, where)
        return value._host
    if isinstance(value, np.ndarray):
        if not host_ok:
            raise TypeError('%s: Unsupported type %s (a numpy array given to cupy; move it with '
                            'cupy.asarray first)' % (where, type(value)))
        TRANSFERS.record('h2d', where)
        return value
    if isinstance(value, (list, tuple)) and host_ok:
        if any(isinstance(v, ndarray) for v in value):
            return type(value)(_operand(v, device, where, host_ok) for v in value)
        TRANSFERS.record('h2d', where)
    return value


def _device_index(key, device):
    """An index into a device array: device arrays stay, host arrays/lists are copied over."""
    if isinstance(key, tuple):
        return tuple(_device_index(k, device) for k in key)
    if isinstance(key, ndarray):
        _check_device(key, device, 'indexing')
        return key._host
    if isinstance(key, (np.ndarray, list)):
        TRANSFERS.record('h2d', 'index array')
        return np.asarray(key)
    return key


def _unwrap(value, device, where):
    if isinstance(value, ndarray):
        _check_device(value, device, where)
        return value._host
    if isinstance(value, np.ndarray):
        raise TypeError('%s: Unsupported type %s (a numpy array given to cupy; move it with '
                        'cupy.asarray first)' % (where, type(value)))
    if isinstance(value, (list, tuple)):
        items = [_unwrap(v, device, where) for v in value]
        return items if isinstance(value, list) else tuple(items)
    return value


def _unwrap_all(args, kwargs, device, where):
    return ([_unwrap(a, device, where) for a in args],
            {k: _unwrap(v, device, where) for k, v in kwargs.items()})


def _wrap_result(value, device):
    if isinstance(value, np.ndarray):
        return ndarray._wrap(value, device)
    if isinstance(value, np.generic):                # cupy never returns numpy scalars
        return ndarray._wrap(np.asarray(value), device)
    if isinstance(value, tuple):
        return tuple(_wrap_result(v, device) for v in value)
    if isinstance(value, list):
        return [_wrap_result(v, device) for v in value]
    return value


def _has_device_array(value):
    if isinstance(value, ndarray):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_device_array(v) for v in value)
    return False


# ---------------------------------------------------------------- functions and ufuncs
# the functions that take host data and copy it to the device
_FROM_HOST = {'array', 'asarray', 'asanyarray', 'ascontiguousarray', 'asfortranarray'}


def _function(name, numpy_func, module_name):
    qualified = '%s.%s' % (module_name, name)

    def call(*args, **kwargs):
        _check_call(qualified, args, kwargs)
        device = _current_device()
        if name in _FROM_HOST:
            return _from_host(numpy_func, qualified, device, *args, **kwargs)
        args, kwargs = _unwrap_all(args, kwargs, device, qualified)
        with _quiet():
            return _wrap_result(numpy_func(*args, **kwargs), device)
    call.__name__ = name
    call.__qualname__ = qualified
    return call


def _from_host(numpy_func, qualified, device, obj, *args, **kwargs):
    if isinstance(obj, ndarray):                      # device to device (another device: a copy)
        host = obj._host
        copy = obj._device != device or numpy_func is np.array
    elif _has_device_array(obj):
        host = _unwrap(obj, obj[0]._device if isinstance(obj[0], ndarray) else device, qualified)
        copy = True
    else:
        if isinstance(obj, np.ndarray) or (isinstance(obj, (list, tuple)) and obj):
            TRANSFERS.record('h2d', qualified)
        host, copy = obj, True
    kwargs.pop('blocking', None)
    result = numpy_func(host, *args, **kwargs)
    if copy and isinstance(host, np.ndarray) and np.shares_memory(result, host):
        result = result.copy()
    if isinstance(result, np.ndarray) and not isinstance(obj, ndarray) and result is host:
        result = result.copy()                        # a host array never becomes device memory
    return ndarray._wrap(np.asarray(result), device)


class _Ufunc:
    """cupy.ufunc: call, plus the methods cupy 14 gives every ufunc (reduce etc. for a few)."""
    _REDUCING = {'add', 'multiply', 'maximum', 'minimum', 'logical_and', 'logical_or'}

    def __init__(self, numpy_ufunc):
        self._ufunc = numpy_ufunc
        self.__name__ = numpy_ufunc.__name__
        self.nin, self.nout, self.nargs = numpy_ufunc.nin, numpy_ufunc.nout, numpy_ufunc.nargs

    def __repr__(self):
        return '<strict ufunc %r>' % self.__name__

    def _run(self, method, args, kwargs):
        device = _current_device()
        where = 'cupy.%s.%s' % (self.__name__, method)
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, ndarray):
                device = a._device
                break
        args, kwargs = _unwrap_all(args, kwargs, device, where)
        out = kwargs.get('out')
        if isinstance(out, tuple) and len(out) == 1:
            kwargs['out'] = out[0]
        func = self._ufunc if method == '__call__' else getattr(self._ufunc, method)
        with _quiet():
            return _wrap_result(func(*args, **kwargs), device)

    def __call__(self, *args, **kwargs):
        result = self._run('__call__', args, kwargs)
        out = kwargs.get('out')
        if out is not None and not isinstance(out, tuple):
            return out                                 # the very array given, as cupy returns
        return result

    def outer(self, a, b, **kwargs):
        return self._run('outer', (a, b), kwargs)

    def __getattr__(self, name):
        if name in ('reduce', 'accumulate') and self.__name__ in self._REDUCING:
            return lambda *args, **kwargs: self._run(name, args, kwargs)
        if name == 'at' and self.__name__ in ('add', 'subtract', 'maximum', 'minimum'):
            def at(a, indices, b=None):
                if not isinstance(a, ndarray):
                    raise TypeError('cupy.%s.at: the target must be a cupy array' % self.__name__)
                self._run('at', (a, indices) + (() if b is None else (b,)), {})
            return at
        raise AttributeError('cupy.ufunc %r has no method %r in the strict stand-in (as cupy 14: '
                             'reduce/accumulate for a few, at for add/subtract/maximum/minimum)'
                             % (self.__name__, name))


# ---------------------------------------------------------------- the modules
class _StrictModule(types.ModuleType):
    """A module with exactly cupy's names: a name cupy lacks is an AttributeError."""

    def __init__(self, name, allowed, numpy_source, extra=None):
        super().__init__(name)
        self._allowed = allowed
        self._numpy_source = numpy_source
        for key, value in (extra or {}).items():
            setattr(self, key, value)

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        if name not in self._allowed:
            raise AttributeError("module '%s' has no attribute '%s' (real cupy has none either)"
                                 % (self.__name__, name))
        source = getattr(self._numpy_source, name, None)
        if source is None:
            raise AttributeError("module '%s': the strict stand-in does not emulate '%s'"
                                 % (self.__name__, name))
        if isinstance(source, np.ufunc):
            value = _Ufunc(source)
        elif isinstance(source, type) or isinstance(source, (int, float, str)) or source is None:
            value = source                    # numpy's scalar types, dtype, finfo, constants
        elif callable(source):
            value = _function(name, source, self.__name__)
        else:
            value = source
        setattr(self, name, value)
        return value


def _module_for(numpy_module_name):
    """The stand-in module that plays numpy's module of this name (numpy.linalg -> cupy.linalg)."""
    parts = (numpy_module_name or '').split('.')
    if not parts or parts[0] != 'numpy':
        return None
    if len(parts) == 1 or parts[1] in ('core', '_core', 'lib', 'matrixlib') and len(parts) <= 3:
        return _cupy
    return {'linalg': _linalg, 'fft': _fft, 'random': _random}.get(parts[1], _cupy)


# ---- random: cupy's Generator has fewer methods than numpy's (no normal, no choice)
class XORWOW:
    """A bit generator (seeded from an int); the numbers are numpy's PCG64, not cuRAND's."""

    def __init__(self, seed=None, *args, **kwargs):
        self._seed = None if seed is None else int(np.asarray(seed).ravel()[0]) if isinstance(
            seed, np.ndarray) else seed


Philox4x3210 = MRG32k3a = XORWOW


class Generator:
    """cupy.random.Generator: numpy's Generator behind cupy's list of methods."""

    def __init__(self, bit_generator):
        self._rng = np.random.default_rng(bit_generator._seed)

    def __getattr__(self, name):
        if name.startswith('_') or name not in NAMES['cupy.random.Generator']:
            raise AttributeError("'cupy.random.Generator' has no attribute '%s' (cupy 14's has %s)"
                                 % (name, ', '.join(sorted(NAMES['cupy.random.Generator']))))
        method = getattr(self._rng, name)

        def draw(*args, **kwargs):
            _check_call('Generator.' + name, args, kwargs)
            device = _current_device()
            args, kwargs = _unwrap_all(args, kwargs, device, 'Generator.' + name)
            if name in ('random', 'standard_normal', 'standard_exponential') and 'out' in kwargs:
                out = kwargs['out']
                out[...] = method(*args, size=out.shape, dtype=out.dtype,
                                  **{k: v for k, v in kwargs.items() if k != 'out'})
                return ndarray._wrap(out, device)
            return _wrap_result(np.asarray(method(*args, **kwargs)), device)
        return draw


def default_rng(seed=None):
    return Generator(XORWOW(seed))


class RandomState:
    """cupy.random.RandomState: numpy's legacy RandomState behind cupy's list of methods."""

    def __init__(self, seed=None, method=None):
        self._rs = np.random.RandomState(seed)

    def __getattr__(self, name):
        if name.startswith('_') or name not in NAMES['cupy.random.RandomState']:
            raise AttributeError("'cupy.random.RandomState' has no attribute '%s'" % name)
        method = getattr(self._rs, name)

        def draw(*args, **kwargs):
            device = _current_device()
            args, kwargs = _unwrap_all(args, kwargs, device, 'RandomState.' + name)
            return _wrap_result(np.asarray(method(*args, **kwargs)), device)
        return draw


class _MemoryPool:
    def free_all_blocks(self, stream=None):
        pass

    def used_bytes(self):
        return 0

    def total_bytes(self):
        return 0

    def set_limit(self, size=None, fraction=None):
        pass


_POOL = _MemoryPool()


def _asnumpy(a, stream=None, order='C', out=None, blocking=True):
    if isinstance(a, ndarray):
        return a.get(order=order, out=out)
    return np.asarray(a, order=order)


def _get_array_module(*args):
    return _cupy if any(_has_device_array(a) for a in args) else np


def _scatter(numpy_ufunc):
    def scatter(a, slices, value):
        if not isinstance(a, ndarray):
            raise TypeError('cupyx.scatter_*: the target must be a cupy array')
        numpy_ufunc.at(a._host, _device_index(slices, a._device), _operand(value, a._device,
                                                                          'cupyx.scatter'))
    return scatter


def _runtime():
    runtime = types.SimpleNamespace(getDeviceCount=lambda: DEVICE_COUNT,
                                    getDevice=_current_device,
                                    deviceSynchronize=lambda: None)
    runtime.getDeviceProperties = lambda i: {'name': b'strict cupy stand-in', 'totalGlobalMem': 0}
    return runtime


_cuda = types.SimpleNamespace(Device=Device, runtime=_runtime(), is_available=lambda: True,
                              get_device_id=_current_device)


def _scipy_special():
    try:
        import scipy.special as source
    except ImportError:                                  # scipy is optional in reflib
        source = types.SimpleNamespace()
    return _StrictModule('cupyx.scipy.special', NAMES['cupyx.scipy.special'], source)


# ---- linalg: cupy reports a failed factorisation only under cupyx.errstate(linalg='raise'),
# and then reads the solver's status word back from the device: a synchronisation
_LINALG_MODE = threading.local()


@contextlib.contextmanager
def _errstate(linalg=None):
    before = getattr(_LINALG_MODE, 'mode', 'ignore')
    if linalg is not None:
        _LINALG_MODE.mode = linalg
    try:
        yield
    finally:
        _LINALG_MODE.mode = before


def _cholesky(a):
    factor = _function('cholesky', np.linalg.cholesky, 'cupy.linalg')
    raising = getattr(_LINALG_MODE, 'mode', 'ignore') == 'raise'
    if raising:
        TRANSFERS.record('d2h', 'the solver status of cholesky')
    try:
        return factor(a)
    except np.linalg.LinAlgError:
        if raising:
            raise
        return _cupy.full(a.shape, np.nan, dtype=a.dtype)   # cupy: a meaningless result


_linalg = _StrictModule('cupy.linalg', NAMES['cupy.linalg'], np.linalg, extra={'cholesky': _cholesky})
_fft = _StrictModule('cupy.fft', NAMES['cupy.fft'], np.fft)
_random = _StrictModule('cupy.random', NAMES['cupy.random'], np.random, extra={
    'Generator': Generator, 'XORWOW': XORWOW, 'Philox4x3210': Philox4x3210, 'MRG32k3a': MRG32k3a,
    'default_rng': default_rng, 'RandomState': RandomState})
_stride_tricks = _StrictModule('cupy.lib.stride_tricks', NAMES['cupy.lib.stride_tricks'],
                               np.lib.stride_tricks)
_cupy = _StrictModule('cupy', NAMES['cupy'] | {'ndarray'}, np, extra={
    '__version__': NAMES['cupy_version'] + '+strict', 'ndarray': ndarray, 'ufunc': _Ufunc,
    'linalg': _linalg, 'fft': _fft, 'random': _random, 'cuda': _cuda,
    'lib': types.SimpleNamespace(stride_tricks=_stride_tricks),
    'asnumpy': _asnumpy, 'get_array_module': _get_array_module,
    'get_default_memory_pool': lambda: _POOL, 'get_default_pinned_memory_pool': lambda: _POOL,
    'TRANSFERS': TRANSFERS, 'TransferError': TransferError})
_special = _scipy_special()
_cupyx_scipy = types.ModuleType('cupyx.scipy')
_cupyx_scipy.special = _special
_cupyx = _StrictModule('cupyx', NAMES['cupyx'], types.SimpleNamespace(), extra={
    'scatter_add': _scatter(np.add), 'scatter_max': _scatter(np.maximum),
    'scatter_min': _scatter(np.minimum), 'scipy': _cupyx_scipy, 'errstate': _errstate})
# cupy.ndarray methods that do not exist on cupy's arrays must not exist here either
for _name in [n for n in vars(ndarray) if not n.startswith('_') and n not in _NDARRAY_NAMES]:
    if _name not in ('get', 'set', 'device', 'data'):
        delattr(ndarray, _name)


def install():
    """Make ``import cupy`` (and cupyx, cupyx.scipy.special) find the stand-in."""
    sys.modules.update({'cupy': _cupy, 'cupyx': _cupyx, 'cupyx.scipy': _cupyx_scipy,
                        'cupyx.scipy.special': _special})
    return _cupy


cupy = _cupy
cupyx = _cupyx
