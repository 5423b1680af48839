"""How many threads BLAS may use, given what the rest of the machine is doing.

numpy hands every matrix product to its BLAS (OpenBLAS in numpy's wheels), which cuts the
product into one piece per thread and waits for the last piece.  When another process keeps
one of the cores busy, the BLAS thread that shares that core runs only part of the time, and
every product waits for it.  Measured on a 2-core machine next to one busy process, LeNet
trained at 1,898 samples/s with 2 BLAS threads and at 4,148 with 1 (MXNet, whose OpenMP
kernels share the cores more gracefully, lost little).

So the executor asks a :class:`ThreadGovernor`, at most twice a second, how many cores
*other* processes used lately: the CPU time ``/proc/stat`` counts as busy, minus this
process's own.  BLAS then gets the cores left over, rounded, at least one, and never more
than it had at the start (``OMP_NUM_THREADS``/``OPENBLAS_NUM_THREADS`` still set the most).
Where there is no ``/proc/stat`` (not Linux) or no threadpoolctl, nothing changes.

It is **off unless asked for** (``REFLIB_ADAPTIVE_THREADS=1``).  OpenBLAS splits some
products differently for one thread and for two (a 640x1002 by 1002x64 product differs
in its last bits), so a governor that follows the machine's load makes the same seed give
different parameters on a busy machine and an idle one.  A reference implementation owes
its readers the same bits for the same seed and data, whatever else runs; speed under
load is the opt-in.
"""

import os
import time

__all__ = ['ThreadGovernor', 'threads_for', 'governor']

INTERVAL = 0.5     # seconds between two looks at /proc/stat


def threads_for(cpus, others_busy, most):
    """BLAS threads when other processes keep ``others_busy`` cores busy (a float)."""
    free = cpus - others_busy
    return max(1, min(most, int(free + 0.5)))


def _busy_seconds(path='/proc/stat'):
    """CPU seconds the whole machine has spent busy since boot (every process, steal included)."""
    with open(path) as f:
        fields = f.readline().split()
    ticks = [int(v) for v in fields[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)         # idle + iowait
    total = sum(ticks[:8])                                         # guest time is inside user
    return (total - idle) / os.sysconf('SC_CLK_TCK')


def _own_cpu():
    t = os.times()
    return t.user + t.system


class ThreadGovernor:
    """Keeps BLAS's thread count at the number of cores other processes leave free."""

    def __init__(self, read_stat=_busy_seconds, own_cpu=_own_cpu, clock=time.monotonic, cpus=None):
        self.read_stat, self.own_cpu, self.clock = read_stat, own_cpu, clock
        self.cpus = cpus or os.cpu_count() or 1
        self.enabled = os.environ.get('REFLIB_ADAPTIVE_THREADS', '0').strip().lower() in ('1', 'true', 'yes')
        self.controller = None
        self.most = None          # BLAS threads at the start: the ceiling
        self.threads = None       # what BLAS was last given
        self.others = None        # cores other processes used in the last interval
        self._last = None         # (clock, busy, own) at the last look
        self._next = 0.0

    def _start(self):
        try:
            from threadpoolctl import ThreadpoolController
            self.read_stat()
        except (ImportError, OSError, ValueError, IndexError):
            self.enabled = False
            return
        self.controller = ThreadpoolController()
        blas = [lib for lib in self.controller.info() if lib.get('user_api') == 'blas']
        if not blas:
            self.enabled = False
            return
        self.most = self.threads = max(lib['num_threads'] for lib in blas)

    def check(self):
        """Called by every forward; looks at the machine at most every INTERVAL seconds."""
        now = self.clock()
        if not self.enabled or now < self._next:
            return
        self._next = now + INTERVAL
        if self.controller is None:
            self._start()
            if not self.enabled:
                return
        busy = self.read_stat()
        own = self.own_cpu()
        last, self._last = self._last, (now, busy, own)
        if last is None or now <= last[0]:
            return
        elapsed = now - last[0]
        self.others = max(0.0, ((busy - last[1]) - (own - last[2])) / elapsed)
        wanted = threads_for(self.cpus, self.others, self.most)
        if wanted != self.threads:
            self.controller.limit(limits=wanted, user_api='blas')
            self.threads = wanted

    def status(self):
        """What the governor sees and decided: a dict (for the curious, and chapter 14)."""
        return {'enabled': self.enabled, 'cpus': self.cpus, 'most': self.most, 'threads': self.threads,
                'others_busy': self.others}


governor = ThreadGovernor()
