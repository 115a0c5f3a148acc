"""The ``_image_*`` ops (``mx.nd.image``, ``mx.sym.image``, ``mx.npx.image``): MXNet's image ops.

Images are HWC, or NHWC batches, except ``normalize`` (CHW / NCHW, after ``to_tensor``). Colour
ops compute in float32 and cast back as MXNet's ``saturate_cast`` does (uint8 clips, then the cast
truncates).
Random ops draw their factor from the op's random generator, one per call (MXNet's). Resizing runs
:mod:`~mxlab.ops.image_kernels`' OpenCV-exact kernels on the host.

Two documented departures: ``random_saturation`` mixes with the pixel's full luma (MXNet 1.9's
kernel keeps only the blue term, a bug), and contrast/saturation accept NHWC batches (one factor
per call, as for the other ops).

Example
-------
>>> import numpy
>>> from mxlab.ops.registry import get_op
>>> img = numpy.full((2, 2, 3), 255, dtype="uint8")
>>> get_op("_image_to_tensor").forward(numpy, [img], {})[0].shape
(3, 2, 2)
"""
import numpy

from ..base import MXNetValueError
from . import image_kernels
from .attrs import REQUIRED, Attr
from .infer import known
from .registry import F, Op, register

__all__ = []


def _register(name, compute, doc, **fields):
    register(Op(name=f"_image_{name}", compute=compute, doc=doc, **fields))


def _check_image(name, shape, ndims=(3, 4)):
    if known(shape) and len(shape) not in ndims:
        raise MXNetValueError(f"image.{name}: expects {' or '.join(f'{n}-d' for n in ndims)} "
                              f"input, got shape {tuple(shape)}")


def _saturate(xp, values, dtype):
    """MXNet's ``saturate_cast``: uint8 clips to [0, 255], then every cast truncates."""
    if numpy.dtype(dtype) == numpy.uint8:
        values = xp.clip(values, 0, 255)
    return values.astype(dtype, copy=False)


def _working(x):
    """``x`` as the float type colour ops compute in: float32 (MXNet's), float64 kept."""
    return x.astype(numpy.result_type(x.dtype, numpy.float32), copy=False)


def _same_shape(name):
    def infer(attrs, in_shapes):
        _check_image(name, in_shapes[0])
        return in_shapes, [in_shapes[0]]
    return infer


# -- layout and scaling ---------------------------------------------------------------------------
def _to_tensor(xp, inputs, attrs):
    x = inputs[0]
    _check_image("to_tensor", x.shape)
    axes = (2, 0, 1) if x.ndim == 3 else (0, 3, 1, 2)
    return xp.ascontiguousarray(x.transpose(axes)).astype("float32") / 255


def _to_tensor_infer(attrs, in_shapes):
    shape = in_shapes[0]
    _check_image("to_tensor", shape)
    if not known(shape):
        return in_shapes, [None]
    out = (shape[2], shape[0], shape[1]) if len(shape) == 3 else \
        (shape[0], shape[3], shape[1], shape[2])
    return in_shapes, [out]


_register("to_tensor", _to_tensor, "HWC (NHWC) in [0, 255] to CHW (NCHW) float32 in [0, 1].",
          infer_shape=_to_tensor_infer, infer_type=lambda a, d: (d, ["float32"]),
          save_inputs=False)


def _floats(value):
    """A float or a sequence of floats (MXNet's ``Tuple<float>`` attributes) as a tuple."""
    return tuple(float(v) for v in numpy.atleast_1d(numpy.asarray(value, dtype="float64")))


def _channel_values(values, channels, what):
    values = _floats(values)
    if len(values) == 1:
        return values * channels
    if len(values) < channels:
        raise MXNetValueError(f"image.normalize: {what} has {len(values)} values for "
                              f"{channels} channels")
    return values[:channels]


def _normalize(xp, inputs, attrs):
    x = inputs[0]
    _check_image("normalize", x.shape)
    axis = 0 if x.ndim == 3 else 1
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    mean = xp.asarray(_channel_values(attrs["mean"], x.shape[axis], "mean"), x.dtype)
    std = xp.asarray(_channel_values(attrs["std"], x.shape[axis], "std"), x.dtype)
    return (x - mean.reshape(shape)) / std.reshape(shape)


def _normalize_gradient(node, out_grads):
    zero = (0.0,) * len(_floats(node.attrs["std"]))
    return [F._image_normalize(out_grads[0], mean=zero, std=node.attrs["std"])]


