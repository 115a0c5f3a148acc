"""Fused optimizer updates (MXNet's ``sgd_update``, ``sgd_mom_update``, ``signsgd_update``,
``signum_update``): one op per parameter, updating the weight (and momentum) in place instead of
a chain of temporaries.

The formulas are MXNet's kernels: ``g = clip(rescale_grad * grad, clip_gradient)`` (no clip when
``clip_gradient < 0``); plain SGD ``w = w - lr * (g + wd * w)``; with momentum
``mom = momentum * mom - lr * (g + wd * w); w = w + mom``. Call them with ``out=weight`` as MXNet's
optimizers do; the momentum input is a mutable input, written in place.

Example
-------
>>> import mxlab as mx
>>> w, g = mx.nd.array([1.0, 2.0]), mx.nd.array([0.5, 0.5])
>>> mx.nd.sgd_update(w, g, lr=0.1, out=w).asnumpy().tolist()
[0.949999988079071, 1.9500000476837158]
"""
from .attrs import Attr
from .infer import same_dtype, same_shape
from .registry import Op, register

__all__ = []

_COMMON = (Attr("lr", "float"), Attr("wd", "float", 0.0), Attr("rescale_grad", "float", 1.0),
           Attr("clip_gradient", "float", -1.0), Attr("lazy_update", "bool", True))


def _scaled_grad(xp, grad, attrs):
    """A fresh ``clip(rescale_grad * grad)`` (the one temporary an update needs)."""
    scaled = xp.multiply(grad, attrs["rescale_grad"])
    if attrs["clip_gradient"] >= 0:
        xp.clip(scaled, -attrs["clip_gradient"], attrs["clip_gradient"], out=scaled)
    return scaled


def _decayed_step(xp, weight, grad, attrs):
    """``lr * (g + wd * w)`` in one temporary."""
    step = _scaled_grad(xp, grad, attrs)
    if attrs["wd"]:
        step += weight * attrs["wd"]
    step *= attrs["lr"]
    return step


def _sgd_into(xp, inputs, attrs, outs):
    weight, grad = inputs
    xp.subtract(weight, _decayed_step(xp, weight, grad, attrs), out=outs[0])


def _sgd_mom_into(xp, inputs, attrs, outs):
    weight, grad, mom = inputs
    step = _decayed_step(xp, weight, grad, attrs)
    mom *= attrs["momentum"]
    mom -= step
    xp.add(weight, mom, out=outs[0])


def _fresh(into):
    def compute(xp, inputs, attrs):
        out = xp.empty_like(inputs[0])
        into(xp, inputs, attrs, [out])
        return out
    return compute


def _no_gradient(node, g):
    return [None] * len(node.inputs)


register(Op(name="sgd_update", compute=_fresh(_sgd_into), compute_into=_sgd_into, attrs=_COMMON,
            num_inputs=2, input_names=("weight", "grad"), infer_shape=same_shape,
            infer_type=same_dtype, gradient=_no_gradient, inplace=((0, 0),),
            npx_name="sgd_update", doc="Fused SGD step (MXNet's ``sgd_update``)."))
register(Op(name="sgd_mom_update", compute=_fresh(_sgd_mom_into), compute_into=_sgd_mom_into,
            attrs=_COMMON + (Attr("momentum", "float", 0.0),), num_inputs=3,
            input_names=("weight", "grad", "mom"), infer_shape=same_shape, infer_type=same_dtype,
            gradient=_no_gradient, inplace=((0, 0),), mutate_inputs=(2,),
            npx_name="sgd_mom_update", doc="Fused SGD step with momentum (MXNet's "
                                           "``sgd_mom_update``)."))


def _signsgd_into(xp, inputs, attrs, outs):
    """MXNet's SignSGD: ``w = (1 - lr * wd) * w - lr * sign(grad)`` (no rescale or clip)."""
    weight, grad = inputs
    xp.multiply(weight, 1 - attrs["lr"] * attrs["wd"], out=outs[0])
    outs[0] -= attrs["lr"] * xp.sign(grad)


def _signum_into(xp, inputs, attrs, outs):
    """MXNet's Signum: ``mom = momentum * mom - (1 - momentum) * (g + wd * w)``, then
    ``w = (1 - lr * wd_lh) * w + lr * sign(mom)``."""
    weight, grad, mom = inputs
    step = _scaled_grad(xp, grad, attrs)
    if attrs["wd"]:
        step += weight * attrs["wd"]
    mom *= attrs["momentum"]
    mom -= (1 - attrs["momentum"]) * step
    xp.multiply(weight, 1 - attrs["lr"] * attrs["wd_lh"], out=outs[0])
    outs[0] += attrs["lr"] * xp.sign(mom)


register(Op(name="signsgd_update", compute=_fresh(_signsgd_into), compute_into=_signsgd_into,
            attrs=_COMMON, num_inputs=2, input_names=("weight", "grad"), infer_shape=same_shape,
            infer_type=same_dtype, gradient=_no_gradient, inplace=((0, 0),),
            npx_name="signsgd_update", doc="Fused SignSGD step (MXNet's ``signsgd_update``)."))
register(Op(name="signum_update", compute=_fresh(_signum_into), compute_into=_signum_into,
            attrs=_COMMON + (Attr("momentum", "float", 0.0), Attr("wd_lh", "float", 0.0)),
            num_inputs=3, input_names=("weight", "grad", "mom"), infer_shape=same_shape,
            infer_type=same_dtype, gradient=_no_gradient, inplace=((0, 0),), mutate_inputs=(2,),
            npx_name="signum_update", doc="Fused Signum step (MXNet's ``signum_update``)."))
