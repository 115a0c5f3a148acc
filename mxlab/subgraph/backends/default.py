"""The ``default`` backend: groups connected ops whose names are in ``op_names`` into
``_default_subgraph_op`` nodes (MXNet's ``DefaultSubgraphProperty``).

Example
-------
>>> import mxlab as mx
>>> y = mx.sym.exp(mx.sym.sin(mx.sym.var('x')), name='e')
>>> y.optimize_for('default', op_names=['exp', 'sin']).get_internals().list_outputs()
['x', '_default_subgraph_op0_e_output']
"""
from ...base import MXNetValueError
from ..property import SubgraphProperty
from ..registry import register_subgraph_property
from ..selector import OpNameSelector

__all__ = ["DefaultSubgraphProperty"]


@register_subgraph_property("default")
class DefaultSubgraphProperty(SubgraphProperty):
    """The ``default`` backend: groups connected ops whose names are in ``op_names``."""

    def __init__(self, **attrs):
        super().__init__(**attrs)
        if "op_names" not in self.attrs:
            raise MXNetValueError("subgraph backend 'default' needs the option op_names (the ops "
                                  "to group), e.g. optimize_for('default', op_names=['exp'])")

    def create_subgraph_selector(self):
        return OpNameSelector(self.attrs["op_names"])
