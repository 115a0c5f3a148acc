"""``mx.nd.contrib`` / ``mx.npx`` ops that MXNet 2.0 code and its tests call: ``quadratic``,
``div_sqrt_dim``, ``arange_like``, ``index_array``, ``index_copy``, ``gradientmultiplier``,
``box_iou``, ``box_nms`` and ``dynamic_reshape``.

Example
-------
>>> import mxlab as mx
>>> mx.nd.contrib.quadratic(mx.nd.array([1.0, 2.0]), a=1, b=2, c=3).asnumpy()
array([ 6., 11.], dtype=float32)
"""
import math

from ..base import MXNetValueError
from .attrs import Attr
from .infer import same_shape
from .registry import F, Op, register
from .shape import mx_reshape_shape, norm_axis

__all__ = []


def _contrib(name, npx_name=None, **kwargs):
    register(Op(name=f"_contrib_{name}", aliases=(f"_npx_{npx_name}",) if npx_name else (),
                npx_name=npx_name, **kwargs))


# -- elementwise helpers ---------------------------------------------------------------------------
def _quadratic(xp, inputs, attrs):
    x = inputs[0]
    return (attrs["a"] * x * x + attrs["b"] * x + attrs["c"]).astype(x.dtype)


_contrib("quadratic", compute=_quadratic, infer_shape=same_shape,
         attrs=(Attr("a", "float", 0.0), Attr("b", "float", 0.0), Attr("c", "float", 0.0)),
         gradient=lambda node, g: [F.broadcast_mul(g[0], F._plus_scalar(
             F._mul_scalar(node.inputs[0], scalar=2 * node.attrs["a"]),
             scalar=node.attrs["b"]))],
         doc="``a * x**2 + b * x + c`` elementwise.")


_contrib("div_sqrt_dim", compute=lambda xp, i, a: (i[0] / math.sqrt(i[0].shape[-1]))
         .astype(i[0].dtype), infer_shape=same_shape, save_inputs=False, save_outputs=False,
         # NOTE: the gradient has the input's last dimension: the op itself scales it (a rule
         #   reading the input's shape fails on graph entries, which have none).
         gradient=lambda node, g: [F._contrib_div_sqrt_dim(g[0])],
         doc="Divide by the square root of the last dimension (attention scaling).")
_contrib("gradientmultiplier", compute=lambda xp, i, a: i[0].copy(), infer_shape=same_shape,
         attrs=(Attr("scalar", "float", 1.0, doc="gradient scale"),), save_inputs=False,
         save_outputs=False,
         gradient=lambda node, g: [F._mul_scalar(g[0], scalar=node.attrs["scalar"])],
         doc="Identity forward; the gradient is multiplied by ``scalar`` (gradient reversal).")


# -- index builders (no gradient) ------------------------------------------------------------------
def _arange_like(xp, inputs, attrs):
    x, axis = inputs[0], attrs["axis"]
    count = x.size if axis is None else x.shape[axis]
    values = attrs["start"] + attrs["step"] * xp.arange(count, dtype="float64")
    if attrs["repeat"] > 1:
        values = attrs["start"] + attrs["step"] * xp.floor(xp.arange(count) / attrs["repeat"])
    shape = x.shape if axis is None else (count,)
    return values.reshape(shape).astype(x.dtype)


def _arange_like_shape(attrs, in_shapes):
    shape, axis = in_shapes[0], attrs["axis"]
    if shape is None:
        return [None]
    if axis is None:
        return [tuple(shape)]
    return [(shape[norm_axis("arange_like", axis, len(shape))],)]


_contrib("arange_like", npx_name="arange_like", compute=_arange_like,
         infer_shape=_arange_like_shape,
         attrs=(Attr("start", "float", 0.0), Attr("step", "float", 1.0), Attr("repeat", "int", 1),
                Attr("ctx", "str", ""), Attr("axis", "int", None, optional=True)),
         gradient=lambda node, g: [None], save_inputs=False, save_outputs=False,
         doc="``start + step * arange`` shaped like the input (or its ``axis``).")


def _index_array(xp, inputs, attrs):
    x, axes = inputs[0], attrs["axes"]
    axes = tuple(range(x.ndim)) if axes is None else tuple(a % x.ndim for a in axes)
    if not axes:   # NOTE: a 0-d input has no index: MXNet gives shape (0,)
        return xp.zeros(x.shape + (0,), dtype="int64")
    grids = xp.indices(x.shape, dtype="int64")
    return xp.stack([grids[a] for a in axes], axis=-1)


