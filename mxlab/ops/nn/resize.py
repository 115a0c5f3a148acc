"""``contrib.AdaptiveAvgPooling2D`` and ``contrib.BilinearResize2D`` (MXNet's), as separable
matrix products.

Both map an (N, C, H, W) input to (N, C, Ho, Wo) by a linear map that acts on rows and columns
separately, so each is ``Mh @ x @ Mw.T`` with small (Ho, H) and (Wo, W) matrices, and the data
gradient is ``Mh.T @ dy @ Mw``.

* AdaptiveAvgPooling2D: output cell ``i`` averages input rows ``[floor(i H / Ho),
  ceil((i + 1) H / Ho))`` (and likewise columns); ``output_size`` is an int (square), a pair, or
  empty (1x1).
* BilinearResize2D: MXNet's (PyTorch's) source index ``scale * i`` with ``align_corners`` (the
  default), else ``max(scale * (i + 0.5) - 0.5, 0)``; the two neighbours ``floor(src)`` and the
  next one (the last row repeats) weigh ``1 - frac`` and ``frac``. The output size comes from
  ``mode``: ``size`` (``height``/``width``, or the input size times ``scale_height`` /
  ``scale_width``; as in MXNet, ``scale_height`` alone decides that both scales are used),
  ``odd_scale``, ``like`` (a second input's size; it gets a zero gradient), ``to_even_down``,
  ``to_even_up``, ``to_odd_down``, ``to_odd_up``.

Example
-------
>>> import mxlab as mx
>>> x = mx.nd.arange(12).reshape((1, 1, 3, 4))
>>> mx.nd.contrib.AdaptiveAvgPooling2D(x, output_size=2).asnumpy().ravel().tolist()
[2.5, 4.5, 6.5, 8.5]
>>> mx.nd.contrib.BilinearResize2D(x, height=2, width=2).asnumpy().ravel().tolist()
[0.0, 3.0, 8.0, 11.0]
"""
import numpy

from ...base import MXNetValueError
from ..attrs import Attr
from ..infer import known
from ..registry import F, Op, register

__all__ = []


def _check_4d(name, shape):
    if known(shape) and len(shape) != 4:
        raise MXNetValueError(f"{name}: data must be a 4-D (N, C, H, W) array, got {tuple(shape)}")


def _separable(xp, x, rows, cols):
    """``rows @ x @ cols.T`` over the last two axes, in x's dtype."""
    rows = xp.asarray(rows, dtype=x.dtype)
    cols = xp.asarray(cols, dtype=x.dtype)
    return xp.ascontiguousarray((rows @ x) @ cols.T)


# -- AdaptiveAvgPooling2D -------------------------------------------------------------------------
def _adaptive_size(attrs):
    size = attrs["output_size"]
    if len(size) == 0:
        return 1, 1
    if len(size) == 1:
        return size[0], size[0]
    if len(size) == 2:
        return tuple(size)
    raise MXNetValueError(f"AdaptiveAvgPooling2D: output_size must be an int or (height, width), "
                          f"got {size}")


