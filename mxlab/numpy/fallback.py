"""``mx.np`` functions that run NumPy's own (or CuPy's, on a GPU) on the arrays' data: MXNet's
"fallback" functions (``numpy/fallback.py``) plus the non-differentiable extras (set ops,
histograms, index builders, integer predicates).

As in MXNet, a fallback is not an op: it waits for its inputs, runs eagerly, is not recorded by
autograd (no gradient); its array results are ``mx.np`` arrays on the inputs' device. Functions
that return Python values (``allclose``, ``ndim``) return them unchanged. Inside a hybridized
block (deferred compute) a call whose array arguments are all traced, and whose results are
arrays, is also recorded as one ``_npi_fallback`` node (:mod:`mxlab.ops.np_fallback`), so the
traced graph computes it too (MXNet has ops for most of these functions).

Example
-------
>>> import mxlab as mx
>>> mx.np.unique(mx.np.array([3, 1, 3, 2])).asnumpy()
array([1., 2., 3.], dtype=float32)
"""
import collections

import numpy as _onp

from ..base import MXNetTypeError, MXNetValueError
from ..device import current_device
from ..imperative import STATE, ValuesNeeded, invoke
from ..ndarray.frontend import check_ufunc_options
from ..ndarray.ndarray import NDArray, ndarray
from ..ops.np_fallback import CREATION_NAMES, FALLBACK_NAMES, RENAMED, encode_args
from ..ops.registry import get_op

__all__ = ["CREATION_NAMES", "FALLBACK_NAMES", "fallback"]


def _devices(value, found):
    if isinstance(value, NDArray):
        found.add(value.device)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _devices(item, found)
    return found


def _to_data(value, host):
    """mx arrays -> their NumPy (``host``) or device arrays, inside lists and tuples too."""
    if isinstance(value, NDArray):
        return value.asnumpy() if host else value._get_data()
    if isinstance(value, (list, tuple)):
        return type(value)(_to_data(v, host) for v in value)
    return value


