"""Hand-written creation frontends: ``zeros``, ``ones``, ``full``, ``arange``, ``eye`` with
MXNet's and NumPy's positional orders, ``linspace``, ``copy`` and ``cast``.

The ops are in :mod:`mxlab.ops.creation`.
"""
import inspect

import numpy

from ..base import MXNetNotImplementedError, MXNetValueError
from ..imperative import invoke
from ..ops.registry import get_op
from .namespace import invoke_op, register_frontend
from .ndarray import NDArray, ndarray

__all__ = ["create"]


def create(op_name, cls, device=None, **attrs):
    """Run the creation op ``op_name`` with ``attrs``; the result is a ``cls`` on ``device``."""
    op = get_op(op_name)
    return invoke(op, [], op.parse_attrs(attrs), cls=cls, device=device)[0]


_RENAMES = {"val": "value", "fill_value": "value"}


def _shown(op_name):
    return op_name.lstrip("_").replace("npi_", "")


def _check_stype(op_name, stype):
    """MXNet's ``stype=``: 'default', 'row_sparse' or 'csr'."""
    if stype is None or stype == "default" or stype in ("row_sparse", "csr"):
        return
    raise MXNetValueError(f"{_shown(op_name)}: unknown storage type {stype!r}; MXNet's are "
                          "'default', 'row_sparse' and 'csr'")


def _check_legacy_shape(op_name, shape):
    """Outside NumPy shape mode, ``()`` and a 0 dim mean "unknown" (MXNet 1.x), so ``nd.zeros`` and
    ``nd.ones`` refuse them as MXNet's shape inference does."""
    dims = (shape,) if isinstance(shape, (int, numpy.integer)) else shape
    if dims is None or (len(dims) and all(d != 0 for d in dims)):
        return
    from ..util import is_np_shape
    if not is_np_shape():
        raise MXNetValueError(
            f"Operator {op_name} inferring shapes failed: shape {tuple(dims)} has an unknown "
            "dimension (outside NumPy shape mode () and 0 mean unknown); create zero-size or "
            "scalar arrays under mx.np_shape() or npx.set_np()")


def _creator(op_name, cls, params, legacy_shape_check=False):
    """A frontend taking MXNet's/NumPy's positional order ``params`` (which names ``ctx``/``device``
    too); ``legacy_shape_check``: :func:`_check_legacy_shape` (``mx.nd.zeros``/``ones``)."""

    def frontend(*args, out=None, **kwargs):
        if len(args) > len(params):
            raise MXNetValueError(
                f"{op_name}: takes at most {len(params)} positional arguments "
                f"({', '.join(params)}), got {len(args)}"
            )
        kwargs.update(zip(params, args))
        device = kwargs.pop("device", None) or kwargs.pop("ctx", None)
        kwargs.pop("ctx", None)
        stype = kwargs.pop("stype", None)
        _check_stype(op_name, stype)
        if kwargs.get("order") not in (None, "C"):   # NOTE: MXNet's arrays are C-ordered only
            raise MXNetNotImplementedError(f"`{_shown(op_name)}` only supports order equal to `C`, "
                                           f"while received {kwargs['order']}")
        attrs = {_RENAMES.get(k, k): v for k, v in kwargs.items()}
        if legacy_shape_check:
            _check_legacy_shape(op_name, attrs.get("shape"))
        if (
            attrs.get("value") is not None
            and attrs.get("dtype") is None
            and isinstance(attrs["value"], bool)
        ):
            attrs["dtype"] = "bool"
        if isinstance(attrs.get("value"), NDArray):    # NOTE: MXNet 2.0: an array broadcasts
            result = _broadcast_fill(attrs)
        elif stype in ("row_sparse", "csr"):
            result = _sparse_creation(op_name, stype, device, attrs)
        else:
            result = create(op_name, cls, device, **attrs)
        return result if out is None else result.copyto(out)

    frontend.__name__ = op_name.lstrip("_")
    frontend.__doc__ = (
        f"Create an array with ``{op_name}``; arguments in the order {', '.join(params)}."
    )
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    frontend.__signature__ = inspect.Signature(
        [inspect.Parameter(params[0], positional)]
        + [inspect.Parameter(p, positional, default=None) for p in params[1:]]
        + [inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)])
    return frontend


