"""UpSampling (MXNet's): nearest-neighbour repeat of one or more NCHW inputs, or bilinear.

``nearest`` repeats each input's pixels up to the first input's size times ``scale`` (an input of
another size uses its own whole factor) and concatenates the results on channels or sums them
(``multi_input_mode``). ``bilinear`` is, as in MXNet, a grouped Deconvolution of the data with a
``weight`` input of shape (C, 1, k, k), k = 2 * scale - scale % 2, stride scale, padding
ceil((scale - 1) / 2); the caller supplies the (usually bilinear-initialised) weight.

Example
-------
>>> import numpy
>>> from mxlab.ops.registry import get_op
>>> up = get_op("UpSampling")
>>> x = numpy.arange(4, dtype="float32").reshape(1, 1, 2, 2)
>>> up.forward(numpy, [x], up.parse_attrs({"scale": 2, "sample_type": "nearest"}))[0][0, 0]
array([[0., 0., 1., 1.],
       [0., 0., 1., 1.],
       [2., 2., 3., 3.],
       [2., 2., 3., 3.]], dtype=float32)
"""
import math

from ...base import MXNetValueError
from ..attrs import REQUIRED, Attr
from ..infer import known
from ..registry import F, Op, get_op, register

__all__ = []


def _nearest(attrs):
    return attrs["sample_type"] == "nearest"


def _deconv_attrs(attrs):
    """The Deconvolution MXNet's bilinear UpSampling runs."""
    scale = attrs["scale"]
    kernel, pad = 2 * scale - scale % 2, int(math.ceil((scale - 1) / 2.0))
    return {"kernel": (kernel, kernel), "stride": (scale, scale), "pad": (pad, pad),
            "num_filter": attrs["num_filter"], "num_group": attrs["num_filter"], "no_bias": True}


def _factors(attrs, first, shape):
    """Whole repeat factors (rows, cols) taking ``shape`` to ``first``'s size times scale."""
    out_h, out_w = first[2] * attrs["scale"], first[3] * attrs["scale"]
    if out_h % shape[2] or out_w % shape[3]:
        raise MXNetValueError(f"UpSampling: input of size {tuple(shape[2:])} does not divide the "
                              f"output size ({out_h}, {out_w})")
    return out_h // shape[2], out_w // shape[3]


def _forward(xp, inputs, attrs):
    if not _nearest(attrs):
        deconv = get_op("Deconvolution")
        return deconv.forward(xp, list(inputs), deconv.parse_attrs(_deconv_attrs(attrs)))[0]
    ups = []
    for x in inputs:
        rows, cols = _factors(attrs, inputs[0].shape, x.shape)
        ups.append(x.repeat(rows, axis=2).repeat(cols, axis=3))
    if attrs["multi_input_mode"] == "sum":
        out = ups[0]
        for up in ups[1:]:
            out = out + up
        return out
    return xp.concatenate(ups, axis=1)


def _backward_nearest(xp, inputs, attrs):
    out_grad, datas = inputs[0], inputs[1:]
    grads, channel = [], 0
    for x in datas:
        rows, cols = _factors(attrs, datas[0].shape, x.shape)
        part = out_grad if attrs["multi_input_mode"] == "sum" else \
            out_grad[:, channel:channel + x.shape[1]]
        channel += x.shape[1]
        n, c, h, w = x.shape
        grads.append(part.reshape(n, c, h, rows, w, cols).sum(axis=(3, 5)).astype(x.dtype))
    return tuple(grads)


def _gradient(node, out_grads):
    if _nearest(node.attrs):
        grads = F._backward_UpSampling(out_grads[0], *node.inputs, **node.attrs)
        return list(grads) if node.attrs["num_args"] > 1 else [grads]
    return list(F._backward_Deconvolution(out_grads[0], *node.inputs,
                                          **_deconv_attrs(node.attrs)))


def _num_inputs(attrs):
    return attrs["num_args"] if _nearest(attrs) else 2


def _input_names(attrs):
    return tuple(f"arg{i}" for i in range(attrs["num_args"])) if _nearest(attrs) else \
        ("data", "weight")


def _infer(attrs, in_shapes):
    first = in_shapes[0]
    if not known(first):
        return in_shapes, [None]
    if len(first) != 4:
        raise MXNetValueError(f"UpSampling: data must be NCHW, got {tuple(first)}")
    out = [first[0], 0, first[2] * attrs["scale"], first[3] * attrs["scale"]]
    if not _nearest(attrs):
        kernel = _deconv_attrs(attrs)["kernel"]
        return [first, (first[1], 1) + kernel], [tuple(out[:1]) + (first[1],) + tuple(out[2:])]
    if not all(known(s) for s in in_shapes):
        return in_shapes, [None]
    for shape in in_shapes:
        _factors(attrs, first, shape)
    channels = [s[1] for s in in_shapes]
    if attrs["multi_input_mode"] == "sum" and len(set(channels)) > 1:
        raise MXNetValueError(f"UpSampling: multi_input_mode='sum' needs equal channels, got "
                              f"{channels}")
    out[1] = channels[0] if attrs["multi_input_mode"] == "sum" else sum(channels)
    return in_shapes, [tuple(out)]


_ATTRS = (Attr("scale", "int", REQUIRED, check=(lambda v: v >= 1, "must be at least 1")),
          Attr("num_filter", "int", 0),
          Attr("sample_type", "str", REQUIRED, choices=("nearest", "bilinear")),
          Attr("multi_input_mode", "str", "concat", choices=("concat", "sum")),
          Attr("num_args", "int", 1),
          Attr("workspace", "int", 512))

register(Op(
    name="UpSampling",
    compute=_forward,
    attrs=_ATTRS,
    num_inputs=_num_inputs,
    input_names=_input_names,
    infer_shape=_infer,
    gradient=_gradient,
    save_outputs=False,
    nd_names=("UpSampling",),
    doc="Upsample NCHW data by an integer scale: nearest (several inputs concatenated or summed) "
        "or bilinear (a grouped Deconvolution with a weight input).",
))
register(Op(
    name="_backward_UpSampling",
    compute=_backward_nearest,
    attrs=_ATTRS,
    num_inputs=lambda a: a["num_args"] + 1,
    input_names=lambda a: ("out_grad",) + tuple(f"arg{i}" for i in range(a["num_args"])),
    num_outputs=lambda a: a["num_args"],
    infer_shape=lambda a, s: (s, list(s[1:])),
    infer_type=lambda a, d: (d, list(d[1:])),
    hidden=True,
    doc="Gradient of nearest UpSampling: each output block summed back to its pixel.",
))
