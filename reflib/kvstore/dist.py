"""The distributed KVStore, as a worker sees it: ``dist_sync``, ``dist_async``, ``dist_device_sync``.

Several worker processes train the same model on different data.  The weights
live on *parameter servers* (``server.py``); each worker

1. sums its gradients over its own devices, exactly as the local store does
   (on the CPU for ``dist_sync``, on the first device for ``dist_device_sync``),
2. **pushes** that sum to the servers that hold the key,
3. **pulls** the updated weight back and copies it to each of its devices.

A ``dist_sync`` server updates a key only once it has every worker's push, so
every worker pulls the same weights; ``dist_async`` applies each push as it
comes (``server.py`` has the details).

**Which server holds a key** (MXNet's rule, from its ``kvstore_dist.h``): a
key whose array has fewer than ``MXNET_KVSTORE_BIGARRAY_BOUND`` elements
(default 1,000,000) lives whole on server ``(key * 9973) % num_servers``; a
bigger one is flattened and cut into ``num_servers`` consecutive parts, part
``i`` holding elements ``round(n*i/S)`` to ``round(n*(i+1)/S)``, one per
server, so that big layers spread the traffic over all servers.  A str key is
first numbered in the order the keys were initialised (0, 1, 2, ...), and the
servers, and their updater, see that number: Module's optimizer knows which
parameter it is through ``idx2name``, as in MXNet.

**row_sparse keys.**  A key initialised with a ``RowSparseNDArray`` is cut at row
boundaries instead (part ``i`` holds rows ``round(R*i/S)`` to ``round(R*(i+1)/S)``
of the ``R`` rows, when the array is big enough to be cut at all), so that each row
lives whole on one server, as in MXNet.  The servers hold every row of it.  A
row_sparse push sends each server only the rows that fall in its part (with their
indices); the server sums a round's row_sparse pushes over the union of their rows
and hands the updater that row_sparse gradient (and its rows of the weight);
without an updater the sum becomes the value, zero outside its rows.  A dense push
to a row_sparse key is summed densely; the key stays row_sparse (a local store's
would turn dense: MXNet's servers, too, keep the storage type of the init).
``row_sparse_pull`` asks each server for the rows it holds, and every row asked for
comes back (the local store, as MXNet's, gives none when its value stores no row).

Every worker must make the same calls in the same order: ``create``,
``init`` (only worker 0's value is sent: it wins), ``set_optimizer`` and
``barrier`` wait for all workers, and in ``dist_sync`` every worker pushes
every key equally often.

**One process, no mpiexec.**  Outside an MPI job a dist store still works: the
process is worker 0 of 1, and its servers (``DMLC_NUM_SERVER`` of them,
default 1) run in the same process (``LocalLink``).  Same code path, same
numbers; only the messages do not leave the process.

Where reflib differs from MXNet 1.9.1:

* ``save_optimizer_states``/``load_optimizer_states`` work: the states are
  fetched from the servers, big keys' parts joined, and the file is the one a
  local store writes (MXNet asserts "Cannot save states for distributed
  training").
* A push of the wrong shape, a pull of a key never initialised, and a push to a
  ``dist_async`` store without an optimizer are errors on the worker that made
  them (MXNet fails on the server, or hangs).
* Gradient compression (``2bit``) quantises on the worker as MXNet does, but
  the quantised values travel as float32, not packed into 2 bits.
* A row_sparse push to a key initialised dense is an error (its parts are not cut at
  rows); so is ``pull(..., ignore_sparse=False)`` into a row_sparse output, which MXNet's
  dist store refuses too: fetch rows with ``row_sparse_pull``.
"""

import itertools
import math
import os
import pickle

import numpy as np

from ..base import MXNetError, string_types
from .. import optimizer as opt
from ..optimizer import _state_to_numpy, dumps_states, loads_states, map_state
from ..ndarray.ndarray import to_numpy
from ..ndarray.sparse import RowSparseNDArray
from ..util import atomic_write_bytes
from .base import KVStoreError
from .kvstore import KVStore, _KVTypeError, _is_rows, _write_rows
from .mpi import REPLY, cluster
from . import mpi
from .server import KVServer