def _average_matrix(out_size, in_size):
    """(out, in): row i averages input cells [floor(i * in / out), ceil((i + 1) * in / out))."""
    index = numpy.arange(out_size)
    start = (index * in_size) // out_size
    end = -((-(index + 1) * in_size) // out_size)
    cells = numpy.arange(in_size)
    inside = (cells >= start[:, None]) & (cells < end[:, None])
    return inside / (end - start)[:, None]


def _adaptive_forward(xp, inputs, attrs):
    x = inputs[0]
    _adaptive_infer(attrs, [x.shape])
    ho, wo = _adaptive_size(attrs)
    return _separable(xp, x, _average_matrix(ho, x.shape[2]), _average_matrix(wo, x.shape[3]))


def _adaptive_backward(xp, inputs, attrs):
    dy, x = inputs
    ho, wo = _adaptive_size(attrs)
    return _separable(xp, dy.astype(x.dtype, copy=False), _average_matrix(ho, x.shape[2]).T,
                      _average_matrix(wo, x.shape[3]).T)


def _adaptive_infer(attrs, in_shapes):
    data = in_shapes[0]
    _check_4d("AdaptiveAvgPooling2D", data)
    ho, wo = _adaptive_size(attrs)
    if ho <= 0 or wo <= 0:
        raise MXNetValueError(f"AdaptiveAvgPooling2D: output_size must be positive, got "
                              f"{attrs['output_size']}")
    if data is None or len(data) != 4:
        return [None]
    return [(data[0], data[1], ho, wo)]


_ADAPTIVE_ATTRS = (Attr("output_size", "shape", ()),)

register(Op(
    name="_contrib_AdaptiveAvgPooling2D",
    compute=_adaptive_forward,
    attrs=_ADAPTIVE_ATTRS,
    infer_shape=_adaptive_infer,
    infer_type=lambda a, d: [d[0]],
    gradient=lambda node, g: [F._backward_contrib_AdaptiveAvgPooling2D(g[0], node.inputs[0],
                                                                        **node.attrs)],
    save_outputs=False,
    doc="Average-pool NCHW data to output_size (Ho, Wo), each cell over its proportional "
        "window.",
))
register(Op(
    name="_backward_contrib_AdaptiveAvgPooling2D",
    compute=_adaptive_backward,
    attrs=_ADAPTIVE_ATTRS,
    num_inputs=2,
    input_names=("out_grad", "data"),
    infer_shape=lambda a, s: (s, [s[1]]),
    infer_type=lambda a, d: (d, [d[1]]),
    ignore_inputs=(1,),
    hidden=True,
    doc="Gradient of AdaptiveAvgPooling2D: each output gradient spread evenly over its window.",
))


# -- BilinearResize2D -----------------------------------------------------------------------------
_MODES = ("size", "odd_scale", "like", "to_even_down", "to_even_up", "to_odd_down", "to_odd_up")


def _resize_size(attrs, shape, like=None):
    """(Ho, Wo) for an input of ``shape`` (MXNet's BilinearSampleOpInferShape)."""
    mode, h, w = attrs["mode"], shape[2], shape[3]
    sh, sw = attrs["scale_height"], attrs["scale_width"]
    if mode == "size":
        if sh is None:
            return attrs["height"], attrs["width"]
        if sw is None:
            raise MXNetValueError("BilinearResize2D: scale_height is set but scale_width is not "
                                  "(mode='size' scales both sides when scale_height is given)")
        return int(sh * h), int(sw * w)
    if mode == "odd_scale":
        if sh is None or sw is None:
            raise MXNetValueError("BilinearResize2D: mode='odd_scale' needs scale_height and "
                                  "scale_width")
        return (int(h * sh) if h % 2 == 0 else int((h - 1) * sh) + 1,
                int(w * sw) if w % 2 == 0 else int((w - 1) * sw) + 1)
    if mode == "like":
        return like[2], like[3]
    even = mode.startswith("to_even")
    step = 1 if mode.endswith("up") else -1
    return tuple(d if (d % 2 == 0) == even else d + step for d in (h, w))


def _interp_matrix(out_size, in_size, align_corners):
    """(out, in) bilinear weights along one axis, computed in float32 as MXNet's kernel."""
    f32 = numpy.float32
    if out_size > 1:
        scale = f32(in_size - 1) / f32(out_size - 1) if align_corners else \
            f32(in_size) / f32(out_size)
    else:
        scale = f32(0)
    index = numpy.arange(out_size, dtype=f32)
    if align_corners:
        src = scale * index
    else:
        src = numpy.maximum(scale * (index + f32(0.5)) - f32(0.5), f32(0))
    low = src.astype(numpy.int64)
    frac = src - low
    high = low + (low < in_size - 1)
    matrix = numpy.zeros((out_size, in_size), dtype=numpy.float64)
    rows = numpy.arange(out_size)
    numpy.add.at(matrix, (rows, low), 1 - frac)
    numpy.add.at(matrix, (rows, high), frac)
    return matrix


def _resize_matrices(attrs, in_shape, out_shape):
    corners = attrs["align_corners"]
    return (_interp_matrix(out_shape[2], in_shape[2], corners),
            _interp_matrix(out_shape[3], in_shape[3], corners))


def _resize_forward(xp, inputs, attrs):
    x = inputs[0]
    (out,) = _resize_infer(attrs, [i.shape for i in inputs])
    if out[2:] == x.shape[2:]:
        return x.copy()
    return _separable(xp, x, *_resize_matrices(attrs, x.shape, out))


def _resize_backward(xp, inputs, attrs):
    dy, x = inputs[0], inputs[1]
    dy = dy.astype(x.dtype, copy=False)
    if dy.shape[2:] == x.shape[2:]:
        grad = dy.copy()
    else:
        rows, cols = _resize_matrices(attrs, x.shape, dy.shape)
        grad = _separable(xp, dy, rows.T, cols.T)
    if attrs["mode"] == "like":
        return grad, xp.zeros(inputs[2].shape, dtype=inputs[2].dtype)
    return grad


def _resize_infer(attrs, in_shapes):
    data = in_shapes[0]
    _check_4d("BilinearResize2D", data)
    like = in_shapes[1] if attrs["mode"] == "like" else None
    if attrs["mode"] == "like":
        _check_4d("BilinearResize2D", like)
    if not known(data) or (attrs["mode"] == "like" and not known(like)):
        return [None]
    ho, wo = _resize_size(attrs, data, like)
    if ho <= 0 or wo <= 0:
        raise MXNetValueError(f"BilinearResize2D: output size ({ho}, {wo}) must be positive")
    return [(data[0], data[1], ho, wo)]


def _resize_gradient(node, g):
    grads = F._backward_contrib_BilinearResize2D(g[0], *node.inputs, **node.attrs)
    return list(grads) if node.attrs["mode"] == "like" else [grads]


def _like(attrs):
    return attrs["mode"] == "like"


_RESIZE_ATTRS = (Attr("height", "int", 1, check=(lambda v: v >= 1, "must be at least 1")),
                 Attr("width", "int", 1, check=(lambda v: v >= 1, "must be at least 1")),
                 Attr("scale_height", "float", None, optional=True),
                 Attr("scale_width", "float", None, optional=True),
                 Attr("mode", "str", "size", choices=_MODES),
                 Attr("align_corners", "bool", True))

register(Op(
    name="_contrib_BilinearResize2D",
    compute=_resize_forward,
    attrs=_RESIZE_ATTRS,
    num_inputs=lambda a: 2 if _like(a) else 1,
    input_names=lambda a: ("data", "like") if _like(a) else ("data",),
    infer_shape=_resize_infer,
    infer_type=lambda a, d: [d[0]],
    gradient=_resize_gradient,
    save_outputs=False,
    doc="Resize NCHW data bilinearly to a size given by height/width, scales, a mode, or a "
        "second input (mode='like').",
))
register(Op(
    name="_backward_contrib_BilinearResize2D",
    compute=_resize_backward,
    attrs=_RESIZE_ATTRS,
    num_inputs=lambda a: 3 if _like(a) else 2,
    input_names=lambda a: ("out_grad", "data", "like") if _like(a) else ("out_grad", "data"),
    num_outputs=lambda a: 2 if _like(a) else 1,
    infer_shape=lambda a, s: (s, list(s[1:])),
    infer_type=lambda a, d: (d, list(d[1:])),
    ignore_inputs=(1,),
    hidden=True,
    doc="Gradient of BilinearResize2D with respect to data (like, if any, gets zeros).",
))
