"""The NumPy-semantics switches (``mx.npx.set_np()``) and small utilities (``mx.util``).

Three flags change how other modules behave, and this module is the one place that holds them:

- *np shape*: ``()`` is a scalar shape and ``0`` a zero-size dimension; unknown dimensions are
  ``-1`` (``Symbol.infer_shape`` and friends read :func:`is_np_shape`). Off by default, as in
  MXNet 1.x, where ``0`` marks an unknown dimension.
- *np array*: Gluon and helpers create ``mx.np.ndarray`` instead of ``mx.nd.NDArray``
  (:func:`is_np_array`).
- *np default dtype*: creation functions default to float64 instead of float32
  (:func:`is_np_default_dtype`).

``set_np``/``reset_np``/``set_np_shape`` set the process-wide value (what a notebook's first cell
wants, and seen by worker threads). The scopes ``np_shape``/``np_array`` and the decorators
``use_np*`` set a value for the current thread only, restored on exit; a thread's scoped value wins
over the process-wide one.

Examples
--------
>>> import mxlab as mx
>>> mx.npx.set_np()
>>> mx.util.is_np_shape(), mx.util.is_np_array()
(True, True)
>>> mx.npx.reset_np()
>>> with mx.util.np_shape(True):
...     mx.util.is_np_shape()
True
"""
import contextlib
import functools
import inspect
import os
import tempfile
import threading

from .base import MXNetTypeError, MXNetValueError

__all__ = ["set_np", "reset_np", "set_np_shape", "is_np_shape", "np_shape", "use_np_shape",
           "is_np_array", "np_array", "use_np_array", "use_np", "set_np_default_dtype",
           "is_np_default_dtype", "np_default_dtype", "use_np_default_dtype", "getenv", "setenv",
           "set_module", "TemporaryDirectory", "get_gpu_count", "get_gpu_memory",
           "get_cuda_compute_capability", "set_flush_denorms", "dtype_from_number",
           "default_array", "wrap_ctx_to_device_func"]

_FLAGS = ("shape", "array", "dtype")
_global = dict.fromkeys(_FLAGS, False)   # process-wide values (set_np, set_np_shape, ...)
_scoped = threading.local()              # per-thread stacks of scoped values (np_shape(), use_np)


def _get(flag):
    stack = getattr(_scoped, flag, None)
    return stack[-1] if stack else _global[flag]


def _set_global(flag, active):
    previous = _get(flag)
    _global[flag] = bool(active)
    return previous


def is_np_shape():
    """Whether NumPy shape semantics is on: ``()`` is a scalar, ``0`` a zero-size dim."""
    return _get("shape")


def is_np_shape_global():
    """Whether NumPy shape semantics is on process-wide (``set_np_shape``/``set_np``), not only
    in a thread's ``np_shape()`` scope: MXNet's ``GlobalOn``, under which ``mx.nd.load`` also
    reads files saved without NumPy shape semantics."""
    stack = getattr(_scoped, "shape", None)
    return _global["shape"] and (not stack or stack[-1])


def is_np_array():
    """Whether NumPy array semantics is on: Gluon creates ``mx.np.ndarray`` objects."""
    return _get("array")


def is_np_default_dtype():
    """Whether creation functions default to float64 (NumPy's default) instead of float32."""
    return _get("dtype")


def set_np_shape(active):
    """Turn NumPy shape semantics on or off process-wide; returns the previous state.

    Examples
    --------
    >>> import mxlab as mx
    >>> mx.set_np_shape(True)
    False
    >>> mx.set_np_shape(False)
    True
    """
    return _set_global("shape", active)


def set_np_default_dtype(is_np_default_dtype=True):
    """Make float64 the default dtype of creation functions (MXNet 2); returns the old state."""
    return _set_global("dtype", is_np_default_dtype)


