"""``mxnet.symbol._internal``: the symbol base class and ops by registered name."""
from ...symbol.frontend import make_symbol_frontend
from ...symbol.symbol import Symbol
from . import op_resolver

SymbolBase = Symbol
__getattr__ = op_resolver("mxnet.symbol._internal", ("", "_"), make_symbol_frontend(Symbol))
