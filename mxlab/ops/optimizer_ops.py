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
import math

from ..base import MXNetValueError
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


def plain_sgd_scale(attrs):
    """``rescale_grad * lr`` where an update's step is exactly ``grad * scale`` (no weight decay,
    no clip, a power-of-two rescale), else None.

    NOTE: a power-of-two rescale (1 / batch size) scales exactly, so one multiply by
      ``rescale * lr`` rounds once, to the same value as MXNet's ``lr * (rescale * g)``.
    """
    rescale = attrs["rescale_grad"]
    if not attrs["wd"] and attrs["clip_gradient"] < 0 and math.frexp(rescale)[0] == 0.5:
        return rescale * attrs["lr"]
    return None


def _decayed_step(xp, weight, grad, attrs):
    """``lr * (g + wd * w)`` in one temporary."""
    scale = plain_sgd_scale(attrs)
    if scale is not None:
        return xp.multiply(grad, scale)
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


# -- adaptive updates: MXNet's kernels (optimizer_op-inl.h), states updated in place -------------
def _decayed_grad(xp, weight, grad, attrs, clip="clip_gradient"):
    """``clip(rescale_grad * grad + wd * w)``: Adam, RMSProp and FTML clip the decayed gradient
    in MXNet 1.9.1 (as :meth:`mxlab.optimizer.Optimizer._grad`)."""
    scaled = xp.multiply(grad, attrs["rescale_grad"])
    if attrs["wd"]:
        scaled += attrs["wd"] * weight
    if attrs[clip] >= 0:
        xp.clip(scaled, -attrs[clip], attrs[clip], out=scaled)
    return scaled


def _update_moments(xp, g, mean, var, b1, b2):
    """``mean = b1 mean + (1 - b1) g``, ``var = b2 var + (1 - b2) g g`` in place, operation for
    operation as MXNet's kernels; returns the one temporary (free for the caller's use)."""
    tmp = xp.multiply(g, 1 - b1)
    mean *= b1
    mean += tmp
    xp.multiply(g, 1 - b2, out=tmp)
    tmp *= g
    var *= b2
    var += tmp
    return tmp


def _adam_into(xp, inputs, attrs, outs):
    """MXNet's kernel, in two temporaries (the arithmetic of ``mean = b1 mean + (1 - b1) g;
    var = b2 var + (1 - b2) g g; w -= lr mean / (sqrt(var) + eps)``, operation for operation)."""
    weight, grad, mean, var = inputs
    g = _decayed_grad(xp, weight, grad, attrs)
    tmp = _update_moments(xp, g, mean, var, attrs["beta1"], attrs["beta2"])
    xp.sqrt(var, out=tmp)
    tmp += attrs["epsilon"]
    xp.multiply(mean, attrs["lr"], out=g)
    g /= tmp
    xp.subtract(weight, g, out=outs[0])


def _ftrl_into(xp, inputs, attrs, outs):
    """MXNet's kernel in three temporaries, operation for operation: ``z += g - (sqrt(n + g g)
    - sqrt(n)) w / lr; n += g g; w = -sign(z) max(|z| - lamda1, 0) / ((beta + sqrt(n)) / lr
    + wd)``."""
    weight, grad, z, n = inputs
    g, lr = _scaled_grad(xp, grad, attrs), attrs["lr"]
    square = xp.multiply(g, g)
    tmp = xp.add(n, square)
    xp.sqrt(tmp, out=tmp)
    root = xp.sqrt(n)
    tmp -= root
    tmp *= weight
    tmp /= lr
    xp.subtract(g, tmp, out=g)
    z += g
    n += square
    xp.abs(z, out=tmp)
    tmp -= attrs["lamda1"]
    xp.maximum(tmp, 0, out=tmp)
    xp.sign(z, out=square)
    xp.negative(square, out=square)
    square *= tmp
    xp.sqrt(n, out=root)
    root += attrs["beta"]
    root /= lr
    root += attrs["wd"]
    xp.divide(square, root, out=outs[0])


def _clip_weights(xp, out, attrs):
    if attrs["clip_weights"] >= 0:
        xp.clip(out, -attrs["clip_weights"], attrs["clip_weights"], out=out)


def _decay_rates(attrs):
    """``(rho, momentum)``: MXNet 1.9.1 names them ``gamma1``/``gamma2``, MXNet 2 ``rho``/
    ``momentum``; either spelling is taken."""
    gamma1, gamma2 = attrs["gamma1"], attrs.get("gamma2")
    return (attrs["rho"] if gamma1 is None else gamma1,
            attrs.get("momentum") if gamma2 is None else gamma2)


