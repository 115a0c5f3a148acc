"""Devices (MXNet's ``Context``): ``mx.cpu(i)``, ``mx.gpu(i)`` and the array module behind each.

A device is a small value object. ``Device.xp`` is the array module that computes on it: NumPy for
every CPU id (MXNet allows ``cpu(1)`` etc. as separate logical devices) and CuPy for GPUs. ``with
mx.gpu(0):`` changes the thread's default device.
"""
import threading

import numpy

from .base import MXNetRuntimeError, MXNetValueError

__all__ = ["Device", "Context", "cpu", "gpu", "cpu_pinned", "num_gpus", "current_device",
           "current_context", "cupy_or_none"]

_DEVICE_TYPES = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
_DEVICE_IDS = {name: code for code, name in _DEVICE_TYPES.items()}
_cupy = None
_cupy_checked = False


def cupy_or_none():
    """Import CuPy once; ``None`` when it is not installed or no CUDA driver is usable."""
    global _cupy, _cupy_checked
    if not _cupy_checked:
        _cupy_checked = True
        try:
            import cupy
            cupy.cuda.runtime.getDeviceCount()
            _cupy = cupy
        except Exception:  # NOTE: ImportError, or CUDA present but unusable: "no GPU here".
            _cupy = None
    return _cupy


class _DeviceClass(type):
    """``Device.default_ctx``: MXNet 1.x's (deprecated) class attribute for this thread's default
    device, readable and assignable."""

    @property
    def default_ctx(cls):
        return current_device()

    @default_ctx.setter
    def default_ctx(cls, device):
        Device._local.value = device


class Device(metaclass=_DeviceClass):
    """A device such as ``cpu(0)`` or ``gpu(1)``; usable as a context manager to set the default
    device.

    Examples
    --------
    >>> import mxlab as mx
    >>> with mx.cpu(1):
    ...     mx.np.zeros((2,)).device
    cpu(1)
    """

    __slots__ = ("device_type", "device_id", "_old")
    _local = threading.local()
    devtype2str = dict(_DEVICE_TYPES)     # MXNet's class tables: type id <-> name
    devstr2type = dict(_DEVICE_IDS)

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Device):
            device_type, device_id = device_type.device_type, device_type.device_id
        elif isinstance(device_type, int):
            device_type = _DEVICE_TYPES.get(device_type, device_type)
        if device_type not in _DEVICE_IDS:
            raise MXNetValueError(f"unknown device type {device_type!r}; expected one of "
                                  f"{sorted(_DEVICE_IDS)}")
        if not isinstance(device_id, (int, numpy.integer)) or device_id < 0:
            raise MXNetValueError(f"device id must be a non-negative integer, got {device_id!r}")
        self.device_type = device_type
        self.device_id = int(device_id)
        self._old = None

    @property
    def device_typeid(self):
        return _DEVICE_IDS[self.device_type]

    @property
    def xp(self):
        """The array module computing on this device (numpy or cupy)."""
        if self.device_type != "gpu":
            return numpy
        cupy = cupy_or_none()
        if cupy is None:
            raise MXNetRuntimeError(
                f"{self} needs CuPy and a CUDA GPU, but CuPy is not installed or no GPU is "
                "visible; install the 'gpu' extra (pip install 'mxlab[gpu]') on a machine with "
                "a GPU, or use mx.cpu()")
        if self.device_id >= cupy.cuda.runtime.getDeviceCount():
            raise MXNetRuntimeError(f"{self} does not exist: only {num_gpus()} GPU(s) are visible")
        return cupy

    def __eq__(self, other):
        return (isinstance(other, Device) and self.device_type == other.device_type
                and self.device_id == other.device_id)

    def __hash__(self):
        return hash((self.device_type, self.device_id))

    def __repr__(self):
        return f"{self.device_type}({self.device_id})"

    __str__ = __repr__

    def __enter__(self):
        self._old = current_device()
        Device._local.value = self
        return self

    def __exit__(self, *exc):
        Device._local.value = self._old
        return False

    def empty_cache(self):
        """Release cached GPU memory blocks (no-op on CPU)."""
        if self.device_type == "gpu" and cupy_or_none() is not None:
            cupy_or_none().get_default_memory_pool().free_all_blocks()


Context = Device


def cpu(device_id=0):
    """The CPU device ``device_id`` (several logical CPU devices may exist, as in MXNet)."""
    return Device("cpu", device_id)


def cpu_pinned(device_id=0):
    return Device("cpu_pinned", device_id)


def gpu(device_id=0):
    """The GPU device ``device_id``; using it without CuPy raises an error that names the missing
    piece."""
    return Device("gpu", device_id)


def num_gpus():
    """Number of visible GPUs (0 when CuPy or CUDA is absent)."""
    cupy = cupy_or_none()
    return 0 if cupy is None else int(cupy.cuda.runtime.getDeviceCount())


def current_device():
    """The thread's default device (``cpu(0)`` unless changed with ``with mx.gpu(0):``)."""
    return getattr(Device._local, "value", None) or _DEFAULT_CPU


current_context = current_device


_DEFAULT_CPU = Device("cpu", 0)
