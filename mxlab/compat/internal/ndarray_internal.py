"""``mxnet.ndarray._internal``: the legacy array base class and ops by registered name."""
from ...executor.cached_op import CachedOp  # noqa: F401 (mx.nd._internal.CachedOp)
from ...ndarray.frontend import make_array_frontend
from ...ndarray.ndarray import NDArray
from . import op_resolver

NDArrayBase = NDArray
__getattr__ = op_resolver("mxnet.ndarray._internal", ("", "_"), make_array_frontend(NDArray))
from ...ndarray.sparse_ops import square_sum as _square_sum  # noqa: E402,F401 (rsp-aware)
