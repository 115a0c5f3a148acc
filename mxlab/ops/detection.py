"""MXNet's SSD ops: ``_contrib_MultiBoxPrior`` (anchors), ``_contrib_MultiBoxTarget`` (training
targets) and ``_contrib_MultiBoxDetection`` (decode + NMS), after MXNet's
``src/operator/contrib/multibox_*``.

The arithmetic follows MXNet's CPU kernels: anchors and targets in float32 as the C++ ``float``
locals, decoding in the input dtype, the same stable sorts and tie rules (first maximum wins), and
MXNet's quirks (MultiBoxDetection keeps the rows past ``nms_topk`` in place with id -1). None has
a gradient in MXNet: their backward writes zeros, as the rules here do.

Example
-------
>>> import mxlab as mx
>>> mx.nd.contrib.MultiBoxPrior(mx.nd.zeros((1, 1, 1, 2)), sizes=[0.5]).asnumpy()
array([[[0.125, 0.25 , 0.375, 0.75 ],
        [0.625, 0.25 , 0.875, 0.75 ]]], dtype=float32)
"""
import numpy

from ..base import MXNetTypeError, MXNetValueError
from .attrs import Attr
from .registry import Op, register

__all__ = ["float32_only", "greedy_nms", "register_contrib"]

_F32 = numpy.float32


def register_contrib(name, npx_name=None, **kwargs):
    """Register ``_contrib_<name>`` (also ``_npx_<npx_name>`` when given)."""
    register(Op(name=f"_contrib_{name}", aliases=(f"_npx_{npx_name}",) if npx_name else (),
                npx_name=npx_name, **kwargs))


def float32_only(name, count):
    """MXNet's legacy-operator type rule (``OperatorProperty::InferType``): every input and
    output float32, anything else refused; also checked by the kernels (``check_float32``)."""
    def rule(attrs, dtypes):
        for dtype in dtypes:
            if dtype not in (None, "float32"):
                raise MXNetTypeError(f"{name}: unsupported data type {dtype} (float32 only)")
        return ["float32"] * len(dtypes), ["float32"] * count
    return rule


def check_float32(name, inputs):
    for x in inputs:
        if x.dtype != _F32:
            raise MXNetTypeError(f"{name}: unsupported data type {x.dtype} (float32 only)")


def zero_grads(node, g):
    """MXNet's backward of these ops writes zeros: no gradient reaches any input (their gradient
    buffers read 0, as MXNet's)."""
    return [None] * node.op.get_num_inputs(node.attrs)


def _host(array):
    """A NumPy copy of a (small) NumPy or CuPy array."""
    return numpy.asarray(array.get() if hasattr(array, "get") else array)


def greedy_nms(xp, count, suppresses, limit=None, block=256):
    """Greedy NMS over ``count`` candidates already in priority order.

    ``suppresses(rows, cols)`` (two ``xp`` index arrays) gives the boolean (len(rows), len(cols))
    matrix of whether candidate ``rows[k]`` would suppress candidate ``cols[j]``. Candidates are
    walked in blocks: a block's own pairs are resolved on the host (one block-sized matrix), then
    the block's survivors suppress the later candidates still alive in one vectorised step. Stops
    after ``limit`` kept. Returns the kept indices (a host list) and the alive mask (``xp``)."""
    alive = numpy.ones(count, dtype=bool)
    kept = []
    for start in range(0, count, block):
        stop = min(start + block, count)
        local = alive[start:stop]
        if not local.any():
            continue
        index = xp.arange(start, stop)
        pairs = _host(suppresses(index, index))
        survivors = []
        for i in range(stop - start):
            if not local[i]:
                continue
            survivors.append(start + i)
            kept.append(start + i)
            if limit is not None and len(kept) >= limit:
                return kept, xp.asarray(alive)
            local[i + 1:] &= ~pairs[i, i + 1:]
        rest = numpy.nonzero(alive[stop:])[0] + stop
        if rest.size and survivors:
            hit = suppresses(xp.asarray(numpy.array(survivors, dtype="int64")), xp.asarray(rest))
            alive[rest] &= ~_host(hit.any(axis=0))
    return kept, xp.asarray(alive)


def _shape_error(op, message):
    raise MXNetValueError(f"{op}: {message}")


