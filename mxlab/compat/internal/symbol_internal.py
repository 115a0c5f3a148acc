"""``mxnet.symbol._internal``: the symbol base class and ops by registered name."""
from ...symbol.frontend import make_symbol_frontend
from ...symbol.symbol import Symbol
from . import op_resolver

SymbolBase = Symbol
__getattr__ = op_resolver("mxnet.symbol._internal", ("", "_"), make_symbol_frontend(Symbol))



def _CachedOp(*args, subgraph, name=None, **kwargs):  # noqa: N802  (MXNet's op name)
    """MXNet 1.x's ``_CachedOp`` node: the graph saved as JSON in ``subgraph`` run as one op
    (a subgraph op of mxlab's), its inputs (``list_inputs`` order) bound to ``args``."""
    from ...subgraph.subgraph_op import make_subgraph_op
    from ...symbol import load_json
    op = make_subgraph_op(load_json(subgraph), "_CachedOp")
    return make_symbol_frontend(Symbol)(op, "_CachedOp")(*args, name=name)
