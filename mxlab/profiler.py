"""``mx.profiler``: MXNet's profiler API, fed by the engine's event listener.

Every op any engine runs (imperative calls and graph executors alike) ends as one
:class:`~mxlab.engine.EngineEvent`; while the profiler is running it listens to
``mx.engine.event_log`` and keeps those events for :func:`dump` (a chrome-trace JSON file that
chrome://tracing and Perfetto open) and aggregates them per op name for :func:`dumps` (MXNet's
"Profile Statistics" table, or JSON).

Imperative and symbolic ops both reach the profiler through the engine, which cannot tell them
apart: ``profile_imperative``/``profile_symbolic``/``profile_all`` all switch op profiling on.
Memory and C-API profiling have no counterpart here: ``profile_memory``/``profile_api`` set to True
warn and record nothing (``profile_all`` quietly means operators only).

Examples
--------
>>> import mxlab as mx
>>> mx.profiler.set_config(profile_all=True, filename="/tmp/mxlab_profile.json")
>>> with mx.profiler.state("run"):
...     y = mx.np.array([1.0, 2.0]) * 2
...     mx.engine.wait_all()
>>> "operator" in mx.profiler.dumps()
True
>>> mx.profiler.dump()
"""
import atexit
import contextlib
import dataclasses
import json
import os
import threading
import time
import warnings

from . import engine as _engine
from .atomic_file import write_text
from .base import MXNetNotImplementedError, MXNetValueError

__all__ = ["set_config", "set_state", "state", "pause", "resume", "dumps", "dump", "Domain", "Task",
           "Frame", "Event", "Counter", "Marker", "profiler_set_config", "profiler_set_state",
           "dump_profile"]

_DEFAULT_CONFIG = {"profile_all": False, "profile_symbolic": True, "profile_imperative": True,
                   "profile_memory": False, "profile_api": False, "filename": "profile.json",
                   "aggregate_stats": False, "continuous_dump": False, "dump_period": 1.0,
                   "profile_process": "worker"}
_SORT_KEYS = ("total", "avg", "min", "max", "count")
_MARKER_SCOPES = {"global": "g", "process": "p", "thread": "t", "task": "t", "marker": "t"}
_OP_CATEGORY = "operator"


@dataclasses.dataclass
class _Stat:
    """Aggregate of one name's durations, in seconds."""
    count: int = 0
    total: float = 0.0
    min: float = float("inf")
    max: float = 0.0

    def add(self, seconds):
        self.count += 1
        self.total += seconds
        self.min = min(self.min, seconds)
        self.max = max(self.max, seconds)

    @property
    def avg(self):
        return self.total / self.count

    def as_ms(self):
        return {"Count": self.count, "Total": self.total * 1e3, "Min": self.min * 1e3,
                "Max": self.max * 1e3, "Avg": self.avg * 1e3}


