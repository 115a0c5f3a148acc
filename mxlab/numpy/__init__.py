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
uint16, uint32, uint64 = _onp.uint16, _onp.uint32, _onp.uint64
bool_ = _onp.bool_
bool = _onp.bool_  # noqa: A001  (MXNet 2.0's name)
dtype = _onp.dtype
pi, e, inf, nan, newaxis = _onp.pi, _onp.e, _onp.inf, _onp.nan, None
PZERO, NZERO, PINF, NINF = 0.0, -0.0, _onp.inf, -_onp.inf
NAN = NaN = _onp.nan
integer_dtypes = [int8, int16, int32, int64, uint8, uint16, uint32, uint64]
floating_dtypes = [float16, float32, float64]
numeric_dtypes = integer_dtypes + floating_dtypes
boolean_dtypes = [bool_]
finfo, iinfo, set_printoptions = _onp.finfo, _onp.iinfo, _onp.set_printoptions


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
from . import linalg  # noqa: E402,F401
from . import extras as _extras, fallback as _fallback  # noqa: E402


def _publish_extras(namespace):
    """Fallbacks, then compositions (they win: differentiable), then aliases of what exists."""
    for name, fn in list(_fallback.FUNCTIONS.items()) + list(_extras.COMPOSED.items()):
        namespace[name] = fn
    for alias, target in _extras.ALIASES.items():
        namespace[alias] = namespace[target]


_publish_extras(globals())
from . import default_dtype as _default_dtype  # noqa: E402
_default_dtype.install(globals(), random)
from . import dispatch as _dispatch, methods as _methods  # noqa: E402
_dispatch.install(ndarray)
_methods.install(ndarray)


def genfromtxt(*args, **kwargs):
    """NumPy's ``genfromtxt``, returned as an ``mx.np`` array."""
    return array(_onp.genfromtxt(*args, **kwargs))


def from_dlpack(x):
    """An ``mx.np.ndarray`` sharing memory with ``x`` (a ``__dlpack__`` object or a capsule)."""
    from ..ndarray import dlpack as _dlpack
    return _dlpack.from_dlpack(x, ndarray)
