"""MXNet's ``mx.image`` functions on HWC arrays (decode with Pillow, NumPy kernels)."""
import io
import random

import numpy

from ..base import MXNetNotImplementedError, MXNetValueError
from . import kernels
from .kernels import scale_down

__all__ = ["imread", "imdecode", "imresize", "resize_short", "fixed_crop", "random_crop",
           "center_crop", "color_normalize", "random_size_crop", "scale_down", "copyMakeBorder",
           "imrotate", "random_rotate"]


def _host(src):
    """(NumPy values, how to wrap a result like ``src``)."""
    from ..ndarray.ndarray import NDArray

    if isinstance(src, NDArray):
        return src.asnumpy(), lambda values: _wrap_like(values, src)
    return numpy.asarray(src), lambda values: values


def _wrap_like(values, like):
    from ..ndarray.ndarray import array

    return array(values, dtype=values.dtype, device=like.device, cls=type(like))


def _decode(data, flag, to_rgb, what):
    try:
        from PIL import Image
    except ImportError as err:  # pragma: no cover - Pillow comes with matplotlib
        raise MXNetNotImplementedError("mx.image decoding needs Pillow (pip install pillow)") \
            from err
    try:
        with Image.open(data) as img:
            img = img.convert("RGB" if flag else "L")
            values = numpy.asarray(img, dtype=numpy.uint8)
    except (OSError, ValueError) as err:
        raise MXNetValueError(f"mx.image: cannot decode {what}: {err}") from None
    if not flag:
        return values[..., None]
    return values if to_rgb else values[..., ::-1].copy()


def imread(filename, flag=1, to_rgb=True, out=None):
    """Read an image file into a (H, W, 3) uint8 array (``flag=0``: grey, (H, W, 1))."""
    from .. import ndarray as nd

    return nd.array(_decode(filename, flag, to_rgb, repr(str(filename))), dtype="uint8")


def imdecode(buf, flag=1, to_rgb=True, out=None):
    """Decode an encoded image (bytes or a uint8 array of its bytes)."""
    from .. import ndarray as nd
    from ..ndarray.ndarray import NDArray

    raw = buf.asnumpy().tobytes() if isinstance(buf, NDArray) else bytes(buf)
    return nd.array(_decode(io.BytesIO(raw), flag, to_rgb, "the buffer"), dtype="uint8")


def imresize(src, w, h, interp=1):
    """Resize ``src`` to width ``w`` and height ``h`` (``interp`` as OpenCV: 0 nearest,
    1 bilinear; other codes resize bilinearly)."""
    values, wrap = _host(src)
    return wrap(kernels.resize(values, int(w), int(h), interp))


def resize_short(src, size, interp=2):
    """Resize so that the shorter side is ``size``, keeping the aspect ratio."""
    h, w = src.shape[:2]
    new_h, new_w = (size * h // w, size) if h > w else (size, size * w // h)
    return imresize(src, new_w, new_h, interp)


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """Crop the (w, h) box at (x0, y0), then resize to ``size`` (w, h) if given."""
    values, wrap = _host(src)
    out = values[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        out = kernels.resize(out, size[0], size[1], interp)
    return wrap(numpy.ascontiguousarray(out))


def random_crop(src, size, interp=2):
    """A random crop of ``size`` (w, h) (scaled down to fit); returns (image, (x0, y0, w, h))."""
    h, w = src.shape[:2]
    new_w, new_h = scale_down((w, h), size)
    x0, y0 = random.randint(0, w - new_w), random.randint(0, h - new_h)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """The centred crop of ``size`` (w, h); returns (image, (x0, y0, w, h))."""
    h, w = src.shape[:2]
    new_w, new_h = scale_down((w, h), size)
    x0, y0 = int((w - new_w) / 2), int((h - new_h) / 2)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def color_normalize(src, mean, std=None):
    """``(src - mean) / std``."""
    if mean is not None:
        src = src - mean
    if std is not None:
        src = src / std
    return src


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """A crop of random area fraction ``area`` and aspect ``ratio`` (10 tries, then centre crop),
    resized to ``size``; returns (image, (x0, y0, w, h))."""
    if "min_area" in kwargs:
        area = kwargs.pop("min_area")
    if kwargs:
        raise MXNetValueError(f"random_size_crop: unexpected keyword arguments {sorted(kwargs)}")
    h, w = src.shape[:2]
    area = (area, 1.0) if isinstance(area, (int, float)) else area
    for _ in range(10):
        target = random.uniform(*area) * h * w
        aspect = numpy.exp(random.uniform(numpy.log(ratio[0]), numpy.log(ratio[1])))
        new_w = int(round(numpy.sqrt(target * aspect)))
        new_h = int(round(numpy.sqrt(target / aspect)))
        if new_w <= w and new_h <= h:
            x0, y0 = random.randint(0, w - new_w), random.randint(0, h - new_h)
            return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)


def copyMakeBorder(src, top, bot, left, right, type=0, value=0):  # noqa: N802 - MXNet's name
    """Pad the image borders: ``type`` 0 constant (``value``), 1 replicate, 2 reflect."""
    modes = {0: "constant", 1: "edge", 2: "symmetric", 4: "reflect"}
    if type not in modes:
        raise MXNetValueError(f"copyMakeBorder: border type {type} is not supported; "
                              f"use one of {sorted(modes)}")
    values, wrap = _host(src)
    pad = ((top, bot), (left, right)) + ((0, 0),) * (values.ndim - 2)
    extra = {"constant_values": value} if type == 0 else {}
    return wrap(numpy.pad(values, pad, mode=modes[type], **extra))


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """Not built: rotation needs a bilinear affine sampler."""
    raise MXNetNotImplementedError("mx.image.imrotate is not implemented in mxlab")


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """Not built (see :func:`imrotate`)."""
    raise MXNetNotImplementedError("mx.image.random_rotate is not implemented in mxlab")
