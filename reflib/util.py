"""Small helpers with no better home: writing a file so that a crash never damages it."""

import contextlib
import glob
import os
import secrets
import time

from .base import MXNetError, py_str  # noqa: F401  (mx.util.py_str, as in MXNet)

__all__ = ['getenv', 'setenv', 'atomic_write', 'atomic_write_bytes', 'atomic_write_text', 'write_temp', 'sweep_temps',
           'fsync_directory']

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
    removed by the next save of the same file.
    """
    tmp, target = write_temp(fname, write)
    with _removed_on_failure(tmp, fname):
        os.replace(tmp, target)
    fsync_directory(os.path.dirname(target))


def atomic_write_bytes(fname, data):
    atomic_write(fname, lambda stream: stream.write(data))


def atomic_write_text(fname, text):
    atomic_write_bytes(fname, text.encode('utf-8'))
