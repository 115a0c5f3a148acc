"""Subgraph selectors: which nodes a backend groups into one subgraph (MXNet's
``SubgraphSelector``).

The partitioner asks a *fresh* selector for every seed node (a selector may keep state while it
grows one subgraph): ``select(seed)`` starts a subgraph, ``select_input(cur, producer)`` and
``select_output(cur, consumer)`` grow it along edges, and ``filter(candidates)`` may drop nodes at
the end (never add: the partitioner checks). Selectors are also asked about variable nodes and
must refuse them.

Example
-------
>>> import mxlab as mx
>>> from mxlab.subgraph.selector import OpNameSelector
>>> y = mx.sym.exp(mx.sym.var('x'))
>>> node = y._outputs[0].node
>>> OpNameSelector({'exp'}).select(node), OpNameSelector({'sin'}).select(node)
(True, False)
"""
from ..ops import registry

__all__ = ["SubgraphSelector", "OpNameSelector", "canonical_op_names"]


class SubgraphSelector:
    """Base selector: selects nothing. Subclass and override the predicates you need."""

    def select(self, node):
        """Whether ``node`` may seed a new subgraph."""
        return False

    def select_input(self, node, input_node):
        """Whether ``input_node`` (a producer of ``node``'s inputs) joins ``node``'s subgraph."""
        return False

    def select_output(self, node, output_node):
        """Whether ``output_node`` (a consumer of ``node``) joins ``node``'s subgraph."""
        return False

    def filter(self, candidates):
        """The nodes to keep among ``candidates`` (topologically sorted); default: all."""
        return list(candidates)


def canonical_op_names(op_names):
    """Canonical op names for names or aliases (``_Plus`` -> ``elemwise_add``).

    Unknown names are kept as given (an op registered later may carry them).
    """
    names = set()
    for name in op_names:
        names.add(registry.get_op(name).name if registry.has_op(name) else name)
    return frozenset(names)


class OpNameSelector(SubgraphSelector):
    """Selects every op node whose op (by canonical name or alias) is in ``op_names`` (MXNet's
    ``ContainOpSelector``, used by the ``default`` backend)."""

    def __init__(self, op_names):
        self.op_names = canonical_op_names(op_names)

    def _wanted(self, node):
        return node.op is not None and node.op.name in self.op_names

    def select(self, node):
        return self._wanted(node)

    def select_input(self, node, input_node):
        return self._wanted(input_node)

    def select_output(self, node, output_node):
        return self._wanted(output_node)
