"""``mx.AttrScope``: attributes given to every symbol created inside a ``with`` block (MXNet's
``mxnet.attribute``; e.g. ``ctx_group`` for model-parallel placement)."""
import contextvars

from .base import MXNetValueError

__all__ = ["AttrScope", "current"]


class AttrScope:
    """Attributes set for all symbol creations in the scope (values must be strings)."""

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