def _index_array_shape(attrs, in_shapes):
    """The input's shape plus a last axis holding one index per axis in ``axes``."""
    shape, axes = in_shapes[0], attrs["axes"]
    if shape is None:
        return [None]
    if axes is None:
        return [tuple(shape) + (len(shape),)]
    for axis in axes:
        norm_axis("index_array", axis, len(shape), "axes")
    return [tuple(shape) + (len(axes),)]


_contrib("index_array", npx_name="index_array", compute=_index_array,
         infer_shape=_index_array_shape,
         attrs=(Attr("axes", "shape", None, optional=True),),
         gradient=lambda node, g: [None], save_inputs=False, save_outputs=False,
         infer_type=lambda a, d: ["int64"],
         doc="Each element's index along ``axes`` (all axes by default), in a last axis.")


# -- index_copy ------------------------------------------------------------------------------------
def _index_copy(xp, inputs, attrs):
    old, index, new = inputs
    out = old.copy()
    out[index.astype("int64")] = new
    return out


def _index_copy_grad(node, g):
    _, index, new = node.inputs
    return [F._contrib_index_copy(g[0], index, F.zeros_like(new)), None, F.take(g[0], index)]


_contrib("index_copy", npx_name="index_copy", compute=_index_copy, num_inputs=3,
         input_names=("old_tensor", "index_vector", "new_tensor"),
         infer_shape=lambda a, s: [s[0]], infer_type=lambda a, d: [d[0]],
         gradient=_index_copy_grad, save_outputs=False,
         doc="``old`` with the rows ``index`` replaced by ``new``'s rows.")


# -- boxes -----------------------------------------------------------------------------------------
def _corners(xp, boxes, fmt):
    if fmt == "corner":
        return boxes
    x, y, w, h = (boxes[..., i] for i in range(4))
    return xp.stack([x - w / 2, y - h / 2, x + w / 2, y + h / 2], axis=-1)


def _iou(xp, lhs, rhs):
    """IoU of every lhs box (..., 4) with every rhs box (..., 4): shape lhs[:-1] + rhs[:-1]."""
    a = lhs.reshape(lhs.shape[:-1] + (1,) * (rhs.ndim - 1) + (4,))
    b = rhs.reshape((1,) * (lhs.ndim - 1) + rhs.shape)
    width = xp.clip(xp.minimum(a[..., 2], b[..., 2]) - xp.maximum(a[..., 0], b[..., 0]), 0, None)
    height = xp.clip(xp.minimum(a[..., 3], b[..., 3]) - xp.maximum(a[..., 1], b[..., 1]), 0,
                     None)
    inter = width * height
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    area_b = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    union = area_a + area_b - inter
    return xp.where(union > 0, inter / xp.where(union > 0, union, 1), 0)


_contrib("box_iou", npx_name="box_iou", num_inputs=2, input_names=("lhs", "rhs"),
         compute=lambda xp, i, a: _iou(xp, _corners(xp, i[0], a["format"]),
                                       _corners(xp, i[1], a["format"])).astype(i[0].dtype),
         attrs=(Attr("format", "str", "corner", choices=("corner", "center")),),
         gradient=lambda node, g: [None, None], save_inputs=False, save_outputs=False,
         infer_shape=lambda a, s: [None if None in (s[0], s[1]) else
                                   tuple(s[0][:-1]) + tuple(s[1][:-1])],
         doc="Intersection over union of every box pair.")


