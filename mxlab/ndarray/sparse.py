"""``mx.nd.sparse``: MXNet's sparse storage (``CSRNDArray``, ``RowSparseNDArray`` and their
functions) is not built in mxlab; every name here raises a ``NotImplementedError`` naming the
storage type, so code reaching for it fails at the call with the reason (see docs/compat.md).

Example
-------
>>> import mxlab as mx
>>> mx.nd.sparse.csr_matrix
Traceback (most recent call last):
...
mxlab.base.MXNetNotImplementedError: mx.nd.sparse.csr_matrix: sparse storage ('csr', \
'row_sparse') is not built in mxlab; use dense arrays (see docs/compat.md)
"""
from ..base import MXNetNotImplementedError

__all__ = []

# NOTE: MXNet's mx.nd.sparse names (its __all__ and module functions) plus the sparse-only ops
#   it generates there; any other name is an ordinary AttributeError.
SPARSE_NAMES = frozenset((
    "csr_matrix", "row_sparse_array", "BaseSparseNDArray", "CSRNDArray", "RowSparseNDArray",
    "add", "subtract", "multiply", "divide", "zeros", "empty", "array", "dot", "retain",
    "cast_storage", "slice", "where", "sum", "mean", "norm", "square_sum", "adagrad_update",
    "sgd_update", "sgd_mom_update", "adam_update", "ftrl_update", "elemwise_add",
    "elemwise_sub", "elemwise_mul", "broadcast_add", "broadcast_sub", "broadcast_mul",
    "broadcast_div", "zeros_like", "abs", "sqrt", "square", "sign", "relu", "sigmoid"))


def __getattr__(name):
    if name not in SPARSE_NAMES:
        raise AttributeError(f"module 'mxlab.ndarray.sparse' has no attribute {name!r}")
    raise MXNetNotImplementedError(
        f"mx.nd.sparse.{name}: sparse storage ('csr', 'row_sparse') is not built in mxlab; use "
        "dense arrays (see docs/compat.md)")
