"""Samplers of MXNet's other distributions: gamma, exponential, poisson, negative binomial,
generalized negative binomial (``_random_*``, per-element ``_sample_*``, shape-of-input
``_random_*_like``) and the NumPy-style ``_npi_*`` samplers of ``mx.np.random``.

MXNet's parameterisations are kept: ``gamma(alpha, beta)`` has scale ``beta``, ``exponential(lam)``
rate ``lam``, ``generalized_negative_binomial(mu, alpha)`` mean ``mu`` and dispersion ``alpha``
(a Poisson draw whose rate is gamma-distributed, as MXNet samples it). Discrete draws come back
as float32 unless ``dtype`` says otherwise, as in MXNet.

Example
-------
>>> import mxlab as mx
>>> mx.random.seed(1)
>>> x = mx.nd.random.gamma(alpha=9.0, beta=0.5, shape=(20000,)).asnumpy()
>>> bool(abs(x.mean() - 4.5) < 0.1)
True
"""
import numpy

from ..base import MXNetNotImplementedError, MXNetValueError
from .attrs import REQUIRED, Attr
from .random import register_param_sampler, register_sampler, size_attr
from .registry import F, Op, register
from .special import _special

__all__ = ["DISTRIBUTIONS", "NP_DISTRIBUTIONS", "frontend_params"]


def _gnb(gen, mu, alpha, size):
    """Poisson(Gamma(1/alpha, mu*alpha)); ``alpha == 0`` is Poisson(mu) (no over-dispersion)."""
    zero = alpha == 0
    safe = alpha + zero
    rate = gen.gamma(1.0 / safe, mu * safe, size)
    return gen.poisson(rate * (1 - zero) + mu * zero, size)


def _np_gamma(gen, k, theta, size):
    """mx.np.random.gamma: MXNet rejects a shape or scale that is not positive."""
    _check_positive_gamma(numpy, k, theta)
    return gen.gamma(k, theta, size)


def _positive(where, a):
    """MXNet's pareto/power/weibull reject ``a <= 0``."""
    if a <= 0:
        raise MXNetValueError(f"np.random.{where}: a must be positive, got {a}")
    return a


def _count(n):
    """Trial counts as integers (NumPy's binomial will not cast float arrays)."""
    return n.astype("int64") if hasattr(n, "astype") else int(n)


# name: ((attribute name, default), ...), draw(gen, *params, size)
DISTRIBUTIONS = {
    "uniform": ((("low", 0.0), ("high", 1.0)), lambda gen, lo, hi, size: gen.uniform(lo, hi, size)),
    "normal": ((("loc", 0.0), ("scale", 1.0)),
               lambda gen, mu, sigma, size: gen.normal(mu, sigma, size)),
    "gamma": ((("alpha", 1.0), ("beta", 1.0)),
              lambda gen, alpha, beta, size: gen.gamma(alpha, beta, size)),
    "exponential": ((("lam", 1.0),), lambda gen, lam, size: gen.exponential(1.0 / lam, size)),
    "poisson": ((("lam", 1.0),), lambda gen, lam, size: gen.poisson(lam, size)),
    "negative_binomial": ((("k", 1.0), ("p", 1.0)),
                          lambda gen, k, p, size: gen.negative_binomial(k, p, size)),
    "generalized_negative_binomial": ((("mu", 1.0), ("alpha", 1.0)), _gnb),
    "binomial": ((("n", 1.0), ("p", 0.5)),
                 lambda gen, n, p, size: gen.binomial(_count(n), p, size)),
}
_SAMPLE_INPUTS = {"uniform": ("low", "high"), "normal": ("mu", "sigma")}


def frontend_params(name):
    """The parameters ``mx.nd.random.<name>`` / ``mx.sym.random.<name>`` take: MXNet's
    ``exponential`` takes a ``scale`` and runs the op with ``lam = 1 / scale``."""
    return (("scale", 1.0),) if name == "exponential" else DISTRIBUTIONS[name][0]


def _scalar_kernel(params, draw_fn):
    names = [name for name, _ in params]
    return lambda xp, gen, a, shape: draw_fn(gen, *(a[n] for n in names), shape)


