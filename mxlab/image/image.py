"""MXNet's ``mx.image`` functions on HWC arrays (decode with Pillow, NumPy kernels)."""
import io
import numbers
import random

import numpy

from ..base import MXNetNotImplementedError, MXNetTypeError, MXNetValueError
from ..ops import image_kernels as kernels
from ..ops.image_kernels import scale_down

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
    except (OSError, ValueError, Image.DecompressionBombError) as err:
        # NOTE: Pillow refuses images of more than 2 * Image.MAX_IMAGE_PIXELS pixels from their
        #   header, before decoding: a small file cannot make us allocate gigabytes
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
    """Rotate a CHW image or an NCHW batch (float32) by ``rotation_degrees`` about its centre,
    counter-clockwise, sampling bilinearly (MXNet's: a rotated normalised grid fed to
    ``BilinearSampler``; differentiable in ``src``). A batch takes one angle or one per image.
    ``zoom_in`` scales so no padding shows, ``zoom_out`` so the whole image stays in view."""
    from .. import ndarray as nd
    from ..ndarray.ndarray import NDArray

    if zoom_in and zoom_out:
        raise MXNetValueError("imrotate: `zoom_in` and `zoom_out` cannot be both True")
    if numpy.dtype(src.dtype) != numpy.float32:
        raise MXNetTypeError(f"imrotate: only float32 images are supported, got {src.dtype}")
    single = src.ndim == 3
    if single and not isinstance(rotation_degrees, numbers.Number):
        raise MXNetTypeError("imrotate: a single image needs a scalar rotation angle")
    if src.ndim not in (3, 4):
        raise MXNetValueError(f"imrotate: images must be CHW or NCHW, got {src.ndim} dims")
    flavour = type(src)
    batch = (src.expand_dims(0) if single else src).as_nd_ndarray()
    if isinstance(rotation_degrees, numbers.Number):
        rotation_degrees = [rotation_degrees] * batch.shape[0]
    angles = rotation_degrees.as_nd_ndarray() if isinstance(rotation_degrees, NDArray) else \
        nd.array(rotation_degrees, ctx=batch.context)
    if angles.shape[0] != batch.shape[0]:
        raise MXNetValueError(f"imrotate: {batch.shape[0]} images but {angles.shape[0]} "
                              f"rotation angles")
    grid = _rotation_grid(nd, angles.as_in_context(batch.context) * (numpy.pi / 180),
                          batch.shape[2], batch.shape[3], zoom_in, zoom_out)
    rotated = nd.BilinearSampler(batch, grid)
    rotated = rotated[0] if single else rotated
    return rotated.as_np_ndarray() if flavour is not type(rotated) else rotated


def _rotation_grid(nd, radians, height, width, zoom_in, zoom_out):
    """(N, 2, H, W) normalised source positions of a rotation about the image centre."""
    radians = radians.reshape((-1, 1, 1))
    hscale, wscale = (height - 1) / 2.0, (width - 1) / 2.0
    rows = nd.array(numpy.arange(height, dtype="float32")[:, None].repeat(width, 1) - hscale)
    cols = nd.array(numpy.arange(width, dtype="float32")[None, :].repeat(height, 0) - wscale)
    rows, cols = rows.as_in_context(radians.context), cols.as_in_context(radians.context)
    cos, sin = nd.cos(radians), nd.sin(radians)
    # NOTE: normalised after rotating, so the aspect ratio is kept (as MXNet does)
    x = (nd.broadcast_mul(cos, cols.expand_dims(0)) - nd.broadcast_mul(sin, rows.expand_dims(0)))
    y = (nd.broadcast_mul(sin, cols.expand_dims(0)) + nd.broadcast_mul(cos, rows.expand_dims(0)))
    grid = nd.concat((x / wscale).expand_dims(1), (y / hscale).expand_dims(1), dim=1)
    if zoom_in or zoom_out:
        grid = nd.broadcast_mul(grid, _zoom(nd, radians, height, width, zoom_out))
    return grid


def _zoom(nd, radians, height, width, zoom_out):
    """Per-image grid scale (N, 1, 1, 1) that fits the rotated corners (MXNet's formula)."""
    rho = float(numpy.hypot(height, width))
    corner = float(numpy.arctan(height / width))
    turn = nd.abs(radians)
    x1, y1 = nd.abs(rho * nd.cos(corner + turn)), nd.abs(rho * nd.sin(corner + turn))
    x2, y2 = nd.abs(rho * nd.cos(corner - turn)), nd.abs(rho * nd.sin(corner - turn))
    max_x, max_y = nd.maximum(x1, x2), nd.maximum(y1, y2)
    if zoom_out:
        scale = nd.maximum(max_x / width, max_y / height)
    else:
        scale = nd.minimum(width / max_x, height / max_y)
    return scale.expand_dims(3)


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """:func:`imrotate` by an angle drawn uniformly from ``angle_limits`` (degrees), one per
    image of a batch."""
    from .. import ndarray as nd

    if src.ndim == 3:
        degrees = numpy.random.uniform(*angle_limits)
    else:
        degrees = nd.array(numpy.random.uniform(*angle_limits, size=src.shape[0]))
    return imrotate(src, degrees, zoom_in=zoom_in, zoom_out=zoom_out)