def _rmsprop_into(xp, inputs, attrs, outs):
    """MXNet 1.9.1's kernel: ``w - lr * g / sqrt(n + eps)`` (MXNet 2 moved eps out of the root)."""
    weight, grad, n = inputs
    g, rho = _decayed_grad(xp, weight, grad, attrs), _decay_rates(attrs)[0]
    tmp = _decayed_square(xp, g, n, rho)
    xp.add(n, attrs["epsilon"], out=tmp)
    xp.sqrt(tmp, out=tmp)
    xp.multiply(g, attrs["lr"], out=g)
    g /= tmp
    xp.subtract(weight, g, out=outs[0])
    _clip_weights(xp, outs[0], attrs)


def _decayed_square(xp, g, n, rho):
    """``n = rho n + (1 - rho) g g`` in place; returns the temporary, free for reuse."""
    tmp = xp.multiply(g, 1 - rho)
    tmp *= g
    n *= rho
    n += tmp
    return tmp


def _rmspropalex_into(xp, inputs, attrs, outs):
    weight, grad, n, mean_g, delta = inputs
    g = _decayed_grad(xp, weight, grad, attrs)
    rho, momentum = _decay_rates(attrs)
    tmp = _decayed_square(xp, g, n, rho)
    xp.multiply(g, 1 - rho, out=tmp)
    mean_g *= rho
    mean_g += tmp
    xp.multiply(mean_g, mean_g, out=tmp)   # lr g / sqrt(n - mean_g^2 + eps), in two buffers
    xp.subtract(n, tmp, out=tmp)
    tmp += attrs["epsilon"]
    xp.sqrt(tmp, out=tmp)
    xp.multiply(g, attrs["lr"], out=g)
    g /= tmp
    delta *= momentum
    delta -= g
    xp.add(weight, delta, out=outs[0])
    _clip_weights(xp, outs[0], attrs)


def _ftml_into(xp, inputs, attrs, outs):
    weight, grad, prev_d, v, z = inputs
    g = _decayed_grad(xp, weight, grad, attrs, clip="clip_grad")
    b1, b2, t = attrs["beta1"], attrs["beta2"], attrs["t"]
    v *= b2
    v += (1 - b2) * g * g
    d_t = (1 - b1 ** t) / attrs["lr"] * (xp.sqrt(v / (1 - b2 ** t)) + attrs["epsilon"])
    z *= b1
    z += (1 - b1) * g - (d_t - b1 * prev_d) * weight
    prev_d[...] = d_t
    xp.divide(-z, d_t, out=outs[0])


_EPSILON = Attr("epsilon", "float", 1e-8)
_GAMMA1 = Attr("gamma1", "float", None, optional=True)
_ADAPTIVE = (
    ("adam_update", _adam_into, ("weight", "grad", "mean", "var"),
     (Attr("beta1", "float", 0.9), Attr("beta2", "float", 0.999), _EPSILON)),
    ("ftrl_update", _ftrl_into, ("weight", "grad", "z", "n"),
     (Attr("lamda1", "float", 0.01), Attr("beta", "float", 1.0))),
    ("rmsprop_update", _rmsprop_into, ("weight", "grad", "n"),
     (Attr("rho", "float", 0.95), _GAMMA1, _EPSILON, Attr("clip_weights", "float", -1.0))),
    ("rmspropalex_update", _rmspropalex_into, ("weight", "grad", "n", "g", "delta"),
     (Attr("rho", "float", 0.95), Attr("momentum", "float", 0.9), _GAMMA1,
      Attr("gamma2", "float", None, optional=True), _EPSILON,
      Attr("clip_weights", "float", -1.0))),
    ("ftml_update", _ftml_into, ("weight", "grad", "d", "v", "z"),
     (Attr("beta1", "float", 0.6), Attr("beta2", "float", 0.999), _EPSILON,
      Attr("t", "int"), Attr("clip_grad", "float", -1.0))),
)
for _name, _into, _inputs, _attrs in _ADAPTIVE:
    register(Op(name=_name, compute=_fresh(_into), compute_into=_into,
                attrs=_COMMON[:3] + (() if _name == "ftml_update" else _COMMON[3:]) + _attrs,
                num_inputs=len(_inputs), input_names=_inputs, infer_shape=same_shape,
                infer_type=same_dtype, gradient=_no_gradient, inplace=((0, 0),),
                mutate_inputs=tuple(range(2, len(_inputs))), npx_name=_name,
                doc=f"Fused step of MXNet's ``{_name}`` (its states updated in place)."))