def _like_compute(params, draw_fn):
    kernel = _scalar_kernel(params, draw_fn)

    def compute(xp, inputs, a, ctx):
        data = inputs[0]
        out = ctx.draw(xp, lambda gen: kernel(xp, gen, a, data.shape))
        return xp.asarray(out).astype(data.dtype)
    return compute


def _register_like(name, params, draw_fn):
    register(Op(
        name=f"_random_{name}_like", aliases=(f"random_{name}_like",),
        compute=_like_compute(params, draw_fn),
        attrs=tuple(Attr(n, "float", d) for n, d in params),
        infer_shape=lambda a, s: [s[0]], infer_type=lambda a, d: [d[0]],
        gradient=lambda node, g: [None], resources=("rng",), is_random=True,
        ignore_inputs=(0,), save_inputs=False, save_outputs=False,
        doc=f"{name} samples of the shape and dtype of the input (its values are not read)."))


for _name, (_params, _draw) in DISTRIBUTIONS.items():
    _register_like(_name, _params, _draw)
    if _name in _SAMPLE_INPUTS:
        continue            # the scalar and per-element samplers live in mxlab.ops.random
    register_sampler(f"_random_{_name}", _scalar_kernel(_params, _draw),
                     tuple(Attr(n, "float", d) for n, d in _params), "shape", "float32",
                     aliases=(f"random_{_name}",), doc=f"Samples from {_name}{_params}.")
    register_param_sampler(f"_sample_{_name}", _draw, tuple(n for n, _ in _params),
                           f"{_name} samples with per-element parameters.")


# NumPy's names and parameterisations (mx.np.random): name -> ((attribute, default), ...), draw
NP_DISTRIBUTIONS = {
    "gamma": ((("shape", 1.0), ("scale", 1.0)), lambda gen, k, theta, size: _np_gamma(
        gen, k, theta, size)),
    "exponential": ((("scale", 1.0),), lambda gen, scale, size: gen.exponential(scale, size)),
    "beta": ((("a", None), ("b", None)), lambda gen, a, b, size: gen.beta(a, b, size)),
    "chisquare": ((("df", None),), lambda gen, df, size: gen.chisquare(df, size)),
    "f": ((("dfnum", None), ("dfden", None)), lambda gen, n, d, size: gen.f(n, d, size)),
    "lognormal": ((("mean", 0.0), ("sigma", 1.0)),
                  lambda gen, mu, sigma, size: gen.lognormal(mu, sigma, size)),
    "logistic": ((("loc", 0.0), ("scale", 1.0)),
                 lambda gen, loc, scale, size: gen.logistic(loc, scale, size)),
    "gumbel": ((("loc", 0.0), ("scale", 1.0)),
               lambda gen, loc, scale, size: gen.gumbel(loc, scale, size)),
    "laplace": ((("loc", 0.0), ("scale", 1.0)),
                lambda gen, loc, scale, size: gen.laplace(loc, scale, size)),
    "pareto": ((("a", None),), lambda gen, a, size: gen.pareto(_positive("pareto", a), size)),
    "power": ((("a", None),), lambda gen, a, size: gen.power(_positive("power", a), size)),
    "rayleigh": ((("scale", 1.0),), lambda gen, scale, size: gen.rayleigh(scale, size)),
    "weibull": ((("a", None),), lambda gen, a, size: gen.weibull(_positive("weibull", a), size)),
    "poisson": ((("lam", 1.0),), lambda gen, lam, size: gen.poisson(lam, size)),
}
_INTEGER_DRAWS = {"poisson": "int64"}
_OP_NAMES = {"power": "_npi_powerd"}    # MXNet's name (_npi_power is the arithmetic op)

for _name, (_params, _draw) in NP_DISTRIBUTIONS.items():
    register_sampler(
        _OP_NAMES.get(_name, f"_npi_{_name}"), _scalar_kernel(_params, _draw),
        tuple(Attr(n, "float") if d is None else Attr(n, "float", d) for n, d in _params),
        "size", _INTEGER_DRAWS.get(_name, "float32"), hidden=True,
        doc=f"NumPy {_name} samples.")


