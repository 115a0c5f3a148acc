"""The engine event log: what ran, when, on which thread, reading and writing which var versions.

A bounded ring buffer (``collections.deque(maxlen=...)``) so a long session cannot grow memory
without limit; the notebook layer draws it (Gantt chart per thread, version timelines). The buffer
is on where someone can look at it, in an IPython shell or Jupyter kernel (and once ``%load_ext
mxlab`` or an explorer asks for it), and off in plain scripts, where keeping a record per op would
only cost time: ``MXLAB_EVENT_LOG=1`` (or ``0``) overrides that, and so does
``mx.engine.event_log.enabled = True``. Listeners (the profiler, live notebook views) get every
completed event even when the buffer is off.

Examples
--------
>>> import mxlab as mx
>>> seen, v = [], mx.engine.new_var()
>>> mx.engine.event_log.add_listener(seen.append)
>>> mx.engine.push(lambda: None, [], [v], "my_op")
>>> mx.engine.wait_all()
>>> mx.engine.event_log.remove_listener(seen.append)
>>> [(e.name, e.writes == ((v.id, 1),)) for e in seen]
[('my_op', True)]"""
import collections
import dataclasses
import itertools
import os
import sys
import threading
import time
import warnings

from ..base import MXNetValueError
from .op import next_push_seq

__all__ = ["EngineEvent", "EventLog", "default_enabled"]


# NOTE: not frozen: frozen dataclasses are several times slower to build, and one is built per op.
@dataclasses.dataclass(slots=True)
class EngineEvent:
    """One completed (or failed, or skipped) engine op (treat as read-only: it is shared).

    ``reads``/``writes`` are ``(var_id, version)`` pairs: the version read, and the version each
    write produced (unchanged when the op failed). ``seq`` counts completions, ``push_seq`` pushes
    (so push order and run order can be compared); ``pushed``/``start``/``end`` are
    ``time.perf_counter()`` seconds. ``bulk`` is the ``push_seq`` of the first op of the bulk task
    this op ran in (None when it ran alone). ``error`` is the error text when the op failed or was
    skipped because an input carried an earlier error.
    """
    seq: int
    name: str
    reads: tuple
    writes: tuple
    thread: str
    start: float
    end: float
    error: str = None
    pushed: float = None
    push_seq: int = None
    bulk: int = None

    @property
    def duration(self):
        return self.end - self.start

    @property
    def queued(self):
        """Seconds from push to start (waiting for dependencies or for a worker)."""
        return None if self.pushed is None else self.start - self.pushed