def set_np(shape=True, array=True, dtype=False):
    """Turn NumPy shape, array and default-dtype semantics on or off together (``mx.npx.set_np()``).

    Array semantics needs shape semantics, as in MXNet.

    Examples
    --------
    >>> import mxlab as mx
    >>> mx.npx.set_np()
    >>> mx.npx.is_np_array()
    True
    >>> mx.npx.reset_np()
    """
    if array and not shape:
        raise MXNetValueError("set_np: NumPy shape semantics is required in using NumPy array "
                              "semantics (got shape=False, array=True)")
    _set_global("shape", shape)
    _set_global("array", array)
    _set_global("dtype", dtype)


def reset_np():
    """Turn every NumPy semantics switch off (MXNet 1.x defaults)."""
    set_np(shape=False, array=False, dtype=False)


class _Scope:
    """Context manager setting one flag for the current thread (a stack, so scopes nest)."""

    def __init__(self, flag, active):
        self._flag = flag
        self._active = bool(active)

    def __enter__(self):
        stack = getattr(_scoped, self._flag, None)
        if stack is None:
            stack = []
            setattr(_scoped, self._flag, stack)
        stack.append(self._active)
        return self

    def __exit__(self, *exc):
        getattr(_scoped, self._flag).pop()
        return False


def np_shape(active=True):
    """A ``with`` scope (this thread only) with NumPy shape semantics on or off.

    Examples
    --------
    >>> import mxlab as mx
    >>> with mx.np_shape(True):
    ...     mx.is_np_shape()
    True
    """
    return _Scope("shape", active)


def np_array(active=True):
    """A ``with`` scope (this thread only) with NumPy array semantics on or off."""
    return _Scope("array", active)


def np_default_dtype(active=True):
    """A ``with`` scope (this thread only) with float64 as the default creation dtype."""
    return _Scope("dtype", active)


def _scoped_decorator(flags, name, doc):
    """A decorator running a function, or every method and property of a class, in flag scopes."""
    def decorate(func):
        if inspect.isclass(func):
            return _decorate_class(func, decorate)
        if not callable(func):
            raise MXNetTypeError(f"{name} can only decorate classes and callables, "
                                 f"got {type(func).__name__}")

        @functools.wraps(func)
        def scoped(*args, **kwargs):
            scopes = [_Scope(flag, True) for flag in flags]
            for scope in scopes:
                scope.__enter__()
            try:
                return func(*args, **kwargs)
            finally:
                for scope in reversed(scopes):
                    scope.__exit__(None, None, None)
        return scoped
    decorate.__name__ = name
    decorate.__doc__ = doc
    return decorate


def _decorate_class(cls, decorate):
    # NOTE: like MXNet, wrap functions and properties defined anywhere in the class's MRO
    # (getmembers), so inherited methods such as Block.__call__ run under the flags too. A
    # staticmethod comes back a plain function, as in MXNet: called on an instance it gets the
    # instance first (MXNet's tests write `@staticmethod def expected_output(self, x)`).
    def wanted(member):
        return (inspect.isfunction(member) or inspect.ismethod(member)
                or isinstance(member, property))

    for attr, member in inspect.getmembers(cls, predicate=wanted):
        if isinstance(member, property):
            getter = decorate(member.fget) if member.fget else None
            setattr(cls, attr, property(getter, member.fset, member.fdel, member.__doc__))
        elif inspect.ismethod(member):  # classmethod, bound to cls
            setattr(cls, attr, classmethod(decorate(member.__func__)))
        else:
            setattr(cls, attr, decorate(member))
    return cls


_ON = "Run a function, or every method of a class, with {} on."
use_np_shape = _scoped_decorator(("shape",), "use_np_shape", _ON.format("NumPy shape semantics"))
use_np_array = _scoped_decorator(("array",), "use_np_array", _ON.format("NumPy array semantics"))
use_np_default_dtype = _scoped_decorator(("dtype",), "use_np_default_dtype",
                                         _ON.format("float64 as the default dtype"))
use_np = _scoped_decorator(("shape", "array"), "use_np", """Run a function, or every method of a
class, with NumPy shape and array semantics on (how MXNet marks Gluon blocks written for mx.np).

Examples
--------
>>> import mxlab as mx
>>> @mx.util.use_np
... def flags():
...     return mx.util.is_np_shape(), mx.util.is_np_array()
>>> flags()
(True, True)
>>> mx.util.is_np_array()
False
""")