def _choice(xp, gen, a, shape):
    probs = None if a["p"] is None else xp.asarray(a["p"], dtype="float64")
    if probs is not None and probs.sum() > 0:   # NOTE: float16 weights sum to 1 only roughly;
        probs = probs / probs.sum()             # MXNet samples from their cumulative sum
    return gen.choice(a["a"], size=shape, replace=a["replace"], p=probs)


register_sampler("_npi_choice", _choice,
                 (Attr("a", "int"), Attr("replace", "bool", True),
                  Attr("p", "any", None, optional=True)),
                 "size", "int64", hidden=True,
                 doc="Indices drawn from range(a) (with ``p`` as their probabilities).")


def _multinomial_counts(xp, inputs, a, ctx):
    """MXNet 2.0's ``multinomial(n, p)``: counts of ``n[i]`` trials over ``p[i]``'s outcomes,
    ``shape`` draws each: output ``n.shape + shape + (k,)``."""
    n, p = inputs
    extra = tuple(a["shape"] or ())

    def draw(gen):
        rows = [gen.multinomial(int(count), probs / probs.sum(), size=extra or None)
                for count, probs in zip(n.reshape(-1).tolist(), p.reshape(-1, p.shape[-1]))]
        return xp.stack([xp.asarray(r) for r in rows]) if rows else \
            xp.zeros((0,) + extra + p.shape[-1:])
    counts = ctx.draw(xp, draw)
    return counts.reshape(n.shape + extra + p.shape[-1:]).astype(a["dtype"] or "float32")


register(Op(
    name="_sample_multinomial_counts", compute=_multinomial_counts, num_inputs=2,
    input_names=("n", "p"),
    attrs=(size_attr("shape", (), optional=True), Attr("dtype", "dtype", None, optional=True)),
    infer_shape=lambda a, s: [None if s[0] is None or s[1] is None
                              else tuple(s[0]) + tuple(a["shape"] or ()) + tuple(s[1][-1:])],
    infer_type=lambda a, d: [a["dtype"] or "float32"],
    gradient=lambda node, g: [None, None], resources=("rng",), is_random=True, hidden=True,
    save_inputs=False, save_outputs=False,
    doc="Counts of n trials per distribution in p (MXNet 2.0's nd.random.multinomial(n, p))."))


def _unique_zipfian(xp, inputs, a, ctx):
    """``shape[1]`` distinct log-uniform classes per row from ``[0, range_max)`` and the number of
    draws each row took (MXNet's ``_sample_unique_zipfian``, the sampled-softmax candidates)."""
    rows, count = a["shape"]
    log_range = numpy.log(a["range_max"] + 1)
    if count > a["range_max"]:
        raise MXNetValueError(f"_sample_unique_zipfian: cannot draw {count} distinct classes "
                              f"from range_max={a['range_max']}")

    def draw(gen):
        samples, tries = numpy.empty((rows, count), "int64"), numpy.empty(rows, "int64")
        for row in range(rows):
            seen, n = {}, 0
            while len(seen) < count:
                batch = (numpy.exp(gen.uniform(0, log_range, count)) - 1).astype("int64") \
                    % a["range_max"]
                for value in batch.tolist():
                    n += 1
                    seen.setdefault(value, None)
                    if len(seen) == count:
                        break
            samples[row], tries[row] = list(seen), n
        return samples, tries
    samples, tries = ctx.draw(numpy, draw)
    return xp.asarray(samples), xp.asarray(tries)


register(Op(
    name="_sample_unique_zipfian", compute=_unique_zipfian, num_inputs=0, input_names=(),
    num_outputs=2, attrs=(Attr("range_max", "int"), size_attr("shape", REQUIRED, unknown_ok=False)),
    infer_shape=lambda a, s: [tuple(a["shape"]), tuple(a["shape"][:1])],
    infer_type=lambda a, d: ["int64", "int64"],
    gradient=lambda node, g: [], resources=("rng",), is_random=True,
    save_inputs=False, save_outputs=False,
    doc="Distinct log-uniform classes per row and the draws it took (sampled softmax)."))


# -- gamma's implicit reparameterisation (MXNet's _backward_gamma_sample) ------------------------
def _check_positive_gamma(xp, k, theta):
    if bool(xp.any(xp.asarray(k) <= 0)) or bool(xp.any(xp.asarray(theta) <= 0)):
        raise MXNetValueError("np.random.gamma: shape and scale must be positive")


