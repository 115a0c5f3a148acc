"""MXNet's box coding ops for GluonCV-style detectors: ``_contrib_box_encode``,
``_contrib_box_decode`` and ``_contrib_bipartite_matching`` (``src/operator/contrib/
bounding_box-inl.h``). None has a gradient in MXNet (zeros), nor here.

Example
-------
>>> import mxlab as mx
>>> rows, cols = mx.nd.contrib.bipartite_matching(
...     mx.nd.array([[0.5, 0.6], [0.1, 0.2], [0.3, 0.4]]), threshold=1e-12)
>>> rows.asnumpy(), cols.asnumpy()
(array([ 1., -1.,  0.], dtype=float32), array([2., 0.], dtype=float32))
"""
from ..base import MXNetValueError
from .attrs import Attr
from .detection import register_contrib, zero_grads

__all__ = []


def _need(op, shape, ndim, what, last=None, exact=True):
    if shape is None:
        return
    if (len(shape) != ndim) if exact else (len(shape) < ndim):
        raise MXNetValueError(f"{op}: {what} must have {'' if exact else 'at least '}{ndim} dims, "
                              f"got {shape}")
    if last is not None and shape[-1] not in (None, last):
        raise MXNetValueError(f"{op}: the last dimension of {what} must be {last}, got {shape}")


# -- box_encode ------------------------------------------------------------------------------------
def _centres(xp, boxes):
    """Corner boxes (..., 4) to centre x, y, width, height (MXNet's ``xmin + width * 0.5``)."""
    width, height = boxes[..., 2] - boxes[..., 0], boxes[..., 3] - boxes[..., 1]
    half = boxes.dtype.type(0.5)
    return boxes[..., 0] + width * half, boxes[..., 1] + height * half, width, height


def _box_encode(xp, inputs, attrs):
    samples, matches, anchors, refs, means, stds = inputs
    dtype = anchors.dtype
    batch, count, num_refs = anchors.shape[0], anchors.shape[1], refs.shape[1]
    samples = samples.reshape(batch, count)
    match = xp.clip(matches.reshape(batch, count).astype("int64"), 0, max(num_refs - 1, 0))
    refs = refs.reshape(batch, num_refs, 4).astype(dtype)
    matched = xp.take_along_axis(refs, match[..., None], axis=1)
    rx, ry, rw, rh = _centres(xp, matched)
    ax, ay, aw, ah = _centres(xp, anchors.reshape(batch, count, 4))
    means, stds = means.astype(dtype), stds.astype(dtype)
    targets = xp.stack([((rx - ax) / aw - means[0]) / stds[0],
                        ((ry - ay) / ah - means[1]) / stds[1],
                        (xp.log(rw / aw) - means[2]) / stds[2],
                        (xp.log(rh / ah) - means[3]) / stds[3]], axis=-1)
    valid = (samples > 0.5)[..., None]
    zero = xp.zeros((), dtype=dtype)
    mask = xp.broadcast_to(valid, targets.shape).astype(dtype)
    return xp.where(valid, targets, zero).reshape(anchors.shape), mask.reshape(anchors.shape)


def _encode_shape(attrs, in_shapes):
    samples, matches, anchors, refs = in_shapes[:4]
    op = "box_encode"
    _need(op, samples, 2, "samples")
    _need(op, matches, 2, "matches", exact=False)
    _need(op, anchors, 3, "anchors", last=4, exact=False)
    _need(op, refs, 3, "refs", last=4, exact=False)
    ins = [samples, matches, anchors, refs, (4,), (4,)]
    return ins, [anchors, anchors]


register_contrib(
    "box_encode", npx_name="box_encode", compute=_box_encode, num_inputs=6, num_outputs=2,
    input_names=("samples", "matches", "anchors", "refs", "means", "stds"),
    output_names=("output0", "output1"), infer_shape=_encode_shape,
    infer_type=lambda a, d: [d[2], d[2]], gradient=zero_grads, save_inputs=False,
    save_outputs=False,
    doc="Training targets ((ref centre - anchor centre) / anchor size, log size ratios, minus "
        "``means`` over ``stds``) and masks for the positive ``samples`` (> 0.5).")