def _group_adagrad_into(xp, inputs, attrs, outs):
    """MXNet 1.9.1's ``contrib.group_adagrad_update``: ``g = clip(rescale_grad * grad);
    history += mean(g * g, axis=1, keepdims=True); w -= lr * g / sqrt(history + eps)`` (one
    history value per row; zero-gradient rows keep their weight and history, so the dense form
    equals MXNet's lazy row_sparse kernel)."""
    weight, grad, history = inputs
    g = _scaled_grad(xp, grad, attrs)
    if weight.ndim != 2 or history.shape != (weight.shape[0], 1):
        raise MXNetValueError(f"group_adagrad_update: weight must be 2-D and history (rows, 1), "
                              f"got {weight.shape} and {history.shape}")
    history += xp.mean(g * g, axis=1, keepdims=True)
    scale = xp.sqrt(history + attrs["epsilon"])
    g *= attrs["lr"]
    g /= scale
    xp.subtract(weight, g, out=outs[0])


register(Op(name="_contrib_group_adagrad_update", compute=_fresh(_group_adagrad_into),
            compute_into=_group_adagrad_into,
            attrs=(Attr("lr", "float"), Attr("rescale_grad", "float", 1.0),
                   Attr("clip_gradient", "float", -1.0), Attr("epsilon", "float", 1e-5)),
            num_inputs=3, input_names=("weight", "grad", "history"),
            infer_shape=lambda attrs, in_shapes: [in_shapes[0]], infer_type=same_dtype,
            gradient=_no_gradient, inplace=((0, 0),), mutate_inputs=(2,),
            doc="Fused GroupAdaGrad step (MXNet's ``contrib.group_adagrad_update``)."))


# -- LAMB: MXNet 1.9.1's two phases (the weight and direction norms between them stay arrays) ---
def _lamb_phase1(xp, inputs, attrs):
    """``lamb_update_phase1``: the moments of ``g = clip(rescale_grad * grad)`` (in place) and
    the direction ``m̂ / (sqrt(v̂) + eps) + wd * w`` (bias-corrected with ``bias_correction``)."""
    weight, grad, mean, var = inputs
    g = _scaled_grad(xp, grad, attrs)
    b1, b2, t = attrs["beta1"], attrs["beta2"], attrs["t"]
    tmp = _update_moments(xp, g, mean, var, b1, b2)
    if attrs["bias_correction"]:
        xp.divide(var, 1 - b2 ** t, out=tmp)
        xp.sqrt(tmp, out=tmp)
        xp.divide(mean, 1 - b1 ** t, out=g)
    else:
        xp.sqrt(var, out=tmp)
        g[...] = mean
    tmp += attrs["epsilon"]
    g /= tmp
    xp.multiply(weight, attrs["wd"], out=tmp)
    g += tmp
    return g


def _lamb_phase2_into(xp, inputs, attrs, outs):
    """``lamb_update_phase2``: ``w -= lr * (r1 / r2) * g`` with ``r1`` clipped to the bounds
    (a bound < 0 is unset) and a ratio of 1 when either norm is 0."""
    weight, g, r1, r2 = inputs
    r1 = r1.reshape(-1)[:1].astype(g.dtype)
    r2 = r2.reshape(-1)[:1].astype(g.dtype)
    if attrs["lower_bound"] >= 0:
        r1 = xp.maximum(r1, attrs["lower_bound"])
    if attrs["upper_bound"] >= 0:
        r1 = xp.minimum(r1, attrs["upper_bound"])
    ratio = xp.where((r1 == 0) | (r2 == 0), xp.ones_like(r1), r1 / xp.where(r2 == 0, 1, r2))
    xp.subtract(weight, attrs["lr"] * ratio * g, out=outs[0])


register(Op(name="lamb_update_phase1", compute=_lamb_phase1,
            attrs=(Attr("beta1", "float", 0.9), Attr("beta2", "float", 0.999),
                   Attr("epsilon", "float", 1e-6), Attr("t", "int"),
                   Attr("bias_correction", "bool", True), Attr("wd", "float"),
                   Attr("rescale_grad", "float", 1.0), Attr("clip_gradient", "float", -1.0)),
            num_inputs=4, input_names=("weight", "grad", "mean", "var"),
            infer_shape=same_shape, infer_type=same_dtype, gradient=_no_gradient,
            mutate_inputs=(2, 3),
            doc="Phase I of MXNet's LAMB update: the moments (in place) and the direction g."))
register(Op(name="lamb_update_phase2", compute=_fresh(_lamb_phase2_into),
            compute_into=_lamb_phase2_into,
            attrs=(Attr("lr", "float"), Attr("lower_bound", "float", -1.0),
                   Attr("upper_bound", "float", -1.0)),
            num_inputs=4, input_names=("weight", "g", "r1", "r2"),
            infer_shape=lambda attrs, in_shapes: [in_shapes[0]], infer_type=same_dtype,
            gradient=_no_gradient, inplace=((0, 0),),
            doc="Phase II of MXNet's LAMB update: the weight step scaled by the trust ratio."))
