"""MXNet's Faster-RCNN / R-FCN ops: ``_contrib_Proposal`` and ``_contrib_MultiProposal`` (RPN
proposals: anchors, box deltas, size filter, stable score sort, greedy NMS) and
``_contrib_PSROIPooling`` (position-sensitive ROI average pooling, with its gradient for the data).

The proposal arithmetic is MXNet's CPU kernel's (``proposal.cc``, ``multi_proposal.cc``) in float32,
quirks included: filtered boxes stay in the NMS with score -1 and grown by half the minimum size,
and the output repeats the kept boxes when fewer than ``rpn_post_nms_top_n`` survive. Proposals
have zero gradients in MXNet, as here.

Example
-------
>>> import mxlab as mx
>>> out = mx.nd.contrib.PSROIPooling(mx.nd.ones((1, 8, 4, 4)), mx.nd.array([[0, 0, 0, 3, 3]]),
...                                  spatial_scale=1.0, output_dim=2, pooled_size=2)
>>> out.shape, float(out.sum().asscalar())
((1, 2, 2, 2), 8.0)
"""
import numpy

from ..base import MXNetValueError
from .attrs import Attr
from .detection import check_float32, float32_only, greedy_nms, register_contrib, zero_grads
from .nn.misc import _scatter_add
from .registry import F, Op, register

__all__ = []

_F32 = numpy.float32


# -- anchors ---------------------------------------------------------------------------------------
def _base_anchors(attrs):
    """MXNet's GenerateAnchors (float32): every ratio, then every scale, around the base box."""
    stride = _F32(attrs["feature_stride"])
    one, half = _F32(1), _F32(0.5)
    w = h = stride - one + one
    x_ctr = y_ctr = half * (w - one)
    anchors = []
    for ratio in attrs["ratios"]:
        for scale in attrs["scales"]:
            ratio, scale = _F32(ratio), _F32(scale)
            size_ratios = numpy.floor(w * h / ratio)
            new_w = numpy.floor(numpy.sqrt(size_ratios) + half) * scale
            new_h = numpy.floor(new_w / scale * ratio + half) * scale
            anchors.append([x_ctr - half * (new_w - one), y_ctr - half * (new_h - one),
                            x_ctr + half * (new_w - one), y_ctr + half * (new_h - one)])
    return numpy.array(anchors, dtype=_F32)


def _shifted_anchors(xp, attrs, height, width):
    """(height, width, A, 4) anchors: base anchors moved by ``feature_stride`` per cell."""
    base = xp.asarray(_base_anchors(attrs))
    stride = attrs["feature_stride"]
    sx = (xp.arange(width) * stride).astype(_F32)[None, :, None]
    sy = (xp.arange(height) * stride).astype(_F32)[:, None, None]
    zero = xp.zeros((height, width, base.shape[0]), dtype=_F32)
    return xp.stack([base[:, 0] + sx + zero, base[:, 1] + sy + zero,
                     base[:, 2] + sx + zero, base[:, 3] + sy + zero], axis=-1)


# -- one image -------------------------------------------------------------------------------------
def _transform(xp, anchors, deltas, attrs, im_height, im_width):
    """Predicted boxes clipped to the image (BBoxTransformInv, or IoUTransformInv)."""
    one, half = _F32(1), _F32(0.5)
    if attrs["iou_loss"]:
        boxes = anchors + deltas
    else:
        width = anchors[:, 2] - anchors[:, 0] + one
        height = anchors[:, 3] - anchors[:, 1] + one
        ctr_x = anchors[:, 0] + half * (width - one)
        ctr_y = anchors[:, 1] + half * (height - one)
        pred_x, pred_y = deltas[:, 0] * width + ctr_x, deltas[:, 1] * height + ctr_y
        pred_w, pred_h = xp.exp(deltas[:, 2]) * width, xp.exp(deltas[:, 3]) * height
        boxes = xp.stack([pred_x - half * (pred_w - one), pred_y - half * (pred_h - one),
                          pred_x + half * (pred_w - one), pred_y + half * (pred_h - one)], axis=1)
    limits = xp.asarray(numpy.array([im_width, im_height, im_width, im_height], dtype=_F32) - one)
    return xp.maximum(xp.minimum(boxes, limits), _F32(0))


