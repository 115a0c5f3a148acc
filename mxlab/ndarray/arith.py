"""Hand-written arithmetic and comparison frontends: ``add(x1, x2)`` with arrays or Python scalars.

Each public function picks the tensor op, the scalar op or the reflected scalar op of
:mod:`mxlab.ops.elemwise` by the operand types, for ``mx.np`` and ``mx.nd`` alike.
"""
import numpy

from ..base import MXNetTypeError
from ..imperative import invoke, invoke_one
from ..ops.elemwise import COMPARISONS, legacy_stem
from ..ops.infer import check_one_dtype
from ..ops.registry import get_op
from .frontend import check_ufunc_options
from .namespace import invoke_op, register_frontend
from .ndarray import NDArray, array

__all__ = ["binary_frontend", "invert"]


def _scalar_attrs(fname, value, legacy=False):
    """The attribute dict of a scalar op, built directly (the hot path of ``x + 1``). ``legacy``
    (``mx.nd``): ``is_int`` is always True, as MXNet 1.x passes it, so an integer array takes the
    scalar cast to its dtype (see :func:`mxlab.ops.elemwise._scalar_for`)."""
    kind = type(value)
    if kind is float:
        return {"scalar": value, "is_int": legacy}
    if kind is int or kind is bool:
        return {"scalar": int(value), "is_int": True}
    if isinstance(value, numpy.generic) and value.dtype.kind in "biuf":
        return _scalar_attrs(fname, value.item(), legacy)
    raise MXNetTypeError(f"{fname}: operands must be arrays or Python scalars, "
                         f"got {kind.__name__}")


def _as_array_like(arr, host):
    """A NumPy operand as an array of ``arr``'s class and device (MXNet: ``onp + mx_np`` is an
    ``mx_np`` array)."""
    return array(host, dtype=host.dtype, device=arr.device, cls=type(arr))


def binary_frontend(fname, tensor, scalar, rscalar, legacy=False):
    """``fname(x1, x2, out=None)``: op ``tensor`` on two arrays, ``scalar``/``rscalar`` for one
    (``legacy``: with ``mx.nd``'s scalar rule, see :func:`_scalar_attrs`).

    Ops are looked up once here, so a call costs two type tests and one :func:`invoke`.
    """
    tensor_op, scalar_op_, rscalar_op = get_op(tensor), get_op(scalar), get_op(rscalar)
    host = getattr(numpy, fname)

    def call(x1, x2, out=None, **kwargs):
        if kwargs:
            check_ufunc_options(fname, kwargs)
        if out is None and isinstance(x1, NDArray):   # NOTE: the hot paths, ``x * 1.5``, ``x * y``
            if type(x2) is float:
                return invoke_one(scalar_op_, [x1], {"scalar": x2, "is_int": legacy})
            if isinstance(x2, NDArray):
                return invoke_one(tensor_op, [x1, x2], {})
        outs = None if out is None else [out]
        if isinstance(x1, NDArray):
            if isinstance(x2, NDArray):
                return invoke(tensor_op, [x1, x2], {}, outs)[0]
            if isinstance(x2, numpy.ndarray):
                return invoke(tensor_op, [x1, _as_array_like(x1, x2)], {}, outs)[0]
            return invoke(scalar_op_, [x1], _scalar_attrs(fname, x2, legacy), outs)[0]
        if isinstance(x2, NDArray):
            if isinstance(x1, numpy.ndarray):
                return invoke(tensor_op, [_as_array_like(x2, x1), x2], {}, outs)[0]
            return invoke(rscalar_op, [x2], _scalar_attrs(fname, x1, legacy), outs)[0]
        return host(x1, x2)
    call.__name__ = call.__qualname__ = fname
    call.__doc__ = (f"``{fname}(x1, x2, out=None)`` with broadcasting; either side may be a "
                    f"Python scalar (ops ``{tensor}``, ``{scalar}``, ``{rscalar}``).")
    return call


def _publish(flavours, names, fn):
    for name in names:
        register_frontend(*flavours, name=name)(fn)


