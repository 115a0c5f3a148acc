"""Region-of-interest pooling: ``ROIPooling`` (Fast R-CNN), ``contrib.ROIAlign`` (Mask R-CNN,
with R-FCN's position-sensitive variant and Detectron2's ``aligned``) and ``contrib.RROIAlign``
(rotated boxes; forward only, as in MXNet).

Conventions are MXNet's (``roi_pooling.cc``, ``contrib/roi_align.cc``, ``contrib/rroi_align.cc``):
a ROI is ``[batch_index, x1, y1, x2, y2]`` in image coordinates, scaled by ``spatial_scale``.

* ROIPooling rounds the scaled corners (half away from zero), forces a malformed box to 1x1,
  splits it into ``pooled_size`` bins ``[floor(i * bin), ceil((i + 1) * bin))`` clipped to the
  map, and takes each bin's maximum (the first one in row-major order on ties). An empty bin or a
  batch index outside ``[0, N)`` gives 0. The flat argmax is a hidden second output; the data
  gradient scatters the output gradient there. The ROIs get a zero gradient.
* ROIAlign averages ``grid_h x grid_w`` bilinear samples per bin (``sample_ratio``, or
  ``ceil(roi / pooled)`` per ROI when it is not positive); a sample more than one pixel outside
  the map reads 0, one inside the last pixel reads the border. Because the samples of one ROI
  form a grid, the pooling is separable: ``out[r] = Ay[r] @ data[b_r] @ Ax[r].T`` with
  (pooled, H) and (pooled, W) weight matrices, which is how it is computed here (and its data
  gradient is ``Ay.T @ dout @ Ax`` scattered back to the ROI's image). A negative batch index
  gives 0 (MXNet 1.9.1 meant to; it zeroes one element of the whole output instead).
* RROIAlign rotates each sample by the box angle (degrees, counter-clockwise) about its centre
  ``[batch_index, cx, cy, w, h, angle]`` and interpolates the four neighbours (gathered).

ROIs are processed in chunks whose gathered values stay near :data:`CHUNK_ELEMENTS` elements, so
memory is bounded by the chunk, not the ROI count.

Example
-------
>>> import mxlab as mx
>>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
>>> rois = mx.nd.array([[0, 0, 0, 3, 3]])
>>> mx.nd.ROIPooling(x, rois, pooled_size=(2, 2), spatial_scale=1.0).asnumpy().ravel().tolist()
[5.0, 7.0, 13.0, 15.0]
"""
import math

import numpy

from ...base import MXNetValueError
from ..attrs import REQUIRED, Attr
from ..infer import known
from ..registry import F, Op, register

__all__ = ["CHUNK_ELEMENTS"]

CHUNK_ELEMENTS = 1 << 24   # gathered values per chunk of ROIs
_FLT_MAX = float(numpy.finfo(numpy.float32).max)


