"""MXNet's ``Pad`` (``mx.nd.pad``, ``mx.npx.pad``): pad every axis in 'constant', 'edge' or
'reflect' mode, differentiable in every mode.

Each axis's padding is a linear map: output position ``o`` reads input position ``src[o]``
(NumPy's ``pad`` of ``arange`` gives ``src``; constant padding reads nothing). The kernel applies
those maps as one-hot matrices, so the gradient is the same matrices transposed (reflected
borders add their gradient back onto the rows they copied), on NumPy and CuPy alike.

Example
-------
>>> import mxlab as mx
>>> x = mx.nd.array([[[[1.0, 2.0, 3.0]]]])
>>> mx.nd.pad(x, mode="reflect", pad_width=(0, 0, 0, 0, 0, 0, 1, 1)).asnumpy().tolist()
[[[[2.0, 1.0, 2.0, 3.0, 2.0]]]]
"""
import numpy

from ..base import MXNetValueError
from .attrs import Attr
from .registry import F, Op, register

__all__ = []


def _widths(attrs, ndim):
    """(before, after) per axis, with MXNet's rules: 4-d or 5-d data, batch and channel axes
    unpadded (``mx.np.pad`` pads anything)."""
    flat = tuple(attrs["pad_width"])
    if ndim not in (4, 5):
        raise MXNetValueError(f"Pad: input 'data' must be 4-d or 5-d, got {ndim}-d")
    if len(flat) != 2 * ndim:
        raise MXNetValueError(f"Pad: pad_width {flat} must hold 2 values per axis of the "
                              f"{ndim}-d input 'data'")
    if any(flat[:4]):
        raise MXNetValueError("Pad: Current implementation expects padding on the first two "
                              "axes to be zero.")
    return [(flat[2 * i], flat[2 * i + 1]) for i in range(ndim)]


def _axis_map(xp, size, before, after, mode, dtype):
    """The (padded size, size) one-hot matrix of one axis."""
    if mode == "constant":
        src = numpy.pad(numpy.arange(size), (before, after), mode="constant", constant_values=-1)
    else:
        src = numpy.pad(numpy.arange(size), (before, after),
                        mode="edge" if mode == "edge" else "reflect")
    matrix = (src[:, None] == numpy.arange(size)[None, :]).astype(dtype)
    return xp.asarray(matrix)


def _apply(xp, x, attrs, transpose):
    widths = _widths(attrs, x.ndim if not transpose else len(attrs["_in_shape"]))
    out = x
    for axis, (before, after) in enumerate(widths):
        if before == after == 0:
            continue
        size = attrs["_in_shape"][axis] if transpose else x.shape[axis]
        matrix = _axis_map(xp, size, before, after, attrs["mode"], x.dtype)
        matrix = matrix.T if transpose else matrix
        out = xp.moveaxis(xp.tensordot(matrix, out, axes=([1], [axis])), 0, axis)
    return out


def _pad_forward(xp, inputs, attrs):
    x = inputs[0]
    out = _apply(xp, x, dict(attrs, _in_shape=x.shape), transpose=False)
    if attrs["mode"] == "constant" and attrs["constant_value"] != 0:
        inside = _apply(xp, xp.ones_like(x), dict(attrs, _in_shape=x.shape), transpose=False)
        out = out + (1 - inside) * attrs["constant_value"]
    return xp.ascontiguousarray(out.astype(x.dtype))


def _pad_backward(xp, inputs, attrs):
    grad, x = inputs
    return xp.ascontiguousarray(_apply(xp, grad, dict(attrs, _in_shape=x.shape), True))


def _pad_shape(attrs, shapes):
    shape = shapes[0]
    if shape is None:
        return [None]
    return [tuple(None if d is None else d + lo + hi
                  for d, (lo, hi) in zip(shape, _widths(attrs, len(shape))))]


_ATTRS = (Attr("mode", "str", "constant", choices=("constant", "edge", "reflect")),
          Attr("pad_width", "shape", ()), Attr("constant_value", "float", 0.0))

register(Op(name="Pad", aliases=("pad",), compute=_pad_forward, attrs=_ATTRS,
            infer_shape=_pad_shape,
            gradient=lambda node, g: [F._backward_Pad(g[0], node.inputs[0], **node.attrs)],
            save_outputs=False, npx_name="pad",
            doc="Pad every axis ('constant', 'edge' or 'reflect'); pad_width is flat "
                "(before, after) per axis."))
register(Op(name="_backward_Pad", compute=_pad_backward, attrs=_ATTRS, num_inputs=2,
            input_names=("grad", "data"), infer_shape=lambda attrs, s: [s[1]],
            ignore_inputs=(1,), hidden=True,
            doc="The gradient of Pad: each axis's one-hot map transposed."))
