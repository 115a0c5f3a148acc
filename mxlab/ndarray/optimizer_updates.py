"""MXNet 1.9's multi-tensor and mixed-precision optimizer updates as array frontends:
``nag_mom_update``/``mp_nag_mom_update``, ``mp_sgd_update``/``mp_sgd_mom_update``,
``multi_sgd_update``, ``multi_sgd_mom_update``, ``multi_mp_sgd_update``,
``multi_mp_sgd_mom_update``, their ``preloaded_`` forms (learning rates and weight decays as
arrays), and ``mx.nd.contrib``'s ``adamw_update``/``mp_adamw_update``/``multi_adamw_update``/
``multi_mp_adamw_update`` and the ``adabelief`` family.

Each runs MXNet's kernel formula with array ops on the weight's device and writes the mutable
inputs (momenta, moments, float32 master weights) in place; the new weight goes to ``out`` (the
weight itself in optimizers). ``mp_`` forms update the float32 copy and cast it into the float16
weight. The AdamW/AdaBelief ops skip the update (weights, moments unchanged) when
``rescale_grad`` is 0, inf or nan, as MXNet does. ``tests/ops/test_optimizer_updates.py`` checks
them against MXNet 1.9.1 (opt-in oracle).

Example
-------
>>> import mxlab as mx
>>> w, g = [mx.nd.ones((2,)), mx.nd.ones((3,))], [mx.nd.ones((2,)), mx.nd.ones((3,))]
>>> _ = mx.nd.multi_sgd_update(w[0], g[0], w[1], g[1], lrs=(0.1, 0.2), wds=(0.0, 0.0),
...                            num_weights=2, out=w)
>>> w[1].asnumpy().tolist()
[0.800000011920929, 0.800000011920929, 0.800000011920929]
"""
import math

from ..base import MXNetValueError
from ..ops.registry import F as _F
from .ndarray import NDArray

__all__ = ["nag_mom_update", "mp_nag_mom_update", "mp_sgd_update", "mp_sgd_mom_update",
           "multi_sgd_update", "multi_sgd_mom_update", "multi_mp_sgd_update",
           "multi_mp_sgd_mom_update", "preloaded_multi_sgd_update",
           "preloaded_multi_sgd_mom_update", "preloaded_multi_mp_sgd_update",
           "preloaded_multi_mp_sgd_mom_update", "reset_arrays"]

CONTRIB = ["adamw_update", "mp_adamw_update", "multi_adamw_update", "multi_mp_adamw_update",
           "adabelief_update", "mp_adabelief_update", "multi_adabelief_update",
           "multi_mp_adabelief_update"]


def _clipped(grad, rescale_grad, clip_gradient, dtype=None):
    g = grad.astype(dtype) if dtype is not None and grad.dtype != dtype else grad
    g = g * rescale_grad
    if clip_gradient is not None and clip_gradient >= 0:
        g = _F.clip(g, a_min=-clip_gradient, a_max=clip_gradient)
    return g


def _write(out, value, like):
    """``value`` into ``out`` (a new array like ``like`` when None), cast to ``out``'s dtype."""
    if out is None:
        return value.astype(like.dtype) if value.dtype != like.dtype else value.copy()
    out[:] = value.astype(out.dtype) if value.dtype != out.dtype else value
    return out


def reset_arrays(*data, num_arrays=None):
    """Zero every array of ``data`` in place (MXNet's ``reset_arrays``: gradients between steps)."""
    if num_arrays is not None and num_arrays != len(data):
        raise MXNetValueError(f"reset_arrays: num_arrays={num_arrays} but {len(data)} arrays given")
    for arr in data:
        arr[:] = 0


# -- SGD and NAG -----------------------------------------------------------------------------------
def _sgd_rule(w, grad, mom, lr, wd, momentum, rescale_grad, clip_gradient):
    """MXNet's SGD kernel on ``w`` (the weight or its float32 copy); returns the new weight."""
    g = _clipped(grad, rescale_grad, clip_gradient, w.dtype) + wd * w
    if mom is None:
        return w - lr * g
    mom[:] = momentum * mom - lr * g
    return w + mom


def _nag_rule(w, grad, mom, lr, wd, momentum, rescale_grad, clip_gradient):
    """MXNet 1.9.1's ``nag_mom_update``: ``m = momentum mom; w' = w - m + (momentum + 1)(m - lr
    (g + wd w)); mom = m - lr (g + wd w')`` (the momentum reads the updated weight)."""
    g = _clipped(grad, rescale_grad, clip_gradient, w.dtype)
    decayed = momentum * mom
    new = w - decayed + (momentum + 1) * (decayed - lr * (g + wd * w))
    mom[:] = decayed - lr * (g + wd * new)
    return new


