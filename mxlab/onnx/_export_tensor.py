"""ONNX converters for tensor ops: elementwise and broadcast arithmetic (and their scalar forms),
unary maths, reductions, shape manipulation, slicing, concatenation and products. Ops that differ
only in the ONNX op they become are registered from tables."""
import numpy

from ._common import require, tensor_type, unmapped
from ._registry import exports

_INT64_MAX = numpy.iinfo(numpy.int64).max
_INT64_MIN = numpy.iinfo(numpy.int64).min


def _fail(ctx, node, why):
    return unmapped(node.op.name, node.name, ctx.opset, why)


def _to_out_dtype(ctx, node, result):
    """Cast ``result`` (an ONNX bool / int64 tensor) to the dtype mxlab gives the output."""
    return ctx.emit("Cast", [result], ctx.out(node), to=tensor_type(ctx.out_dtype(node)))


# -- elementwise: two tensors, a tensor and a scalar, one tensor ----------------------------------
_ARITH = {"broadcast_add": "Add", "broadcast_sub": "Sub", "broadcast_mul": "Mul",
          "broadcast_div": "Div", "_npi_true_divide": "Div", "broadcast_power": "Pow",
          "broadcast_maximum": "Max",
          "broadcast_minimum": "Min", "elemwise_add": "Add", "elemwise_sub": "Sub",
          "elemwise_mul": "Mul", "elemwise_div": "Div", "_grad_add": "Add"}
_COMPARE = {"broadcast_equal": "Equal", "broadcast_greater": "Greater",
            "broadcast_greater_equal": "GreaterOrEqual", "broadcast_lesser": "Less",
            "broadcast_lesser_equal": "LessOrEqual", "_npi_equal": "Equal",
            "_npi_greater": "Greater", "_npi_greater_equal": "GreaterOrEqual",
            "_npi_less": "Less", "_npi_less_equal": "LessOrEqual"}
_NOT_EQUAL = ("broadcast_not_equal", "_npi_not_equal")
# scalar op -> (ONNX op, scalar comes first)
_SCALAR = {"_plus_scalar": ("Add", False), "_minus_scalar": ("Sub", False),
           "_rminus_scalar": ("Sub", True), "_mul_scalar": ("Mul", False),
           "_div_scalar": ("Div", False), "_rdiv_scalar": ("Div", True),
           "_npi_true_divide_scalar": ("Div", False), "_npi_rtrue_divide_scalar": ("Div", True),
           "_power_scalar": ("Pow", False), "_rpower_scalar": ("Pow", True),
           "_maximum_scalar": ("Max", False), "_minimum_scalar": ("Min", False),
           "_equal_scalar": ("Equal", False), "_npi_equal_scalar": ("Equal", False),
           "_greater_scalar": ("Greater", False), "_npi_greater_scalar": ("Greater", False),
           "_greater_equal_scalar": ("GreaterOrEqual", False),
           "_npi_greater_equal_scalar": ("GreaterOrEqual", False),
           "_lesser_scalar": ("Less", False), "_npi_less_scalar": ("Less", False),
           "_lesser_equal_scalar": ("LessOrEqual", False),
           "_npi_less_equal_scalar": ("LessOrEqual", False)}
_UNARY = {"abs": "Abs", "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "ceil": "Ceil",
          "floor": "Floor", "negative": "Neg", "reciprocal": "Reciprocal", "sin": "Sin",
          "cos": "Cos", "tan": "Tan", "arcsin": "Asin", "arccos": "Acos", "arctan": "Atan",
          "sinh": "Sinh", "cosh": "Cosh", "arcsinh": "Asinh", "arccosh": "Acosh",
          "arctanh": "Atanh", "erf": "Erf", "sign": "Sign", "rint": "Round",
          "_copy": "Identity", "BlockGrad": "Identity", "MakeLoss": "Identity",
          "make_loss": "Identity"}  # NOTE: gradient-only ops are the identity at inference


def _binary(onnx_op):
    def convert(ctx, node):
        ctx.emit(onnx_op, [ctx.inp(node, 0), ctx.inp(node, 1)], ctx.out(node))
    return convert


