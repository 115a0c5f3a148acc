"""``Correlation`` (FlowNet's correlation layer), as MXNet's CPU kernel (``correlation.cc``).

Both inputs are zero-padded by ``pad_size`` and laid out channels-last (the hidden outputs
``tmp1``, ``tmp2``, shape (N, H + 2 pad, W + 2 pad, C), as MXNet keeps them for backward). Output
pixel (i, j) anchors a ``kernel_size`` window at ``(y1, x1) = (i, j) * stride1 +
max_displacement`` in the first map (its top-left corner, as the CPU kernel does) and compares it
with the window displaced by ``(dy, dx)`` in the second, one output channel per displacement on a
``(2 r + 1)^2`` grid, ``r = max_displacement // stride2``, ``d = (-r..r) * stride2`` (channel
``(dy / stride2 + r) * (2 r + 1) + dx / stride2 + r``). ``is_multiply`` sums products, else
absolute differences; the sum is divided by ``kernel_size^2 * C``. The output is (N, (2 r + 1)^2,
ceil((H + 2 pad - 2 (max_displacement + kernel_size // 2)) / stride1), ... W ...).

The loops run over kernel offsets and displacements only (bounded by the attributes); each step is
one strided slice of the whole batch. The gradient of the absolute difference takes sign +1 where
the first value is >= the second (MXNet's rule).

Example
-------
>>> import mxlab as mx
>>> a = mx.nd.ones((1, 1, 3, 3))
>>> mx.nd.Correlation(a, a * 2, kernel_size=1, max_displacement=1, pad_size=1).shape
(1, 9, 3, 3)
"""
import math

from ...base import MXNetValueError
from ..attrs import Attr
from ..infer import known
from ..registry import F, Op, register

__all__ = []


def _geometry(attrs, shape):
    """(top height, top width, radius, grid width) for data of ``shape`` (N, C, H, W)."""
    k, md, s1, s2 = (attrs[n] for n in ("kernel_size", "max_displacement", "stride1", "stride2"))
    if k % 2 == 0:
        raise MXNetValueError(f"Correlation: kernel_size must be odd, got {k}")
    border = md + (k - 1) // 2
    padded_h, padded_w = shape[2] + 2 * attrs["pad_size"], shape[3] + 2 * attrs["pad_size"]
    top_h = math.ceil((padded_h - 2 * border) / s1)
    top_w = math.ceil((padded_w - 2 * border) / s1)
    if top_h < 1 or top_w < 1:
        raise MXNetValueError(f"Correlation: cannot be done with these settings: the "
                              f"neighbourhood (max_displacement {md}) and kernel ({k}) do not fit "
                              f"in data of size {tuple(shape[2:])} padded by {attrs['pad_size']}")
    radius = md // s2
    return top_h, top_w, radius, 2 * radius + 1


def _padded(xp, x, attrs, size):
    """x (N, C, H, W) channels-last in a zero (N, size[0], size[1], C) buffer at offset pad."""
    n, c, h, w = x.shape
    pad = attrs["pad_size"]
    out = xp.zeros((n, size[0], size[1], c), dtype=x.dtype)
    out[:, pad:pad + h, pad:pad + w] = x.transpose(0, 2, 3, 1)
    return out


def _extent(attrs, shape, top_h, top_w, radius):
    """Buffer size covering every window read (MXNet's ceil can reach past the padding)."""
    k, md, s1, s2 = (attrs[n] for n in ("kernel_size", "max_displacement", "stride1", "stride2"))
    reach = md + k + radius * s2
    padded = [shape[2] + 2 * attrs["pad_size"], shape[3] + 2 * attrs["pad_size"]]
    return (max(padded[0], (top_h - 1) * s1 + reach), max(padded[1], (top_w - 1) * s1 + reach))