def _nms_rows(xp, dets, threshold, limit):
    """MXNet's proposal NMS (areas with +1, overlap > threshold) over sorted rows; kept rows."""
    one = _F32(1)
    area = (dets[:, 2] - dets[:, 0] + one) * (dets[:, 3] - dets[:, 1] + one)
    thresh = _F32(threshold)

    def suppresses(rows, cols):
        box, rest = dets[rows][:, None, :], dets[cols][None]
        w = xp.maximum(_F32(0), xp.minimum(box[..., 2], rest[..., 2])
                       - xp.maximum(box[..., 0], rest[..., 0]) + one)
        h = xp.maximum(_F32(0), xp.minimum(box[..., 3], rest[..., 3])
                       - xp.maximum(box[..., 1], rest[..., 1]) + one)
        inter = w * h
        return inter / (area[rows][:, None] + area[cols][None] - inter) > thresh

    kept, _ = greedy_nms(xp, dets.shape[0], suppresses, limit=limit)
    return kept


def _propose_one(xp, anchors, scores, deltas, info, attrs):
    """Rows (post_nms_top_n, 4) and scores (post_nms_top_n,) for one image."""
    num_anchors, height, width = scores.shape
    fg = scores.transpose(1, 2, 0).reshape(-1).astype(_F32)
    deltas = deltas.reshape(num_anchors, 4, height, width).transpose(2, 3, 0, 1).reshape(-1, 4)
    im_height, im_width, im_scale = (_F32(v) for v in info.tolist())
    stride = attrs["feature_stride"]
    real_height, real_width = int(im_height / _F32(stride)), int(im_width / _F32(stride))
    if real_height > height or real_width > width:
        raise MXNetValueError(f"Proposal: im_info {(float(im_height), float(im_width))} is larger "
                              f"than the feature map ({height}, {width}) times {stride}")
    boxes = _transform(xp, anchors, deltas.astype(_F32), attrs, im_height, im_width)
    rows = xp.arange(height)[:, None, None]
    cols = xp.arange(width)[None, :, None]
    padded = xp.broadcast_to((rows >= real_height) | (cols >= real_width),
                             (height, width, num_anchors)).reshape(-1)
    fg = xp.where(padded, _F32(-1), fg)
    min_size = _F32(attrs["rpn_min_size"]) * im_scale
    one, grow = _F32(1), min_size / _F32(2)
    small = ((boxes[:, 2] - boxes[:, 0] + one) < min_size) | \
        ((boxes[:, 3] - boxes[:, 1] + one) < min_size)
    boxes = xp.where(small[:, None], boxes + xp.asarray(numpy.array([-grow, -grow, grow, grow],
                                                                     dtype=_F32)), boxes)
    fg = xp.where(small, _F32(-1), fg)
    count = fg.shape[0]
    pre = attrs["rpn_pre_nms_top_n"] if attrs["rpn_pre_nms_top_n"] > 0 else count
    pre = min(pre, count)
    post = min(attrs["rpn_post_nms_top_n"], pre)
    order = xp.argsort(-fg, kind="stable")[:pre]
    boxes, fg = boxes[order], fg[order]
    kept = _nms_rows(xp, boxes, attrs["threshold"], post)
    total = attrs["rpn_post_nms_top_n"]
    pick = xp.asarray(numpy.array([kept[i % len(kept)] for i in range(total)], dtype="int64"))
    return boxes[pick], fg[pick]


def _proposals(xp, inputs, attrs, single):
    cls_prob, bbox_pred, im_info = inputs
    check_float32("Proposal", inputs)
    batch, channels, height, width = cls_prob.shape
    if single and batch != 1:
        raise MXNetValueError("Proposal: one image per call (batch 1); use MultiProposal for "
                              f"a batch, got cls_prob {cls_prob.shape}")
    num_anchors = channels // 2
    if num_anchors != len(attrs["ratios"]) * len(attrs["scales"]):
        raise MXNetValueError(f"Proposal: cls_prob has {num_anchors} anchors per cell but ratios "
                              f"x scales give {len(attrs['ratios']) * len(attrs['scales'])}")
    anchors = _shifted_anchors(xp, attrs, height, width).reshape(-1, 4)
    outs, scores = [], []
    for b in range(batch):
        boxes, score = _propose_one(xp, anchors, cls_prob[b, num_anchors:], bbox_pred[b],
                                    im_info[b], attrs)
        index = xp.full((boxes.shape[0], 1), b, dtype=_F32)
        outs.append(xp.concatenate([index, boxes], axis=1))
        scores.append(score[:, None])
    return xp.concatenate(outs).astype(_F32), xp.concatenate(scores).astype(_F32)