def _comparison(onnx_op, negate=False):
    def convert(ctx, node):
        result = ctx.emit(onnx_op, [ctx.inp(node, 0), ctx.inp(node, 1)])
        _to_out_dtype(ctx, node, ctx.emit("Not", [result]) if negate else result)
    return convert


def _with_scalar(onnx_op, scalar_first):
    def convert(ctx, node):
        scalar = ctx.const(node.attrs["scalar"], ctx.in_dtype(node), "scalar")
        operands = [scalar, ctx.inp(node)] if scalar_first else [ctx.inp(node), scalar]
        if onnx_op in _COMPARE.values():
            _to_out_dtype(ctx, node, ctx.emit(onnx_op, operands))
        else:
            ctx.emit(onnx_op, operands, ctx.out(node))
    return convert


def _unary(onnx_op):
    def convert(ctx, node):
        ctx.emit(onnx_op, [ctx.inp(node)], ctx.out(node))
    return convert


for _name, _onnx in _ARITH.items():
    exports(_name)(_binary(_onnx))
for _name, _onnx in _COMPARE.items():
    exports(_name)(_comparison(_onnx))
for _name in _NOT_EQUAL:
    exports(_name)(_comparison("Equal", negate=True))
for _name, (_onnx, _first) in _SCALAR.items():
    exports(_name)(_with_scalar(_onnx, _first))
for _name, _onnx in _UNARY.items():
    exports(_name)(_unary(_onnx))


@exports("_not_equal_scalar", "_npi_not_equal_scalar")
def not_equal_scalar(ctx, node):
    scalar = ctx.const(node.attrs["scalar"], ctx.in_dtype(node), "scalar")
    _to_out_dtype(ctx, node, ctx.emit("Not", [ctx.emit("Equal", [ctx.inp(node), scalar])]))


@exports("logical_not", "_npi_logical_not")
def logical_not(ctx, node):
    zero = ctx.const(0, ctx.in_dtype(node), "zero")
    _to_out_dtype(ctx, node, ctx.emit("Equal", [ctx.inp(node), zero]))


@exports("log1p", "expm1", "log2", "log10")
def log_exp_variants(ctx, node):
    """log(1 + x), exp(x) - 1, log(x) / log(base): exact up to fp32 rounding near 0."""
    dtype, data, name = ctx.in_dtype(node), ctx.inp(node), node.op.name
    if name == "log1p":
        ctx.emit("Log", [ctx.emit("Add", [data, ctx.const(1, dtype, "one")])], ctx.out(node))
    elif name == "expm1":
        ctx.emit("Sub", [ctx.emit("Exp", [data]), ctx.const(1, dtype, "one")], ctx.out(node))
    else:
        base = ctx.const(numpy.log(2.0 if name == "log2" else 10.0), dtype, "log_base")
        ctx.emit("Div", [ctx.emit("Log", [data]), base], ctx.out(node))


@exports("square")
def square(ctx, node):
    ctx.emit("Mul", [ctx.inp(node), ctx.inp(node)], ctx.out(node))


@exports("rsqrt")
def rsqrt(ctx, node):
    ctx.emit("Reciprocal", [ctx.emit("Sqrt", [ctx.inp(node)])], ctx.out(node))


@exports("ElementWiseSum")
def elementwise_sum(ctx, node):
    ctx.emit("Sum", [ctx.inp(node, i) for i in range(len(node.inputs))], ctx.out(node))


@exports("Cast")
def cast(ctx, node):
    ctx.emit("Cast", [ctx.inp(node)], ctx.out(node), to=tensor_type(ctx.out_dtype(node)))


@exports("clip")
def clip(ctx, node):
    dtype = ctx.in_dtype(node)
    bounds = [ctx.const(node.attrs[k], dtype, k) if node.attrs[k] is not None else ""
              for k in ("a_min", "a_max")]
    ctx.emit("Clip", [ctx.inp(node)] + bounds, ctx.out(node))


@exports("where", "_npi_where")
def where(ctx, node):
    condition = ctx.emit("Cast", [ctx.inp(node, 0)], to=9)  # NOTE: 9 = BOOL
    rank = len(ctx.out_shape(node))
    if node.op.name == "where" and len(ctx.in_shape(node, 0)) == 1 and rank > 1:
        # NOTE: MXNet 1.x's 1-D condition selects rows: (n,) -> (n, 1, ...) for ONNX broadcasting
        condition = ctx.emit("Reshape", [condition, ctx.int64s([-1] + [1] * (rank - 1))])
    ctx.emit("Where", [condition, ctx.inp(node, 1), ctx.inp(node, 2)], ctx.out(node))