_register("normalize", _normalize, "Per-channel (x - mean) / std of CHW (NCHW) float data.",
          attrs=(Attr("mean", "any", (0.0, 0.0, 0.0, 0.0)),
                 Attr("std", "any", (1.0, 1.0, 1.0, 1.0))),
          infer_shape=_same_shape("normalize"), gradient=_normalize_gradient,
          save_inputs=False, save_outputs=False)


# -- geometry -------------------------------------------------------------------------------------
def _flip(axis_from_end):
    def compute(xp, inputs, attrs):
        return xp.flip(inputs[0], axis=inputs[0].ndim - axis_from_end).copy()
    return compute


def _random_flip(axis_from_end):
    flip = _flip(axis_from_end)

    def compute(xp, inputs, attrs, ctx):
        draw = ctx.draw(xp, lambda gen: float(gen.uniform(0.0, 1.0)))
        return flip(xp, inputs, attrs) if draw < attrs["p"] else inputs[0].copy()
    return compute


for _name, _axis in (("left_right", 2), ("top_bottom", 3)):
    _register(f"flip_{_name}", _flip(_axis), f"Flip HWC (NHWC) images {_name.replace('_', '/')}.",
              infer_shape=_same_shape(f"flip_{_name}"), save_inputs=False, save_outputs=False,
              gradient=(lambda name: lambda node, g: [getattr(F, f"_image_flip_{name}")(g[0])])(
                  _name))
    _register(f"random_flip_{_name}", _random_flip(_axis),
              f"Flip HWC (NHWC) images {_name.replace('_', '/')} with probability p.",
              attrs=(Attr("p", "float", 0.5),), infer_shape=_same_shape(f"random_flip_{_name}"),
              resources=("rng",), is_random=True)


def _crop_box(attrs, shape):
    rows, cols = shape[-3], shape[-2]
    x, y, width, height = attrs["x"], attrs["y"], attrs["width"], attrs["height"]
    if x < 0 or y < 0 or width <= 0 or height <= 0 or x + width > cols or y + height > rows:
        raise MXNetValueError(f"image.crop: box x={x}, y={y}, width={width}, height={height} "
                              f"does not fit an image of {rows}x{cols}")
    return slice(y, y + height), slice(x, x + width)


def _crop(xp, inputs, attrs):
    x = inputs[0]
    _check_image("crop", x.shape)
    rows, cols = _crop_box(attrs, x.shape)
    return xp.ascontiguousarray(x[..., rows, cols, :])


def _crop_infer(attrs, in_shapes):
    shape = in_shapes[0]
    _check_image("crop", shape)
    if not known(shape):
        return in_shapes, [None]
    _crop_box(attrs, shape)
    return in_shapes, [tuple(shape[:-3]) + (attrs["height"], attrs["width"], shape[-1])]


def _crop_backward(xp, inputs, attrs):
    out_grad, data = inputs
    grad = xp.zeros(data.shape, dtype=out_grad.dtype)
    rows, cols = _crop_box(attrs, data.shape)
    grad[..., rows, cols, :] = out_grad
    return grad


_CROP_ATTRS = (Attr("x", "int", REQUIRED), Attr("y", "int", REQUIRED),
               Attr("width", "int", REQUIRED), Attr("height", "int", REQUIRED))
_register("crop", _crop, "The (width, height) box at (x, y) of HWC (NHWC) images.",
          attrs=_CROP_ATTRS, infer_shape=_crop_infer, save_outputs=False,
          gradient=lambda node, g: [F._backward_image_crop(g[0], node.inputs[0], **node.attrs)])
register(Op(name="_backward_image_crop", compute=_crop_backward, attrs=_CROP_ATTRS, num_inputs=2,
            input_names=("out_grad", "data"), infer_shape=lambda a, s: (s, [s[1]]),
            infer_type=lambda a, d: (d, [d[0]]), hidden=True,
            doc="Gradient of image.crop: the output gradient placed back in the box."))