def nag_mom_update(weight, grad, mom, lr, momentum=0.0, wd=0.0, rescale_grad=1.0,
                   clip_gradient=-1.0, out=None, **kwargs):
    """Nesterov momentum step (MXNet 1.9.1's kernel, see :func:`_nag_rule`)."""
    new = _nag_rule(weight, grad, mom, lr, wd, momentum, rescale_grad, clip_gradient)
    return _write(out, new, weight)


def mp_nag_mom_update(weight, grad, mom, weight32, lr, momentum=0.0, wd=0.0, rescale_grad=1.0,
                      clip_gradient=-1.0, out=None, **kwargs):
    """:func:`nag_mom_update` on the float32 copy ``weight32``, cast into ``out``."""
    weight32[:] = _nag_rule(weight32, grad, mom, lr, wd, momentum, rescale_grad, clip_gradient)
    return _write(out, weight32, weight)


def mp_sgd_update(weight, grad, weight32, lr, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0,
                  lazy_update=True, out=None, **kwargs):
    """SGD on the float32 copy ``weight32``, cast into ``out``."""
    weight32[:] = _sgd_rule(weight32, grad, None, lr, wd, 0.0, rescale_grad, clip_gradient)
    return _write(out, weight32, weight)


def mp_sgd_mom_update(weight, grad, mom, weight32, lr, momentum=0.0, wd=0.0, rescale_grad=1.0,
                      clip_gradient=-1.0, lazy_update=True, out=None, **kwargs):
    """SGD with momentum on the float32 copy ``weight32``, cast into ``out``."""
    weight32[:] = _sgd_rule(weight32, grad, mom, lr, wd, momentum, rescale_grad, clip_gradient)
    return _write(out, weight32, weight)


def _multi_sgd(data, group, lrs, wds, momentum, rescale_grad, clip_gradient, num_weights, out,
               has_mom, mixed):
    if len(data) != group * num_weights:
        raise MXNetValueError(f"multi-SGD update: num_weights={num_weights} needs "
                              f"{group * num_weights} arrays, got {len(data)}")
    lrs, wds = _floats(lrs, num_weights, "lrs"), _floats(wds, num_weights, "wds")
    outs = out if isinstance(out, (list, tuple)) else [None] * num_weights
    results = []
    for k in range(num_weights):
        parts = data[k * group:(k + 1) * group]
        weight, grad = parts[0], parts[1]
        mom = parts[2] if has_mom else None
        target = parts[-1] if mixed else weight
        new = _sgd_rule(target, grad, mom, lrs[k], wds[k], momentum, rescale_grad, clip_gradient)
        if mixed:
            weight32 = parts[-1]
            weight32[:] = new
            new = weight32
        results.append(_write(outs[k], new, weight))
    return results


def _floats(values, count, what):
    if isinstance(values, NDArray):
        values = values.asnumpy().reshape(-1).tolist()
    values = [float(v) for v in values]
    if len(values) != count:
        raise MXNetValueError(f"multi-SGD update: {what} has {len(values)} values for "
                              f"{count} weights")
    return values


def _multi(group, has_mom, mixed, preloaded, name):
    def frontend(*data, lrs=None, wds=None, momentum=0.0, rescale_grad=1.0, clip_gradient=-1.0,
                 num_weights=1, out=None, **kwargs):
        data = list(data)
        if preloaded:
            data, lrs, wds = data[:-2], data[-2], data[-1]
        return _multi_sgd(data, group, lrs, wds, momentum, rescale_grad, clip_gradient,
                          num_weights, out, has_mom, mixed)
    frontend.__name__ = name
    inputs = ", ".join(["weight", "grad"] + (["mom"] if has_mom else [])
                       + (["weight32"] if mixed else []))
    frontend.__doc__ = (f"MXNet's ``{name}``: ``num_weights`` groups of ({inputs})"
                        + (" then the lrs and wds arrays" if preloaded else "")
                        + ", one SGD step each (see the module notes).")
    return frontend


multi_sgd_update = _multi(2, False, False, False, "multi_sgd_update")
multi_sgd_mom_update = _multi(3, True, False, False, "multi_sgd_mom_update")
multi_mp_sgd_update = _multi(3, False, True, False, "multi_mp_sgd_update")
multi_mp_sgd_mom_update = _multi(4, True, True, False, "multi_mp_sgd_mom_update")
preloaded_multi_sgd_update = _multi(2, False, False, True, "preloaded_multi_sgd_update")
preloaded_multi_sgd_mom_update = _multi(3, True, False, True, "preloaded_multi_sgd_mom_update")
preloaded_multi_mp_sgd_update = _multi(3, False, True, True, "preloaded_multi_mp_sgd_update")
preloaded_multi_mp_sgd_mom_update = _multi(4, True, True, True,
                                           "preloaded_multi_mp_sgd_mom_update")