# -- reductions ------------------------------------------------------------------------------------
_REDUCE = {"sum": "ReduceSum", "_np_sum": "ReduceSum", "mean": "ReduceMean",
           "_npi_mean": "ReduceMean", "max": "ReduceMax", "_np_max": "ReduceMax",
           "min": "ReduceMin", "_np_min": "ReduceMin", "prod": "ReduceProd",
           "_np_prod": "ReduceProd"}


def _reduce_axes(ctx, node):
    """The reduced axes as a sorted list (MXNet's ``exclude`` inverts them); None for all."""
    axis, ndim = node.attrs.get("axis"), len(ctx.in_shape(node))
    if axis is None or axis == ():
        return None
    axes = sorted(a % ndim for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if node.attrs.get("exclude"):
        axes = [a for a in range(ndim) if a not in axes]
    return axes


def _reduction(onnx_op):
    def convert(ctx, node):
        if node.attrs.get("initial") is not None:
            raise _fail(ctx, node, "initial=")
        keep = int(bool(node.attrs.get("keepdims")))
        axes = _reduce_axes(ctx, node)
        cast = ctx.out_dtype(node) != ctx.in_dtype(node)
        result = ctx.axes_op(onnx_op, ctx.inp(node), axes, None if cast else ctx.out(node),
                             keepdims=keep)
        if cast:
            _to_out_dtype(ctx, node, result)
    return convert


for _name, _onnx in _REDUCE.items():
    exports(_name)(_reduction(_onnx))


@exports("norm")
def norm(ctx, node):
    if node.attrs["ord"] not in (1, 2):
        raise _fail(ctx, node, f"ord={node.attrs['ord']}")
    onnx_op = "ReduceL2" if node.attrs["ord"] == 2 else "ReduceL1"
    ctx.axes_op(onnx_op, ctx.inp(node), _reduce_axes(ctx, node), ctx.out(node),
                keepdims=int(node.attrs["keepdims"]))


@exports("argmax", "_npi_argmax", "argmin", "_npi_argmin")
def arg_reduce(ctx, node):
    onnx_op = "ArgMax" if "max" in node.op.name else "ArgMin"
    data, axis = ctx.inp(node), node.attrs["axis"]
    if axis is None:
        data, axis = ctx.emit("Reshape", [data, ctx.int64s([-1])]), 0
    result = ctx.emit(onnx_op, [data], axis=int(axis), keepdims=int(node.attrs["keepdims"]))
    _to_out_dtype(ctx, node, result)


# -- shapes ----------------------------------------------------------------------------------------
@exports("Reshape", "_np_reshape", "_npx_reshape", "reshape_like")
def reshape(ctx, node):
    """MXNet's reshape codes resolved by shape inference: the target is the inferred output
    shape, with dynamic dims as copies of the input's (0) or one -1."""
    ctx.emit("Reshape", [ctx.inp(node), ctx.int64s(ctx.target_shape(node), "shape")],
             ctx.out(node))


@exports("broadcast_to", "broadcast_axis")
def broadcast_to(ctx, node):
    """Expand to the inferred shape; a dim copied from the input is 1 (Expand keeps it)."""
    target = ctx.target_shape(node)
    if -1 in target:
        raise _fail(ctx, node, "broadcasting to a dynamic size")
    ctx.emit("Expand", [ctx.inp(node), ctx.int64s([d or 1 for d in target], "shape")],
             ctx.out(node))


@exports("broadcast_like")
def broadcast_like(ctx, node):
    if any(node.attrs.get(k) is not None for k in ("lhs_axes", "rhs_axes")):
        raise _fail(ctx, node, "lhs_axes/rhs_axes")
    ctx.emit("Expand", [ctx.inp(node, 0), ctx.emit("Shape", [ctx.inp(node, 1)])], ctx.out(node))


@exports("Flatten")
def flatten(ctx, node):
    ctx.emit("Flatten", [ctx.inp(node)], ctx.out(node), axis=1)


@exports("expand_dims")
def expand_dims(ctx, node):
    axis = node.attrs["axis"] % len(ctx.out_shape(node))
    ctx.axes_op("Unsqueeze", ctx.inp(node), [axis], ctx.out(node))


@exports("squeeze")
def squeeze(ctx, node):
    axis = node.attrs["axis"]
    axes = None if axis is None else [a % len(ctx.in_shape(node)) for a in (
        axis if isinstance(axis, (tuple, list)) else (axis,))]
    ctx.axes_op("Squeeze", ctx.inp(node), axes, ctx.out(node))


def _permutation(ctx, node):
    ndim, attrs = len(ctx.in_shape(node)), node.attrs
    if node.op.name == "transpose":
        axes = attrs["axes"]
        return list(reversed(range(ndim))) if not axes else [a % ndim for a in axes]
    if node.op.name == "_np_moveaxis":
        perm = [a for a in range(ndim) if a != attrs["source"] % ndim]
        perm.insert(attrs["destination"] % ndim, attrs["source"] % ndim)
        return perm
    first, second = (("dim1", "dim2") if node.op.name == "SwapAxis" else ("axis1", "axis2"))
    perm = list(range(ndim))
    a, b = attrs[first] % ndim, attrs[second] % ndim
    perm[a], perm[b] = perm[b], perm[a]
    return perm


@exports("transpose", "SwapAxis", "_npi_swapaxes", "_np_moveaxis")
def transpose(ctx, node):
    ctx.emit("Transpose", [ctx.inp(node)], ctx.out(node), perm=_permutation(ctx, node))


def _slice_bounds(begin, end, step):
    """ONNX Slice starts/ends for MXNet's (None-able) begin/end."""
    start = begin if begin is not None else (0 if step > 0 else _INT64_MAX)
    stop = end if end is not None else (_INT64_MAX if step > 0 else _INT64_MIN)
    return start, stop


@exports("slice")
def slice_(ctx, node):
    begin, end = node.attrs["begin"], node.attrs["end"]
    steps = tuple(node.attrs["step"] or ()) + (None,) * len(begin)
    bounds = [_slice_bounds(b, e, s or 1) for b, e, s in zip(begin, end, steps)]
    ctx.emit("Slice", [ctx.inp(node), ctx.int64s([b for b, _ in bounds], "starts"),
                       ctx.int64s([e for _, e in bounds], "ends"),
                       ctx.int64s(list(range(len(begin))), "axes"),
                       ctx.int64s([s or 1 for s in steps[:len(begin)]], "steps")], ctx.out(node))


@exports("slice_axis")
def slice_axis(ctx, node):
    start, stop = _slice_bounds(node.attrs["begin"], node.attrs["end"], 1)
    ctx.emit("Slice", [ctx.inp(node), ctx.int64s([start]), ctx.int64s([stop]),
                       ctx.int64s([node.attrs["axis"]])], ctx.out(node))


@exports("reverse", "_npi_flip")
def reverse(ctx, node):
    ndim, axis = len(ctx.in_shape(node)), node.attrs["axis"]
    axes = range(ndim) if axis is None else (axis if isinstance(axis, (tuple, list)) else (axis,))
    axes = sorted(a % ndim for a in axes)
    ctx.emit("Slice", [ctx.inp(node), ctx.int64s([-1] * len(axes), "starts"),
                       ctx.int64s([_INT64_MIN] * len(axes), "ends"), ctx.int64s(axes, "axes"),
                       ctx.int64s([-1] * len(axes), "steps")], ctx.out(node))


@exports("tile")
def tile(ctx, node):
    """MXNet pads ``reps`` or the input's shape with leading ones to the same length."""
    reps, ndim = list(node.attrs["reps"]), len(ctx.in_shape(node))
    data = ctx.inp(node)
    if len(reps) > ndim:
        data = ctx.axes_op("Unsqueeze", data, list(range(len(reps) - ndim)))
    reps = [1] * (ndim - len(reps)) + reps
    ctx.emit("Tile", [data, ctx.int64s(reps, "reps")], ctx.out(node))


@exports("Concat", "_npi_concatenate")
def concat(ctx, node):
    axis = node.attrs["dim"] if node.op.name == "Concat" else node.attrs["axis"]
    inputs = [ctx.inp(node, i) for i in range(len(node.inputs))]
    ctx.emit("Concat", inputs, ctx.out(node), axis=int(axis))


@exports("stack")
def stack(ctx, node):
    axis = node.attrs["axis"] % len(ctx.out_shape(node))
    parts = [ctx.axes_op("Unsqueeze", ctx.inp(node, i), [axis]) for i in range(len(node.inputs))]
    ctx.emit("Concat", parts, ctx.out(node), axis=axis)


@exports("SliceChannel", "_npi_split")
def split(ctx, node):
    """Equal parts (SliceChannel, sections) or cut points (indices), optionally squeezed."""
    attrs, ndim = node.attrs, len(ctx.in_shape(node))
    axis = attrs["axis"] % ndim
    squeeze_axis = attrs.get("squeeze_axis", attrs.get("squeeze"))
    sizes = [ctx.out_shape(node, i)[axis] if not squeeze_axis else 1
             for i in range(node.num_outputs)]
    if axis in ctx.dynamic_axes(ctx.inp(node)):
        raise _fail(ctx, node, "splitting a dynamic axis")
    outs = [ctx.out(node, i) for i in range(node.num_outputs)]
    parts = outs if not squeeze_axis else [ctx.fresh(o) for o in outs]
    ctx.emit("Split", [ctx.inp(node), ctx.int64s(sizes, "split")], parts, axis=axis)
    if squeeze_axis:
        for part, out in zip(parts, outs):
            ctx.axes_op("Squeeze", part, [axis], out)


# -- products and gathers --------------------------------------------------------------------------
def _transposed_last2(ctx, name, ndim):
    perm = list(range(ndim - 2)) + [ndim - 1, ndim - 2]
    return ctx.emit("Transpose", [name], perm=perm)


@exports("dot", "batch_dot", "_np_dot", "_npi_matmul")
def dot(ctx, node):
    """MatMul (with transposes): equal to MXNet's dot while the right side is at most 2-D."""
    lhs, rhs = ctx.inp(node, 0), ctx.inp(node, 1)
    lhs_nd, rhs_nd = len(ctx.in_shape(node, 0)), len(ctx.in_shape(node, 1))
    if node.op.name in ("dot", "_np_dot") and rhs_nd > 2:
        raise _fail(ctx, node, "dot with a right-hand side of more than 2 dims")
    if node.attrs.get("transpose_a"):
        lhs = (_transposed_last2(ctx, lhs, lhs_nd) if node.op.name == "batch_dot" else
               ctx.emit("Transpose", [lhs], perm=list(reversed(range(lhs_nd)))))
    if node.attrs.get("transpose_b"):
        rhs = _transposed_last2(ctx, rhs, rhs_nd) if rhs_nd >= 2 else rhs
    ctx.emit("MatMul", [lhs, rhs], ctx.out(node))


@exports("take")
def take(ctx, node):
    if node.attrs["mode"] == "wrap":
        raise _fail(ctx, node, "mode='wrap'")
    indices = ctx.emit("Cast", [ctx.inp(node, 1)], to=7)  # NOTE: 7 = INT64
    ctx.emit("Gather", [ctx.inp(node, 0), indices], ctx.out(node), axis=int(node.attrs["axis"]))


@exports("zeros_like", "ones_like")
def fill_like(ctx, node):
    value = 1 if node.op.name == "ones_like" else 0
    fill = require("onnx.numpy_helper").from_array(numpy.full((1,), value, ctx.out_dtype(node)))
    ctx.emit("ConstantOfShape", [ctx.emit("Shape", [ctx.inp(node)])], ctx.out(node), value=fill)


@exports("_npi_zeros", "_ones", "_full")
def filled(ctx, node):
    """A constant of the node's static shape (e.g. an RNN layer's zero begin state); a shape
    that follows a dynamic input axis cannot be frozen into the file."""
    out = ctx.out(node)
    if ctx.dynamic_axes(out):
        raise _fail(ctx, node, "a filled array whose shape follows a dynamic input axis "
                               "(export with dynamic=False)")
    value = {"_npi_zeros": 0, "_ones": 1}.get(node.op.name, node.attrs.get("value", 0))
    ctx.add_initializer(out, numpy.full(ctx.out_shape(node), value, ctx.out_dtype(node)))
