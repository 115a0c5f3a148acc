"""MXNet 1.x statistics ops: ``moments`` (mean and variance over axes) and ``_histogram`` (the op
behind ``mx.nd.histogram`` / ``mx.sym.histogram``).

``moments`` needs explicit ``axes`` (MXNet refuses none); a full reduction without ``keepdims``
gives shape ``(1,)`` as MXNet 1.x's reductions do. Its gradient, ``g_mean / n + 2 g_var (x -
mean) / n``, is written with the reduction helpers, so it runs on every path.

``_histogram`` counts (int64) the values in ``bin_cnt`` equal bins over ``range``, or in the
bins whose edges a second input holds; values outside the edges are ignored and the last bin
includes its right edge (NumPy's rule). The second output is the edges. No gradient.

Example
-------
>>> import mxlab as mx
>>> mean, var = mx.nd.moments(mx.nd.array([[1., 2.], [3., 6.]]), axes=(1,))
>>> mean.asnumpy().tolist(), var.asnumpy().tolist()
([1.5, 4.5], [0.25, 2.25])
>>> counts, edges = mx.nd.histogram(mx.nd.array([0., 1., 2., 2., 4.]), bins=2, range=(0, 4))
>>> counts.asnumpy().tolist(), edges.asnumpy().tolist()
([2, 3], [0.0, 2.0, 4.0])
"""
import numpy

from ..base import MXNetValueError
from .attrs import Attr
from .infer import known
from .reduce import reduced_axes, reduced_shape
from .registry import F, Op, register

__all__ = []


# -- moments --------------------------------------------------------------------------------------
def _moment_axes(attrs, ndim):
    if not attrs["axes"]:
        raise MXNetValueError("moments: empty axes is not supported; to compute global moments "
                              "pass every axis in 'axes'")
    return reduced_axes("moments", attrs["axes"], ndim)


def _moments(xp, inputs, attrs):
    x = inputs[0]
    axes = _moment_axes(attrs, x.ndim)
    mean = x.mean(axis=axes, keepdims=True, dtype=x.dtype)
    centered = x - mean
    var = (centered * centered).mean(axis=axes, keepdims=True, dtype=x.dtype)
    shape = reduced_shape(x.shape, axes, attrs["keepdims"], True)
    return mean.reshape(shape), var.reshape(shape)


def _moments_infer(attrs, in_shapes):
    shape = in_shapes[0]
    if not attrs["axes"]:
        _moment_axes(attrs, 0)      # NOTE: raises, naming the missing axes
    if not known(shape):
        return [None, None]
    out = reduced_shape(shape, _moment_axes(attrs, len(shape)), attrs["keepdims"], True)
    return [out, out]


def _moments_gradient(node, g):
    """``spread(g_mean) / n + 2 (x - mean) spread(g_var) / n``."""
    x, mean = node.inputs[0], node.outputs[0]
    axes = node.attrs["axes"]

    def spread(value):
        return F._broadcast_reduced(value, x, axis=axes, empty_all=True, mean=True)

    centered = F.broadcast_sub(x, F._broadcast_reduced(mean, x, axis=axes, empty_all=True))
    grad_var = F._mul_scalar(F.broadcast_mul(centered, spread(g[1])), scalar=2.0)
    return [F.broadcast_add(spread(g[0]), grad_var)]


register(Op(
    name="moments",
    compute=_moments,
    attrs=(Attr("axes", "shape", None, optional=True), Attr("keepdims", "bool", False)),
    num_outputs=2,
    output_names=("mean", "var"),
    infer_shape=_moments_infer,
    infer_type=lambda a, d: [d[0], d[0]],
    gradient=_moments_gradient,
    save_outputs=(0,),
    doc="Mean and (biased) variance of data over axes.",
))


# -- histogram ------------------------------------------------------------------------------------
def _range(attrs):
    value = attrs["range"]
    if value is None:
        raise MXNetValueError("_histogram: bin_cnt needs range=(low, high)")
    try:
        low, high = (float(v) for v in value)
    except (TypeError, ValueError):
        raise MXNetValueError(f"_histogram: range must be (low, high), got {value!r}") from None
    if low > high:
        raise MXNetValueError(f"_histogram: range {value!r} must have low <= high")
    return low, high


def _histogram(xp, inputs, attrs):
    x = inputs[0].ravel()
    if attrs["bin_cnt"] is not None:
        count = attrs["bin_cnt"]
        low, high = _range(attrs)
        steps = xp.arange(count + 1, dtype=numpy.float64)
        edges = (low + steps * (high - low) / count).astype(inputs[0].dtype)
        valid = (x >= low) & (x <= high)
    else:
        edges = inputs[1].ravel()
        count = edges.size - 1
        if count < 1:
            raise MXNetValueError("_histogram: bins needs at least two edges")
        valid = (x >= edges[0]) & (x <= edges[-1])
    index = xp.minimum(xp.searchsorted(edges, x, side="right") - 1, count - 1)
    index = xp.where(valid, index, count)
    counts = xp.bincount(index.astype(numpy.int64), minlength=count + 1)[:count]
    return counts.astype(numpy.int64), edges.copy()


def _histogram_infer(attrs, in_shapes):
    if attrs["bin_cnt"] is not None:
        count = attrs["bin_cnt"]
        if count <= 0:
            raise MXNetValueError(f"_histogram: bin_cnt must be positive, got {count}")
        return [(count,), (count + 1,)]
    bins = in_shapes[1] if len(in_shapes) > 1 else None
    if not known(bins):
        return [None, None]
    size = int(numpy.prod(bins))
    return [(size - 1,), (size,)]


def _has_count(attrs):
    return attrs["bin_cnt"] is not None


register(Op(
    name="_histogram",
    compute=_histogram,
    attrs=(Attr("bin_cnt", "int", None, optional=True), Attr("range", "any", None,
                                                              optional=True)),
    num_inputs=lambda a: 1 if _has_count(a) else 2,
    input_names=lambda a: ("data",) if _has_count(a) else ("data", "bins"),
    num_outputs=2,
    infer_shape=_histogram_infer,
    infer_type=lambda a, d: ["int64", d[0] if _has_count(a) else d[1]],
    doc="Histogram of the flattened data: int64 counts and the bin edges (bin_cnt equal bins "
        "over range, or the edges in bins).",
))
