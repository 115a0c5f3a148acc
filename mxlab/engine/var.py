"""Engine variables: the unit of dependency tracking.

Every array owns (or, for a view, shares) one :class:`Var`. An op declares the vars it reads and the
vars it writes; the engine orders ops on the same var in push order and lets reads run in parallel.
``version`` counts completed writes: a new var is 0, reads leave it unchanged, each write adds one
(MXNet's ``NDArray.version``).
"""
import itertools

__all__ = ["Var"]

_ids = itertools.count()


class Var:
    """A dependency-tracking variable with a write counter.

    ``pending`` holds engine bookkeeping (used by the threaded engine); ``exception`` holds an error
    raised by an async op that wrote this var, re-raised at the next sync point on it.
    """

    __slots__ = ("id", "version", "name", "exception", "pending", "__weakref__")

    def __init__(self, name=None, version=0):
        self.id = next(_ids)
        self.version = version
        self.name = name
        self.exception = None
        self.pending = None

    def __repr__(self):
        label = f" {self.name}" if self.name else ""
        return f"<Var {self.id}{label} v{self.version}>"
