"""The updater a KVStore or Module applies per weight, and the ``.states`` files it saves.

``Updater`` creates each weight's state the first time it sees the weight's index and
hands weights to the optimizer (in groups of ``aggregate_num`` for the optimizers that
update several at once).  ``dumps_states``/``loads_states`` write and read the pickled
``{index: state}`` (optionally with the optimizer) byte for byte as MXNet 1.9.1 does, so
each side resumes from the other's checkpoints.
"""

import io
import pickle
import pickletools
import sys
import types
import warnings

import numpy as np

from .. import lr_scheduler
from ..context import Context, cpu
from ..lr_scheduler import LRScheduler
from ..ndarray import NDArray
from ..ndarray.serialize import _Reader, _read_record, _record
from .optimizer import Optimizer, OptimizerError


# ---------------------------------------------------------------- the updater
class Updater:
    """``updater(index, grad, weight)``: the callable a KVStore or Module applies per weight.

    It creates each weight's optimizer state the first time it sees the index,
    and accepts lists of indices/gradients/weights (as Module passes them).
    Gradients go to the optimizer as they come, row_sparse ones included (the optimizer
    decides how to apply them, as in MXNet); states are created from the weights.
    ``get_states``/``set_states`` save and restore the states (and optionally
    the optimizer) as pickle bytes, the ``.states`` checkpoint files.
    """

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        if isinstance(index, (list, tuple)):
            indices, grads, weights = list(index), list(grad), list(weight)
        else:
            indices, grads, weights = [index], [grad], [weight]
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        for i, idx in enumerate(indices):
            if isinstance(idx, bytes):
                idx = indices[i] = idx.decode('utf-8')
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(idx, weights[i])
                self.states_synced[idx] = True
            elif not self.states_synced[idx]:
                self._check_loaded_state(idx, weights[i])
                self.states[idx] = self.sync_state_context(self.states[idx], weights[i].context)
                self.states_synced[idx] = True
        if not self.aggregate_updates:
            for idx, g, w in zip(indices, grads, weights):
                self.optimizer.update_multi_precision(idx, w, g, self.states[idx])
            return
        # group by dtype, then hand over up to aggregate_num weights per call
        by_dtype = {}
        for idx, g, w in zip(indices, grads, weights):
            by_dtype.setdefault(np.dtype(w.dtype), []).append((idx, g, w))
        size = self.optimizer.aggregate_num
        for group in by_dtype.values():
            for start in range(0, len(group), size):
                chunk = group[start:start + size]
                self.optimizer.update_multi_precision(
                    [c[0] for c in chunk], [c[2] for c in chunk], [c[1] for c in chunk],
                    [self.states[c[0]] for c in chunk])

    def _check_loaded_state(self, idx, weight):
        """A loaded state must have the layout this optimizer creates for this weight."""
        want = _layout(self.optimizer.create_state_multi_precision(idx, weight))
        got = _layout(self.states[idx])
        if want != got:
            name = self.optimizer.idx2name.get(idx, idx)
            raise OptimizerError('the optimizer state loaded for weight %r (index %r) does not fit %s on a '
                                 'weight of shape %s: it is %s, %s expects %s. Were the states saved with '
                                 'another optimizer or another network?'
                                 % (name, idx, type(self.optimizer).__name__, weight.shape, _describe(got),
                                    type(self.optimizer).__name__, _describe(want)))

    def sync_state_context(self, state, context):
        """``state`` (an NDArray, or nested tuples/lists of them) moved to ``context``."""
        return map_state(lambda a: a.as_in_context(context) if isinstance(a, NDArray) else a, state)

    def get_states(self, dump_optimizer=False):
        """Pickle bytes of ``{index: state}``; with ``dump_optimizer``, of ``(states, optimizer)``.

        The bytes are those MXNet 1.9.1 writes for the same states (see ``dumps_states``):
        MXNet loads reflib's ``.states`` files and reflib loads MXNet's.
        """
        return dumps_states(self.states, self.optimizer if dump_optimizer else None)

    def set_states(self, states):
        """Restore what ``get_states`` returned (reflib's, or MXNet 1.9.1's ``.states`` bytes).

        The arrays land on cpu(0) and move to each weight's context at its next update,
        where each is also checked against the state the optimizer would create for that
        weight: Adam's states given to SGD, or states of other shapes, are refused there,
        naming the weight, rather than failing inside the update.
        """
        try:
            loaded, optimizer = loads_states(states)
        except OptimizerError as err:
            raise OptimizerError('set_states: %s' % err) from None
        if optimizer is not None:
            self.optimizer = optimizer
            # an optimizer pickled by an MXNet older than 1.6 (or a damaged file) has no
            # aggregate_num: it then updates one weight at a time
            self.aggregate_updates = getattr(optimizer, 'aggregate_num', 0) > 0
        self.states = {k: _state_from_numpy(v) for k, v in loaded.items()}
        self.states_synced = dict.fromkeys(self.states, False)