class EventLog:
    """Ring buffer of :class:`EngineEvent` with optional listeners (thread-safe).

    ``enabled`` switches the buffer; listeners are called (on the thread that ran the op) for every
    event while they are registered, whatever ``enabled`` says. Engines skip all bookkeeping when
    ``active`` (buffer on, or someone listening) is False.
    """

    def __init__(self, maxlen=10000, enabled=None):
        self._events = collections.deque(maxlen=maxlen)
        self._listeners = ()
        self.enabled = default_enabled() if enabled is None else enabled
        self._counter = itertools.count(1)
        self._lock = threading.Lock()
        self._threads = {}                  # thread key (never reused) -> threading.Thread
        self._thread_key = threading.local()
        self._floor = 0                     # events of ops pushed before the last clear() are old

    @property
    def maxlen(self):
        return self._events.maxlen

    @property
    def enabled(self):
        """Whether the buffer keeps events (listeners are called either way)."""
        return self._enabled

    @enabled.setter
    def enabled(self, value):
        self._enabled = bool(value)
        self._update_active()

    def enable(self):
        """Keep events from now on (what the notebook views call: they read the buffer)."""
        self.enabled = True

    def _update_active(self):
        # NOTE: a plain attribute, not a property: engines read it once per op.
        self.active = self._enabled or bool(self._listeners)

    def resize(self, maxlen):
        """Keep the newest ``maxlen`` events from now on."""
        with self._lock:
            self._events = collections.deque(self._events, maxlen=maxlen)

    def add_listener(self, callback):
        """Call ``callback(event)`` for each completed event from now on (on engine threads)."""
        with self._lock:
            self._listeners = self._listeners + (callback,)
            self._update_active()

    def remove_listener(self, callback):
        """Stop calling ``callback``; a callback that is not registered is ignored."""
        with self._lock:
            self._listeners = tuple(c for c in self._listeners if c != callback)
            self._update_active()

    def record(self, name, reads, writes, start, end, error=None, pushed=None, push_seq=None,
               bulk=None):
        """Append one event (when enabled) and hand it to the listeners.

        The buffer keeps plain tuples (one per op on the hot path); :meth:`events` turns them into
        :class:`EngineEvent` objects when someone looks.
        """
        # NOTE: a tuple of numbers and strings only (a key for the thread, not the Thread): the
        #   garbage collector stops tracking it, so a full buffer adds nothing to every collection.
        #   The thread's name is read when someone looks.
        try:
            thread = self._thread_key.key
        except AttributeError:
            thread = self._register_thread()
        raw = (next(self._counter), name, reads, writes, thread, start, end, error, pushed,
               push_seq, bulk)
        if self._enabled:
            self._events.append(raw)   # NOTE: deque.append is atomic; no lock on the hot path.
        if self._listeners:
            self._notify_all(raw)

    def record_unary(self, name, read_id, read_version, write_id, start, push_seq):
        """:meth:`record` of an op that read one var, wrote version 1 of a fresh one and ran on
        this thread from its push at ``start`` until now (the imperative fast lane's common case).

        NOTE: kept as one flat tuple of nine numbers and strings (no nested tuples to build and
        free per op); :meth:`_event` expands it.
        """
        end = self.now()
        try:
            thread = self._thread_key.key
        except AttributeError:
            thread = self._register_thread()
        raw = (next(self._counter), name, read_id, read_version, write_id, thread, start, end,
               push_seq)
        if self._enabled:
            self._events.append(raw)
        if self._listeners:
            self._notify_all(raw)

    def _notify_all(self, raw):
        event = self._event(raw)
        for callback in self._listeners:
            _notify(callback, event)

    def events(self):
        """A list copy of the buffered events, oldest first (none of an op pushed before the
        last :meth:`clear`, even when it finished after it)."""
        if not self._enabled and not self._events:
            warnings.warn("the engine event log is off (the default outside IPython and Jupyter), "
                          "so it holds no events: set mx.engine.event_log.enabled = True or "
                          "MXLAB_EVENT_LOG=1 before the ops you want to see", RuntimeWarning,
                          stacklevel=2)
        with self._lock:
            raws, floor = list(self._events), self._floor
        events = (self._event(raw) for raw in raws)
        return [e for e in events if e.push_seq is None or e.push_seq >= floor]

    def _register_thread(self):
        """A new key for the calling thread (keys are never reused, unlike thread idents)."""
        with self._lock:
            key = len(self._threads)
            self._threads[key] = threading.current_thread()
        self._thread_key.key = key
        return key

    def _event(self, raw):
        if len(raw) == 9:   # record_unary's flat tuple
            seq, name, read_id, read_version, write_id, thread, start, end, push_seq = raw
            return EngineEvent(seq, name, ((read_id, read_version),), ((write_id, 1),),
                               self._threads[thread].name, start, end, None, start, push_seq)
        seq, name, reads, writes, thread, start, end, error, pushed, push_seq, bulk = raw
        return EngineEvent(seq, name, reads, writes, self._threads[thread].name, start, end,
                           error, pushed, push_seq, bulk)

    def clear(self):
        """Forget the buffered events, and those still to come of ops already pushed (a cell that
        clears the log sees its own ops only, not the tail of the previous cell's)."""
        with self._lock:
            self._events.clear()
            self._floor = next_push_seq()

    def __len__(self):
        return len(self._events)

    now = staticmethod(time.perf_counter)


def default_enabled():
    """Whether a new log keeps events: ``MXLAB_EVENT_LOG`` when set, else whether this process
    runs an IPython shell (a notebook kernel), where the explorer and engine views read the log."""
    value = os.environ.get("MXLAB_EVENT_LOG", "").strip().lower()
    if value:
        if value not in ("0", "1", "true", "false", "on", "off"):
            raise MXNetValueError(f"MXLAB_EVENT_LOG must be 1 or 0 (on/off, true/false), "
                             f"not {value!r}")
        return value in ("1", "true", "on")
    ipython = sys.modules.get("IPython")
    return ipython is not None and getattr(ipython, "get_ipython", lambda: None)() is not None


def _notify(callback, event):
    # NOTE: a broken listener must not stop the engine (it runs on worker threads); it is reported,
    #   not hidden.
    try:
        callback(event)
    except Exception as exc:  # noqa: BLE001
        warnings.warn(f"engine event listener {callback!r} failed: {type(exc).__name__}: {exc}",
                      RuntimeWarning, stacklevel=2)
