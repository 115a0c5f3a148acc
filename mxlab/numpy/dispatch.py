"""NumPy's dispatch protocols on ``mx.np`` arrays (NEP 13 ``__array_ufunc__``, NEP 18
``__array_function__``), as MXNet 2.0 has them.

``numpy.<name>(mx_array)`` runs ``mx.np.<name>`` for the functions and ufuncs MXNet lists (so it
records under autograd and traces in a HybridBlock) and returns ``mx.np`` arrays; NumPy inputs
beside it are copied to the mx array's device. Anything else NumPy offers runs on NumPy copies
and comes back as ``mx.np`` arrays ("fallback"; a complex or string result stays a NumPy array),
refused while autograd records, since NumPy
cannot record it. The mixing rule is MXNet's: ``onp + mx_np`` is an ``mx.np`` array,
``onp += mx_np`` stays the NumPy array.

Example
-------
>>> import numpy
>>> import mxlab as mx
>>> y = numpy.floor(mx.np.array([1.5, -0.5]))
>>> type(y).__name__, y.asnumpy().tolist()
('ndarray', [1.0, -1.0])
>>> isinstance(numpy.concatenate([mx.np.ones(2), numpy.zeros(1)]), mx.np.ndarray)
True
"""
import numpy

from ..base import MXNetValueError
from ..imperative import STATE
from ..ndarray.ndarray import array, ndarray

__all__ = ["FUNCTION_NAMES", "UFUNC_NAMES", "install"]

# MXNet 2.0's lists (python/mxnet/numpy_dispatch_protocol.py).
FUNCTION_NAMES = (
    "all", "any", "argmin", "argmax", "around", "round", "argsort", "sort", "append",
    "broadcast_arrays", "broadcast_to", "clip", "concatenate", "copy", "cumsum", "diag",
    "diagonal", "diagflat", "dot", "expand_dims", "fix", "flip", "flipud", "fliplr", "inner",
    "insert", "interp", "max", "amax", "mean", "min", "amin", "nonzero", "ones_like",
    "atleast_1d", "atleast_2d", "atleast_3d", "prod", "ravel", "repeat", "reshape", "roll",
    "split", "array_split", "hsplit", "vsplit", "dsplit", "squeeze", "stack", "std", "sum",
    "swapaxes", "take", "tensordot", "tile", "transpose", "unique", "unravel_index",
    "flatnonzero", "diag_indices_from", "delete", "var", "vdot", "vstack", "column_stack",
    "hstack", "dstack", "zeros_like", "linalg.norm", "linalg.cholesky", "linalg.inv",
    "linalg.solve", "linalg.tensorinv", "linalg.tensorsolve", "linalg.lstsq", "linalg.pinv",
    "linalg.eigvals", "linalg.eig", "linalg.eigvalsh", "linalg.eigh", "linalg.qr",
    "linalg.matrix_rank", "shape", "trace", "tril", "triu", "meshgrid", "outer", "kron",
    "einsum", "polyval", "shares_memory", "may_share_memory", "quantile", "median",
    "percentile", "diff", "ediff1d", "resize", "where", "full_like", "bincount", "empty_like",
    "nan_to_num", "isnan", "isfinite", "isposinf", "isneginf", "isinf", "pad", "cross",
)
UFUNC_NAMES = (
    "abs", "fabs", "add", "arctan2", "copysign", "degrees", "hypot", "lcm", "gcd", "logaddexp",
    "subtract", "multiply", "floor_divide", "true_divide", "negative", "power", "mod", "fmod",
    "matmul", "absolute", "rint", "sign", "exp", "log", "log2", "log10", "expm1", "sqrt",
    "square", "cbrt", "reciprocal", "invert", "bitwise_not", "remainder", "sin", "cos", "tan",
    "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
    "maximum", "fmax", "minimum", "fmin", "ceil", "trunc", "floor", "bitwise_and", "bitwise_xor",
    "bitwise_or", "logical_and", "logical_or", "logical_xor", "logical_not", "equal", "not_equal",
    "less", "less_equal", "greater", "greater_equal", "radians", "deg2rad", "rad2deg",
    "divide", "left_shift", "right_shift",
)
_TABLES = {}


