"""``mx.nd``: the legacy NDArray namespace, generated from the op registry (MXNet 1.x names and
semantics)."""
from .. import ops as _ops  # noqa: F401  (registers every op family)
from ..imperative import STATE as _STATE, invoke as _invoke
from ..name import op_name as _op_name
from ..ops.registry import register_dispatch as _register_dispatch
from . import ndarray as _ndarray_mod
from .frontend import make_array_frontend as _make_array_frontend
from .namespace import populate_namespace as _populate
# NOTE: hand-written frontends (mx.nd and mx.np) register themselves when imported.
from . import arith, creation, indexing, selection, shaping  # noqa: F401,E402
from .ndarray import NDArray
from .serialization import load_frombuffer as _load_frombuffer, save, to_array as _to_array
from . import dlpack as _dlpack
from ..engine import wait_all as waitall  # noqa: F401

__all__ = ["NDArray", "array", "save", "load", "load_frombuffer", "waitall", "from_dlpack",
           "from_numpy", "to_dlpack_for_read", "to_dlpack_for_write"]


def load(fname, ctx=None):
    """Load arrays saved by ``mx.nd.save`` or real MXNet (a list, or a dict when names were
    saved). As in MXNet 1.x, records saved with NumPy shape semantics load only under them, and
    others not inside an ``np_shape()`` scope."""
    from .serialization import load as _load
    return _load(fname, device=ctx, check_np_shape=True)


def load_frombuffer(buf):
    """Like :func:`load` from the bytes of a file."""
    arrays, names, _ = _load_frombuffer(buf, check_np_shape=True)
    values = [None if a is None else _to_array(a, None, NDArray) for a in arrays]
    return dict(zip(names, values)) if names else values


def array(source_array, ctx=None, dtype=None):
    """A new ``NDArray`` holding a copy of ``source_array``: float32 unless ``dtype`` says, or the
    source is an ``NDArray`` (its dtype). A NumPy integer array becomes float32 too, as in MXNet
    1.x and 2.0 (``mx.np.array`` keeps NumPy's dtype); a sparse array or ``scipy.sparse`` matrix
    gives a sparse array."""
    if getattr(source_array, "stype", "default") != "default" or \
            type(source_array).__module__.startswith("scipy.sparse"):
        return sparse.array(source_array, ctx=ctx, dtype=dtype)
    if dtype is None and not isinstance(source_array, NDArray):
        dtype = "float32"
    return _ndarray_mod.array(source_array, dtype=dtype, device=ctx, cls=NDArray)


_dlpack.install(NDArray)
to_dlpack_for_read = _dlpack.to_dlpack_for_read
to_dlpack_for_write = _dlpack.to_dlpack_for_write


def from_dlpack(dlpack):
    """An ``NDArray`` sharing memory with a DLPack capsule or ``__dlpack__`` object."""
    return _dlpack.from_dlpack(dlpack, NDArray)


def from_numpy(ndarray, zero_copy=True):
    """An ``NDArray`` backed by a NumPy array (shared, which then turns read-only)."""
    return _dlpack.from_numpy(ndarray, NDArray, zero_copy=zero_copy)


def _dispatch(operator, inputs, attrs, name=None):
    if name is None or not _STATE.deferred:   # NOTE: arrays have no node names
        return _invoke(operator, inputs, attrs)
    _op_name.value = name   # NOTE: a traced node may take it (MXNet 1.x's names, dc.record)
    try:
        return _invoke(operator, inputs, attrs)
    finally:
        _op_name.value = None


_register_dispatch(NDArray, _dispatch)
_populate(globals(), "nd", _make_array_frontend(NDArray))
_ndarray_mod._namespaces["nd"] = __import__(__name__, fromlist=["_"])
from . import random  # noqa: E402,F401
from . import contrib  # noqa: E402,F401
from . import image  # noqa: E402,F401
from . import linalg  # noqa: E402,F401
from . import sparse  # noqa: E402,F401
from . import optimizer_updates as _updates  # noqa: E402  (multi/mp SGD, NAG updates)
globals().update({_n: getattr(_updates, _n) for _n in _updates.__all__})
from . import op  # noqa: E402,F401  (after _populate: it copies the op functions)
from . import legacy_methods as _legacy_methods  # noqa: E402

_legacy_methods.install(NDArray)


def concatenate(arrays, axis=0, always_copy=True):
    """MXNet 1.x's ``mx.nd.concatenate``: ``concat`` along ``axis``; with ``always_copy=False`` a
    single array comes back as is."""
    if not arrays:
        from ..base import MXNetValueError
        raise MXNetValueError("concatenate: needs at least one array")
    if not always_copy and len(arrays) == 1:
        return arrays[0]
    return concat(*arrays, dim=axis)  # noqa: F821  (made by _populate)


def onehot_encode(indices, out):
    """MXNet 1.x's ``mx.nd.onehot_encode``: write the one-hot rows of ``indices`` into ``out``
    (shape ``(len(indices), depth)``) and return it."""
    out[:] = one_hot(indices, depth=out.shape[1], dtype=out.dtype)  # noqa: F821
    return out
