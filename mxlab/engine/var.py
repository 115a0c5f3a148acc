"""Engine variables: the unit of dependency tracking.

Every array owns (or, for a view, shares) one :class:`Var`. An op declares the vars it reads and the
vars it writes; the engine orders ops on the same var in push order and lets reads run in parallel.
``version`` counts completed writes: a new var is 0, reads leave it unchanged, each write adds one
(MXNet's ``NDArray.version``). ``queued`` counts writes pushed to an asynchronous engine and not yet
completed, so :func:`write_count` -- completed plus queued -- counts every write pushed so far, on
any engine, as soon as it is pushed (autograd compares it to spot in-place writes).
"""
import itertools

__all__ = ["Var", "write_count"]

_ids = itertools.count()


class Var:
    """A dependency-tracking variable with a write counter.

    ``pending`` and ``queued`` hold engine bookkeeping (used by the threaded engine);
    ``exception`` holds an error raised by an async op that wrote this var, re-raised at the next
    sync point on it.
    """

    __slots__ = ("id", "version", "name", "exception", "pending", "queued", "__weakref__")

    def __init__(self, name=None, version=0):
        self.id = next(_ids)
        self.version = version
        self.name = name
        self.exception = None
        self.pending = None
        self.queued = 0

    def __repr__(self):
        label = f" {self.name}" if self.name else ""
        return f"<Var {self.id}{label} v{self.version}>"


def write_count(var):
    """Writes pushed to ``var`` so far, finished or not.

    NOTE: ``queued`` is read first. A worker bumps ``version`` before the engine lowers
    ``queued``, so a read racing with it may count one write twice, never miss one.
    """
    return var.queued + var.version
