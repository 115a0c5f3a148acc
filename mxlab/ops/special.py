"""Special functions NumPy lacks (gamma, log-gamma, digamma, trigamma, erfinv) and MXNet's ops
on them.

The kernels use SciPy's (NumPy) or CuPy's ``scipy.special`` when installed; without SciPy,
``math.gamma``/``math.lgamma`` per element and digamma/trigamma by recurrence plus their
asymptotic series (double precision to ~1e-13), so mxlab needs no SciPy.

Example
-------
>>> import mxlab as mx
>>> [round(float(v), 6) for v in mx.nd.gammaln(mx.nd.array([1.0, 5.0])).asnumpy()]
[0.0, 3.178054]
"""
import math

import numpy

from .registry import F
from .elemwise import unary
from .unary import erf

__all__ = ["gamma", "gammaln", "digamma", "trigamma", "erfinv"]

_SPECIAL = {}


def _special(xp, name):
    """``scipy.special.<name>`` for ``xp`` (cupyx's on CuPy), or None without SciPy."""
    key = (xp.__name__, name)
    if key not in _SPECIAL:
        try:
            if xp is numpy:
                import scipy.special as special
            else:
                import cupyx.scipy.special as special
            _SPECIAL[key] = getattr(special, name)
        except ImportError:
            _SPECIAL[key] = None
    return _SPECIAL[key]


def _per_element(fn):
    vector = numpy.frompyfunc(fn, 1, 1)
    return lambda x: numpy.asarray(vector(x), dtype="float64")


_MATH = {"gamma": _per_element(lambda v: _guard(math.gamma, v)),
         "gammaln": _per_element(lambda v: _guard(math.lgamma, v))}


def _guard(fn, value):
    """``math.gamma``/``lgamma`` at a pole or overflow give inf (as SciPy), never an exception."""
    try:
        return fn(value)
    except (ValueError, OverflowError):
        return math.inf


def _call(xp, name, x, series):
    fn = _special(xp, name)
    if fn is not None:
        return fn(x)
    if series is not None:
        return series(xp, x.astype("float64"))
    return xp.asarray(_MATH[name](xp.asnumpy(x) if xp is not numpy else x))


def gamma(xp, x):
    """Euler's gamma function."""
    return _call(xp, "gamma", x, None).astype(x.dtype, copy=False)


def gammaln(xp, x):
    """``log|gamma(x)|``."""
    return _call(xp, "gammaln", x, None).astype(x.dtype, copy=False)


def digamma(xp, x):
    """``d/dx log gamma(x)``."""
    return _call(xp, "digamma", x, _digamma_series).astype(x.dtype, copy=False)


def trigamma(xp, x):
    """``d^2/dx^2 log gamma(x)``."""
    fn = _special(xp, "polygamma")
    out = fn(1, x) if fn is not None else _trigamma_series(xp, x.astype("float64"))
    return out.astype(x.dtype, copy=False)


def erfinv(xp, x):
    """The inverse of erf on (-1, 1) (+-inf at +-1, nan outside)."""
    fn = _special(xp, "erfinv")
    out = fn(x) if fn is not None else _erfinv_newton(xp, x.astype("float64"))
    return out.astype(x.dtype, copy=False)


def _erfinv_newton(xp, x):
    """Giles' single-precision approximation refined by Newton steps on erf (no SciPy)."""
    w = -xp.log(xp.maximum((1.0 - x) * (1.0 + x), 1e-300))
    small = w < 5.0
    ws, wl = w - 2.5, xp.sqrt(w) - 3.0
    ps = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        ps = c + ps * ws
    pl = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        pl = c + pl * wl
    y = xp.where(small, ps, pl) * x
    with numpy.errstate(divide="ignore", invalid="ignore"):
        for _ in range(2):
            y = y - (erf(xp, y) - x) / (_TWO_BY_SQRT_PI * xp.exp(-y * y))
    y = xp.where(xp.abs(x) == 1.0, xp.copysign(xp.inf, x), y)
    return xp.where(xp.abs(x) > 1.0, xp.nan, y)


_TWO_BY_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _shift_up(xp, x, term):
    """Recurrence to x >= 6 where the asymptotic series is accurate: the sum of ``term(x + k)``."""
    acc = xp.zeros_like(x)
    for _ in range(6):
        small = x < 6
        acc = acc + xp.where(small, term(xp.where(small, x, 1.0)), 0.0)
        x = xp.where(small, x + 1, x)
    return x, acc


def _digamma_series(xp, x):
    reflect = x < 0.5
    y = xp.where(reflect, 1.0 - x, x)
    y, acc = _shift_up(xp, y, lambda v: 1.0 / v)
    inv2 = 1.0 / (y * y)
    tail = 1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))
    series = xp.log(y) - 0.5 / y - inv2 * (1 / 12 - inv2 * tail)
    value = series - acc
    return xp.where(reflect, value - math.pi / xp.tan(math.pi * x), value)


def _trigamma_series(xp, x):
    reflect = x < 0.5
    y = xp.where(reflect, 1.0 - x, x)
    y, acc = _shift_up(xp, y, lambda v: 1.0 / (v * v))
    inv, inv2 = 1.0 / y, 1.0 / (y * y)
    series = inv + 0.5 * inv2 + inv * inv2 * (1 / 6 - inv2 * (1 / 30 - inv2 * (1 / 42 - inv2 / 30)))
    value = series + acc
    return xp.where(reflect, (math.pi / xp.sin(math.pi * x)) ** 2 - value, value)


def _times(deriv):
    return lambda node, g: [F.broadcast_mul(g[0], deriv(node.inputs[0], node.outputs[0]))]


unary("gamma", gamma, kind="float", uses="xy", np_name=None, npx_name="gamma",
      grad=_times(lambda x, y: F.broadcast_mul(y, F._digamma(x))))
unary("gammaln", gammaln, kind="float", uses="x", np_name=None, npx_name="gammaln",
      grad=_times(lambda x, y: F._digamma(x)))
unary("_digamma", digamma, kind="float", uses="x", np_name=None, aliases=("digamma",),
      npx_name="digamma",
      grad=_times(lambda x, y: F._trigamma(x)))
unary("_trigamma", trigamma, kind="float", uses="", np_name=None, grad=None)
unary("erfinv", erfinv, kind="float", uses="y", np_name=None, npx_name="erfinv",
      grad=_times(lambda x, y: F._mul_scalar(F.exp(F.square(y)), scalar=math.sqrt(math.pi) / 2)),
      doc="The inverse error function.")
