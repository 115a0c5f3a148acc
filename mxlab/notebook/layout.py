"""Graph layout off the kernel: a small pool of warm Graphviz worker processes with a timeout.

:func:`layout` sends DOT text to a worker (:mod:`.layout_worker`, a plain script) and waits at
most ``timeout`` seconds. A worker that crashes (Graphviz aborts on some graphs), errs or runs
out of time is replaced; the caller gets a :class:`Layout` whose ``fallback`` says what happened:
the graph drawn again without edge labels (what makes Graphviz's mincross abort on clustered
graphs), or else the simple layered drawing of :mod:`.fallback`. Workers stay alive between layouts, so a
view switch costs the layout, not a process start.

Example
-------
>>> result = layout('digraph { a -> b }')
>>> result.fallback is None and result.svg.startswith('<svg')
True
"""
import contextlib
import dataclasses
import functools
import os
import queue
import re
import select
import signal
import struct
import subprocess
import sys
import threading
import time

from . import fallback

__all__ = ["Layout", "LayoutError", "layout", "without_edge_labels", "WorkerPool", "POOL",
           "DEFAULT_TIMEOUT"]

#: Seconds a layout may take before the view falls back (``MXLAB_LAYOUT_TIMEOUT`` overrides).
DEFAULT_TIMEOUT = float(os.environ.get("MXLAB_LAYOUT_TIMEOUT", "30"))
_WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "layout_worker.py")


class LayoutError(RuntimeError):
    """A layout that did not come back (crash, error or timeout); the message says which."""


@dataclasses.dataclass(frozen=True)
class Layout:
    """An SVG drawing; ``fallback`` is None for Graphviz's full drawing, else what was left out
    and why."""
    svg: str
    fallback: str = None


class _Worker:
    """One worker process and its pipes."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, _WORKER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def alive(self):
        return self.proc.poll() is None

    def _read(self, size, deadline):
        data = b""
        fd = self.proc.stdout.fileno()
        while len(data) < size:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(fd, size - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def run(self, dot, timeout, fmt):
        payload = f"{fmt}\n{dot}".encode("utf-8")
        try:
            self.proc.stdin.write(struct.pack(">I", len(payload)) + payload)
            self.proc.stdin.flush()
            deadline = time.monotonic() + timeout
            status = self._read(1, deadline)
            size = struct.unpack(">I", self._read(4, deadline))[0]
            body = self._read(size, deadline)
        except TimeoutError:
            self.kill()
            raise LayoutError(f"Graphviz took longer than {timeout:g} s") from None
        except (EOFError, BrokenPipeError):
            raise LayoutError(f"Graphviz crashed ({self._exit_text()})") from None
        if status != b"O":
            raise LayoutError(f"Graphviz failed: {body.decode('utf-8', 'replace')}")
        return body

    def _exit_text(self):
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            return "worker stopped answering"
        if code < 0:
            return f"worker killed by {signal.Signals(-code).name}"
        return f"worker exit status {code}"

    def kill(self):
        if self.alive():
            self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):     # NOTE: unsent request bytes to a dead worker
                pipe.close()


class WorkerPool:
    """Up to ``size`` warm workers; each layout borrows one (a dead one is replaced)."""

    def __init__(self, size=2):
        self.size = size
        self._idle = queue.LifoQueue()
        self._count = 0
        self._lock = threading.Lock()

    def _borrow(self):
        with self._lock:
            try:
                return self._idle.get_nowait()
            except queue.Empty:
                if self._count < self.size:
                    self._count += 1
                    return _Worker()
        return self._idle.get()

    def _give_back(self, worker):
        if worker.alive():
            self._idle.put(worker)
            return
        worker.kill()
        with self._lock:
            self._count -= 1

    def run(self, dot, timeout=None, fmt="svg"):
        """The drawing of ``dot`` in format ``fmt`` (bytes); raises :class:`LayoutError`
        (crash, error, timeout)."""
        worker = self._borrow()
        try:
            return worker.run(dot, DEFAULT_TIMEOUT if timeout is None else timeout, fmt)
        finally:
            self._give_back(worker)

    def warm(self):
        """Start the workers now (in the background of the first view)."""
        workers = [self._borrow() for _ in range(self.size)]
        for worker in workers:
            self._give_back(worker)

    def close(self):
        with self._lock:
            while not self._idle.empty():
                self._idle.get_nowait().kill()
                self._count -= 1


POOL = WorkerPool(int(os.environ.get("MXLAB_LAYOUT_WORKERS", "2")))


def without_edge_labels(dot):
    """``dot`` with the edge labels left out (Graphviz's mincross aborts on some clustered
    graphs with edge labels, and lays the same graph out without them)."""
    return _EDGE_LABEL.sub(r"\1", dot)


_EDGE_LABEL = re.compile(r'^(\s*\w+ -> \w+ \[)label="[^"]*"', re.MULTILINE)


@functools.lru_cache(maxsize=64)
def layout(dot, timeout=None):
    """Lay ``dot`` out in a worker. When Graphviz crashes, errs or times out: again without
    edge labels, and failing that the layered fallback; ``fallback`` then says what happened."""
    try:
        return Layout(_svg(POOL.run(dot, timeout)))
    except LayoutError as exc:
        reason = str(exc)
    simpler = without_edge_labels(dot)
    if simpler != dot and "longer than" not in reason:
        try:
            return Layout(_svg(POOL.run(simpler, timeout)),
                          f"{reason}; drawn again without edge labels")
        except LayoutError as exc:
            reason += f"; without edge labels too ({exc})"
    return Layout(fallback.layered_svg(dot, reason), reason + "; simple layered layout shown")


def _svg(data):
    svg = data.decode("utf-8")
    return svg[svg.find("<svg"):]
