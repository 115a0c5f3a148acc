"""Division: MXNet 1.x's ``mx.nd`` / ``mx.sym`` divide integers as C does (truncating toward zero,
in their own dtype: ``int32 [-7] / 2 == [-3]``), while ``mx.np``'s ``true_divide`` gives floats.
The legacy ops (``broadcast_div``, ``elemwise_div``, ``_div_scalar``, ``_rdiv_scalar``) and the
NumPy ones (``_npi_true_divide*``) are therefore separate ops with one gradient.

Example
-------
>>> import mxlab as mx
>>> (mx.nd.array([-7, 7], dtype="int32") / 2).asnumpy()
array([-3,  3], dtype=int32)
>>> (mx.np.array([-7, 7], dtype="int32") / 2).dtype
dtype('float32')
"""
import numpy

from .elemwise import (_float_scalar_dtype, _scalar_of, _sum_like, as_array, binary, float_result,
                       promote, scalar_op)
from .registry import F, Op, register

__all__ = ["c_divide"]


def _true_divide_dtype(a, b):
    return float_result(promote(a, b))


def _legacy_divide_dtype(a, b):
    """``mx.nd``: integers divide into their own dtype (see :func:`c_divide`)."""
    result = promote(a, b)
    return result if result.kind in "iu" else float_result(result)


def _legacy_divide_scalar_dtype(dtype, scalar):
    return dtype if dtype.kind in "iu" else _float_scalar_dtype(dtype, scalar)


def c_divide(xp, a, b, out=None, dtype=None):
    """MXNet 1.x's ``a / b``: true division, except that integers divide as C does, truncating
    toward zero and keeping their dtype (NumPy's ``/`` gives floats and ``//`` floors)."""
    if dtype is None:
        dtype = out.dtype if out is not None else xp.result_type(a, b)
    if numpy.dtype(dtype).kind not in "iu":
        return xp.true_divide(a, b, out=out, dtype=dtype)
    with numpy.errstate(divide="ignore", invalid="ignore"):   # NOTE: x / 0 is 0, not a crash
        # NOTE: the correction first: ``out`` may be ``a`` (``x /= 2``)
        toward_zero = (xp.remainder(a, b) != 0) & ((xp.asarray(a) < 0) != (xp.asarray(b) < 0))
        quotient = as_array(xp, xp.floor_divide(a, b, out=out, dtype=dtype))
        quotient += toward_zero
    return quotient


c_divide.float_ufunc = "true_divide"


def _div_grad(node, g):
    a, b = node.inputs
    ga = F.broadcast_div(g[0], b)
    gb = F.negative(F.broadcast_mul(ga, F.broadcast_div(a, b)))
    return [_sum_like(ga, a), _sum_like(gb, b)]


binary("broadcast_div", c_divide, numexpr="({0} / {1})", grad=_div_grad,
       dtype_rule=_legacy_divide_dtype)
binary("_npi_true_divide", "true_divide", numexpr="({0} / {1})", grad=_div_grad,
       dtype_rule=_true_divide_dtype)


def _div_scalar_grad(node, g):
    return [F._div_scalar(g[0], scalar=_scalar_of(node))]


def _rdiv_scalar_grad(node, g):
    return [F.broadcast_mul(g[0], F._mul_scalar(F.reciprocal(F.square(node.inputs[0])),
                                                 scalar=-_scalar_of(node)))]


# NOTE: the legacy ops divide integers as C does (see c_divide); the NumPy ones give floats
for _legacy, _kernel, _dtype in ((True, c_divide, _legacy_divide_scalar_dtype),
                                 (False, "true_divide", _float_scalar_dtype)):
    scalar_op("_div_scalar" if _legacy else "_npi_true_divide_scalar", _kernel,
              aliases=("_DivScalar",) if _legacy else (), numexpr="({0} / {s})",
              out_dtype=_dtype, keeps_dtype=True, grad=_div_scalar_grad)
    scalar_op("_rdiv_scalar" if _legacy else "_npi_rtrue_divide_scalar", _kernel, reflected=True,
              aliases=("_RDivScalar",) if _legacy else (), numexpr="({s} / {0})",
              out_dtype=_dtype, keeps_dtype=True, grad=_rdiv_scalar_grad)


def _mod_backward(xp, inputs, attrs):
    """``x1 % x2``'s input gradients at the broadcast shape: ``g`` and ``-g * (x1 // x2)`` for
    floats, zeros for integers (MXNet's ``mod_grad``/``mod_rgrad`` are 0 but for real types)."""
    g, a, b = inputs
    if numpy.result_type(a.dtype, b.dtype).kind != "f":
        zeros = xp.zeros(g.shape, g.dtype)
        return zeros, zeros.copy()
    return g.copy(), -g * xp.floor_divide(a, b)


register(Op(name="_backward_mod", compute=_mod_backward, num_inputs=3, num_outputs=2,
            input_names=("ograd", "lhs", "rhs"), hidden=True, nd_names=(),
            infer_shape=lambda attrs, s: [s[0], s[0]], infer_type=lambda attrs, d: [d[0], d[0]],
            doc="Gradients of ``broadcast_mod`` at the broadcast shape (zeros for integers)."))
