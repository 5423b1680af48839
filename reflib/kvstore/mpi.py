"""Who this process is in a distributed job, and how its messages travel: MPI through mpi4py.

A job is one ``mpiexec -n N`` launch: N processes, *ranks* 0 .. N-1, all
running the same script.  reflib gives them MXNet's roles from their rank::

    ranks 0 .. W-1      workers   (run the training script; kv.rank = MPI rank)
    ranks W .. W+S-1    servers   (hold the weights; never get past ``import reflib``)

``S`` comes from the environment variable ``DMLC_NUM_SERVER`` (as in MXNet;
``python -m reflib.launch -s S`` sets it), ``W = N - S``.  MXNet also has a
*scheduler* process that introduces the others to each other; under MPI the
process manager (``mpiexec``) already does that, so there is none.

What a server does is in ``server.py``; what a worker does in ``dist.py``.
This file only moves messages, with three rules that keep a job from hanging:

* **Waiting polls politely.**  A blocking MPI receive in MPICH spins a core at
  100% while it waits, and on a 2-core laptop a spinning server halves the
  workers' speed.  Every wait here tests for the message, then sleeps a little
  longer each time (up to ``_MAX_SLEEP``), so an idle process costs ~nothing.
* **Servers never block on a send.**  They answer with ``isend`` and move on;
  workers send with a blocking ``send`` to servers, who are always receiving.
  So no two processes can wait on each other's send.
* **An uncaught exception aborts the whole job** (``MPI_Abort``) after
  printing which rank failed.  Without that, the failed rank's interpreter
  would wait in ``MPI_Finalize`` while the others wait for its messages:
  a hang.  A killed rank is noticed by ``mpiexec`` itself, which stops the
  others; ``reflib.launch`` then says which rank it was.
"""

import atexit
import os
import sys
import time

from .base import KVStoreError
from .server import KVServer

__all__ = ['launched_by_mpi', 'cluster', 'Cluster', 'REQUEST', 'REPLY']

# message tags: a worker's request to a server, and a server's reply
REQUEST, REPLY = 11, 12

# the process manager sets one of these in every rank's environment (MPICH/hydra, Open MPI, PMIx)
_RANK_VARIABLES = ('PMI_RANK', 'OMPI_COMM_WORLD_RANK', 'PMIX_RANK')

# polling: the first _SPIN tests only yield the CPU, then sleeps double from _MIN_SLEEP to _MAX_SLEEP
_SPIN = 50
_MIN_SLEEP = 50e-6
_MAX_SLEEP = 2e-3

# reflib.launch sets this to a directory where each rank leaves "<pid>" -> "worker 1 (rank 1)"
LAUNCH_DIR_VARIABLE = 'REFLIB_LAUNCH_DIR'


def launched_by_mpi():
    """Whether ``mpiexec`` started this process (read from the environment, without starting MPI)."""
    return any(name in os.environ for name in _RANK_VARIABLES)


def poll(test):
    """Call ``test()`` until it returns something other than None, and return that.

    Between tests the process yields, then sleeps 50 us doubling to 2 ms: a
    wait that takes long costs at most one test every 2 ms.
    """
    tries, delay = 0, _MIN_SLEEP
    while True:
        result = test()
        if result is not None:
            return result
        tries += 1
        if tries < _SPIN:
            time.sleep(0)
        else:
            time.sleep(delay)
            delay = min(delay * 2, _MAX_SLEEP)


class Cluster:
    """This process's place in the MPI job: its role, and send/receive between workers and servers.

    Made once per process, by ``cluster()``.  ``comm`` is MPI's world
    communicator.  (A barrier is a request to server 0, see server.py: an MPI barrier
    would wait for ever for a worker that left.)
    """

    def __init__(self):
        try:
            import mpi4py
        except ImportError:
            raise KVStoreError('mpiexec started this process, but the mpi4py package is missing: '
                               '`pip install mpi4py mpich` (both are in requirements.txt)') from None
        mpi4py.rc.thread_level = 'single'     # reflib makes all MPI calls from the main thread
        from mpi4py import MPI
        self.MPI = MPI
        self.comm = MPI.COMM_WORLD
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.num_servers, self.num_workers = _role_counts(self.size)
        self.is_server = self.rank >= self.num_workers
        self.role = 'server' if self.is_server else 'worker'
        # a worker's index is its rank; a server's counts from 0 after the workers
        self.index = self.rank - self.num_workers if self.is_server else self.rank
        self._sends = []                      # isend requests not known to be complete yet
        self._record_pid()

    def describe(self, rank=None):
        """``'worker 1 (rank 1)'`` / ``'server 0 (rank 2)'`` for ``rank`` (default: this process)."""
        rank = self.rank if rank is None else rank
        if rank >= self.num_workers:
            return 'server %d (rank %d)' % (rank - self.num_workers, rank)
        return 'worker %d (rank %d)' % (rank, rank)

    def server_rank(self, index):
        """The MPI rank of server number ``index``: servers come after the workers, so it is
        ``num_workers + index``.
        """
        return self.num_workers + index

    # ------------------------------------------------------------ messages
    def send(self, rank, message):
        """A worker's request to ``rank``: blocking, which is safe because servers always receive."""
        self.comm.send(message, dest=rank, tag=REQUEST)

    def reply(self, rank, message):
        """A server's answer to worker ``rank``: never blocks (see the module documentation)."""
        self._sends.append(self.comm.isend(message, dest=rank, tag=REPLY))
        if len(self._sends) > 64:
            self._sends = [r for r in self._sends if not r.Test()]

    def receive(self, tag, source=None):
        """``(source rank, message)``: the next message with ``tag`` (from ``source``, or anyone)."""
        source = self.MPI.ANY_SOURCE if source is None else source
        status = self.MPI.Status()

        def arrived():
            message = self.comm.improbe(source=source, tag=tag, status=status)
            return None if message is None else (status.Get_source(), message.recv())
        return poll(arrived)

    def flush(self):
        """Wait until every reply this process sent has been delivered."""
        pending = self._sends
        poll(lambda: True if all(r.Test() for r in pending) else None)
        self._sends = []

    def abort(self, code=1):
        """Stop every process of the job.  Never returns, and runs no atexit handler."""
        sys.stdout.flush()
        sys.stderr.flush()
        self.comm.Abort(code)
        # MPICH's MPI_Abort only asks mpiexec to stop the job, and returns: a normal exit now
        # would run the atexit handlers, whose 'leave' would tell the servers this worker finished
        os._exit(code)

    def _record_pid(self):
        self.note(self.describe())

    def note(self, line):
        """Tell reflib.launch (if it started the job) something about this process: its role, how it ended.

        The launcher cannot ask: when one process dies, mpiexec kills the
        others at once.  So each leaves a line in ``REFLIB_LAUNCH_DIR/<pid>``:
        its role first, then ``finished`` or ``failed: <why>``.
        """
        directory = os.environ.get(LAUNCH_DIR_VARIABLE)
        if directory and os.path.isdir(directory):
            with open(os.path.join(directory, str(os.getpid())), 'a') as f:
                f.write(line.replace('\n', ' ') + '\n')


