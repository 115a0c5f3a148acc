"""Elementwise ops: unary maps, broadcasting binary ops, scalar variants, copies and ``*_like`` helpers.

Each op is one :class:`~mxlab.ops.registry.Op` entry built by a small factory; the gradient is written with ops
from :data:`~mxlab.ops.registry.F` so it works on arrays and symbols and can be differentiated again.
"""
import numpy

from .attrs import Attr
from .infer import broadcast_shapes, same_shape
from ..imperative import invoke
from ..ndarray.ndarray import NDArray
from .registry import F, Op, get_op, register, register_frontend

__all__ = ["unary", "binary", "scalar_op"]


def _into(ufunc):
    def compute_into(xp, inputs, attrs, outs):
        getattr(xp, ufunc)(*inputs, out=outs[0])
    return compute_into


def unary(name, ufunc, grad=None, aliases=(), np_name=None, npx_name=None, numexpr=None, nd_names=None,
          doc=""):
    """Register a unary elementwise op computed by ``xp.<ufunc>`` (or a callable ``ufunc(xp, x)``)."""
    if callable(ufunc):
        compute, compute_into = (lambda xp, inputs, attrs: ufunc(xp, inputs[0])), None
    else:
        compute, compute_into = (lambda xp, inputs, attrs: getattr(xp, ufunc)(inputs[0])), _into(ufunc)
    return register(Op(name=name, compute=compute, compute_into=compute_into, aliases=tuple(aliases),
                       infer_shape=same_shape, gradient=grad, inplace=((0, 0),), elementwise=True,
                       numexpr=numexpr, np_name=np_name, npx_name=npx_name, nd_names=nd_names, doc=doc))


def _broadcast_infer(attrs, in_shapes):
    a, b = in_shapes
    if a is None or b is None or None in a or None in b:
        if a is not None and b is None:
            return [a, a], [a]
        if b is not None and a is None:
            return [b, b], [b]
        return in_shapes, [None]
    return in_shapes, [broadcast_shapes("broadcast", a, b)]


def binary(name, ufunc, grad=None, aliases=(), numexpr=None, np_name=None, nd_names=None, out_dtype=None,
           doc=""):
    """Register a broadcasting binary op computed by ``xp.<ufunc>``."""
    if out_dtype is None:
        compute = lambda xp, inputs, attrs: getattr(xp, ufunc)(inputs[0], inputs[1])  # noqa: E731
        compute_into = _into(ufunc)
    else:
        compute = lambda xp, inputs, attrs: getattr(xp, ufunc)(inputs[0], inputs[1]).astype(  # noqa: E731
            out_dtype(inputs[0].dtype), copy=False)
        compute_into = None
    return register(Op(name=name, compute=compute, compute_into=compute_into, num_inputs=2,
                       input_names=("lhs", "rhs"), aliases=tuple(aliases), infer_shape=_broadcast_infer,
                       gradient=grad, inplace=((0, 0), (1, 0)), elementwise=True, numexpr=numexpr,
                       np_name=np_name, nd_names=nd_names, doc=doc))


def scalar_result_dtype(x, scalar):
    """Result dtype of ``array op scalar``: the array's, except int/bool arrays with a float scalar -> float32."""
    if isinstance(scalar, float) and x.dtype.kind not in "fc":
        return numpy.float32
    return x.dtype


def scalar_op(name, fn, grad=None, aliases=(), numexpr=None, doc=""):
    """Register ``op(data, scalar=s)``; ``fn(xp, x, s)`` computes; the array's dtype is kept (see above)."""
    def compute(xp, inputs, attrs):
        x = inputs[0]
        result = fn(xp, x, attrs["scalar"])
        dtype = scalar_result_dtype(x, attrs["scalar"])
        return result if result.dtype == dtype else result.astype(dtype)
    return register(Op(name=name, compute=compute, aliases=tuple(aliases),
                       attrs=(Attr("scalar", "scalar", 1.0), Attr("is_int", "bool", True)),
                       infer_shape=same_shape, gradient=grad, inplace=((0, 0),), elementwise=True,
                       numexpr=numexpr, doc=doc))


def _sum_like(g, x):
    return F._reduce_sum_like(g, x)


# -- copies and helpers used by every gradient ------------------------------------------------------------
register(Op(name="_copy", aliases=("identity", "_copyto"), compute=lambda xp, inputs, attrs: inputs[0].copy(),
            compute_into=lambda xp, inputs, attrs, outs: xp.copyto(outs[0], inputs[0], casting="unsafe"),
            infer_shape=same_shape, gradient=lambda node, g: [g[0]], inplace=((0, 0),), elementwise=True,
            numexpr="{0}", npx_name=None, doc="Copy the input (also ``identity``)."))


