"""Signature-keyed cache of per-shape op plans (MXNet's ``OpSignature`` maps, seed 004).

Ops whose setup is costly for a given shape (Convolution, Deconvolution, Pooling, BatchNorm: window
geometry, padded workspaces, divisor maps, autotuned contraction choices) ask this cache for a
*plan* instead of rebuilding it on every call. The key is a structured tuple -- op name, parsed
attributes as a sorted tuple, ``(shape, dtype)`` of each array the plan depends on, the device and
any extra flags -- and lookups compare the whole key, so two shapes never share a plan by a hash
accident; ranks and array counts are implicit in the nesting. Entries live per thread (like MXNet's
``thread_local`` maps), an LRU bound (512 per thread unless ``MXLAB_OP_CACHE_LIMIT`` says
otherwise) evicts the oldest, and a plan is inserted only after it was built successfully.
:func:`info`, :func:`clear` and :func:`set_limit` act on every thread's cache, so under a
threaded engine they see the plans the worker threads built.

Switch the cache off (``mx.op_cache.disable()``) to see the regression the seed fixed: every call
then rebuilds its plan.

Examples
--------
>>> import mxlab as mx
>>> mx.op_cache.clear()
>>> key = mx.op_cache.signature("demo", {"k": 3}, [((2, 3), "float32")])
>>> mx.op_cache.get_or_build(key, lambda: "plan")
'plan'
>>> mx.op_cache.get_or_build(key, lambda: "other")
'plan'
>>> mx.op_cache.info()["demo"].hits
1
"""

import collections
import dataclasses
import threading
import time
import weakref

from .base import MXNetValueError, env_int
from .markup import html_text

__all__ = [
    "signature",
    "device_key",
    "get_or_build",
    "info",
    "clear",
    "reset_stats",
    "set_limit",
    "get_limit",
    "enable",
    "enabled",
    "disable",
    "is_enabled",
    "OpStats",
    "CacheInfo",
]


@dataclasses.dataclass
class OpStats:
    """Counters of one op, summed over threads (``build_time`` in s, ``size`` = live entries)."""

    hits: int = 0
    misses: int = 0
    evictions: int = 0
    failures: int = 0
    build_time: float = 0.0
    size: int = 0

    @property
    def hit_rate(self):
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


@dataclasses.dataclass
class CacheInfo:
    """A snapshot of all threads' caches: per-op :class:`OpStats` plus the switch and the bound."""

    ops: dict
    enabled: bool
    limit: object

    def __getitem__(self, op_name):
        return self.ops[op_name]

    def __contains__(self, op_name):
        return op_name in self.ops

    def _total(self, field):
        return sum(getattr(s, field) for s in self.ops.values())

    hits = property(lambda self: self._total("hits"))
    misses = property(lambda self: self._total("misses"))
    evictions = property(lambda self: self._total("evictions"))
    size = property(lambda self: self._total("size"))
    build_time = property(lambda self: self._total("build_time"))

    @property
    def hit_rate(self):
        total = self.hits + self.misses
        return self.hits / total if total else 0.0

    def _rows(self):
        return [
            (name, s.hits, s.misses, s.evictions, s.size, f"{s.build_time * 1e3:.2f}")
            for name, s in sorted(self.ops.items())
        ]

    def __repr__(self):
        head = f"OpCache(enabled={self.enabled}, limit={self.limit}, hit_rate={self.hit_rate:.2f})"
        lines = [
            head,
            f"  {'op':<24}{'hits':>8}{'misses':>8}{'evict':>8}{'size':>6}{'build ms':>10}",
        ]
        lines += [f"  {n:<24}{h:>8}{m:>8}{e:>8}{z:>6}{t:>10}" for n, h, m, e, z, t in self._rows()]
        return "\n".join(lines)

    def _repr_html_(self):
        cells = "".join(f"<tr>{''.join(f'<td>{html_text(v)}</td>' for v in row)}</tr>"
                        for row in self._rows())
        head = "".join(
            f"<th>{h}</th>" for h in ("op", "hits", "misses", "evictions", "size", "build ms")
        )
        return (
            f"<p>op cache: enabled={self.enabled}, limit={self.limit}, "
            f"hit rate={self.hit_rate:.2f}</p><table><tr>{head}</tr>{cells}</table>"
        )


class _Cache:
    """One thread's LRU map and stats table (plans may hold workspaces: never shared). The lock
    guards them against :func:`clear`/:func:`set_limit` called from another thread."""

    def __init__(self):
        self.entries = collections.OrderedDict()
        self.stats = {}
        self.lock = threading.Lock()


class _ThreadCache(threading.local):
    """Each thread's :class:`_Cache`, also listed (weakly: it goes with its thread) so that
    :func:`info` and :func:`clear` see the caches of engine worker threads too."""

    def __init__(self):
        self.cache = _Cache()
        _ALL_CACHES.add(self.cache)


_ALL_CACHES = weakref.WeakSet()
_LOCAL = _ThreadCache()
_MISSING = object()
# NOTE: bounded by default (plans may hold workspaces; MXNet's maps grew with every new shape);
# MXLAB_OP_CACHE_LIMIT=0 means unbounded.
_CONFIG = {"enabled": True, "limit": env_int("MXLAB_OP_CACHE_LIMIT", 512) or None}


