"""MXNet's random image ops that :mod:`mxlab.ops.image` leaves out: ``random_hue``,
``random_color_jitter`` (MXNet 1.9's ``mx.nd.image``), ``random_crop`` and
``random_resized_crop`` (MXNet 2.0's ``mx.npx.image``), each as ``_image_<name>``.

* ``random_hue`` turns RGB (HWC or NHWC, values on a 0..255 scale) into HLS, adds ``alpha * 360``
  degrees of hue (``alpha`` uniform in [min_factor, max_factor]) and converts back
  (``image_random-inl.h``: ``RGB2HLSConvert``, ``HLS2RGBConvert``), saturating to the dtype. A
  grey (1-channel) image is returned unchanged (MXNet 1.9 leaves the output unwritten).
* ``random_color_jitter`` applies brightness, contrast, saturation and hue jitters in a random
  order, each only when its amount is positive (factors ``1 + U(-a, a)``, hue ``U(-h, h)``),
  saturating after each as MXNet does; saturation uses the full luma (see ``ops/image.py``).
  With every amount 0 the image comes back unchanged (MXNet 1.9 leaves its output unwritten).
* ``random_crop`` picks the left/top corner at ``U(xrange) * (W - w)``, ``U(yrange) * (H - h)``
  of the largest box of the target's aspect ratio that fits (MXNet's ``ScaleDown``), crops it and
  resizes to ``(width, height)`` with ``interp`` when the sizes differ. Its hidden second output is
  the box ``[x, y, w, h]``; the gradient places the output gradient back in the box when no resize
  happened (MXNet's backward assumes the same and is wrong otherwise: mxlab refuses).
* ``random_resized_crop`` tries ``max_trial`` times for a box of area ``U(area) * H W`` and aspect
  ratio ``exp(U(log ratio))`` that fits, at a uniform position, else falls back to MXNet's centre
  crop; then resizes to ``(width, height)``. No gradient (as MXNet).

One box and one set of factors serve a whole NHWC batch per call, as for the other random image
ops.

Example
-------
>>> import mxlab as mx
>>> img = mx.nd.array([[[255, 0, 0]]], dtype="uint8")
>>> mx.nd.image.random_hue(img, min_factor=1/3, max_factor=1/3).asnumpy().tolist()
[[[0, 255, 0]]]
"""
import math

import numpy

from ..base import MXNetNotImplementedError, MXNetValueError
from .attrs import REQUIRED, Attr
from .image import _adjust, _check_image, _same_shape, _saturate, _working
from .image import _resize as _resize_kernel
from .infer import known
from .registry import F, Op, register

__all__ = []

_SECTORS = ((1, 3, 0), (1, 0, 2), (3, 0, 1), (0, 2, 1), (0, 1, 3), (2, 1, 0))   # b, g, r


def _uniforms(xp, ctx, count):
    return ctx.draw(xp, lambda gen: [float(v) for v in gen.uniform(0.0, 1.0, size=count)])


def _uniform(xp, ctx, low, high):
    return low + (high - low) * _uniforms(xp, ctx, 1)[0]


# -- hue ------------------------------------------------------------------------------------------
def _adjust_hue(xp, x, alpha):
    if x.shape[-1] == 1:
        return x.copy()
    if x.shape[-1] != 3:
        raise MXNetValueError(f"image.random_hue: needs RGB (3-channel) images, got "
                              f"{x.shape[-1]} channels")
    values = _working(x) / 255
    r, g, b = values[..., 0], values[..., 1], values[..., 2]
    vmax, vmin = xp.maximum(xp.maximum(r, g), b), xp.minimum(xp.minimum(r, g), b)
    diff = vmax - vmin
    light = (vmax + vmin) * 0.5
    chroma = diff > numpy.finfo(numpy.float32).eps
    safe = xp.where(chroma, diff, 1)
    sat = xp.where(light < 0.5, diff / xp.where(chroma, vmax + vmin, 1),
                   diff / xp.where(chroma, 2 - vmax - vmin, 1))
    sat = xp.where(chroma, sat, 0)
    scale = 60 / safe
    hue = xp.where(vmax == r, (g - b) * scale,
                   xp.where(vmax == g, (b - r) * scale + 120, (r - g) * scale + 240))
    hue = xp.where(hue < 0, hue + 360, hue)
    hue = xp.where(chroma, hue, 0) + alpha * 360
    # HLS -> RGB
    p2 = xp.where(light <= 0.5, light * (1 + sat), light + sat - light * sat)
    p1 = 2 * light - p2
    h = xp.mod(hue / 60, 6)
    h = xp.where(h >= 6, h - 6, h)
    sector = xp.clip(h.astype(numpy.int64), 0, 5)
    frac = h - sector
    tab = xp.stack([p2, p1, p1 + (p2 - p1) * (1 - frac), p1 + (p2 - p1) * frac], axis=-1)
    pick = xp.asarray(numpy.array(_SECTORS))[sector]                 # (..., 3): b, g, r rows
    bgr = xp.take_along_axis(tab, pick, axis=-1)
    rgb = xp.where((sat != 0)[..., None], bgr[..., ::-1], light[..., None])
    return _saturate(xp, rgb * 255, x.dtype)


