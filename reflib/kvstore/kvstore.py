"""The local and device KVStores: summing gradients across the devices of one process.

With data parallelism every device computes a gradient for the same weight.
The store adds them up (the *merge*) and hands the sum back, or, after
``set_optimizer``, applies the optimizer to its own copy of the weight so that
every device can ``pull`` the updated weight.  One push-and-pull per weight per
batch::

    kv = mx.kv.create('local')
    kv.init('fc1_weight', weight)                  # the store keeps its own copy
    kv.push('fc1_weight', [grad_dev0, grad_dev1])  # summed: grad_dev0 + grad_dev1
    kv.pull('fc1_weight', out=[w_dev0, w_dev1])    # copied into every device's array

What happens on a push of ``key`` with values ``v0, v1, ...`` (one per device),
as MXNet 1.9.1 does it (tests/golden/gen_kvstore.py checks the numbers):

1. **merge**.  The values are summed, in list order.  Where:

   * ``local`` (and ``local_update_cpu``, ``local_allreduce_cpu``): on the
     CPU.  Every value is copied to host memory and MXNet adds them in groups
     of four: ``v0 + (v1 + v2 + v3 + v4) + (v5 + ... + v8) + ...``, each group
     summed left to right.  reflib follows that grouping, so the float32
     rounding is the same bit for bit.
   * ``device`` (and ``local_allreduce_device``): on the device of the first
     value, summed strictly left to right: ``((v0 + v1) + v2) + ...``.  For
     GPUs this avoids the trip through host memory.  (MXNet spreads the keys
     over the devices to balance the load; reflib always uses the first
     value's device.)

   A single value is not copied: it *is* the merged gradient.

2. **store**.  Without an updater the stored value becomes the sum.  With
   one, the store calls ``updater(key, merged, stored)``, which changes
   ``stored`` in place.  The key is passed as MXNet passes it: an int key as
   that int, a str key as its UTF-8 bytes (``b'fc1_weight'``); the optimizer's
   Updater decodes bytes back to str.

The stored copies live in pinned host memory, ``cpu_pinned(0)``, as in MXNet,
whichever store type.  When an updater runs and the merged gradient is on a
GPU, the stored weight moves to that GPU first (and stays there), so that the
update runs where the gradient is; a later push merged on the host moves it back.

Where reflib is stricter than MXNet 1.9.1 (each a silent surprise there):

* ``create`` rejects names it does not know; MXNet makes a local store of any
  name without ``dist``/``nccl`` in it (``create('lcoal')`` works there).
* A push whose value has a different shape from the stored one is an error;
  MXNet, without an updater, silently replaces the stored array with it.
* After a single-value push without an updater MXNet keeps *the pushed array
  itself* as the stored value, so writing into that array later changes what
  the next pull returns.  reflib stores a copy.
* An exception raised by the updater propagates; MXNet prints it and goes on.
* ``_set_updater(None)`` removes the updater (pushes store the sum again);
  in MXNet the next push fails inside the engine and leaves the value as it was.

``priority`` is accepted everywhere and ignored: it orders work in MXNet's
asynchronous engine, and reflib computes eagerly.
"""

from collections import OrderedDict

import numpy as np

from ..base import MXNetError, integer_types, string_types
from .. import optimizer as opt
from ..context import cpu_pinned
from ..ndarray.ndarray import NDArray, move
from ..util import atomic_write_bytes
from .base import KVStoreBase, KVStoreError

__all__ = ['KVStore', 'LOCAL_TYPES']

# store type -> where the merge happens ('cpu': CommCPU, grouped sums on the host;
# 'device': CommDevice, left-to-right sum on the first value's device)
LOCAL_TYPES = OrderedDict([
    ('local', 'cpu'),
    ('local_update_cpu', 'cpu'),
    ('local_allreduce_cpu', 'cpu'),
    ('device', 'device'),
    ('local_allreduce_device', 'device'),
])

# names MXNet knows that need something reflib does not have
_UNAVAILABLE = {
    'nccl': 'it needs NVIDIA NCCL; use the "device" store, which sums on the GPU',
    'horovod': 'it needs Horovod; use a "dist_sync" store instead',
    'byteps': 'it needs BytePS; use a "dist_sync" store instead',
}

# CommCPU adds the values after the first in groups of this many
_CPU_REDUCE_GROUP = 4


class _KVTypeError(KVStoreError, TypeError):
    """A KVStore argument of the wrong Python type."""


