"""Forward im2col columns kept for the backward-weight pass (MXNet's im2col workspace reuse).

A training forward builds the columns of ``x`` (its windows laid out for one GEMM); the
weight gradient ``dW = dY @ cols^T`` needs the same columns. Where the plan's forward and
backward-weight algorithms share a layout, the forward keeps its columns here and the backward
takes them instead of building them again (the copy is ``prod(kernel)`` times the size of
``x``: for a 3x3 convolution about a quarter of the direction's time on small maps).

Kept columns are only a shortcut, never trusted: each entry holds a snapshot of the ``x`` it
was built from, and :func:`take` hands the columns out only while the ``x`` it is given still
equals that snapshot (the comparison reads ``x`` twice; building the columns writes it
``prod(kernel)`` times). An entry is found by the plan's geometry, the layout and where ``x``
lives, so a static graph's layers that share one plan (same shapes) keep one entry each.

Entries live per thread (like the plans, see :mod:`mxlab.op_cache`), are taken once, and are
bounded: at most ``MXLAB_CONV_KEEP_MB`` megabytes (default 128, 0 turns keeping off) per
thread, the oldest dropped first.
"""

import collections
import threading

from ...base import env_int

__all__ = ["budget", "keep", "take", "clear", "kept_bytes"]


def budget():
    """Bytes of columns and snapshots a thread may keep (``MXLAB_CONV_KEEP_MB``, default 128)."""
    return max(0, env_int("MXLAB_CONV_KEEP_MB", 128)) << 20


class _Kept(threading.local):
    def __init__(self):
        self.entries = collections.OrderedDict()  # key -> (snapshot of x, columns, bytes)
        self.nbytes = 0


_KEPT = _Kept()


def _address(x):
    face = getattr(x, "__cuda_array_interface__", None) or x.__array_interface__
    return face["data"][0]


def _key(plan, x, layout):
    return (plan.win, plan.groups, plan.w_shape, layout, _address(x), x.shape, x.strides)


def _drop(key):
    entry = _KEPT.entries.pop(key, None)
    if entry is not None:
        _KEPT.nbytes -= entry[2]
    return entry


def keep(plan, xp, x, layout, cols):
    """Keep ``cols`` (the ``layout`` columns of ``x``) for the backward pass of ``plan``.

    Skipped where the columns share memory with ``x`` or the plan's workspaces (a view, not a
    copy: later calls overwrite it) or exceed the budget.
    """
    limit = budget()
    nbytes = cols.nbytes + x.nbytes
    if nbytes > limit or any(
        ws is not None and xp.may_share_memory(cols, ws)
        for ws in (x, plan.workspace, plan.cn_workspace)
    ):
        return
    key = _key(plan, x, layout)
    _drop(key)
    while _KEPT.entries and _KEPT.nbytes + nbytes > limit:
        _drop(next(iter(_KEPT.entries)))
    _KEPT.entries[key] = (xp.array(x, copy=True), cols, nbytes)
    _KEPT.nbytes += nbytes


def take(plan, xp, x, layout):
    """The kept ``layout`` columns of ``x`` (dropped from the store), or None when none were
    kept or ``x`` changed since."""
    entry = _drop(_key(plan, x, layout))
    if entry is None:
        return None
    snapshot, cols, _ = entry
    if snapshot.dtype != x.dtype or not bool(xp.array_equal(snapshot, x)):
        return None
    return cols


def clear():
    """Drop this thread's kept columns."""
    _KEPT.entries.clear()
    _KEPT.nbytes = 0


def kept_bytes():
    """Bytes this thread keeps now."""
    return _KEPT.nbytes
