"""Sampling from categorical distributions (MXNet's ``_sample_categorical``, once
``_sample_multinomial``), with the log-likelihood output whose gradient drives REINFORCE.

``data`` has shape ``(d1, ..., dn-1, k)``: one distribution over ``k`` outcomes per leading
index. The samples have shape ``(d1, ..., dn-1) + shape``; with ``get_prob`` a second output holds
``log(data[sample])``, and its gradient flows back to ``data`` as ``g / data[sample]``.

Example
-------
>>> import mxlab as mx
>>> mx.nd.random.categorical(mx.nd.array([0.0, 0.0, 1.0]), shape=3).asnumpy()
array([2, 2, 2], dtype=int32)
"""
import math

from .attrs import Attr
from .random import draw, size_attr
from .registry import F, Op, register

__all__ = []


def _uniform(xp, gen, shape):
    """U[0, 1) draws from NumPy's ``Generator`` or CuPy's ``RandomState``."""
    return gen.random(size=shape) if hasattr(gen, "random") else gen.random_sample(size=shape)


def _sample_shape(attrs):
    shape = attrs["shape"]
    return () if shape is None else tuple(shape)


def _draw_indices(xp, data, sample_shape):
    """Inverse-CDF sampling: the first outcome whose cumulative probability passes ``u``."""
    batch = data.shape[:-1]
    u = xp.asarray(draw(xp, lambda gen: _uniform(xp, gen, batch + sample_shape)))
    cdf = xp.cumsum(data.astype("float64"), axis=-1)
    cdf = cdf.reshape(batch + (1,) * len(sample_shape) + data.shape[-1:])
    index = (u[..., None] >= cdf).sum(axis=-1)
    return xp.minimum(index, data.shape[-1] - 1)


def _gather(xp, data, index, sample_shape):
    """``data[..., index]`` per distribution: the probability of each drawn sample."""
    expanded = data.reshape(data.shape[:-1] + (1,) * len(sample_shape) + data.shape[-1:])
    expanded = xp.broadcast_to(expanded, index.shape + data.shape[-1:])
    return xp.take_along_axis(expanded, index[..., None], axis=-1)[..., 0]


def _categorical(xp, inputs, attrs):
    data, sample_shape = inputs[0], _sample_shape(attrs)
    index = _draw_indices(xp, data, sample_shape)
    samples = index.astype(attrs["dtype"])
    if not attrs["get_prob"]:
        return samples
    return samples, xp.log(_gather(xp, data, index, sample_shape)).astype(data.dtype)


def _categorical_backward(xp, inputs, attrs):
    """Scatter ``g / data[sample]`` to each drawn outcome (summed over repeated draws)."""
    g, data, samples = inputs
    sample_shape = _sample_shape(attrs)
    index = samples.astype("int64")
    contribution = g / _gather(xp, data, index, sample_shape)
    rows, k = math.prod(data.shape[:-1]), data.shape[-1]
    flat_index = index.reshape(rows, -1)
    grad = xp.zeros((rows, k), dtype=data.dtype)
    row_of = xp.broadcast_to(xp.arange(rows)[:, None], flat_index.shape)
    xp.add.at(grad, (row_of, flat_index), contribution.reshape(flat_index.shape))
    return grad.reshape(data.shape)


def _num_outputs(attrs):
    return 2 if attrs["get_prob"] else 1


def _shape(attrs, shapes):
    data = shapes[0]
    out = None if data is None else tuple(data[:-1]) + _sample_shape(attrs)
    return [out] * _num_outputs(attrs)


def _types(attrs, dtypes):
    return [attrs["dtype"], dtypes[0]][:_num_outputs(attrs)]


def _gradient(node, g):
    if not node.attrs["get_prob"] or g[1] is None:
        return [None]
    return [F._backward_sample_categorical(g[1], node.inputs[0], node.outputs[0],
                                           **node.attrs)]


_ATTRS = (size_attr("shape", (), optional=True, doc="samples per distribution"),
          Attr("get_prob", "bool", False, doc="also return the samples' log-likelihood"),
          Attr("dtype", "dtype", "int32", doc="dtype of the samples"))

register(Op(name="_sample_categorical", aliases=("_sample_multinomial", "sample_multinomial"),
            compute=_categorical, attrs=_ATTRS, num_outputs=_num_outputs,
            output_names=lambda attrs: ("output", "prob")[:_num_outputs(attrs)],
            infer_shape=_shape, infer_type=_types, gradient=_gradient, resources=("rng",),
            is_random=True, ignored_attrs=("ctx", "device"),
            doc="Samples from categorical distributions over the last axis of ``data``."))
register(Op(name="_backward_sample_categorical", compute=_categorical_backward, attrs=_ATTRS,
            num_inputs=3, input_names=("grad", "data", "samples"),
            infer_shape=lambda attrs, shapes: [shapes[1]], hidden=True, nd_names=(),
            doc="Gradient of the log-likelihood output: ``g / data[sample]`` at each sample."))
