"""``mx.np.random`` samplers with array-valued parameters (MXNet 2.0's ``_npi_<dist>`` ops with
tensor inputs), written as standard draws of the output shape transformed by array ops.

Shapes follow MXNet: without ``size`` the output has the parameters' broadcast shape; a ``size`` is
the output shape (the parameters must broadcast to it); ``size=SampleN(s)`` (the ``sample_n`` form
``gluon.probability`` uses, MXNet 2.0's ``(-2, *s)``) gives ``s + broadcast shape``. Because the
draws go through ordinary ops, location-scale samplers (normal, uniform, laplace, gumbel, logistic,
exponential, weibull, pareto, rayleigh) are differentiable in their parameters (reparameterisation,
as MXNet's backward ops) and record under deferred compute (hybridized blocks). gamma, beta,
chisquare, f, poisson draw per element (``_sample_gamma``/``_sample_poisson``); gamma's draws are
differentiable in its shape by implicit reparameterisation (``_npi_gamma_implicit``, as MXNet's
``_backward_gamma_sample``), poisson's carry no gradient.

Example
-------
>>> import mxlab as mx
>>> mx.np.random.normal(mx.np.zeros((2, 1)), mx.np.ones(3)).shape
(2, 3)
>>> from mxlab.ops.random import SampleN
>>> mx.np.random.uniform(mx.np.zeros(3), 1.0, size=SampleN((4,))).shape
(4, 3)
"""
import numpy

from ..base import MXNetValueError
from ..ndarray.namespace import call_op
from ..ndarray.ndarray import NDArray, ndarray
from ..ndarray.random import sample
from ..ops.random import SampleN, check_size

__all__ = ["output_shape", "draw_with_arrays"]


def output_shape(where, params, size):
    """MXNet's output shape for sampling with (some) array parameters ``params``."""
    shapes = [p.shape for p in params if isinstance(p, NDArray)]
    try:
        batch = numpy.broadcast_shapes(*shapes)
    except ValueError:
        raise MXNetValueError(f"{where}: parameter shapes {shapes} do not broadcast") from None
    size = check_size(where, size)
    if size is None:
        return tuple(batch)
    if isinstance(size, SampleN):
        return tuple(size) + tuple(batch)
    try:
        fits = numpy.broadcast_shapes(*shapes, size) == size
    except ValueError:
        fits = False
    if not fits:
        raise MXNetValueError(f"{where}: parameter shapes {shapes} cannot broadcast to size "
                              f"{size}")
    return size


def _device(params, device):
    return device or next(p for p in params if isinstance(p, NDArray)).device


def _std(op_name, device, shape, dtype, **attrs):
    """Standard draws of ``shape`` from the scalar sampler ``op_name``."""
    return sample(op_name, ndarray, device, None, size=shape, dtype=dtype or "float32", **attrs)


def _broadcast(value, shape, device, dtype):
    """``value`` (array or scalar) as an array of ``shape``."""
    is_array = isinstance(value, NDArray)
    if is_array and value.shape == shape:
        return value
    filled = sample("_full", ndarray, device, None, shape=shape, value=0.0 if is_array else value,
                    dtype=dtype or (value.dtype if is_array else "float32"))
    # NOTE: an add, not broadcast_to (which reads a 0 target dim as "keep the input's")
    return value + filled if is_array else filled


def _per_element(op_name, values, shape, device, dtype):
    """``_sample_<dist>``: one draw per element of the parameters broadcast to ``shape``."""
    arrays = [_broadcast(v, shape, device, dtype) for v in values]
    return call_op(op_name, arrays, shape=(), dtype=dtype)


def _gamma(k, theta, shape, device, dtype):
    """Standard draws per element of ``k`` (differentiable in ``k`` by implicit
    reparameterisation, as MXNet's) times ``theta``; both must be positive."""
    std = _per_element("_sample_gamma", [k, 1.0], shape, device, dtype)
    if isinstance(k, NDArray):
        std = call_op("_npi_gamma_implicit", [_broadcast(k, shape, device, dtype), std])
    elif k <= 0:
        raise MXNetValueError(f"np.random.gamma: shape must be positive, got {k}")
    if isinstance(theta, NDArray):
        return std * (theta * call_op("_npx_constraint_check", [theta > 0],
                                      msg="np.random.gamma: scale must be positive"))
    if theta <= 0:
        raise MXNetValueError(f"np.random.gamma: scale must be positive, got {theta}")
    return std if theta == 1.0 else std * theta


def _chisquare(df, shape, device, dtype):
    return 2.0 * _gamma(df / 2.0, 1.0, shape, device, dtype)


def _location_scale(op_name):
    def draw(loc, scale, shape, device, dtype):
        return loc + scale * _std(op_name, device, shape, dtype, loc=0.0, scale=1.0)
    return draw


def _exp1(shape, device, dtype):
    return _std("_npi_exponential", device, shape, dtype, scale=1.0)


_DRAWS = {
    "uniform": lambda lo, hi, shape, device, dtype: lo + (hi - lo) * _std(
        "_npi_uniform", device, shape, dtype, low=0.0, high=1.0),
    "normal": _location_scale("_npi_normal"),
    "logistic": _location_scale("_npi_logistic"),
    "gumbel": _location_scale("_npi_gumbel"),
    "laplace": _location_scale("_npi_laplace"),
    "lognormal": lambda mean, sigma, shape, device, dtype: call_op(
        "exp", [_location_scale("_npi_normal")(mean, sigma, shape, device, dtype)]),
    "exponential": lambda scale, shape, device, dtype: scale * _exp1(shape, device, dtype),
    "rayleigh": lambda scale, shape, device, dtype: scale * _std(
        "_npi_rayleigh", device, shape, dtype, scale=1.0),
    "weibull": lambda a, shape, device, dtype: _exp1(shape, device, dtype) ** (1.0 / a),
    "pareto": lambda a, shape, device, dtype: call_op(
        "expm1", [_exp1(shape, device, dtype) / a]),
    "power": lambda a, shape, device, dtype: _std(
        "_npi_uniform", device, shape, dtype, low=0.0, high=1.0) ** (1.0 / a),
    "gamma": _gamma,
    "chisquare": _chisquare,
    "beta": lambda a, b, shape, device, dtype: _beta(a, b, shape, device, dtype),
    "f": lambda n, d, shape, device, dtype: (_chisquare(n, shape, device, dtype) / n) / (
        _chisquare(d, shape, device, dtype) / d),
    "poisson": lambda lam, shape, device, dtype: _per_element(
        "_sample_poisson", [lam], shape, device, dtype or "int64"),
}


def _beta(a, b, shape, device, dtype):
    x = _gamma(a, 1.0, shape, device, dtype)
    return x / (x + _gamma(b, 1.0, shape, device, dtype))


def draw_with_arrays(name, values, size, dtype, device, out):
    """``mx.np.random.<name>(*values, size)`` where some of ``values`` are arrays."""
    where = f"np.random.{name}"
    if name not in _DRAWS:
        raise MXNetValueError(f"{where}: array-valued parameters are not supported for {name}")
    shape = output_shape(where, values, size)
    result = _DRAWS[name](*values, shape, _device(values, device), dtype)
    if dtype is not None and result.dtype != numpy.dtype(dtype):
        result = result.astype(dtype)
    return result if out is None else result.copyto(out)