# -- box_decode ------------------------------------------------------------------------------------
def _box_decode(xp, inputs, attrs):
    data, anchors = inputs
    dtype = data.dtype
    batch, count = data.shape[0], data.shape[1]
    anchors = anchors.reshape(-1, 4)[:count].astype(dtype)
    if attrs["format"] == "corner":
        ax, ay, aw, ah = _centres(xp, anchors)
    else:
        ax, ay, aw, ah = (anchors[:, i] for i in range(4))
    std0, std1, std2, std3 = (dtype.type(attrs[f"std{i}"]) for i in range(4))
    ox = data[..., 0] * std0 * aw + ax
    oy = data[..., 1] * std1 * ah + ay
    dw, dh = data[..., 2] * std2, data[..., 3] * std3
    if attrs["clip"] > 0:
        clip = dtype.type(attrs["clip"])
        dw, dh = xp.minimum(dw, clip), xp.minimum(dh, clip)
    half = dtype.type(0.5)
    ow, oh = xp.exp(dw) * aw * half, xp.exp(dh) * ah * half
    return xp.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1).reshape(batch, count, 4)


def _decode_shape(attrs, in_shapes):
    data, anchors = in_shapes
    _need("box_decode", data, 3, "data", last=4)
    _need("box_decode", anchors, 3, "anchors", last=4, exact=False)
    return [data]


register_contrib(
    "box_decode", npx_name="box_decode", compute=_box_decode, num_inputs=2,
    input_names=("data", "anchors"), infer_shape=_decode_shape, infer_type=lambda a, d: [d[0]],
    gradient=zero_grads, save_inputs=False, save_outputs=False,
    attrs=(Attr("std0", "float", 1.0), Attr("std1", "float", 1.0), Attr("std2", "float", 1.0),
           Attr("std3", "float", 1.0), Attr("clip", "float", -1.0),
           Attr("format", "str", "center", choices=("corner", "center"))),
    doc="Decode (batch, N, 4) offsets against (1, N, 4) anchors into corner boxes.")


# -- bipartite_matching ----------------------------------------------------------------------------
def _match_one(xp, scores, attrs, row_marker, col_marker):
    """Greedy matching of one (rows, cols) score matrix in score order (stable sort, as MXNet)."""
    num_cols = scores.shape[1]
    flat = scores.reshape(-1)
    order = xp.argsort(flat if attrs["is_ascend"] else -flat, kind="stable")
    ranked = flat[order]
    threshold = ranked.dtype.type(attrs["threshold"])
    good = ranked < threshold if attrs["is_ascend"] else ranked > threshold
    rows, cols = order // num_cols, order % num_cols
    free = xp.ones(order.shape[0], dtype=bool)
    sentinel = xp.ones(1, dtype=bool)
    count, topk = 0, attrs["topk"]
    while True:
        pos = int(xp.argmax(xp.concatenate([free, sentinel])))
        if pos == free.shape[0] or not bool(good[pos]):
            break
        r, c = int(rows[pos]), int(cols[pos])
        row_marker[r], col_marker[c] = c, r
        count += 1
        # NOTE: MXNet's kernel checks ``count > topk`` after the match: topk + 1 matches.
        if 0 < topk < count:
            break
        free &= (rows != r) & (cols != c)


def _bipartite_matching(xp, inputs, attrs):
    data = inputs[0]
    num_rows, num_cols = data.shape[-2], data.shape[-1]
    batch = 1
    for dim in data.shape[:-2]:
        batch *= dim
    scores = data.reshape(batch, num_rows, num_cols)
    row_marker = xp.full((scores.shape[0], num_rows), -1, dtype=data.dtype)
    col_marker = xp.full((scores.shape[0], num_cols), -1, dtype=data.dtype)
    if data.size:
        for b in range(scores.shape[0]):
            _match_one(xp, scores[b], attrs, row_marker[b], col_marker[b])
    return row_marker.reshape(data.shape[:-1]), col_marker.reshape(data.shape[:-2] + (num_cols,))


def _matching_shape(attrs, in_shapes):
    shape = in_shapes[0]
    if shape is None:
        return [None, None]
    _need("bipartite_matching", shape, 2, "the score matrix", exact=False)
    return [tuple(shape[:-1]), tuple(shape[:-2]) + (shape[-1],)]


register_contrib(
    "bipartite_matching", npx_name="bipartite_matching", compute=_bipartite_matching,
    num_outputs=2, output_names=("output0", "output1"), infer_shape=_matching_shape,
    infer_type=lambda a, d: [d[0], d[0]], gradient=zero_grads, save_inputs=False,
    save_outputs=False,
    attrs=(Attr("is_ascend", "bool", False), Attr("threshold", "float"),
           Attr("topk", "int", -1)),
    doc="Greedy bipartite matching by score: each row's matched column and each column's "
        "matched row (-1 where none).")
