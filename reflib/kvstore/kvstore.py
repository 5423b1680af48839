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

**row_sparse values** (``RowSparseNDArray``: only some rows stored), as MXNet 1.9.1
handles them (tests/golden/gen_kvstore_sparse.py checks the numbers):

* ``init`` keeps a row_sparse value row_sparse.
* A push merges row_sparse values into a row_sparse sum over the *union* of their
  rows; each row is added up in list order, starting from zero.  A single value is
  the sum itself (a ``local`` store copies it to the host first).  The storage type
  of the *first* value decides: dense values after a row_sparse one count with
  their non-zero rows, row_sparse values after a dense one count as dense.
* Without an updater the sum replaces the stored value, storage type and all: a
  row_sparse push onto a dense key leaves it row_sparse, a dense push onto a
  row_sparse key leaves it dense.  With one, the updater gets the row_sparse sum
  and the stored value as it is.
* ``pull`` writes dense outputs (a row_sparse value is zero outside its rows) and,
  by default (``ignore_sparse=True``), leaves row_sparse outputs untouched, with a
  warning once per key.  With ``ignore_sparse=False`` a row_sparse output receives
  the stored value: a row_sparse one with its rows, a dense one as its non-zero rows.
* ``row_sparse_pull(key, out, row_ids=...)`` is the way to fetch rows: each
  row_sparse output receives the rows ``row_ids`` names, sorted with duplicates
  dropped (float ids are cut to whole numbers), with zeros for rows the value does not
  store.  The stored value must be row_sparse (MXNet: "PullRowSparse expects
  row_sparse src NDArray").  One ``row_ids`` for a list of outputs serves them all.
  If the value stores no row at all, the outputs get no rows either (as MXNet's
  ``sparse_retain``).
* Gradient compression quantises dense values only.

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
* ``row_ids`` outside ``[0, rows)`` are an error; MXNet hands back rows with those
  indices (an invalid array).
* A push of a row_sparse value to a store with gradient compression is an error;
  MXNet quantises the stored rows as if they were the array's first rows.
* A CSR value is an error at ``init``; MXNet accepts it there and fails at the push.
* In ``row_sparse_pull`` every output must be row_sparse; with one ``row_ids`` for a
  list of outputs MXNet checks only the first and copies into the others whatever they are.

``priority`` is accepted everywhere and ignored: it orders work in MXNet's
asynchronous engine, and reflib computes eagerly.
"""

import warnings
from collections import OrderedDict

import numpy as np

from .. import profiler as _profiler
from ..base import MXNetError, integer_types, string_types
from .. import optimizer as opt
from ..context import cpu_pinned
from ..ndarray.ndarray import NDArray, move, to_numpy
from ..ndarray.sparse import INDEX_DTYPE, BaseSparseNDArray, RowSparseNDArray
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
        self._warned_ignored = set()      # keys whose row_sparse pull outputs were skipped (warned once)

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
        with _profiler.api_call('MXKVStoreInit') if _profiler.ACTIVE else _profiler.QUIET:
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
                _check_storage('init', k, 'value 0 of 1', vals[0])
                seen.add(k)
            for k, vals in pairs:
                self._store[k] = vals[0].copyto(self._home)     # a row_sparse value stays row_sparse
                if isinstance(k, str):
                    self._str_order[k] = len(self._str_order)

    # ------------------------------------------------------------ push
    def push(self, key, value, priority=0):
        """Sum the values of each key (one per device) and store the sum, or apply the updater to it.

        ``value`` is an NDArray or a list of NDArrays for a single key; for a
        list of keys, a list with one such entry per key.  A key given several
        times in one push gets all its values summed together.
        """
        with _profiler.api_call('MXKVStorePush') if _profiler.ACTIVE else _profiler.QUIET:
            grouped = OrderedDict()
            for k, vals in self._pairs('push', key, value):
                grouped.setdefault(k, []).extend(vals)
            # check everything before changing anything
            for k, vals in grouped.items():
                stored = self._lookup('push', k)
                for i, v in enumerate(vals):
                    self._check_pushed(k, 'value %d of %d' % (i, len(vals)), v, stored)
            # MXNet processes the keys of one push sorted: ints by value, strs by init order
            for k in sorted(grouped, key=self._order):
                if grouped[k]:
                    self._push_one(k, grouped[k])

    def _check_pushed(self, k, which, value, stored):
        """Raise KVStoreError if ``value`` (``which`` says which of the push) cannot go to key ``k``."""
        if value.shape != stored.shape:
            raise KVStoreError('push: key %r holds an array of shape %s, but %s pushed to it has shape %s'
                               % (k, stored.shape, which, value.shape))
        _check_storage('push', k, which, value)
        if self._compression is not None and _is_rows(value):
            raise KVStoreError('push: %s for key %r is row_sparse, but this store has gradient compression, '
                               'which quantises dense values only (MXNet would quantise the stored rows as if '
                               'they were the first rows of the array); push dense values, or drop the '
                               'compression' % (which, k))

    def _push_one(self, k, vals):
        """Merge one key's values and store the sum, or apply the updater to it."""
        if self._compression is not None:
            vals = [self._compress(k, i, v) for i, v in enumerate(vals)]
        merged = self._merge(k, vals)
        stored = self._store[k]
        if self._updater is None:
            self._store_sum(k, merged)
            return
        # as MXNet: the stored weight follows the gradient between host and GPU (and back,
        # when a later push merges on the host), so the updater sees one kind of device
        if _on_gpu(merged.context) != _on_gpu(stored.context):
            stored = self._store[k] = stored.copyto(merged.context)
        self._updater(_updater_key(k), merged, stored)

    def _store_sum(self, k, merged):
        """The merged sum becomes key ``k``'s value (no updater)."""
        stored = self._store[k]
        if _is_rows(merged) or _is_rows(stored):
            # MXNet swaps the sum in, storage type and all: a row_sparse push makes the key row_sparse
            self._store[k] = _copy_as(merged, stored.dtype, stored.context)
            return
        with stored.context.device_scope():
            stored._data[...] = move(merged._data, stored.context)

    def _merge(self, key, vals):
        """The sum of ``vals`` (see the module documentation for where and in what order)."""
        # the first value's storage type decides, as in MXNet (its merge buffers take that type)
        if _is_rows(vals[0]):
            return self._merge_rows(key, [v if _is_rows(v) else _nonzero_rows(v) for v in vals])
        vals = [v.todense() if _is_rows(v) else v for v in vals]
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

    def _merge_rows(self, key, vals):
        """The row_sparse sum of row_sparse ``vals``: the union of their rows, on the host for a
        ``local`` store and on the first value's device for a ``device`` store."""
        dtype = self._store[key].dtype
        if self._merge_on == 'cpu':
            if len(vals) == 1:
                # MXNet's CommCPU copies even a single row_sparse value into its host merge buffer
                return _copy_as(vals[0], dtype, self._home)
            return _sum_rows(vals, dtype, self._home)
        if len(vals) == 1:
            return vals[0]
        return _sum_rows(vals, dtype, vals[0].context)

    # ------------------------------------------------------------ pull
    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy each key's stored value into every array of ``out`` (one per device).

        ``out`` has the shape of ``value`` in ``push``.  The arrays are written in
        place (cast to their dtype), so executors that bound them see the new
        weights.  Row_sparse outputs are left as they are unless ``ignore_sparse``
        is False (use ``row_sparse_pull`` to fetch some rows of a row_sparse value).
        """
        with _profiler.api_call('MXKVStorePullWithSparse') if _profiler.ACTIVE else _profiler.QUIET:
            if out is None:
                raise KVStoreError('pull(%r): out is required, the arrays to copy the stored value into' % (key,))
            pairs = self._pairs('pull', key, out)
            for k, outs in pairs:
                stored = self._lookup('pull', k)
                for i, o in enumerate(outs):
                    if o.shape != stored.shape:
                        raise KVStoreError('pull: key %r holds an array of shape %s, but output %d of %d has '
                                           'shape %s' % (k, stored.shape, i, len(outs), o.shape))
                    _check_storage('pull', k, 'output %d of %d' % (i, len(outs)), o)
            self._check_sparse_pull(pairs, ignore_sparse)
            written = []
            for k, outs in pairs:           # a loop, not a comprehension: the warning names the caller's line
                written.append((k, self._written_outputs(k, outs, ignore_sparse)))
            self._fetch(list(OrderedDict.fromkeys(k for k, outs in written if outs)))
            for k, outs in written:
                for o in outs:
                    _write_value(self._store[k], o)

    def _check_sparse_pull(self, pairs, ignore_sparse):
        """Raise KVStoreError if this store cannot pull into the row_sparse outputs of ``pairs``."""

    def _written_outputs(self, k, outs, ignore_sparse):
        """The outputs of key ``k`` that a pull writes: with ``ignore_sparse``, not the row_sparse ones."""
        if not ignore_sparse:
            return outs
        dense = [o for o in outs if not _is_rows(o)]
        if len(dense) < len(outs) and k not in self._warned_ignored:
            self._warned_ignored.add(k)       # MXNet, too, says it once per key
            warnings.warn('KVStore.pull(%r): row_sparse outputs are left unchanged (ignore_sparse=True, as in '
                          'MXNet); fetch rows with row_sparse_pull(key, out, row_ids=...), or pass '
                          'ignore_sparse=False to copy the whole value' % (k,), stacklevel=3)
        return dense

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
        """Fetch rows ``row_ids`` of a row_sparse value into row_sparse ``out``.

        ``out`` is a RowSparseNDArray or a list of them (one per device), and
        ``row_ids`` an NDArray of row indices or a list of them, one per output;
        a single ``row_ids`` serves every output of a single key.  Each output
        becomes a row_sparse array holding exactly the rows asked for (sorted,
        duplicates dropped), zeros where the value stores none.  For a list of
        keys, ``out`` and ``row_ids`` have one such entry per key.
        """
        with _profiler.api_call('MXKVStorePullRowSparse') if _profiler.ACTIVE else _profiler.QUIET:
            if out is None:
                raise KVStoreError('row_sparse_pull(%r): out is required, the row_sparse arrays to copy the rows into'
                                   % (key,))
            if row_ids is None:
                raise KVStoreError('row_sparse_pull(%r): row_ids is required: an NDArray of the row indices to '
                                   'fetch (or a list of them, one per output)' % (key,))
            if isinstance(row_ids, NDArray):
                row_ids = [row_ids]
            if not isinstance(row_ids, (list, tuple)):
                raise _KVTypeError('row_sparse_pull(%r): row_ids must be an NDArray or a list of NDArrays, got %s'
                                   % (key, _describe(row_ids)))
            jobs = self._row_jobs(key, out, row_ids)
            self._fetch_rows(jobs)

    def _row_jobs(self, key, out, row_ids):
        """``[(key, [outputs], rows), ...]`` after every check: the sorted unique rows each group of
        outputs receives."""
        # one row_ids for a list of outputs of one key: MXNet pulls once and copies to the others
        shared = len(row_ids) == 1 and isinstance(out, (list, tuple)) and not isinstance(key, (list, tuple))
        out_pairs = self._pairs('row_sparse_pull', key, out)
        id_pairs = self._pairs('row_sparse_pull', key, row_ids, noun='row_ids')
        if shared:
            groups = [(out_pairs[0][0], out_pairs[0][1], id_pairs[0][1][0])]
        else:
            flat_outs = [(k, o) for k, outs in out_pairs for o in outs]
            flat_ids = [r for _, ids in id_pairs for r in ids]
            if len(flat_outs) != len(flat_ids):
                raise KVStoreError('row_sparse_pull(%r): %d output(s) but %d row_ids; give one row_ids per output '
                                   '(or, for a single key, one row_ids for all its outputs)'
                                   % (key, len(flat_outs), len(flat_ids)))
            groups = [(k, [o], r) for (k, o), r in zip(flat_outs, flat_ids)]
        jobs = []
        for k, outs, ids in groups:
            stored = self._lookup('row_sparse_pull', k)
            _check_rows_outputs(k, outs, stored.shape)
            if not self._holds_rows(k):
                raise KVStoreError('row_sparse_pull: key %r holds a dense array, and row_sparse_pull hands out rows '
                                   'of a row_sparse one (MXNet: "PullRowSparse expects row_sparse src NDArray"); '
                                   'initialise the key with a RowSparseNDArray, or use pull' % (k,))
            jobs.append((k, outs, _unique_rows(k, ids, stored.shape[0], self._home)))
        return jobs

    def _holds_rows(self, k):
        """Whether key ``k``'s value is row_sparse (what row_sparse_pull reads)."""
        return _is_rows(self._store[k])

    def _fetch_rows(self, jobs):
        """Write each job's rows of the stored value into its outputs."""
        for k, outs, rows in jobs:
            fetched = _select_rows(self._store[k], rows)
            for o in outs:
                _write_rows(o, fetched)

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

    def _pairs(self, what, keys, values, noun=None):
        """``[(key, [NDArray, ...]), ...]`` from a key and its value(s), or lists of both."""
        noun = noun or ('outputs' if what in ('pull', 'row_sparse_pull') else 'values')
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
                pairs.extend(self._pairs(what, k, v, noun))
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


# ---------------------------------------------------------------- row_sparse values
# The raw arrays are the value's own (numpy, or cupy on a GPU): no loop visits single rows.

def _is_rows(value):
    return isinstance(value, RowSparseNDArray)


def _check_storage(what, key, which, value):
    """CSR arrays have no place in a KVStore (MXNet's push refuses them)."""
    if isinstance(value, BaseSparseNDArray) and not _is_rows(value):
        raise KVStoreError('%s: %s for key %r is a %s array; a KVStore holds dense and row_sparse arrays only'
                           % (what, which, key, value.stype))


def _check_rows_outputs(key, outs, shape):
    """Every output of a row_sparse_pull must be a row_sparse array of the stored value's shape."""
    dense = [i for i, o in enumerate(outs) if not _is_rows(o)]
    if len(dense) == len(outs):
        raise KVStoreError('row_sparse_pull: the outputs for key %r hold no row_sparse arrays (output 0 of %d is '
                           'a %s NDArray); row_sparse_pull writes rows into RowSparseNDArrays (such as '
                           'mx.nd.sparse.zeros("row_sparse", shape)); use pull for dense outputs'
                           % (key, len(outs), outs[0].stype))
    if dense:
        raise KVStoreError('row_sparse_pull: output %d of %d for key %r is a %s NDArray; every output must be a '
                           'RowSparseNDArray' % (dense[0], len(outs), key, outs[dense[0]].stype))
    for i, o in enumerate(outs):
        if o.shape != shape:
            raise KVStoreError('row_sparse_pull: key %r holds an array of shape %s, but output %d of %d has '
                               'shape %s' % (key, shape, i, len(outs), o.shape))


def _unique_rows(key, row_ids, num_rows, ctx):
    """The rows ``row_ids`` names, as MXNet takes them: int64 (floats cut toward zero), flattened,
    sorted, each once; on ``ctx``."""
    if isinstance(row_ids, BaseSparseNDArray):
        raise KVStoreError('row_sparse_pull: the row_ids for key %r must be a dense NDArray, got a %s one'
                           % (key, row_ids.stype))
    xp = ctx.xp
    with ctx.device_scope():
        ids = move(row_ids._data, ctx).reshape(-1).astype(INDEX_DTYPE)
        outside = (ids < 0) | (ids >= num_rows)
        if bool(outside.any()):
            bad = to_numpy(ids[outside])
            raise KVStoreError('row_sparse_pull: the row_ids for key %r hold %s, outside its %d rows [0, %d)'
                               % (key, bad[:8].tolist(), num_rows, num_rows))
        return xp.unique(ids)


def _select_rows(value, rows):
    """Rows ``rows`` (sorted, unique) of row_sparse ``value``, zeros where it stores none."""
    ctx = value.context
    xp = ctx.xp
    have = value._aux[0]
    with ctx.device_scope():
        rows = move(rows, ctx)
        if len(have) == 0:
            # as MXNet's sparse_retain: a value with no stored rows gives no rows, asked or not
            rows = rows[:0]
        data = xp.zeros((len(rows),) + value.shape[1:], dtype=value._data.dtype)
        if len(rows):
            where = xp.minimum(xp.searchsorted(have, rows), len(have) - 1)
            found = have[where] == rows
            data[found] = value._data[where[found]]
    return RowSparseNDArray(data, [rows.copy()], value.shape, ctx)


def _write_rows(out, value):
    """Row_sparse ``out`` becomes a copy of row_sparse ``value`` (cast to ``out``'s dtype)."""
    ctx = out.context
    with ctx.device_scope():
        out._data = move(value._data, ctx).astype(out._data.dtype, copy=True)
        out._aux = [move(value._aux[0], ctx).astype(INDEX_DTYPE, copy=True)]


def _write_value(stored, out):
    """A pull: the stored value (dense or row_sparse) into ``out`` (dense, or row_sparse)."""
    if _is_rows(out):
        _write_rows(out, stored if _is_rows(stored) else _nonzero_rows(stored))
        return
    ctx = out.context
    with ctx.device_scope():
        if not _is_rows(stored):
            out._data[...] = move(stored._data, ctx)
            return
        out._data[...] = 0
        if len(stored._aux[0]):
            out._data[move(stored._aux[0], ctx)] = move(stored._data, ctx)


def _nonzero_rows(value):
    """Dense ``value`` as a row_sparse array of its rows that hold anything but zeros (cast_storage)."""
    ctx = value.context
    xp = ctx.xp
    raw = value._data
    with ctx.device_scope():
        per_row = raw.reshape(raw.shape[0], int(np.prod(raw.shape[1:], dtype=np.int64)))
        rows = xp.flatnonzero(per_row.any(axis=1)).astype(INDEX_DTYPE)
        return RowSparseNDArray(raw[rows], [rows], value.shape, ctx)


def _sum_rows(vals, dtype, ctx):
    """The row_sparse sum of row_sparse ``vals`` on ``ctx``: the union of their rows, each row
    added up from zero in list order (MXNet's ElementwiseSum for row_sparse arrays)."""
    xp = ctx.xp
    with ctx.device_scope():
        indices = [move(v._aux[0], ctx) for v in vals]
        rows = xp.unique(xp.concatenate(indices)).astype(INDEX_DTYPE)
        total = xp.zeros((len(rows),) + vals[0].shape[1:], dtype=dtype)
        for v, idx in zip(vals, indices):         # one step per value, all its rows at once
            if len(idx):
                total[xp.searchsorted(rows, idx)] += move(v._data, ctx).astype(dtype, copy=False)
    return RowSparseNDArray(total, [rows], vals[0].shape, ctx)


def _copy_as(value, dtype, ctx):
    """A copy of ``value`` (dense or row_sparse, storage kept) on ``ctx`` with ``dtype``."""
    with ctx.device_scope():
        data = move(value._data, ctx).astype(dtype, copy=True)
        if _is_rows(value):
            return RowSparseNDArray(data, [move(value._aux[0], ctx).astype(INDEX_DTYPE, copy=True)], value.shape, ctx)
        return NDArray(data, ctx)
