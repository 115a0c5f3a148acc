"""The dependency engine (``mx.engine``): versioned vars, ``push``, waits, event log, bulking.

The engine in use is chosen by ``MXNET_ENGINE_TYPE`` at first use, or later with :func:`set_engine`:
``NaiveEngine`` (the default) runs every op at once on the calling thread; ``ThreadedEngine`` and
``ThreadedEnginePerDevice`` (one worker pool, ``MXNET_CPU_WORKER_NTHREADS`` threads) run ops
asynchronously in dependency order and raise an op's error at the next sync point.

NOTE: the default is ``NaiveEngine``, unlike MXNet: in a notebook an error should point at the cell
that caused it, Python threads give little overlap under the GIL, and kernels that read thread-local
state (autograd mode, np-shape scopes, the current CuPy device) see the pushing thread's values only
when run on it.

Examples
--------
>>> import mxlab as mx
>>> a = mx.np.array([1.0, 2.0])
>>> a.version
1
>>> with mx.engine.bulk(4):
...     b = a * 2
>>> b.asnumpy()
array([2., 4.], dtype=float32)
"""
import contextlib
import os
import threading

from ..base import MXNetValueError, env_str
from .log import EngineEvent, EventLog
from .naive import NaiveEngine
from .threaded import ThreadedEngine, ThreadedEnginePerDevice
from .var import Var, write_count

__all__ = ["Var", "EngineEvent", "EventLog", "NaiveEngine", "ThreadedEngine",
           "ThreadedEnginePerDevice", "register_engine_type", "engine_types", "get_engine",
           "set_engine", "push", "inline", "wait_for_var", "wait_all", "drain", "set_bulk_size",
           "bulk", "event_log", "new_var", "resource_var", "write_count"]

DEFAULT_ENGINE_TYPE = "NaiveEngine"
event_log = EventLog()
_ENGINE_TYPES = {}
_RESOURCE_VARS = {}
_engine_lock = threading.Lock()
_engine = None


def _forget_engine_in_child():
    """A forked child (DataLoader workers) has none of the parent's worker threads and may hold
    a copy of a lock taken at fork time: it starts over with a fresh lock and, on first use, a
    fresh engine of the configured type."""
    global _engine, _engine_lock
    _engine, _engine_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_engine_in_child)


def register_engine_type(name, cls):
    """Make an engine class selectable by ``MXNET_ENGINE_TYPE`` / :func:`set_engine` under ``name``.

    ``cls(event_log=...)`` must give an object with ``push``, ``wait_for_var``, ``wait_all``,
    ``drain``, ``set_bulk_size`` and ``shutdown``.
    """
    _ENGINE_TYPES[name] = cls


def engine_types():
    """The registered engine names, sorted."""
    return sorted(_ENGINE_TYPES)


for _cls in (NaiveEngine, ThreadedEngine, ThreadedEnginePerDevice):
    register_engine_type(_cls.name, _cls)


def _make_engine(kind):
    if kind not in _ENGINE_TYPES:
        raise MXNetValueError(f"unknown engine type {kind!r} (MXNET_ENGINE_TYPE); "
                              f"known: {engine_types()}")
    # NOTE: engines start with bulk size 0: as in MXNet, imperative pushes are bulked only when
    #   asked (mx.engine.bulk / set_bulk_size); graph executors segment their own ops.
    return _ENGINE_TYPES[kind](event_log=event_log)


def get_engine():
    """The engine in use (created from ``MXNET_ENGINE_TYPE`` on first use)."""
    global _engine
    if _engine is None:
        with _engine_lock:
            if _engine is None:
                _engine = _make_engine(env_str("MXNET_ENGINE_TYPE", DEFAULT_ENGINE_TYPE))
    return _engine


def set_engine(kind):
    """Switch engines at runtime; returns the new engine.

    ``kind`` is a registered name or an engine object (e.g. the one :func:`get_engine` returned
    before, to restore it). The old engine is then drained and its workers stopped; an error still
    pending in it is raised after the switch.
    """
    global _engine
    new = _make_engine(kind) if isinstance(kind, str) else kind
    old, _engine = _engine, new
    if old is not None and old is not new:
        try:
            old.wait_all()
        finally:
            old.shutdown()
    return new


def new_var(name=None):
    return Var(name)


def resource_var(kind, device=None):
    """The one var of a shared resource (``"rng"``, ``"temp"``) on ``device`` (as MXNet's).

    An op using the resource lists this var among the vars it writes, so ops sharing one random
    generator run one at a time in push order and a seed gives the same numbers under any engine.

    Examples
    --------
    >>> import mxlab as mx
    >>> mx.engine.resource_var("rng", mx.cpu()) is mx.engine.resource_var("rng", mx.cpu())
    True
    """
    key = (kind, str(device))
    var = _RESOURCE_VARS.get(key)
    if var is None:
        var = _RESOURCE_VARS.setdefault(key, Var(f"{kind}:{device}"))
    return var


def push(fn, read_vars=(), write_vars=(), name="op"):
    """Schedule ``fn()`` after every earlier op that writes a var in ``read_vars`` or touches one in
    ``write_vars``; each var in ``write_vars`` gets one more version when ``fn`` completes."""
    get_engine().push(fn, read_vars, write_vars, name)


def inline():
    """A context in which this thread's pushes run at once, in push order (for an op whose kernel
    runs a private graph: see ``ThreadedEngine.inline``)."""
    return get_engine().inline()


def wait_for_var(var):
    """Block until every pushed op writing ``var`` has finished; re-raise an error they raised."""
    get_engine().wait_for_var(var)


def wait_all():
    """Block until every pushed op has finished; re-raise the first pending error."""
    get_engine().wait_all()


def drain():
    """Block until every pushed op has finished, leaving their errors to the next sync point."""
    get_engine().drain()


def set_bulk_size(size):
    """Set the max ops per bulk task; returns the previous value (``mx.engine.set_bulk_size``)."""
    return get_engine().set_bulk_size(size)


@contextlib.contextmanager
def bulk(size):
    """``with mx.engine.bulk(n):`` run the block with bulk size ``n``, then restore the old size."""
    previous = set_bulk_size(size)
    try:
        yield
    finally:
        set_bulk_size(previous)