# -- MultiBoxPrior ---------------------------------------------------------------------------------
def _prior_halves(attrs, height, width):
    """Half widths and heights of the anchors at one location (float32, MXNet's order: every size
    with the first ratio, then the first size with every other ratio)."""
    sizes, ratios = [_F32(s) for s in attrs["sizes"]], [_F32(r) for r in attrs["ratios"]]
    pairs = [(s, numpy.sqrt(ratios[0])) for s in sizes]
    pairs += [(sizes[0], numpy.sqrt(r)) for r in ratios[1:]]
    h, w, two = _F32(height), _F32(width), _F32(2)
    half_w = numpy.array([s * h / w * r / two for s, r in pairs], dtype=_F32)
    half_h = numpy.array([s / r / two for s, r in pairs], dtype=_F32)
    return half_w, half_h


def _multibox_prior(xp, inputs, attrs):
    data = inputs[0]
    height, width = data.shape[2], data.shape[3]
    step_y, step_x = (_F32(s) for s in attrs["steps"])
    if step_y <= 0 or step_x <= 0:
        step_y, step_x = _F32(1) / _F32(height), _F32(1) / _F32(width)
    off_y, off_x = (_F32(o) for o in attrs["offsets"])
    center_y = (xp.arange(height, dtype=_F32) + off_y) * step_y
    center_x = (xp.arange(width, dtype=_F32) + off_x) * step_x
    half_w, half_h = (xp.asarray(v) for v in _prior_halves(attrs, height, width))
    cx = center_x[None, :, None]
    cy = center_y[:, None, None]
    shape = (height, width, half_w.shape[0])
    boxes = xp.stack([xp.broadcast_to(cx - half_w, shape), xp.broadcast_to(cy - half_h, shape),
                      xp.broadcast_to(cx + half_w, shape), xp.broadcast_to(cy + half_h, shape)],
                     axis=-1)
    if attrs["clip"]:
        boxes = xp.clip(boxes, 0, 1)
    return boxes.reshape(1, -1, 4).astype(data.dtype)


def _prior_shape(attrs, in_shapes):
    shape = in_shapes[0]
    if shape is None or len(shape) < 4 or None in shape[2:4]:
        if shape is not None and len(shape) < 4:
            _shape_error("MultiBoxPrior", f"data must be 4-D (batch, channel, y, x), got {shape}")
        return [None]
    count = len(attrs["sizes"]) + len(attrs["ratios"]) - 1
    return [(1, shape[2] * shape[3] * count, 4)]


def _check_prior(attrs):
    if len(attrs["steps"]) != 2 or len(attrs["offsets"]) != 2:
        raise MXNetValueError("MultiBoxPrior: steps and offsets take two values (y, x)")


def _multibox_prior_checked(xp, inputs, attrs):
    _check_prior(attrs)
    check_float32("MultiBoxPrior", inputs)
    if inputs[0].ndim < 4:
        _shape_error("MultiBoxPrior", f"data must be 4-D (batch, channel, y, x), got "
                     f"{inputs[0].shape}")
    return _multibox_prior(xp, inputs, attrs)


register_contrib(
    "MultiBoxPrior", npx_name="multibox_prior", compute=_multibox_prior_checked,
    infer_shape=_prior_shape, infer_type=float32_only("MultiBoxPrior", 1), gradient=zero_grads,
    save_inputs=False, save_outputs=False,
    attrs=(Attr("sizes", "floats", (1.0,), check=(len, "must not be empty")),
           Attr("ratios", "floats", (1.0,), check=(len, "must not be empty")),
           Attr("clip", "bool", False), Attr("steps", "floats", (-1.0, -1.0)),
           Attr("offsets", "floats", (0.5, 0.5),
                check=(lambda v: all(0 <= o <= 1 for o in v), "must lie in [0, 1]"))),
    doc="Anchor boxes (1, height * width * (sizes + ratios - 1), 4), corners in [0, 1] units.")


# -- MultiBoxTarget --------------------------------------------------------------------------------
def _pair_iou(xp, anchors, gts):
    """IoU of every anchor (A, 4) with every ground truth (G, 4), MXNet's target formula (0 where
    the union is 0), in the anchors' dtype."""
    a, g = anchors[:, None, :], gts[None, :, :]
    zero = xp.zeros((), dtype=anchors.dtype)
    inter = xp.maximum(zero, xp.minimum(a[..., 2], g[..., 2]) - xp.maximum(a[..., 0], g[..., 0])) \
        * xp.maximum(zero, xp.minimum(a[..., 3], g[..., 3]) - xp.maximum(a[..., 1], g[..., 1]))
    union = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1]) \
        + (g[..., 2] - g[..., 0]) * (g[..., 3] - g[..., 1]) - inter
    return xp.where(union == 0, zero, inter / xp.where(union == 0, 1, union))


