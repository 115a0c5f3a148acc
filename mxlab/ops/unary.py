"""Unary elementwise maps: abs, exp/log family, powers, trigonometry, erf, rounding.

One table row per op (:data:`_UNARY`): the kernel, its dtype kind, a numexpr template, the
derivative written with :data:`~mxlab.ops.registry.F` ops and the public NumPy name. ``round`` and
``rint`` keep MXNet's legacy rounding in ``mx.nd``; ``mx.np.round``/``mx.np.rint`` are NumPy's.

Example
-------
>>> import mxlab as mx
>>> mx.nd.round(mx.nd.array([0.5, 1.5])).asnumpy(), mx.np.round(mx.np.array([0.5, 1.5])).asnumpy()
(array([1., 2.], dtype=float32), array([0., 2.], dtype=float32))
"""
import math

import numpy

from .attrs import Attr
from .elemwise import as_array, unary
from .infer import same_shape
from .registry import F, Op, register

__all__ = ["erf", "erf_fallback"]


_ERF = {}


def erf(xp, x):
    """erf from SciPy / CuPy when present, else ``math.erf`` per element (NumPy has no erf)."""
    fn = _ERF.get(xp.__name__)
    if fn is None:
        fn = _ERF[xp.__name__] = _find_erf(xp)
    return fn(x).astype(x.dtype, copy=False)


def _find_erf(xp):
    try:
        if xp is numpy:
            from scipy.special import erf as special_erf
        else:
            from cupyx.scipy.special import erf as special_erf
        return special_erf
    except ImportError:
        return erf_fallback


_VECTOR_ERF = numpy.frompyfunc(math.erf, 1, 1)


def erf_fallback(x):
    """``math.erf`` per element: exact, slow; used on NumPy when SciPy is not installed."""
    # NOTE: frompyfunc gives a Python float for 0-d input, hence asarray.
    return numpy.asarray(_VECTOR_ERF(x)).astype(x.dtype)


def _round_half_away(xp, x):
    """MXNet's ``round``: halves go away from zero (NumPy's ``round`` goes to even)."""
    return xp.copysign(xp.floor(xp.abs(x) + 0.5), x)


def _rint_legacy(xp, x):
    """MXNet's legacy ``rint``: ``floor(x)`` when ``x - floor(x) <= 0.5``, else ``ceil(x)``."""
    low = xp.floor(x)
    return xp.where(x - low <= 0.5, low, low + 1)


def _times(deriv):
    """Gradient rule ``g * deriv(x, y)`` from a derivative written with F ops."""
    return lambda node, g: [F.broadcast_mul(g[0], deriv(node.inputs[0], node.outputs[0]))]


def _zero_like_head(node, g):
    """Rounding: zero gradient, shaped from the head gradient (the input is not saved)."""
    return [F.zeros_like(g[0])]


def _scaled(factor):
    """``g * factor`` where the factor is taken through ``x`` (a zero gradient of its own), as
    MXNet's ``_backward_radians(g, x)``: a recorded first derivative then still reaches ``x``, so
    a second ``autograd.grad`` gives zeros rather than finding ``x`` unreachable."""
    return _times(lambda x, y: F._mul_scalar(F.ones_like(x), scalar=factor))


def _one_minus_square(x):
    return F._rminus_scalar(F.square(x), scalar=1.0)


def _one_plus_square(x):
    return F._plus_scalar(F.square(x), scalar=1.0)


_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_BY_SQRT_PI = 2.0 / math.sqrt(math.pi)

