"""``mx.monitor.Monitor`` (``mx.mon``): statistics of every tensor an executor computes.

Installed on executors (``Module.install_monitor``), the monitor receives each node output (and
input with ``monitor_all``) while collecting is on: between :meth:`Monitor.tic` and
:meth:`Monitor.toc`, once every ``interval`` batches. ``toc`` adds the arguments and auxiliary
states and returns ``(step, name, text)`` triples, the statistic printed as MXNet prints it.
"""
import logging
import math
import re

from . import ndarray as _nd

__all__ = ["Monitor"]


def _norm_stat(x):
    """MXNet's default statistic: ``norm(x) / sqrt(size)``."""
    return _nd.norm(x) / math.sqrt(x.size)


class Monitor:
    """Collects ``stat_func`` of the tensors whose names match ``pattern`` every ``interval``
    batches (``sort``: results ordered by name)."""

    def __init__(self, interval, stat_func=None, pattern=".*", sort=False, monitor_all=False):
        self.stat_func = stat_func or _norm_stat
        self.interval = interval
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all

    def stat_helper(self, name, array):
        """The executor callback: queue the statistic of ``array`` while collecting."""
        if not self.activated or not self.re_prog.match(name):
            return
        self.queue.append((self.step, name, self.stat_func(array)))

    def install(self, exe):
        """Install on executor ``exe`` (several executors may share one monitor)."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def tic(self):
        """Start collecting for this batch when it is an ``interval``-th one."""
        if self.step % self.interval == 0:
            self._wait()
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """Stop collecting; ``[(step, name, text)]`` for this batch (empty if not collecting)."""
        if not self.activated:
            return []
        self._wait()
        for exe in self.exes:
            for name, array in list(exe.arg_dict.items()) + list(exe.aux_dict.items()):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        if self.sort:
            self.queue.sort(key=lambda item: item[1])
        res = [(n, k, _stat_text(v)) for n, k, v in self.queue]
        self.queue = []
        return res

    def toc_print(self):
        """:meth:`toc`, logged one line per tensor."""
        for n, k, v in self.toc():
            logging.info("Batch: {:7d} {:30s} {:s}".format(n, k, v))

    def _wait(self):
        for exe in self.exes:
            for array in list(exe.arg_arrays) + list(exe.aux_arrays):
                array.wait_to_read()


def _stat_text(values):
    """A statistic (array or list of arrays) as MXNet's text: scalars bare, others as NumPy
    prints them, each followed by a tab."""
    if not isinstance(values, list):
        values = [values]
    text = ""
    for v in values:
        text += (str(v.asscalar()) if v.shape == (1,) else str(v.asnumpy())) + "\t"
    return text