def _nms_one(xp, rows, attrs):
    """NMS over one batch entry's (K, width) rows; returns rows sorted, kept first, -1 after,
    and each output row's source row (-1 for the padding)."""
    score_at, start = attrs["score_index"], attrs["coord_start"]
    scores = rows[:, score_at]
    order = xp.argsort(-scores, kind="stable")
    order = order[scores[order] > attrs["valid_thresh"]]
    cls_at, background = attrs["id_index"], attrs["background_id"]
    if cls_at >= 0:   # NOTE: MXNet drops the background rows whenever ids exist (default -1)
        order = order[rows[order, cls_at] != background]
    if attrs["topk"] > 0:
        order = order[:attrs["topk"]]
    boxes = _corners(xp, rows[order, start:start + 4], attrs["in_format"])
    overlaps = _iou(xp, boxes, boxes)
    same_class = xp.ones_like(overlaps, dtype=bool)
    if cls_at >= 0 and not attrs["force_suppress"]:
        ids = rows[order, cls_at].astype("int64")   # MXNet compares the ids as ints
        same_class = ids[:, None] == ids[None, :]
    suppress = (overlaps > attrs["overlap_thresh"]) & same_class
    keep = xp.ones(order.shape[0], dtype=bool)
    for i in range(order.shape[0]):
        if bool(keep[i]):
            keep[i + 1:] &= ~suppress[i, i + 1:]
    kept = rows[order[keep]].copy()
    if attrs["out_format"] != attrs["in_format"]:
        kept[:, start:start + 4] = _convert(xp, kept[:, start:start + 4], attrs["out_format"])
    out = xp.full(rows.shape, -1, dtype=rows.dtype)
    out[:kept.shape[0]] = kept
    source = xp.full(rows.shape[0], -1, dtype="int64")
    source[:kept.shape[0]] = order[keep]
    return out, source


def _convert(xp, boxes, to):
    if to == "corner":
        return _corners(xp, boxes, "center")
    x0, y0, x1, y1 = (boxes[..., i] for i in range(4))
    return xp.stack([(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0], axis=-1)


def _box_nms(xp, inputs, attrs):
    data = inputs[0]
    if data.ndim < 2:
        raise MXNetValueError(f"box_nms: data must be (..., num_boxes, width), got {data.shape}")
    flat = data.reshape((-1,) + data.shape[-2:])
    results = [_nms_one(xp, rows, attrs) for rows in flat]
    out = xp.stack([r[0] for r in results]).reshape(data.shape)
    return out, xp.stack([r[1] for r in results]).reshape(data.shape[:-1])


def _box_nms_backward(xp, inputs, attrs):
    """Each output row's gradient goes back to the input row it came from."""
    g, source = inputs
    flat_g = g.reshape((-1,) + g.shape[-2:])
    flat_source = source.reshape(flat_g.shape[:2])
    grad = xp.zeros_like(flat_g)
    for b in range(flat_g.shape[0]):
        valid = flat_source[b] >= 0
        grad[b, flat_source[b][valid]] = flat_g[b][valid]
    return grad.reshape(g.shape)


_contrib("box_nms", npx_name="box_nms", compute=_box_nms, num_outputs=2,
         num_visible_outputs=1, output_names=("output", "source"),
         infer_shape=lambda a, s: [s[0], None if s[0] is None else tuple(s[0][:-1])],
         infer_type=lambda a, d: [d[0], "int64"],
         attrs=(Attr("overlap_thresh", "float", 0.5), Attr("valid_thresh", "float", 0.0),
                Attr("topk", "int", -1), Attr("coord_start", "int", 2),
                Attr("score_index", "int", 1), Attr("id_index", "int", -1),
                Attr("background_id", "int", -1), Attr("force_suppress", "bool", False),
                Attr("in_format", "str", "corner", choices=("corner", "center")),
                Attr("out_format", "str", "corner", choices=("corner", "center"))),
         gradient=lambda node, g: [F._backward_contrib_box_nms(g[0], node.outputs[1])],
         save_inputs=False, save_outputs=(1,),
         doc="Non-maximum suppression: boxes sorted by score, suppressed and invalid rows -1.")
register(Op(name="_backward_contrib_box_nms", compute=_box_nms_backward, num_inputs=2,
            input_names=("grad", "source"), infer_shape=lambda a, s: [s[0]], hidden=True,
            nd_names=(), doc="box_nms's gradient: output rows back to their source rows."))


# -- dynamic_reshape -------------------------------------------------------------------------------
def _dynamic_reshape(xp, inputs, attrs):
    data, shape = inputs
    codes = tuple(int(v) for v in shape.reshape(-1).tolist())
    return data.reshape(mx_reshape_shape(data.shape, codes, op_name="dynamic_reshape"))


_contrib("dynamic_reshape", compute=_dynamic_reshape, num_inputs=2,
         input_names=("data", "shape"), dynamic_shape=True, infer_type=lambda a, d: [d[0]],
         infer_shape=lambda a, s: [None],   # the target is a value: known when the op runs
         save_outputs=False,
         gradient=lambda node, g: [F.reshape_like(g[0], node.inputs[0]), None],
         doc="``Reshape`` whose target shape (with MXNet's codes 0, -1, -2, -3, -4) is the value "
             "of the ``shape`` input.")
