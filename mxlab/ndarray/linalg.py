"""``mx.nd.linalg``: MXNet 1.x's legacy linear-algebra ops on NDArrays (every registered
``_linalg_<name>`` as ``<name>``; see :mod:`mxlab.ops.linalg_legacy`). The flat names
``mx.nd.linalg_<name>`` are the same ops.

Example
-------
>>> import mxlab as mx
>>> a = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
>>> mx.nd.linalg.gemm2(a, a, transpose_b=True).asnumpy()
array([[ 5., 11.],
       [11., 25.]], dtype=float32)
"""
from .frontend import make_array_frontend as _make_array_frontend
from .namespace import populate_prefixed as _populate_prefixed
from .ndarray import NDArray as _NDArray

__all__ = []

_populate_prefixed(globals(), "_linalg_", _make_array_frontend(_NDArray))
