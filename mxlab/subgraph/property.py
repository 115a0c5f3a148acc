"""Subgraph properties: a backend's selector factory and how it builds the node replacing a
subgraph (MXNet's ``SubgraphProperty``).

A property is created fresh for every partitioning, with the user's options as ``attrs``
(``op_names`` for the default backend; ``graph``, the forward graph with inferred shapes and dtypes
when arguments were given). :meth:`SubgraphProperty.create_subgraph_node` receives the inner
:class:`~mxlab.symbol.Symbol` (its variables are the boundary inputs ``<name><k>``) and returns a
:class:`~mxlab.graph.node.Node` without inputs; the partitioner wires them.

Example
-------
>>> import mxlab as mx
>>> from mxlab.subgraph.property import SubgraphProperty
>>> prop = SubgraphProperty()
>>> node = prop.create_subgraph_node(mx.sym.exp(mx.sym.var('x')), 0)
>>> node.name, node.op.name
('_default_subgraph_op0', '_default_subgraph_op')
"""
from ..graph.node import Node
from .subgraph_op import SubgraphRunner, make_subgraph_op

__all__ = ["SubgraphProperty"]


class SubgraphProperty:
    """Base property: subclass, override :meth:`create_subgraph_selector` and optionally
    :meth:`create_subgraph_node` (default: a ``_default_subgraph_op`` node).

    Parameters
    ----------
    **attrs
        Backend options; read them with :meth:`get_attr`.
    """

    #: Op name of the nodes :meth:`create_subgraph_node` makes, and how they run their graph.
    subgraph_op_name = "_default_subgraph_op"
    runner_cls = SubgraphRunner

    def __init__(self, **attrs):
        self.attrs = dict(attrs)

    def get_attr(self, name, default=None):
        return self.attrs.get(name, default)

    def set_attr(self, name, value):
        self.attrs[name] = value

    def create_subgraph_selector(self):
        """A new :class:`~mxlab.subgraph.selector.SubgraphSelector` (one per seed node)."""
        raise NotImplementedError(f"{type(self).__name__}.create_subgraph_selector is not written")

    def create_subgraph_node(self, sym, subgraph_id):
        """The node replacing the subgraph ``sym`` (inputs are wired by the partitioner)."""
        op = make_subgraph_op(sym, self.subgraph_op_name, runner_cls=self.runner_cls)
        return Node(op, f"{self.subgraph_op_name}{subgraph_id}", subgraphs=[sym])
