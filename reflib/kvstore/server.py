"""A parameter server: it holds the weights, collects the workers' gradients, and applies the update.

Each server holds a slice of the model: some keys whole, and one part of every
big key (``dist.py`` decides which, as MXNet does).  For each key it keeps the
stored value and answers four requests from the workers:

* ``init``   the first value (only worker 0 sends it: its value wins);
* ``push``   a gradient (already summed over the worker's own devices);
* ``pull``   "send me the current value";
* ``push_rows`` / ``pull_rows``  the same for some rows of a row_sparse key: the
  gradient's row indices (within this server's part) and their rows; "send me
  these rows";
* ``leave``  "I am done: I will push nothing more".

Server 0 also keeps the workers' ``barrier``: it answers once every worker has asked, and
if a worker leaves while others wait there (its script ended, or it called ``barrier``
fewer times), it answers the waiting ones with an error naming it, instead of leaving
them to wait for ever.

**dist_sync.**  Pushes for a key are collected in a *round* that takes one
push from every worker.  When the round is full, the server adds the pushes,
applies the updater *once* to the sum, and starts a new round.  (It adds them
in worker order, 0 + 1 + 2 + ..., so a run is reproducible bit for bit; MXNet
adds them in the order they arrive, which for three or more workers changes
the float32 rounding from run to run.)  A worker's pull waits until every push it made
to that key has been applied, so after ``push(k); pull(k)`` a worker sees the
weight updated with *all* workers' gradients: every worker sees the same
weights.  A push that arrives while the same worker still has one in the open
round belongs to the next round and waits (``backlog``).

**dist_async.**  Every push is applied the moment it arrives, alone, and a
pull is answered at once.  A worker's pull still comes after its own push
(messages between two processes keep their order), so it sees at least its
own update; what else it sees depends on timing.  That is all async promises.

Without an updater (no ``set_optimizer``) a sync round stores the plain sum,
which is how Module sums gradients across machines when it updates locally.

**row_sparse keys.**  A key initialised row_sparse keeps its part as rows (the
init says the shape of a row).  A round of row_sparse pushes is summed over the
union of their rows, in worker order; the updater gets that sum as a row_sparse
gradient and the part as a dense array of its rows (MXNet's server passes a
row_sparse weight that stores every row: the same numbers).  Without an updater
the sum becomes the part, zero in the other rows.
A round with any dense push is summed densely.

``KVServer.handle`` takes one request and returns the replies to send; it
never touches MPI, so the same class serves an MPI job (``serve``) and a
single process (``dist.LocalLink``), and the tests can drive it directly.
"""

import sys
import traceback
from collections import OrderedDict, namedtuple

import numpy as np

from ..context import cpu
from ..ndarray.ndarray import NDArray
from ..ndarray.sparse import INDEX_DTYPE, RowSparseNDArray
from ..optimizer.updater import get_updater, loads_sent

# a row_sparse push: row indices within this server's part (sorted, int64) and those rows, one per line
_Rows = namedtuple('_Rows', 'rows data')

__all__ = ['KVServer']


class _Key:
    """One key's state on one server."""

    __slots__ = ('name', 'value', 'row_shape', 'round', 'backlog', 'waiting', 'error')

    def __init__(self, name, value, row_shape=None):
        self.name = name             # the key as the workers wrote it (for messages)
        self.value = value           # this server's part of the stored value: a flat numpy array
        self.row_shape = row_shape   # a row_sparse key: the shape of one row; None for a dense key
        self.round = OrderedDict()   # worker -> its push in the open round, in arrival order
        self.backlog = []            # (worker, push) that belong to a later round
        self.waiting = []            # (worker, request id, rows or None for all) of pulls that wait
        self.error = None            # why this key can no longer be served

    def rows(self):
        """The part as a 2-D view: one line per row (row_sparse keys)."""
        return self.value.reshape(-1, max(int(np.prod(self.row_shape, dtype=np.int64)), 1))

    def shape(self):
        """The part's shape as an array: flat for a dense key, rows for a row_sparse one."""
        if self.row_shape is None:
            return self.value.shape
        return (len(self.rows()),) + tuple(self.row_shape)


class _Store:
    """One KVStore's keys and updater (a worker may create several stores, one after the other)."""

    def __init__(self, kind, sync):
        self.kind = kind
        self.sync = sync
        self.updater = None
        self.keys = {}


