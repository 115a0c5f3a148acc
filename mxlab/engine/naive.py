"""The synchronous engine: every push runs at once on the calling thread (MXNet's NaiveEngine)."""
from .log import EventLog

__all__ = ["NaiveEngine"]


class NaiveEngine:
    """Runs each pushed function immediately, in push order, so every array is always ready.

    Errors propagate straight to the caller (there is no later sync point to defer them to).
    """

    name = "NaiveEngine"
    is_async = False

    def __init__(self, event_log=None):
        self.event_log = event_log if event_log is not None else EventLog()
        self.bulk_size = 0

    def push(self, fn, read_vars=(), write_vars=(), name="op"):
        """Run ``fn()`` now; bump the version of every written var; log the event."""
        log = self.event_log
        if not log.enabled:
            fn()
            for var in write_vars:
                var.version += 1
            return
        start = log.now()
        reads = tuple((v.id, v.version) for v in read_vars)
        try:
            fn()
        except BaseException as exc:
            log.record(name, reads, (), start, log.now(), error=f"{type(exc).__name__}: {exc}")
            raise
        for var in write_vars:
            var.version += 1
        log.record(name, reads, tuple((v.id, v.version) for v in write_vars), start, log.now())

    def wait_for_var(self, var):
        """Nothing is ever pending in the naive engine."""

    def wait_all(self):
        """Nothing is ever pending in the naive engine."""

    def set_bulk_size(self, size):
        """Record the bulk size (the naive engine runs everything at once anyway); returns the previous one."""
        previous, self.bulk_size = self.bulk_size, int(size)
        return previous
