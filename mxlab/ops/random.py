"""Random sampling ops.

The ops declare ``resources=("rng",)`` and ``is_random=True``; their kernels draw from the
device's generator (:mod:`mxlab.ops.rng`) through the op context they are given.

Example
-------
>>> import mxlab as mx
>>> mx.random.seed(7); a = mx.nd.random.uniform(shape=(3,)).asnumpy()
>>> mx.random.seed(7); b = mx.nd.random.uniform(shape=(3,)).asnumpy()
>>> bool((a == b).all())
True
"""

import numpy

from ..base import MXNetTypeError, MXNetValueError
from .attrs import Attr
from .registry import Op, register
from .rng import draw, generator, seed  # noqa: F401  (mx.random.seed and older imports)

__all__ = ["seed", "generator", "draw", "check_randint", "check_pvals", "register_sampler",
           "register_param_sampler", "SampleN", "check_size", "size_attr"]


# -- sizes -----------------------------------------------------------------------------------------
class SampleN(tuple):
    """A ``size`` in MXNet 2.0's sample_n form: these dims *prepended* to the parameters'
    broadcast shape (``gluon.probability``'s ``sample_n``, ``npx.random.uniform_n``). Only this
    type says so: in a plain ``size``, as in NumPy and MXNet 1.9.1, a negative dim is an error
    (``size=(-2,)`` is not a 0-d draw)."""


def check_size(where, size, unknown_ok=False):
    """``size`` (None, an int or a sequence of ints) as a tuple, None kept; a negative dim (below
    -1, MXNet's unknown dim, when ``unknown_ok``) or a non-integer one is an error naming
    ``where``."""
    if size is None or isinstance(size, SampleN):
        return size
    if isinstance(size, (int, numpy.integer)) and not isinstance(size, bool):
        size = (int(size),)
    if not isinstance(size, (tuple, list)) or not all(
            isinstance(d, (int, numpy.integer)) and not isinstance(d, bool) for d in size):
        raise MXNetTypeError(f"{where}: size must be None, an int or a tuple of ints, got "
                             f"{size!r}")
    lowest = -1 if unknown_ok else 0
    if any(d < lowest for d in size):
        raise MXNetValueError(f"{where}: size {tuple(size)} has a negative dimension")
    return tuple(int(d) for d in size)


def _dims_allowed(unknown_ok):
    lowest = -1 if unknown_ok else 0
    return lambda shape: shape is None or all(d is None or d >= lowest for d in shape)


def size_attr(key, default, unknown_ok=None, **kwargs):
    """The ``size``/``shape`` attribute of a sampling op: no negative dims (``shape``, MXNet
    1.x's, may hold -1, an unknown dim the graph infers), checked wherever attributes are parsed
    (the frontends, symbols, graph files)."""
    unknown_ok = key == "shape" if unknown_ok is None else unknown_ok
    message = "must not have negative dims" + (" other than -1 (unknown)" if unknown_ok else "")
    return Attr(key, "shape", default, check=(_dims_allowed(unknown_ok), message), **kwargs)


# -- sampling kernels ------------------------------------------------------------------------------
def _uniform(xp, gen, a, shape):
    return gen.uniform(a["low"], a["high"], size=shape)


def _np_uniform(xp, gen, a, shape):
    """mx.np's uniform: ``low > high`` draws from (high, low], ``low + (high - low) * u`` (MXNet
    samples; NumPy's Generator would refuse). mx.nd's ``_random_uniform`` refuses, as MXNet."""
    low, high = a["low"], a["high"]
    if high >= low:
        return gen.uniform(low, high, size=shape)
    return low + high - gen.uniform(high, low, size=shape)


def _normal(xp, gen, a, shape):
    return gen.normal(a["loc"], a["scale"], size=shape)


def check_randint(low, high):
    """``low < high``, checked by the frontends before pushing so the error comes at the call."""
    if high <= low:
        raise MXNetValueError(f"randint: low ({low}) must be less than high ({high})")


def _randint(xp, gen, a, shape):
    check_randint(a["low"], a["high"])
    if xp is numpy:
        return gen.integers(a["low"], a["high"], size=shape)
    return gen.randint(a["low"], a["high"], size=shape)


def _bernoulli(xp, gen, a, shape):
    prob = a["prob"]
    if prob is None and a["logit"] is None:
        raise MXNetValueError("bernoulli: one of 'prob' and 'logit' is required")
    if prob is None:
        prob = 1.0 / (1.0 + numpy.exp(-a["logit"]))
    return gen.random(size=shape) < prob if xp is numpy else gen.random_sample(size=shape) < prob


