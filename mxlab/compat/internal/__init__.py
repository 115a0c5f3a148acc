"""MXNet's private op namespaces (``mxnet.ndarray._internal``, ``mxnet.ndarray.numpy._internal``
alias ``_npi``, ``mxnet.symbol._internal``, ...), which MXNet's own tests call directly.

Each module resolves ``name`` lazily to a frontend of the registered op with that name, trying the
prefixes the namespace used in MXNet (``_npi.add`` -> op ``_npi_add``); a name with no op raises
``AttributeError`` naming the namespace.
"""
import functools

from ...ops import registry

__all__ = ["op_resolver"]


def op_resolver(namespace, prefixes, make_frontend):
    """A module-level ``__getattr__`` giving, for ``name``, ``make_frontend(op, name)`` of the
    first registered op among ``prefix + name`` for ``prefix`` in ``prefixes``."""
    @functools.cache
    def frontend(name, op_name):
        return make_frontend(registry.get_op(op_name), name)

    def __getattr__(name):
        if not name.startswith("__"):
            for prefix in prefixes:
                if registry.has_op(prefix + name):
                    return frontend(name, prefix + name)
        raise AttributeError(f"module {namespace!r} has no attribute {name!r} (no such op)")
    return __getattr__
