"""``Block.register_op_hook`` (MXNet's): a callback on the values of every node of a hybridized
block's graph while it runs forward (see :mod:`mxlab.executor.op_hook` for the names)."""

import weakref

from .. import engine as _engine

__all__ = ["OpHooks", "HookHandle"]


class HookHandle:
    """Detaches a forward (pre-)hook: ``handle.detach()`` or leaving ``with handle:``."""

    _ids = iter(range(1 << 62))

    def __init__(self, hooks_dict, hook):
        self._hooks_ref = weakref.ref(hooks_dict)
        self._id = next(HookHandle._ids)
        hooks_dict[self._id] = hook

    def detach(self):
        hooks = self._hooks_ref()
        if hooks is not None:
            hooks.pop(self._id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.detach()


class OpHooks:
    """Mixin of :class:`~mxlab.gluon.Block`: the op hook, installed on the block's CachedOp (now
    and whenever it is rebuilt) and on every child."""

    _op_hook = None

    def register_op_hook(self, callback, monitor_all=False):
        """Call ``callback(name, op_name, NDArray)`` on each node's outputs (inputs too with
        ``monitor_all``) when this block (hybridized) or its hybridized children run."""
        self._op_hook = (callback, bool(monitor_all))
        cached = getattr(self, "_cached_op", None)
        if cached is not None:
            cached.register_op_hook(callback, bool(monitor_all))
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def _hooked(self, cached_op):
        """``cached_op`` with this block's op hook registered (when it has one)."""
        if self._op_hook is not None:
            cached_op.register_op_hook(*self._op_hook)
        return cached_op

    def _run_cached(self, inputs):
        """The CachedOp on ``inputs``; with an op hook, run at once on this thread (MXNet calls
        op hooks on the caller's thread, so the callback has run when the call returns)."""
        if self._op_hook is None:
            return self._cached_op(*inputs)
        with _engine.inline():
            return self._cached_op(*inputs)
