"""Small helpers with no better home: NumPy shape semantics' switches, and writing a file
so that a crash never damages it."""

import contextlib
import functools
import glob
import inspect
import os
import secrets
import threading
import time

from .base import MXNetError, py_str  # noqa: F401  (mx.util.py_str, as in MXNet)
from .shapes import is_np_shape, set_np_shape

__all__ = ['getenv', 'setenv', 'atomic_write', 'atomic_write_bytes', 'atomic_write_text', 'write_temp', 'sweep_temps',
           'fsync_directory', 'is_np_shape', 'set_np_shape', 'np_shape', 'use_np_shape', 'is_np_array',
           'set_np', 'reset_np', 'use_np', 'use_np_array', 'np_array']


class np_shape:
    """``with mx.np_shape():`` runs a block with NumPy shape semantics (``active=False``:
    without), restoring the previous state after it, also when the block raises.

    Inside, ``()`` is a scalar's shape, a 0 dimension a real size of zero (``mx.nd.ones((0,
    3))``), -1 an unknown dimension and None an unknown shape in ``infer_shape_partial``;
    ``nd.save`` writes MXNet's numpy-shape records and ``tojson`` marks the graph.
    """

    def __init__(self, active=True):
        self._active = active

    def __enter__(self):
        self._previous = set_np_shape(self._active)
        return self

    def __exit__(self, *exc):
        set_np_shape(self._previous)


def _scoped(func, scope, name):
    """``func`` (a function, or every method and property of a class) run inside ``scope()``.

    A class gets its inherited methods wrapped too (set on the class itself, the base classes
    untouched), as MXNet's decorators do: a ``@use_np`` HybridBlock runs ``__call__`` and
    ``forward`` under the switch as well as its own ``hybrid_forward``."""
    if inspect.isclass(func):
        for attr in dir(func):
            member = inspect.getattr_static(func, attr)
            if isinstance(member, property):
                setattr(func, attr, property(_scoped(member.fget, scope, name) if member.fget else None,
                                             member.fset, member.fdel, member.__doc__))
            elif isinstance(member, (staticmethod, classmethod)):
                setattr(func, attr, type(member)(_scoped(member.__func__, scope, name)))
            elif inspect.isfunction(member):
                setattr(func, attr, _scoped(member, scope, name))
        return func
    if not callable(func):
        raise TypeError('%s decorates functions and classes, got %s' % (name, type(func).__name__))

    @functools.wraps(func)
    def run_scoped(*args, **kwargs):
        with scope():
            return func(*args, **kwargs)
    return run_scoped


def use_np_shape(func):
    """Decorator: ``func`` (or each method and property of a class) runs with NumPy shape
    semantics on, whatever the caller's state; its name and docstring are kept."""
    return _scoped(func, np_shape, 'use_np_shape')


# MXNet's second switch, NumPy *array* semantics.  Per thread, as in MXNet: a thread starts
# with it off, whatever the thread that started it has turned on.  The state is the scope
# in force, kept in a thread-local on the scope class (np_array, which MXNet calls
# _NumpyArrayScope: MXNet's own thread tests reach for it by that name).
class _ScopeInForce(threading.local):
    """Per thread, the scope in force; None in a thread that never entered one.  (A class
    default, not getattr's: a missing thread-local attribute costs an exception each time,
    and every Gluon block call asks.)"""
    value = None


class np_array:
    """``with mx.np_array():`` runs a block with NumPy array semantics on in this thread
    (``active=False``: off), restoring the previous state after it, also when it raises.
    Shape semantics are left as they are (``use_np`` turns on both)."""

    _current = _ScopeInForce()          # .value: the scope in force in this thread

    def __init__(self, active=True):
        self._is_np_array = bool(active)
        self._old_scope = None

    def __enter__(self):
        self._old_scope = getattr(np_array._current, 'value', None)
        np_array._current.value = self
        return self

    def __exit__(self, *exc):
        np_array._current.value = self._old_scope


_NumpyArrayScope = np_array


def is_np_array():
    """Whether NumPy array semantics are on in this thread (off by default, and off in every
    new thread, as in MXNet).  What the switch changes in reflib: see ``set_np``."""
    # (getattr: MXNet's thread tests replace _current with a scope object)
    scope = getattr(np_array._current, 'value', None)
    return scope is not None and scope._is_np_array


def _set_np_array(active):
    """Turn NumPy array semantics on or off for this thread; returns the previous state."""
    previous = is_np_array()
    np_array._current.value = np_array(active)
    return previous


def set_np(shape=True, array=True):
    """Turn MXNet's two NumPy switches on (or off) for this thread: shape semantics
    (``shape``, see ``np_shape``) and array semantics (``array``).  Array semantics without
    shape semantics is refused with ValueError, as in MXNet.

    What array semantics change in reflib (a subset of MXNet's): Gluon Parameters made
    while they are on hold ``mx.np.ndarray`` values and gradients; a HybridBlock hands back
    ``mx.np.ndarray`` outputs, imperative or hybridized, and its ``hybrid_forward`` gets an
    ``F`` whose functions do too (``F.np`` is ``mx.np``); the DataLoader's default batchify,
    ``gluon.utils.split_data`` and ``split_and_load`` give ``mx.np.ndarray`` batches.  The
    ``mx.np`` functions work with the switch on or off.  ``F.npx`` traces too (``mx.sym.npx``).
    Not covered: MXNet's NumPy symbols (``mx.sym.np``), so a block whose ``hybrid_forward``
    calls ``F.np`` runs imperatively but cannot be hybridized; and the legacy ``mx.nd``
    functions called directly keep giving legacy NDArrays.
    """
    if array and not shape:
        raise ValueError('NumPy array semantics need NumPy shape semantics: call set_np(shape=True, '
                         'array=True), or set_np(shape=True, array=False) for shape semantics alone')
    set_np_shape(shape)
    _set_np_array(array)