class KVServer:
    """The state of server ``index`` of a job with ``num_workers`` workers.

    ``handle(worker, request)`` returns a list of ``(worker, reply)`` to send.
    A request is ``(op, request_id, store_id, key, payload)``; a reply is
    ``(request_id, ok, payload)``, where ``payload`` is the error message when
    ``ok`` is False.
    """

    def __init__(self, index, num_workers):
        self.index = index
        self.num_workers = num_workers
        self.stores = {}
        self.left = set()            # workers that said leave
        self.at_barrier = {}         # worker -> request id, for the barrier now filling (server 0)

    @property
    def finished(self):
        """True once every worker has sent ``leave``: no request can come any more and the server
        may stop.
        """
        return len(self.left) == self.num_workers

    def handle(self, worker, request):
        """Process one request from ``worker`` and return the replies it makes possible.

        ``request`` is ``(op, request_id, store_id, key, payload)``, where ``op`` is one of
        ``create``, ``init``, ``push``, ``push_rows``, ``pull``, ``pull_rows``, ``set_updater``,
        ``get_states``, ``set_states``, ``barrier`` or ``leave``.  Returns a list of
        ``(worker, (request_id, ok, payload))`` to send; it may be empty (a push that completes
        no round, a barrier still filling) or answer other workers' waiting requests (a full
        round releases their pulls).  An unknown ``op`` is answered with ``ok`` False and an
        error message as the payload.
        """
        op, request_id, store_id, key, payload = request
        if op == 'leave':
            self.left.add(worker)
            return self._answer_all_waiting() + self._answer_barrier()
        if op == 'barrier':
            self.at_barrier[worker] = request_id
            return self._answer_barrier()
        if op == 'create':
            kind, sync = payload
            self.stores[store_id] = _Store(kind, sync)
            return [(worker, (request_id, True, None))]
        store = self.stores[store_id]
        try:
            handler = getattr(self, '_' + op)
        except AttributeError:
            return [(worker, (request_id, False, 'server %d: unknown request %r' % (self.index, op)))]
        return handler(store, worker, request_id, key, payload)

    # ------------------------------------------------------------ requests
    def _init(self, store, worker, request_id, key, payload):
        name, value = payload[:2]         # a message's arrays are the server's own: no copy
        row_shape = payload[2] if len(payload) > 2 else None
        store.keys[key] = _Key(name, value, row_shape)
        return [(worker, (request_id, True, None))]

    def _push_rows(self, store, worker, request_id, key, payload):
        rows, data = payload
        return self._push(store, worker, request_id, key, _Rows(rows.astype(INDEX_DTYPE, copy=False), data))

    def _push(self, store, worker, request_id, key, value):
        k = store.keys[key]
        if not store.sync:
            self._apply(store, key, k, value)
            return []
        if worker in k.round:
            k.backlog.append((worker, value))
            return []
        k.round[worker] = value
        while len(k.round) == self.num_workers:
            self._apply(store, key, k, _sum_pushes(k, [k.round[w] for w in sorted(k.round)]))
            # the next round starts with the waiting pushes, at most one per worker
            k.round, waiting, k.backlog = OrderedDict(), k.backlog, []
            for w, push in waiting:
                if w in k.round:
                    k.backlog.append((w, push))
                else:
                    k.round[w] = push
        return self._answer_waiting(k)

    def _pull(self, store, worker, request_id, key, payload):
        k = store.keys[key]
        k.waiting.append((worker, request_id, None))
        return self._answer_waiting(k)

    def _pull_rows(self, store, worker, request_id, key, rows):
        k = store.keys[key]
        k.waiting.append((worker, request_id, rows))
        return self._answer_waiting(k)

    def _set_updater(self, store, worker, request_id, key, payload):
        kind, blob = payload
        try:
            # restricted: a pickle from the network names code, and a plain unpickler runs it
            thing = loads_sent(blob, kind, functions=(kind == 'updater')) if blob is not None else None
        except Exception as err:  # noqa: BLE001 - the worker gets the reason, whatever it is
            return [(worker, (request_id, False, 'server %d refused the %s: %s. The servers run only '
                                                 '`import reflib`, so it must come from there'
                              % (self.index, kind, err)))]
        if kind == 'optimizer':
            store.updater = get_updater(thing)
        else:
            store.updater = thing
        return [(worker, (request_id, True, None))]

    def _get_states(self, store, worker, request_id, key, dump_optimizer):
        if store.updater is None or not hasattr(store.updater, 'get_states'):
            return [(worker, (request_id, False, 'server %d has no optimizer states: call set_optimizer first'
                              % self.index))]
        return [(worker, (request_id, True, store.updater.get_states(dump_optimizer)))]

    def _set_states(self, store, worker, request_id, key, blob):
        if store.updater is None or not hasattr(store.updater, 'set_states'):
            return [(worker, (request_id, False, 'server %d has no optimizer to load states into: call '
                                                 'set_optimizer first' % self.index))]
        try:
            store.updater.set_states(blob)
        except Exception as err:  # noqa: BLE001
            return [(worker, (request_id, False, 'server %d: %s' % (self.index, err)))]
        return [(worker, (request_id, True, None))]

    # ------------------------------------------------------------ the update
    def _apply(self, store, key, k, merged):
        """stored = updater(stored, merged), or stored = merged without an updater."""
        if k.error is not None:
            return
        if store.updater is None:
            if isinstance(merged, _Rows):
                k.value[...] = 0
                k.rows()[merged.rows] = merged.data
            else:
                k.value[...] = merged
            return
        try:
            if k.row_shape is None:
                store.updater(key, NDArray(merged, cpu(0)), NDArray(k.value, cpu(0)))
            else:
                self._apply_to_rows(store.updater, key, k, merged)
        except Exception as err:  # noqa: BLE001 - reported to every worker that pulls this key
            k.error = ('server %d: the update of key %r failed: %s: %s'
                       % (self.index, k.name, type(err).__name__, err))
            sys.stderr.write('[reflib] %s\n%s' % (k.error, traceback.format_exc()))

    @staticmethod
    def _apply_to_rows(updater, key, k, merged):
        """The updater on a row_sparse key: the gradient row_sparse (or dense, from dense pushes) and
        the part as rows.  MXNet's server passes the weight as a row_sparse array that stores every
        row; a dense weight gives the same numbers (a row_sparse gradient touches only its rows
        either way), and it is what reflib's optimizers update."""
        shape = k.shape()
        weight = NDArray(k.value.reshape(shape), cpu(0))         # a view: the update writes into the part
        if isinstance(merged, _Rows):
            grad = RowSparseNDArray(merged.data.reshape((len(merged.rows),) + shape[1:]), [merged.rows], shape,
                                    cpu(0))
        else:
            grad = NDArray(merged.reshape(shape), cpu(0))
        updater(key, grad, weight)

    def _answer_waiting(self, k):
        """Replies to the pulls of ``k`` that can be answered now; the others keep waiting."""
        replies, still = [], []
        for worker, request_id, rows in k.waiting:
            if k.error is not None:
                replies.append((worker, (request_id, False, k.error)))
            elif not self._has_pending_push(k, worker):
                replies.append((worker, (request_id, True, k.value if rows is None else k.rows()[rows])))
            elif self._round_cannot_finish(k):
                replies.append((worker, (request_id, False, self._stuck_message(k))))
            else:
                still.append((worker, request_id, rows))
        k.waiting = still
        return replies

    def _answer_barrier(self):
        """Release the barrier when every worker is there; fail it when one of them has left."""
        if not self.at_barrier:
            return []
        waiting = sorted(self.at_barrier.items())
        if len(waiting) == self.num_workers:
            self.at_barrier = {}
            return [(w, (request_id, True, None)) for w, request_id in waiting]
        gone = sorted(self.left - set(self.at_barrier))
        if not gone:
            return []
        self.at_barrier = {}
        message = ('barrier: %s left the job early (its script ended) while %s waited at a barrier; '
                   'every worker must reach the same barriers' % (_workers(gone), _workers(w for w, _ in waiting)))
        return [(w, (request_id, False, message)) for w, request_id in waiting]

    def _answer_all_waiting(self):
        replies = []
        for store in self.stores.values():
            for k in store.keys.values():
                replies.extend(self._answer_waiting(k))
        return replies

    @staticmethod
    def _has_pending_push(k, worker):
        return worker in k.round or any(w == worker for w, _ in k.backlog)

    def _round_cannot_finish(self, k):
        return any(w in self.left and w not in k.round for w in range(self.num_workers))

    def _stuck_message(self, k):
        gone = sorted(w for w in self.left if w not in k.round)
        return ('key %r can never be updated: %s left the job early (its script ended) without pushing it, '
                'and a dist_sync round needs one push from every worker (%d of %d arrived). Give every worker '
                'the same number of batches (e.g. NDArrayIter(..., num_parts=kv.num_workers, part_index=kv.rank))'
                % (k.name, _workers(gone), len(k.round), self.num_workers))