def device_key(xp, array):
    """The device part of a key: ``('cpu', 0)`` for NumPy arrays, ``('gpu', id)`` for CuPy."""
    device = getattr(array, "device", None)
    if xp.__name__ == "numpy" or device is None or isinstance(device, str):
        return ("cpu", 0)
    return ("gpu", int(device.id))


_DTYPE_NAMES = {}  # NOTE: NumPy's dtype.name is Python code (~3-10 us); a plan lookup is hot


def _dtype_name(dtype):
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = dtype.name
    return name


def _array_sig(item):
    if isinstance(item, tuple):
        shape, dtype = item
        return (tuple(int(d) for d in shape), str(dtype))
    return (item.shape, _dtype_name(item.dtype))


def signature(op_name, attrs, arrays, device=("cpu", 0), extra=()):
    """The cache key: ``(op_name, sorted attrs, ((shape, dtype), ...), device, extra)``.

    ``arrays`` holds arrays or ``(shape, dtype)`` pairs; ``extra`` adds flags the plan depends on.
    """
    return (
        op_name,
        tuple(sorted(attrs.items())),
        tuple(_array_sig(a) for a in arrays),
        device,
        tuple(extra),
    )


def _stats(cache, op_name):
    stats = cache.stats.get(op_name)
    if stats is None:
        stats = cache.stats[op_name] = OpStats()
    return stats


def _build(cache, op_name, build):
    """Run ``build`` timing it; a failure is counted and re-raised, leaving no entry behind."""
    with cache.lock:
        stats = _stats(cache, op_name)
        stats.misses += 1
    start = time.perf_counter()
    try:
        plan = build()
    except BaseException:
        stats.failures += 1
        raise
    finally:
        stats.build_time += time.perf_counter() - start
    return plan


def get_or_build(key, build):
    """The plan cached under ``key``, else ``build()`` inserted under it (nothing if it raises)."""
    op_name = key[0]
    cache = _LOCAL.cache
    if not _CONFIG["enabled"]:
        return _build(cache, op_name, build)
    entries = cache.entries
    with cache.lock:
        plan = entries.get(key, _MISSING)
        if plan is not _MISSING:
            entries.move_to_end(key)
            _stats(cache, op_name).hits += 1
            return plan
    plan = _build(cache, op_name, build)
    with cache.lock:
        entries[key] = plan
        _evict(cache, _CONFIG["limit"])
    return plan


def _evict(cache, limit):
    while limit is not None and len(cache.entries) > limit:
        old_key, _ = cache.entries.popitem(last=False)
        _stats(cache, old_key[0]).evictions += 1


def _caches():
    return list(_ALL_CACHES)


def info():
    """Every thread's counters summed (the calling thread's and the engine workers'): a
    :class:`CacheInfo` of per-op hits, misses, evictions, failures, build time and size."""
    ops = {}
    for cache in _caches():
        with cache.lock:
            sizes = collections.Counter(key[0] for key in cache.entries)
            for name, stats in cache.stats.items():
                total = ops.setdefault(name, OpStats())
                for field in ("hits", "misses", "evictions", "failures", "build_time"):
                    setattr(total, field, getattr(total, field) + getattr(stats, field))
                total.size += sizes.get(name, 0)
    return CacheInfo(ops=ops, enabled=_CONFIG["enabled"], limit=_CONFIG["limit"])


def clear(stats=True):
    """Drop every thread's plans (and, unless ``stats=False``, their counters)."""
    for cache in _caches():
        with cache.lock:
            cache.entries.clear()
            if stats:
                cache.stats.clear()


def reset_stats():
    """Zero every thread's counters, keeping the plans (e.g. to measure a warm step's hit rate)."""
    for cache in _caches():
        with cache.lock:
            cache.stats.clear()


def set_limit(limit):
    """Bound the entries per thread (default 512; ``None`` or 0: unbounded); returns the old bound.

    Shrinking below the current size evicts least recently used plans at once.
    """
    if limit is not None and (not isinstance(limit, int) or limit < 0):
        raise MXNetValueError(
            f"op_cache.set_limit: limit must be a non-negative int or None, got {limit!r}"
        )
    previous, _CONFIG["limit"] = _CONFIG["limit"], limit or None
    for cache in _caches():
        with cache.lock:
            _evict(cache, _CONFIG["limit"])
    return previous


def get_limit():
    return _CONFIG["limit"]


def is_enabled():
    return _CONFIG["enabled"]


class _Switch:
    """Sets the switch at once; used as a context manager it also restores the old value on exit."""

    def __init__(self, flag):
        self.previous = _CONFIG["enabled"]
        _CONFIG["enabled"] = bool(flag)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _CONFIG["enabled"] = self.previous
        return False

    def __bool__(self):
        return _CONFIG["enabled"]


def enable(flag=True):
    """Turn the cache on (or off with ``enable(False)``) for every thread.

    Returns a handle that, used as ``with mx.op_cache.enable(False):``, restores the old setting
    on exit.
    """
    return _Switch(flag)


enabled = enable


def disable():
    """Turn the cache off: every call builds its plan afresh (``with mx.op_cache.disable():``)."""
    return _Switch(False)
