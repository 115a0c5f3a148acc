"""Random sampling ops and the per-device generators behind them.

Each device kind has one generator (NumPy ``Generator`` on CPU, a CuPy ``RandomState`` per GPU),
created from the seed given to :func:`seed` (``mx.random.seed``), so the same seed gives the same
numbers. The ops declare ``resources=("rng",)`` and ``is_random=True``; the kernel asks
:func:`generator` for the generator of the array module it runs on.

Example
-------
>>> import mxlab as mx
>>> mx.random.seed(7); a = mx.nd.random.uniform(shape=(3,)).asnumpy()
>>> mx.random.seed(7); b = mx.nd.random.uniform(shape=(3,)).asnumpy()
>>> bool((a == b).all())
True
"""

import threading

import numpy

from ..base import MXNetValueError
from ..device import Device
from .attrs import Attr
from .registry import Op, register

__all__ = ["seed", "generator", "draw", "sample"]

_DEFAULT_SEED = 0
_generators = {}  # (array module name, gpu id) -> generator
_seeds = {}  # same key -> seed used for it (absent: the global seed)
_global_seed = [_DEFAULT_SEED]
# NOTE: CPU devices share one generator while the engine orders random ops per device, so draws
# take this lock (threaded engine workers may run ops of cpu(0) and cpu(1) at once).
_lock = threading.Lock()


def _key(xp):
    if xp is numpy:
        return ("numpy", 0)
    return ("cupy", int(xp.cuda.Device().id))


def _device_key(device):
    return ("numpy", 0) if device.device_type != "gpu" else ("cupy", device.device_id)


def draw(xp, fn):
    """``fn(generator)`` for the device ``xp`` computes on, with the generator held exclusively."""
    with _lock:
        return fn(generator(xp))


def generator(xp):
    """The generator for the device ``xp`` currently computes on (created from its seed when first
    used)."""
    key = _key(xp)
    gen = _generators.get(key)
    if gen is None:
        seed_value = _seeds.get(key, _global_seed[0])
        gen = (
            numpy.random.Generator(numpy.random.PCG64(seed_value))
            if xp is numpy
            else xp.random.RandomState(seed_value)
        )
        _generators[key] = gen
    return gen


def seed(seed_state, ctx="all"):
    """Seed the generators of every device (``ctx='all'``) or of one device (``ctx=mx.gpu(1)``)."""
    if not isinstance(seed_state, (int, numpy.integer)) or isinstance(seed_state, bool):
        raise MXNetValueError(f"random.seed: seed_state must be an integer, got {seed_state!r}")
    seed_state = int(seed_state)
    from .. import engine

    engine.wait_all()  # NOTE: random ops already pushed draw from the old state first.
    if isinstance(ctx, str) and ctx == "all":
        _global_seed[0] = seed_state
        _seeds.clear()
        _generators.clear()
        return
    if not isinstance(ctx, Device):
        raise MXNetValueError(f"random.seed: ctx must be 'all' or a Device, got {ctx!r}")
    key = _device_key(ctx)
    _seeds[key] = seed_state
    _generators.pop(key, None)


# -- sampling kernels ------------------------------------------------------------------------------
def _uniform(xp, gen, a, shape):
    return gen.uniform(a["low"], a["high"], size=shape)


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
    def compute(xp, inputs, a):
        shape = a[size_key]
        shape = () if shape is None else tuple(shape)
        values = draw(xp, lambda gen: kernel(xp, gen, a, shape))
        return xp.asarray(values).astype(a["dtype"] or "float32")

    return compute


def _size_infer(size_key):
    return lambda a, s: [() if a[size_key] is None else tuple(a[size_key])]