def _chunks(count, per_roi):
    step = max(1, CHUNK_ELEMENTS // max(1, per_roi))
    return [slice(i, min(i + step, count)) for i in range(0, max(count, 1), step)] \
        if count else []


def _check_pooled(name):
    return (lambda v: len(v) == 2 and all(d > 0 for d in v),
            "must be two positive ints (h, w)")


def _roi_infer(name, columns, channels=lambda attrs, c: c):
    def infer(attrs, in_shapes):
        data, rois = in_shapes
        if known(data) and len(data) != 4:
            raise MXNetValueError(f"{name}: data must be a 4-D (N, C, H, W) array, got "
                                  f"{tuple(data)}")
        if known(rois) and (len(rois) != 2 or rois[1] != columns):
            raise MXNetValueError(f"{name}: rois must be a 2-D (num_rois, {columns}) array, got "
                                  f"{tuple(rois)}")
        if not (known(data) and known(rois)):
            return [data, rois], [None] * (2 if name == "ROIPooling" else 1)
        out = (rois[0], channels(attrs, data[1])) + tuple(attrs["pooled_size"])
        return [data, rois], [out, out] if name == "ROIPooling" else [out]
    return infer


def _same_dtype(name):
    def infer(attrs, dtypes):
        data, rois = dtypes
        dtype = data or rois
        if data and rois and data != rois:
            raise MXNetValueError(f"{name}: data ({data}) and rois ({rois}) must have one dtype")
        outs = [dtype, "int64"] if name == "ROIPooling" else [dtype]
        return [dtype, dtype], outs
    return infer


def _batch_index(xp, rois, batch):
    """(clipped index, valid mask): C's truncating int cast, valid in [0, batch)."""
    index = rois[:, 0].astype(numpy.int64)
    valid = (index >= 0) & (index < batch)
    return xp.clip(index, 0, batch - 1), valid


# -- ROIPooling -----------------------------------------------------------------------------------
def _round_away(xp, x):
    return xp.sign(x) * xp.floor(xp.abs(x) + 0.5)


def _pool_bins(xp, start, length, pooled, size, dtype):
    """Per ROI and bin: clipped [begin, end) (R, pooled) ints, as MXNet's kernel computes them."""
    bin_size = length.astype(dtype) / dtype.type(pooled)
    index = xp.arange(pooled, dtype=dtype)
    begin = xp.floor(index[None] * bin_size[:, None]).astype(numpy.int64)
    end = xp.ceil((index[None] + 1) * bin_size[:, None]).astype(numpy.int64)
    begin = xp.clip(begin + start[:, None], 0, size)
    end = xp.clip(end + start[:, None], 0, size)
    return begin, end


def _roi_pool_forward(xp, inputs, attrs):
    data, rois = inputs
    _roi_infer("ROIPooling", 5)(attrs, [data.shape, rois.shape])
    n, c, height, width = data.shape
    ph, pw = attrs["pooled_size"]
    dtype = data.dtype
    corners = _round_away(xp, rois[:, 1:5].astype(dtype) * dtype.type(attrs["spatial_scale"]))
    corners = corners.astype(numpy.int64)
    x1, y1, x2, y2 = (corners[:, i] for i in range(4))
    hb, he = _pool_bins(xp, y1, xp.maximum(y2 - y1 + 1, 1), ph, height, dtype)
    wb, we = _pool_bins(xp, x1, xp.maximum(x2 - x1 + 1, 1), pw, width, dtype)
    count = rois.shape[0]
    out = xp.zeros((count, c, ph, pw), dtype=dtype)
    argmax = xp.full((count, c, ph, pw), -1, dtype=numpy.int64)
    if count == 0:
        return out, argmax
    kh = max(1, int((he - hb).max()))
    kw = max(1, int((we - wb).max()))
    batch, valid = _batch_index(xp, rois, n)
    # NOTE: one row of C values per pixel, and a last row of -inf that padded window cells read
    pixels = n * height * width
    table = xp.empty((pixels + 1, c), dtype=dtype)
    flat_data = data.transpose(0, 2, 3, 1).reshape(pixels, c)
    table[:pixels] = xp.where(xp.isnan(flat_data), -xp.inf, flat_data)   # NaN never wins (>)
    table[pixels] = -xp.inf
    for part in _chunks(count, ph * kh * pw * kw * c):
        rows = hb[part, :, None] + xp.arange(kh)                        # (R, PH, KH)
        cols = wb[part, :, None] + xp.arange(kw)                        # (R, PW, KW)
        r = rows.shape[0]
        inside = (rows < he[part, :, None])[:, :, None, :, None] & \
            (cols < we[part, :, None])[:, None, :, None, :]             # (R, PH, PW, KH, KW)
        cell = ((batch[part, None, None, None, None] * height + rows[:, :, None, :, None])
                * width + cols[:, None, :, None, :])
        cell = xp.where(inside, cell, pixels).reshape(r, ph, pw, kh * kw)
        values = xp.take(table, cell, axis=0)                           # (R, PH, PW, K, C)
        best = values.argmax(axis=3)                                    # (R, PH, PW, C)
        top = xp.take_along_axis(values, best[:, :, :, None], axis=3)[:, :, :, 0]
        pixel = cell[xp.arange(r)[:, None, None, None], xp.arange(ph)[None, :, None, None],
                     xp.arange(pw)[None, None, :, None], best]          # (R, PH, PW, C)
        found = (top > -_FLT_MAX) & valid[part, None, None, None]
        nonempty = ((he[part] > hb[part])[:, :, None] & (we[part] > wb[part])[:, None, :]) & \
            valid[part, None, None]
        image, spot = pixel // (height * width), pixel % (height * width)
        flat = (image * c + xp.arange(c)) * (height * width) + spot
        value = xp.where(found, top, xp.where(nonempty[..., None], -_FLT_MAX, 0))
        out[part] = value.transpose(0, 3, 1, 2)
        argmax[part] = xp.where(found, flat, -1).transpose(0, 3, 1, 2)
    return out, argmax


def _roi_pool_backward(xp, inputs, attrs):
    out_grad, data, argmax = inputs
    hit = argmax >= 0
    # NOTE: a weighted bincount is the scatter-add (and much faster than NumPy's add.at)
    grad = xp.bincount(xp.where(hit, argmax, 0).ravel(),
                       weights=xp.where(hit, out_grad, 0).ravel(), minlength=data.size)
    return grad.astype(data.dtype).reshape(data.shape)


_POOL_ATTRS = (Attr("pooled_size", "shape", REQUIRED, check=_check_pooled("ROIPooling")),
               Attr("spatial_scale", "float", REQUIRED,
                    check=(lambda v: 0 <= v <= 1, "must be in [0, 1]")))

register(Op(
    name="ROIPooling",
    compute=_roi_pool_forward,
    attrs=_POOL_ATTRS,
    num_inputs=2,
    input_names=("data", "rois"),
    num_outputs=2,
    num_visible_outputs=1,
    output_names=("output", "maxidx"),
    infer_shape=_roi_infer("ROIPooling", 5),
    infer_type=_same_dtype("ROIPooling"),
    gradient=lambda node, g: [F._backward_ROIPooling(g[0], node.inputs[0], node.outputs[1],
                                                        **node.attrs),
                              None],
    save_outputs=(1,),
    nd_names=("ROIPooling",),
    npx_name="roi_pooling",
    doc="Max-pool each region of interest [batch, x1, y1, x2, y2] of NCHW data into "
        "pooled_size bins (Fast R-CNN).",
))
register(Op(
    name="_backward_ROIPooling",
    compute=_roi_pool_backward,
    attrs=_POOL_ATTRS,
    num_inputs=3,
    input_names=("out_grad", "data", "maxidx"),
    infer_shape=lambda a, s: (s, [s[1]]),
    infer_type=lambda a, d: (d, [d[1]]),
    ignore_inputs=(1,),
    hidden=True,
    doc="Gradient of ROIPooling: the output gradient scattered to each bin's argmax.",
))


# -- ROIAlign -------------------------------------------------------------------------------------
def _grid_size(xp, length, pooled, ratio, dtype):
    """Samples per bin along one axis, per ROI (ints)."""
    if ratio > 0:
        return xp.full(length.shape, ratio, dtype=numpy.int64)
    return xp.ceil(length / dtype.type(pooled)).astype(numpy.int64)


def _axis_weights(xp, start, bin_size, grid, gmax, pooled, size, dtype):
    """(R, pooled, size): bilinear weight of each map row (or column) in each bin, averaged over
    the bin's ``grid`` samples (MXNet's ``bilinear_interpolate`` along one axis)."""
    p = xp.arange(pooled, dtype=dtype)[None, :, None]
    i = xp.arange(gmax, dtype=dtype)[None, None, :]
    g = grid.astype(dtype)[:, None, None]
    bin_size = bin_size[:, None, None]
    pos = start[:, None, None] + p * bin_size + (i + dtype.type(0.5)) * bin_size / g
    inside = (pos >= -1) & (pos <= size) & (xp.arange(gmax)[None, None, :] < grid[:, None, None])
    pos = xp.maximum(pos, 0)
    low = pos.astype(numpy.int64)
    edge = low >= size - 1
    low = xp.where(edge, size - 1, low)
    high = xp.where(edge, size - 1, low + 1)
    frac = xp.where(edge, 0, pos - low).astype(dtype)
    frac = xp.where(inside, frac, 0)
    keep = xp.where(inside, 1 - frac, 0)
    cells = xp.arange(size)
    weights = keep[..., None] * (low[..., None] == cells) + \
        frac[..., None] * (high[..., None] == cells)
    return (weights.sum(axis=2) / g).astype(dtype)


def _align_matrices(xp, data, rois, attrs):
    """Per ROI: clipped batch index, valid mask, Ay (R, PH, H), Ax (R, PW, W)."""
    n, _, height, width = data.shape
    ph, pw = attrs["pooled_size"]
    dtype = data.dtype
    box = rois[:, 1:5].astype(dtype) * dtype.type(attrs["spatial_scale"])
    if attrs["aligned"]:
        box = box - dtype.type(0.5)
    x1, y1, x2, y2 = (box[:, i] for i in range(4))
    roi_w, roi_h = x2 - x1, y2 - y1
    if attrs["aligned"]:
        if rois.shape[0] and bool(((roi_w <= 0) | (roi_h <= 0)).any()):
            raise MXNetValueError("ROIAlign: with aligned=True every ROI needs a positive width "
                                  "and height")
    else:
        roi_w, roi_h = xp.maximum(roi_w, 1), xp.maximum(roi_h, 1)
    grid_h = _grid_size(xp, roi_h, ph, attrs["sample_ratio"], dtype)
    grid_w = _grid_size(xp, roi_w, pw, attrs["sample_ratio"], dtype)
    gmax_h = attrs["sample_ratio"] if attrs["sample_ratio"] > 0 else max(1, int(grid_h.max()))
    gmax_w = attrs["sample_ratio"] if attrs["sample_ratio"] > 0 else max(1, int(grid_w.max()))
    ay = _axis_weights(xp, y1, roi_h / dtype.type(ph), grid_h, gmax_h, ph, height, dtype)
    ax = _axis_weights(xp, x1, roi_w / dtype.type(pw), grid_w, gmax_w, pw, width, dtype)
    batch, _ = _batch_index(xp, rois, n)
    valid = rois[:, 0].astype(numpy.int64) >= 0
    ay = ay * valid[:, None, None].astype(dtype)
    return batch, ay, ax


def _align_channels(attrs, channels):
    if not attrs["position_sensitive"]:
        return channels
    ph, pw = attrs["pooled_size"]
    if channels % (ph * pw):
        raise MXNetValueError(f"ROIAlign: with position_sensitive=True the {channels} input "
                              f"channels must divide by pooled_size {ph}*{pw}")
    return channels // (ph * pw)


def _align_forward(xp, inputs, attrs):
    data, rois = inputs
    _roi_infer("ROIAlign", 5, _align_channels)(attrs, [data.shape, rois.shape])
    _, c, height, width = data.shape
    ph, pw = attrs["pooled_size"]
    c_out = _align_channels(attrs, c)
    count = rois.shape[0]
    out = xp.zeros((count, c_out, ph, pw), dtype=data.dtype)
    if count == 0:
        return out
    batch, ay, ax = _align_matrices(xp, data, rois, attrs)
    for part in _chunks(count, c * height * width):
        x = data[batch[part]]
        if attrs["position_sensitive"]:
            x = x.reshape(x.shape[0], c_out, ph, pw, height, width)
            t = xp.einsum("rcpqhw,rqw->rcpqh", x, ax[part])
            out[part] = xp.einsum("rcpqh,rph->rcpq", t, ay[part])
        else:
            out[part] = (ay[part, None] @ x) @ ax[part, None].transpose(0, 1, 3, 2)
    return out


def _align_backward(xp, inputs, attrs):
    out_grad, data, rois = inputs
    _, c, height, width = data.shape
    grad = xp.zeros(data.shape, dtype=data.dtype)
    count = rois.shape[0]
    if count == 0:
        return grad, xp.zeros(rois.shape, dtype=rois.dtype)
    batch, ay, ax = _align_matrices(xp, data, rois, attrs)
    out_grad = out_grad.astype(data.dtype, copy=False)
    for part in _chunks(count, c * height * width):
        dy = out_grad[part]
        if attrs["position_sensitive"]:
            dx = xp.einsum("rcpq,rph,rqw->rcpqhw", dy, ay[part], ax[part])
            dx = dx.reshape(dy.shape[0], c, height, width)
        else:
            dx = (ay[part, None].transpose(0, 1, 3, 2) @ dy) @ ax[part, None]
        # NOTE: summed per image by a one-hot matmul: NumPy's add.at is slow on whole maps
        onehot = (batch[part, None] == xp.arange(grad.shape[0])).astype(grad.dtype)
        grad += (onehot.T @ dx.reshape(dx.shape[0], -1)).reshape(grad.shape)
    return grad, xp.zeros(rois.shape, dtype=rois.dtype)


_ALIGN_ATTRS = (Attr("pooled_size", "shape", REQUIRED, check=_check_pooled("ROIAlign")),
                Attr("spatial_scale", "float", REQUIRED,
                     check=(lambda v: 0 <= v <= 1, "must be in [0, 1]")),
                Attr("sample_ratio", "int", -1),
                Attr("position_sensitive", "bool", False),
                Attr("aligned", "bool", False))

register(Op(
    name="_contrib_ROIAlign",
    compute=_align_forward,
    attrs=_ALIGN_ATTRS,
    num_inputs=2,
    input_names=("data", "rois"),
    infer_shape=_roi_infer("ROIAlign", 5, _align_channels),
    infer_type=_same_dtype("ROIAlign"),
    gradient=lambda node, g: list(F._backward_ROIAlign(g[0], *node.inputs, **node.attrs)),
    save_outputs=False,
    doc="Average bilinear samples of each region of interest [batch, x1, y1, x2, y2] of NCHW "
        "data over pooled_size bins (Mask R-CNN).",
))
register(Op(
    name="_backward_ROIAlign",
    compute=_align_backward,
    attrs=_ALIGN_ATTRS,
    num_inputs=3,
    input_names=("out_grad", "data", "rois"),
    num_outputs=2,
    infer_shape=lambda a, s: (s, [s[1], s[2]]),
    infer_type=lambda a, d: (d, [d[1], d[2]]),
    ignore_inputs=(1,),
    hidden=True,
    doc="Gradient of ROIAlign with respect to data (the ROIs get zeros).",
))


# -- RROIAlign ------------------------------------------------------------------------------------
def _rotated_samples(xp, rois, attrs, dtype, height, width):
    """Sample positions (y, x) of every ROI, bin and grid point, rotated into the map, with the
    per-ROI sample count and a mask of the grid points each ROI uses."""
    ph, pw = attrs["pooled_size"]
    scale = dtype.type(attrs["spatial_scale"])
    box = rois[:, 1:5].astype(dtype) * scale
    cx, cy = box[:, 0], box[:, 1]
    roi_w, roi_h = xp.maximum(box[:, 2], 1), xp.maximum(box[:, 3], 1)
    theta = (rois[:, 5].astype(numpy.float64) * math.pi / 180.0).astype(dtype)
    ratio = attrs["sampling_ratio"]
    grid_h = _grid_size(xp, roi_h, ph, ratio, dtype)
    grid_w = _grid_size(xp, roi_w, pw, ratio, dtype)
    gh = ratio if ratio > 0 else max(1, int(grid_h.max()))
    gw = ratio if ratio > 0 else max(1, int(grid_w.max()))
    bin_h, bin_w = roi_h / dtype.type(ph), roi_w / dtype.type(pw)

    def axis(start, bin_size, grid, pooled, gmax):      # (R, pooled, gmax)
        p = xp.arange(pooled, dtype=dtype)[None, :, None]
        i = xp.arange(gmax, dtype=dtype)[None, None, :]
        b = bin_size[:, None, None]
        return start[:, None, None] + p * b + (i + dtype.type(0.5)) * b / \
            grid.astype(dtype)[:, None, None]

    yy = axis((-roi_h / 2).astype(dtype), bin_h, grid_h, ph, gh)[:, :, None, :, None]
    xx = axis((-roi_w / 2).astype(dtype), bin_w, grid_w, pw, gw)[:, None, :, None, :]
    cos, sin = [f(theta)[:, None, None, None, None] for f in (xp.cos, xp.sin)]
    x = xx * cos + yy * sin + cx[:, None, None, None, None]
    y = yy * cos - xx * sin + cy[:, None, None, None, None]   # (R, PH, PW, GH, GW)
    used = (xp.arange(gh)[None, :, None] < grid_h[:, None, None]) & \
        (xp.arange(gw)[None, None, :] < grid_w[:, None, None])
    return y, x, (grid_h * grid_w).astype(dtype), used[:, None, None]


def _clamp(xp, pos, size):
    pos = xp.maximum(pos, 0)
    low = pos.astype(numpy.int64)
    edge = low >= size - 1
    low = xp.where(edge, size - 1, low)
    return low, xp.where(edge, size - 1, low + 1), xp.where(edge, 0, pos - low)


def _rroi_forward(xp, inputs, attrs):
    data, rois = inputs
    _roi_infer("RROIAlign", 6)(attrs, [data.shape, rois.shape])
    n, c, height, width = data.shape
    ph, pw = attrs["pooled_size"]
    dtype = data.dtype
    count = rois.shape[0]
    out = xp.zeros((count, c, ph, pw), dtype=dtype)
    if count == 0:
        return out
    y, x, samples, used = _rotated_samples(xp, rois, attrs, dtype, height, width)
    inside = used & (y >= -1) & (y <= height) & (x >= -1) & (x <= width)
    y_low, y_high, ly = _clamp(xp, y, height)
    x_low, x_high, lx = _clamp(xp, x, width)
    ly, lx = ly.astype(dtype), lx.astype(dtype)
    hy, hx = 1 - ly, 1 - lx
    batch, _ = _batch_index(xp, rois, n)
    table = data.transpose(0, 2, 3, 1)                                  # (N, H, W, C)
    corners = ((y_low, x_low, hy * hx), (y_low, x_high, hy * lx),
               (y_high, x_low, ly * hx), (y_high, x_high, ly * lx))
    per_roi = ph * pw * y.shape[3] * y.shape[4] * c
    for part in _chunks(count, per_roi):
        b = batch[part, None, None, None, None]
        total = 0
        for rows, cols, weight in corners:
            w = xp.where(inside[part], weight[part], 0)
            total = total + (table[b, rows[part], cols[part]] * w[..., None]).sum(axis=(3, 4))
        out[part] = (total / samples[part, None, None, None]).transpose(0, 3, 1, 2)
    return out


register(Op(
    name="_contrib_RROIAlign",
    compute=_rroi_forward,
    attrs=(Attr("pooled_size", "shape", REQUIRED, check=_check_pooled("RROIAlign")),
           Attr("spatial_scale", "float", REQUIRED,
                check=(lambda v: 0 <= v <= 1, "must be in [0, 1]")),
           Attr("sampling_ratio", "int", -1)),
    num_inputs=2,
    input_names=("data", "rois"),
    infer_shape=_roi_infer("RROIAlign", 6),
    infer_type=_same_dtype("RROIAlign"),
    doc="ROIAlign over rotated regions [batch, cx, cy, w, h, angle in degrees] (forward only, "
        "as MXNet's).",
))