# public names, tensor op, scalar op, reflected scalar op: the same ops for mx.np and mx.nd
# (division: see _NP_OPS), with each generation's scalar rule
_ARITHMETIC_FRONTENDS = (
    (("add",), "broadcast_add", "_plus_scalar", "_plus_scalar"),
    (("subtract",), "broadcast_sub", "_minus_scalar", "_rminus_scalar"),
    (("multiply",), "broadcast_mul", "_mul_scalar", "_mul_scalar"),
    (("true_divide", "divide"), "broadcast_div", "_div_scalar", "_rdiv_scalar"),
    (("floor_divide",), "_npi_floor_divide", "_npi_floor_divide_scalar",
     "_npi_rfloor_divide_scalar"),
    (("mod", "remainder"), "broadcast_mod", "_mod_scalar", "_rmod_scalar"),
    (("power",), "broadcast_power", "_power_scalar", "_rpower_scalar"),
    (("maximum",), "broadcast_maximum", "_maximum_scalar", "_maximum_scalar"),
    (("minimum",), "broadcast_minimum", "_minimum_scalar", "_minimum_scalar"),
    (("hypot",), "broadcast_hypot", "_hypot_scalar", "_hypot_scalar"),
    (("arctan2",), "_npi_arctan2", "_npi_arctan2_scalar", "_npi_rarctan2_scalar"),
)
_ND_EXTRA_NAMES = {"mod": ("modulo",), "less": ("lesser",), "less_equal": ("lesser_equal",)}

# NOTE: mx.nd divides integers as C does, keeping their dtype; mx.np's true_divide gives floats
_NP_OPS = {"true_divide": ("_npi_true_divide", "_npi_true_divide_scalar",
                           "_npi_rtrue_divide_scalar")}

for _names, _tensor, _scalar, _rscalar in _ARITHMETIC_FRONTENDS:
    _publish(("np",), _names, binary_frontend(
        _names[0], *_NP_OPS.get(_names[0], (_tensor, _scalar, _rscalar))))
    _fn = binary_frontend(_names[0], _tensor, _scalar, _rscalar, legacy=True)
    _publish(("nd",), _names + _ND_EXTRA_NAMES.get(_names[0], ()), _fn)

for _ufunc, _reflected, _nx in COMPARISONS:
    _stem, _rstem = legacy_stem(_ufunc), legacy_stem(_reflected)
    _publish(("np",), (_ufunc,), binary_frontend(
        _ufunc, f"_npi_{_ufunc}", f"_npi_{_ufunc}_scalar", f"_npi_{_reflected}_scalar"))
    _publish(("nd",), (_ufunc,) + _ND_EXTRA_NAMES.get(_ufunc, ()), binary_frontend(
        _ufunc, f"broadcast_{_stem}", f"_{_stem}_scalar", f"_{_rstem}_scalar", legacy=True))

def _same_dtype_frontend(name, op_name):
    """``mx.nd.<name>(lhs, rhs)``: MXNet's legacy ``elemwise_*`` take operands of one dtype (no
    int/float promotion, unlike ``mx.np``) and of one shape (no broadcasting); a mismatch is an
    error naming both dtypes or shapes."""
    op = get_op(op_name)

    def call(lhs, rhs, out=None, name=None):
        check_one_dtype(call.__name__, ("lhs", "rhs"), [lhs.dtype, rhs.dtype])
        if lhs.shape != rhs.shape:   # NOTE: refused at the call, as MXNet's shape inference
            op.infer_shapes({}, [tuple(lhs.shape), tuple(rhs.shape)])
        return invoke(op, [lhs, rhs], {}, None if out is None else [out])[0]
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``{name}(lhs, rhs)``: op ``{op_name}`` on two arrays of one dtype."
    return call


for _name in ("elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div"):
    _publish(("nd",), (_name,), _same_dtype_frontend(_name, _name))


@register_frontend("np", "nd")
def invert(x, out=None, **kwargs):
    """``~x``: bitwise NOT of integers, logical NOT of booleans (floats raise naming the op);
    NumPy's ufunc keywords only at their defaults, as MXNet.

    >>> import mxlab as mx
    >>> ~mx.np.array([True, False])
    array([False,  True])
    """
    check_ufunc_options("invert", kwargs)
    return invoke_op("_npi_bitwise_not", [x], out)
