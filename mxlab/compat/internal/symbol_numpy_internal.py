"""``mxnet.symbol.numpy._internal``: NumPy-flavour symbol ops by their MXNet op names."""
from ...symbol.frontend import make_symbol_frontend
from ...symbol.numpy import _Symbol
from . import op_resolver

__getattr__ = op_resolver("mxnet.symbol.numpy._internal", ("_npi_", "_np_", "_npx_", "", "_"),
                          make_symbol_frontend(_Symbol))
