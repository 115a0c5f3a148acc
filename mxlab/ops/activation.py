"""Activations: relu, sigmoid, softrelu, softsign, log_sigmoid, mish, ``Activation``,
``LeakyReLU`` (leaky/elu/selu/gelu/prelu/rrelu), softmax, log_softmax, ``SoftmaxActivation``.

One table (:data:`ACTIVATIONS`) holds each activation's kernel and derivative; the standalone ops
(``relu``, ``sigmoid``, ...) and ``Activation(act_type=...)`` are both built from it. Derivatives
are written with :data:`~mxlab.ops.registry.F` ops, so gradients can be differentiated again.

Example
-------
>>> import mxlab as mx
>>> mx.npx.softmax(mx.np.array([0.0, 0.0])).asnumpy()
array([0.5, 0.5], dtype=float32)
"""
import math

import numpy

from ..base import MXNetNotImplementedError, MXNetTypeError, MXNetValueError
from .activation_backward import OUTPUT_DERIVATIVES
from .attrs import Attr
from .elemwise import as_array, float_result, unary
from .infer import same_shape
from .reduce import reduced_axes
from .registry import F, Op, get_op, has_op, register
from .unary import erf

__all__ = ["ACTIVATIONS", "softmax_kernel"]

_SELU_LAMBDA = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


# -- kernels (x is a float array) ----------------------------------------------------------------
def _relu(xp, x):
    return xp.maximum(x, 0)


def _sigmoid(xp, x):
    # NOTE: the tanh form never overflows, unlike 1 / (1 + exp(-x)).
    return (xp.tanh(x * 0.5) + 1) * 0.5


def _softrelu(xp, x):
    """log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|))."""
    return xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))


def _softsign(xp, x):
    return x / (1 + xp.abs(x))


def _log_sigmoid(xp, x):
    return -_softrelu(xp, -x)


def _mish(xp, x):
    return x * xp.tanh(_softrelu(xp, x))


# -- derivatives (F ops of the input x and the output y) -----------------------------------------
def _mask(x):
    """1 where x > 0, else 0, in x's dtype."""
    return F._greater_scalar(x, scalar=0)


def _softsign_deriv(x, y):
    return F.reciprocal(F.square(F._plus_scalar(F.abs(x), scalar=1.0)))


def _mish_deriv(x, y):
    soft = F.tanh(F.Activation(x, act_type="softrelu"))
    sech2 = F._rminus_scalar(F.square(soft), scalar=1.0)
    return F.broadcast_add(soft, F.broadcast_mul(x, F.broadcast_mul(sech2, F.sigmoid(x))))


# act_type -> (kernel(xp, x), derivative(x, y) written with F, what the derivative reads)
ACTIVATIONS = {
    # NOTE: relu's derivative reads the output (y > 0 exactly where x > 0), as MXNet's backward
    # does,   so the planner can run relu in place on its input.
    "relu": (_relu, lambda x, y: _mask(y), "y"),
    "sigmoid": (_sigmoid, lambda x, y: F.broadcast_mul(y, F._rminus_scalar(y, scalar=1.0)), "y"),
    "tanh": (lambda xp, x: xp.tanh(x), lambda x, y: F._rminus_scalar(F.square(y), scalar=1.0),
             "y"),
    "softrelu": (_softrelu, lambda x, y: F.sigmoid(x), "x"),
    "softsign": (_softsign, _softsign_deriv, "x"),
    "log_sigmoid": (_log_sigmoid, lambda x, y: F.sigmoid(F.negative(x)), "x"),
    "mish": (_mish, _mish_deriv, "xy"),
}


def _as_float(x):
    return x if x.dtype.kind in "fc" else x.astype(numpy.float32)


def _derivative_grad(deriv):
    return lambda node, g: [F.broadcast_mul(g[0], deriv(node.inputs[0], node.outputs[0]))]


def _float_type(attrs, dtypes):
    return [None if dtypes[0] is None else float_result(numpy.dtype(dtypes[0])).name]


# name (= act_type), npx name, numexpr template
_STANDALONE = (
    ("relu", "relu", "where({0} > 0, {0}, 0)"),
    ("sigmoid", "sigmoid", "(1 / (1 + exp(-{0})))"),
    ("softsign", None, "({0} / (1 + abs({0})))"),
    ("log_sigmoid", None, None),
    ("mish", None, None),
)