def _sampler(kernel, size_key):
    def compute(xp, inputs, a, ctx):
        shape = a[size_key]
        shape = () if shape is None else tuple(shape)
        values = ctx.draw(xp, lambda gen: kernel(xp, gen, a, shape))
        return xp.asarray(values).astype(a["dtype"] or "float32")

    return compute


def _sampler_into(kernel):
    """Draws of the planned output's shape: a graph may know it when the ``shape`` attribute is
    empty (MXNet 1.x's "unknown", inferred from the consumers), as MXNet's kernels read it."""
    def compute_into(xp, inputs, a, outs, ctx):
        out = outs[0]
        out[...] = ctx.draw(xp, lambda gen: kernel(xp, gen, a, out.shape))

    return compute_into


def _size_infer(size_key):
    """``size`` (NumPy style): None is a 0-d draw. ``shape`` (MXNet 1.x): empty is unknown, left
    for the graph to infer from the consumers (the frontends pass (1,) for one draw, as MXNet)."""
    if size_key == "size":
        return lambda a, s: [() if a[size_key] is None else tuple(a[size_key])]

    def infer(a, s, out_shapes=None):
        """A -1 dim (MXNet's unknown) is taken from the output shape the graph knows."""
        if not a[size_key]:
            return [None]
        shape = tuple(None if d is not None and d < 0 else d for d in a[size_key])
        known = out_shapes[0] if out_shapes else None
        if None in shape and known is not None and len(known) == len(shape):
            shape = tuple(k if d is None else d for d, k in zip(shape, known))
        return [shape]

    return infer


def register_sampler(name, kernel, params, size_key, dtype, **kwargs):
    """Register a sampling op with no inputs; ``params`` are its distribution attributes."""
    return register(
        Op(
            name=name,
            compute=_sampler(kernel, size_key),
            compute_into=_sampler_into(kernel),
            num_inputs=0,
            input_names=(),
            attrs=tuple(params)
            + (
                size_attr(size_key, () if size_key == "shape" else None, optional=True),
                Attr("dtype", "dtype", dtype, optional=True),
            ),
            infer_shape=_size_infer(size_key),
            infer_type=lambda a, d: [a["dtype"] or "float32"],
            gradient=lambda node, g: [],
            resources=("rng",),
            is_random=True,
            ignored_attrs=("ctx", "device"),
            save_inputs=False,
            save_outputs=False,
            **kwargs,
        )
    )


_UNIFORM = (Attr("low", "float", 0.0), Attr("high", "float", 1.0))
_NORMAL = (
    Attr("loc", "float", 0.0),
    Attr("scale", "float", 1.0, check=(lambda v: v >= 0, "must be non-negative")),
)
register_sampler(
    "_random_uniform",
    _uniform,
    _UNIFORM,
    "shape",
    "float32",
    aliases=("random_uniform", "uniform"),
    doc="Samples from U[low, high).",
)
register_sampler(
    "_random_normal",
    _normal,
    _NORMAL,
    "shape",
    "float32",
    aliases=("random_normal", "normal"),
    doc="Samples from N(loc, scale^2).",
)
register_sampler(
    "_random_randint",
    _randint,
    (Attr("low", "int"), Attr("high", "int")),
    "shape",
    "int32",
    aliases=("random_randint", "randint"),
    doc="Integers from [low, high).",
)
register_sampler(
    "_npi_uniform", _np_uniform, _UNIFORM, "size", "float32", hidden=True,
    doc="NumPy uniform samples (``low > high`` samples (high, low], as MXNet).",
)
register_sampler(
    "_npi_normal", _normal, _NORMAL, "size", "float32", hidden=True, doc="NumPy normal samples."
)
register_sampler(
    "_npi_random_randint",
    _randint,
    (Attr("low", "int"), Attr("high", "int")),
    "size",
    "int64",
    hidden=True,
    doc="NumPy integer samples.",
)
register_sampler(
    "_npi_bernoulli",
    _bernoulli,
    (
        Attr("prob", "float", None, optional=True,
             check=(lambda p: p is None or 0.0 <= p <= 1.0, "must be in [0, 1]")),
        Attr("logit", "float", None, optional=True),
        Attr("is_logit", "bool", False),
    ),
    "size",
    "float32",
    hidden=True,
    doc="Bernoulli samples (1 with probability ``prob``).",
)


