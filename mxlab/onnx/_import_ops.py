"""ONNX node -> mxlab Symbol converters, one per ONNX op (tables where ops differ only in name).
Each returns the Symbol (or list of Symbols) of the node's outputs."""
import itertools

import numpy

from .. import symbol as S
from ._common import numpy_type, require
from ._registry import Dim, attributes, imports

_ACTIVATION = {"Relu": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Softplus": "softrelu",
               "Softsign": "softsign"}
_BINARY = {"Add": "broadcast_add", "Sub": "broadcast_sub", "Mul": "broadcast_mul",
           "Div": "broadcast_div", "Pow": "broadcast_power", "Equal": "broadcast_equal",
           "Greater": "broadcast_greater", "GreaterOrEqual": "broadcast_greater_equal",
           "Less": "broadcast_lesser", "LessOrEqual": "broadcast_lesser_equal",
           "And": "broadcast_logical_and", "Or": "broadcast_logical_or",
           "Xor": "broadcast_logical_xor", "MatMul": "_npi_matmul"}
_VARIADIC = {"Max": "broadcast_maximum", "Min": "broadcast_minimum", "Sum": "broadcast_add"}
_UNARY = {"Neg": "negative", "Abs": "abs", "Exp": "exp", "Log": "log", "Sqrt": "sqrt",
          "Reciprocal": "reciprocal", "Floor": "floor", "Ceil": "ceil", "Sin": "sin",
          "Cos": "cos", "Tan": "tan", "Asin": "arcsin", "Acos": "arccos", "Atan": "arctan",
          "Sinh": "sinh", "Cosh": "cosh", "Asinh": "arcsinh", "Acosh": "arccosh",
          "Atanh": "arctanh", "Erf": "erf", "Sign": "sign", "Round": "rint", "Not": "logical_not",
          "Identity": "_copy", "Dropout": "_copy"}
_REDUCE = {"ReduceSum": "sum", "ReduceMean": "mean", "ReduceMax": "max", "ReduceMin": "min",
           "ReduceProd": "prod"}


def _op(name, *inputs, **attrs):
    return getattr(S, name)(*inputs, **attrs)


def _inputs(ctx, node):
    return [ctx.sym(n) for n in node.input if n]


for _onnx, _act in _ACTIVATION.items():
    imports(_onnx)(lambda ctx, node, act=_act: S.Activation(ctx.sym(node.input[0]), act_type=act))
for _onnx, _name in _BINARY.items():
    imports(_onnx)(lambda ctx, node, name=_name: _op(name, *_inputs(ctx, node)))
for _onnx, _name in _UNARY.items():
    imports(_onnx)(lambda ctx, node, name=_name: _op(name, ctx.sym(node.input[0])))


def _variadic(name):
    def convert(ctx, node):
        result, *rest = _inputs(ctx, node)
        for other in rest:
            result = _op(name, result, other)
        return result
    return convert


for _onnx, _name in _VARIADIC.items():
    imports(_onnx)(_variadic(_name))


# -- neural-network layers -------------------------------------------------------------------------
def _symmetric_pads(ctx, node, attrs, ndim):
    if attrs.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise ctx.fail(node, "auto_pad (give explicit pads)")
    pads = list(attrs.get("pads", [0] * 2 * ndim))
    if pads[:ndim] != pads[ndim:]:
        raise ctx.fail(node, f"asymmetric pads {pads}")
    return tuple(pads[:ndim])


def _conv_attrs(ctx, node, weight_shape):
    attrs = attributes(node)
    kernel = tuple(attrs.get("kernel_shape", weight_shape[2:]))
    ndim = len(kernel)
    return {"kernel": kernel, "stride": tuple(attrs.get("strides", [1] * ndim)),
            "dilate": tuple(attrs.get("dilations", [1] * ndim)),
            "pad": _symmetric_pads(ctx, node, attrs, ndim), "num_group": attrs.get("group", 1)}


@imports("Conv")
def conv(ctx, node):
    weight = ctx.const(node.input[1], "Conv weight")
    return S.Convolution(*_inputs(ctx, node), num_filter=weight.shape[0],
                         no_bias=len(_inputs(ctx, node)) < 3,
                         **_conv_attrs(ctx, node, weight.shape))


@imports("ConvTranspose")
def conv_transpose(ctx, node):
    attrs, weight = attributes(node), ctx.const(node.input[1], "ConvTranspose weight")
    if "output_shape" in attrs:
        raise ctx.fail(node, "output_shape (give pads/output_padding)")
    common = _conv_attrs(ctx, node, weight.shape)
    return S.Deconvolution(*_inputs(ctx, node), num_filter=weight.shape[1] * common["num_group"],
                           adj=tuple(attrs.get("output_padding", [0] * len(common["kernel"]))),
                           no_bias=len(_inputs(ctx, node)) < 3, **common)