class _Profiler:
    """The process-wide profiler state (module functions below are its public face)."""

    def __init__(self):
        self.config = dict(_DEFAULT_CONFIG)
        self.running = False
        self.paused = False
        self.epoch = time.perf_counter()
        self.lock = threading.Lock()
        self.ops = []        # EngineEvents (turned into trace events at dump time)
        self.extra = []      # trace events of user objects (ranges, markers, counters)
        self.stats = {}      # category -> name -> _Stat
        # NOTE: as MXNet (Profiler::~Profiler dumps when output is enabled): once the profiler has
        #   run, the trace is written to ``filename`` at exit unless a dump came after the run.
        self.output_pending = False

    @property
    def recording(self):
        return self.running and not self.paused

    def profiles_ops(self):
        config = self.config
        return config["profile_all"] or config["profile_imperative"] or config["profile_symbolic"]

    def on_event(self, event):
        """Engine listener: keep the op and add its duration to the ``operator`` table (an op a
        Python custom operator runs: ``<op_type>::<op>`` in the ``Custom Operator`` table)."""
        if not self.recording or not self.profiles_ops():
            return
        custom = getattr(_CUSTOM_SCOPE, "name", None)
        with self.lock:
            if custom is None:
                self.ops.append(event)
                self._add_stat(_OP_CATEGORY, event.name, event.duration)
                return
            name = f"{custom}::{event.name}"
            self.extra.append(_complete_event(name, _CUSTOM_CATEGORY, event.start, event.end,
                                              event.thread, _op_args(event)))
            self._add_stat(_CUSTOM_CATEGORY, name, event.duration)

    def add_range(self, category, name, start, end):
        if not self.recording:
            return
        event = _complete_event(name, category, start, end, threading.current_thread().name)
        with self.lock:
            self.extra.append(event)
            self._add_stat(category, name, end - start)

    def add_instant(self, event):
        if not self.recording:
            return
        event.update(ts=_micros(time.perf_counter()), pid=os.getpid(),
                     tid=threading.current_thread().name)
        with self.lock:
            self.extra.append(event)

    def _add_stat(self, category, name, seconds):
        self.stats.setdefault(category, {}).setdefault(name, _Stat()).add(seconds)

    def trace(self):
        """The chrome-trace document of everything recorded so far."""
        with self.lock:
            ops = [_complete_event(e.name, _OP_CATEGORY, e.start, e.end, e.thread, _op_args(e))
                   for e in self.ops]
            events = ops + [dict(e) for e in self.extra]
        events.sort(key=lambda e: e["ts"])
        threads = _number_threads(events)
        pid = os.getpid()
        meta = [{"name": "process_name", "ph": "M", "pid": pid, "args": {"name": "mxlab"}}]
        meta += [{"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}}
                 for name, tid in threads.items()]
        return {"traceEvents": meta + events, "displayTimeUnit": "ms",
                "otherData": {"source": "mxlab engine event log"}}

    def clear_trace(self):
        with self.lock:
            self.ops = []
            self.extra = []


_PROFILER = _Profiler()
_CUSTOM_CATEGORY = "Custom Operator"
_CUSTOM_SCOPE = threading.local()


@contextlib.contextmanager
def custom_operator(name):
    """The block runs a Python custom operator's ``forward``/``backward`` (``name``: its op_type,
    ``_backward_<op_type>``) on this thread: recorded as ``<name>::pure_python`` in the ``Custom
    Operator`` category, the ops it runs as ``<name>::<op>`` (MXNet's custom-op profiling)."""
    previous, _CUSTOM_SCOPE.name = getattr(_CUSTOM_SCOPE, "name", None), name
    start = time.perf_counter()
    try:
        yield
    finally:
        _CUSTOM_SCOPE.name = previous
        _PROFILER.add_range(_CUSTOM_CATEGORY, f"{name}::pure_python", start, time.perf_counter())


def _micros(t):
    return (t - _PROFILER.epoch) * 1e6


def _complete_event(name, category, start, end, thread, args=None):
    event = {"name": name, "cat": category, "ph": "X", "ts": _micros(start),
             "dur": (end - start) * 1e6, "pid": os.getpid(), "tid": thread}
    if args:
        event["args"] = args
    return event


def _op_args(event):
    args = {"reads": [list(r) for r in event.reads], "writes": [list(w) for w in event.writes],
            "push_seq": event.push_seq}
    if event.bulk is not None:
        args["bulk"] = event.bulk
    if event.error:
        args["error"] = event.error
    return args


def _number_threads(events):
    """Replace thread names by small integer tids, in order of appearance; returns name -> tid."""
    threads = {}
    for event in events:
        event["tid"] = threads.setdefault(event["tid"], len(threads))
    return threads


# -- configuration and state -----------------------------------------------------------------------
def set_config(**kwargs):
    """Set profiler options (MXNet's ``mx.profiler.set_config``); unknown options are an error.

    Options: ``profile_all``, ``profile_symbolic``, ``profile_imperative``, ``profile_memory``,
    ``profile_api``, ``filename``, ``aggregate_stats``, ``continuous_dump``, ``dump_period``,
    ``profile_process``. Aggregates are always kept (cheap), whatever ``aggregate_stats`` says.

    Examples
    --------
    >>> import mxlab as mx
    >>> mx.profiler.set_config(profile_imperative=True, filename="/tmp/trace.json")
    """
    unknown = sorted(set(kwargs) - set(_DEFAULT_CONFIG))
    if unknown:
        raise MXNetValueError(f"profiler.set_config: unknown option(s) {unknown}; "
                              f"known: {sorted(_DEFAULT_CONFIG)}")
    _check_process(kwargs.get("profile_process", "worker"))
    unsupported = [k for k in ("profile_memory", "profile_api") if kwargs.get(k)]
    if unsupported:
        warnings.warn(f"mxlab's profiler records operator timings only; {', '.join(unsupported)} "
                      "records nothing", stacklevel=2)
    _PROFILER.config.update(kwargs)


def _check_process(profile_process):
    if profile_process != "worker":
        raise MXNetNotImplementedError(f"profiler: profile_process={profile_process!r} (kvstore "
                                       "server profiling) is not supported; only 'worker'")


def set_state(state="stop", profile_process="worker"):
    """Start (``'run'``) or stop (``'stop'``) recording engine ops.

    An async op is recorded when it completes: call ``mx.engine.wait_all()`` before stopping (as
    MXNet advises) so that ops still in flight are counted.
    """
    _check_process(profile_process)
    if state not in ("run", "stop"):
        raise MXNetValueError(f"profiler.set_state: state must be 'run' or 'stop', got {state!r}")
    running = state == "run"
    if running:
        _PROFILER.paused = False   # NOTE: as MXNet, a pause does not outlive a stop and a run
    if running == _PROFILER.running:
        return
    _PROFILER.running = running
    if running:
        _PROFILER.output_pending = True
        _engine.event_log.add_listener(_PROFILER.on_event)
    else:
        _engine.event_log.remove_listener(_PROFILER.on_event)


@contextlib.contextmanager
def state(value="run"):
    """``with mx.profiler.state('run'):`` profile the block, then restore the previous state."""
    previous = "run" if _PROFILER.running else "stop"
    set_state(value)
    try:
        yield
    finally:
        set_state(previous)


def pause(profile_process="worker"):
    """Stop recording without stopping the profiler (``resume()`` carries on)."""
    _check_process(profile_process)
    _PROFILER.paused = True


def resume(profile_process="worker"):
    """Carry on recording after :func:`pause`."""
    _check_process(profile_process)
    _PROFILER.paused = False


# -- output ----------------------------------------------------------------------------------------
def dumps(reset=False, format="table", sort_by="total", ascending=False):
    """The aggregate statistics: per category and op name, count and total/min/max/avg time in ms.

    ``format`` is ``'table'`` (MXNet's "Profile Statistics" text) or ``'json'``; ``sort_by`` one of
    ``'total'``, ``'avg'``, ``'min'``, ``'max'``, ``'count'``; ``reset`` clears the statistics
    afterwards.

    Examples
    --------
    >>> import mxlab as mx
    >>> print(mx.profiler.dumps(format="json"))  # doctest: +ELLIPSIS
    {...
    """
    if format not in ("table", "json"):
        raise MXNetValueError(f"profiler.dumps: format must be 'table' or 'json', got {format!r}")
    if sort_by not in _SORT_KEYS:
        raise MXNetValueError(f"profiler.dumps: sort_by must be one of {_SORT_KEYS}, "
                              f"got {sort_by!r}")
    with _PROFILER.lock:
        tables = {category: _sorted_rows(rows, sort_by, ascending)
                  for category, rows in _PROFILER.stats.items()}
        if reset:
            _PROFILER.stats = {}
    return _format_table(tables) if format == "table" else _format_json(tables)


def _sorted_rows(rows, sort_by, ascending):
    return sorted(((name, dataclasses.replace(stat)) for name, stat in rows.items()),
                  key=lambda item: getattr(item[1], sort_by), reverse=not ascending)


_HEADER = ("Name", "Total Count", "Time (ms)", "Min Time (ms)", "Max Time (ms)", "Avg Time (ms)")


def _table_line(cells):
    return f"{cells[0]:<25}" + " ".join(f"{c:>16}" for c in cells[1:])


def _format_table(tables):
    lines = ["", "Profile Statistics:", "\tNote the difference in units for different entries."]
    for category, rows in tables.items():
        lines += [category, "=================", _table_line(_HEADER),
                  _table_line(["-" * len(h) for h in _HEADER])]
        for name, stat in rows:
            ms = stat.as_ms()
            times = [f"{ms[key]:.4f}" for key in ("Total", "Min", "Max", "Avg")]
            lines.append(_table_line([name, ms["Count"]] + times))
        lines.append("")
    return "\n".join(lines) + "\n"


def _format_json(tables):
    document = {"Time": {category: {name: stat.as_ms() for name, stat in rows}
                         for category, rows in tables.items()},
                "Memory": {}, "Unit": {"Time": "ms", "Memory": "kB"}}
    return json.dumps(document, indent=4)


def dump(finished=True, profile_process="worker"):
    """Write the chrome-trace JSON (``{"traceEvents": [...]}``) to the configured ``filename``.

    ``finished=True`` also forgets the recorded trace (the statistics for :func:`dumps` stay); with
    ``finished=False`` a later dump writes the same events again plus newer ones.
    """
    _check_process(profile_process)
    document = _PROFILER.trace()
    write_text(_PROFILER.config["filename"], json.dumps(document))
    _PROFILER.output_pending = False
    if finished:
        _PROFILER.clear_trace()


@atexit.register
def _dump_at_exit():
    """MXNet writes the trace of a profiler that ran and was not dumped when the process ends
    (scripts that only ``set_state('run')``/``set_state('stop')`` still get their file)."""
    if _PROFILER.output_pending:
        try:
            dump()
        except OSError as err:   # the file's folder may be gone by now (a test's tmp_path)
            warnings.warn(f"profiler: could not write the trace at exit: {err}", stacklevel=1)


def profiler_set_config(mode="symbolic", filename="profile.json"):
    """Deprecated MXNet 1.x spelling of :func:`set_config`."""
    set_config(profile_all=mode == "all", filename=filename)


profiler_set_state = set_state
dump_profile = dump


# -- user objects ----------------------------------------------------------------------------------
class Domain:
    """A named category for user tasks, frames, counters and markers (a table in :func:`dumps`)."""

    def __init__(self, name):
        self.name = name

    def new_task(self, name):
        return Task(self, name)

    def new_frame(self, name):
        return Frame(self, name)

    def new_counter(self, name, value=None):
        return Counter(self, name, value)

    def new_marker(self, name):
        return Marker(self, name)

    def __str__(self):
        return self.name


class _Range:
    """A user-timed span: ``start()`` ... ``stop()`` makes one trace event and one stat sample."""

    def __init__(self, category, name):
        self.category = category
        self.name = name
        self._start = None

    def start(self):
        self._start = time.perf_counter()

    def stop(self):
        if self._start is None:
            raise MXNetValueError(f"profiler {type(self).__name__} {self.name!r}: "
                                  "stop() before start()")
        _PROFILER.add_range(self.category, self.name, self._start, time.perf_counter())
        self._start = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def __str__(self):
        return self.name


class Task(_Range):
    """A named span of work in a domain (``task.start(); ...; task.stop()``)."""

    def __init__(self, domain, name):
        super().__init__(domain.name, name)


class Frame(_Range):
    """A named span in a domain, for per-iteration work (same as :class:`Task` in the trace)."""

    def __init__(self, domain, name):
        super().__init__(domain.name, name)


class Event(_Range):
    """A named span with no domain (shown in the ``Event`` category)."""

    def __init__(self, name):
        super().__init__("Event", name)


class Counter:
    """A counter track: ``set_value``, ``increment``, ``decrement``, ``+=``, ``-=``."""

    def __init__(self, domain, name, value=None):
        self.domain = domain
        self.name = name
        self.value = None
        if value is not None:
            self.set_value(value)

    def set_value(self, value):
        self.value = value
        _PROFILER.add_instant({"name": self.name, "cat": self.domain.name, "ph": "C",
                               "args": {self.name: value}})

    def increment(self, delta=1):
        self.set_value((self.value or 0) + delta)

    def decrement(self, delta=1):
        self.set_value((self.value or 0) - delta)

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return f"{self.name}={self.value}"


class Marker:
    """An instant event: ``Marker(domain, 'name').mark(scope='process')``."""

    def __init__(self, domain, name):
        self.domain = domain
        self.name = name

    def mark(self, scope="process"):
        if scope not in _MARKER_SCOPES:
            raise MXNetValueError(f"profiler Marker {self.name!r}: scope must be one of "
                                  f"{list(_MARKER_SCOPES)}, got {scope!r}")
        _PROFILER.add_instant({"name": self.name, "cat": self.domain.name, "ph": "i",
                               "s": _MARKER_SCOPES[scope]})
