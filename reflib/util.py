"""Small helpers with no better home."""

import os
import tempfile

__all__ = ['atomic_write_bytes', 'atomic_write_text']


def atomic_write_bytes(fname, data):
    """Write ``data`` to ``fname`` so that a crash leaves either the old file or the new one.

    The bytes go to a temporary file in the same directory (same file system),
    are flushed to disk, and only then renamed over ``fname``: rename is atomic.
    """
    directory = os.path.dirname(os.path.abspath(fname))
    fd, tmp = tempfile.mkstemp(prefix='.' + os.path.basename(fname) + '.', suffix='.tmp', dir=directory)
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, fname)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def atomic_write_text(fname, text):
    atomic_write_bytes(fname, text.encode('utf-8'))