def _random_hue(xp, inputs, attrs, ctx):
    _check_image("random_hue", inputs[0].shape)
    if attrs["min_factor"] > attrs["max_factor"]:
        raise MXNetValueError(f"image.random_hue: min_factor {attrs['min_factor']} > max_factor "
                              f"{attrs['max_factor']}")
    return _adjust_hue(xp, inputs[0], _uniform(xp, ctx, attrs["min_factor"],
                                               attrs["max_factor"]))


register(Op(name="_image_random_hue", compute=_random_hue,
            attrs=tuple(Attr(name, "float", REQUIRED, check=(lambda v: v >= 0, "must be >= 0"))
                        for name in ("min_factor", "max_factor")),
            infer_shape=_same_shape("random_hue"), resources=("rng",), is_random=True,
            doc="Rotate the hue of RGB images by alpha * 360 degrees, alpha drawn uniformly from "
                "[min_factor, max_factor]."))


# -- colour jitter --------------------------------------------------------------------------------
_JITTERS = ("brightness", "contrast", "saturation", "hue")


def _color_jitter(xp, inputs, attrs, ctx):
    x = inputs[0]
    _check_image("random_color_jitter", x.shape)
    order = numpy.argsort(_uniforms(xp, ctx, 4))
    out = x
    for index in order:
        kind = _JITTERS[index]
        amount = attrs[kind]
        if amount <= 0:
            continue
        alpha = _uniform(xp, ctx, -amount, amount)
        out = _adjust_hue(xp, out, alpha) if kind == "hue" else _adjust(kind, xp, out, 1 + alpha)
    return out.copy() if out is x else out


register(Op(name="_image_random_color_jitter", compute=_color_jitter,
            attrs=tuple(Attr(kind, "float", REQUIRED) for kind in _JITTERS),
            infer_shape=_same_shape("random_color_jitter"), resources=("rng",), is_random=True,
            doc="Jitter brightness, contrast, saturation and hue in a random order."))


# -- random crops ---------------------------------------------------------------------------------
def _scale_down(src_w, src_h, w, h):
    """MXNet's ``ScaleDown``: the target (w, h) shrunk to fit (src_w, src_h), in float32."""
    f32 = numpy.float32
    sw, sh, w, h = f32(src_w), f32(src_h), f32(w), f32(h)
    if sh < h:
        w, h = w * sh / h, sh
    if sw < w:
        w, h = sw, h * sw / w
    return int(w), int(h)


def _check_target(name, attrs):
    if attrs["width"] <= 0 or attrs["height"] <= 0:
        raise MXNetValueError(f"image.{name}: width and height must be positive, got "
                              f"{attrs['width']}x{attrs['height']}")


def _pair(name, attrs, key, low=None, high=None):
    value = tuple(float(v) for v in attrs[key])
    if len(value) != 2 or value[0] > value[1] or (low is not None and value[0] < low) or \
            (high is not None and value[1] > high):
        raise MXNetValueError(f"image.{name}: {key} must be (low, high) with low <= high"
                              + (f" within [{low}, {high}]" if low is not None else "")
                              + f", got {attrs[key]}")
    return value


def _target_shape(name, attrs, shape):
    _check_image(name, shape)
    _check_target(name, attrs)
    if not known(shape):
        return None
    return tuple(shape[:-3]) + (attrs["height"], attrs["width"], shape[-1])


def _crop_resize(xp, x, box, attrs):
    left, top, width, height = box
    patch = xp.ascontiguousarray(x[..., top:top + height, left:left + width, :])
    if (width, height) == (attrs["width"], attrs["height"]):
        return patch
    return _resize_kernel(xp, [patch], {"size": (attrs["width"], attrs["height"]),
                                        "keep_ratio": False, "interp": attrs["interp"]})