def _random_op(name, kernel, params, size_key, dtype, **kwargs):
    """Register a sampling op with no inputs; ``params`` are its distribution attributes."""
    return register(
        Op(
            name=name,
            compute=_sampler(kernel, size_key),
            num_inputs=0,
            input_names=(),
            attrs=tuple(params)
            + (
                Attr(size_key, "shape", () if size_key == "shape" else None, optional=True),
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
_random_op(
    "_random_uniform",
    _uniform,
    _UNIFORM,
    "shape",
    "float32",
    aliases=("random_uniform", "uniform"),
    doc="Samples from U[low, high).",
)
_random_op(
    "_random_normal",
    _normal,
    _NORMAL,
    "shape",
    "float32",
    aliases=("random_normal", "normal"),
    doc="Samples from N(loc, scale^2).",
)
_random_op(
    "_random_randint",
    _randint,
    (Attr("low", "int"), Attr("high", "int")),
    "shape",
    "int32",
    aliases=("random_randint", "randint"),
    doc="Integers from [low, high).",
)
_random_op(
    "_npi_uniform", _uniform, _UNIFORM, "size", "float32", hidden=True, doc="NumPy uniform samples."
)
_random_op(
    "_npi_normal", _normal, _NORMAL, "size", "float32", hidden=True, doc="NumPy normal samples."
)
_random_op(
    "_npi_random_randint",
    _randint,
    (Attr("low", "int"), Attr("high", "int")),
    "size",
    "int64",
    hidden=True,
    doc="NumPy integer samples.",
)
_random_op(
    "_npi_bernoulli",
    _bernoulli,
    (
        Attr("prob", "float", None, optional=True),
        Attr("logit", "float", None, optional=True),
        Attr("is_logit", "bool", False),
    ),
    "size",
    "float32",
    hidden=True,
    doc="Bernoulli samples (1 with probability ``prob``).",
)


def _sample_compute(sampler):
    """Per-element parameters (MXNet's ``_sample_*``): output shape ``params.shape + shape``."""

    def compute(xp, inputs, a):
        first, second = inputs
        extra = tuple(a["shape"] or ())
        full = first.shape + extra
        expand = (Ellipsis,) + (None,) * len(extra)
        out = draw(xp, lambda gen: sampler(gen, first[expand], second[expand], full))
        return xp.asarray(out).astype(a["dtype"] or first.dtype)

    return compute


def _sample_infer(a, in_shapes):
    first = in_shapes[0]
    return [None if first is None else tuple(first) + tuple(a["shape"] or ())]


for _name, _draw, _inputs in (
    (
        "_sample_uniform",
        lambda gen, lo, hi, shape: gen.uniform(lo, hi, size=shape),
        ("low", "high"),
    ),
    (
        "_sample_normal",
        lambda gen, mu, sigma, shape: gen.normal(mu, sigma, size=shape),
        ("mu", "sigma"),
    ),
):
    register(
        Op(
            name=_name,
            compute=_sample_compute(_draw),
            num_inputs=2,
            input_names=_inputs,
            attrs=(
                Attr("shape", "shape", (), optional=True),
                Attr("dtype", "dtype", None, optional=True),
            ),
            infer_shape=_sample_infer,
            gradient=lambda node, g: [None, None],
            resources=("rng",),
            is_random=True,
            save_inputs=False,
            save_outputs=False,
            doc=f"Samples with per-element {_inputs}: output shape params.shape + shape.",
        )
    )


def _shuffle(xp, inputs, a):
    x = inputs[0]
    perm = draw(xp, lambda gen: gen.permutation(x.shape[0])) if x.ndim else None
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


def sample(op_name, cls, device=None, out=None, **attrs):
    """Run the sampling op ``op_name``; the result is a ``cls`` on ``device`` (or written into
    ``out``)."""
    from ..imperative import invoke
    from .registry import get_op

    op = get_op(op_name)
    return invoke(
        op, [], op.parse_attrs(attrs), out=None if out is None else [out], cls=cls, device=device
    )[0]


def array_params(*params):
    """True when the distribution parameters are arrays (MXNet then runs its ``_sample_*`` ops)."""
    from ..ndarray.ndarray import NDArray

    return any(isinstance(p, NDArray) for p in params)


def reject_array_params(op_name, *params):
    """Array-valued parameters for the NumPy-style samplers are not built yet: say so clearly."""
    if array_params(*params):
        from ..base import MXNetNotImplementedError

        raise MXNetNotImplementedError(
            f"{op_name}: array-valued distribution parameters are not implemented in mxlab's "
            "mx.np.random; pass Python scalars (mx.nd.random supports arrays)"
        )