def _role_counts(size):
    """``(num_servers, num_workers)`` for a job of ``size`` ranks, from DMLC_NUM_SERVER / DMLC_NUM_WORKER."""
    servers = _env_int('DMLC_NUM_SERVER')
    workers = _env_int('DMLC_NUM_WORKER')
    if servers is None:
        raise KVStoreError(
            'this process is one of %d started by mpiexec, but DMLC_NUM_SERVER does not say how many of them '
            'are parameter servers. Start the job with `python -m reflib.launch -n WORKERS -s SERVERS python '
            'script.py`, or set it yourself: `DMLC_NUM_SERVER=1 mpiexec -n %d python script.py` makes the last '
            'rank a server and the others workers' % (size, size + 1))
    if not 1 <= servers < size:
        raise KVStoreError('DMLC_NUM_SERVER=%d does not fit a job of %d processes: it needs at least one server '
                           'and at least one worker (mpiexec -n WORKERS+SERVERS)' % (servers, size))
    if workers is not None and workers + servers != size:
        raise KVStoreError('DMLC_NUM_WORKER=%d plus DMLC_NUM_SERVER=%d is %d processes, but mpiexec started %d'
                           % (workers, servers, workers + servers, size))
    return servers, size - servers


def _env_int(name):
    text = os.environ.get(name)
    if text is None or text == '':
        return None
    try:
        return int(text)
    except ValueError:
        raise KVStoreError('%s=%r is not a whole number' % (name, text)) from None


# ---------------------------------------------------------------- the process's one cluster
_CLUSTER = None


def cluster():
    """This process's Cluster (MPI starts on the first call); None when mpiexec did not start it."""
    global _CLUSTER
    if _CLUSTER is None and launched_by_mpi():
        _CLUSTER = Cluster()
        _install_abort_on_uncaught(_CLUSTER)
    return _CLUSTER


def _install_abort_on_uncaught(the_cluster):
    previous = sys.excepthook

    def abort_job(kind, value, traceback):
        previous(kind, value, traceback)
        the_cluster.note('failed: %s: %s' % (kind.__name__, value))
        sys.stderr.write('[reflib] %s failed with an uncaught %s; aborting every process of the job\n'
                         % (the_cluster.describe(), kind.__name__))
        the_cluster.abort(1)
    sys.excepthook = abort_job


def start_if_distributed():
    """Called by ``import reflib``: in an MPI job with servers, a server rank serves and then exits.

    This is MXNet's way too: the same script runs on every process, and a
    server's ``import mxnet`` never returns.  A worker returns at once and,
    when its script ends, tells the servers it is leaving.
    """
    if not (launched_by_mpi() and os.environ.get('DMLC_NUM_SERVER')):
        return
    the_cluster = cluster()
    if the_cluster.is_server:
        serve(the_cluster)
        the_cluster.note('finished')
        raise SystemExit(0)
    atexit.register(_leave, the_cluster)


def serve(the_cluster):
    """A server rank's whole life: answer requests until every worker has left."""
    # imported here, not at the top: this module is imported by ``import reflib`` before the
    # optimizers and arrays a server needs (server.py imports them) exist
    server = KVServer(the_cluster.index, the_cluster.num_workers)
    while not server.finished:
        source, request = the_cluster.receive(REQUEST)
        for worker, reply in server.handle(source, request):
            the_cluster.reply(worker, reply)
    the_cluster.flush()


def _leave(the_cluster):
    """A worker's last words to every server: it will push nothing more."""
    for index in range(the_cluster.num_servers):
        the_cluster.send(the_cluster.server_rank(index), ('leave', None, None, None, None))
    the_cluster.note('finished')
