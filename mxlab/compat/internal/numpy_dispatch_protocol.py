"""``mxnet.numpy_dispatch_protocol``: which NumPy functions and ufuncs mx.np provides, and the
decorators MXNet's interoperability tests wrap themselves in.

mx.np arrays do not implement NumPy's ``__array_function__`` / ``__array_ufunc__`` dispatch: the
lists name the functions ``mx.np`` itself has under NumPy's names.
"""
import functools

import numpy

from ... import numpy as mx_np

__all__ = ["with_array_function_protocol", "with_array_ufunc_protocol",
           "_NUMPY_ARRAY_FUNCTION_LIST", "_NUMPY_ARRAY_UFUNC_LIST"]


def _shared_names(kind):
    names = []
    for name in sorted(n for n in dir(mx_np) if not n.startswith("_")):
        ours, theirs = getattr(mx_np, name, None), getattr(numpy, name, None)
        if callable(ours) and callable(theirs) and isinstance(theirs, numpy.ufunc) == \
                (kind == "ufunc") and not isinstance(theirs, type):
            names.append(name)
    return names


_NUMPY_ARRAY_FUNCTION_LIST = _shared_names("function")
_NUMPY_ARRAY_UFUNC_LIST = _shared_names("ufunc")


def _reraising(protocol):
    def decorator(func):
        @functools.wraps(func)
        def run(*args, **kwargs):
            try:
                func(*args, **kwargs)
            except Exception as exc:
                raise RuntimeError(f"Running function {func.__name__} with NumPy array {protocol} "
                                   f"protocol failed with exception {exc}") from exc
        return run
    return decorator


with_array_function_protocol = _reraising("function")
with_array_ufunc_protocol = _reraising("ufunc")
