"""``mx.AttrScope``: attributes given to every symbol created inside a ``with`` block (MXNet's
``mxnet.attribute``; e.g. ``ctx_group`` for model-parallel placement)."""
import collections
import contextvars

from .base import MXNetValueError

__all__ = ["AttrScope", "current", "unique_subgraph_name"]


class _AttrScopeClass(type):
    """``AttrScope.current``: MXNet 1.x's class attribute for this thread's scope, readable and
    assignable."""

    @property
    def current(cls):
        return current()

    @current.setter
    def current(cls, scope):
        _current.set(scope)


class AttrScope(metaclass=_AttrScopeClass):
    """Attributes set for all symbol creations in the scope (values must be strings)."""
    _subgraph_names = collections.defaultdict(int)   # control-flow subgraph name -> uses

    def __init__(self, **kwargs):
        self._old_scope = None
        for key, value in kwargs.items():
            if not isinstance(value, str):
                raise MXNetValueError(f"Attributes need to be string (attribute {key!r})")
        self._attr = kwargs

    def get(self, attr):
        """The scope's attributes updated with ``attr`` (the ones a symbol was created with)."""
        merged = dict(self._attr)
        merged.update(attr or {})
        return merged

    def __enter__(self):
        merged = dict(current()._attr)
        merged.update(self._attr)
        self._attr = merged
        self._old_scope = _current.get()
        _current.set(self)
        return self

    def __exit__(self, ptype, value, trace):
        _current.set(self._old_scope)


_DEFAULT = AttrScope()
_current = contextvars.ContextVar("attrscope", default=None)


def current():
    """The innermost active :class:`AttrScope`."""
    return _current.get() or _DEFAULT


def unique_subgraph_name(name):
    """MXNet 2.0's control-flow subgraph naming: ``<scope's __subgraph_name__>$<name><n>``,
    counted in ``AttrScope._subgraph_names``."""
    scope = current()._attr.get("__subgraph_name__", "")
    if scope:
        name = f"{scope}${name}"
    AttrScope._subgraph_names[name] += 1
    return f"{name}{AttrScope._subgraph_names[name] - 1}"