def _sum_pushes(k, pushes):
    """A sync round's pushes added up in worker order: row_sparse pushes over the union of their
    rows, each row from zero (as the workers' own merge); with any dense push, densely."""
    if all(isinstance(p, _Rows) for p in pushes):
        rows = np.unique(np.concatenate([p.rows for p in pushes])).astype(INDEX_DTYPE)
        row_len = k.rows().shape[1]
        total = np.zeros((len(rows), row_len), dtype=k.value.dtype)
        for p in pushes:
            total[np.searchsorted(rows, p.rows)] += p.data.reshape(len(p.rows), row_len)
        return _Rows(rows, total)
    dense = [_dense_push(k, p) for p in pushes]
    merged = dense[0]                     # the round's own array: sum into it
    for push in dense[1:]:
        merged += push
    return merged


def _dense_push(k, push):
    """A push as a flat array of the part's size (row_sparse pushes spread out, zeros elsewhere)."""
    if not isinstance(push, _Rows):
        return push
    flat = np.zeros_like(k.value)
    lines = flat.reshape(k.rows().shape)
    lines[push.rows] = push.data.reshape(len(push.rows), lines.shape[1])
    return flat


def _workers(indices):
    """'worker 1 (rank 1)', 'workers 1 (rank 1) and 2 (rank 2)': a worker's rank is its index."""
    named = ['%d (rank %d)' % (w, w) for w in sorted(indices)]
    return 'worker%s %s' % ('s' if len(named) > 1 else '', ' and '.join(named))

