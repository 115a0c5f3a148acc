"""The dependency engine (``mx.engine``): vars with versions, ``push``, waits, the event log, bulking.

The engine in use is chosen by ``MXNET_ENGINE_TYPE`` (``NaiveEngine`` runs synchronously; ``ThreadedEngine`` /
``ThreadedEnginePerDevice`` run on worker threads) at import, or later with :func:`set_engine`.
"""
import contextlib

from ..base import MXNetValueError, env_int, env_str
from .log import EngineEvent, EventLog
from .naive import NaiveEngine
from .var import Var

__all__ = ["Var", "EngineEvent", "EventLog", "NaiveEngine", "get_engine", "set_engine", "push", "wait_for_var",
           "wait_all", "set_bulk_size", "bulk", "event_log", "new_var"]

event_log = EventLog()
_ENGINE_TYPES = {"NaiveEngine": NaiveEngine}


def register_engine_type(name, cls):
    """Make an engine class selectable by ``MXNET_ENGINE_TYPE`` / :func:`set_engine`."""
    _ENGINE_TYPES[name] = cls


def _make_engine(kind):
    if kind not in _ENGINE_TYPES:
        raise MXNetValueError(f"unknown engine type {kind!r} (MXNET_ENGINE_TYPE); known: {sorted(_ENGINE_TYPES)}")
    return _ENGINE_TYPES[kind](event_log=event_log)


_engine = None


def get_engine():
    """The engine in use (created from ``MXNET_ENGINE_TYPE`` on first use)."""
    global _engine
    if _engine is None:
        _engine = _make_engine(env_str("MXNET_ENGINE_TYPE", _default_engine_type()))
        _engine.set_bulk_size(env_int("MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN", 15))
    return _engine


def _default_engine_type():
    return "ThreadedEnginePerDevice" if "ThreadedEnginePerDevice" in _ENGINE_TYPES else "NaiveEngine"


def set_engine(kind):
    """Switch engines (waits for the old one to drain); returns the new engine."""
    global _engine
    if _engine is not None:
        _engine.wait_all()
    _engine = _make_engine(kind)
    return _engine


def new_var(name=None):
    return Var(name)


def push(fn, read_vars=(), write_vars=(), name="op"):
    """Schedule ``fn()`` after every earlier op that writes a var in ``read_vars`` or touches one in ``write_vars``."""
    get_engine().push(fn, read_vars, write_vars, name)


def wait_for_var(var):
    """Block until every pushed op writing ``var`` has finished; re-raise an error one of them raised."""
    get_engine().wait_for_var(var)


def wait_all():
    """Block until every pushed op has finished; re-raise the first pending error."""
    get_engine().wait_all()


def set_bulk_size(size):
    """Set the max number of ops per bulk segment; returns the previous value (as ``mx.engine.set_bulk_size``)."""
    return get_engine().set_bulk_size(size)


@contextlib.contextmanager
def bulk(size):
    """``with mx.engine.bulk(n):`` run the block with bulk size ``n``, restoring the old size after."""
    previous = set_bulk_size(size)
    try:
        yield
    finally:
        set_bulk_size(previous)