def _relu_deriv(x, y):
    """The standalone relu's derivative, sign(y): 1 where y > 0, 0 where y == 0 and NaN where y is
    NaN, as MXNet's relu_grad (Activation(act_type='relu') gives 0 there, as MXNet's does)."""
    return F.sign(y)


for _name, _npx, _nx in _STANDALONE:
    _kernel, _deriv, _uses = ACTIVATIONS[_name]
    _deriv = _relu_deriv if _name == "relu" else _deriv
    unary(_name, _kernel, grad=_derivative_grad(_deriv), numexpr=_nx, uses=_uses,
          kind="same" if _name == "relu" else "float", npx_name=_npx,
          aliases=(f"_npx_{_name}",) if _npx else ())


def _activation_compute(xp, inputs, attrs):
    kernel = ACTIVATIONS[attrs["act_type"]][0]
    return as_array(xp, kernel(xp, _as_float(inputs[0])))


def _activation_grad(node, g):
    act = node.attrs["act_type"]
    if act in OUTPUT_DERIVATIVES:   # NOTE: one backward node, as MXNet's _backward_Activation
        return [F._backward_Activation(g[0], node.outputs[0], act_type=act)]
    return [F.broadcast_mul(g[0], ACTIVATIONS[act][1](node.inputs[0], node.outputs[0]))]


def _activation_into(xp, inputs, attrs, outs):
    """Planned execution: relu and tanh of a float array straight into the buffer."""
    x, out = inputs[0], outs[0]
    act = attrs["act_type"]
    if act in ("relu", "tanh") and x.dtype == out.dtype and x.dtype.kind == "f":
        (xp.maximum(x, 0, out=out) if act == "relu" else xp.tanh(x, out=out))
        return
    xp.copyto(out, _activation_compute(xp, inputs, attrs), casting="unsafe")


def _activation_template(attrs):
    """Activation(act_type=t) fuses as the op named ``t`` (relu, sigmoid, tanh, ...)."""
    act_type = attrs.get("act_type", "")
    return get_op(act_type).numexpr if has_op(act_type) else None


register(Op(name="Activation", aliases=("_npx_activation",), compute=_activation_compute,
            compute_into=_activation_into,
            attrs=(Attr("act_type", "str", choices=tuple(ACTIVATIONS)),), infer_shape=same_shape,
            infer_type=_float_type, gradient=_activation_grad, inplace=((0, 0),),
            elementwise=True, numexpr=_activation_template, npx_name="activation",
            doc="Elementwise activation chosen by ``act_type`` (relu, sigmoid, tanh, ...)."))


# -- LeakyReLU: leaky / elu / selu / gelu / prelu / rrelu ----------------------------------------
def _gamma_shape(gamma_shape, data_shape):
    """PReLU's slope shape against the data: ``gamma``'s dims align with the data's first two,
    from the right (MXNet's ``expand_shape``): ``(C,)`` is one slope per channel (axis 1), ``(N,
    C)`` one per sample and channel; a single value applies everywhere."""
    result, s = [1] * len(data_shape), len(gamma_shape) - 1
    for i in range(len(data_shape) - 1, -1, -1):
        if s >= 0 and i <= 1 and gamma_shape[s] in (data_shape[i], 1):
            result[i], s = gamma_shape[s], s - 1
    if s != -1 and math.prod(gamma_shape) != 1:
        raise MXNetValueError(f"LeakyReLU: cannot broadcast gamma {tuple(gamma_shape)} to data "
                              f"{tuple(data_shape)}")
    return tuple(result)


def _channel_view(gamma, shape):
    """``gamma`` reshaped to broadcast against data of ``shape`` (see :func:`_gamma_shape`)."""
    if gamma.size == 1:
        return gamma.reshape((1,) * len(shape))
    return gamma.reshape(_gamma_shape(gamma.shape, shape))


def _gelu(xp, x):
    return 0.5 * x * (1 + erf(xp, x * _INV_SQRT2))


_GELU_TANH_K, _GELU_TANH_C = math.sqrt(2 / math.pi), 0.044715