def get_updater(optimizer):
    """The Updater (a callable ``updater(index, grad, weight)``) that applies ``optimizer``."""
    return Updater(optimizer)


def map_state(fn, state):
    """``fn`` applied to every leaf of an optimizer state: an array, or nested tuples/lists of them.

    A state is whatever ``create_state`` returned (None, one array, a tuple such as Adam's
    (mean, var), a float16 weight's (master copy, inner state)); the nesting is kept.
    """
    if isinstance(state, (tuple, list)):
        mapped = [map_state(fn, s) for s in state]
        return tuple(mapped) if isinstance(state, tuple) else mapped
    return fn(state)


def _state_to_numpy(state):
    """Every array of ``state`` as a numpy array (reflib's NDArrays and MXNet's pickled ones)."""
    def leaf(a):
        if isinstance(a, NDArray):
            return a.asnumpy()
        return a.values.asnumpy() if isinstance(a, _MXNetPickledNDArray) else a
    return map_state(leaf, state)


def _state_from_numpy(state):
    def leaf(a):
        if isinstance(a, np.ndarray):
            return NDArray(a.copy(), cpu(0))
        return a.to_ndarray() if isinstance(a, _MXNetPickledNDArray) else a
    return map_state(leaf, state)


class _MXNetNDArrayClass:
    """Stands for the class ``mxnet.ndarray.ndarray.NDArray`` in a pickle that reflib writes."""


class _AsMXNetNDArray:
    """One array, pickled exactly as MXNet pickles its NDArray: ``NDArray(None)``, then the state
    ``{'handle': bytearray(<one array record of the .params format>)}``."""
    __slots__ = ('record',)

    def __init__(self, array):
        host = NDArray(np.ascontiguousarray(array), cpu(0)) if isinstance(array, np.ndarray) else array
        if host.context.device_type == 'gpu':          # a file is read on machines without one
            host = host.as_in_context(cpu(0))
        self.record = b''.join(_record(host, 'an optimizer state', host.ndim == 0))

    def __reduce__(self):
        return _MXNetNDArrayClass, (None,), {'handle': bytearray(self.record)}


class _MXNetStatesPickler(pickle._Pickler):   # the Python pickler: its save_global can be overridden
    """Writes ``.states`` bytes that MXNet 1.9.1 unpickles into its own NDArrays (and reflib too,
    see _StatesUnpickler), whatever numpy reflib runs on: no numpy object is pickled."""

    def save_global(self, obj, name=None):
        if obj is _MXNetNDArrayClass:
            self.save('mxnet.ndarray.ndarray')
            self.save('NDArray')
            self.write(pickle.STACK_GLOBAL)
            self.memoize(obj)
            return
        super().save_global(obj, name)


def dumps_states(states, optimizer=None):
    """The ``.states`` bytes of ``{index: state}`` (and, given, the optimizer), as MXNet writes
    them: protocol 4, each array an MXNet NDArray.  MXNet reads the states alone; a pickled
    optimizer is reflib's class, which only reflib reads."""
    def leaf(a):
        if isinstance(a, (NDArray, np.ndarray)):
            return _AsMXNetNDArray(a)
        return _AsMXNetNDArray(a.to_ndarray()) if isinstance(a, _MXNetPickledNDArray) else a
    payload = {k: map_state(leaf, v) for k, v in states.items()}
    stream = io.BytesIO()
    _MXNetStatesPickler(stream, protocol=4).dump((payload, optimizer) if optimizer is not None else payload)
    return stream.getvalue()