# -- AdamW and AdaBelief (contrib) -----------------------------------------------------------------
def _rescale_value(rescale_grad):
    if isinstance(rescale_grad, NDArray):
        return float(rescale_grad.asnumpy().reshape(-1)[0])
    return float(rescale_grad)


def _adamw_rule(w, grad, mean, var, scale, lr, eta, beta1, beta2, epsilon, wd, clip):
    g = _clipped(grad, scale, clip, w.dtype)
    mean[:] = beta1 * mean + (1 - beta1) * g
    var[:] = beta2 * var + (1 - beta2) * g * g
    return w - eta * (lr * mean / (_F.sqrt(var) + epsilon) + wd * w)


def _adabelief_rule(w, grad, mean, var, scale, lr, eta, beta1, beta2, epsilon, wd, clip):
    g = (grad.astype(w.dtype) if grad.dtype != w.dtype else grad) * scale + wd * w
    if clip is not None and clip >= 0:
        g = _F.clip(g, a_min=-clip, a_max=clip)
    mean[:] = beta1 * mean + (1 - beta1) * g
    adj = g - mean
    var[:] = beta2 * var + (1 - beta2) * adj * adj + epsilon
    return w - eta * (lr * mean / (_F.sqrt(var) + epsilon))


def _adam_like(rule, weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1, beta2,
               epsilon, wd, clip_gradient, out):
    scale = _rescale_value(rescale_grad)
    if not math.isfinite(scale) or scale == 0:   # NOTE: MXNet skips the whole update
        return out if out is weight else _write(out, weight, weight)
    target = weight if weight32 is None else weight32
    new = rule(target, grad, mean, var, scale, lr, eta, beta1, beta2, epsilon, wd, clip_gradient)
    if weight32 is not None:
        weight32[:] = new
        new = weight32
    return _write(out, new, weight)


def _single(rule, mixed, name):
    def frontend(weight, grad, mean, var, *rest, lr=None, eta=None, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, wd=0.0, clip_gradient=-1.0, out=None, **kwargs):
        rest = list(rest) + [kwargs.pop(k) for k in ("weight32", "rescale_grad") if k in kwargs]
        weight32 = rest.pop(0) if mixed else None
        if not rest or lr is None or eta is None:
            raise MXNetValueError(f"{name}: rescale_grad, lr and eta are required")
        return _adam_like(rule, weight, grad, mean, var, weight32, rest[0], lr, eta, beta1,
                          beta2, epsilon, wd, clip_gradient, out)
    frontend.__name__ = name
    frontend.__doc__ = f"MXNet's ``contrib.{name}`` (see the module notes)."
    return frontend


def _multi_adam(rule, mixed, name):
    def frontend(weights, grads, mean, var, *rest, lrs=None, wds=None, etas=None, beta1=0.9,
                 beta2=0.999, epsilon=1e-8, clip_gradient=-1.0, out=None, size=0, **kwargs):
        rest = list(rest)
        weights32 = rest.pop(0) if mixed else [None] * len(weights)
        rescale_grad = rest[0] if rest else kwargs.pop("rescale_grad")
        outs = out if isinstance(out, (list, tuple)) else [None] * len(weights)
        return [_adam_like(rule, w, g, m, v, w32, rescale_grad, lr, eta, beta1, beta2, epsilon,
                           wd, clip_gradient, o)
                for w, g, m, v, w32, lr, wd, eta, o
                in zip(weights, grads, mean, var, weights32, lrs, wds, etas, outs)]
    frontend.__name__ = name
    frontend.__doc__ = f"MXNet's ``contrib.{name}``: lists of arrays, ``lrs``/``wds``/``etas``."
    return frontend


adamw_update = _single(_adamw_rule, False, "adamw_update")
mp_adamw_update = _single(_adamw_rule, True, "mp_adamw_update")
multi_adamw_update = _multi_adam(_adamw_rule, False, "multi_adamw_update")
multi_mp_adamw_update = _multi_adam(_adamw_rule, True, "multi_mp_adamw_update")
adabelief_update = _single(_adabelief_rule, False, "adabelief_update")
mp_adabelief_update = _single(_adabelief_rule, True, "mp_adabelief_update")
multi_adabelief_update = _multi_adam(_adabelief_rule, False, "multi_adabelief_update")
multi_mp_adabelief_update = _multi_adam(_adabelief_rule, True, "multi_mp_adabelief_update")