def _reduce_sum_like(xp, inputs, attrs):
    """Sum a broadcast gradient back down to the shape of ``like`` (the inverse of broadcasting)."""
    g, like = inputs
    shape = like.shape
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape) if d == 1 and g.shape[i + lead] != 1)
    return g.sum(axis=axes).reshape(shape) if axes else g.reshape(shape)


register(Op(name="_reduce_sum_like", compute=_reduce_sum_like, num_inputs=2, input_names=("data", "like"),
            infer_shape=lambda attrs, s: [s[1]], infer_type=lambda attrs, d: [d[0]], ignore_inputs=(1,),
            gradient=lambda node, g: [F.broadcast_like(g[0], node.inputs[0]), None], save_inputs=(0,),
            doc="Sum ``data`` over broadcast axes so it has the shape of ``like``."))
register(Op(name="broadcast_like", compute=lambda xp, inputs, attrs: xp.broadcast_to(
                inputs[0], inputs[1].shape).copy(), num_inputs=2, input_names=("lhs", "rhs"),
            infer_shape=lambda attrs, s: [s[1]], infer_type=lambda attrs, d: [d[0]], ignore_inputs=(1,),
            gradient=lambda node, g: [F._reduce_sum_like(g[0], node.inputs[0]), None],
            doc="Broadcast ``lhs`` to the shape of ``rhs``."))
register(Op(name="zeros_like", aliases=("_zeros_like",), compute=lambda xp, inputs, attrs: xp.zeros_like(inputs[0]),
            infer_shape=same_shape, gradient=lambda node, g: [None], ignore_inputs=(0,), save_inputs=False,
            np_name="zeros_like", doc="Zeros with the shape and dtype of the input."))
register(Op(name="ones_like", aliases=("_ones_like",), compute=lambda xp, inputs, attrs: xp.ones_like(inputs[0]),
            infer_shape=same_shape, gradient=lambda node, g: [None], ignore_inputs=(0,), save_inputs=False,
            np_name="ones_like", doc="Ones with the shape and dtype of the input."))

# -- binary broadcasting arithmetic -------------------------------------------------------------------------
binary("broadcast_add", "add", aliases=("elemwise_add", "_plus", "_Plus", "_add", "_npi_add", "broadcast_plus"),
       numexpr="({0} + {1})", grad=lambda node, g: [_sum_like(g[0], node.inputs[0]), _sum_like(g[0], node.inputs[1])])
binary("broadcast_sub", "subtract",
       aliases=("elemwise_sub", "_minus", "_Minus", "_sub", "_npi_subtract", "broadcast_minus"),
       numexpr="({0} - {1})",
       grad=lambda node, g: [_sum_like(g[0], node.inputs[0]), _sum_like(F.negative(g[0]), node.inputs[1])])
binary("broadcast_mul", "multiply", aliases=("elemwise_mul", "_mul", "_Mul", "_npi_multiply"),
       numexpr="({0} * {1})",
       grad=lambda node, g: [_sum_like(F.broadcast_mul(g[0], node.inputs[1]), node.inputs[0]),
                             _sum_like(F.broadcast_mul(g[0], node.inputs[0]), node.inputs[1])])


def _div_grad(node, g):
    a, b = node.inputs
    ga = F.broadcast_div(g[0], b)
    gb = F.negative(F.broadcast_mul(ga, F.broadcast_div(a, b)))
    return [_sum_like(ga, a), _sum_like(gb, b)]


binary("broadcast_div", "true_divide", aliases=("elemwise_div", "_div", "_Div", "_npi_true_divide"),
       numexpr="({0} / {1})", grad=_div_grad)

# -- scalar variants -----------------------------------------------------------------------------------------
scalar_op("_plus_scalar", lambda xp, x, s: x + s, aliases=("_PlusScalar", "_npi_add_scalar"),
          numexpr="({0} + {s})", grad=lambda node, g: [g[0]])
scalar_op("_minus_scalar", lambda xp, x, s: x - s, aliases=("_MinusScalar", "_npi_subtract_scalar"),
          numexpr="({0} - {s})", grad=lambda node, g: [g[0]])
scalar_op("_rminus_scalar", lambda xp, x, s: s - x, aliases=("_RMinusScalar", "_npi_rsubtract_scalar"),
          numexpr="({s} - {0})", grad=lambda node, g: [F.negative(g[0])])
