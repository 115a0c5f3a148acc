"""NumPy kernels for image arrays (HWC): resize with OpenCV's sampling, and colour adjustments
with MXNet's coefficients. They take and return NumPy arrays; callers wrap them."""
import numpy

from ..base import MXNetValueError

# MXNet's (and ITU-R 601's) luma weights, used by brightness-free colour jitter and grey.
LUMA = numpy.array([0.299, 0.587, 0.114], dtype=numpy.float32)
# ImageNet's RGB principal components (AlexNet's PCA lighting noise), as MXNet uses them.
EIGVAL = numpy.array([55.46, 4.794, 1.148])
EIGVEC = numpy.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                      [-0.5836, -0.6948, 0.4203]])


def _source_coords(out_size, in_size):
    """OpenCV's half-pixel sample positions: the two neighbours and the weight of the second."""
    pos = (numpy.arange(out_size, dtype=numpy.float64) + 0.5) * (in_size / out_size) - 0.5
    pos = numpy.clip(pos, 0, in_size - 1)
    low = numpy.floor(pos).astype(numpy.int64)
    high = numpy.minimum(low + 1, in_size - 1)
    return low, high, (pos - low)


def _area_weights(out_size, in_size):
    """Row i averages source cells [i*s, (i+1)*s) weighted by overlap (OpenCV's INTER_AREA)."""
    scale = in_size / out_size
    starts = numpy.arange(out_size)[:, None] * scale
    cells = numpy.arange(in_size)[None, :]
    overlap = numpy.clip(numpy.minimum(starts + scale, cells + 1) - numpy.maximum(starts, cells),
                         0, None)
    return (overlap / scale).astype(numpy.float32)


def _cubic_weights(out_size, in_size, a=-0.75):
    """OpenCV's bicubic (a = -0.75, half-pixel centres, replicated border) as a matrix."""
    pos = (numpy.arange(out_size) + 0.5) * (in_size / out_size) - 0.5
    base = numpy.floor(pos).astype(numpy.int64)
    weights = numpy.zeros((out_size, in_size), dtype=numpy.float64)
    for tap in range(-1, 3):
        dist = numpy.abs(pos - (base + tap))
        w = numpy.where(dist <= 1, ((a + 2) * dist - (a + 3)) * dist * dist + 1,
                        ((a * dist - 5 * a) * dist + 8 * a) * dist - 4 * a)
        numpy.add.at(weights, (numpy.arange(out_size), numpy.clip(base + tap, 0, in_size - 1)),
                     w)
    return weights.astype(numpy.float32)


def _lanczos_weights(out_size, in_size):
    """OpenCV's Lanczos-4 (8 taps, weights normalised to sum 1, replicated border)."""
    pos = (numpy.arange(out_size) + 0.5) * (in_size / out_size) - 0.5
    base = numpy.floor(pos).astype(numpy.int64)
    taps = numpy.arange(-3, 5)
    dist = pos[:, None] - (base[:, None] + taps)
    w = numpy.sinc(dist) * numpy.sinc(dist / 4)
    w /= w.sum(axis=1, keepdims=True)
    weights = numpy.zeros((out_size, in_size), dtype=numpy.float64)
    rows = numpy.repeat(numpy.arange(out_size), len(taps))
    numpy.add.at(weights, (rows, numpy.clip(base[:, None] + taps, 0, in_size - 1).ravel()),
                 w.ravel())
    return weights.astype(numpy.float32)


def _area_zoom_weights(out_size, in_size):
    """OpenCV's INTER_AREA when enlarging: linear between two cells with a clipped fraction."""
    scale, inv = in_size / out_size, out_size / in_size
    dst = numpy.arange(out_size)
    src = numpy.floor(dst * scale).astype(numpy.int64)
    frac = (dst + 1) - (src + 1) * inv
    frac = numpy.where(frac <= 0, 0.0, frac - numpy.floor(frac))
    weights = numpy.zeros((out_size, in_size), dtype=numpy.float64)
    numpy.add.at(weights, (dst, numpy.clip(src, 0, in_size - 1)), 1 - frac)
    numpy.add.at(weights, (dst, numpy.clip(src + 1, 0, in_size - 1)), frac)
    return weights.astype(numpy.float32)


