"""Where an operator's failure surfaces: MXNet's asynchronous engine, as reflib keeps its rules.

MXNet's engine queues each operator and returns at once; the computation runs later, on a
worker thread.  So when a computation fails on its values (``take`` of an index out of
range under ``mode='raise'``, a normal draw with a negative scale: a ``ComputeError``),
the call that queued it has long returned.  MXNet records the failure on the memory the
operator was to write; every operator that reads that memory fails the same way without
running; and the error is raised at the next wait on it: ``asnumpy()``, ``asscalar()``,
``wait_to_read()``, or ``mx.nd.waitall()`` for every pending one.  It is raised once,
wherever it is first waited for: after it, every result it was passed on to reads normally
again (with whatever its memory holds).

reflib computes eagerly, but keeps these rules, so that an MXNet script's error appears on
the same line here: an operator that fails leaves outputs of the right shape marked failed
(``fail``), readers of a failed array pass the mark on (``failure_of``), and a wait raises
it (``rethrow``).  Errors found before anything runs (a bad parameter, shapes that do not
fit) are raised at the call, in MXNet and here.

A failure is recorded against the *root* buffer of an array (numpy's ``base`` chain), so
that the views of one result (``a, b = failed_array``) share it, as MXNet's views share
one engine variable.  With nothing failed, the checks cost one truth test of a dict.
"""

import threading
import traceback
import weakref

__all__ = ['fail', 'failure_of', 'rethrow', 'rethrow_all', 'pending', 'set_bulk_size', 'bulk']

# id(root buffer) -> (weak reference to it, the error); an entry goes when its buffer does
_failed = {}
# every failure not yet raised, whether or not its arrays are still alive: MXNet's waitall
# raises the failure of a result nobody kept, too
_unraised = []


def _root(buf):
    while getattr(buf, 'base', None) is not None:
        buf = buf.base
    return buf


def fail(buffers, error):
    """Mark ``buffers`` (numpy/cupy arrays an operator was to write) as failed with ``error``."""
    if error.__traceback__ is not None:
        # the traceback's frames hold the failed buffers, which would then never be freed and
        # their failure never forgotten (MXNet forgets a failure with its arrays): the error
        # keeps where it happened as text instead
        where = ''.join(traceback.format_tb(error.__traceback__)[-2:]).rstrip()
        if not any(note.startswith('(computed at:') for note in getattr(error, '__notes__', ())):
            error.add_note('(computed at:\n%s)' % where)      # (once: a failure passed on is raised again)
        error.__traceback__ = None
    if not any(e is error for e in _unraised):
        _unraised.append(error)
    for buf in buffers:
        root = _root(buf)
        key = id(root)
        try:
            ref = weakref.ref(root, lambda _, key=key: _failed.pop(key, None))
        except TypeError:           # a buffer that cannot be watched: held, so its id stays its own
            ref = root
        _failed[key] = (ref, error)


def failure_of(buffers):
    """The error recorded on any of ``buffers``, or None (the common case, at once)."""
    if not _failed:
        return None
    for buf in buffers:
        entry = _failed.get(id(_root(buf)))
        if entry is not None:
            return entry[1]
    return None


def rethrow(buf):
    """A wait on ``buf``: raise its failure.  One failure is raised once, wherever it is first
    waited for: the results it was passed on to read normally afterwards, as in MXNet, whose
    failed results share one exception that the first wait clears."""
    if not _failed:
        return
    entry = _failed.pop(id(_root(buf)), None)
    if entry is not None:
        error = entry[1]
        for key in [k for k, (_, e) in _failed.items() if e is error]:
            del _failed[key]
        _unraised[:] = [e for e in _unraised if e is not error]
        raise error


def rethrow_all():
    """``mx.nd.waitall()``: raise the first pending failure and forget them all."""
    if not _unraised:
        return
    first = _unraised[0]
    _failed.clear()
    del _unraised[:]
    raise first


def pending():
    """How many failures nobody has waited on yet."""
    return len(_unraised)


# ---------------------------------------------------------------------- bulk execution
# MXNet's engine can bundle up to ``size`` queued imperative operators into one task, to
# save the per-task overhead of its queue; results are the same either way.  reflib has no
# queue (each operator runs when called), so there is nothing to bundle: the size is kept
# per thread, as MXNet keeps it, and given back, so that code which sets and restores it
# runs unchanged.
_bulk = threading.local()


def set_bulk_size(size):
    """Set how many operators the engine may bundle into one task; returns the previous size."""
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise ValueError('set_bulk_size: size must be a whole number >= 0, got %r' % (size,))
    previous = getattr(_bulk, 'size', 0)
    _bulk.size = size
    return previous


class bulk:
    """``with mx.engine.bulk(size):`` a block with that bulk size, the previous one restored after."""

    def __init__(self, size):
        self._size = size

    def __enter__(self):
        self._previous = set_bulk_size(self._size)
        return self

    def __exit__(self, *exc):
        set_bulk_size(self._previous)