@imports("Gemm")
def gemm(ctx, node):
    """FullyConnected for ``x @ W.T + b``; dot with scaling otherwise."""
    attrs = attributes(node)
    alpha, beta = attrs.get("alpha", 1.0), attrs.get("beta", 1.0)
    inputs = _inputs(ctx, node)
    if (attrs.get("transA", 0), attrs.get("transB", 0), alpha, beta) == (0, 1, 1.0, 1.0) and (
            node.input[1] in ctx.constants):
        weight = ctx.constants[node.input[1]]
        return S.FullyConnected(*inputs, num_hidden=weight.shape[0], no_bias=len(inputs) < 3)
    result = S.dot(inputs[0], inputs[1], transpose_a=bool(attrs.get("transA", 0)),
                   transpose_b=bool(attrs.get("transB", 0)))
    result = result * alpha if alpha != 1.0 else result
    if len(inputs) > 2:
        result = S.broadcast_add(result, inputs[2] * beta if beta != 1.0 else inputs[2])
    return result


@imports("BatchNormalization")
def batch_norm(ctx, node):
    if len(node.output) > 1 and any(node.output[1:]):
        raise ctx.fail(node, "training-mode outputs")
    return S.BatchNorm(*_inputs(ctx, node), eps=attributes(node).get("epsilon", 1e-5),
                       fix_gamma=False, use_global_stats=True)


@imports("InstanceNormalization")
def instance_norm(ctx, node):
    return S.InstanceNorm(*_inputs(ctx, node), eps=attributes(node).get("epsilon", 1e-5))


@imports("LayerNormalization")
def layer_norm(ctx, node):
    attrs = attributes(node)
    if attrs.get("axis", -1) % ctx.rank(node.input[0]) != ctx.rank(node.input[0]) - 1:
        raise ctx.fail(node, "normalising more than the last axis")
    if len(node.output) > 1 and any(node.output[1:]):
        raise ctx.fail(node, "mean / inv_std_dev outputs")
    return S.LayerNorm(*_inputs(ctx, node), axis=-1, eps=attrs.get("epsilon", 1e-5))


_POOL = {"MaxPool": "max", "AveragePool": "avg", "LpPool": "lp"}
_GLOBAL_POOL = {"GlobalMaxPool": "max", "GlobalAveragePool": "avg", "GlobalLpPool": "lp"}


@imports(*_POOL)
def pool(ctx, node):
    attrs = attributes(node)
    kernel = tuple(attrs["kernel_shape"])
    ndim = len(kernel)
    if any(d != 1 for d in attrs.get("dilations", [1])) or attrs.get("storage_order", 0):
        raise ctx.fail(node, "dilations or storage_order")
    extra = {"p_value": attrs.get("p", 2)} if node.op_type == "LpPool" else {}
    if node.op_type == "AveragePool":
        extra["count_include_pad"] = bool(attrs.get("count_include_pad", 0))
    return S.Pooling(ctx.sym(node.input[0]), kernel=kernel, pool_type=_POOL[node.op_type],
                     stride=tuple(attrs.get("strides", [1] * ndim)),
                     pad=_symmetric_pads(ctx, node, attrs, ndim),
                     pooling_convention="full" if attrs.get("ceil_mode", 0) else "valid",
                     **extra)


@imports(*_GLOBAL_POOL)
def global_pool(ctx, node):
    extra = {"p_value": attributes(node).get("p", 2)} if node.op_type == "GlobalLpPool" else {}
    ndim = ctx.rank(node.input[0]) - 2
    return S.Pooling(ctx.sym(node.input[0]), kernel=(1,) * ndim, global_pool=True,
                     pool_type=_GLOBAL_POOL[node.op_type], **extra)


@imports("LeakyRelu", "Elu")
def leaky(ctx, node):
    default = 0.01 if node.op_type == "LeakyRelu" else 1.0
    return S.LeakyReLU(ctx.sym(node.input[0]), act_type="leaky" if default == 0.01 else "elu",
                       slope=attributes(node).get("alpha", default))


@imports("Selu", "Gelu")
def selu_gelu(ctx, node):
    attrs = attributes(node)
    if attrs.get("approximate", "none") not in ("none", b"none") or "alpha" in attrs:
        raise ctx.fail(node, "non-default approximate / alpha / gamma")
    return S.LeakyReLU(ctx.sym(node.input[0]), act_type=node.op_type.lower())


