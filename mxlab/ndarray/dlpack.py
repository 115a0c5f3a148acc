"""Zero-copy exchange with other array libraries through the DLPack protocol (MXNet's
``to_dlpack_for_read`` / ``to_dlpack_for_write`` / ``from_dlpack`` / ``from_numpy``).

The arrays underneath are NumPy or CuPy arrays, which implement the array-API protocol
(``__dlpack__`` / ``__dlpack_device__``), so an mxlab array only has to wait for the engine and
hand over its data's capsule. Consumers get MXNet's contract: a read capsule is taken after pending
writes finish, a write capsule after pending reads and writes finish.

Example
-------
>>> import numpy, mxlab as mx
>>> x = mx.np.ones((2,))
>>> y = mx.npx.from_dlpack(mx.npx.to_dlpack_for_write(x))
>>> y += 1
>>> x.asnumpy()
array([2., 2.], dtype=float32)
"""
import numpy

from ..base import MXNetTypeError, MXNetValueError
from ..device import Device

__all__ = ["from_dlpack", "from_numpy", "to_dlpack_for_read", "to_dlpack_for_write"]

_DLPACK_CPU, _DLPACK_CUDA = 1, 2


def to_dlpack_for_read(data):
    """A DLPack capsule viewing ``data`` once its pending writes are done (consumers import it
    read-only: a legacy ``dltensor`` capsule, the form every DLPack consumer reads)."""
    return data._get_data().__dlpack__()


def to_dlpack_for_write(data):
    """A DLPack capsule viewing ``data`` once every pending read and write is done.

    It is a DLPack 1.0 (versioned) capsule where the array library makes one, because only those
    carry "writable": NumPy imports a legacy capsule read-only.
    """
    data.wait_to_write()
    raw = data._get_data()
    try:
        return raw.__dlpack__(max_version=(1, 0))
    except TypeError:   # NOTE: NumPy < 2.1 / older CuPy: legacy capsules only.
        return raw.__dlpack__()


class _Capsule:
    """Gives a bare capsule the protocol methods ``numpy.from_dlpack`` asks for (CPU only)."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return self._capsule

    def __dlpack_device__(self):
        return (_DLPACK_CPU, 0)


def _import(source):
    """The xp array and device behind a capsule or a ``__dlpack__`` object (zero copy)."""
    if hasattr(source, "__dlpack__"):
        kind, device_id = source.__dlpack_device__()
        if kind == _DLPACK_CPU:
            return numpy.from_dlpack(source), Device("cpu", 0)
        return _cupy().from_dlpack(source), Device("gpu", device_id)
    if type(source).__name__ != "PyCapsule":
        raise MXNetTypeError(f"from_dlpack: expects a DLPack capsule or an object with __dlpack__, "
                             f"got {type(source).__name__}")
    try:
        return numpy.from_dlpack(_Capsule(source)), Device("cpu", 0)
    except (BufferError, RuntimeError, ValueError):
        # NOTE: a capsule does not say its device before it is consumed; NumPy refuses GPU ones.
        data = _cupy().from_dlpack(source)
        return data, Device("gpu", data.device.id)


def _cupy():
    try:
        import cupy
    except ImportError:
        raise MXNetValueError("from_dlpack: the tensor lives on a GPU and CuPy is not installed") \
            from None
    return cupy


def from_dlpack(source, cls):
    """A ``cls`` array sharing memory with a DLPack capsule or a ``__dlpack__`` object."""
    data, device = _import(source)
    return cls._wrap(data, device)


def from_numpy(ndarray, cls, zero_copy=True):
    """A ``cls`` array backed by the NumPy array ``ndarray``.

    With ``zero_copy`` the memory is shared and, as in MXNet, the NumPy array becomes read-only so
    only the mxlab side writes to it; it must then be C-contiguous.
    """
    if not isinstance(ndarray, numpy.ndarray):
        raise MXNetTypeError(f"from_numpy: expects a numpy.ndarray, got {type(ndarray).__name__}")
    if not zero_copy:
        return cls._wrap(ndarray.copy(), Device("cpu", 0))
    if not ndarray.flags["C_CONTIGUOUS"]:
        raise MXNetValueError("from_numpy: only C-contiguous arrays can be shared "
                              "(zero_copy=True); "
                              "pass zero_copy=False or numpy.ascontiguousarray(...)")
    if not ndarray.flags["WRITEABLE"]:
        try:   # NOTE: shared before (so read-only): MXNet shares the memory again
            ndarray.flags["WRITEABLE"] = True
        except ValueError:
            raise MXNetValueError("from_numpy: a read-only array over memory NumPy cannot make "
                                  "writeable cannot be shared; pass zero_copy=False") from None
    shared = ndarray.view()
    ndarray.flags["WRITEABLE"] = False
    return cls._wrap(shared, Device("cpu", 0))


def _protocol_dlpack(self, stream=None, **kwargs):
    """``__dlpack__`` of the array-API protocol: the data's own, after pending writes."""
    data = self._get_data()
    return data.__dlpack__(stream=stream, **kwargs) if stream is not None or kwargs \
        else data.__dlpack__()


def _protocol_device(self):
    return self._get_data().__dlpack_device__()


def install(array_cls):
    """Give the array class the protocol methods and MXNet's ``to_dlpack_for_*`` methods."""
    array_cls.__dlpack__ = _protocol_dlpack
    array_cls.__dlpack_device__ = _protocol_device
    array_cls.to_dlpack_for_read = to_dlpack_for_read
    array_cls.to_dlpack_for_write = to_dlpack_for_write