def _resize_target(attrs, rows, cols):
    size = tuple(attrs["size"])
    if len(size) not in (1, 2) or min(size) <= 0:
        raise MXNetValueError(f"image.resize: size must be (w,) or (w, h) > 0, got {size}")
    if len(size) == 2:
        return size
    if not attrs["keep_ratio"]:
        return size * 2
    short = size[0]
    return (short, short * rows // cols) if rows > cols else (short * cols // rows, short)


def _resize(xp, inputs, attrs):
    x = inputs[0]
    _check_image("resize", x.shape)
    width, height = _resize_target(attrs, x.shape[-3], x.shape[-2])
    host = x if xp is numpy else xp.asnumpy(x)

    def one(img):
        return image_kernels.resize(img, width, height, attrs["interp"]).reshape(
            height, width, img.shape[-1])
    out = one(host) if host.ndim == 3 else numpy.stack([one(img) for img in host])
    return xp.asarray(out)


def _resize_infer(attrs, in_shapes):
    shape = in_shapes[0]
    _check_image("resize", shape)
    if not known(shape):
        return in_shapes, [None]
    width, height = _resize_target(attrs, shape[-3], shape[-2])
    return in_shapes, [tuple(shape[:-3]) + (height, width, shape[-1])]


_register("resize", _resize, "Resize HWC (NHWC) images with OpenCV's interpolations.",
          attrs=(Attr("size", "shape", ()), Attr("keep_ratio", "bool", False),
                 Attr("interp", "int", 1)),
          infer_shape=_resize_infer)


# -- colour ---------------------------------------------------------------------------------------
def _luma(xp, x):
    """Per-pixel luma (..., H, W, 1) in float32 (the channel itself for grey images)."""
    values = _working(x)
    if x.shape[-1] == 1:
        return values
    return (values[..., :3] @ xp.asarray(image_kernels.LUMA, values.dtype))[..., None]


def _adjust(kind, xp, x, alpha):
    values = _working(x)
    if kind == "brightness":
        out = values * alpha
    elif kind == "contrast":
        axes = (-3, -2, -1)
        out = values * alpha + (1 - alpha) * _luma(xp, x).mean(axis=axes, keepdims=True)
    else:
        out = values * alpha + (1 - alpha) * _luma(xp, x)
    return _saturate(xp, out, x.dtype)


def _random_enhance(kind):
    def compute(xp, inputs, attrs, ctx):
        _check_image(f"random_{kind}", inputs[0].shape)
        if attrs["min_factor"] > attrs["max_factor"]:
            raise MXNetValueError(f"image.random_{kind}: min_factor {attrs['min_factor']} > "
                                  f"max_factor {attrs['max_factor']}")
        alpha = ctx.draw(xp, lambda gen: float(gen.uniform(attrs["min_factor"],
                                                           attrs["max_factor"])))
        return _adjust(kind, xp, inputs[0], alpha)
    return compute


for _kind in ("brightness", "contrast", "saturation"):
    _register(f"random_{_kind}", _random_enhance(_kind),
              f"Scale {_kind} by a factor drawn uniformly from [min_factor, max_factor].",
              attrs=(Attr("min_factor", "float", REQUIRED), Attr("max_factor", "float", REQUIRED)),
              infer_shape=_same_shape(f"random_{_kind}"), resources=("rng",), is_random=True)


def _lighting(xp, x, alpha):
    if x.shape[-1] != 3:
        raise MXNetValueError(f"image.adjust_lighting: needs RGB images, got {x.shape[-1]} "
                              f"channels")
    shift = image_kernels.EIGVEC @ (image_kernels.EIGVAL * numpy.asarray(alpha, "float64"))
    values = _working(x)
    return _saturate(xp, values + xp.asarray(shift, values.dtype), x.dtype)


def _adjust_lighting(xp, inputs, attrs):
    alpha = _floats(attrs["alpha"])
    if len(alpha) != 3:
        raise MXNetValueError(f"image.adjust_lighting: alpha needs 3 values, got {alpha}")
    return _lighting(xp, inputs[0], alpha)


def _random_lighting(xp, inputs, attrs, ctx):
    alpha = ctx.draw(xp, lambda gen: numpy.asarray(
        gen.normal(0.0, attrs["alpha_std"], size=3)).tolist())
    return _lighting(xp, inputs[0], alpha)


_register("adjust_lighting", _adjust_lighting, "Add AlexNet's PCA lighting shift for alpha.",
          attrs=(Attr("alpha", "any", REQUIRED),),
          infer_shape=_same_shape("adjust_lighting"),
          gradient=lambda node, g: [g[0]], save_inputs=False, save_outputs=False)
_register("random_lighting", _random_lighting,
          "Add AlexNet's PCA lighting shift for alpha ~ N(0, alpha_std).",
          attrs=(Attr("alpha_std", "float", 0.05),), infer_shape=_same_shape("random_lighting"),
          resources=("rng",), is_random=True)
