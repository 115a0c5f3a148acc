"""Densities of samples (MXNet's ``_random_pdf_<distribution>``) and their gradients.

``sample`` has the parameters' shape followed by any number of extra axes (one density per
sample, each under the parameters at its leading index); ``is_log`` gives the log-density.
Gradients follow MXNet's kernels: with respect to every parameter (summed over the extra axes)
and to the sample for the continuous distributions (zero for the discrete ones and uniform).
Dirichlet's sample and ``alpha`` end in the category axis, which its density sums over.

Example
-------
>>> import mxlab as mx
>>> p = mx.nd.random_pdf_gamma(mx.nd.array([[1, 2, 3, 4, 5]]), mx.nd.array([5]), mx.nd.array([1]))
>>> [round(float(v), 5) for v in p.asnumpy()[0]]
[0.01533, 0.09022, 0.16803, 0.19537, 0.17547]
"""
import math

from ..base import MXNetValueError
from .attrs import Attr
from .registry import F, Op, register
from .special import digamma, gammaln

__all__ = ["PDFS"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _uniform(xp, x, lo, hi):
    logp = -xp.log(hi - lo) + 0 * x
    width = hi - lo
    return logp, (0 * x, 1 / width + 0 * x, -1 / width + 0 * x)


def _normal(xp, x, mu, sigma):
    z = (x - mu) / sigma
    logp = -0.5 * z * z - xp.log(sigma) - _LOG_SQRT_2PI
    return logp, (-z / sigma, z / sigma, (z * z - 1) / sigma)


def _gamma(xp, x, alpha, beta):
    logp = alpha * xp.log(beta) + (alpha - 1) * xp.log(x) - beta * x - gammaln(xp, alpha)
    return logp, ((alpha - 1) / x - beta, xp.log(beta) + xp.log(x) - digamma(xp, alpha),
                  alpha / beta - x)


def _exponential(xp, x, lam):
    return xp.log(lam) - lam * x, (-lam + 0 * x, 1 / lam - x)


def _poisson(xp, x, lam):
    logp = x * xp.log(lam) - gammaln(xp, x + 1) - lam
    return logp, (0 * x, x / lam - 1)


def _nbinom_logp(xp, x, k, p):
    return (gammaln(xp, x + k) - gammaln(xp, x + 1) - gammaln(xp, k)
            + k * xp.log(p) + x * xp.log(1 - p))


def _negative_binomial(xp, x, k, p):
    grad_k = digamma(xp, x + k) - digamma(xp, k) + xp.log(p)
    return _nbinom_logp(xp, x, k, p), (0 * x, grad_k, k / p - x / (1 - p))


def _generalized_negative_binomial(xp, x, mu, alpha):
    k, p = 1 / alpha, 1 / (mu * alpha + 1)
    _, (_, grad_k, grad_p) = _negative_binomial(xp, x, k, p)
    den2 = (mu * alpha + 1) ** 2
    return _nbinom_logp(xp, x, k, p), (0 * x, -grad_p * alpha / den2,
                                       -grad_k / (alpha * alpha) - grad_p * mu / den2)


def _dirichlet(xp, x, alpha):
    total = alpha.sum(axis=-1)
    logp = (((alpha - 1) * xp.log(x)).sum(axis=-1) + gammaln(xp, total)
            - gammaln(xp, alpha).sum(axis=-1))
    return logp, ((alpha - 1) / x, xp.log(x) + digamma(xp, total)[..., None] - digamma(xp, alpha))


# name: (parameter names, log-density and its partials (sample, params...), vector parameters)
PDFS = {
    "uniform": (("low", "high"), _uniform, False),
    "normal": (("mu", "sigma"), _normal, False),
    "gamma": (("alpha", "beta"), _gamma, False),
    "exponential": (("lam",), _exponential, False),
    "poisson": (("lam",), _poisson, False),
    "negative_binomial": (("k", "p"), _negative_binomial, False),
    "generalized_negative_binomial": (("mu", "alpha"), _generalized_negative_binomial, False),
    "dirichlet": (("alpha",), _dirichlet, True),
}


def _check_shapes(name, sample, params, vector):
    lead = params[0][:-1] if vector else params[0]
    if any(tuple(p) != tuple(params[0]) for p in params):
        raise MXNetValueError(f"random_pdf_{name}: parameters must share one shape, got {params}")
    ok = len(sample) >= len(params[0]) and tuple(sample[:len(lead)]) == tuple(lead)
    if vector:
        ok = ok and len(params[0]) >= 1 and sample[-1:] == params[0][-1:]
    if not ok:
        raise MXNetValueError(f"random_pdf_{name}: sample shape {tuple(sample)} must start with "
                              f"the parameters' shape {tuple(lead)}"
                              + (f" and end with their last axis {params[0][-1:]}" if vector
                                 else ""))
    return sample[:-1] if vector else sample


def _expanded(params, sample_ndim, vector):
    """Parameters reshaped to broadcast against the sample (extra axes as size 1)."""
    lead_ndim = params[0].ndim - (1 if vector else 0)
    extra = sample_ndim - params[0].ndim
    out = []
    for p in params:
        shape = p.shape[:lead_ndim] + (1,) * extra + p.shape[lead_ndim:]
        out.append(p.reshape(shape))
    return out


def _pdf_compute(name):
    names, fn, vector = PDFS[name]

    def compute(xp, inputs, a):
        sample, params = inputs[0], inputs[1:]
        _check_shapes(name, sample.shape, [p.shape for p in params], vector)
        logp, _ = fn(xp, sample, *_expanded(params, sample.ndim, vector))
        out = logp if a["is_log"] else xp.exp(logp)
        return xp.asarray(out).astype(sample.dtype, copy=False)
    return compute


def _pdf_backward(name):
    names, fn, vector = PDFS[name]

    def compute(xp, inputs, a):
        g, sample, params = inputs[0], inputs[1], inputs[2:]
        logp, partials = fn(xp, sample, *_expanded(params, sample.ndim, vector))
        scale = g if a["is_log"] else g * xp.exp(logp)
        if vector:
            scale = scale[..., None]
        grads = [xp.asarray(scale * partials[0]).astype(sample.dtype, copy=False)]
        for p, d in zip(params, partials[1:]):
            full = xp.broadcast_to(scale * d, sample.shape)
            axes = tuple(range(p.ndim - (1 if vector else 0),
                               sample.ndim - (1 if vector else 0)))
            grads.append(full.sum(axis=axes).reshape(p.shape).astype(p.dtype, copy=False))
        return tuple(grads)
    return compute


def _infer(name, vector):
    def infer(a, in_shapes):
        if any(s is None for s in in_shapes):
            return [None]
        return [tuple(_check_shapes(name, in_shapes[0], in_shapes[1:], vector))]
    return infer


def _register(name):
    names, _, vector = PDFS[name]
    inputs = ("sample",) + names
    attrs = (Attr("is_log", "bool", False),)
    register(Op(
        name=f"_random_pdf_{name}", aliases=(f"random_pdf_{name}",), compute=_pdf_compute(name),
        num_inputs=len(inputs), input_names=inputs, attrs=attrs, infer_shape=_infer(name, vector),
        infer_type=lambda a, d: [d[0]],
        gradient=lambda node, g: list(getattr(F, f"_backward_pdf_{name}")(
            g[0], *node.inputs, is_log=node.attrs["is_log"])),
        save_outputs=False,
        doc=f"Density of samples of the {name} distribution ({', '.join(names)})."))
    register(Op(
        name=f"_backward_pdf_{name}", compute=_pdf_backward(name), num_inputs=len(inputs) + 1,
        num_outputs=len(inputs), input_names=("ograd",) + inputs, attrs=attrs,
        infer_shape=lambda a, s: [None if x is None else tuple(x) for x in s[1:]],
        infer_type=lambda a, d: [d[1]] + list(d[2:]),
        hidden=True, doc=f"Gradients of random_pdf_{name} (sample, {', '.join(names)})."))


for _name in PDFS:
    _register(_name)