__all__ = ['DistKVStore', 'create', 'placement', 'row_placement', 'worker_rank', 'node_prefix', 'LocalLink',
           'MpiLink']

# MXNet's default for MXNET_KVSTORE_BIGARRAY_BOUND: arrays at least this big are split over all servers
DEFAULT_BIGARRAY_BOUND = 1000 * 1000


def placement(key_id, size, num_servers, bound=DEFAULT_BIGARRAY_BOUND):
    """``[(server, start, stop), ...]``: which server holds which flat elements of a key.

    >>> placement(3, 100, 2)                  # small: whole, on server (3 * 9973) % 2
    [(1, 0, 100)]
    >>> placement(3, 10, 3, bound=5)          # big: cut into 3 parts of 3, 4, 3
    [(0, 0, 3), (1, 3, 7), (2, 7, 10)]
    """
    if size < bound:
        return [((key_id * 9973) % num_servers, 0, size)]
    edges = [_round_half_away(size / num_servers * i) for i in range(num_servers + 1)]
    return [(i, edges[i], edges[i + 1]) for i in range(num_servers) if edges[i + 1] > edges[i]]


def row_placement(key_id, shape, num_servers, bound=DEFAULT_BIGARRAY_BOUND):
    """``placement`` for a row_sparse key: a big one is cut between rows, so each row is on one server.

    >>> row_placement(0, (8, 3), 2, bound=20)     # 24 elements: rows 0-3 and 4-7
    [(0, 0, 12), (1, 12, 24)]
    """
    size = int(np.prod(shape, dtype=np.int64))
    num_rows = shape[0]
    if size < bound or num_rows == 0:
        return placement(key_id, size, num_servers, bound=size + 1)
    row_len = size // num_rows
    edges = [_round_half_away(num_rows / num_servers * i) for i in range(num_servers + 1)]
    return [(i, edges[i] * row_len, edges[i + 1] * row_len) for i in range(num_servers) if edges[i + 1] > edges[i]]


def _round_half_away(x):
    """C's round() for x >= 0 (Python's round() rounds halves to even)."""
    whole = math.floor(x)
    return int(whole + 1 if x - whole >= 0.5 else whole)


def _parse_type(name):
    """(sync, merge_on) of a dist store name, as MXNet reads it: sync unless it says async."""
    words = name.split('_')
    unknown = [w for w in words if w not in ('dist', 'sync', 'async', 'device')]
    if words[0] != 'dist' or unknown or ('sync' in words and 'async' in words):
        raise KVStoreError('kvstore.create(%r): not a distributed store type; use "dist_sync", "dist_async", '
                           '"dist_device_sync" or "dist_device_async"' % name)
    return 'async' not in words, 'device' if 'device' in words else 'cpu'