def _proposal_shape(single):
    def rule(attrs, in_shapes):
        cls = in_shapes[0]
        if cls is None:
            return [None, None]
        if len(cls) != 4:
            raise MXNetValueError(f"Proposal: cls_prob must be 4-D, got {cls}")
        batch = cls[0]
        bbox = (batch, None if cls[1] is None else cls[1] * 2, cls[2], cls[3])
        rows = attrs["rpn_post_nms_top_n"]
        if not single:
            rows = None if batch is None else batch * rows
        return [cls, bbox, (batch, 3)], [(rows, 5), (rows, 1)]
    return rule


_PROPOSAL_ATTRS = (
    Attr("rpn_pre_nms_top_n", "int", 6000), Attr("rpn_post_nms_top_n", "int", 300),
    Attr("threshold", "float", 0.7), Attr("rpn_min_size", "int", 16),
    Attr("scales", "floats", (4.0, 8.0, 16.0, 32.0)), Attr("ratios", "floats", (0.5, 1.0, 2.0)),
    Attr("feature_stride", "int", 16), Attr("output_score", "bool", False),
    Attr("iou_loss", "bool", False))

for _name, _single in (("Proposal", True), ("MultiProposal", False)):
    register_contrib(
        _name, compute=(lambda single: lambda xp, i, a: _proposals(xp, i, a, single))(_single),
        num_inputs=3, num_outputs=2, input_names=("cls_prob", "bbox_pred", "im_info"),
        output_names=("output", "score"),
        num_visible_outputs=lambda a: 2 if a["output_score"] else 1,
        infer_shape=_proposal_shape(_single), infer_type=float32_only(_name, 2),
        gradient=zero_grads, save_inputs=False, save_outputs=False, attrs=_PROPOSAL_ATTRS,
        doc="Region proposals from RPN scores and box deltas: rows [batch index, x1, y1, x2, y2] "
            "(and their scores with ``output_score``).")


# -- PSROIPooling ----------------------------------------------------------------------------------
def _c_round(xp, x):
    """C's round (halves away from zero)."""
    return xp.sign(x) * xp.floor(xp.abs(x) + 0.5)


def _psroi_bins(xp, data_shape, rois, attrs):
    """Per output cell (R, D, P, P): image index, channel, [start, end) rows and columns."""
    _, channels, height, width = data_shape
    pooled, dim = attrs["pooled_size"], attrs["output_dim"]
    group = attrs["group_size"] or pooled
    if dim * group * group != channels:
        raise MXNetValueError(f"PSROIPooling: data has {channels} channels, output_dim * "
                              f"group_size**2 = {dim * group * group}")
    dtype = rois.dtype
    scale = dtype.type(_F32(attrs["spatial_scale"]))
    start_w = _c_round(xp, rois[:, 1]) * scale
    start_h = _c_round(xp, rois[:, 2]) * scale
    end_w = (_c_round(xp, rois[:, 3]) + 1) * scale
    end_h = (_c_round(xp, rois[:, 4]) + 1) * scale
    least = dtype.type(0.1)
    bin_w = xp.maximum(end_w - start_w, least) / dtype.type(pooled)
    bin_h = xp.maximum(end_h - start_h, least) / dtype.type(pooled)
    steps = xp.arange(pooled, dtype=dtype)

    def edges(bin_size, start, limit):
        lo = xp.floor(steps[None, :] * bin_size[:, None] + start[:, None])
        hi = xp.ceil((steps[None, :] + 1) * bin_size[:, None] + start[:, None])
        return (xp.clip(lo, 0, limit).astype("int64"), xp.clip(hi, 0, limit).astype("int64"))

    hstart, hend = edges(bin_h, start_h, height)
    wstart, wend = edges(bin_w, start_w, width)
    cell = numpy.arange(pooled)
    g = numpy.clip(numpy.floor(cell.astype(_F32) * group / pooled), 0, group - 1).astype("int64")
    channel = (numpy.arange(dim)[:, None, None] * group + g[None, :, None]) * group \
        + g[None, None, :]
    image = rois[:, 0].astype("int64")
    return (image[:, None, None, None], xp.asarray(channel)[None],
            hstart[:, None, :, None], hend[:, None, :, None],
            wstart[:, None, None, :], wend[:, None, None, :])