def check_pvals(pvals):
    """Multinomial probabilities as float64, the last one what the others leave (as NumPy);
    MXNet rejects a total above 1 and takes no outcomes at all (empty counts)."""
    probs = numpy.asarray(pvals, dtype="float64")
    if probs.ndim != 1 or (probs < 0).any() or probs.sum() > 1 + 1e-6:
        raise MXNetValueError("multinomial: pvals must be a 1-d list of probabilities summing "
                              f"to at most 1, got {pvals}")
    if not len(probs):
        return probs
    probs /= max(1.0, probs.sum())   # NOTE: float32 rounding may exceed 1 by an ulp
    probs[-1] = max(0.0, 1.0 - probs[:-1].sum())
    return probs


def _multinomial(xp, gen, a, shape):
    """Counts of ``n`` draws over ``len(pvals)`` outcomes."""
    pvals = check_pvals(a["pvals"])
    if not len(pvals):
        return xp.zeros(tuple(shape) + (0,), dtype="int64")
    if xp is numpy:
        return gen.multinomial(a["n"], pvals, size=shape or None)
    picks = gen.choice(len(pvals), size=shape + (a["n"],), p=xp.asarray(pvals))
    return xp.stack([(picks == k).sum(axis=-1) for k in range(len(pvals))], axis=-1)


register(
    Op(
        name="_npi_multinomial",
        compute=_sampler(_multinomial, "size"),
        num_inputs=0,
        input_names=(),
        attrs=(Attr("n", "int"), Attr("pvals", "any"), size_attr("size", None, optional=True),
               Attr("dtype", "dtype", "int64", optional=True)),
        infer_shape=lambda a, s: [tuple(a["size"] or ()) + (len(a["pvals"]),)],
        infer_type=lambda a, d: [a["dtype"] or "int64"],
        gradient=lambda node, g: [],
        resources=("rng",),
        is_random=True,
        hidden=True,
        save_inputs=False,
        save_outputs=False,
        doc="NumPy multinomial counts: shape size + (len(pvals),).",
    )
)


def _sample_compute(sampler):
    """Per-element parameters (MXNet's ``_sample_*``): output shape ``params.shape + shape``."""

    def compute(xp, inputs, a, ctx):
        extra = tuple(a["shape"] or ())
        full = inputs[0].shape + extra
        expand = (Ellipsis,) + (None,) * len(extra)
        params = [p[expand] for p in inputs]
        out = ctx.draw(xp, lambda gen: sampler(gen, *params, full))
        return xp.asarray(out).astype(a["dtype"] or inputs[0].dtype)

    return compute


def _sample_infer(a, in_shapes):
    first = in_shapes[0]
    return [None if first is None else tuple(first) + tuple(a["shape"] or ())]


def register_param_sampler(name, draw_fn, input_names, doc):
    """Register MXNet's ``_sample_<dist>``: ``draw_fn(gen, *params, size)`` with one array per
    distribution parameter (all of one shape), ``shape`` draws per parameter element."""
    return register(
        Op(
            name=name,
            aliases=(name[1:],),   # NOTE: MXNet's public spelling (mx.nd.sample_normal)
            compute=_sample_compute(draw_fn),
            num_inputs=len(input_names),
            input_names=tuple(input_names),
            attrs=(
                size_attr("shape", (), optional=True),
                Attr("dtype", "dtype", None, optional=True),
            ),
            infer_shape=_sample_infer,
            # NOTE: a rule, so inference never runs the kernel (it would draw from the generator)
            infer_type=lambda a, d: [a["dtype"] or d[0] or "float32"],
            gradient=lambda node, g: [None] * len(input_names),
            resources=("rng",),
            is_random=True,
            save_inputs=False,
            save_outputs=False,
            doc=doc,
        )
    )


register_param_sampler("_sample_uniform",
                       lambda gen, lo, hi, shape: gen.uniform(lo, hi, size=shape),
                       ("low", "high"), "Uniform samples with per-element low/high.")
register_param_sampler("_sample_normal",
                       lambda gen, mu, sigma, shape: gen.normal(mu, sigma, size=shape),
                       ("mu", "sigma"), "Normal samples with per-element mu/sigma.")


def _shuffle(xp, inputs, a, ctx):
    x = inputs[0]
    perm = ctx.draw(xp, lambda gen: gen.permutation(x.shape[0])) if x.ndim else None
    return x.copy() if perm is None else x[xp.asarray(perm)]


register(
    Op(
        name="_shuffle",
        aliases=("shuffle", "_npi_shuffle"),
        compute=_shuffle,
        infer_shape=lambda a, s: [s[0]],
        gradient=lambda node, g: [None],
        resources=("rng",),
        is_random=True,
        save_inputs=False,
        save_outputs=False,
        doc="A copy with the first axis shuffled.",
    )
)