class DistKVStore(KVStore):
    """A worker's handle on the parameter servers; make one with ``mx.kv.create('dist_sync')``.

    Same methods as the local store (it reuses its checks and device merge);
    ``rank`` is this worker's number and ``num_workers`` how many there are.
    """

    def __init__(self, name, link):
        sync, merge_on = _parse_type(name)
        self._setup(name, merge_on)
        self._sync = sync
        self._link = link
        self._id = link.new_store_id()
        self._key_ids = {}            # key -> the int the servers know it by
        self._parts = {}              # key -> [(server, start, stop)]
        self._remote_updater = False  # whether the servers have an updater
        self._row_keys = set()        # keys initialised row_sparse (cut at rows; row_sparse_pull works)
        self._bound = int(os.environ.get('MXNET_KVSTORE_BIGARRAY_BOUND', DEFAULT_BIGARRAY_BOUND))
        if self.rank == 0:
            link.call([(s, ('create', self._id, None, (name, sync))) for s in range(link.num_servers)])
        link.barrier()

    # ------------------------------------------------------------ properties
    @property
    def rank(self):
        return self._link.rank

    @property
    def num_workers(self):
        return self._link.num_workers

    @property
    def num_servers(self):
        """How many parameter servers hold the keys (not in MXNet's API; useful to see)."""
        return self._link.num_servers

    def __repr__(self):
        return '<KVStore %s: worker %d of %d, %d server%s, %d keys>' % (
            self._type, self.rank, self.num_workers, self.num_servers, 's' if self.num_servers > 1 else '',
            len(self._store))

    # ------------------------------------------------------------ init / push / pull
    def init(self, key, value):
        """Initialise keys on every worker; worker 0's values are the ones the servers keep."""
        new = [k for k, _ in self._pairs('init', key, value)]
        KVStore.init(self, key, value)          # checks, and keeps this worker's own copy
        requests = []
        for k in new:
            key_id = self._str_order[k] if isinstance(k, str) else k
            self._key_ids[k] = key_id
            stored = self._store[k]
            if _is_rows(stored):
                # this worker keeps the dense value (a pull fills it); the servers hold every row
                stored = self._store[k] = stored.todense()
                self._row_keys.add(k)
                self._parts[k] = row_placement(key_id, stored.shape, self.num_servers, self._bound)
                extra = (tuple(stored.shape[1:]),)       # the server cuts its part into rows
            else:
                self._parts[k] = placement(key_id, int(np.prod(stored.shape)), self.num_servers, self._bound)
                extra = ()
            flat = stored.asnumpy().reshape(-1)
            requests += [(s, ('init', self._id, key_id, (k, flat[a:b]) + extra)) for s, a, b in self._parts[k]]
        if self.rank == 0:
            self._link.call(requests)
        self._link.barrier()

    def _check_pushed(self, k, which, value, stored):
        KVStore._check_pushed(self, k, which, value, stored)
        if _is_rows(value) and k not in self._row_keys:
            raise KVStoreError('push: %s for key %r is row_sparse, but the key was initialised with a dense '
                               'array: on a %s store only a key initialised row_sparse takes row_sparse pushes '
                               '(its parts on the servers are cut between rows)' % (which, k, self._type))

    def _push_one(self, k, vals):
        if not self._sync and not self._remote_updater:
            raise KVStoreError('push: a %s store applies every push on the servers as it arrives, so the '
                               'servers need an optimizer first: call set_optimizer (Module does when '
                               'update_on_kvstore)' % self._type)
        merged = self._merge(k, vals)               # over this worker's devices, as the local store does
        if _is_rows(merged):
            self._push_rows(k, merged)
            return
        if self._compression is not None:
            merged = self._compress(k, 0, merged)
        flat = merged.asnumpy().astype(self._store[k].dtype, copy=False).reshape(-1)
        for s, a, b in self._parts[k]:
            self._link.post(s, ('push', self._id, self._key_ids[k], flat[a:b]))

    def _push_rows(self, k, merged):
        """Send each server the rows of row_sparse ``merged`` in its part (every server gets a push,
        perhaps of no rows: a sync round counts one push per worker)."""
        rows = to_numpy(merged._aux[0])
        row_len = _row_length(merged.shape)
        data = to_numpy(merged._data).astype(self._store[k].dtype, copy=False).reshape(len(rows), row_len)
        for s, a, b in self._parts[k]:
            first, stop = a // row_len, b // row_len
            lo, hi = np.searchsorted(rows, [first, stop])
            self._link.post(s, ('push_rows', self._id, self._key_ids[k], (rows[lo:hi] - first, data[lo:hi])))

    def _holds_rows(self, k):
        return k in self._row_keys

    def _fetch_rows(self, jobs):
        """Ask the servers for each job's rows (one request per server part that holds some)."""
        requests, places = [], []
        for number, (k, _, rows) in enumerate(jobs):
            rows = to_numpy(rows)
            row_len = _row_length(self._store[k].shape)
            for s, a, b in self._parts[k]:
                first, stop = a // row_len, b // row_len
                lo, hi = np.searchsorted(rows, [first, stop])
                if hi > lo:
                    requests.append((s, ('pull_rows', self._id, self._key_ids[k], rows[lo:hi] - first)))
                    places.append(number)
        replies = self._link.call(requests) if requests else []
        for number, (k, outs, rows) in enumerate(jobs):
            shape = self._store[k].shape
            parts = [r for n, r in zip(places, replies) if n == number]
            data = (np.concatenate(parts) if parts else np.zeros((0,), self._store[k].dtype)).reshape(
                (len(rows),) + tuple(shape[1:]))
            fetched = RowSparseNDArray(data, [to_numpy(rows)], shape, self._home)
            for o in outs:
                _write_rows(o, fetched)

    def _check_sparse_pull(self, pairs, ignore_sparse):
        if ignore_sparse:
            return
        for k, outs in pairs:
            if any(_is_rows(o) for o in outs):
                raise KVStoreError('pull: key %r: a %s store pulls into dense outputs only (as MXNet\'s dist '
                                   'stores, it does not take ignore_sparse=False); fetch rows with '
                                   'row_sparse_pull(key, out, row_ids=...)' % (k, self._type))

    def _fetch(self, keys):
        requests, places = [], []
        for k in keys:
            for s, a, b in self._parts[k]:
                requests.append((s, ('pull', self._id, self._key_ids[k], None)))
                places.append((k, a, b))
        for (k, a, b), values in zip(places, self._link.call(requests)):
            self._store[k]._data.reshape(-1)[a:b] = values

    def _compresses(self):
        return True

    # ------------------------------------------------------------ the update, on the servers
    def set_optimizer(self, optimizer):
        """Send ``optimizer`` (pickled, as MXNet does) to every server; they then update on each push."""
        if not isinstance(optimizer, opt.Optimizer):
            raise _KVTypeError('set_optimizer expects an Optimizer (e.g. mx.optimizer.create(\'sgd\', '
                               'learning_rate=0.1)), got %s' % type(optimizer).__name__)
        self._send_updater('optimizer', pickle.dumps(optimizer))

    def _set_updater(self, updater):
        """Run ``updater(key, merged_grad, stored_weight)`` on the servers (it is pickled to them).

        It must be importable where the servers run: a function at the top
        level of a module, not a lambda nor one defined in the training
        script (a server never runs past ``import reflib``).  None removes it.
        """
        if updater is not None and not callable(updater):
            raise _KVTypeError('_set_updater expects a callable updater(key, grad, weight) or None, got %s'
                               % type(updater).__name__)
        blob = None
        if updater is not None:
            try:
                blob = pickle.dumps(updater)
            except (pickle.PicklingError, AttributeError, TypeError) as err:
                raise KVStoreError('_set_updater: on a %s store the updater runs on the servers, so it is pickled '
                                   'to them, and %r cannot be (%s). Use a function defined at the top level of '
                                   'an importable module, or set_optimizer' % (self._type, updater, err)) from None
        self._send_updater('updater', blob)

    def _send_updater(self, kind, blob):
        error = None
        if self.rank == 0:
            try:
                self._link.call([(s, ('set_updater', self._id, None, (kind, blob)))
                                 for s in range(self.num_servers)])
            except KVStoreError as err:
                error = err
        self._link.barrier()         # no worker pushes before the servers have it
        if error is not None:
            raise error
        self._remote_updater = blob is not None
        self._updater = None

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Fetch the servers' optimizer states, join big keys' parts, write them as a local store would."""
        atomic_write_bytes(fname, self._optimizer_states_bytes(dump_optimizer))

    def _optimizer_states_bytes(self, dump_optimizer=False):
        self._require_remote_states('save_optimizer_states')
        blobs = self._link.call([(s, ('get_states', self._id, None, dump_optimizer))
                                 for s in range(self.num_servers)])
        by_server, optimizer = [], None
        for blob in blobs:
            loaded, optimizer = loads_states(blob)
            by_server.append({k: _state_to_numpy(v) for k, v in loaded.items()})
        states = {}
        for k, key_id in self._key_ids.items():
            parts = [by_server[s][key_id] for s, _, _ in self._parts[k] if key_id in by_server[s]]
            if parts:
                states[k] = _join_states(parts, self._store[k].shape)
        return dumps_states(states, optimizer if dump_optimizer else None)

    def load_optimizer_states(self, fname):
        """Read states saved by any store (reflib's or MXNet's), cut them per server, and send them."""
        self._require_remote_states('load_optimizer_states')
        with open(fname, 'rb') as f:
            data = f.read()
        try:
            loaded, optimizer = loads_states(data)
        except MXNetError as err:
            raise KVStoreError('load_optimizer_states: %s: %s' % (fname, err)) from None
        per_server = [{} for _ in range(self.num_servers)]
        for key, state in loaded.items():
            k = key.decode('utf-8') if isinstance(key, bytes) else key
            if k not in self._key_ids:
                raise KVStoreError('load_optimizer_states: %s has states for key %r, which this store has not '
                                   'initialised (it has %s)' % (fname, k, sorted(self._key_ids, key=str)))
            for s, a, b in self._parts[k]:
                per_server[s][self._key_ids[k]] = _cut_state(_state_to_numpy(state), a, b)
        error = None
        if self.rank == 0:
            try:
                self._link.call([(s, ('set_states', self._id, None,
                                      pickle.dumps((states, optimizer) if optimizer is not None else states)))
                                 for s, states in enumerate(per_server)])
            except KVStoreError as err:
                error = KVStoreError('load_optimizer_states: %s: %s' % (fname, err))
        self._link.barrier()
        if error is not None:
            raise error

    def _require_remote_states(self, what):
        if not self._remote_updater:
            raise KVStoreError('%s: the servers of this %s store have no optimizer; call set_optimizer first'
                               % (what, self._type))

    # ------------------------------------------------------------ barrier
    def _barrier(self):
        """Wait until every worker has called barrier."""
        self._link.barrier()


def _row_length(shape):
    """Elements in one row (a slice along axis 0) of an array of ``shape``."""
    return max(int(np.prod(shape[1:], dtype=np.int64)), 1)


def _cut_state(state, start, stop):
    """The flat elements ``start:stop`` of every array in ``state``."""
    return map_state(lambda a: np.ascontiguousarray(a.reshape(-1)[start:stop])
                     if isinstance(a, np.ndarray) else a, state)


def _join_states(parts, shape):
    """The inverse of ``_cut_state``: the servers' parts, in order, joined and given ``shape``."""
    first = parts[0]
    if isinstance(first, np.ndarray):
        return np.concatenate([p.reshape(-1) for p in parts]).reshape(shape)
    if isinstance(first, (tuple, list)):
        out = [_join_states([p[i] for p in parts], shape) for i in range(len(first))]
        return tuple(out) if isinstance(first, tuple) else out
    return first


