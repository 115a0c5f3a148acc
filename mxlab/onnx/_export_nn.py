"""ONNX converters for the neural-network ops: dense, convolution, pooling, normalisation,
activations, dropout, embedding, softmax. Each writes the node's outputs under ``ctx.out``."""
import math

import numpy

from ._common import tensor_type, unmapped
from ._registry import exports


def _fail(ctx, node, why):
    return unmapped(node.op.name, node.name, ctx.opset, why)


def _spatial(attrs, key, ndim, default):
    value = tuple(attrs.get(key) or ())
    return list(value) if value else [default] * ndim


def _require_nchw(ctx, node):
    layout = node.attrs.get("layout")
    if layout not in (None, "NCW", "NCHW", "NCDHW"):
        raise _fail(ctx, node, f"layout={layout} (only channels-first)")


@exports("FullyConnected")
def fully_connected(ctx, node):
    """Gemm on the flattened input, or MatMul over the last axis when ``flatten=False``."""
    data, weight = ctx.inp(node, 0), ctx.inp(node, 1)
    bias = [] if node.attrs["no_bias"] else [ctx.inp(node, 2)]
    if node.attrs["flatten"] or len(ctx.in_shape(node)) == 2:
        if len(ctx.in_shape(node)) != 2:
            data = ctx.emit("Flatten", [data], axis=1)
        ctx.emit("Gemm", [data, weight] + bias, ctx.out(node), transB=1)
        return
    product = ctx.emit("MatMul", [data, ctx.emit("Transpose", [weight], perm=[1, 0])])
    if bias:
        ctx.emit("Add", [product, bias[0]], ctx.out(node))
    else:
        ctx.emit("Identity", [product], ctx.out(node))


def _conv_attrs(node, ndim):
    attrs = node.attrs
    pads = _spatial(attrs, "pad", ndim, 0)
    return {"kernel_shape": list(attrs["kernel"]), "strides": _spatial(attrs, "stride", ndim, 1),
            "dilations": _spatial(attrs, "dilate", ndim, 1), "pads": pads + pads,
            "group": attrs["num_group"]}


@exports("Convolution")
def convolution(ctx, node):
    _require_nchw(ctx, node)
    inputs = [ctx.inp(node, i) for i in range(len(node.inputs))]
    ctx.emit("Conv", inputs, ctx.out(node), **_conv_attrs(node, len(node.attrs["kernel"])))


@exports("Deconvolution")
def deconvolution(ctx, node):
    _require_nchw(ctx, node)
    ndim = len(node.attrs["kernel"])
    if tuple(node.attrs.get("target_shape") or ()):
        raise _fail(ctx, node, "target_shape (give pad/adj instead)")
    inputs = [ctx.inp(node, i) for i in range(len(node.inputs))]
    ctx.emit("ConvTranspose", inputs, ctx.out(node), output_padding=_spatial(
        node.attrs, "adj", ndim, 0), **_conv_attrs(node, ndim))


_GLOBAL_POOL = {"max": "GlobalMaxPool", "avg": "GlobalAveragePool", "lp": "GlobalLpPool"}


@exports("Pooling")
def pooling(ctx, node):
    _require_nchw(ctx, node)
    attrs, data = node.attrs, ctx.inp(node)
    kind = attrs["pool_type"]
    if kind not in _GLOBAL_POOL:
        raise _fail(ctx, node, f"pool_type={kind}")
    p_value = {"p": int(attrs["p_value"] or 2)} if kind == "lp" else {}
    if attrs["global_pool"]:
        ctx.emit(_GLOBAL_POOL[kind], [data], ctx.out(node), **p_value)
        return
    if attrs["pooling_convention"] not in ("valid", "full"):
        raise _fail(ctx, node, f"pooling_convention={attrs['pooling_convention']}")
    ndim = len(attrs["kernel"])
    pads = _spatial(attrs, "pad", ndim, 0)
    common = {"kernel_shape": list(attrs["kernel"]),
              "strides": _spatial(attrs, "stride", ndim, 1), "pads": pads + pads}
    if kind == "lp":
        ctx.emit("LpPool", [data], ctx.out(node), **common, **p_value)
        return
    common["ceil_mode"] = int(attrs["pooling_convention"] == "full")
    if kind == "max":
        ctx.emit("MaxPool", [data], ctx.out(node), **common)
        return
    include = attrs["count_include_pad"] is None or attrs["count_include_pad"]
    ctx.emit("AveragePool", [data], ctx.out(node), count_include_pad=int(include), **common)


@exports("BatchNorm")
def batch_norm(ctx, node):
    """Inference batch norm on the moving statistics; ``fix_gamma`` means a scale of ones."""
    attrs = node.attrs
    if attrs["axis"] not in (1, -len(ctx.in_shape(node)) + 1) or attrs["output_mean_var"]:
        raise _fail(ctx, node, "axis other than 1 or output_mean_var=True")
    gamma = ctx.inp(node, 1)
    if attrs["fix_gamma"]:
        gamma = ctx.const(numpy.ones(ctx.in_shape(node, 1), ctx.in_dtype(node, 1)), hint="ones")
    inputs = [ctx.inp(node, 0), gamma] + [ctx.inp(node, i) for i in (2, 3, 4)]
    ctx.emit("BatchNormalization", inputs, ctx.out(node), epsilon=float(attrs["eps"]))


@exports("LayerNorm", since=17)
def layer_norm(ctx, node):
    ndim = len(ctx.in_shape(node))
    if node.attrs["axis"] % ndim != ndim - 1 or node.attrs["output_mean_var"]:
        raise _fail(ctx, node, "axis other than the last or output_mean_var=True")
    inputs = [ctx.inp(node, i) for i in range(3)]
    ctx.emit("LayerNormalization", inputs, ctx.out(node), axis=-1,
             epsilon=float(node.attrs["eps"]))