def _to_mx(value, device, xp):
    """Array results (and NumPy scalars) -> fresh ``mx.np`` arrays on ``device``; Python values,
    such as ``allclose``'s bool, stay as they are."""
    if isinstance(value, (_onp.ndarray, _onp.generic)) or \
            (xp is not _onp and isinstance(value, xp.ndarray)):
        # NOTE: a copy: NumPy may return views of the inputs, which the engine does not track.
        return ndarray._wrap(xp.array(value, copy=True), device)
    if hasattr(value, "_fields"):      # NumPy's named tuples (unique_all, ...)
        return type(value)(*(_to_mx(v, device, xp) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(_to_mx(v, device, xp) for v in value)
    return value


def fallback(name, doc=None):
    """``mx.np.<name>``: NumPy's (or CuPy's) ``name`` run on the data of mx array arguments."""
    host_fn = getattr(_onp, name)

    def call(*args, **kwargs):
        if STATE.shapes_only:   # NOTE: eager NumPy on data a shape-only trace does not have
            raise ValuesNeeded(f"np.{name} reads its inputs' values")
        devices = _devices(list(args) + list(kwargs.values()), set())
        if len(devices) > 1:
            raise MXNetValueError(f"np.{name}: arrays on different devices "
                                  f"{sorted(map(str, devices))}")
        device = devices.pop() if devices else current_device()
        xp = device.xp
        device_fn = getattr(xp, name, None) if xp is not _onp else host_fn
        host = device_fn is None
        fn = host_fn if host else device_fn
        result = _to_mx(fn(*_to_data(args, host), **_to_data(kwargs, host)), device, xp)
        if STATE.deferred:
            return _record(name, args, kwargs, result)
        return result
    call.__name__ = call.__qualname__ = name
    call.__doc__ = doc or (f"NumPy's ``{name}`` on mx arrays (a fallback: eager, no gradient; "
                           "see :mod:`mxlab.numpy.fallback`).")
    return call


def _record(func, args, kwargs, result):
    """While deferred compute records: the eager ``result`` again as the outputs of one
    ``_npi_fallback`` node, when every array argument is traced and ``result`` is an array or a
    flat tuple of arrays; otherwise ``result`` itself."""
    named = hasattr(result, "_fields")
    outs = list(result) if isinstance(result, (tuple, list)) else [result]
    if not outs or not all(isinstance(o, NDArray) for o in outs):
        return result
    text, arrays = encode_args(args, kwargs, lambda v: isinstance(v, NDArray))
    if any(a._dc is None for a in arrays):
        return result
    attrs = {"func": func, "args": text, "num_args": len(arrays),
             "dtypes": ",".join(o.dtype.name for o in outs),
             "ndims": ",".join(str(o.ndim) for o in outs)}
    op = get_op("_npi_fallback")
    traced = invoke(op, arrays, op.parse_attrs(attrs), cls=ndarray)
    if not isinstance(result, (tuple, list)):
        return traced[0]
    return type(result)(*traced) if named else type(result)(traced)


def creation(name):
    """NumPy creation functions (``tri``, ``hanning``, ...) with MXNet's float32 default."""
    build = fallback(name)

    def call(*args, dtype=None, device=None, ctx=None, **kwargs):
        if device is not None or ctx is not None:
            with (device or ctx):
                result = build(*args, **kwargs)
        else:
            result = build(*args, **kwargs)
        if dtype is None and result.dtype == _onp.float64:
            dtype = "float32"
        return result if dtype is None else result.astype(dtype)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"NumPy's ``{name}``, float32 unless ``dtype`` says otherwise (MXNet's default)."
    return call


def _build(name):
    if name in RENAMED and not hasattr(_onp, name):
        fn = fallback(RENAMED[name])     # NOTE: removed from NumPy 2; MXNet's names kept
        fn.__name__ = name
        return fn
    if not hasattr(_onp, name):
        return None
    return fallback(name)


FUNCTIONS = {name: fn for name in FALLBACK_NAMES if (fn := _build(name)) is not None}
FUNCTIONS.update({name: creation(name) for name in CREATION_NAMES})


# NOTE: MXNet's array-API set functions are its sorted ``unique`` (NumPy 2's unique_values may
#   return the values unsorted).
UniqueAll = collections.namedtuple("UniqueAll", ["values", "indices", "inverse_indices",
                                                 "counts"])
UniqueInverse = collections.namedtuple("UniqueInverse", ["values", "inverse_indices"])


def unique_all(x):
    """Sorted unique values, first indices, inverse indices and counts (a ``UniqueAll``)."""
    return UniqueAll(*FUNCTIONS["unique"](x, True, True, True))


def unique_inverse(x):
    """Sorted unique values and the inverse indices (a ``UniqueInverse``)."""
    return UniqueInverse(*FUNCTIONS["unique"](x, False, True, False))


def unique_values(x):
    """The sorted unique values of ``x``."""
    return FUNCTIONS["unique"](x)


FUNCTIONS.update(unique_all=unique_all, unique_inverse=unique_inverse,
                 unique_values=unique_values)


def _predicate(name):
    """MXNet's ``isnan``-like ufuncs: ``out`` must be a bool array, NumPy's ufunc keywords only
    at their defaults."""
    compute = FUNCTIONS[name]

    def call(x, out=None, **kwargs):
        check_ufunc_options(name, kwargs)
        if out is not None and out.dtype != _onp.bool_:
            raise MXNetTypeError(f"{name}: out must be a bool array, got {out.dtype}")
        result = compute(x)
        if out is None:
            return result
        result.copyto(out)
        return out
    call.__name__ = call.__qualname__ = name
    call.__doc__ = compute.__doc__
    return call


FUNCTIONS.update({name: _predicate(name) for name in ("isnan", "isinf", "isfinite", "isposinf",
                                                      "isneginf")})


def _promote(a, b):
    """MXNet's array-API promotion of two dtypes (``mxnet/numpy/utils.py``): integers with a
    float take the float's dtype (``int16`` with ``float16`` is ``float16``, NumPy says float32),
    signed with unsigned the smallest signed dtype holding both; none for ``uint64`` with a signed
    integer."""
    if a == b or b.kind == "b":
        return a
    if a.kind == "b":
        return b
    if a.kind == b.kind or "f" in (a.kind, b.kind):
        if a.kind == b.kind:
            return a if a.itemsize >= b.itemsize else b
        return a if a.kind == "f" else b
    signed, unsigned = (a, b) if a.kind == "i" else (b, a)
    if unsigned.itemsize == 8:
        raise MXNetTypeError(f"Unknown type promotion between {a} and {b}")
    return _onp.dtype(f"int{8 * max(signed.itemsize, 2 * unsigned.itemsize)}")


def result_type(*arrays_and_dtypes):
    """The dtype of an operation on these arrays and dtypes, by MXNet's array-API promotion table
    (see :func:`_promote`); with a Python scalar among them, or other kinds than bool, integer
    and float, NumPy's rules."""
    if not arrays_and_dtypes:
        raise MXNetValueError("result_type: at least one array or dtype is required")
    dtypes = []
    for item in arrays_and_dtypes:
        if isinstance(item, (NDArray, _onp.ndarray)):
            dtypes.append(_onp.dtype(item.dtype))
        elif isinstance(item, (_onp.dtype, type, str)):
            dtypes.append(_onp.dtype(item))
        else:
            return _numpy_result_type(*arrays_and_dtypes)
    if any(d.kind not in "biuf" for d in dtypes):
        return _onp.result_type(*dtypes)
    result = dtypes[0]
    for d in dtypes[1:]:
        result = _promote(result, d)
    return result


_numpy_result_type = FUNCTIONS["result_type"]
FUNCTIONS["result_type"] = result_type


def _interpolation(name):
    """``quantile``-like fallbacks take MXNet's (NumPy 1's) ``interpolation=`` keyword: NumPy 2
    calls it ``method``."""
    compute = FUNCTIONS[name]

    def call(*args, **kwargs):
        if "interpolation" in kwargs:
            kwargs["method"] = kwargs.pop("interpolation")
        return compute(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = compute.__doc__
    return call


FUNCTIONS.update({name: _interpolation(name) for name in ("quantile", "percentile",
                                                          "nanquantile", "nanpercentile")})


def delete(arr, obj, axis=None):
    """NumPy's ``delete``; an index list's negative or too large entries are ignored, as MXNet
    (and NumPy before 1.19) does."""
    if not isinstance(obj, (slice, int, _onp.integer)):
        length = (arr.size if axis is None else arr.shape[axis]) if hasattr(arr, "shape") else 0
        values = obj.asnumpy() if isinstance(obj, NDArray) else _onp.asarray(obj)
        if values.dtype.kind in "iu":
            obj = values[(values >= 0) & (values < length)].tolist()   # NOTE: traceable
    return _delete(arr, obj, axis=axis)


_delete = FUNCTIONS["delete"]
FUNCTIONS["delete"] = delete
