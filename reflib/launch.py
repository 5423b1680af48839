"""Start a distributed job: ``python -m reflib.launch -n WORKERS -s SERVERS python train.py ...``.

MXNet's ``tools/launch.py`` starts a scheduler, the servers and the workers
and tells each its role through ``DMLC_*`` variables.  reflib runs on MPI, so
the launcher only has to build one ``mpiexec`` command::

    mpiexec -n WORKERS+SERVERS -genv DMLC_NUM_WORKER W -genv DMLC_NUM_SERVER S python train.py ...

Every process runs the same command; ranks 0..W-1 are the workers and the
last S ranks the servers (``reflib/kvstore/mpi.py``).  You can type that
command yourself, or the short form ``DMLC_NUM_SERVER=S mpiexec -n W+S python
train.py`` (MPICH passes the environment on to every rank).

What the launcher adds to plain mpiexec: **it says which process brought a
job down.**  When one process dies, mpiexec kills all the others at once
(SIGKILL: they cannot say anything), and its own report names a process id,
not always the right one.  So the launcher starts each rank through a small
*guard* (``python reflib/rank_guard.py COMMAND``): the guard runs the
command as its child and, when the child ends badly, writes down who it was
and how it ended (``killed by signal 9``, ``exited with code 1``) *before*
exiting itself.  mpiexec only reacts to the guard's exit, so the first death
is always on record before anything else is killed.  A Python exception is
recorded by the rank itself (``failed: RuntimeError: ...``, see
``reflib/kvstore/mpi.py``).  ``--timeout`` stops a job that runs too long: by default
after a day (``DEFAULT_TIMEOUT``), so that a job hung in a way nothing else catches (a
worker waiting for ever on something outside reflib) ends, with a message that says so;
``--timeout 0`` waits for ever.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from .kvstore.mpi import LAUNCH_DIR_VARIABLE

__all__ = ['launch', 'mpiexec_command', 'find_mpiexec', 'main', 'DEFAULT_TIMEOUT']

# seconds a job may run before the launcher stops it (0 or None: no limit)
DEFAULT_TIMEOUT = 24 * 3600

_DEAD_PID = re.compile(r'PID (\d+) RUNNING AT')
GUARD = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'rank_guard.py')


def find_mpiexec():
    """The ``mpiexec`` next to this Python (the mpich wheel puts it there), else the one on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), 'mpiexec')
    found = here if os.access(here, os.X_OK) else shutil.which('mpiexec')
    if found is None:
        raise SystemExit('reflib.launch: no mpiexec found; `pip install mpi4py mpich` gives one')
    return found


def mpiexec_command(command, num_workers, num_servers, env=None, hostfile=None, mpiexec=None):
    """The mpiexec command line that runs ``command`` as ``num_workers`` workers and ``num_servers`` servers."""
    if num_workers < 1 or num_servers < 1:
        raise ValueError('a job needs at least one worker and one server, got -n %d -s %d'
                         % (num_workers, num_servers))
    mpiexec = mpiexec or find_mpiexec()
    settings = dict(env or {}, DMLC_NUM_WORKER=str(num_workers), DMLC_NUM_SERVER=str(num_servers))
    line = [mpiexec, '-n', str(num_workers + num_servers)]
    if _is_open_mpi(mpiexec):
        for name, value in settings.items():
            line += ['-x', '%s=%s' % (name, value)]
        if hostfile:
            line += ['--hostfile', hostfile]
    else:
        for name, value in settings.items():
            line += ['-genv', name, str(value)]
        if hostfile:
            line += ['-f', hostfile]
    # the guard runs by path: `python -m reflib...` would import reflib, and so start MPI, in the guard
    return line + [sys.executable, GUARD] + list(command)