def loads_states(data):
    """``{index: state}`` and the optimizer or None, from ``.states`` bytes written by reflib or
    by MXNet (arrays as pickled; ``_state_to_numpy`` or ``_state_from_numpy`` convert them);
    anything else is an OptimizerError."""
    try:
        _refuse_memo_bombs(data)
        loaded = _StatesUnpickler(data).load()
    except OptimizerError:
        raise
    except Exception as err:  # noqa: BLE001 - any failure to unpickle means: not a states file
        raise OptimizerError('these bytes are not saved optimizer states (%s: %s)'
                             % (type(err).__name__, err)) from None
    optimizer = None
    if isinstance(loaded, tuple) and len(loaded) == 2 and isinstance(loaded[1], Optimizer):
        loaded, optimizer = loaded
    if not isinstance(loaded, dict):
        raise OptimizerError('expected pickled optimizer states (a dict of index -> state), got %s'
                             % type(loaded).__name__)
    for index, state in loaded.items():
        try:
            _check_state_leaves(index, state)
        except RecursionError:
            raise OptimizerError('the state saved for index %r is nested too deeply to be one (the file is '
                                 'damaged)' % (index,)) from None
    if optimizer is not None:
        _check_optimizer_attributes(optimizer)
        _check_optimizer_ranges(optimizer)
    return loaded, optimizer


_MEMO_OPCODES = frozenset(['PUT', 'BINPUT', 'LONG_BINPUT', 'GET', 'BINGET', 'LONG_BINGET'])


