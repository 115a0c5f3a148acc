"""``mxnet.numpy_dispatch_protocol``: which NumPy functions and ufuncs dispatch to mx.np (MXNet
2.0's lists, :mod:`mxlab.numpy.dispatch`), and the decorators MXNet's interoperability tests wrap
themselves in.
"""
import functools

from ...numpy.dispatch import FUNCTION_NAMES, UFUNC_NAMES

__all__ = ["with_array_function_protocol", "with_array_ufunc_protocol",
           "_NUMPY_ARRAY_FUNCTION_LIST", "_NUMPY_ARRAY_UFUNC_LIST"]

_NUMPY_ARRAY_FUNCTION_LIST = list(FUNCTION_NAMES)
_NUMPY_ARRAY_UFUNC_LIST = list(UFUNC_NAMES)


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