# ---------------------------------------------------------------- links: how requests reach the servers
class LocalLink:
    """Worker 0 of 1 with its servers in the same process: requests are method calls."""

    def __init__(self, num_servers):
        self.rank, self.num_workers, self.num_servers = 0, 1, num_servers
        self.servers = [KVServer(i, 1) for i in range(num_servers)]
        self._store_ids = itertools.count()

    def new_store_id(self):
        """A fresh number (0, 1, 2, ...) for a new dist store made in this process, by which the
        servers tell that store's keys from other stores'.
        """
        return next(self._store_ids)

    def post(self, server, request):
        """Send ``request``, an ``(op, store_id, key, payload)`` tuple, to server number ``server``
        without waiting for an answer (a push).  The payload's arrays are copied first, as a
        message would be.
        """
        op, store_id, key, payload = request
        self.servers[server].handle(0, (op, None, store_id, key, _copied(payload)))

    def call(self, requests):
        """Send each ``(server, (op, store_id, key, payload))`` of ``requests`` and wait for the
        answers.  Returns the reply payloads, in the order of ``requests``; raises KVStoreError
        with the first error a server answered.
        """
        results = {}
        for number, (server, (op, store_id, key, payload)) in enumerate(requests):
            for _, reply in self.servers[server].handle(0, (op, number, store_id, key, _copied(payload))):
                results[reply[0]] = reply
        return _payloads(results, len(requests))

    def barrier(self):
        """Nothing to wait for: this process is the only worker."""
        pass