def _random_crop(xp, inputs, attrs, ctx):
    x = inputs[0]
    _target_shape("random_crop", attrs, x.shape)
    xrange = _pair("random_crop", attrs, "xrange", 0.0, 1.0)
    yrange = _pair("random_crop", attrs, "yrange", 0.0, 1.0)
    src_h, src_w = x.shape[-3], x.shape[-2]
    width, height = _scale_down(src_w, src_h, attrs["width"], attrs["height"])
    u, v = _uniforms(xp, ctx, 2)
    left = int(numpy.float32(xrange[0] + (xrange[1] - xrange[0]) * u) * (src_w - width))
    top = int(numpy.float32(yrange[0] + (yrange[1] - yrange[0]) * v) * (src_h - height))
    box = (left, top, width, height)
    return _crop_resize(xp, x, box, attrs), xp.asarray(numpy.array(box, dtype=numpy.int64))


def _random_crop_backward(xp, inputs, attrs):
    out_grad, data, box = inputs
    left, top, width, height = (int(v) for v in (box.get() if hasattr(box, "get") else box))
    if out_grad.shape[-3:-1] != (height, width):
        raise MXNetNotImplementedError("image.random_crop: no gradient through the resize of a "
                                       "crop smaller than the target (MXNet has none either)")
    grad = xp.zeros(data.shape, dtype=out_grad.dtype)
    grad[..., top:top + height, left:left + width, :] = out_grad
    return grad


_INTERP = Attr("interp", "int", 1)
register(Op(name="_image_random_crop", compute=_random_crop,
            attrs=(Attr("xrange", "any", (0.0, 1.0)), Attr("yrange", "any", (0.0, 1.0)),
                   Attr("width", "int", REQUIRED), Attr("height", "int", REQUIRED), _INTERP),
            num_outputs=2, num_visible_outputs=1, output_names=("output", "box"),
            infer_shape=lambda a, s: [_target_shape("random_crop", a, s[0]), (4,)],
            infer_type=lambda a, d: [d[0], "int64"], resources=("rng",), is_random=True,
            gradient=lambda node, g: [F._backward_image_random_crop(g[0], node.inputs[0],
                                                                    node.outputs[1])],
            save_outputs=(1,),
            doc="Crop a random box of the target's aspect ratio and resize it to (width, height)."))
register(Op(name="_backward_image_random_crop", compute=_random_crop_backward, num_inputs=3,
            input_names=("out_grad", "data", "box"), infer_shape=lambda a, s: (s, [s[1]]),
            infer_type=lambda a, d: (d, [d[0]]), ignore_inputs=(1,), hidden=True,
            doc="Gradient of image.random_crop: the output gradient placed back in its box."))


def _resized_box(xp, ctx, attrs, src_w, src_h):
    area = _pair("random_resized_crop", attrs, "area", 0.0, 1.0)
    ratio = _pair("random_resized_crop", attrs, "ratio", 0.0)
    f32 = numpy.float32
    for _ in range(attrs["max_trial"]):
        a, r = _uniforms(xp, ctx, 2)
        target = f32(area[0] + (area[1] - area[0]) * a) * f32(src_w * src_h)
        low, high = f32(math.log(ratio[0])), f32(math.log(ratio[1]))
        aspect = f32(math.exp(low + (high - low) * r))
        width = int(math.floor(math.sqrt(target * aspect) + 0.5))
        height = int(math.floor(math.sqrt(target / aspect) + 0.5))
        if width <= src_w and height <= src_h:
            u, v = _uniforms(xp, ctx, 2)
            return int(f32(u) * (src_w - width)), int(f32(v) * (src_h - height)), width, height
    width, height = _scale_down(src_w, src_h, attrs["width"], attrs["height"])
    # NOTE: MXNet's fallback centres on the target size, not the source: (target - scaled) / 2
    left, top = (attrs["width"] - width) // 2, (attrs["height"] - height) // 2
    return left, top, width, height


def _random_resized_crop(xp, inputs, attrs, ctx):
    x = inputs[0]
    _target_shape("random_resized_crop", attrs, x.shape)
    box = _resized_box(xp, ctx, attrs, x.shape[-2], x.shape[-3])
    return _crop_resize(xp, x, box, attrs)


register(Op(name="_image_random_resized_crop", compute=_random_resized_crop,
            attrs=(Attr("width", "int", REQUIRED), Attr("height", "int", REQUIRED),
                   Attr("area", "any", (0.08, 1.0)), Attr("ratio", "any", (0.75, 4 / 3)),
                   _INTERP, Attr("max_trial", "int", 10)),
            infer_shape=lambda a, s: [_target_shape("random_resized_crop", a, s[0])],
            infer_type=lambda a, d: [d[0]], resources=("rng",), is_random=True,
            doc="Crop a random box of random area and aspect ratio, resized to (width, height)."))
