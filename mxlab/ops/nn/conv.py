"""Convolution and Deconvolution (1-3 spatial dims, groups, stride, dilation, padding) with
gradients.

Both ops run on one :class:`ConvPlan`, a per-shape plan fetched through :mod:`mxlab.op_cache`: the
window geometry, a zero-padded workspace that calls only refill inside, and the contraction
algorithm chosen per direction (forward, backward-data, backward-weight; see :mod:`.conv_algo`
for the candidates and the bounded autotune). This module holds the ops: attributes, shape
inference, the cached plan lookup and registration.

Deconvolution is the transpose of convolution, so it reuses the same plan with roles swapped:
``deconv.forward = conv.backward_data``, ``deconv.backward_data = conv.forward``.

Example
-------
>>> import mxlab as mx
>>> x = mx.nd.ones((1, 1, 4, 4))
>>> w = mx.nd.ones((2, 1, 3, 3))
>>> mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=2, no_bias=True).shape
(1, 2, 2, 2)
"""

from ... import op_cache
from ...base import MXNetValueError
from ..attrs import REQUIRED, Attr
from ..infer import known
from ..registry import F, Op, register
from ._window import ALL_LAYOUTS, Window, check_layout, spatial
from .conv_algo import ALGORITHMS, ConvPlan, build_conv_plan, dilated

__all__ = ["ALGORITHMS", "ConvPlan", "conv_plan"]

_IGNORED = ("workspace", "cudnn_tune", "cudnn_off")


# -- geometry and shapes ---------------------------------------------------------------------------
def _params(op_name, attrs):
    """Kernel, stride, dilate, pad with defaults filled in and checked."""
    kernel = attrs["kernel"]
    ndim = len(kernel)
    check_layout(op_name, attrs["layout"], ndim)
    return (
        spatial(op_name, "kernel", kernel, ndim, 1, 1),
        spatial(op_name, "stride", attrs["stride"], ndim, 1, 1),
        spatial(op_name, "dilate", attrs["dilate"], ndim, 1, 1),
        spatial(op_name, "pad", attrs["pad"], ndim, 0, 0),
    )


def _check_data(op_name, attrs, data_shape, ndim):
    if len(data_shape) != ndim + 2:
        raise MXNetValueError(
            f"{op_name}: input 'data' must have {ndim + 2} dims (batch, channel, "
            f"{ndim} spatial) to match kernel {attrs['kernel']}, got shape {tuple(data_shape)}"
        )
    groups = attrs["num_group"]
    for name, value in (("data channels", data_shape[1]), ("num_filter", attrs["num_filter"])):
        if value is not None and (groups < 1 or value % groups):
            raise MXNetValueError(
                f"{op_name}: {name} ({value}) must be divisible by num_group ({groups})"
            )


def conv_out_spatial(op_name, attrs, data_shape):
    """Output spatial size of Convolution; an error names the op when the kernel does not fit."""
    kernel, stride, dilate, pad = _params(op_name, attrs)
    out = []
    for i, s in enumerate(data_shape[2:]):
        if s is None:
            out.append(None)
            continue
        size = (s + 2 * pad[i] - dilated(kernel[i], dilate[i])) // stride[i] + 1
        if size <= 0:
            raise MXNetValueError(
                f"{op_name}: kernel {kernel} (dilate {dilate}) does not fit input 'data' of "
                f"shape {tuple(data_shape)} padded by {pad}"
            )
        out.append(size)
    return tuple(out)


