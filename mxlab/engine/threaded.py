"""The threaded engine: pushed functions run on worker threads in dependency order.

This is MXNet's ThreadedEngine. Per var, ops are granted in push order: consecutive reads run
together, a write waits for the reads before it and runs alone (MXNet's ``ThreadedVar`` read/write
chain, kept here as a queue per var). An op waits for one grant per var plus one for the push
itself, and goes to the worker pool when its count reaches zero.

One pool serves every device (``ThreadedEnginePerDevice`` is the same engine under MXNet's other
name): NumPy releases the GIL inside its kernels, CuPy only launches them, so per-device pools would
add threads without adding overlap. Bookkeeping uses one engine lock; the functions themselves run
outside it.

Errors: an op that raises stores an :class:`~mxlab.engine.op.ErrorRef` on the vars it writes; ops
reading or writing such a var skip and share it; :meth:`ThreadedEngine.wait_for_var`
(``wait_to_read``, ``asnumpy``) and :meth:`ThreadedEngine.wait_all` raise it once, after which the
engine carries on.

Thread state: none is copied to workers. What a kernel needs of its caller's mode comes in its
:class:`~mxlab.ops.context.OpContext` (``is_train``, the rng, temp space), fixed when the op is
pushed; shape inference, the only reader of the np-shape scopes, runs on the pushing thread (or
is handed every shape, so it consults no scope).

Bulking: with ``set_bulk_size(n)`` (n > 1) consecutive pushes from one thread are gathered and run
as one task of up to ``n`` ops (MXNet's ``BulkAppend``/``BulkFlush``); every op is still logged on
its own, with ``bulk`` set. A gathered bulk is flushed when full, at any wait, and when the bulk
size changes; gathering is per pushing thread, so a wait flushes only the waiting thread's bulk.
"""
import collections
import contextlib
import dataclasses
import queue
import threading

from ..base import MXNetRuntimeError, env_int
from .log import EventLog
from .op import EngineOp, inherited_error, raise_error, run_op, split_vars

__all__ = ["ThreadedEngine", "ThreadedEnginePerDevice"]

@dataclasses.dataclass(eq=False)
class _Task:
    """What workers run: one op, a bulk of ops, or (no ops) a waiter run inline when granted."""
    ops: list
    reads: tuple
    writes: tuple
    wait: int = 0
    waiter: object = None


class _VarQueue:
    """Dependency state of one var: grants not yet given (in push order) and grants running."""

    __slots__ = ("queue", "readers", "writing")

    def __init__(self):
        self.queue = collections.deque()
        self.readers = 0
        self.writing = False

    def ready_to_read(self):
        return not self.writing and not self.queue