def reset_np():
    """Turn both NumPy switches (shape and array semantics) off in this thread."""
    set_np(shape=False, array=False)


def use_np_array(func):
    """Decorator: ``func`` (or each method and property of a class) runs with NumPy array
    semantics on, whatever the caller's state; its name and docstring are kept."""
    return _scoped(func, np_array, 'use_np_array')


def use_np(func):
    """Decorator: ``func`` (or each method and property of a class) runs with both NumPy
    switches on, shape and array semantics (``use_np_shape`` and ``use_np_array``)."""
    return use_np_array(use_np_shape(func))


def getenv(name):
    """The value of environment variable ``name``, or None when it is unset.

    MXNet reads its C runtime's environment here; reflib has no C runtime, so this is the
    process environment Python sees (``os.environ``).
    """
    return os.environ.get(name)


def setenv(name, value):
    """Set environment variable ``name`` to ``value`` (None unsets it).  Unlike MXNet's,
    which changes only the C runtime's copy, the change shows in ``os.environ`` too."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


# A temporary file is ".NAME.PID-TOKEN.tmp" beside NAME: hidden, on the same file system
# (so the final rename is atomic), and naming the process that writes it, so that a later
# save can tell an abandoned one (its process is gone) from one being written right now.
_TEMP = '.%s.%d-%s.tmp'
# temporary files of older reflib versions (".NAME.RANDOM.tmp", no process id) are swept
# once they are this old
_LEGACY_TEMP_AGE = 600


def _target(fname):
    """The real path a save of ``fname`` replaces: through a symlink (as open() would), in a
    directory that must exist."""
    fname = os.fspath(fname)
    target = os.path.realpath(fname)
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        raise MXNetError('cannot save %r: the directory %r does not exist' % (fname, os.path.dirname(fname)
                                                                            or directory))
    return target


def _new_file_mode(target):
    """Permission bits for the saved file: the old file's, or what a plain open() would give
    (0666 less the umask, 0644 usually, as MXNet's files have)."""
    try:
        return os.stat(target).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _alive(pid):
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:      # someone else's process: alive
        return True
    return True


def _abandoned(path, name):
    """Whether the temporary file ``path`` of target ``name`` belongs to no running save."""
    pid, _, token = os.path.basename(path)[len(name) + 2:-len('.tmp')].partition('-')
    if token:                                           # ".NAME.PID-TOKEN.tmp"
        return pid.isdigit() and not _alive(int(pid))
    try:                                                # an older reflib's ".NAME.RANDOM.tmp"
        return time.time() - os.stat(path).st_mtime > _LEGACY_TEMP_AGE
    except OSError:
        return False


def sweep_temps(target):
    """Remove the temporary files that earlier, killed saves of ``target`` left behind."""
    directory, name = os.path.split(target)
    for path in glob.glob(os.path.join(glob.escape(directory), '.%s.*.tmp' % glob.escape(name))):
        if _abandoned(path, name):
            try:
                os.unlink(path)
            except OSError:
                pass


def fsync_directory(directory):
    """Make a rename in ``directory`` durable (where the platform allows opening a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def _removed_on_failure(tmp, fname):
    """If the block fails, remove ``tmp``; an OSError becomes an MXNetError naming ``fname``."""
    try:
        yield
    except BaseException as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(err, OSError):
            raise MXNetError('cannot save %r: %s' % (os.fspath(fname), err)) from err
        raise


def write_temp(fname, write):
    """Write a temporary file beside ``fname`` with ``write(stream)``, flushed to disk and with
    the final file's permissions; return ``(temp path, real target path)``.  On any failure
    the temporary file is removed and an OSError becomes an MXNetError naming ``fname``."""
    target = _target(fname)
    sweep_temps(target)
    directory, name = os.path.split(target)
    tmp = os.path.join(directory, _TEMP % (name, os.getpid(), secrets.token_hex(4)))
    with _removed_on_failure(tmp, fname):
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, 'wb') as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(tmp, _new_file_mode(target))
    return tmp, target


def atomic_write(fname, write):
    """Write ``fname`` with ``write(stream)`` so that a crash at any moment leaves either the
    old file or the new one, whole, and no temporary file for long.

    The bytes go to a temporary file in the same directory, are flushed to disk, get the
    final file's permissions, and only then are renamed over the target: rename is atomic.
    A symlink is written through, not replaced.  A temporary file left by a killed save is
    removed by the next save of the same file.  A target that exists but is no regular file
    (``/dev/null``, a named pipe) is written into as ``open()`` would: renaming over it would
    replace the device itself.
    """
    target = _target(fname)
    if os.path.exists(target) and not os.path.isfile(target):
        try:
            with open(target, 'wb') as stream:
                write(stream)
        except OSError as err:
            raise MXNetError('cannot save %r: %s' % (os.fspath(fname), err)) from err
        return
    tmp, target = write_temp(fname, write)
    with _removed_on_failure(tmp, fname):
        os.replace(tmp, target)
    fsync_directory(os.path.dirname(target))


def atomic_write_bytes(fname, data):
    """Write ``data`` (bytes) to ``fname`` atomically: a crash leaves the old file or the new
    one, whole (see ``atomic_write``).
    """
    atomic_write(fname, lambda stream: stream.write(data))


def atomic_write_text(fname, text):
    """Write the str ``text`` to ``fname`` as UTF-8, atomically (``atomic_write_bytes``)."""
    atomic_write_bytes(fname, text.encode('utf-8'))