def _windows(attrs, top_h, top_w, radius, grid):
    """(channel, (dy, dx), [(row slice, col slice) of data1, of data2 per kernel offset])."""
    k, md, s1, s2 = (attrs[n] for n in ("kernel_size", "max_displacement", "stride1", "stride2"))
    for channel in range(grid * grid):
        dy, dx = (channel // grid - radius) * s2, (channel % grid - radius) * s2
        offsets = []
        for h in range(k):
            for w in range(k):
                y, x = md + h, md + w
                first = (slice(y, y + s1 * top_h, s1), slice(x, x + s1 * top_w, s1))
                second = (slice(y + dy, y + dy + s1 * top_h, s1),
                          slice(x + dx, x + dx + s1 * top_w, s1))
                offsets.append((first, second))
        yield channel, offsets


def _forward(xp, inputs, attrs):
    a, b = inputs
    _infer(attrs, [a.shape, b.shape])
    top_h, top_w, radius, grid = _geometry(attrs, a.shape)
    size = _extent(attrs, a.shape, top_h, top_w, radius)
    t1, t2 = _padded(xp, a, attrs, size), _padded(xp, b, attrs, size)
    out = xp.zeros((a.shape[0], grid * grid, top_h, top_w), dtype=a.dtype)
    for channel, offsets in _windows(attrs, top_h, top_w, radius, grid):
        total = 0
        for (r1, c1), (r2, c2) in offsets:
            p, q = t1[:, r1, c1], t2[:, r2, c2]
            total = total + ((p * q) if attrs["is_multiply"] else xp.abs(p - q)).sum(axis=-1)
        out[:, channel] = total
    out /= attrs["kernel_size"] ** 2 * a.shape[1]
    hp, wp = a.shape[2] + 2 * attrs["pad_size"], a.shape[3] + 2 * attrs["pad_size"]
    return out, xp.ascontiguousarray(t1[:, :hp, :wp]), xp.ascontiguousarray(t2[:, :hp, :wp])


def _backward(xp, inputs, attrs):
    out_grad, tmp1, tmp2 = inputs
    pad = attrs["pad_size"]
    n, hp, wp, c = tmp1.shape
    shape = (n, c, hp - 2 * pad, wp - 2 * pad)
    top_h, top_w, radius, grid = _geometry(attrs, shape)
    size = _extent(attrs, shape, top_h, top_w, radius)
    t1 = xp.zeros((n,) + size + (c,), dtype=tmp1.dtype)
    t2 = xp.zeros_like(t1)
    t1[:, :hp, :wp], t2[:, :hp, :wp] = tmp1, tmp2
    g1, g2 = xp.zeros_like(t1), xp.zeros_like(t1)
    scale = out_grad.astype(tmp1.dtype) / (attrs["kernel_size"] ** 2 * c)
    for channel, offsets in _windows(attrs, top_h, top_w, radius, grid):
        g = scale[:, channel, :, :, None]
        for (r1, c1), (r2, c2) in offsets:
            p, q = t1[:, r1, c1], t2[:, r2, c2]
            if attrs["is_multiply"]:
                g1[:, r1, c1] += g * q
                g2[:, r2, c2] += g * p
            else:
                sign = xp.where(p >= q, 1, -1).astype(p.dtype)
                g1[:, r1, c1] += g * sign
                g2[:, r2, c2] -= g * sign
    crop = (slice(None), slice(pad, hp - pad), slice(pad, wp - pad))
    return (xp.ascontiguousarray(g1[crop].transpose(0, 3, 1, 2)),
            xp.ascontiguousarray(g2[crop].transpose(0, 3, 1, 2)))


def _infer(attrs, in_shapes):
    a, b = in_shapes
    for s in (a, b):
        if known(s) and len(s) != 4:
            raise MXNetValueError(f"Correlation: data must be 4-D (N, C, H, W), got {tuple(s)}")
    if known(a) and known(b) and tuple(a) != tuple(b):
        raise MXNetValueError(f"Correlation: data1 {tuple(a)} and data2 {tuple(b)} must have one "
                              f"shape")
    shape = a if known(a) else b
    if not known(shape):
        return [a, b], [None, None, None]
    top_h, top_w, _, grid = _geometry(attrs, shape)
    n, c, h, w = shape
    tmp = (n, h + 2 * attrs["pad_size"], w + 2 * attrs["pad_size"], c)
    return [tuple(shape), tuple(shape)], [(n, grid * grid, top_h, top_w), tmp, tmp]


def _non_negative(name):
    return Attr(name, "int", 0, check=(lambda v: v >= 0, "must be non-negative"))


_ATTRS = (Attr("kernel_size", "int", 1, check=(lambda v: v >= 1, "must be at least 1")),
          Attr("max_displacement", "int", 1, check=(lambda v: v >= 0, "must be non-negative")),
          Attr("stride1", "int", 1, check=(lambda v: v >= 1, "must be at least 1")),
          Attr("stride2", "int", 1, check=(lambda v: v >= 1, "must be at least 1")),
          _non_negative("pad_size"),
          Attr("is_multiply", "bool", True))


def _same_dtype(attrs, dtypes):
    dtype = dtypes[0] or dtypes[1]
    return [dtype, dtype], [dtype] * 3


register(Op(
    name="Correlation",
    compute=_forward,
    attrs=_ATTRS,
    num_inputs=2,
    input_names=("data1", "data2"),
    num_outputs=3,
    num_visible_outputs=1,
    output_names=("output", "tmp1", "tmp2"),
    infer_shape=_infer,
    infer_type=_same_dtype,
    gradient=lambda node, g: list(F._backward_Correlation(g[0], node.outputs[1], node.outputs[2],
                                                          **node.attrs)),
    save_inputs=False,
    save_outputs=(1, 2),
    nd_names=("Correlation",),
    doc="FlowNet correlation of two NCHW maps over a grid of displacements.",
))
register(Op(
    name="_backward_Correlation",
    compute=_backward,
    attrs=_ATTRS,
    num_inputs=3,
    input_names=("out_grad", "tmp1", "tmp2"),
    num_outputs=2,
    infer_shape=lambda a, s: (s, [None if s[1] is None else
                                  (s[1][0], s[1][3], s[1][1] - 2 * a["pad_size"],
                                   s[1][2] - 2 * a["pad_size"])] * 2),
    infer_type=lambda a, d: (d, [d[1], d[1]]),
    hidden=True,
    doc="Gradients of Correlation with respect to both inputs.",
))