def _num_valid(xp, labels):
    """Ground truths before the first row whose class is -1 (MXNet stops there)."""
    invalid = labels[:, 0] == -1
    first = int(xp.argmax(xp.concatenate([invalid, xp.ones(1, dtype=bool)])))
    return first


def _match_anchors(xp, ious, threshold):
    """MXNet's matching: greedy best (anchor, gt) pairs until every gt has one, then any anchor
    whose best IoU passes ``threshold``. Returns (positive mask, matched gt per anchor)."""
    count, num_gt = ious.shape
    positive = xp.zeros(count, dtype=bool)
    match = xp.full(count, -1, dtype="int64")
    work = ious.astype(_F32)
    for _ in range(num_gt):
        flat = int(xp.argmax(work))
        j, k = divmod(flat, num_gt)
        if not float(work[j, k]) > float(_F32(1e-6)):
            break
        positive[j], match[j] = True, k
        work[j, :] = -1
        work[:, k] = -1
    if threshold > 0:
        best = xp.argmax(ious, axis=1)
        best_iou = ious.max(axis=1).astype(_F32)
        newly = ~positive & (best_iou > _F32(threshold))
        match = xp.where(newly, best, match)
        positive |= newly
    return positive, match


def _hard_negatives(xp, ious, positive, preds, attrs):
    """Negative mining: the non-positive anchors under ``negative_mining_thresh`` with the lowest
    background probability, ``ratio`` per positive (stable order on ties)."""
    count = positive.shape[0]
    num_pos = int(positive.sum())
    num_neg = min(int(num_pos * _F32(attrs["negative_mining_ratio"])), count - num_pos)
    negative = xp.zeros(count, dtype=bool)
    if num_neg <= 0:
        return negative
    best_iou = ious.max(axis=1).astype(_F32)
    candidate = ~positive & (best_iou < _F32(attrs["negative_mining_thresh"]))
    index = xp.nonzero(candidate)[0]
    if index.shape[0] < num_neg:
        raise MXNetValueError(f"MultiBoxTarget: {num_neg} negatives wanted but only "
                              f"{index.shape[0]} anchors qualify")
    shifted = preds - preds.max(axis=0, keepdims=True)
    prob = xp.exp(shifted[0]) / xp.exp(shifted).sum(axis=0)
    order = xp.argsort(prob[index], kind="stable")
    negative[index[order[:num_neg]]] = True
    return negative


def _loc_targets(xp, anchors, gts, variances):
    """MXNet's AssignLocTargets (float32): centre offsets over anchor size, log size ratios."""
    a, g = anchors.astype(_F32), gts.astype(_F32)
    aw, ah = a[:, 2] - a[:, 0], a[:, 3] - a[:, 1]
    gw, gh = g[:, 2] - g[:, 0], g[:, 3] - g[:, 1]
    half = _F32(0.5)
    ax, ay = (a[:, 0] + a[:, 2]) * half, (a[:, 1] + a[:, 3]) * half
    gx, gy = (g[:, 0] + g[:, 2]) * half, (g[:, 1] + g[:, 3]) * half
    vx, vy, vw, vh = (_F32(v) for v in variances)
    return xp.stack([(gx - ax) / aw / vx, (gy - ay) / ah / vy,
                     xp.log(gw / aw) / vw, xp.log(gh / ah) / vh], axis=-1)


def _multibox_target(xp, inputs, attrs):
    anchors, labels, cls_preds = inputs
    check_float32("MultiBoxTarget", inputs)
    if len(attrs["variances"]) != 4:
        raise MXNetValueError("MultiBoxTarget: variances takes 4 values")
    anchors = anchors.reshape(-1, 4)
    batch, count, dtype = labels.shape[0], anchors.shape[0], anchors.dtype
    loc_target = xp.zeros((batch, count, 4), dtype=dtype)
    loc_mask = xp.zeros((batch, count, 4), dtype=dtype)
    cls_target = xp.full((batch, count), attrs["ignore_label"], dtype=dtype)
    for b in range(batch):
        num_gt = _num_valid(xp, labels[b])
        if num_gt == 0:
            continue
        gts = labels[b, :num_gt]
        ious = _pair_iou(xp, anchors, gts[:, 1:5].astype(dtype))
        positive, match = _match_anchors(xp, ious, attrs["overlap_threshold"])
        if attrs["negative_mining_ratio"] > 0:
            if not attrs["negative_mining_thresh"] > 0:
                raise MXNetValueError("MultiBoxTarget: negative_mining_thresh must be > 0")
            negative = _hard_negatives(xp, ious, positive, cls_preds[b], attrs)
        else:
            negative = ~positive
        pos = xp.nonzero(positive)[0]
        matched = gts[match[pos]]
        cls_target[b, pos] = matched[:, 0] + 1
        cls_target[b][negative] = 0
        loc_mask[b, pos] = 1
        loc_target[b, pos] = _loc_targets(xp, anchors[pos], matched[:, 1:5],
                                          attrs["variances"]).astype(dtype)
    return loc_target.reshape(batch, -1), loc_mask.reshape(batch, -1), cls_target


