"""The pass registry: named ``Graph -> Graph`` functions declaring the attributes they need and
provide.

Every run is appended to the graph's pass log (name, options, seconds, the attributes it required
and provided), so the notebook can show what was done to a graph and how long it took. CachedOp and
GraphExecutor run every transformation through here (see :mod:`mxlab.executor.planning`).

Example
-------
>>> from mxlab.graph.passes import register_pass, apply_pass, list_passes
>>> @register_pass("count_nodes", provides=("num_nodes",))
... def count_nodes(graph):
...     return graph.copy(num_nodes=graph.indexed.num_nodes)
>>> "count_nodes" in list_passes()
True
"""
import contextlib
import dataclasses
import gc
import threading
import time
import typing

from ..base import MXNetKeyError, MXNetValueError
from .graph import PassRecord

__all__ = ["register_pass", "unregister_pass", "apply_pass", "list_passes", "get_pass", "PassInfo"]


@dataclasses.dataclass(frozen=True)
class PassInfo:
    """A registered pass ``fn(graph, **options) -> graph``; ``requires``/``provides`` name graph
    attributes."""
    name: str
    fn: typing.Callable
    requires: tuple = ()
    provides: tuple = ()
    doc: str = ""


_PASSES = {}


def register_pass(name, requires=(), provides=()):
    """Decorator registering ``fn(graph, **options) -> Graph`` as ``name`` (verb_noun)."""
    def decorate(fn):
        if name in _PASSES:
            raise MXNetValueError(f"graph pass '{name}' is already registered")
        doc = (fn.__doc__ or "").strip()
        _PASSES[name] = PassInfo(name, fn, tuple(requires), tuple(provides), doc)
        return fn
    return decorate


def get_pass(name):
    """The :class:`PassInfo` registered as ``name``."""
    if name not in _PASSES:
        raise MXNetKeyError(f"graph pass '{name}' is not registered; registered passes: "
                            f"{list_passes()}")
    return _PASSES[name]


def unregister_pass(name):
    """Remove pass ``name`` (extensions unloading); an unknown name is ignored."""
    _PASSES.pop(name, None)


def list_passes():
    """Names of the registered passes, sorted."""
    return sorted(_PASSES)


def apply_pass(graph, name, **options):
    """Run pass ``name`` on ``graph`` and log it on the result.

    A graph lacking an attribute the pass requires raises an error naming the passes providing it.
    """
    info = get_pass(name)
    missing = [a for a in info.requires if a not in graph.attrs]
    if missing:
        raise MXNetValueError(f"graph pass '{name}' requires graph attributes {missing}; run the "
                              f"passes that provide them first ({_providers(missing)})")
    start = time.perf_counter()
    with _gc_paused():
        result = info.fn(graph, **options)
    result.pass_log.append(PassRecord(name, dict(options), time.perf_counter() - start,
                                      info.requires, info.provides))
    return result


_GC_PAUSE = {"depth": 0, "was_enabled": False}
_GC_LOCK = threading.Lock()


@contextlib.contextmanager
def _gc_paused():
    """Pause the cyclic garbage collector while a pass runs. A pass builds many small objects that
    live as long as its graph, so collections during it find nothing and only cost time (about a
    third of planning a 10k-node graph); nested and concurrent passes share one pause."""
    with _GC_LOCK:
        if _GC_PAUSE["depth"] == 0:
            _GC_PAUSE["was_enabled"] = gc.isenabled()
            gc.disable()
        _GC_PAUSE["depth"] += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_PAUSE["depth"] -= 1
            if _GC_PAUSE["depth"] == 0 and _GC_PAUSE["was_enabled"]:
                gc.enable()


def _providers(attrs):
    found = [p.name for p in _PASSES.values() if set(attrs) & set(p.provides)]
    return ", ".join(found) or "no registered pass provides them"