class MpiLink:
    """A worker of an MPI job: requests are MPI messages to the server ranks (``mpi.py``)."""

    def __init__(self, the_cluster):
        self.cluster = the_cluster
        self.rank, self.num_workers = the_cluster.rank, the_cluster.num_workers
        self.num_servers = the_cluster.num_servers
        self._request_ids = itertools.count()
        self._store_ids = itertools.count()

    def new_store_id(self):
        """A fresh number (0, 1, 2, ...) for a new dist store made by this worker; every worker
        makes its stores in the same order, so the numbers agree across the job.
        """
        return next(self._store_ids)

    def post(self, server, request):
        """Send ``request``, an ``(op, store_id, key, payload)`` tuple, as an MPI message to the
        rank of server number ``server``, expecting no reply (a push).
        """
        op, store_id, key, payload = request
        self.cluster.send(self.cluster.server_rank(server), (op, None, store_id, key, payload))

    def call(self, requests):
        """Send each ``(server, (op, store_id, key, payload))`` of ``requests`` to its server, each
        with a request number, and wait for every reply (they may come in any order).  Returns
        the reply payloads in the order of ``requests``; raises KVStoreError with the first error
        a server answered.
        """
        wanted = []
        for server, (op, store_id, key, payload) in requests:
            number = next(self._request_ids)
            self.cluster.send(self.cluster.server_rank(server), (op, number, store_id, key, payload))
            wanted.append(number)
        results = {}
        while len(results) < len(wanted):       # replies may come in any order
            _, reply = self.cluster.receive(REPLY)
            results[reply[0]] = reply
        return _payloads({wanted.index(n): r for n, r in results.items()}, len(wanted))

    def barrier(self):
        """Server 0 keeps the barrier: a worker that leaves instead of arriving is named to the
        ones that wait (an MPI barrier would make them wait for ever)."""
        self.call([(0, ('barrier', None, None, None))])