def getenv(name):
    """The value of environment variable ``name``, or None (MXNet's knobs are env vars)."""
    return os.environ.get(name)


def setenv(name, value):
    """Set environment variable ``name`` to ``value`` (``None`` removes it)."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)


def set_module(module):
    """Decorator setting ``__module__`` of a function or class (how its name shows in docs)."""
    def decorator(func):
        if module is not None:
            func.__module__ = module
        return func
    return decorator


# -- More of MXNet's mx.util (what user and test code imports) -----------------------------------
@contextlib.contextmanager
def TemporaryDirectory(*args, **kwargs):  # noqa: N802  (MXNet's name)
    """A temporary directory's path for a ``with`` block, removed afterwards (MXNet's
    context wrapper of ``tempfile.TemporaryDirectory``)."""
    with tempfile.TemporaryDirectory(*args, **kwargs) as path:
        yield path


def get_gpu_count():
    """Number of GPUs (MXNet's name for ``mx.device.num_gpus``)."""
    from .device import num_gpus
    return num_gpus()


def get_gpu_memory(gpu_dev_id):
    """``(free, total)`` bytes of GPU ``gpu_dev_id``."""
    from .device import cupy_or_none
    cupy = cupy_or_none()
    if cupy is None or not 0 <= gpu_dev_id < get_gpu_count():
        raise MXNetValueError(f"get_gpu_memory: no GPU {gpu_dev_id} (CuPy with CUDA needed)")
    with cupy.cuda.Device(gpu_dev_id):
        return tuple(int(v) for v in cupy.cuda.runtime.memGetInfo())


def get_cuda_compute_capability(device):
    """The compute capability of a GPU device as an int (``sm_80`` -> 80)."""
    from .device import cupy_or_none
    cupy = cupy_or_none()
    if device.device_type != "gpu" or cupy is None:
        raise MXNetValueError(f"get_cuda_compute_capability: {device} is not a CUDA GPU")
    return int(cupy.cuda.Device(device.device_id).compute_capability)


def set_flush_denorms(value):
    """MXNet's flush-to-zero switch; NumPy keeps IEEE denormals, so only ``False`` is honoured.

    Returns the previous state (always ``False``)."""
    if value:
        raise MXNetValueError("set_flush_denorms(True): NumPy kernels cannot flush denormals")
    return False


def dtype_from_number(number):
    """The dtype MXNet gives a scalar: int64 (uint64 beyond int64); float32 for a float (float64
    under the NumPy default dtype, or when float32 cannot hold it); a NumPy scalar keeps its own."""
    import numpy
    if isinstance(number, numpy.generic):
        return number.dtype
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        raise MXNetTypeError(f"dtype_from_number: type {type(number).__name__} not supported")
    if isinstance(number, int):
        if number > 2 ** 64 - 1:
            raise MXNetValueError("dtype_from_number: integer out of bounds")
        return numpy.uint64 if number > 2 ** 63 - 1 else numpy.int64
    too_big = abs(number) > 2 ** 24 or (not numpy.isnan(number) and numpy.isfinite(number) and
                                        numpy.float32(number) == int(number) != number)
    return numpy.float64 if too_big or is_np_default_dtype() else numpy.float32


def default_array(source_array, device=None, dtype=None, ctx=None):
    """An array of the active flavour (``mx.np`` under ``set_np``, else ``mx.nd``)."""
    from .ndarray.ndarray import NDArray, array, ndarray
    return array(source_array, dtype=dtype, device=device or ctx,
                 cls=ndarray if is_np_array() else NDArray)


def wrap_ctx_to_device_func(func):
    """Decorator letting ``func(device=...)`` also be called with MXNet 1.x's ``ctx=``."""
    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        if "ctx" in kwargs:
            if kwargs.get("device") is not None:
                raise MXNetValueError(f"{func.__name__}: give ctx= or device=, not both")
            kwargs["device"] = kwargs.pop("ctx")
        return func(*args, **kwargs)
    return wrapped