@imports("PRelu")
def prelu(ctx, node):
    slope = ctx.const(node.input[1], "PRelu slope")
    ctx.constants[node.input[1]] = slope.reshape(-1)
    return S.LeakyReLU(ctx.sym(node.input[0]), ctx.sym(node.input[1]), act_type="prelu")


@imports("Softmax", "LogSoftmax")
def softmax(ctx, node):
    axis = attributes(node).get("axis", -1 if ctx.opset >= 13 else 1)
    if ctx.opset < 13 and axis % ctx.rank(node.input[0]) != ctx.rank(node.input[0]) - 1:
        raise ctx.fail(node, "opset < 13 softmax over flattened axes")
    name = "softmax" if node.op_type == "Softmax" else "log_softmax"
    return _op(name, ctx.sym(node.input[0]), axis=axis)


# -- tensor ops ------------------------------------------------------------------------------------
@imports("Reshape")
def reshape(ctx, node):
    """Constant targets map to Reshape (0 and -1 mean what they mean in MXNet); a target made of
    another tensor's dims becomes Reshape + reshape_like."""
    data = ctx.sym(node.input[0])
    target = ctx.shape_value(node.input[1])
    if target is None or attributes(node).get("allowzero", 0):
        raise ctx.fail(node, "a shape computed by ops other than Shape/Slice/Gather/Concat")
    target = [0 if d == Dim(node.input[0], k) else d for k, d in enumerate(target)]
    refs = [k for k, d in enumerate(target) if isinstance(d, Dim)]
    if not refs:
        return S.Reshape(data, shape=tuple(target))
    first, last, source = refs[0], refs[-1], target[refs[0]]
    run = [target[k] for k in range(first, last + 1)]
    if any(not isinstance(d, Dim) or d.tensor != source.tensor or d.axis != source.axis + i
           for i, d in enumerate(run)) or -1 in target:
        raise ctx.fail(node, f"shape {target} mixes dims of several tensors")
    collapsed = S.Reshape(data, shape=tuple(target[:first] + [-1] + target[last + 1:]))
    return S.reshape_like(collapsed, ctx.sym(source.tensor), lhs_begin=first, lhs_end=first + 1,
                          rhs_begin=source.axis, rhs_end=source.axis + len(run))


@imports("Flatten")
def flatten(ctx, node):
    """Merge the leading ``axis`` dims (MXNet's -3 code, once per extra dim), then Flatten."""
    data = ctx.sym(node.input[0])
    axis = attributes(node).get("axis", 1) % ctx.rank(node.input[0])
    if axis == 0:
        return S.Reshape(data, shape=(1, -1))
    for _ in range(axis - 1):
        data = S.Reshape(data, shape=(-3, -2))
    return S.Flatten(data)


@imports("Transpose")
def transpose(ctx, node):
    perm = attributes(node).get("perm")
    return S.transpose(ctx.sym(node.input[0]), axes=tuple(perm) if perm else None)


def _axes(ctx, node):
    axes = attributes(node).get("axes")
    value = ctx.optional_const(node, 1) if axes is None else axes
    return None if value is None else [int(a) for a in numpy.atleast_1d(value)]


@imports("Unsqueeze")
def unsqueeze(ctx, node):
    result = ctx.sym(node.input[0])
    rank = ctx.rank(node.input[0]) + len(_axes(ctx, node))
    for axis in sorted(a % rank for a in _axes(ctx, node)):
        result = S.expand_dims(result, axis=axis)
    return result


@imports("Squeeze")
def squeeze(ctx, node):
    axes = _axes(ctx, node)
    return S.squeeze(ctx.sym(node.input[0]), axis=None if axes is None else tuple(axes))


@imports("Concat")
def concat(ctx, node):
    inputs = _inputs(ctx, node)
    return S.Concat(*inputs, dim=attributes(node)["axis"], num_args=len(inputs))


@imports("Split")
def split(ctx, node):
    attrs = attributes(node)
    axis, parts = attrs.get("axis", 0), len(node.output)
    sizes = ctx.optional_const(node, 1)
    sizes = attrs.get("split") if sizes is None else [int(s) for s in sizes]
    data = ctx.sym(node.input[0])
    if not sizes or len(set(sizes)) == 1:
        outs = S.SliceChannel(data, num_outputs=parts, axis=axis)
        return [outs[i] for i in range(parts)]
    bounds = numpy.cumsum([0] + list(sizes))
    return [S.slice_axis(data, axis=axis, begin=int(b), end=int(e))
            for b, e in itertools.pairwise(bounds)]


