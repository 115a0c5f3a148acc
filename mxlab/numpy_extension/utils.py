"""``mx.npx`` helpers that are not ops: engine sync, devices, DLPack exchange, ``slice``.

Example
-------
>>> import mxlab as mx
>>> mx.npx.num_gpus() >= 0, mx.npx.current_device()
(True, cpu(0))
"""
from ..device import cpu, cpu_pinned, current_context, current_device, gpu, num_gpus
from ..engine import wait_all as waitall
from ..ndarray import dlpack as _dlpack
from ..ndarray.contrib import cond, foreach, while_loop
from ..ndarray.frontend import make_array_frontend as _make_array_frontend
from ..ndarray.ndarray import ndarray as _ndarray
from ..ops.registry import get_op as _get_op

__all__ = [
    "cond",
    "cpu",
    "cpu_pinned",
    "current_context",
    "current_device",
    "foreach",
    "from_dlpack",
    "from_numpy",
    "gpu",
    "num_gpus",
    "slice",
    "to_dlpack_for_read",
    "to_dlpack_for_write",
    "waitall",
    "while_loop",
]

to_dlpack_for_read = _dlpack.to_dlpack_for_read
to_dlpack_for_write = _dlpack.to_dlpack_for_write


def from_dlpack(dlpack):
    """An ``mx.np.ndarray`` sharing memory with a DLPack capsule or ``__dlpack__`` object."""
    return _dlpack.from_dlpack(dlpack, _ndarray)


def from_numpy(ndarray, zero_copy=True):
    """An ``mx.np.ndarray`` backed by a NumPy array (shared, which then turns read-only)."""
    return _dlpack.from_numpy(ndarray, _ndarray, zero_copy=zero_copy)


# NOTE: MXNet 2.0's `npx.slice(data, begin, end, step)` is the legacy `slice` op on np arrays.
slice = _make_array_frontend(_ndarray)(_get_op("slice"), "slice")