scalar_op("_mul_scalar", lambda xp, x, s: x * s, aliases=("_MulScalar", "_npi_multiply_scalar"),
          numexpr="({0} * {s})", grad=lambda node, g: [F._mul_scalar(g[0], scalar=node.attrs["scalar"])])
scalar_op("_div_scalar", lambda xp, x, s: x / s, aliases=("_DivScalar", "_npi_true_divide_scalar"),
          numexpr="({0} / {s})", grad=lambda node, g: [F._div_scalar(g[0], scalar=node.attrs["scalar"])])
scalar_op("_rdiv_scalar", lambda xp, x, s: s / x, aliases=("_RDivScalar", "_npi_rtrue_divide_scalar"),
          numexpr="({s} / {0})",
          grad=lambda node, g: [F.broadcast_mul(g[0], F._mul_scalar(
              F.reciprocal(F.square(node.inputs[0])), scalar=-node.attrs["scalar"]))])

# -- unary maps -------------------------------------------------------------------------------------------------
unary("negative", "negative", np_name="negative", numexpr="(-{0})", grad=lambda node, g: [F.negative(g[0])])
unary("reciprocal", "reciprocal", np_name="reciprocal", numexpr="(1 / {0})",
      grad=lambda node, g: [F.negative(F.broadcast_mul(g[0], F.square(F.reciprocal(node.inputs[0]))))])
unary("square", "square", np_name="square", numexpr="({0} * {0})",
      grad=lambda node, g: [F.broadcast_mul(g[0], F._mul_scalar(node.inputs[0], scalar=2.0))])
unary("exp", "exp", np_name="exp", numexpr="exp({0})",
      grad=lambda node, g: [F.broadcast_mul(g[0], node.outputs[0])])
unary("sin", "sin", np_name="sin", numexpr="sin({0})", grad=lambda node, g: [F.broadcast_mul(g[0], F.cos(node.inputs[0]))])
unary("cos", "cos", np_name="cos", numexpr="cos({0})",
      grad=lambda node, g: [F.negative(F.broadcast_mul(g[0], F.sin(node.inputs[0])))])
unary("tanh", "tanh", np_name="tanh", numexpr="tanh({0})",
      grad=lambda node, g: [F.broadcast_mul(g[0], F._rminus_scalar(F.square(node.outputs[0]), scalar=1.0))])


# -- hand-written frontends: python operators and scalars ---------------------------------------------------
def _binary_frontend(tensor_op, scalar_op_name, rscalar_op_name):
    """``f(x1, x2, out=None)`` picking the tensor op or the scalar variant (and its reflected form)."""
    def call(x1, x2, out=None):
        if isinstance(x1, NDArray) and isinstance(x2, NDArray):
            return _invoke_out(tensor_op, [x1, x2], {}, out)
        if isinstance(x1, NDArray):
            return _scalar_call(scalar_op_name, x1, x2, out)
        if isinstance(x2, NDArray):
            if rscalar_op_name is None:
                return _scalar_call(scalar_op_name, x2, x1, out)
            return _scalar_call(rscalar_op_name, x2, x1, out)
        return getattr(numpy, tensor_op.replace("broadcast_", ""), None)(x1, x2)
    return call


def _scalar_call(op_name, x, scalar, out):
    if not isinstance(scalar, (int, float, bool, numpy.generic)):
        from ..base import MXNetTypeError
        raise MXNetTypeError(f"{op_name}: operand must be an array or a Python scalar, got {type(scalar).__name__}")
    return _invoke_out(op_name, [x], {"scalar": scalar.item() if isinstance(scalar, numpy.generic) else scalar},
                       out)


def _invoke_out(op_name, inputs, kwargs, out):
    op = get_op(op_name)
    result = invoke(op, inputs, op.parse_attrs(kwargs), out=None if out is None else [out])
    return result[0]


add = register_frontend("np", "nd", name="add")(_binary_frontend("broadcast_add", "_plus_scalar", None))
subtract = register_frontend("np", "nd", name="subtract")(
    _binary_frontend("broadcast_sub", "_minus_scalar", "_rminus_scalar"))
multiply = register_frontend("np", "nd", name="multiply")(_binary_frontend("broadcast_mul", "_mul_scalar", None))
true_divide = register_frontend("np", "nd", name="true_divide")(
    _binary_frontend("broadcast_div", "_div_scalar", "_rdiv_scalar"))
register_frontend("np", "nd", name="divide")(true_divide)