# name, kernel (ufunc name or callable(xp, x)), kind (see ``unary``), numexpr, gradient, what the
# gradient reads, np_name ("" = the name itself, None = not in mx.np); ``_npi_<np_name>`` aliases.
_UNARY = (
    ("abs", "abs", "same", "abs({0})", _times(lambda x, y: F.sign(x)), "x", ""),
    ("sign", "sign", "same", "sign({0})", _zero_like_head, "", ""),
    ("negative", "negative", "same", "(-{0})", lambda node, g: [F.negative(g[0])], "", ""),
    ("square", "square", "same", "({0} * {0})",
     _times(lambda x, y: F._mul_scalar(x, scalar=2.0)), "x", ""),
    ("reciprocal", "reciprocal", "float", "(1 / {0})",
     _times(lambda x, y: F.negative(F.square(y))), "y", ""),
    ("exp", "exp", "float", "exp({0})", _times(lambda x, y: y), "y", ""),
    ("expm1", "expm1", "float", "expm1({0})",
     _times(lambda x, y: F._plus_scalar(y, scalar=1.0)), "y", ""),
    ("log", "log", "float", "log({0})", _times(lambda x, y: F.reciprocal(x)), "x", ""),
    ("log2", "log2", "float", "log2({0})",
     _times(lambda x, y: F._rdiv_scalar(x, scalar=1.0 / _LN2)), "x", ""),
    ("log10", "log10", "float", "log10({0})",
     _times(lambda x, y: F._rdiv_scalar(x, scalar=1.0 / _LN10)), "x", ""),
    ("log1p", "log1p", "float", "log1p({0})",
     _times(lambda x, y: F.reciprocal(F._plus_scalar(x, scalar=1.0))), "x", ""),
    ("sqrt", "sqrt", "float", "sqrt({0})", _times(lambda x, y: F._rdiv_scalar(y, scalar=0.5)),
     "y", ""),
    ("rsqrt", lambda xp, x: xp.reciprocal(xp.sqrt(x)), "float", "(1 / sqrt({0}))",
     _times(lambda x, y: F._mul_scalar(F._power_scalar(y, scalar=3), scalar=-0.5)), "y", None),
    ("cbrt", "cbrt", "float", None,
     _times(lambda x, y: F._rdiv_scalar(F.square(y), scalar=1.0 / 3)), "y", ""),
    ("rcbrt", lambda xp, x: xp.reciprocal(xp.cbrt(x)), "float", None,
     _times(lambda x, y: F._mul_scalar(F._power_scalar(y, scalar=4), scalar=-1.0 / 3)), "y",
     None),
    ("sin", "sin", "float", "sin({0})", _times(lambda x, y: F.cos(x)), "x", ""),
    ("cos", "cos", "float", "cos({0})", _times(lambda x, y: F.negative(F.sin(x))), "x", ""),
    ("tan", "tan", "float", "tan({0})", _times(lambda x, y: _one_plus_square(y)), "y", ""),
    ("arcsin", "arcsin", "float", "arcsin({0})",
     _times(lambda x, y: F.rsqrt(_one_minus_square(x))), "x", ""),
    ("arccos", "arccos", "float", "arccos({0})",
     _times(lambda x, y: F.negative(F.rsqrt(_one_minus_square(x)))), "x", ""),
    ("arctan", "arctan", "float", "arctan({0})",
     _times(lambda x, y: F.reciprocal(_one_plus_square(x))), "x", ""),
    ("sinh", "sinh", "float", "sinh({0})", _times(lambda x, y: F.cosh(x)), "x", ""),
    ("cosh", "cosh", "float", "cosh({0})", _times(lambda x, y: F.sinh(x)), "x", ""),
    ("tanh", "tanh", "float", "tanh({0})", _times(lambda x, y: _one_minus_square(y)), "y", ""),
    ("arcsinh", "arcsinh", "float", "arcsinh({0})",
     _times(lambda x, y: F.rsqrt(_one_plus_square(x))), "x", ""),
    ("arccosh", "arccosh", "float", "arccosh({0})",
     _times(lambda x, y: F.rsqrt(F._minus_scalar(F.square(x), scalar=1.0))), "x", ""),
    ("arctanh", "arctanh", "float", "arctanh({0})",
     _times(lambda x, y: F.reciprocal(_one_minus_square(x))), "x", ""),
    ("degrees", "degrees", "float", None, _scaled(180.0 / math.pi), "x", ""),
    ("radians", "radians", "float", None, _scaled(math.pi / 180.0), "x", ""),
    ("erf", erf, "float", None, _times(lambda x, y: F._mul_scalar(
        F.exp(F.negative(F.square(x))), scalar=_TWO_BY_SQRT_PI)), "x", None),
    ("floor", "floor", "round", "floor({0})", _zero_like_head, "", ""),
    ("ceil", "ceil", "round", "ceil({0})", _zero_like_head, "", ""),
    ("trunc", "trunc", "round", "trunc({0})", _zero_like_head, "", ""),
    ("fix", "trunc", "round", "trunc({0})", _zero_like_head, "", ""),
    ("round", _round_half_away, "round", None, _zero_like_head, "", None),
    ("rint", _rint_legacy, "round", None, _zero_like_head, "", None),
    ("_npi_rint", "rint", "round", None, _zero_like_head, "", "rint"),
)


_NPX_NAMES = {"erf": "erf"}     # MXNet 2.0's mx.npx.erf (mx.np has none)


def _register_unary(name, kernel, kind, numexpr, grad, uses, np_name):
    if np_name == "":
        np_name = name
    aliases = (f"_npi_{np_name}",) if np_name and not name.startswith("_npi_") else ()
    unary(name, kernel, grad=grad, kind=kind, numexpr=numexpr, uses=uses, np_name=np_name,
          aliases=aliases, npx_name=_NPX_NAMES.get(name))


for _row in _UNARY:
    _register_unary(*_row)
register(Op(name="_npi_around", attrs=(Attr("decimals", "int", 0),), np_name="round",
            compute=lambda xp, inputs, attrs: as_array(xp, xp.round(inputs[0],
                                                                    attrs["decimals"])),
            infer_shape=same_shape, gradient=_zero_like_head, inplace=((0, 0),), elementwise=True,
            save_inputs=False, save_outputs=False,
            doc="NumPy's ``round`` (halves to even); ``mx.nd.round`` rounds them away from 0."))