def _target_shape(attrs, in_shapes):
    anchor, label, pred = in_shapes
    if anchor is not None and (len(anchor) != 3 or anchor[2] not in (4, None)):
        _shape_error("MultiBoxTarget", f"anchor must be (1, num_anchors, 4), got {anchor}")
    if label is not None and len(label) != 3:
        _shape_error("MultiBoxTarget", f"label must be (batch, num_labels, width), got {label}")
    if label is not None and label[2] is not None and label[2] < 5:
        _shape_error("MultiBoxTarget", f"label width must be >= 5, got {label}")
    if pred is not None and len(pred) != 3:
        _shape_error("MultiBoxTarget", f"cls_pred must be (batch, classes, anchors), got {pred}")
    if anchor is None or label is None:
        return [None, None, None]
    count = anchor[1]
    if pred is not None and None not in (pred[2], count) and pred[2] != count:
        _shape_error("MultiBoxTarget", f"cls_pred {pred} has not the {count} anchors")
    loc = (label[0], None if count is None else count * 4)
    return [loc, loc, (label[0], count)]


register_contrib(
    "MultiBoxTarget", npx_name="multibox_target", compute=_multibox_target, num_inputs=3,
    num_outputs=3, input_names=("anchor", "label", "cls_pred"),
    output_names=("loc_target", "loc_mask", "cls_target"), infer_shape=_target_shape,
    infer_type=float32_only("MultiBoxTarget", 3), gradient=zero_grads, save_inputs=False,
    save_outputs=False,
    attrs=(Attr("overlap_threshold", "float", 0.5), Attr("ignore_label", "float", -1.0),
           Attr("negative_mining_ratio", "float", -1.0),
           Attr("negative_mining_thresh", "float", 0.5),
           Attr("minimum_negative_samples", "int", 0),
           Attr("variances", "floats", (0.1, 0.1, 0.2, 0.2))),
    doc="SSD training targets: box offsets, their mask and class targets per anchor.")


# -- MultiBoxDetection -----------------------------------------------------------------------------
def _decode(xp, anchors, loc, clip, variances):
    """MXNet's TransformLocations in the input dtype: centre offsets and log sizes to corners."""
    dtype = loc.dtype
    vx, vy, vw, vh = (dtype.type(_F32(v)) for v in variances)
    aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    two = dtype.type(2)
    ax, ay = (anchors[:, 0] + anchors[:, 2]) / two, (anchors[:, 1] + anchors[:, 3]) / two
    ox, oy = loc[:, 0] * vx * aw + ax, loc[:, 1] * vy * ah + ay
    ow, oh = xp.exp(loc[:, 2] * vw) * aw / two, xp.exp(loc[:, 3] * vh) * ah / two
    boxes = xp.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1)
    return xp.clip(boxes, 0, 1) if clip else boxes


def _overlaps(xp, boxes, others):
    """MXNet's CalculateOverlap of every box (k, 4) with every other (m, 4): (k, m), 0 where the
    union is not positive."""
    a, b = boxes[:, None, :], others[None, :, :]
    zero = xp.zeros((), dtype=others.dtype)
    w = xp.maximum(zero, xp.minimum(a[..., 2], b[..., 2]) - xp.maximum(a[..., 0], b[..., 0]))
    h = xp.maximum(zero, xp.minimum(a[..., 3], b[..., 3]) - xp.maximum(a[..., 1], b[..., 1]))
    inter = w * h
    union = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1]) \
        + (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1]) - inter
    return xp.where(union <= 0, zero, inter / xp.where(union <= 0, 1, union))


