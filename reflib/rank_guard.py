"""The guard that reflib.launch puts around each rank: ``python rank_guard.py COMMAND...``.

mpiexec starts the guard; the guard runs COMMAND (the real rank) as its child.
When the child ends badly, the guard writes who it was and how it ended into
``REFLIB_LAUNCH_DIR/<child pid>`` and only then ends the same way.  mpiexec
reacts to the guard's end, so the first death is on record before mpiexec
kills the others; reflib.launch reads the record and names the culprit.

This file runs by path and imports nothing from reflib: importing reflib in
an MPI job makes a process an MPI rank, and the guard must not be one.
"""

import ctypes
import os
import signal
import subprocess
import sys


def main(command):
    """Run ``command`` (a list) as a child process and return its exit code.

    When the child fails, the guard records which rank it was and how it ended (exit code
    or signal) under ``REFLIB_LAUNCH_DIR``; a child killed by a signal makes the guard kill
    itself with the same signal.  SIGINT and SIGTERM sent to the guard are passed on.
    """
    # the child is the MPI rank: it needs the guard's connection to the process manager
    pmi_fds = tuple(int(os.environ[name]) for name in ('PMI_FD',) if os.environ.get(name, '').isdigit())
    child = subprocess.Popen(command, pass_fds=pmi_fds, preexec_fn=_die_with_parent)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda number, frame: child.send_signal(number))
    code = child.wait()
    if code == 0:
        return 0
    how = ('killed by signal %d (%s)' % (-code, signal.Signals(-code).name) if code < 0
           else 'exited with code %d' % code)
    _note(child.pid, how)
    if code < 0:                       # end as the child did, so mpiexec reports the same signal
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


def _die_with_parent():
    """In the child, before exec: die with SIGKILL when the guard dies (mpiexec kills guards, not ranks)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, 9)     # PR_SET_PDEATHSIG = 1, SIGKILL = 9 (Linux)
    except (OSError, AttributeError):
        pass


def _note(pid, how):
    """Add ``how`` to the rank's note (the rank wrote its role there; written here if it never got so far)."""
    directory = os.environ.get('REFLIB_LAUNCH_DIR')
    if not directory or not os.path.isdir(directory):
        return
    path = os.path.join(directory, str(pid))
    lines = [] if os.path.exists(path) else [_role_from_environment()]
    with open(path, 'a') as f:
        f.write('\n'.join(lines + [how]) + '\n')


def _role_from_environment():
    rank = int(os.environ.get('PMI_RANK', os.environ.get('OMPI_COMM_WORLD_RANK', '-1')))
    workers = int(os.environ.get('DMLC_NUM_WORKER', '0'))
    if rank < 0:
        return 'a process'
    if rank >= workers:
        return 'server %d (rank %d)' % (rank - workers, rank)
    return 'worker %d (rank %d)' % (rank, rank)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
