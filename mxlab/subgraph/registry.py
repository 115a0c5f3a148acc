"""The subgraph backend registry: backend name -> property class (MXNet's
``MXNET_REGISTER_SUBGRAPH_PROPERTY``).

Example
-------
>>> from mxlab.subgraph import registry
>>> @registry.register_subgraph_property("only_exp_demo")
... class OnlyExp(registry.SubgraphProperty):
...     def create_subgraph_selector(self):
...         from mxlab.subgraph.selector import OpNameSelector
...         return OpNameSelector(["exp"])
>>> "only_exp_demo" in registry.list_backends()
True
>>> registry.unregister_subgraph_property("only_exp_demo")
"""
from ..base import MXNetKeyError, MXNetValueError
from .property import SubgraphProperty

__all__ = ["register_subgraph_property", "unregister_subgraph_property", "list_backends",
           "create_property", "SubgraphProperty"]

_BACKENDS = {}


def register_subgraph_property(name):
    """Decorator registering a property class (or factory ``**attrs -> SubgraphProperty``)."""
    def decorate(factory):
        if name in _BACKENDS:
            raise MXNetValueError(f"subgraph backend '{name}' is already registered")
        _BACKENDS[name] = factory
        return factory
    return decorate


def unregister_subgraph_property(name):
    """Remove backend ``name`` (extensions unloading)."""
    if _BACKENDS.pop(name, None) is None:
        raise MXNetKeyError(f"subgraph backend '{name}' is not registered")


def list_backends():
    """Registered backend names, sorted."""
    return sorted(_BACKENDS)


def create_property(name, **attrs):
    """A fresh property of backend ``name`` with options ``attrs``."""
    if name not in _BACKENDS:
        raise MXNetKeyError(f"unknown subgraph backend '{name}'; registered backends: "
                            f"{list_backends()}")
    return _BACKENDS[name](**attrs)