def _psroi_pooling(xp, inputs, attrs):
    data, rois = inputs
    image, channel, hs, he, ws, we = _psroi_bins(xp, data.shape, rois, attrs)
    batch, channels, height, width = data.shape
    table = xp.zeros((batch, channels, height + 1, width + 1), dtype="float64")
    table[:, :, 1:, 1:] = data.astype("float64").cumsum(axis=2).cumsum(axis=3)
    total = table[image, channel, he, we] - table[image, channel, hs, we] \
        - table[image, channel, he, ws] + table[image, channel, hs, ws]
    area = (he - hs) * (we - ws)
    out = xp.where(area > 0, total / xp.maximum(area, 1), 0)
    return out.astype(data.dtype)


def _psroi_backward(xp, inputs, attrs):
    grad, data, rois = inputs
    image, channel, hs, he, ws, we = _psroi_bins(xp, data.shape, rois, attrs)
    batch, channels, height, width = data.shape
    area = (he - hs) * (we - ws)
    share = xp.where(area > 0, grad.astype("float64") / xp.maximum(area, 1), 0)
    diff = xp.zeros((batch, channels, height + 1, width + 1), dtype="float64")
    shape = share.shape
    for rows, cols, sign in ((hs, ws, 1), (hs, we, -1), (he, ws, -1), (he, we, 1)):
        index = tuple(xp.broadcast_to(i, shape).reshape(-1) for i in (image, channel, rows, cols))
        _scatter_add(xp, diff, index, (sign * share).reshape(-1))
    return diff.cumsum(axis=2).cumsum(axis=3)[:, :, :height, :width].astype(data.dtype)


def _psroi_shape(attrs, in_shapes):
    data, rois = in_shapes
    if data is not None and len(data) != 4:
        raise MXNetValueError(f"PSROIPooling: data must be 4-D, got {data}")
    if rois is not None and (len(rois) != 2 or rois[1] not in (None, 5)):
        raise MXNetValueError(f"PSROIPooling: rois must be (num_rois, 5), got {rois}")
    pooled = attrs["pooled_size"]
    return [None if rois is None else (rois[0], attrs["output_dim"], pooled, pooled)]


def _psroi_type(attrs, dtypes):
    if None not in dtypes[:2] and dtypes[0] != dtypes[1]:
        raise MXNetValueError(f"PSROIPooling: data ({dtypes[0]}) and rois ({dtypes[1]}) must "
                              "have one dtype")
    dtype = dtypes[0] or dtypes[1]
    return [dtype, dtype], [dtype]


_PSROI_ATTRS = (
    Attr("spatial_scale", "float", check=(lambda v: 0 <= v <= 1, "must lie in [0, 1]")),
    Attr("output_dim", "int"), Attr("pooled_size", "int"), Attr("group_size", "int", 0))

register_contrib(
    "PSROIPooling", compute=_psroi_pooling, num_inputs=2, input_names=("data", "rois"),
    infer_shape=_psroi_shape, infer_type=_psroi_type, attrs=_PSROI_ATTRS, save_outputs=False,
    gradient=lambda node, g: [F._backward_contrib_PSROIPooling(g[0], *node.inputs, **node.attrs),
                              None],
    doc="Position-sensitive ROI average pooling (R-FCN): output channel d's cell (i, j) pools "
        "input channel (d * group + gi) * group + gj over the ROI's bin.")
register(Op(name="_backward_contrib_PSROIPooling", compute=_psroi_backward, num_inputs=3,
            input_names=("grad", "data", "rois"), attrs=_PSROI_ATTRS, hidden=True, nd_names=(),
            infer_shape=lambda a, s: [s[1]], infer_type=lambda a, d: [d[1]], ignore_inputs=(1,),
            doc="PSROIPooling's gradient for the data: each cell's gradient spread evenly over its "
                "bin."))