_WEIGHTS = {2: _cubic_weights, 4: _lanczos_weights}


def _separable(img, wy, wx):
    out = numpy.einsum("ai,ij...,bj->ab...", wy, img.astype(numpy.float32), wx)
    return _like(out, img.dtype)


def resize(img, width, height, interp=1):
    """``img`` (H, W[, C]) resized to (height, width) with OpenCV's codes: 0 nearest,
    1 bilinear, 2 bicubic, 3 area, 4 Lanczos.
    Integer images are rounded back to their dtype."""
    if interp not in (0, 1, 2, 3, 4):
        raise MXNetValueError(f"Unknown interp method {interp}: use 0 nearest, 1 bilinear, "
                              f"2 bicubic, 3 area or 4 Lanczos")
    if interp == 3:
        shrink = height <= img.shape[0] and width <= img.shape[1]
        make = _area_weights if shrink else _area_zoom_weights
        return _separable(img, make(height, img.shape[0]), make(width, img.shape[1]))
    if interp in _WEIGHTS:
        make = _WEIGHTS[interp]
        return _separable(img, make(height, img.shape[0]), make(width, img.shape[1]))
    if interp == 0:
        rows = numpy.minimum((numpy.arange(height) * img.shape[0] / height).astype(int),
                             img.shape[0] - 1)
        cols = numpy.minimum((numpy.arange(width) * img.shape[1] / width).astype(int),
                             img.shape[1] - 1)
        return img[rows][:, cols]
    y0, y1, wy = _source_coords(height, img.shape[0])
    x0, x1, wx = _source_coords(width, img.shape[1])
    data = img.astype(numpy.float32)
    wy = wy.astype(numpy.float32).reshape((-1, 1) + (1,) * (img.ndim - 2))
    wx = wx.astype(numpy.float32).reshape((1, -1) + (1,) * (img.ndim - 2))
    top = data[y0][:, x0] * (1 - wx) + data[y0][:, x1] * wx
    bottom = data[y1][:, x0] * (1 - wx) + data[y1][:, x1] * wx
    out = top * (1 - wy) + bottom * wy
    return _like(out, img.dtype)


def _like(values, dtype):
    if numpy.issubdtype(dtype, numpy.integer):
        info = numpy.iinfo(dtype)
        return numpy.clip(numpy.rint(values), info.min, info.max).astype(dtype)
    return values.astype(dtype)


def grey(img):
    """Luma of an RGB image, keeping a channel axis of 1."""
    return (img.astype(numpy.float32) @ LUMA)[..., None]


def blend(img, other, alpha):
    """``alpha * img + (1 - alpha) * other`` in float32 (MXNet's jitter formula)."""
    return img.astype(numpy.float32) * alpha + other * (1 - alpha)


def adjust_brightness(img, alpha):
    return img.astype(numpy.float32) * alpha


def adjust_contrast(img, alpha):
    return blend(img, grey(img).mean(), alpha)


def adjust_saturation(img, alpha):
    return blend(img, grey(img), alpha)


def adjust_hue(img, alpha):
    """Rotate hue by ``alpha`` (fraction of a turn) in YIQ space, as MXNet's HueJitterAug."""
    u, w = numpy.cos(alpha * numpy.pi), numpy.sin(alpha * numpy.pi)
    bt = numpy.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]])
    tyiq = numpy.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321],
                        [0.211, -0.523, 0.311]])
    ityiq = numpy.array([[1.0, 0.956, 0.621], [1.0, -0.272, -0.647], [1.0, -1.107, 1.705]])
    t = (ityiq @ bt @ tyiq).T.astype(numpy.float32)
    return img.astype(numpy.float32) @ t


def scale_down(src_size, size):
    """Shrink ``size`` (w, h) to fit into ``src_size`` keeping its aspect ratio."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)