def _lookup(module, dotted):
    for part in dotted.split("."):
        module = getattr(module, part, None)
    return module


def _tables():
    """``({numpy function: mx.np function}, {ufunc name: mx.np function})``, built on first use
    (mx.np is complete only once its package has imported)."""
    if not _TABLES:
        from .. import numpy as mx_np
        functions = {}
        for name in FUNCTION_NAMES:
            theirs, ours = _lookup(numpy, name), _lookup(mx_np, name)
            if theirs is not None and callable(ours):
                functions[theirs] = ours
        ufuncs = {name: getattr(mx_np, name) for name in UFUNC_NAMES
                  if callable(getattr(mx_np, name, None))}
        _TABLES.update(functions=functions, ufuncs=ufuncs)
    return _TABLES["functions"], _TABLES["ufuncs"]


def _to_mx(value, device):
    """NumPy arrays (in lists, tuples and dicts too) as mx.np arrays on ``device``; dtypes an mx
    array cannot hold (complex, strings, objects) stay NumPy arrays."""
    if isinstance(value, numpy.ndarray) and value.dtype.kind in "biuf":
        return array(value, device=device, cls=ndarray)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_mx(v, device) for v in value)
    if isinstance(value, dict):
        return {k: _to_mx(v, device) for k, v in value.items()}
    return value


def _to_numpy(value):
    if isinstance(value, ndarray):
        return value.asnumpy()
    if isinstance(value, (list, tuple)):
        return type(value)(_to_numpy(v) for v in value)
    if isinstance(value, dict):
        return {k: _to_numpy(v) for k, v in value.items()}
    return value


def _fallback(func, name, args, kwargs, device):
    """A NumPy function mx.np does not provide, run on NumPy copies."""
    if STATE.recording:
        raise MXNetValueError(f"Falling back to NumPy operator {name} with autograd active is "
                              "not supported. Please consider moving the operator to the outside "
                              "of the autograd scope.")
    return _to_mx(func(*_to_numpy(args), **_to_numpy(kwargs)), device)


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if method != "__call__":
        return NotImplemented       # reduce/accumulate/at/outer: NumPy raises TypeError
    out = kwargs.pop("out", None)
    out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if isinstance(out, tuple):
        raise MXNetValueError("The `out` parameter must have exactly one ndarray")
    fn = _tables()[1].get(ufunc.__name__)
    if fn is None:
        result = _fallback(ufunc, ufunc.__name__, inputs, kwargs, self.device)
    else:
        result = fn(*_to_mx(inputs, self.device), **kwargs)
    if out is None:
        return result
    if isinstance(out, numpy.ndarray):      # NOTE: onp += mx_np keeps the NumPy array
        out[...] = result.asnumpy()
        return out
    out[...] = result
    return out


def _array_function(self, func, types, args, kwargs):
    fn = _tables()[0].get(func)
    if fn is None:
        return _fallback(func, func.__name__, args, kwargs, self.device)
    if all(issubclass(t, ndarray) for t in types):
        return fn(*args, **kwargs)
    if func.__name__ in ("shares_memory", "may_share_memory"):
        # NOTE: a NumPy array against an mx array's own data (from_numpy shares it), not a copy
        datas = [a._get_data() if isinstance(a, ndarray) else a for a in args]
        if not all(isinstance(d, numpy.ndarray) for d in datas):
            return False     # NOTE: device memory is never a NumPy array's
        return func(*datas, **kwargs)
    return fn(*_to_mx(args, self.device), **_to_mx(kwargs, self.device))


def install(cls):
    """Give ``cls`` (``mx.np.ndarray``) the two protocols."""
    cls.__array_ufunc__ = _array_ufunc
    cls.__array_function__ = _array_function
