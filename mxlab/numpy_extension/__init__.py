"""``mx.npx``: MXNet operators with NumPy-style arrays (activations, nn layers, MXNet-specific
helpers)."""
from .. import ops as _ops  # noqa: F401  (registers every op family)
from ..ndarray.frontend import make_array_frontend as _make_array_frontend
from ..ndarray import ndarray as _ndarray_module
from ..ndarray.ndarray import ndarray as _ndarray
from ..ndarray.namespace import populate_namespace as _populate

_populate(globals(), "npx", _make_array_frontend(_ndarray))
_ndarray_module._namespaces["npx"] = __import__(__name__, fromlist=["_"])


def save(file, arr):
    """Save ``mx.np`` arrays (one, a list, or a dict) in MXNet's format with NumPy shape
    semantics."""
    from ..ndarray.serialization import save as _save
    _save(file, arr, np_semantics=True)


def load(file, device=None):
    """Load arrays saved by :func:`save` (or real MXNet) as ``mx.np`` arrays."""
    from ..ndarray.serialization import load as _load
    return _load(file, device=device, cls=_ndarray)
from ..util import is_np_array, is_np_shape, reset_np, set_np, use_np  # noqa: E402,F401
from .utils import *  # noqa: E402,F401,F403
from . import random  # noqa: E402,F401