@imports("Slice")
def slice_(ctx, node):
    starts, ends = ctx.const(node.input[1]), ctx.const(node.input[2])
    rank = ctx.rank(node.input[0])
    axes = ctx.optional_const(node, 3)
    axes = list(range(len(starts))) if axes is None else [int(a) % rank for a in axes]
    steps = ctx.optional_const(node, 4)
    steps = [1] * len(starts) if steps is None else [int(s) for s in steps]
    begin, end, step = [None] * rank, [None] * rank, [1] * rank
    big = 2 ** 62
    for a, b, e, s in zip(axes, starts, ends, steps):
        begin[a] = None if abs(int(b)) >= big else int(b)
        end[a] = None if abs(int(e)) >= big else int(e)
        step[a] = s
    return S.slice(ctx.sym(node.input[0]), begin=tuple(begin), end=tuple(end), step=tuple(step))


@imports("Gather")
def gather(ctx, node):
    return S.take(ctx.sym(node.input[0]), ctx.sym(node.input[1]),
                  axis=attributes(node).get("axis", 0))


@imports(*_REDUCE)
def reduce(ctx, node):
    attrs = attributes(node)
    axes = _axes(ctx, node)
    if axes is None and attrs.get("noop_with_empty_axes", 0):
        return S._copy(ctx.sym(node.input[0]))
    return _op(_REDUCE[node.op_type], ctx.sym(node.input[0]),
               axis=None if axes is None else tuple(axes), keepdims=bool(attrs.get("keepdims", 1)))


@imports("ReduceL2", "ReduceL1")
def reduce_norm(ctx, node):
    axes = _axes(ctx, node)
    return S.norm(ctx.sym(node.input[0]), ord=2 if node.op_type == "ReduceL2" else 1,
                  axis=None if axes is None else tuple(axes),
                  keepdims=bool(attributes(node).get("keepdims", 1)))


@imports("ArgMax", "ArgMin")
def arg_reduce(ctx, node):
    attrs = attributes(node)
    return _op(node.op_type.lower(), ctx.sym(node.input[0]), axis=attrs.get("axis", 0),
               keepdims=bool(attrs.get("keepdims", 1)))


@imports("Cast")
def cast(ctx, node):
    return S.Cast(ctx.sym(node.input[0]), dtype=numpy_type(attributes(node)["to"]).name)


@imports("Clip")
def clip(ctx, node):
    low, high = ctx.optional_const(node, 1), ctx.optional_const(node, 2)
    return S.clip(ctx.sym(node.input[0]), a_min=None if low is None else low.item(),
                  a_max=None if high is None else high.item())


@imports("ConstantOfShape")
def constant_of_shape(ctx, node):
    """The shape of another tensor filled with one value: zeros_like (+ value), cast."""
    target = ctx.shape_value(node.input[0])
    if not target or not all(d == Dim(target[0].tensor, k) if isinstance(d, Dim) else False
                             for k, d in enumerate(target)):
        raise ctx.fail(node, "a shape that is not one tensor's whole shape")
    value = attributes(node).get("value")
    fill = (require("onnx.numpy_helper").to_array(value) if value is not None
            else numpy.zeros(1, "float32"))
    result = S.zeros_like(ctx.sym(target[0].tensor))
    result = result + fill.item() if fill.item() != 0 else result
    return S.Cast(result, dtype=fill.dtype.name)


@imports("Tile")
def tile(ctx, node):
    reps = ctx.const(node.input[1], "Tile repeats")
    return S.tile(ctx.sym(node.input[0]), reps=tuple(int(r) for r in reps))


@imports("Where")
def where(ctx, node):
    return S._npi_where(*_inputs(ctx, node))   # NOTE: ONNX broadcasts all three (NumPy's rule)


@imports("Expand")
def expand(ctx, node):
    target = ctx.shape_value(node.input[1])
    if target and all(d == Dim(target[0].tensor, k) if isinstance(d, Dim) else False
                      for k, d in enumerate(target)):
        return S.broadcast_like(ctx.sym(node.input[0]), ctx.sym(target[0].tensor))
    if target is None or any(isinstance(d, Dim) for d in target):
        raise ctx.fail(node, "a target shape that is neither constant nor another tensor's")
    lead = len(target) - ctx.rank(node.input[0])
    # NOTE: ONNX's 1 keeps the input's dim (bidirectional broadcast): MXNet's code for that is 0
    return S.broadcast_to(ctx.sym(node.input[0]),
                          shape=tuple(0 if d == 1 and k >= lead else d
                                      for k, d in enumerate(target)))
