"""MXNet's same-shape elementwise arithmetic: ``elemwise_add``/``_sub``/``_mul``/``_div`` (the ops
a legacy symbol's ``a + b`` builds, also named ``_plus``/``_Plus``/``_add``, ...) and the gradient
pass's ``_grad_add``. Unlike ``broadcast_*`` they never broadcast: both operands and the output have
one shape (MXNet's ``ElemwiseShape``), so an operand of partly unknown shape takes the other's
dims, and a mismatch is an error naming the op and both shapes. Both operands have one dtype
(``ElemwiseType``: no promotion).

Example
-------
>>> import mxlab as mx
>>> a, b = mx.sym.var('a'), mx.sym.var('b')
>>> (a + b).infer_shape_partial(a=(2, 0), b=(0, 3))[0]
[(2, 3), (2, 3)]
>>> mx.nd.elemwise_add(mx.nd.ones((2, 3)), mx.nd.ones((1, 3)))
Traceback (most recent call last):
    ...
mxlab.base.MXNetValueError: elemwise_add: operands must have one shape (elemwise ops do not \
broadcast; use broadcast_add): lhs (2, 3), rhs (1, 3)
"""
from ..base import MXNetValueError
from .division import c_divide
from .elemwise import binary
from .infer import one_dtype
from .registry import F

__all__ = []


def _same_shape_rule(op_name):
    """``infer_shape`` of ``op_name``: lhs, rhs and output share one shape; unknown (None) dims
    are filled from the others; known dims that differ are an error naming both shapes."""
    def infer_shape(attrs, in_shapes, out_shapes=None):
        named = list(zip(("lhs", "rhs", "output"), list(in_shapes) + list(out_shapes or ())))
        merged = None
        for _, shape in named:
            if shape is None:
                continue
            if merged is not None and (len(shape) != len(merged) or any(
                    a is not None and b is not None and a != b for a, b in zip(merged, shape))):
                shown = ", ".join(f"{n} {tuple(s)}" for n, s in named if s is not None)
                raise MXNetValueError(
                    f"{op_name}: operands must have one shape (elemwise ops do not broadcast; "
                    f"use {_BROADCAST[op_name]}): {shown}")
            merged = tuple(shape) if merged is None else \
                tuple(a if a is not None else b for a, b in zip(merged, shape))
        return [merged, merged], [merged]
    return infer_shape


_BROADCAST = {"elemwise_add": "broadcast_add", "elemwise_sub": "broadcast_sub",
              "elemwise_mul": "broadcast_mul", "elemwise_div": "broadcast_div",
              "_grad_add": "broadcast_add"}


def _same(name, ufunc, grad, aliases=(), numexpr=None, doc=""):
    rule = _same_shape_rule(name)

    def checked(compute):
        """The kernel, refusing operands of two shapes (an imperative call infers no shapes)."""
        def same_shape_compute(xp, inputs, attrs):
            if inputs[0].shape != inputs[1].shape:
                rule(attrs, [inputs[0].shape, inputs[1].shape])
            return compute(xp, inputs, attrs)
        return same_shape_compute

    binary(name, ufunc, grad=grad, aliases=aliases, numexpr=numexpr, infer_shape=rule,
           infer_type=one_dtype(name, ("lhs", "rhs")), checked=checked, doc=doc)


def _mul_grad(node, g):
    a, b = node.inputs
    return [F.elemwise_mul(g[0], b), F.elemwise_mul(g[0], a)]


def _div_grad(node, g):
    a, b = node.inputs
    ga = F.elemwise_div(g[0], b)
    return [ga, F.negative(F.elemwise_mul(ga, F.elemwise_div(a, b)))]


_same("elemwise_add", "add", lambda node, g: [g[0], g[0]], ("_add", "_plus", "_Plus"),
      "({0} + {1})", "``lhs + rhs`` of one shape (no broadcasting).")
_same("elemwise_sub", "subtract", lambda node, g: [g[0], F.negative(g[0])],
      ("_sub", "_minus", "_Minus"), "({0} - {1})", "``lhs - rhs`` of one shape (no broadcasting).")
_same("elemwise_mul", "multiply", _mul_grad, ("_mul", "_Mul"), "({0} * {1})",
      "``lhs * rhs`` of one shape (no broadcasting).")
# NOTE: integers divide as C does, as broadcast_div (see mxlab.ops.division)
_same("elemwise_div", c_divide, _div_grad, ("_div", "_Div"), "({0} / {1})",
      "``lhs / rhs`` of one shape (no broadcasting; integers truncate toward zero).")
_same("_grad_add", "add", lambda node, g: [g[0], g[0]], (), "({0} + {1})",
      "Sum of two gradients (the ``sum_grad_<i>`` chain; may become an in-place add-to).")
