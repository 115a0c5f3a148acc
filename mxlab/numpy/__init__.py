"""``mx.np``: NumPy-compatible array functions generated from the op registry."""
import numpy as _onp

from .. import ops as _ops  # noqa: F401  (registers every op family)
from ..ndarray import ndarray as _ndarray_mod
from ..ndarray.frontend import make_array_frontend as _make_array_frontend
from ..ndarray.ndarray import ndarray
from ..ndarray.namespace import populate_namespace as _populate

__all__ = ["ndarray", "array"]

# NOTE: dtype objects and constants are NumPy's own, so `mx.np.float32 is numpy.float32`.
float16, float32, float64 = _onp.float16, _onp.float32, _onp.float64
int8, int16, int32, int64, uint8 = _onp.int8, _onp.int16, _onp.int32, _onp.int64, _onp.uint8
bool_ = _onp.bool_
dtype = _onp.dtype
pi, e, inf, nan, newaxis = _onp.pi, _onp.e, _onp.inf, _onp.nan, None


def array(object, dtype=None, ctx=None, device=None):
    """A new ``mx.np.ndarray`` holding a copy of ``object`` (float32 for Python data unless
    ``dtype`` is given)."""
    return _ndarray_mod.array(object, dtype=dtype, device=device or ctx, cls=ndarray)


def asarray(obj, dtype=None, device=None):
    if isinstance(obj, ndarray) and (dtype is None or _onp.dtype(dtype) == obj.dtype):
        return obj
    return array(obj, dtype=dtype, device=device)


_populate(globals(), "np", _make_array_frontend(ndarray))
_ndarray_mod._namespaces["np"] = __import__(__name__, fromlist=["_"])
from . import random  # noqa: E402,F401


def from_dlpack(x):
    """An ``mx.np.ndarray`` sharing memory with ``x`` (a ``__dlpack__`` object or a capsule)."""
    from ..ndarray import dlpack as _dlpack
    return _dlpack.from_dlpack(x, ndarray)
