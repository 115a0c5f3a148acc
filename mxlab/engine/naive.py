"""The synchronous engine: every push runs at once on the calling thread (MXNet's NaiveEngine)."""
import contextlib

from .log import EventLog
from .op import ErrorRef, _push_seq, op_error, raise_error, split_vars

__all__ = ["NaiveEngine", "run_unlogged"]


class NaiveEngine:
    """Runs each pushed function immediately, in push order, so every array is always ready.

    Errors are raised straight to the caller (as the MXNetError subclass naming the op that the
    threaded engine would raise at the next sync point): there is no later sync point to defer them
    to.

    Examples
    --------
    >>> from mxlab.engine import NaiveEngine, Var
    >>> engine, v = NaiveEngine(), Var()
    >>> engine.push(lambda: None, (), (v,), "write")
    >>> v.version
    1
    """

    name = "NaiveEngine"
    is_async = False

    def __init__(self, event_log=None):
        self.event_log = event_log if event_log is not None else EventLog()
        self.bulk_size = 0

    def push(self, fn, read_vars=(), write_vars=(), name="op"):
        """Run ``fn()`` now; bump the version of every written var; log the event."""
        if not self.event_log.active:   # NOTE: unlogged, the reads do not matter here
            writes = write_vars if len(write_vars) < 2 else dict.fromkeys(write_vars)
            run_unlogged(fn, writes, name)
            return
        reads, writes = split_vars(read_vars, write_vars)
        self.push_checked(fn, reads, writes, name)

    def push_checked(self, fn, reads, writes, name="op"):
        """:meth:`push` for callers whose ``reads`` and ``writes`` are already disjoint and free of
        repeats (the imperative dispatcher), skipping the deduplication."""
        log = self.event_log
        if not log.active:
            run_unlogged(fn, writes, name)
            return
        now = log.now
        seq = next(_push_seq)
        start = now()
        read_versions = tuple([(v.id, v.version) for v in reads])
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - logged, then re-raised as the MXNetError naming the op
            error = ErrorRef(op_error(exc, name), name)
            log.record(name, read_versions, tuple([(v.id, v.version) for v in writes]), start,
                       now(), error.message, start, seq)
            raise_error(error.take(), exc)
        for var in writes:
            var.version += 1
        log.record(name, read_versions, tuple([(v.id, v.version) for v in writes]), start, now(),
                   None, start, seq)

    @contextlib.contextmanager
    def inline(self):
        """Every push runs at once here already (see ``ThreadedEngine.inline``)."""
        yield

    def wait_for_var(self, var):
        """Nothing is ever pending in the naive engine."""

    def wait_all(self):
        """Nothing is ever pending in the naive engine."""

    def drain(self):
        """Nothing is ever pending in the naive engine."""

    def set_bulk_size(self, size):
        """Record the bulk size (each op runs at once anyway); returns the old one."""
        previous, self.bulk_size = self.bulk_size, int(size)
        return previous

    def shutdown(self):
        """Nothing to stop (no threads)."""


def run_unlogged(fn, writes, name, *args):
    """The fast path with nothing listening: run ``fn(*args)``, translate an error, count the
    writes (``writes`` free of repeats)."""
    try:
        fn(*args)
    except Exception as exc:  # noqa: BLE001 - re-raised as the MXNetError naming the op
        raise_error(op_error(exc, name), exc)
    for var in writes:
        var.version += 1