def _gelu_tanh(xp, x):
    """MXNet's ``gelu_tanh``: ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``."""
    return 0.5 * x * (1 + xp.tanh(_GELU_TANH_K * (x + _GELU_TANH_C * x * x * x)))


def _leaky_slope(attrs):
    """The negative-side slope; rrelu uses its inference slope (lower + upper) / 2."""
    if attrs["act_type"] != "rrelu":
        return attrs["slope"]
    return 0.5 * (attrs["lower_bound"] + attrs["upper_bound"])


def _leaky_compute(xp, inputs, attrs, ctx):
    x = _as_float(inputs[0])
    act = attrs["act_type"]
    if act == "rrelu" and ctx.is_train:
        raise MXNetNotImplementedError("LeakyReLU: act_type='rrelu' in training mode (random "
                                       "slopes) is not implemented; only inference is")
    if act == "elu":
        return xp.where(x > 0, x, attrs["slope"] * xp.expm1(x))
    if act == "selu":
        return _SELU_LAMBDA * xp.where(x > 0, x, _SELU_ALPHA * xp.expm1(x))
    if act in ("gelu", "gelu_erf"):
        return _gelu(xp, x)
    if act == "gelu_tanh":
        return _gelu_tanh(xp, x)
    slope = _channel_view(inputs[1], x.shape) if act == "prelu" else _leaky_slope(attrs)
    y = xp.where(x > 0, x, slope * x).astype(x.dtype, copy=False)
    # NOTE: rrelu has a second output, the mask of random slopes (zeros at inference in MXNet).
    return (y, xp.zeros_like(x)) if act == "rrelu" else y


def _select(mask, positive, negative):
    """``mask * positive + (1 - mask) * negative`` with F ops (mask holds 0/1)."""
    return F.broadcast_add(F.broadcast_mul(mask, positive),
                           F.broadcast_mul(F._rminus_scalar(mask, scalar=1.0), negative))


def _gelu_deriv(x):
    """Phi(x) + x * phi(x) (normal CDF and density)."""
    erf_term = F.erf(F._mul_scalar(x, scalar=_INV_SQRT2))
    cdf = F._mul_scalar(F._plus_scalar(erf_term, scalar=1.0), scalar=0.5)
    pdf = F._mul_scalar(F.exp(F._mul_scalar(F.square(x), scalar=-0.5)), scalar=_INV_SQRT_2PI)
    return F.broadcast_add(cdf, F.broadcast_mul(x, pdf))


def _gelu_tanh_deriv(x):
    """``0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2)`` with ``t = tanh(k (x + c x^3))``."""
    inner = F._mul_scalar(F.broadcast_add(x, F._mul_scalar(F.broadcast_mul(F.square(x), x),
                                                           scalar=_GELU_TANH_C)),
                          scalar=_GELU_TANH_K)
    t = F.tanh(inner)
    slope = F._mul_scalar(F._plus_scalar(F._mul_scalar(F.square(x), scalar=3 * _GELU_TANH_C),
                                         scalar=1.0), scalar=0.5 * _GELU_TANH_K)
    curve = F.broadcast_mul(F.broadcast_mul(x, F._rminus_scalar(F.square(t), scalar=1.0)), slope)
    return F.broadcast_add(F._mul_scalar(F._plus_scalar(t, scalar=1.0), scalar=0.5), curve)


def _prelu_grad(node, g, mask):
    x, gamma = node.inputs
    slope = F._channel_broadcast(gamma, x)
    negative_part = F.broadcast_mul(g[0], _select(mask, F.zeros_like(x), x))
    return [F.broadcast_mul(g[0], _select(mask, F.ones_like(x), slope)),
            F._channel_sum(negative_part, gamma)]


