"""``mx.np`` functions that run NumPy's own (or CuPy's, on a GPU) on the arrays' data: MXNet's
"fallback" functions (``numpy/fallback.py``) plus the non-differentiable extras (set ops,
histograms, index builders, integer predicates).

As in MXNet, a fallback is not an op: it waits for its inputs, runs eagerly, is not recorded by
autograd (no gradient) and is not traced by ``hybridize``; its array results are ``mx.np``
arrays on the inputs' device. Functions that return Python values (``allclose``, ``ndim``)
return them unchanged.

Example
-------
>>> import mxlab as mx
>>> mx.np.unique(mx.np.array([3, 1, 3, 2])).asnumpy()
array([1., 2., 3.], dtype=float32)
"""
import numpy as _onp

from ..base import MXNetValueError
from ..device import current_device
from ..ndarray.ndarray import NDArray, ndarray

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
        devices = _devices(list(args) + list(kwargs.values()), set())
        if len(devices) > 1:
            raise MXNetValueError(f"np.{name}: arrays on different devices "
                                  f"{sorted(map(str, devices))}")
        device = devices.pop() if devices else current_device()
        xp = device.xp
        device_fn = getattr(xp, name, None) if xp is not _onp else host_fn
        host = device_fn is None
        fn = host_fn if host else device_fn
        result = fn(*_to_data(args, host), **_to_data(kwargs, host))
        return _to_mx(result, device, xp)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = doc or (f"NumPy's ``{name}`` on mx arrays (a fallback: eager, no gradient; "
                           "see :mod:`mxlab.numpy.fallback`).")
    return call


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


# NOTE: MXNet's own fallback list, then the non-differentiable names of its mx.np __all__.
FALLBACK_NAMES = (
    "allclose", "alltrue", "apply_along_axis", "apply_over_axes", "argpartition", "argwhere",
    "array_equal", "array_equiv", "choose", "compress", "corrcoef", "correlate", "count_nonzero",
    "cov", "cumprod", "digitize", "divmod", "extract", "float_power", "frexp", "heaviside",
    "histogram2d", "histogram_bin_edges", "histogramdd", "i0", "in1d", "intersect1d", "isclose",
    "isin", "ix_", "lexsort", "min_scalar_type", "modf", "msort", "nanargmax", "nanargmin",
    "nancumprod", "nancumsum", "nanmax", "nanmedian", "nanmin", "nanpercentile", "nanprod",
    "nanquantile", "nanstd", "nansum", "nanvar", "ndim", "packbits", "partition", "piecewise",
    "poly", "polyadd", "polydiv", "polyfit", "polyint", "polymul", "polysub", "promote_types",
    "ptp", "real", "roots", "searchsorted", "select", "setdiff1d", "setxor1d", "signbit", "size",
    "spacing", "take_along_axis", "trapz", "tril_indices_from", "trim_zeros", "union1d",
    "unpackbits", "unwrap", "vander",
    # from mx.np's __all__: no gradient in MXNet either
    "median", "quantile", "percentile", "histogram", "unique", "bincount", "interp", "isnan",
    "isinf", "isfinite", "isposinf", "isneginf", "unravel_index", "tril_indices", "triu_indices",
    "triu_indices_from", "diag_indices_from", "delete", "insert", "resize", "shares_memory",
    "may_share_memory", "unique_all", "unique_inverse", "unique_values", "can_cast",
    "result_type",
)
CREATION_NAMES = ("tri", "hanning", "hamming", "blackman", "indices")
_RENAMED = {"alltrue": "all", "msort": "sort", "trapz": "trapezoid", "in1d": "isin"}


def _build(name):
    if name in _RENAMED and not hasattr(_onp, name):
        fn = fallback(_RENAMED[name])     # NOTE: removed from NumPy 2; MXNet's names kept
        fn.__name__ = name
        return fn
    if not hasattr(_onp, name):
        return None
    return fallback(name)


FUNCTIONS = {name: fn for name in FALLBACK_NAMES if (fn := _build(name)) is not None}
FUNCTIONS.update({name: creation(name) for name in CREATION_NAMES})