def _is_open_mpi(mpiexec):
    try:
        text = subprocess.run([mpiexec, '--version'], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return 'Open MPI' in text or 'OpenRTE' in text


class Result:
    """What a launched job did: ``returncode``, and ``output`` when it was captured."""

    def __init__(self, returncode, output, culprit):
        self.returncode = returncode
        self.output = output
        self.culprit = culprit      # 'worker 1 (rank 1)' when mpiexec reported a process that died

    def __repr__(self):
        return '<launch.Result returncode=%d%s>' % (self.returncode,
                                                     ', %s died' % self.culprit if self.culprit else '')


def launch(command, num_workers, num_servers=1, env=None, hostfile=None, timeout=DEFAULT_TIMEOUT,
           capture=False, mpiexec=None):
    """Run ``command`` (a list) as a job of ``num_workers`` workers and ``num_servers`` servers.

    The processes' output goes to this process's stdout/stderr, or, with
    ``capture``, into ``Result.output`` (stdout and stderr merged, in order),
    which is what a notebook cell wants.  A job still running after
    ``timeout`` seconds is stopped (exit code 124; 0 or None: no limit).
    """
    timeout = timeout or None
    with tempfile.TemporaryDirectory(prefix='reflib-launch-') as pid_dir:
        line = mpiexec_command(command, num_workers, num_servers, env=dict(env or {}, **{LAUNCH_DIR_VARIABLE: pid_dir}),
                               hostfile=hostfile, mpiexec=mpiexec)
        process = subprocess.Popen(line, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT if capture else subprocess.PIPE,
                                   start_new_session=True)
        captured, dead = [], []

        def copy(stream, sink):
            for raw in iter(stream.readline, b''):
                text = raw.decode('utf-8', 'replace')
                match = _DEAD_PID.search(text)
                if match:
                    dead.append(match.group(1))
                if capture:
                    captured.append(text)
                else:
                    sink.write(text)
                    sink.flush()
        copiers = [threading.Thread(target=copy, args=(process.stdout, sys.stdout), daemon=True)]
        if not capture:
            copiers.append(threading.Thread(target=copy, args=(process.stderr, sys.stderr), daemon=True))
        for thread in copiers:
            thread.start()
        returncode = _wait(process, timeout)
        # the pipes close once mpiexec and every process it started are gone; a busy machine
        # may take a while to deliver the last lines (a stray grandchild holding a pipe open
        # is the only reason to stop waiting)
        for thread in copiers:
            thread.join(timeout=60)
        culprit = _culprit(pid_dir, dead) if returncode != 0 else None
        note = _summary(returncode, culprit, timeout)
        if note:
            if capture:
                if captured and not captured[-1].endswith('\n'):
                    captured.append('\n')      # a process killed mid-line: the note starts its own line
                captured.append(note + '\n')
            else:
                sys.stderr.write(note + '\n')
        return Result(returncode, ''.join(captured) if capture else None, culprit)


def _wait(process, timeout):
    """mpiexec's exit code; after ``timeout`` seconds the whole job is killed and 124 returned."""
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        while process.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                _kill_group(process, signal.SIGTERM)
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    _kill_group(process, signal.SIGKILL)
                    process.wait()
                return 124
            time.sleep(0.02)
    except KeyboardInterrupt:
        _kill_group(process, signal.SIGINT)
        process.wait()
        raise
    return process.returncode


def _kill_group(process, sig):
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass


def _notes(pid_dir):
    """pid -> the lines that process wrote (its role first)."""
    notes = {}
    for name in os.listdir(pid_dir):
        try:
            with open(os.path.join(pid_dir, name)) as f:
                notes[name] = f.read().splitlines()
        except OSError:
            pass
    return notes


def _culprit(pid_dir, reported):
    """'worker 1 (rank 1) failed: ...' / '... was killed by signal 9': who brought the job down, or None."""
    notes = _notes(pid_dir)
    for kind in ('failed: ', 'killed by ', 'exited with '):
        for pid, lines in sorted(notes.items()):
            said = [line for line in lines[1:] if line.startswith(kind)]
            if said:
                return '%s %s (pid %s)' % (lines[0], said[0], pid)
    # a process that ended normally while the others still ran: it left the job early
    for pid in reported + sorted(notes):
        lines = notes.get(pid, [])
        if len(lines) > 1 and lines[-1] == 'finished' and not lines[0].startswith('server'):
            return '%s left the job early: its script ended (exit code 0) while the others still ran (pid %s)' \
                % (lines[0], pid)
    if reported:
        return 'the process with pid %s (mpiexec reported it)' % reported[0]
    return None


def _summary(returncode, culprit, timeout):
    if returncode == 0:
        return None
    if returncode == 124 and timeout is not None:
        return ('reflib.launch: the job ran longer than %g s (--timeout%s) and was stopped: a process still '
                'waited or computed; raise --timeout for longer jobs, 0 for none'
                % (timeout, ', the default' if timeout == DEFAULT_TIMEOUT else ''))
    if culprit is None:
        return 'reflib.launch: the job failed (mpiexec exit code %d)' % returncode
    return ('reflib.launch: %s; mpiexec then stopped every other process of the job (exit code %d)'
            % (culprit, returncode))


def main(argv=None):
    """The command line of ``python -m reflib.launch``: parse ``argv`` (``sys.argv[1:]`` when
    None), start the job and return its exit code.

    ``-n`` (workers) and the command are required; ``-s`` defaults to as many servers as
    workers; ``--env NAME=VALUE`` (repeatable) sets a variable for every process;
    ``--timeout`` stops the job after that many seconds; ``--dry-run`` prints the
    ``mpiexec`` command instead of running it and returns 0.  Bad arguments end the
    program through argparse (SystemExit).
    """
    parser = argparse.ArgumentParser(
        prog='python -m reflib.launch',
        description='Run a training script as a distributed reflib job: WORKERS worker processes and '
                    'SERVERS parameter servers, started by mpiexec.')
    parser.add_argument('-n', '--num-workers', type=int, default=None, help='number of worker processes')
    parser.add_argument('-s', '--num-servers', type=int, default=None,
                        help='number of server processes (default: as many as workers, as in MXNet)')
    parser.add_argument('-H', '--hostfile', default=None, help="mpiexec's host file, for several machines")
    parser.add_argument('--env', action='append', default=[], metavar='NAME=VALUE',
                        help='an environment variable for every process (repeatable)')
    parser.add_argument('--timeout', type=float, default=DEFAULT_TIMEOUT,
                        help='stop the job after this many seconds (default: a day; 0: never)')
    parser.add_argument('--dry-run', action='store_true', help='print the mpiexec command and exit')
    parser.add_argument('command', nargs=argparse.REMAINDER, help='the command every process runs')
    args = parser.parse_args(argv)
    if not args.command or args.num_workers is None:
        parser.error('give the number of workers (-n) and the command to run, e.g. -n 2 python train.py')
    env = {}
    for item in args.env:
        if '=' not in item:
            parser.error('--env expects NAME=VALUE, got %r' % item)
        name, value = item.split('=', 1)
        env[name] = value
    servers = args.num_workers if args.num_servers is None else args.num_servers
    if args.dry_run:
        print(' '.join(mpiexec_command(args.command, args.num_workers, servers, env, args.hostfile)))
        return 0
    return launch(args.command, args.num_workers, servers, env=env, hostfile=args.hostfile,
                  timeout=args.timeout).returncode


if __name__ == '__main__':
    sys.exit(main())
