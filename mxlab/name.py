"""``mx.name``: how symbols created without an explicit name are named (MXNet's ``NameManager`` and
``Prefix``)."""
import contextvars
import threading

from .graph.node import new_node_name

__all__ = ["NameManager", "Prefix", "current", "op_name"]


class _OpName(threading.local):
    """The ``name=`` an array op was called with while deferred compute records (Gluon 1 layers
    name their op ``fwd``): a 1.x trace names the recorded node from it."""
    value = None


op_name = _OpName()


class _NameManagerClass(type):
    """``NameManager.current``: MXNet 1.x's class attribute for this thread's manager, readable
    and assignable."""

    @property
    def current(cls):
        return current()

    @current.setter
    def current(cls, manager):
        _current.set(manager)


class NameManager(metaclass=_NameManagerClass):
    """Names symbols: an explicit ``name`` is kept, otherwise ``hint`` plus a counter."""

    def __init__(self):
        self._counter = {}
        self._old_manager = None

    def get(self, name, hint):
        """The name to give a new symbol created with ``name`` (may be None) and ``hint``."""
        if name:
            return name
        count = self._counter.setdefault(hint, 0)
        if self is _default:   # the process-wide counters mxlab names nodes with
            self._counter[hint] = count + 1
            return new_node_name(hint)
        hint = hint.lower()
        count = self._counter.setdefault(hint, 0)
        self._counter[hint] = count + 1
        return f"{hint}{count}"

    def __enter__(self):
        self._old_manager = _current.get()
        _current.set(self)
        return self

    def __exit__(self, ptype, value, trace):
        _current.set(self._old_manager)


class Prefix(NameManager):
    """A name manager that prepends ``prefix`` to every name it gives."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)


_default = NameManager()
_current = contextvars.ContextVar("namemanager", default=_default)


def current():
    """The innermost active :class:`NameManager`."""
    return _current.get()