def _leaky_grad(node, g):
    """Exact derivatives. NOTE: MXNet 1.9's selu backward computes lambda * (y + alpha) on the
    negative side, which is not the derivative (y + lambda * alpha); mxlab keeps the math."""
    x, y, act = node.inputs[0], node.outputs[0], node.attrs["act_type"]
    if act in ("gelu", "gelu_erf"):
        return [F.broadcast_mul(g[0], _gelu_deriv(x))]
    if act == "gelu_tanh":
        return [F.broadcast_mul(g[0], _gelu_tanh_deriv(x))]
    mask = _mask(x)
    if act == "prelu":
        return _prelu_grad(node, g, mask)
    if act == "elu":
        negative = F._plus_scalar(y, scalar=node.attrs["slope"])
    elif act == "selu":
        negative = F._plus_scalar(y, scalar=_SELU_LAMBDA * _SELU_ALPHA)
    else:
        negative = F._mul_scalar(F.ones_like(x), scalar=_leaky_slope(node.attrs))
    positive = F._mul_scalar(F.ones_like(x), scalar=_SELU_LAMBDA if act == "selu" else 1.0)
    return [F.broadcast_mul(g[0], _select(mask, positive, negative))]


def _leaky_inputs(attrs):
    return ("data", "gamma") if attrs["act_type"] == "prelu" else ("data",)


def _leaky_outputs(attrs):
    return ("output", "mask") if attrs["act_type"] == "rrelu" else ("output",)


def _leaky_shape(attrs, s):
    """Outputs like the data; an unknown prelu ``gamma`` is one slope per channel (axis 1), as
    MXNet infers it."""
    outs = [s[0]] * len(_leaky_outputs(attrs))
    data = s[0]
    if attrs["act_type"] != "prelu" or s[1] is not None or data is None or len(data) < 2 or \
            data[1] is None:
        return outs
    return [data, (data[1],)], outs


def _leaky_type(attrs, d):
    """Outputs: data's float dtype; an unknown prelu ``gamma`` takes data's dtype (MXNet)."""
    out = None if d[0] is None else float_result(numpy.dtype(d[0])).name
    ins = list(d)
    if len(ins) > 1 and ins[1] is None:
        ins[1] = d[0]
    return ins, [out] * len(_leaky_outputs(attrs))


_LEAKY_TYPES = ("elu", "gelu", "gelu_erf", "gelu_tanh", "leaky", "prelu", "rrelu", "selu")
register(Op(name="LeakyReLU", aliases=("_npx_leaky_relu",), compute=_leaky_compute,
            attrs=(Attr("act_type", "str", "leaky", choices=_LEAKY_TYPES),
                   Attr("slope", "float", 0.25), Attr("lower_bound", "float", 0.125),
                   Attr("upper_bound", "float", 0.334)),
            num_inputs=lambda attrs: len(_leaky_inputs(attrs)), input_names=_leaky_inputs,
            num_outputs=lambda attrs: len(_leaky_outputs(attrs)), output_names=_leaky_outputs,
            infer_shape=_leaky_shape,
            infer_type=_leaky_type,
            gradient=_leaky_grad, npx_name="leaky_relu",
            doc="Leaky ReLU family chosen by ``act_type``; ``prelu`` learns ``gamma`` "
                "(one slope per channel)."))


def _channel_broadcast(xp, inputs, attrs):
    gamma, like = inputs
    return xp.broadcast_to(_channel_view(gamma, like.shape), like.shape).astype(like.dtype)


def _channel_sum(xp, inputs, attrs):
    data, like = inputs
    if like.size == 1:
        return as_array(xp, data.sum()).reshape(like.shape)
    expanded = _gamma_shape(like.shape, data.shape)
    axes = tuple(i for i, d in enumerate(expanded) if d == 1 and data.shape[i] != 1)
    return as_array(xp, data.sum(axis=axes)).reshape(like.shape)


for _name, _compute, _other, _doc in (
        ("_channel_broadcast", _channel_broadcast, "_channel_sum",
         "PReLU helper: a per-channel vector broadcast along axis 1 of ``like``."),
        ("_channel_sum", _channel_sum, "_channel_broadcast",
         "PReLU helper: sum over every axis but 1 (adjoint of ``_channel_broadcast``).")):
    register(Op(name=_name, compute=_compute, num_inputs=2, input_names=("data", "like"),
                infer_shape=lambda attrs, s: [s[1]], ignore_inputs=(1,), hidden=True,
                gradient=lambda node, g, other=_other: [
                    getattr(F, other)(g[0], node.inputs[0]), None],
                doc=_doc))