def _refuse_memo_bombs(data):
    """A damaged file can ask the unpickler to store an object at memo index 10**9, and C's
    unpickler then grows its memo table to that size (tens of seconds, gigabytes).  A file of
    n bytes memoizes fewer than n objects, so a larger index is damage: refused before
    unpickling.  Other damage is left to the unpickler, which stops at it."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        return                              # _StatesUnpickler names the wrong type
    size, ops = len(data), pickletools.genops(bytes(data))
    while True:
        try:
            with warnings.catch_warnings():     # a damaged STRING's bad escapes: not our news
                warnings.simplefilter('ignore', DeprecationWarning)
                opcode, arg, pos = next(ops)
        except Exception:  # noqa: BLE001 - the end, or unreadable from here on: the unpickler stops there too
            return
        if opcode.name in _MEMO_OPCODES and isinstance(arg, int) and not 0 <= arg < size:
            raise pickle.UnpicklingError('memo index %d at byte %d in %d bytes' % (arg, pos, size))


def _check_optimizer_attributes(optimizer):
    """A pickled optimizer must carry every attribute a new one of its class has (a damaged
    file can lose some); only ``aggregate_num``, which MXNet before 1.6 did not have, may be
    missing (the Updater then updates one weight at a time)."""
    try:
        fresh = type(optimizer)()
    except Exception:  # noqa: BLE001 - a class that needs arguments: nothing to compare with
        return
    missing = sorted(set(vars(fresh)) - set(vars(optimizer)) - {'aggregate_num'})
    if missing:
        raise OptimizerError('the saved %s optimizer lacks the attributes %s: the file is damaged '
                             'or from another version' % (type(optimizer).__name__, missing))


_LARGEST_COUNT = 2 ** 53      # update counts beyond this are not counts: a damaged or hostile file


def _check_count(owner, name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or not 0 <= value <= _LARGEST_COUNT:
        raise OptimizerError('the saved %s has %s = %r: not a count in [0, 2**53]; the file is '
                             'damaged' % (owner, name, value))


def _check_number(owner, name, value, optional=False):
    if value is None and optional:
        return
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)) \
            or not np.isfinite(value):
        raise OptimizerError('the saved %s has %s = %r: not a finite number; the file is damaged'
                             % (owner, name, value))


def _check_optimizer_ranges(optimizer):
    """Counts and rates of a loaded optimizer in their ranges: a count of 10**15 would make a
    scheduler loop for ever, a NaN rate train to NaN."""
    owner = type(optimizer).__name__ + ' optimizer'
    for name in ('num_update', 'begin_num_update', 'aggregate_num'):     # (aggregate_num may be missing)
        _check_count(owner, name, getattr(optimizer, name, 0))
    for counts in getattr(optimizer, '_all_index_update_counts', {}).values():
        if not isinstance(counts, dict):
            raise OptimizerError('the saved %s has update counts that are not a dict; the file is damaged'
                                 % owner)
        for index, count in counts.items():
            _check_count(owner, 'the update count of index %r' % (index,), count)
    _check_number(owner, 'lr', getattr(optimizer, 'lr', None), optional=True)    # None: the scheduler's
    for name in ('wd', 'rescale_grad'):
        _check_number(owner, name, getattr(optimizer, name, 0.0))
    _check_number(owner, 'clip_gradient', getattr(optimizer, 'clip_gradient', None), optional=True)
    scheduler = getattr(optimizer, 'lr_scheduler', None)
    if scheduler is not None:
        if not isinstance(scheduler, LRScheduler):
            raise OptimizerError('the saved %s has a %s as its lr_scheduler' % (owner, type(scheduler).__name__))
        what = 'lr_scheduler ' + type(scheduler).__name__
        for name, value in vars(scheduler).items():
            if name in ('step', 'count', 'cur_step_ind', 'max_update', 'warmup_steps', 'max_steps') \
                    and not isinstance(value, (list, tuple)):
                _check_count(owner, '%s.%s' % (what, name), value)
                if name == 'step' and value < 1:
                    raise OptimizerError('the saved %s has %s.step = %r: a step is at least 1'
                                         % (owner, what, value))
            elif isinstance(value, (list, tuple)):
                for item in value:
                    _check_number(owner, '%s.%s' % (what, name), item)
            elif isinstance(value, (int, float, np.number)) and not isinstance(value, (bool, np.bool_)):
                _check_number(owner, '%s.%s' % (what, name), value)


def _check_state_leaves(index, state):
    if isinstance(state, (tuple, list)):
        for part in state:
            _check_state_leaves(index, part)
    elif state is not None and not isinstance(state, (NDArray, np.ndarray, _MXNetPickledNDArray)):
        raise OptimizerError('the state saved for index %r holds a %s, not arrays' % (index, type(state).__name__))


def _describe(layout):
    if layout is None:
        return 'no state'
    if layout and all(isinstance(d, int) for d in layout) or layout == ():
        return 'an array of shape %s' % (layout,)
    return '(%s)' % ', '.join(_describe(part) for part in layout)


def _layout(state):
    """The structure of a state: nested tuples of array shapes (and dtypes) and Nones."""
    if isinstance(state, (tuple, list)):
        return tuple(_layout(part) for part in state)
    if state is None:
        return None
    values = state.values if isinstance(state, _MXNetPickledNDArray) else state
    return tuple(values.shape)


class _MXNetPickledNDArray:
    """Stand-in for ``mxnet.ndarray.NDArray`` while unpickling MXNet's ``.states`` bytes.

    MXNet pickles an NDArray as ``{'handle': <one array record of the .params format>}``.
    """

    def __init__(self, *args):
        self.values = None

    def __setstate__(self, state):
        raw = state.get('handle') if isinstance(state, dict) else None
        if raw is None:
            raise OptimizerError('set_states: an MXNet NDArray in the states has no data')
        self._make, self.dev_type, self.dev_id = _read_record(_Reader(bytes(raw), 'a pickled MXNet NDArray'))
        self.values = self._make(cpu(0))

    def to_ndarray(self):
        """The array on the CPU device it was saved from (cpu, cpu_pinned, cpu_shared), else cpu(0)."""
        cpu_like = Context.devtype2str.get(self.dev_type) in ('cpu', 'cpu_pinned', 'cpu_shared')
        return self._make(Context(self.dev_type, self.dev_id) if cpu_like else cpu(0))


_NUMPY_GLOBALS = {(m, n) for m in ('numpy.core.multiarray', 'numpy._core.multiarray')
                  for n in ('_reconstruct', 'scalar')} | {('numpy', 'ndarray'), ('numpy', 'dtype')}


def _bytearray_of_bytes(data=b''):
    if not isinstance(data, (bytes, bytearray)):
        raise pickle.UnpicklingError('bytearray(%s) in a states file: only bytes are expected'
                                     % type(data).__name__)
    return bytearray(data)


class _StatesUnpickler(pickle.Unpickler):
    """Unpickles reflib's states and MXNet's: ``mxnet.*`` classes map to their reflib twins."""

    def __init__(self, data):
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise OptimizerError('set_states expects the bytes returned by get_states, got %s'
                                 % type(data).__name__)
        super().__init__(io.BytesIO(bytes(data)))

    def find_class(self, module, name):
        # Only what a states file holds: arrays (MXNet's NDArray records, or the numpy arrays
        # of older reflib files), bytearrays, and an optimizer with its lr scheduler.  Any
        # other global is refused: a damaged or hostile file cannot call arbitrary code,
        # nor bytearray(2**40).
        if module.split('.')[0] != 'mxnet':
            if (module, name) == ('builtins', 'bytearray'):
                return _bytearray_of_bytes
            if (module, name) in _NUMPY_GLOBALS:
                return super().find_class(module, name)
            # reflib.optimizer.<family> since the package split; reflib.optimizer before it
            if module == 'reflib.lr_scheduler' or module.split('.')[:2] == ['reflib', 'optimizer']:
                found = super().find_class(module, name)
                if isinstance(found, type) and issubclass(found, (Optimizer, LRScheduler)):
                    return found
            raise pickle.UnpicklingError('a states file holds arrays and an optimizer, not %s.%s'
                                         % (module, name))
        if name == 'NDArray' and module.startswith('mxnet.ndarray'):
            return _MXNetPickledNDArray
        if module in ('mxnet.optimizer.optimizer', 'mxnet.optimizer', 'mxnet.optimizer.contrib'):
            found = Optimizer.opt_registry.get(name.lower())       # every optimizer is registered
            found = found if found is not None and found.__name__ == name else None
        else:
            found = vars(lr_scheduler).get(name) if module == 'mxnet.lr_scheduler' else None
        if isinstance(found, type) and issubclass(found, (Optimizer, LRScheduler)):
            return found
        raise OptimizerError('set_states: the saved states need MXNet\'s %s.%s, which reflib does '
                             'not implement' % (module, name))


# ---------------------------------------------------------------- what a worker sends a server
class _LoadedCodeUnpickler(pickle.Unpickler):
    """Unpickles an optimizer (or updater) a worker sent to a parameter server.

    A pickle names the code that rebuilds it, and a plain unpickler imports and calls
    whatever that is.  This one resolves a name only from the modules the server process
    has already imported (it never imports one), and only to what an optimizer is made of:
    an Optimizer subclass (reflib's, or a user's registered with ``mx.optimizer.register``),
    an LRScheduler subclass, numpy scalars and arrays; with ``functions``, also a plain
    function (an updater for ``_set_updater``), which may only *be* the pickled object: a
    pickle calls what it names (that is how it rebuilds objects), so a function comes back
    wrapped in a reference that cannot be called until the load has finished.  Anything else
    is refused, naming it.
    """

    _BUILTINS = {'complex': complex, 'set': set, 'frozenset': frozenset, 'bytearray': _bytearray_of_bytes}

    def __init__(self, data, what, functions):
        super().__init__(io.BytesIO(bytes(data)))
        self.what, self.functions = what, functions

    def find_class(self, module, name):
        if module == 'builtins' and name in self._BUILTINS:
            return self._BUILTINS[name]
        if (module, name) in _NUMPY_GLOBALS:
            return super().find_class(module, name)
        found = sys.modules.get(module)
        for part in name.split('.'):
            found = getattr(found, part, None) if found is not None and not part.startswith('__') else None
        if isinstance(found, type) and issubclass(found, (Optimizer, LRScheduler)):
            return found
        if self.functions and isinstance(found, types.FunctionType):
            return _FunctionReference(found)
        allowed = 'optimizer and lr-scheduler classes%s' % (' and functions' if self.functions else '')
        raise pickle.UnpicklingError(
            'the %s refers to %s.%s, which a server does not run: it accepts only %s from modules it has '
            'already imported (reflib\'s, or a class registered with mx.optimizer.register)'
            % (self.what, module, name, allowed))


class _FunctionReference:
    """A function named in a pickle, not callable while the pickle loads (see above)."""
    __slots__ = ('function',)

    def __init__(self, function):
        self.function = function

    def __call__(self, *args, **kwargs):
        raise pickle.UnpicklingError('it calls %s.%s while it loads: a pickle for a server may name a '
                                     'function, not run one' % (self.function.__module__,
                                                                self.function.__qualname__))


def loads_sent(data, what, functions=False):
    """An optimizer or updater pickled by a worker (see _LoadedCodeUnpickler); OptimizerError
    names whatever is refused."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise OptimizerError('the %s must arrive as pickle bytes, got %s' % (what, type(data).__name__))
    try:
        _refuse_memo_bombs(data)
        loaded = _LoadedCodeUnpickler(data, what, functions).load()
    except RecursionError:
        raise OptimizerError('the %s is nested too deeply to be one' % what) from None
    except Exception as err:  # noqa: BLE001 - any failure: not an optimizer a server will run
        raise OptimizerError('%s: %s' % (type(err).__name__, err)) from None
    if isinstance(loaded, _FunctionReference):
        return loaded.function
    if not isinstance(loaded, Optimizer):
        raise OptimizerError('the %s unpickled to a %s, not %s' % (what, type(loaded).__name__,
                                                                   'a function or an optimizer' if functions
                                                                   else 'an optimizer'))
    _check_optimizer_attributes(loaded)
    _check_optimizer_ranges(loaded)
    return loaded