class KVStore(KVStoreBase):
    """A key-value store for the devices of one process (``local``, ``device``, ...).

    Make one with ``mx.kv.create(name)``.  Keys are ints or strs (one kind per
    store); values are NDArrays.  See the module documentation for where the
    sum is computed and what the updater receives.

    >>> import reflib as mx
    >>> kv = mx.kv.create('local')
    >>> kv.init(3, mx.nd.ones((2, 3)))
    >>> kv.push(3, [mx.nd.ones((2, 3), ctx=mx.cpu(i)) for i in range(4)])
    >>> out = mx.nd.zeros((2, 3))
    >>> kv.pull(3, out=out)
    >>> out.asnumpy()[0]
    array([4., 4., 4.], dtype=float32)
    """

    def __init__(self, name='local'):
        if name not in LOCAL_TYPES:
            raise KVStoreError('KVStore(%r): not a local store type; use mx.kv.create(name) with one of %s'
                               % (name, list(LOCAL_TYPES)))
        self._setup(name, LOCAL_TYPES[name])

    def _setup(self, name, merge_on):
        self._type = name
        self._merge_on = merge_on
        self._home = cpu_pinned(0)        # where init puts the stored copies
        self._store = {}                  # key -> NDArray (the store's own copy)
        self._str_order = {}              # str key -> its position in init order
        self._key_type = None             # int or str, fixed by the first key seen
        self._updater = None
        self._compression = None          # {'type': '2bit', 'threshold': float} or None
        self._residuals = {}              # (key, value position) -> raw residual (2-bit compression)

    # ------------------------------------------------------------ properties
    @property
    def type(self):
        return self._type

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1

    def is_capable(self, capability):
        if capability == KVStoreBase.OPTIMIZER:
            return True
        raise KVStoreError('is_capable: unknown capability %r; known: %r' % (capability, KVStoreBase.OPTIMIZER))

    def __repr__(self):
        return '<KVStore %s: %d keys%s>' % (self._type, len(self._store),
                                             ', with updater' if self._updater is not None else '')

    # ------------------------------------------------------------ init
    def init(self, key, value):
        """Give each key its first value (a copy is kept; re-initialising a key is an error).

        ``key`` is an int or str with one NDArray, or a list of keys with a list
        of NDArrays (one per key).
        """
        pairs = self._pairs('init', key, value)
        seen = set()
        for k, vals in pairs:
            if len(vals) != 1:
                raise KVStoreError('init: key %r got %d values; init takes exactly one NDArray per key '
                                   '(the store keeps one copy, pull broadcasts it to every device)'
                                   % (k, len(vals)))
            if k in self._store or k in seen:
                raise KVStoreError('init: key %r is already initialised; a key can be initialised only once '
                                   '(push a new value, or use another key)' % (k,))
            seen.add(k)
        for k, vals in pairs:
            self._store[k] = vals[0].copyto(self._home)
            if isinstance(k, str):
                self._str_order[k] = len(self._str_order)

    # ------------------------------------------------------------ push
    def push(self, key, value, priority=0):
        """Sum the values of each key (one per device) and store the sum, or apply the updater to it.

        ``value`` is an NDArray or a list of NDArrays for a single key; for a
        list of keys, a list with one such entry per key.  A key given several
        times in one push gets all its values summed together.
        """
        grouped = OrderedDict()
        for k, vals in self._pairs('push', key, value):
            grouped.setdefault(k, []).extend(vals)
        # check everything before changing anything
        for k, vals in grouped.items():
            stored = self._lookup('push', k)
            for i, v in enumerate(vals):
                if v.shape != stored.shape:
                    raise KVStoreError('push: key %r holds an array of shape %s, but value %d of %d pushed '
                                       'to it has shape %s' % (k, stored.shape, i, len(vals), v.shape))
        # MXNet processes the keys of one push sorted: ints by value, strs by init order
        for k in sorted(grouped, key=self._order):
            if grouped[k]:
                self._push_one(k, grouped[k])

    def _push_one(self, k, vals):
        """Merge one key's values and store the sum, or apply the updater to it."""
        if self._compression is not None:
            vals = [self._compress(k, i, v) for i, v in enumerate(vals)]
        merged = self._merge(k, vals)
        stored = self._store[k]
        if self._updater is None:
            with stored.context.device_scope():
                stored._data[...] = move(merged._data, stored.context)
            return
        # as MXNet: the stored weight follows the gradient between host and GPU (and back,
        # when a later push merges on the host), so the updater sees one kind of device
        if _on_gpu(merged.context) != _on_gpu(stored.context):
            stored = self._store[k] = stored.copyto(merged.context)
        self._updater(_updater_key(k), merged, stored)

    def _merge(self, key, vals):
        """The sum of ``vals`` (see the module documentation for where and in what order)."""
        if len(vals) == 1:
            return vals[0]
        stored = self._store[key]
        dtype = stored.dtype
        if self._merge_on == 'cpu':
            ctx = self._home
            raw = [move(v._data, ctx).astype(dtype, copy=False) for v in vals]
            total = raw[0].copy()
            for start in range(1, len(raw), _CPU_REDUCE_GROUP):
                group = raw[start:start + _CPU_REDUCE_GROUP]
                part = group[0]
                for r in group[1:]:
                    part = part + r
                total = total + part
        else:
            ctx = vals[0].context
            with ctx.device_scope():
                total = move(vals[0]._data, ctx).astype(dtype, copy=True)
                for v in vals[1:]:
                    total = total + move(v._data, ctx).astype(dtype, copy=False)
        return NDArray(total, ctx)

    # ------------------------------------------------------------ pull
    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy each key's stored value into every array of ``out`` (one per device).

        ``out`` has the shape of ``value`` in ``push``.  The arrays are written in
        place (cast to their dtype), so executors that bound them see the new
        weights.  ``ignore_sparse`` is accepted for compatibility: reflib arrays
        are all dense.
        """
        if out is None:
            raise KVStoreError('pull(%r): out is required, the arrays to copy the stored value into' % (key,))
        pairs = self._pairs('pull', key, out)
        for k, outs in pairs:
            stored = self._lookup('pull', k)
            for i, o in enumerate(outs):
                if o.shape != stored.shape:
                    raise KVStoreError('pull: key %r holds an array of shape %s, but output %d of %d has '
                                       'shape %s' % (k, stored.shape, i, len(outs), o.shape))
        self._fetch(list(OrderedDict.fromkeys(k for k, _ in pairs)))
        for k, outs in pairs:
            stored = self._store[k]
            for o in outs:
                with o.context.device_scope():
                    o._data[...] = move(stored._data, o.context)

    def _fetch(self, keys):
        """Bring the stored values of ``keys`` up to date before a pull (here they always are)."""

    def pushpull(self, key, value, out=None, priority=0):
        """``push(key, value)`` then ``pull(key, out)``; without ``out`` the result goes back into ``value``."""
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority=0):
        """``init(key, value)`` then ``pull(key, out)``: one value, copied to every device."""
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        raise KVStoreError('row_sparse_pull(%r): reflib has no row_sparse arrays; use pull' % (key,))

    # ------------------------------------------------------------ optimizer
    def set_optimizer(self, optimizer):
        """Make every push update the stored weight: ``updater = mx.optimizer.get_updater(optimizer)``."""
        if not isinstance(optimizer, opt.Optimizer):
            raise _KVTypeError('set_optimizer expects an Optimizer (e.g. mx.optimizer.create(\'sgd\', '
                               'learning_rate=0.1)), got %s' % type(optimizer).__name__)
        self._set_updater(opt.get_updater(optimizer))

    def _set_updater(self, updater):
        """Use ``updater(key, merged_grad, stored_weight)`` on every push; None removes it."""
        if updater is not None and not callable(updater):
            raise _KVTypeError('_set_updater expects a callable updater(key, grad, weight) or None, got %s'
                               % type(updater).__name__)
        self._updater = updater

    def _require_states(self, what):
        if self._updater is None:
            raise KVStoreError('%s: this %s store has no optimizer; call set_optimizer first'
                               % (what, self._type))
        if not hasattr(self._updater, 'get_states'):
            raise KVStoreError('%s: the updater set with _set_updater (%r) keeps no states to save or load; '
                               'use set_optimizer' % (what, self._updater))

    def _optimizer_states_bytes(self, dump_optimizer=False):
        self._require_states('save_optimizer_states')
        return self._updater.get_states(dump_optimizer)

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the updater's states (and, with ``dump_optimizer``, the optimizer) to ``fname``, atomically."""
        atomic_write_bytes(fname, self._optimizer_states_bytes(dump_optimizer))

    def load_optimizer_states(self, fname):
        """Restore what ``save_optimizer_states`` (reflib's or MXNet's) wrote."""
        self._require_states('load_optimizer_states')
        with open(fname, 'rb') as f:
            data = f.read()
        try:
            self._updater.set_states(data)
        except MXNetError as err:
            raise KVStoreError('load_optimizer_states: %s: %s' % (fname, err)) from None

    # ------------------------------------------------------------ gradient compression
    def set_gradient_compression(self, compression_params):
        """2-bit gradient compression, which MXNet offers for ``device`` stores only.

        ``{'type': '2bit', 'threshold': t}`` (t > 0, default 0.5): before the
        merge each pushed value is added to a residual kept per key and device
        position; every element whose residual reaches ``t`` (or ``-t``) sends
        ``t`` (or ``-t``) and keeps the rest, the others send 0.  Small
        gradients thus accumulate until they matter.
        """
        if not self._compresses():
            raise KVStoreError('set_gradient_compression: the %r store does not support gradient compression; '
                               'MXNet offers it for "device" and distributed stores' % self._type)
        if not isinstance(compression_params, dict):
            raise _KVTypeError('set_gradient_compression expects a dict such as {"type": "2bit", '
                               '"threshold": 0.5}, got %s' % type(compression_params).__name__)
        if 'type' not in compression_params:
            raise KVStoreError('set_gradient_compression: the parameters %r have no "type" (use "2bit")'
                               % (compression_params,))
        kind = compression_params['type']
        if kind != '2bit':
            raise KVStoreError('set_gradient_compression: unknown compression type %r; the only one is "2bit"'
                               % (kind,))
        threshold = float(compression_params.get('threshold', 0.5))
        if not threshold > 0:
            raise KVStoreError('set_gradient_compression: threshold must be greater than 0, got %r' % threshold)
        self._compression = {'type': kind, 'threshold': threshold}
        self._residuals = {}

    def _compresses(self):
        """Whether this store type offers gradient compression (in MXNet: device and dist stores)."""
        return 'device' in self._type

    def _compress(self, key, position, value):
        """``value`` as 2-bit compression transmits it: -t, 0 or +t per element."""
        xp, dtype = value.xp, value._data.dtype
        with value.context.device_scope():
            residual = self._residuals.get((key, position))
            if residual is None or residual.shape != value._data.shape:
                residual = xp.zeros(value._data.shape, dtype=dtype)
            # the same position may push from another device next time: the residual follows
            residual = move(residual, value.context) + value._data
            t = np.array(self._compression['threshold'], dtype=dtype)[()]
            sent = xp.where(residual >= t, t, xp.where(residual <= -t, -t, xp.zeros((), dtype=dtype)))
            sent = sent.astype(dtype, copy=False)
            self._residuals[(key, position)] = residual - sent
        return NDArray(sent, value.context)

    def _barrier(self):
        """Wait for all workers: there is only this one."""

    def barrier(self):
        """Wait until every worker has called barrier (``_barrier``, which a store overrides)."""
        self._barrier()

    # ------------------------------------------------------------ keys
    def _check_key(self, what, key):
        if isinstance(key, bool) or not isinstance(key, integer_types + string_types):
            raise _KVTypeError('%s: a key must be an int or a str, got %s %r' % (what, type(key).__name__, key))
        key = int(key) if isinstance(key, integer_types) else key
        kind = type(key)
        if self._key_type is None:
            self._key_type = kind
        elif kind is not self._key_type:
            raise KVStoreError('%s: key %r is a%s, but this store uses %s keys; one store cannot mix int and '
                               'str keys' % (what, key, 'n int' if kind is int else ' str', self._key_type.__name__))
        return key

    def _pairs(self, what, keys, values):
        """``[(key, [NDArray, ...]), ...]`` from a key and its value(s), or lists of both."""
        noun = 'outputs' if what == 'pull' else 'values'
        if isinstance(keys, (list, tuple)):
            if not isinstance(values, (list, tuple)) or len(values) != len(keys):
                got = ('%d %s' % (len(values), noun) if isinstance(values, (list, tuple))
                       else 'a single %s' % type(values).__name__)
                raise KVStoreError('%s: %d keys %r need a list of %d %s (one entry per key), got %s'
                                   % (what, len(keys), list(keys), len(keys), noun, got))
            pairs = []
            for k, v in zip(keys, values):
                if isinstance(k, (list, tuple)):
                    raise _KVTypeError('%s: keys must be a key or a flat list of keys, got the nested list %r'
                                       % (what, k))
                pairs.extend(self._pairs(what, k, v))
            return pairs
        key = self._check_key(what, keys)
        if isinstance(values, NDArray):
            return [(key, [values])]
        if isinstance(values, (list, tuple)) and all(isinstance(v, NDArray) for v in values):
            return [(key, list(values))]
        raise _KVTypeError('%s: the %s for key %r must be an NDArray or a list of NDArrays (one per device), '
                           'got %s' % (what, noun, key, _describe(values)))

    def _lookup(self, what, key):
        try:
            return self._store[key]
        except KeyError:
            raise KVStoreError('%s: key %r has not been initialised; call init(%r, value) first'
                               % (what, key, key)) from None

    def _order(self, key):
        return self._str_order[key] if isinstance(key, str) else key


def _on_gpu(ctx):
    """MXNet's dev_mask: cpu, cpu_pinned and cpu_shared are one kind, gpu the other."""
    return ctx.device_type == 'gpu'


def _updater_key(key):
    """The key as the updater sees it: ints as they are, strs as UTF-8 bytes (as MXNet passes them)."""
    return key.encode('utf-8') if isinstance(key, str) else key


def _describe(value):
    if isinstance(value, (list, tuple)):
        return 'a %s of %s' % (type(value).__name__, sorted({type(v).__name__ for v in value}) or 'nothing')
    return type(value).__name__
