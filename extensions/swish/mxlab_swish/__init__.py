"""An mxlab extension adding the op ``swish(x, beta=1.0) = x * sigmoid(beta * x)``.

Its forward runs on NumPy or CuPy (``xp``), its gradient is written with registered ops (so it
works for autograd and the graph gradient pass, and can be differentiated again), and its shape
and dtype rules are the elementwise ones.

Usage (from the repository root)::

    ext = mx.library.load("extensions/swish")
    mx.nd.swish(mx.nd.array([0.0, 1.0]))     # [0., 0.7311]
    mx.library.unload("swish")
"""
from mxlab.ops.attrs import Attr
from mxlab.ops.infer import same_dtype, same_shape
from mxlab.ops.registry import F, Op, register as register_op


def _swish(xp, inputs, attrs):
    x = inputs[0]
    return x / (1 + xp.exp(-attrs["beta"] * x))


def _swish_gradient(node, out_grads):
    """d/dx x*s(bx) = s + b * y * (1 - s), with s = sigmoid(b x) and y the output."""
    beta = node.attrs["beta"]
    s = F.sigmoid(F._mul_scalar(node.inputs[0], scalar=beta))
    slope = F._mul_scalar(F.elemwise_mul(node.outputs[0], F._rminus_scalar(s, scalar=1.0)),
                          scalar=beta)
    return [F.elemwise_mul(out_grads[0], F.elemwise_add(s, slope))]


def make_op():
    """A fresh ``swish`` op definition."""
    return Op(name="swish", compute=_swish, attrs=(Attr("beta", "float", 1.0),),
              infer_shape=same_shape, infer_type=same_dtype, gradient=_swish_gradient,
              inplace=((0, 0),), elementwise=True, npx_name="swish",
              doc="Swish activation ``x * sigmoid(beta * x)`` (Ramachandran et al., 2017).")


def register():
    """Called by ``mx.library.load``: register the op."""
    register_op(make_op())
