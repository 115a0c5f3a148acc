"""``mx.npx``: MXNet operators with NumPy-style arrays (activations, nn layers, MXNet-specific helpers)."""
from .. import ops as _ops  # noqa: F401  (registers every op family)
from ..ndarray.frontend import make_array_frontend as _make_array_frontend
from ..ndarray.ndarray import ndarray as _ndarray
from ..ops.registry import populate_namespace as _populate

_populate(globals(), "npx", _make_array_frontend(_ndarray))
