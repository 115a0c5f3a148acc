"""Graphviz layout off the caller's process: a small pool of warm worker processes, a timeout.

Graphviz's ``dot`` aborts the whole process on some graphs (``mincross.c: fixLabelOrder``
assertions), so it never runs in the user's kernel: :func:`graphviz_layout` sends DOT text to a
worker (:mod:`.layout_worker`, a plain script) and waits at most ``timeout`` seconds. A worker
that crashes, errs or runs out of time is replaced and the caller gets a :class:`LayoutError`
saying which. Workers stay alive between layouts, so a redraw costs the layout, not a process
start. Shared by ``mx.viz`` and the notebook layer (which sits above viz).

Example
-------
>>> graphviz_layout('digraph { a -> b }')[:4]
b'<?xm'
"""
import contextlib
import os
import queue
import select
import signal
import struct
import subprocess
import sys
import threading
import time

from ..base import MXNetRuntimeError

__all__ = ["DEFAULT_TIMEOUT", "POOL", "LayoutError", "WorkerPool", "graphviz_layout"]

#: Seconds a layout may take before the view falls back (``MXLAB_LAYOUT_TIMEOUT`` overrides).
DEFAULT_TIMEOUT = float(os.environ.get("MXLAB_LAYOUT_TIMEOUT", "30"))
_WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "layout_worker.py")


class LayoutError(MXNetRuntimeError):
    """A layout that did not come back (crash, error or timeout); the message says which."""


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
        payload = f"{fmt}\n{dot}".encode()
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


def graphviz_layout(dot, format="svg", timeout=None):
    """The bytes of DOT text ``dot`` laid out by Graphviz's ``dot`` in a worker process, in
    ``format``; raises :class:`LayoutError` when the worker crashes, errs or times out."""
    return POOL.run(dot, timeout, format)