def _detect_one(xp, prob, loc, anchors, attrs):
    """One image: (num_anchors, 6) rows [id, score, xmin, ymin, xmax, ymax], -1 padded."""
    count, dtype = prob.shape[1], prob.dtype
    out = xp.full((count, 6), -1, dtype=dtype)
    if prob.shape[0] > 1:
        score = prob[1:].max(axis=0)
        cls = xp.argmax(prob[1:], axis=0).astype(dtype)
        # NOTE: MXNet starts from score -1, so a best score <= -1 leaves the anchor background.
        weak = (score < dtype.type(_F32(attrs["threshold"]))) | ~(score > -1)
        cls = xp.where(weak, -1, cls)
    else:
        score, cls = xp.full(count, -1, dtype=dtype), xp.full(count, -1, dtype=dtype)
    boxes = _decode(xp, anchors, loc.reshape(-1, 4), attrs["clip"], attrs["variances"])
    rows = xp.concatenate([cls[:, None], score[:, None], boxes], axis=1)[cls >= 0]
    valid = rows.shape[0]
    out[:valid] = rows
    nms = attrs["nms_threshold"]
    if valid < 1 or nms <= 0 or nms > 1:
        return out
    order = xp.argsort(-rows[:, 1], kind="stable")
    keep = valid
    if 0 < attrs["nms_topk"] < valid:
        keep = attrs["nms_topk"]
        out[keep:valid, 0] = -1
    ranked = rows[order[:keep]]
    thresh, force = dtype.type(_F32(nms)), attrs["force_suppress"]

    if force:
        groups = [xp.arange(keep)]
    else:   # NOTE: only boxes of one class suppress each other: NMS each class on its own
        ids = ranked[:, 0]
        groups = [xp.nonzero(ids == c)[0] for c in numpy.unique(_host(ids)).tolist()]
    alive = xp.zeros(keep, dtype=bool)
    for group in groups:
        boxes = ranked[group, 2:]

        def suppresses(rows, cols):
            return _overlaps(xp, boxes[rows], boxes[cols]) >= thresh

        alive[group] = greedy_nms(xp, group.shape[0], suppresses)[1]
    ranked[:, 0] = xp.where(alive, ranked[:, 0], -1)
    out[:keep] = ranked
    return out


def _multibox_detection(xp, inputs, attrs):
    cls_prob, loc_pred, anchors = inputs
    check_float32("MultiBoxDetection", inputs)
    if len(attrs["variances"]) != 4:
        raise MXNetValueError("MultiBoxDetection: variances takes 4 values")
    anchors = anchors.reshape(-1, 4).astype(cls_prob.dtype)
    if cls_prob.ndim != 3 or anchors.shape[0] != cls_prob.shape[2] or \
            loc_pred.shape != (cls_prob.shape[0], 4 * cls_prob.shape[2]):
        _shape_error("MultiBoxDetection", f"cls_prob {cls_prob.shape}, loc_pred {loc_pred.shape} "
                     f"and {anchors.shape[0]} anchors disagree")
    loc_pred = loc_pred.astype(cls_prob.dtype)
    return xp.stack([_detect_one(xp, cls_prob[b], loc_pred[b], anchors, attrs)
                     for b in range(cls_prob.shape[0])])


def _detection_shape(attrs, in_shapes):
    prob, loc, anchor = in_shapes
    for name, shape, ndim in (("cls_prob", prob, 3), ("loc_pred", loc, 2), ("anchor", anchor, 3)):
        if shape is not None and len(shape) != ndim:
            _shape_error("MultiBoxDetection", f"{name} must be {ndim}-D, got {shape}")
    if prob is None and anchor is None:
        return [None]
    count = anchor[1] if anchor is not None else prob[2]
    if None not in (prob, anchor) and None not in (prob[2], anchor[1]) and prob[2] != anchor[1]:
        _shape_error("MultiBoxDetection", f"cls_prob {prob} and anchor {anchor} disagree on the "
                     "number of anchors")
    if loc is not None and None not in (loc[1], count) and loc[1] != count * 4:
        _shape_error("MultiBoxDetection", f"loc_pred {loc} must have 4 * {count} columns")
    return [(None if prob is None else prob[0], count, 6)]


register_contrib(
    "MultiBoxDetection", npx_name="multibox_detection", compute=_multibox_detection,
    num_inputs=3, input_names=("cls_prob", "loc_pred", "anchor"), infer_shape=_detection_shape,
    infer_type=float32_only("MultiBoxDetection", 1), gradient=zero_grads, save_inputs=False,
    save_outputs=False, attrs=(Attr("clip", "bool", True), Attr("threshold", "float", 0.01),
           Attr("background_id", "int", 0), Attr("nms_threshold", "float", 0.5),
           Attr("force_suppress", "bool", False),
           Attr("variances", "floats", (0.1, 0.1, 0.2, 0.2)), Attr("nms_topk", "int", -1)),
    doc="SSD detections (batch, num_anchors, 6): [class, score, xmin, ymin, xmax, ymax] rows, "
        "best first after NMS, -1 for the rest.")