def _broadcast_fill(attrs):
    """``full(shape, array)``: the array broadcast to ``shape`` (cast to ``dtype`` if given)."""
    shape = attrs["shape"]
    op = get_op("_npi_broadcast_to")
    result = invoke(op, [attrs["value"]], op.parse_attrs(
        {"shape": (shape,) if isinstance(shape, int) else shape}))[0]
    return result if attrs.get("dtype") is None else result.astype(attrs["dtype"])


def _sparse_creation(op_name, stype, device, attrs):
    """``zeros``/``empty`` of a sparse storage type store nothing; other creators make the dense
    array and cast it."""
    from .sparse_array import empty_components, make_sparse, to_stype
    if op_name in ("_npi_zeros", "_empty"):
        shape = attrs["shape"]
        shape = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
        if stype == "csr" and len(shape) != 2:
            raise MXNetValueError(f"{_shown(op_name)}: csr storage needs a 2-d shape, got {shape}")
        dtype = numpy.dtype(attrs.get("dtype") or "float32")
        return make_sparse(stype, empty_components(stype, shape, dtype), shape, device, dtype)
    return to_stype(create(op_name, NDArray, device, **attrs), stype)


def dense_zeros(shape, ctx=None, dtype=None, **kwargs):
    """``mx.nd.zeros`` (dense)."""
    return create("_npi_zeros", NDArray, ctx, shape=shape, dtype=dtype, **kwargs)


_CREATORS = {
    "np": {
        "zeros": ("_npi_zeros", ("shape", "dtype", "order", "ctx", "device")),
        "ones": ("_ones", ("shape", "dtype", "order", "ctx", "device")),
        "empty": ("_empty", ("shape", "dtype", "order", "ctx", "device")),
        "full": ("_full", ("shape", "fill_value", "dtype", "order", "ctx", "device")),
        "arange": ("_npi_arange", ("start", "stop", "step", "dtype", "ctx", "device")),
        "eye": ("_npi_eye", ("N", "M", "k", "dtype", "ctx", "device")),
    },
    "nd": {
        "zeros": ("_npi_zeros", ("shape", "ctx", "dtype")),
        "ones": ("_ones", ("shape", "ctx", "dtype")),
        "empty": ("_empty", ("shape", "ctx", "dtype")),
        "full": ("_full", ("shape", "val", "ctx", "dtype")),
        "arange": ("_arange", ("start", "stop", "step", "repeat", "infer_range", "ctx", "dtype")),
        "eye": ("_eye", ("N", "M", "k", "ctx", "dtype")),
    },
}


def _linspace_np(
    start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None, device=None
):
    """NumPy ``linspace``; ``retstep=True`` also returns the spacing."""
    if axis != 0:
        raise MXNetValueError("linspace: only axis=0 is supported")
    result = create(
        "_linspace",
        ndarray,
        device or ctx,
        start=start,
        stop=stop,
        num=num,
        endpoint=endpoint,
        dtype=dtype or "float32",
    )
    if not retstep:
        return result
    return result, (stop - start) / max(num - int(endpoint), 1)


def _astype_np(a, dtype, copy=True):
    return a.astype(dtype, copy=copy)


def _copy_frontend(a, out=None):
    """A new array with the same values (``a.copy()``)."""
    return invoke_op("_copy", [a], out)


for _flavour, _table in _CREATORS.items():
    for _public, (_op_name, _params) in _table.items():
        register_frontend(_flavour, name=_public)(
            _creator(_op_name, ndarray if _flavour == "np" else NDArray, _params,
                     legacy_shape_check=_flavour == "nd" and _public in ("zeros", "ones"))
        )
register_frontend("np", name="linspace")(_linspace_np)
register_frontend("np", name="astype")(_astype_np)
register_frontend("np", "nd", name="copy")(_copy_frontend)
def _default_float(dtype):
    """``mx.np``'s ``astype(None)``: the default float dtype (MXNet; NumPy's is float64)."""
    if dtype is None:
        from ..util import is_np_default_dtype
        return "float64" if is_np_default_dtype() else "float32"
    return dtype


register_frontend("np", name="cast")(
    lambda data, dtype, out=None: invoke_op("_npi_astype", [data], out,
                                            dtype=_default_float(dtype)))
register_frontend("nd", name="cast")(
    lambda data, dtype, out=None: invoke_op("Cast", [data], out, dtype=dtype))
