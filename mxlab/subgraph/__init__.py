"""The Subgraph API: backends select parts of a graph and replace each by one subgraph node.

``Symbol.optimize_for(backend, args, aux, **options)``, ``HybridBlock.optimize_for`` /
``hybridize(backend=...)`` and ``MXNET_SUBGRAPH_BACKEND`` (read at every bind) all call
:func:`partition_for_backend`. Backends are :class:`SubgraphProperty` classes registered with
:func:`register_subgraph_property`; built in: ``default`` (groups ops named in ``op_names``) and
``fuse`` (compiles chains of elementwise ops into one numexpr/CuPy kernel).

Example
-------
>>> import mxlab as mx
>>> x = mx.sym.var('data')
>>> y = mx.sym.cos(mx.sym.exp(x)) + mx.sym.sin(mx.sym.exp(x))
>>> sym, part = mx.subgraph.partition(y, 'default', op_names=['exp', 'sin', 'elemwise_add'])
>>> part.nodes
['_default_subgraph_op0', '_default_subgraph_op1']
>>> sym.list_inputs() == y.list_inputs()
True
"""
import numpy

from ..base import env_str
from .partition import Exclusion, Partition, partition_entries, partition_graph, partition_symbol
from .property import SubgraphProperty
from .registry import (create_property, list_backends, register_subgraph_property,
                       unregister_subgraph_property)
from .selector import OpNameSelector, SubgraphSelector
from .subgraph_op import (SubgraphRunner, is_subgraph_op, make_subgraph_op,
                          register_subgraph_op_name, restore_subgraph_ops)
from .backends.default import DefaultSubgraphProperty  # NOTE: importing registers 'default'
from .backends.fuse import FuseProperty  # NOTE: importing registers 'fuse'


__all__ = ["SubgraphSelector", "OpNameSelector", "SubgraphProperty", "DefaultSubgraphProperty",
           "FuseProperty",
           "register_subgraph_property", "unregister_subgraph_property", "list_backends",
           "create_property", "Partition", "Exclusion", "partition", "partition_graph",
           "partition_symbol", "partition_entries", "partition_for_backend", "maybe_partition",
           "make_subgraph_op", "is_subgraph_op", "SubgraphRunner", "set_backend_options",
           "register_subgraph_op_name", "restore_subgraph_ops",
           "last_partition"]

# backend -> options used when a caller gives none (MXNet's MXSetSubgraphPropertyOpNames hook)
_BACKEND_OPTIONS = {}
_LAST = {}


def set_backend_options(backend, **options):
    """Default options of ``backend`` for env-var partitioning (no options given);
    ``set_backend_options(backend)`` with none clears them.

    Example
    -------
    >>> set_backend_options('default', op_names=['exp'])
    >>> set_backend_options('default')
    """
    if options:
        _BACKEND_OPTIONS[backend] = options
    else:
        _BACKEND_OPTIONS.pop(backend, None)


def _by_name(names, values):
    if values is None:
        return {}
    if isinstance(values, dict):
        return dict(values)
    return dict(zip(names, values))


def _shape_graph(symbol, args, aux):
    """The forward graph with shapes and dtypes inferred from the given arrays."""
    from ..graph.graph import Graph
    from ..graph.passes import apply_pass

    arrays = _by_name(symbol.list_arguments(), args)
    arrays.update(_by_name(symbol.list_auxiliary_states(), aux))
    graph = Graph(list(symbol._outputs))
    graph = apply_pass(graph, "infer_shape", shapes={k: tuple(v.shape) for k, v in arrays.items()})
    return apply_pass(graph, "infer_type", dtypes={k: numpy.dtype(v.dtype).name
                                                    for k, v in arrays.items()})


def partition(symbol, backend, args=None, aux=None, **options):
    """``(partitioned symbol, Partition)``; ``args``/``aux`` (arrays by name or in order) give
    the property the inferred-shape graph as its ``graph`` attribute."""
    prop = create_property(backend, **(options or _BACKEND_OPTIONS.get(backend, {})))
    if args or aux:
        prop.set_attr("graph", _shape_graph(symbol, args, aux))
    result, part = partition_symbol(symbol, backend, prop)
    _LAST["partition"] = part
    return result, part


def partition_for_backend(symbol, backend, args=None, aux=None, **options):
    """``symbol`` partitioned by ``backend`` (see :func:`partition`); the entry point of
    ``optimize_for`` and ``hybridize(backend=...)``."""
    return partition(symbol, backend, args, aux, **options)[0]


def maybe_partition(symbol, args=None, aux=None, backend=None):
    """``symbol`` partitioned by the backend named in MXNET_SUBGRAPH_BACKEND (read now), else
    unchanged; the GraphExecutor calls it at bind.

    ``backend`` (or a string given as second argument, as the executor passes it) overrides the
    variable; ``NONE`` or empty means no partitioning.
    """
    if isinstance(args, str):
        backend, args = args, None
    backend = backend or env_str("MXNET_SUBGRAPH_BACKEND")
    if not backend or backend.upper() == "NONE":
        return symbol
    return partition_for_backend(symbol, backend, args, aux)


def last_partition():
    """The :class:`Partition` of the latest :func:`partition` call (for the notebook)."""
    return _LAST.get("partition")