def _gamma_dx_dalpha(xp, alpha, x):
    """d x / d alpha of a standard gamma draw ``x`` holding its CDF fixed:
    ``-(dP(alpha, x)/d alpha) / pdf(x; alpha)`` (Figurnov et al., implicit reparameterisation)."""
    gammainc = _special(xp, "gammainc")
    if gammainc is None:
        raise MXNetNotImplementedError("the gradient of np.random.gamma w.r.t. its shape needs "
                                       "SciPy (scipy.special.gammainc) in mxlab")
    a, v = alpha.astype("float64"), xp.maximum(x.astype("float64"), 1e-300)
    eps = 1e-4 * a / (1.0 + xp.sqrt(a))
    dcdf = (gammainc(a + eps, v) - gammainc(a - eps, v)) / (2 * eps)
    log_pdf = (a - 1) * xp.log(v) - v - _special(xp, "gammaln")(a)
    return (-dcdf * xp.exp(-log_pdf)).astype(x.dtype)


def _gamma_implicit(xp, inputs, a):
    alpha, x = inputs
    _check_positive_gamma(xp, alpha, 1.0)
    return x.copy()


register(Op(
    name="_npi_gamma_implicit", compute=_gamma_implicit, num_inputs=2, input_names=("alpha", "x"),
    infer_shape=lambda a, s: [s[1]], infer_type=lambda a, d: [d[1]], hidden=True,
    gradient=lambda node, g: [F._backward_npi_gamma_implicit(g[0], *node.inputs), None],
    save_outputs=False,
    doc="Passes standard gamma draws ``x`` (of shape ``alpha``) through; the gradient w.r.t. "
        "``alpha`` is the implicit reparameterisation one, as MXNet's np.random.gamma."))
register(Op(
    name="_backward_npi_gamma_implicit", num_inputs=3, input_names=("grad", "alpha", "x"),
    compute=lambda xp, inputs, a: inputs[0] * _gamma_dx_dalpha(xp, inputs[1], inputs[2]),
    infer_shape=lambda a, s: [s[1]], infer_type=lambda a, d: [d[1]], hidden=True,
    save_inputs=False, save_outputs=False, doc="Gradient of ``_npi_gamma_implicit``."))


# -- multivariate normal (MXNet 1.9.1's np.random.multivariate_normal, ``_npi_mvn_fallback``) -----
def _mvn_shape(a, s):
    mean, cov = s
    if mean is None or cov is None:
        return [None]
    if len(cov) < 2 or cov[-1] != cov[-2] or mean[-1:] != cov[-1:]:
        raise MXNetValueError(f"multivariate_normal: mean {tuple(mean)} and cov {tuple(cov)} "
                              f"do not match (cov must be (..., k, k), mean (..., k))")
    batch = numpy.broadcast_shapes(tuple(mean), tuple(cov[:-1]))
    return [tuple(a["size"] or ()) + tuple(batch)]


def _mvn(xp, inputs, a, ctx):
    """``mean + z @ sqrt(s) vh`` for ``cov = u s vh`` (NumPy's SVD recipe), per batch entry."""
    mean, cov = inputs
    (shape,) = _mvn_shape(a, [mean.shape, cov.shape])
    k = mean.shape[-1]
    z = ctx.draw(xp, lambda gen: gen.standard_normal(shape))
    _, s, vh = xp.linalg.svd(cov.astype("float64"))
    root = xp.sqrt(s)[..., :, None] * vh            # (..., k, k): z @ root has covariance cov
    out = (z[..., None, :] @ root)[..., 0, :] + mean.astype("float64")
    return out.reshape(shape[:-1] + (k,)).astype(mean.dtype)


register(Op(
    name="_npi_mvn_fallback", compute=_mvn, num_inputs=2, input_names=("mean", "cov"),
    attrs=(size_attr("size", None, optional=True),),
    infer_shape=_mvn_shape, infer_type=lambda a, d: [d[0]],
    gradient=lambda node, g: [None, None], resources=("rng",), is_random=True, hidden=True,
    save_inputs=False, save_outputs=False,
    doc="Multivariate normal samples: ``size + broadcast(mean, cov[:-1])`` (mx.np.random)."))
