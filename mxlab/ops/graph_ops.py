"""Ops the graph passes insert: gradient sums, head-gradient placeholders and zero gradients.

These are the nodes MXNet's gradient pass builds (``ElementWiseSum`` "sum_grad",
``_identity_with_attr_like_rhs`` for head gradients; the ``_grad_add`` chain lives in
elemwise_same.py, ``_zeros`` in creation.py); they are ordinary registered ops, so they run,
infer shapes and differentiate like any other.

Example
-------
>>> import numpy
>>> from mxlab.ops.registry import get_op
>>> op = get_op("add_n")
>>> op.forward(numpy, [numpy.ones(2)] * 3, op.parse_attrs({"num_args": 3}))
[array([3., 3.])]
"""
from .attrs import Attr
from .infer import same_dtype, same_shape
from .registry import Op, register

__all__ = []


def _sum_compute(xp, inputs, attrs):
    total = inputs[0].copy()
    for x in inputs[1:]:
        total += x
    return total


def _sum_into(xp, inputs, attrs, outs):
    out = outs[0]
    # NOTE: the output may alias input 0 (in-place option): copy that one first, then only add.
    if out is not inputs[0]:
        xp.copyto(out, inputs[0], casting="unsafe")
    for x in inputs[1:]:
        xp.add(out, x, out=out)


def _copy_into(xp, inputs, attrs, outs):
    xp.copyto(outs[0], inputs[0], casting="unsafe")


_AT_LEAST_ONE = (lambda n: n >= 1, "must be >= 1")

register(Op(name="ElementWiseSum", aliases=("add_n",), compute=_sum_compute, compute_into=_sum_into,
            attrs=(Attr("num_args", "int", doc="number of inputs", check=_AT_LEAST_ONE),),
            num_inputs=lambda attrs: attrs["num_args"], input_names=("args",),
            infer_shape=same_shape, infer_type=same_dtype,
            gradient=lambda node, g: [g[0]] * len(node.inputs), inplace=((0, 0),),
            save_inputs=False, save_outputs=False, elementwise=True, npx_name="add_n",
            doc="Sum of ``num_args`` arrays of one shape (the gradient pass's ``sum_grad``)."))



def _like_rhs_shape(attrs, in_shapes, out_shapes=None):
    """lhs, rhs and the output share one shape, filled from whichever is known (MXNet's
    ``ElemwiseShape<2, 1>``: a FullyConnected weight's shape reaches a variable through it)."""
    return same_shape(attrs, in_shapes, out_shapes)


def _like_rhs_type(attrs, in_dtypes):
    lhs, rhs = in_dtypes
    dtype = rhs if rhs is not None else lhs
    return [dtype, dtype], [dtype]


register(Op(name="_identity_with_attr_like_rhs", compute=lambda xp, inputs, attrs: inputs[0].copy(),
            compute_into=_copy_into, num_inputs=2, input_names=("lhs", "rhs"),
            infer_shape=_like_rhs_shape, infer_type=_like_rhs_type,
            gradient=lambda node, g: [g[0], None], inplace=((0, 0),), ignore_inputs=(1,),
            save_inputs=False, save_outputs=False, hidden=True,
            doc="``lhs`` with the shape and dtype of ``rhs``: head gradients take their output's "
                "attributes without keeping it alive (``rhs`` is never read)."))

