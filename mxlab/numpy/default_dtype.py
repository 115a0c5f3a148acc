"""MXNet 2.0's NumPy default-dtype mode (``npx.set_np(dtype=True)``, ``use_np_default_dtype``):
creation functions, samplers and ``true_divide``/``mean`` of integers give float64 where they
otherwise give MXNet's float32, and ``arange`` of integers gives int64.

The mode is read here, in the frontends, on the caller's thread (never inside a kernel), and
becomes an explicit ``dtype``: graphs and saved symbols record what was computed.

Example
-------
>>> import mxlab as mx
>>> with mx.util.np_default_dtype():
...     print(mx.np.zeros((2,)).dtype, mx.np.arange(3).dtype, (mx.np.arange(3) / 2).dtype)
float64 int64 float64
>>> mx.np.zeros((2,)).dtype
dtype('float32')
"""
import functools
import inspect

import numpy

from ..util import is_np_default_dtype

__all__ = ["install"]

# functions whose default float dtype follows the mode (each takes a ``dtype`` argument)
FLOAT_DEFAULTS = ("ones", "zeros", "empty", "eye", "identity", "linspace", "logspace",
                  "hanning", "hamming", "blackman")
RANDOM_FLOAT_DEFAULTS = ("uniform", "normal", "gamma", "chisquare")


def _with_default(fn, default):
    """``fn`` given ``dtype=default(bound arguments)`` when the mode is on and no dtype is."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn
    if "dtype" not in signature.parameters:
        return fn

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if not is_np_default_dtype():
            return fn(*args, **kwargs)
        bound = signature.bind(*args, **kwargs)
        if bound.arguments.get("dtype") is not None:
            return fn(*args, **kwargs)
        dtype = default(bound.arguments)
        if dtype is None:
            return fn(*args, **kwargs)
        bound.arguments["dtype"] = dtype
        return fn(*bound.args, **bound.kwargs)
    return call


def _float64(arguments):
    return "float64"


def _python_data_float64(arguments):
    """``np.array``: Python numbers become float64 (booleans stay bool, arrays keep theirs)."""
    data = arguments.get("object")
    if isinstance(data, (numpy.ndarray, numpy.generic)) or hasattr(data, "asnumpy"):
        return None
    return None if numpy.asarray(data).dtype == numpy.bool_ else "float64"


def _arange_dtype(arguments):
    values = [arguments.get(k) for k in ("start", "stop", "step")]
    ints = all(v is None or isinstance(v, (int, numpy.integer)) for v in values)
    return "int64" if ints else "float64"


def _is_int(x):
    return getattr(x, "dtype", None) is not None and numpy.dtype(x.dtype).kind in "biu"


def _true_divide(fn):
    """Integer operands become float64 first (not float32 then cast: no precision is lost)."""
    @functools.wraps(fn)
    def call(x1, x2, out=None, **kwargs):
        if is_np_default_dtype():
            x1 = x1.astype("float64") if _is_int(x1) else x1
            x2 = x2.astype("float64") if _is_int(x2) else x2
        return fn(x1, x2, out=out, **kwargs)
    return call


def _mean(fn):
    """``mean`` of integers in float64 (NumPy's order: ``a, axis, dtype, out, keepdims``)."""
    @functools.wraps(fn)
    def call(a, *args, **kwargs):
        if is_np_default_dtype() and _is_int(a) and len(args) < 2 and \
                kwargs.get("dtype") is None:
            kwargs["dtype"] = "float64"
        return fn(a, *args, **kwargs)
    return call


def install(namespace, random_namespace):
    """Wrap the functions of ``namespace`` (``mx.np``'s globals) and of ``mx.np.random``."""
    for name in FLOAT_DEFAULTS:
        if name in namespace:
            namespace[name] = _with_default(namespace[name], _float64)
    namespace["array"] = _with_default(namespace["array"], _python_data_float64)
    namespace["arange"] = _with_default(namespace["arange"], _arange_dtype)
    namespace["mean"] = _mean(namespace["mean"])
    for name in ("true_divide", "divide"):
        namespace[name] = _true_divide(namespace[name])
    for name in RANDOM_FLOAT_DEFAULTS:
        if hasattr(random_namespace, name):
            setattr(random_namespace, name, _with_default(getattr(random_namespace, name),
                                                          _float64))
