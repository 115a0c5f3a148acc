"""``mx.sym.linalg``: MXNet 1.x's legacy linear-algebra ops as symbol functions (``_linalg_<name>``
as ``<name>``; the flat ``mx.sym.linalg_<name>`` are the same ops).

Example
-------
>>> import mxlab as mx
>>> mx.sym.linalg.potrf(mx.sym.var('x')).infer_shape(x=(2, 3, 3))[1]
[(2, 3, 3)]
"""
from ..ndarray.namespace import populate_prefixed as _populate_prefixed
from .frontend import make_symbol_frontend as _make
from .symbol import Symbol as _Symbol

__all__ = []

_populate_prefixed(globals(), "_linalg_", _make(_Symbol))