@exports("InstanceNorm")
def instance_norm(ctx, node):
    inputs = [ctx.inp(node, i) for i in range(3)]
    ctx.emit("InstanceNormalization", inputs, ctx.out(node), epsilon=float(node.attrs["eps"]))


@exports("GroupNorm")
def group_norm(ctx, node):
    """MXNet 1.x GroupNorm (gamma/beta per group) is InstanceNormalization on (N, groups, -1)."""
    if node.attrs["output_mean_var"]:
        raise _fail(ctx, node, "output_mean_var=True")
    data = ctx.inp(node)
    grouped = ctx.emit("Reshape", [data, ctx.int64s([0, node.attrs["num_groups"], -1])])
    normed = ctx.emit("InstanceNormalization", [grouped, ctx.inp(node, 1), ctx.inp(node, 2)],
                      epsilon=float(node.attrs["eps"]))
    ctx.emit("Reshape", [normed, ctx.emit("Shape", [data])], ctx.out(node))


# -- activations -----------------------------------------------------------------------------------
_SIMPLE_ACT = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "softrelu": "Softplus",
               "softsign": "Softsign"}


def activation_of(ctx, act_type, data, out, node):
    """Write activation ``act_type`` of ``data`` into ``out``."""
    if act_type in _SIMPLE_ACT:
        return ctx.emit(_SIMPLE_ACT[act_type], [data], out)
    if act_type == "log_sigmoid":   # -softplus(-x)
        soft = ctx.emit("Softplus", [ctx.emit("Neg", [data])])
        return ctx.emit("Neg", [soft], out)
    if act_type == "mish":          # x * tanh(softplus(x))
        return ctx.emit("Mul", [data, ctx.emit("Tanh", [ctx.emit("Softplus", [data])])], out)
    raise _fail(ctx, node, f"act_type={act_type}")


@exports("Activation", "relu", "sigmoid", "tanh", "softsign", "log_sigmoid", "mish")
def activation(ctx, node):
    act_type = node.attrs.get("act_type", node.op.name)
    activation_of(ctx, act_type, ctx.inp(node), ctx.out(node), node)


def _gelu(ctx, data, out, dtype):
    """0.5 * x * (1 + erf(x / sqrt(2))), MXNet's exact gelu."""
    scaled = ctx.emit("Div", [data, ctx.const(math.sqrt(2.0), dtype, "sqrt2")])
    one_plus = ctx.emit("Add", [ctx.emit("Erf", [scaled]), ctx.const(1.0, dtype, "one")])
    half_x = ctx.emit("Mul", [data, ctx.const(0.5, dtype, "half")])
    return ctx.emit("Mul", [half_x, one_plus], out)


@exports("LeakyReLU")
def leaky_relu(ctx, node):
    attrs, data, out = node.attrs, ctx.inp(node), ctx.out(node)
    kind = attrs["act_type"]
    if kind in ("leaky", "rrelu"):  # NOTE: rrelu at inference uses the mean slope
        slope = attrs["slope"] if kind == "leaky" else (
            attrs["lower_bound"] + attrs["upper_bound"]) / 2
        ctx.emit("LeakyRelu", [data], out, alpha=float(slope))
    elif kind == "elu":
        ctx.emit("Elu", [data], out, alpha=float(attrs["slope"]))
    elif kind == "selu":
        ctx.emit("Selu", [data], out)
    elif kind == "gelu":
        _gelu(ctx, data, out, ctx.in_dtype(node))
    elif kind == "prelu":
        slope = ctx.inp(node, 1)
        ndim = len(ctx.in_shape(node))
        if ndim > 2 and ctx.in_shape(node, 1) != (1,):  # per channel: broadcast over axis 1
            slope = ctx.axes_op("Unsqueeze", slope, list(range(1, ndim - 1)))
        ctx.emit("PRelu", [data, slope], out)
    else:
        raise _fail(ctx, node, f"act_type={kind}")


@exports("Dropout")
def dropout(ctx, node):
    """Inference: dropout is the identity (the mask output, if asked for, is not exported)."""
    if node.attrs["mode"] == "always":
        raise _fail(ctx, node, "mode='always' drops at inference too")
    ctx.emit("Identity", [ctx.inp(node)], ctx.out(node))


@exports("Embedding")
def embedding(ctx, node):
    indices = ctx.emit("Cast", [ctx.inp(node, 0)], to=7)  # NOTE: 7 = INT64
    ctx.emit("Gather", [ctx.inp(node, 1), indices], ctx.out(node), axis=0)


def _softmax(onnx_op):
    def convert(ctx, node):
        attrs = node.attrs
        if attrs.get("use_length"):
            raise _fail(ctx, node, "use_length=True")
        data = ctx.inp(node)
        if attrs.get("temperature") not in (None, 1.0):
            temp = ctx.const(attrs["temperature"], ctx.in_dtype(node), "temperature")
            data = ctx.emit("Div", [data, temp])
        cast = ctx.out_dtype(node) != ctx.in_dtype(node)
        result = ctx.emit(onnx_op, [data], None if cast else ctx.out(node),
                          axis=int(attrs["axis"]))
        if cast:
            ctx.emit("Cast", [result], ctx.out(node), to=tensor_type(ctx.out_dtype(node)))
    return convert


@exports("SoftmaxActivation")
def softmax_activation(ctx, node):
    """mode='instance': softmax over the last axis; 'channel': over axis 1."""
    axis = 1 if node.attrs["mode"] == "channel" else -1
    ctx.emit("Softmax", [ctx.inp(node)], ctx.out(node), axis=axis)


exports("softmax")(_softmax("Softmax"))
exports("log_softmax")(_softmax("LogSoftmax"))
