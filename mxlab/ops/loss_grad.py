"""Ops that steer gradients rather than values: ``BlockGrad``/``stop_gradient``, ``make_loss`` and
the legacy ``MakeLoss``.

All three are identities forward. ``BlockGrad`` sends no gradient back (its input's
gradient is zero, as MXNet's ``MakeZeroGradNodes`` gives); the loss ops ignore the head gradient and
start backward from ones (scaled and normalised as ``MakeLoss`` asks), so a symbol ending in one can
be trained by ``executor.backward()`` without head gradients.

Example
-------
>>> import mxlab as mx
>>> x = mx.nd.array([1.0, 2.0]); x.attach_grad()
>>> with mx.autograd.record():
...     y = mx.nd.BlockGrad(x * 3) + x
>>> y.backward(); x.grad.asnumpy()
array([1., 1.], dtype=float32)
"""
from .attrs import Attr
from .elemwise import zero_grads
from .infer import same_shape
from .registry import F, Op, register

__all__ = []


def _identity(xp, inputs, attrs):
    return inputs[0].copy()


def _identity_into(xp, inputs, attrs, outs):
    xp.copyto(outs[0], inputs[0], casting="unsafe")


def _make_loss_grad(node, g):
    """``make_loss``: the gradient is ones whatever the head gradient (MXNet's loss-op contract)."""
    return [F.ones_like(node.inputs[0])]


def _legacy_make_loss_backward(xp, inputs, attrs):
    """``MakeLoss``'s gradient: ``grad_scale``, divided by the batch size or by the count of entries
    above ``valid_thresh`` (at least 1), as ``normalization`` says."""
    x = inputs[0]
    scale = attrs["grad_scale"]
    if attrs["normalization"] == "batch":
        scale = scale / x.shape[0]
    elif attrs["normalization"] == "valid":
        scale = scale / max(1, int((x > attrs["valid_thresh"]).sum()))
    return xp.full(x.shape, scale, dtype=x.dtype)


def _legacy_make_loss_grad(node, g):
    return [F._backward_MakeLoss(node.inputs[0], **node.attrs)]


_MAKE_LOSS_ATTRS = (
    Attr("grad_scale", "float", 1.0, doc="gradient scale"),
    Attr("valid_thresh", "float", 0.0,
         doc="entries above it count as valid for normalization='valid'"),
    Attr("normalization", "str", "null", choices=("null", "batch", "valid"),
         doc="divide the gradient by nothing, the batch size, or the valid count"))

_IDENTITY = {"compute": _identity, "compute_into": _identity_into, "infer_shape": same_shape,
             "inplace": ((0, 0),), "elementwise": True, "numexpr": "{0}", "save_outputs": False}

register(Op(name="BlockGrad", aliases=("stop_gradient", "_npx_stop_gradient"),
            npx_name="stop_gradient", gradient=lambda node, g: [None], save_inputs=False,
            doc="Identity forward; no gradient flows back through it (a zero gradient).",
            **_IDENTITY))
register(Op(name="make_loss", gradient=_make_loss_grad, save_inputs=True,
            output_names=("loss",),
            doc="Identity forward; backward starts from ones (a custom loss as a graph head).",
            **_IDENTITY))
register(Op(name="MakeLoss", gradient=_legacy_make_loss_grad, save_inputs=True,
            attrs=_MAKE_LOSS_ATTRS,
            doc="MXNet 1.x loss head: identity forward, ``grad_scale`` (normalised) backward.",
            **_IDENTITY))
register(Op(name="_backward_MakeLoss", compute=_legacy_make_loss_backward, attrs=_MAKE_LOSS_ATTRS,
            infer_shape=same_shape, gradient=zero_grads, hidden=True, nd_names=(),
            doc="The constant gradient ``MakeLoss`` sends back (reads only its input's shape)."))
