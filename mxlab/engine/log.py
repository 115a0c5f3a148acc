"""The engine event log: what ran, when, on which thread, reading and writing which var versions.

A bounded ring buffer (``collections.deque(maxlen=...)``) so a long session cannot grow memory without limit;
the notebook layer draws it (Gantt chart per thread, version timelines). Switch it off with
``mx.engine.event_log.enabled = False``.
"""
import collections
import dataclasses
import threading
import time

__all__ = ["EngineEvent", "EventLog"]


@dataclasses.dataclass(frozen=True)
class EngineEvent:
    """One completed (or failed) engine op.

    ``reads``/``writes`` are ``(var_id, version)`` pairs: the version read, and the version each write produced.
    """
    seq: int
    name: str
    reads: tuple
    writes: tuple
    thread: str
    start: float
    end: float
    error: str = None

    @property
    def duration(self):
        return self.end - self.start


class EventLog:
    """Ring buffer of :class:`EngineEvent` (thread-safe appends; ``clear()``, ``events()``, ``enabled``)."""

    def __init__(self, maxlen=10000):
        self.enabled = True
        self._events = collections.deque(maxlen=maxlen)
        self._seq = 0
        self._lock = threading.Lock()

    @property
    def maxlen(self):
        return self._events.maxlen

    def resize(self, maxlen):
        """Keep the newest ``maxlen`` events from now on."""
        with self._lock:
            self._events = collections.deque(self._events, maxlen=maxlen)

    def record(self, name, reads, writes, start, end, error=None):
        with self._lock:
            self._seq += 1
            self._events.append(EngineEvent(self._seq, name, reads, writes, threading.current_thread().name,
                                            start, end, error))

    def events(self):
        """A list copy of the buffered events, oldest first."""
        with self._lock:
            return list(self._events)

    def clear(self):
        with self._lock:
            self._events.clear()

    def __len__(self):
        return len(self._events)

    now = staticmethod(time.perf_counter)