class ThreadedEngine:
    """Runs pushed functions on ``num_workers`` worker threads (``MXNET_CPU_WORKER_NTHREADS``, 2).

    Examples
    --------
    >>> from mxlab.engine import ThreadedEngine, Var
    >>> engine, v, out = ThreadedEngine(), Var(), []
    >>> for i in range(3):
    ...     engine.push(lambda i=i: out.append(i), (), (v,), "append")
    >>> engine.wait_for_var(v)
    >>> out, v.version
    ([0, 1, 2], 3)
    >>> engine.shutdown()
    """

    name = "ThreadedEngine"
    is_async = True

    def __init__(self, event_log=None, num_workers=None):
        self.event_log = event_log if event_log is not None else EventLog()
        self.num_workers = max(1, num_workers or env_int("MXNET_CPU_WORKER_NTHREADS", 2))
        self.bulk_size = 0
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._pending = 0
        self._errors = {}  # ErrorRefs not yet raised by wait_all (a dict: ordered, no duplicates)
        self._ready = queue.SimpleQueue()
        self._workers = []
        self._local = threading.local()

    # -- pushing -----------------------------------------------------------------------------------
    def push(self, fn, read_vars=(), write_vars=(), name="op"):
        """Schedule ``fn()`` after the earlier ops it depends on by ``read_vars``/``write_vars``."""
        log = self.event_log
        reads, writes = split_vars(read_vars, write_vars)
        op = EngineOp(fn, name, reads, writes, log.now() if log.active else None)
        if getattr(self._local, "inline", False):
            error = run_op(op, log)
            if error is not None:
                raise_error(error.take())
            return
        with self._lock:   # NOTE: workers lower ``queued`` under this lock (see _complete)
            for var in writes:
                var.queued += 1
        if self.bulk_size > 1 and not self._in_worker():
            self._bulk_append(op)
        else:
            self._submit(_Task([op], reads, writes))


    push_checked = push   # NOTE: the dispatcher's fast entry; deduplicating here costs little.

    @contextlib.contextmanager
    def inline(self):
        """Run this thread's pushes at once, in order, as the naive engine does: for an op that
        runs a private graph inside its kernel (a subgraph op). Queued behind the op that runs
        them, its inner ops could wait for it, and it for them (a deadlock)."""
        self._flush()
        previous, self._local.inline = getattr(self._local, "inline", False), True
        try:
            yield
        finally:
            self._local.inline = previous
    def _bulk_append(self, op):
        gathered = self._gathered()
        gathered.append(op)
        if len(gathered) >= self.bulk_size:
            self._flush()

    def _gathered(self):
        local = self._local
        if not hasattr(local, "bulk"):
            local.bulk = []
        return local.bulk

    def _flush(self):
        """Submit the calling thread's gathered ops as one task."""
        ops = self._gathered()
        if not ops:
            return
        self._local.bulk = []
        if len(ops) == 1:
            self._submit(_Task(ops, ops[0].reads, ops[0].writes))
            return
        reads = [v for op in ops for v in op.reads]
        reads, writes = split_vars(reads, [v for op in ops for v in op.writes])
        self._submit(_Task(ops, reads, writes))

    def _submit(self, task):
        self._ensure_workers()
        ready = []
        with self._lock:
            self._pending += 1
            task.wait = len(task.reads) + len(task.writes) + 1
            for var in task.reads:
                self._append(var, task, False, ready)
            for var in task.writes:
                self._append(var, task, True, ready)
            self._release(task, ready)
        self._dispatch(ready)

    # -- dependency bookkeeping (called with the lock held) ----------------------------------------
    def _append(self, var, task, write, ready):
        state = var.pending
        if state is None:
            state = var.pending = _VarQueue()
        state.queue.append((task, write))
        self._advance(state, ready)

    def _advance(self, state, ready):
        """Grant the queue head while it can run: reads, or one write once the reads are done."""
        pending = state.queue
        while pending and not state.writing:
            task, write = pending[0]
            if write:
                if state.readers:
                    return
                state.writing = True
            else:
                state.readers += 1
            pending.popleft()
            self._release(task, ready)

    @staticmethod
    def _release(task, ready):
        task.wait -= 1
        if task.wait == 0:
            ready.append(task)

    def _complete(self, task, errors):
        ready = []
        with self._lock:
            for op in task.ops:   # NOTE: before the waits below are granted (write_count)
                for var in op.writes:
                    var.queued -= 1
            for var in task.reads:
                var.pending.readers -= 1
                self._advance(var.pending, ready)
            for var in task.writes:
                var.pending.writing = False
                self._advance(var.pending, ready)
            self._errors.update(dict.fromkeys(errors))
            self._pending -= 1
            if self._pending == 0:
                self._idle.notify_all()
        self._dispatch(ready)

    # -- running -----------------------------------------------------------------------------------
    def _dispatch(self, ready):
        for task in ready:
            if task.waiter is not None:
                task.waiter()
                self._complete(task, ())
            else:
                self._ready.put(task)

    def _execute(self, task):
        errors = []
        try:
            bulk = task.ops[0].push_seq if len(task.ops) > 1 else None
            for op in task.ops:
                error = run_op(op, self.event_log, inherited_error(op), bulk)
                if error is not None:
                    for var in op.writes:
                        var.exception = error
                    errors.append(error)
        finally:
            self._complete(task, errors)

    def _ensure_workers(self):
        if len(self._workers) == self.num_workers:
            return
        with self._lock:
            while len(self._workers) < self.num_workers:
                name = f"{self.name}-worker-{len(self._workers)}"
                worker = threading.Thread(target=self._work, name=name, daemon=True)
                self._workers.append(worker)
                worker.start()

    def _work(self):
        self._local.worker = True
        while True:
            task = self._ready.get()
            if task is None:
                return
            self._execute(task)
            # NOTE: dropped before blocking on the next get: a done op must not keep its arrays
            #   (and through them a tape node, a CachedOp state) alive until more work comes.
            del task

    def _in_worker(self):
        return getattr(self._local, "worker", False)

    # -- waiting -----------------------------------------------------------------------------------
    def wait_for_var(self, var):
        """Block until the ops pushed so far that write ``var`` are done; raise its error."""
        self._flush()
        with self._lock:
            state = var.pending
            ready = state is None or state.ready_to_read()
        if not ready:
            done = threading.Event()
            self._submit(_Task([], (var,), (), waiter=done.set))
            self._block_until(done)
        if var.exception:
            ref, var.exception = var.exception, None
            if ref:
                raise_error(ref.take())

    def _block_until(self, done):
        if not self._in_worker():
            done.wait()
            return
        # NOTE: a worker that waits (an op calling asnumpy) runs other ready tasks meanwhile, so
        #   nested waits cannot starve the pool.
        while not done.is_set():
            try:
                task = self._ready.get(timeout=0.001)
            except queue.Empty:
                continue
            if task is None:
                self._ready.put(None)
                done.wait()
                return
            self._execute(task)

    def wait_all(self):
        """Block until every pushed op is done; raise the first unraised error (clears all)."""
        if self._in_worker():
            raise MXNetRuntimeError("wait_all() called inside an engine op would wait for itself")
        self._flush()
        with self._lock:
            self._wait_idle()
            errors, self._errors = list(self._errors), {}
        taken = [e for e in [ref.take() for ref in errors] if e is not None]
        if taken:
            raise_error(taken.pop(0))

    def drain(self):
        """Block until every pushed op is done, leaving their errors to the next sync point (for
        views that read the event log, such as the notebook's live engine view)."""
        if self._in_worker():
            raise MXNetRuntimeError("drain() called inside an engine op would wait for itself")
        self._flush()
        with self._lock:
            self._wait_idle()

    def _wait_idle(self):
        """Wait (lock held) until nothing is pending."""
        while self._pending:
            self._idle.wait()

    # -- settings and lifetime ---------------------------------------------------------------------
    def set_bulk_size(self, size):
        """Gather up to ``size`` pushes per task (0 or 1: no bulking); returns the old size."""
        self._flush()
        previous, self.bulk_size = self.bulk_size, int(size)
        return previous

    def shutdown(self):
        """Finish pending work and stop the workers (a later push starts new ones)."""
        self._flush()
        with self._lock:
            self._wait_idle()
            workers, self._workers = self._workers, []
        for _ in workers:
            self._ready.put(None)
        for worker in workers:
            worker.join()

    def __repr__(self):
        return (f"<{self.name} workers={self.num_workers} pending={self._pending} "
                f"bulk_size={self.bulk_size}>")


class ThreadedEnginePerDevice(ThreadedEngine):
    """MXNet's default engine name; the one pool serves every device (see the module notes)."""

    name = "ThreadedEnginePerDevice"