def deconv_pad_adj(op_name, attrs, data_shape):
    """MXNet's ``InferPad``: explicit pad/adj, or both derived from ``target_shape``."""
    kernel, stride, dilate, pad = _params(op_name, attrs)
    ndim = len(kernel)
    adj = spatial(op_name, "adj", attrs["adj"], ndim, 0, 0)
    target = attrs["target_shape"]
    if not target or not any(target):
        return pad, adj
    target = spatial(op_name, "target_shape", target, ndim, 0, 0)
    pads, adjs = [], []
    for i, s in enumerate(data_shape[2:]):
        total = stride[i] * (s - 1) + dilated(kernel[i], dilate[i]) - target[i]
        if total < 0:
            raise MXNetValueError(
                f"{op_name}: target_shape {target} is too big for input 'data' of shape "
                f"{tuple(data_shape)}"
            )
        adjs.append(total % 2)
        pads.append((total + 1) // 2)
    return tuple(pads), tuple(adjs)


def deconv_out_spatial(op_name, attrs, data_shape):
    """Deconvolution output size: ``stride * (in - 1) + dilated kernel - 2 * pad + adj``."""
    kernel, stride, dilate, _ = _params(op_name, attrs)
    pad, adj = deconv_pad_adj(op_name, attrs, data_shape)
    out = []
    for i, s in enumerate(data_shape[2:]):
        if s is None:
            out.append(None)
            continue
        out.append(stride[i] * (s - 1) + dilated(kernel[i], dilate[i]) - 2 * pad[i] + adj[i])
    if any(o is not None and o <= 0 for o in out):
        raise MXNetValueError(
            f"{op_name}: output spatial size {tuple(out)} is not positive for input 'data' of "
            f"shape {tuple(data_shape)}"
        )
    return tuple(out)


def _expected_weight(op_name, attrs, data_shape):
    groups, kernel = attrs["num_group"], tuple(attrs["kernel"])
    if op_name == "Convolution":
        return (attrs["num_filter"], data_shape[1] // groups) + kernel
    return (data_shape[1], attrs["num_filter"] // groups) + kernel


def _check_given(op_name, name, given, expected):
    if known(given) and tuple(given) != tuple(expected):
        raise MXNetValueError(
            f"{op_name}: input '{name}' has shape {tuple(given)} but {tuple(expected)} is "
            f"expected from 'data' and the attributes"
        )


def _data_from_output(op_name, attrs, data, out):
    """Convolution's unknown batch and spatial dims of ``data`` from a known output (MXNet's
    backward inference: ``in = (out - 1) * stride + dilated kernel - 2 * pad``)."""
    if op_name != "Convolution" or data is None or not known(out) or len(out) != len(data):
        return data
    kernel, stride, dilate, pad = _params(op_name, attrs)
    spatial = [(o - 1) * s + dilated(k, d) - 2 * p
               for o, k, s, d, p in zip(out[2:], kernel, stride, dilate, pad)]
    full = (out[0], data[1]) + tuple(spatial)
    return tuple(f if d is None else d for d, f in zip(data, full))


def _infer_shape(op_name, out_spatial):
    def infer(attrs, in_shapes, out_shapes=None):
        data = in_shapes[0]
        if data is not None and None in data and out_shapes:
            data = _data_from_output(op_name, attrs, data, out_shapes[0])
            in_shapes = [data] + list(in_shapes[1:])
        if data is None:
            return in_shapes, [None]
        _check_data(op_name, attrs, data, len(attrs["kernel"]))
        if data[1] is None:
            return in_shapes, [None]
        weight = _expected_weight(op_name, attrs, data)
        shapes = [tuple(data), weight] + ([] if attrs["no_bias"] else [(attrs["num_filter"],)])
        for name, given, expected in zip(("data", "weight", "bias"), in_shapes, shapes):
            _check_given(op_name, name, given, expected)
        return shapes, [(data[0], attrs["num_filter"]) + out_spatial(op_name, attrs, data)]

    return infer


def _same_dtype(attrs, in_dtypes):
    dtype = next((d for d in in_dtypes if d is not None), None)
    return [dtype] * len(in_dtypes), [dtype]


def _grad_dtypes(attrs, in_dtypes):
    dtype = next((d for d in in_dtypes if d is not None), None)
    return [dtype] * len(in_dtypes), [dtype] * (2 if attrs["no_bias"] else 3)


# -- plans through the cache -----------------------------------------------------------------------
def conv_plan(op_name, xp, attrs, data, weight):
    """The cached :class:`ConvPlan` of ``op_name`` (Convolution or Deconvolution) for these arrays.

    Forward and backward ask with the same ``(attrs, data, weight)`` signature: one shared entry.
    """
    key = op_cache.signature(op_name, attrs, (data, weight), op_cache.device_key(xp, data))
    return op_cache.get_or_build(
        key, lambda: _make_plan(op_name, xp, attrs, data.shape, weight.shape, data.dtype.name)
    )


def _make_plan(op_name, xp, attrs, data_shape, weight_shape, dtype):
    _check_data(op_name, attrs, data_shape, len(attrs["kernel"]))
    expected = _expected_weight(op_name, attrs, data_shape)
    _check_given(op_name, "weight", weight_shape, expected)
    kernel, stride, dilate, pad = _params(op_name, attrs)
    if op_name == "Convolution":
        out = conv_out_spatial(op_name, attrs, data_shape)
        x_shape = tuple(data_shape)
    else:
        out = tuple(data_shape[2:])
        x_shape = (data_shape[0], attrs["num_filter"]) + deconv_out_spatial(
            op_name, attrs, data_shape
        )
        pad, _ = deconv_pad_adj(op_name, attrs, data_shape)
    pad_hi = tuple(
        p + max(0, (o - 1) * s + dilated(k, d) - (x + 2 * p))
        for p, o, s, k, d, x in zip(pad, out, stride, kernel, dilate, x_shape[2:])
    )
    win = Window(
        in_shape=x_shape,
        kernel=kernel,
        stride=stride,
        dilate=dilate,
        pad_lo=pad,
        pad_hi=pad_hi,
        out=out,
    )
    return build_conv_plan(xp, win, attrs["num_group"], weight_shape, dtype)


def _bias_shape(attrs, ndim):
    return (1, attrs["num_filter"]) + (1,) * ndim


def _bias_grad(xp, dy):
    return dy.sum(axis=(0,) + tuple(range(2, dy.ndim)))


def _check_arity(op_name, inputs, attrs):
    names = _input_names(attrs)
    if len(inputs) != len(names):
        raise MXNetValueError(
            f"{op_name}: expects inputs {list(names)} with no_bias={attrs['no_bias']}, got "
            f"{len(inputs)} input(s)"
        )


def _conv_forward(xp, inputs, attrs, ctx, out=None):
    """A training forward (``ctx.is_train``) keeps its im2col columns for the backward."""
    _check_arity("Convolution", inputs, attrs)
    x, w = inputs[0], inputs[1]
    y = conv_plan("Convolution", xp, attrs, x, w).forward(xp, x, w, out, train=ctx.is_train)
    if not attrs["no_bias"]:
        y += inputs[2].reshape(_bias_shape(attrs, x.ndim - 2))
    return y


def _conv_forward_into(xp, inputs, attrs, outs, ctx):
    """Static buffers: the output is written straight into its planned buffer."""
    _conv_forward(xp, inputs, attrs, ctx, outs[0])


def _conv_backward(xp, inputs, attrs):
    dy, x, w = inputs
    plan = conv_plan("Convolution", xp, attrs, x, w)
    grads = list(plan.backward(xp, dy, x, w))
    return tuple(grads if attrs["no_bias"] else grads + [_bias_grad(xp, dy)])


def _conv_backward_into(xp, inputs, attrs, outs):
    """Static buffers: each gradient is written into its buffer; a ``None`` out (request null:
    nobody reads it, e.g. the data gradient of a network's first layer) is not computed."""
    dy, x, w = inputs
    plan = conv_plan("Convolution", xp, attrs, x, w)
    plan.backward(xp, dy, x, w, outs[0], outs[1], need=(outs[0] is not None, outs[1] is not None))
    if len(outs) > 2 and outs[2] is not None:
        xp.copyto(outs[2], _bias_grad(xp, dy))


_conv_backward_into.skips_none = True  # runtime: outputs with request null are passed as None


def _deconv_forward(xp, inputs, attrs):
    _check_arity("Deconvolution", inputs, attrs)
    x, w = inputs[0], inputs[1]
    y = conv_plan("Deconvolution", xp, attrs, x, w).backward_data(xp, x, w)
    if not attrs["no_bias"]:
        y += inputs[2].reshape(_bias_shape(attrs, x.ndim - 2))
    return y


def _deconv_backward(xp, inputs, attrs):
    dy, x, w = inputs
    plan = conv_plan("Deconvolution", xp, attrs, x, w)
    grads = [plan.forward(xp, dy, w), plan.backward_weight(xp, x, dy)]
    return tuple(grads if attrs["no_bias"] else grads + [_bias_grad(xp, dy)])


# -- registration ----------------------------------------------------------------------------------
def _attrs(no_bias_default, deconv):
    extra = (Attr("adj", "shape", ()), Attr("target_shape", "shape", ())) if deconv else ()
    return (
        (
            Attr("kernel", "shape", REQUIRED),
            Attr("stride", "shape", ()),
            Attr("dilate", "shape", ()),
            Attr("pad", "shape", ()),
        )
        + extra
        + (
            Attr("num_filter", "int", REQUIRED, check=(lambda v: v > 0, "must be positive")),
            Attr("num_group", "int", 1, check=(lambda v: v > 0, "must be positive")),
            Attr("no_bias", "bool", no_bias_default),
            Attr("layout", "str", None, optional=True, choices=ALL_LAYOUTS),
        )
    )


def _input_names(attrs):
    return ("data", "weight") if attrs["no_bias"] else ("data", "weight", "bias")


def _num_inputs(attrs):
    return 2 if attrs["no_bias"] else 3


def _grad_rule(backward_name):
    def gradient(node, out_grads):
        x, w = node.inputs[0], node.inputs[1]
        grads = getattr(F, backward_name)(out_grads[0], x, w, **node.attrs)
        return list(grads)

    return gradient


def _grad_infer(attrs, in_shapes):
    _, x, w = in_shapes
    outs = [x, w] + ([] if attrs["no_bias"] else [(attrs["num_filter"],)])
    return in_shapes, outs


def _register(name, forward, backward, no_bias_default, deconv, doc, forward_into=None,
              backward_into=None):
    attrs = _attrs(no_bias_default, deconv)
    register(
        Op(
            name=name,
            compute=forward,
            compute_into=forward_into,
            attrs=attrs,
            num_inputs=_num_inputs,
            input_names=_input_names,
            infer_shape=_infer_shape(name, deconv_out_spatial if deconv else conv_out_spatial),
            infer_type=_same_dtype,
            gradient=_grad_rule(f"_backward_{name}"),
            save_inputs=(0, 1),
            save_outputs=False,
            resources=("temp",),
            never_mirror=not deconv,
            ignored_attrs=_IGNORED,
            npx_name=name.lower(),
            nd_names=(name,),
            doc=doc,
        )
    )
    register(
        Op(
            name=f"_backward_{name}",
            compute=backward,
            compute_into=backward_into,
            attrs=attrs,
            num_inputs=3,
            input_names=("out_grad", "data", "weight"),
            num_outputs=lambda a: 2 if a["no_bias"] else 3,
            output_names=lambda a: ("data_grad", "weight_grad")
            + (() if a["no_bias"] else ("bias_grad",)),
            infer_shape=_grad_infer,
            infer_type=_grad_dtypes,
            ignored_attrs=_IGNORED,
            hidden=True,
            doc=f"Gradients of {name} for data, weight and bias (sharing the forward's plan).",
        )
    )


_register(
    "Convolution",
    _conv_forward,
    _conv_backward,
    False,
    False,
    "N-d convolution: out = sum over channels and kernel of data windows * weight (+ bias).",
    _conv_forward_into,
    _conv_backward_into,
)
_register(
    "Deconvolution",
    _deconv_forward,
    _deconv_backward,
    True,
    True,
    "Transposed convolution: the gradient of Convolution with respect to its data.",
)
