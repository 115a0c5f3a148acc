"""``mxnet.ndarray.numpy._internal`` (``_npi``): NumPy-flavour ops by their MXNet op names."""
from ...ndarray.frontend import make_array_frontend
from ...ndarray.ndarray import ndarray
from . import op_resolver

__getattr__ = op_resolver("mxnet.ndarray.numpy._internal", ("_npi_", "_np_", "_npx_", "", "_"),
                          make_array_frontend(ndarray))
