"""Monitor: statistics of every intermediate array, every ``interval`` batches.

``mod.install_monitor(mon)`` hooks ``mon`` into each executor's monitor
callback.  Around a batch, ``tic()`` arms it (on every ``interval``-th batch)
and ``toc()`` returns ``(batch, name, statistic)`` for every operator output
whose name matches ``pattern``, plus the arguments (weights) themselves.  The
default statistic is ``norm(x) / sqrt(size)``, a scale-free size of the values
that shows exploding or vanishing activations at a glance.
"""

import logging
import math
import re

from .base import py_str
from .ndarray import NDArray

__all__ = ['Monitor']


def _rms(array):
    return array.norm() / math.sqrt(array.size)


class Monitor:
    """Collect ``stat_func(array)`` for matching arrays on every ``interval``-th batch."""

    def __init__(self, interval, stat_func=None, pattern='.*', sort=False, monitor_all=False):
        self.interval = interval
        self.stat_func = stat_func or _rms
        self.pattern = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []

    def _collect(self, name, array):
        name = py_str(name)       # the executor passes bytes, as MXNet's C API does
        if self.activated and self.pattern.match(name):
            self.queue.append((self.step, name, self.stat_func(array)))

    def install(self, exe):
        """Watch one executor (Module calls this for each device's executor)."""
        exe.set_monitor_callback(self._collect, self.monitor_all)
        self.exes.append(exe)

    def tic(self):
        """Start a batch: collect during it if it is an ``interval``-th one."""
        if self.step % self.interval == 0:
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """End a batch: the collected ``(step, name, text)`` rows, arguments included."""
        if not self.activated:
            return []
        for exe in self.exes:
            # the arguments, then the auxiliary states (BatchNorm's moving averages), as MXNet
            for name, array in zip(list(exe._arg_names) + list(exe._aux_names),
                                   list(exe.arg_arrays) + list(exe.aux_arrays)):
                if self.pattern.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        rows = sorted(self.queue, key=lambda row: row[1]) if self.sort else self.queue
        self.queue = []
        out = []
        for step, name, values in rows:
            values = [values] if isinstance(values, NDArray) else values
            # a one-element statistic prints as a number, '0.0635', anything else as its array
            out.append((step, name, ''.join(str(v.asscalar() if v.shape == (1,) else v.asnumpy()) + '\t'
                                            for v in values)))
        return out

    def toc_print(self):
        """End a batch as ``toc`` does and log its rows (``logging.info``), one line each:
        ``Batch:``, the step, the array's name and its statistic.
        """
        for step, name, text in self.toc():
            logging.info('Batch: %7d %-30s %s', step, name, text)