# -- softmax family ------------------------------------------------------------------------------
def softmax_kernel(xp, x, axes, temperature=None, log=False, mask=None):
    """Numerically stable (log-)softmax of ``x`` over ``axes`` (a tuple), optional temperature.

    ``mask`` (bool, broadcastable) keeps only its True positions: the others get probability 0
    (log: -inf), and a slice with no position kept is all zeros (log: all -inf).

    >>> softmax_kernel(numpy, numpy.array([0.0, 0.0]), (0,))
    array([0.5, 0.5])
    """
    x = _as_float(x)
    if x.size == 0:     # NOTE: nothing to normalize (and no max of an empty axis)
        return x.copy()
    if temperature is not None and temperature != 1.0:
        x = x / temperature
    if mask is None:
        shifted = x - x.max(axis=axes, keepdims=True)
        exp = xp.exp(shifted)
        total = exp.sum(axis=axes, keepdims=True)
        return shifted - xp.log(total) if log else exp / total
    peak = xp.where(mask, x, -xp.inf).max(axis=axes, keepdims=True)
    shifted = x - xp.where(xp.isfinite(peak), peak, 0)
    exp = xp.where(mask, xp.exp(shifted), 0)
    total = xp.where(exp.sum(axis=axes, keepdims=True) == 0, 1, exp.sum(axis=axes, keepdims=True))
    if log:   # NOTE: masked positions are -inf, as MXNet's masked_log_softmax gives
        return xp.where(mask, shifted - xp.log(total), -xp.inf)
    return exp / total


def _length_mask(name, xp, x, length, axis):
    """True where the position along ``axis`` is below ``length`` (shape: ``x`` without axis)."""
    if length.dtype.kind not in "iu":
        raise MXNetTypeError(f"{name}: 'length' must be an integer array, got {length.dtype}")
    positions = xp.arange(x.shape[axis]).reshape([-1 if i == axis else 1 for i in range(x.ndim)])
    return positions < xp.expand_dims(length, axis)


def _softmax_compute(name, log):
    def compute(xp, inputs, attrs):
        x = inputs[0]
        (axis,) = reduced_axes(name, attrs["axis"], x.ndim)
        mask = None
        if attrs["use_length"]:
            if log:
                raise MXNetNotImplementedError(f"{name}: use_length=True is not supported "
                                               f"(MXNet has it for softmax only)")
            mask = _length_mask(name, xp, x, inputs[1], axis)
        y = softmax_kernel(xp, x, (axis,), attrs["temperature"], log, mask)
        return as_array(xp, y if attrs["dtype"] is None else y.astype(attrs["dtype"]))
    return compute


def _softmax_into(name, log):
    """Planned execution: the plain case (float input of the output's dtype, no length mask, no
    temperature, no dtype cast) straight into the output buffer, by the same ufuncs in the same
    order as :func:`softmax_kernel` (so the same values); any other case computes, then copies."""
    compute = _softmax_compute(name, log)

    def into(xp, inputs, attrs, outs):
        x, out = inputs[0], outs[0]
        if attrs["use_length"] or attrs["dtype"] is not None or x.dtype != out.dtype \
                or x.dtype.kind != "f" or x.size == 0 or attrs["temperature"] not in (None, 1.0):
            xp.copyto(out, compute(xp, inputs, attrs), casting="unsafe")
            return
        (axis,) = reduced_axes(name, attrs["axis"], x.ndim)
        # NOTE: the ufuncs' own reduce on NumPy (what ndarray.max/sum call, minus their Python
        #   wrappers: most of the time on a classifier's (batch, classes) logits)
        peak, total = (numpy.maximum.reduce, numpy.add.reduce) if xp is numpy else \
            (xp.max, xp.sum)
        xp.subtract(x, peak(x, axis=axis, keepdims=True), out=out)
        if log:
            out -= xp.log(total(xp.exp(out), axis=axis, keepdims=True))
        else:
            xp.exp(out, out=out)
            out /= total(out, axis=axis, keepdims=True)
    return into