def _copied(payload):
    """A private copy of every numpy array in ``payload`` (a message must not share memory)."""
    if isinstance(payload, np.ndarray):
        return payload.copy()
    if isinstance(payload, tuple):
        return tuple(_copied(p) for p in payload)
    return payload


def _payloads(results, count):
    missing = [i for i in range(count) if i not in results]
    if missing:
        raise KVStoreError('internal: %d request(s) to in-process servers got no answer' % len(missing))
    errors = [results[i][2] for i in range(count) if not results[i][1]]
    if errors:
        raise KVStoreError(errors[0])
    return [_copied(results[i][2]) for i in range(count)]


# ---------------------------------------------------------------- create
def create(name):
    """A dist store: over MPI when mpiexec started this process, else worker 0 of 1 with local servers."""
    if not isinstance(name, string_types):
        raise _KVTypeError('kvstore.create: the name must be a str, got %s' % type(name).__name__)
    _parse_type(name)
    the_cluster = cluster()
    if the_cluster is None:
        role = os.environ.get('DMLC_ROLE')
        if role:
            # MXNet's own launcher starts scheduler/server/worker processes that meet over TCP;
            # reflib's processes meet through MPI, so this process would train alone, unnoticed
            raise KVStoreError('kvstore.create(%r): DMLC_ROLE=%s says MXNet\'s launcher started this process, '
                               'but reflib runs distributed jobs over MPI: start it with `python -m reflib.launch '
                               '-n WORKERS -s SERVERS python script.py`' % (name, role))
        servers = int(os.environ.get('DMLC_NUM_SERVER') or 1)
        return DistKVStore(name, LocalLink(servers))
    if the_cluster.is_server:
        raise KVStoreError('kvstore.create(%r) on a server rank: servers do not run the script' % name)
    return DistKVStore(name, MpiLink(the_cluster))


def worker_rank():
    """``(rank, num_workers)`` of this process in its distributed job: ``(0, 1)`` outside one."""
    if mpi._CLUSTER is not None and not mpi._CLUSTER.is_server:
        return mpi._CLUSTER.rank, mpi._CLUSTER.num_workers
    return 0, 1


def node_prefix():
    """``'Node[1] '`` on worker 1 of a job with several workers, else ``''``: fit's and Speedometer's log lines.

    (MXNet's own distributed examples put ``Node[rank]`` into the log format.)
    """
    rank, workers = worker_rank()
    return 'Node[%d] ' % rank if workers > 1 else ''