def _softmax_grad_rule(log, axes_of):
    """softmax: ``y * (g - sum(g * y))``; log_softmax: ``g - exp(y) * sum(g)``; both / T.

    Masked positions (``use_length``) have ``y == 0`` and so get no gradient.
    ``axes_of(node)`` gives the ``sum`` attributes (axis, exclude) of the normalised axes.
    """
    def grad(node, g):
        y, axes = node.outputs[0], axes_of(node)
        if set(axes) == {"axis"}:   # NOTE: one backward node, as MXNet's _backward_(log_)softmax
            backward = F._backward_log_softmax if log else F._backward_softmax
            return [backward(g[0], y, axis=axes["axis"],
                             temperature=node.attrs.get("temperature"))] \
                + [None] * (len(node.inputs) - 1)
        if log:
            total = F.sum(g[0], keepdims=True, **axes)
            result = F.broadcast_sub(g[0], F.broadcast_mul(F.exp(y), total))
        else:
            total = F.sum(F.broadcast_mul(g[0], y), keepdims=True, **axes)
            result = F.broadcast_mul(y, F.broadcast_sub(g[0], total))
        temperature = node.attrs.get("temperature")
        if temperature is not None and temperature != 1.0:
            result = F._div_scalar(result, scalar=temperature)
        return [result] + [None] * (len(node.inputs) - 1)   # NOTE: no gradient for 'length'
    return grad


def _softmax_type(attrs, dtypes):
    if attrs["dtype"] is not None:
        return [attrs["dtype"]]
    return _float_type(attrs, dtypes)


_SOFTMAX_ATTRS = (Attr("axis", "int", -1), Attr("temperature", "float", None, optional=True),
                  Attr("dtype", "dtype", None, optional=True), Attr("use_length", "bool", False))

for _name, _log in (("softmax", False), ("log_softmax", True)):
    register(Op(name=_name, aliases=(f"_npx_{_name}",), compute=_softmax_compute(_name, _log),
                compute_into=_softmax_into(_name, _log),
                attrs=_SOFTMAX_ATTRS, num_inputs=lambda attrs: 2 if attrs["use_length"] else 1,
                input_names=lambda attrs: ("data", "length") if attrs["use_length"] else ("data",),
                infer_shape=lambda attrs, s: [s[0]], infer_type=_softmax_type,
                gradient=_softmax_grad_rule(_log, lambda node: {"axis": node.attrs["axis"]}),
                save_inputs=False, npx_name=_name,
                doc=f"{_name} over ``axis`` with an optional temperature."))


def _softmin_compute(xp, inputs, attrs):
    return _softmax_compute("softmin", False)(xp, [-inputs[0]] + list(inputs[1:]), attrs)


def _softmin_grad(node, g):
    """softmin(x) = softmax(-x): the softmax rule, negated."""
    grads = _softmax_grad_rule(False, lambda n: {"axis": n.attrs["axis"]})(node, g)
    return [F.negative(grads[0])] + grads[1:]


register(Op(name="softmin", compute=_softmin_compute, attrs=_SOFTMAX_ATTRS,
            num_inputs=lambda attrs: 2 if attrs["use_length"] else 1,
            input_names=lambda attrs: ("data", "length") if attrs["use_length"] else ("data",),
            infer_shape=lambda attrs, s: [s[0]], infer_type=_softmax_type,
            gradient=_softmin_grad, save_inputs=False,
            doc="softmin over ``axis``: ``softmax(-x)``, with an optional temperature."))


def _softmax_activation_axis(attrs):
    """``channel``: axis 1; ``instance``: the last axis (what MXNet 1.9 computes)."""
    return 1 if attrs["mode"] == "channel" else -1


def _softmax_activation_sum(node):
    return {"axis": _softmax_activation_axis(node.attrs)}


def _softmax_activation(xp, inputs, attrs):
    x = inputs[0]
    axes = reduced_axes("SoftmaxActivation", _softmax_activation_axis(attrs), x.ndim)
    return softmax_kernel(xp, x, axes)


register(Op(name="SoftmaxActivation",
            attrs=(Attr("mode", "str", "instance", choices=("instance", "channel")),),
            compute=_softmax_activation,
            infer_shape=lambda attrs, s: [s[0]], infer_type=_float_type, save_inputs=False,
            gradient=_softmax_grad_rule(False, _softmax_activation_sum),
            doc="Softmax over the last axis (``instance``) or over axis 1 (``channel``); "
                "deprecated in MXNet."))
