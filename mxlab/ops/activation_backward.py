"""``_backward_Activation``, ``_backward_softmax`` and ``_backward_log_softmax``: the gradients of
``Activation`` and of softmax / log_softmax as one op each (MXNet's backward ops).

One node instead of two to four (``_greater_scalar`` + ``broadcast_mul``; ``sum``, ``exp``,
``broadcast_mul``, ``broadcast_sub``): a planned graph runs one kernel into its buffer. The
arithmetic is the composed ops' own, in their order, so values do not change. Their gradients are
written with differentiable ops, so higher orders still work.

Example
-------
>>> import numpy
>>> from mxlab.ops.registry import get_op
>>> op = get_op("_backward_Activation")
>>> op.compute(numpy, [numpy.ones(3), numpy.array([-1.0, 0.0, 2.0])], {"act_type": "relu"})
array([0., 0., 1.])
"""
import numpy

from .attrs import Attr
from .infer import same_dtype, same_shape
from .registry import F, Op, register

__all__ = ["OUTPUT_DERIVATIVES"]

_FLOAT16 = numpy.dtype("float16")


def _fresh(into, xp, inputs, attrs):
    out = xp.empty(inputs[0].shape, inputs[0].dtype)
    into(xp, inputs, attrs, [out])
    return out


# -- Activation --------------------------------------------------------------------------------
def _act_backward_into(xp, inputs, attrs, outs):
    """``g * f'(y)`` for the activations whose derivative reads the output ``y``."""
    g, y = inputs
    act = attrs["act_type"]
    if act == "relu":
        xp.multiply(g, y > 0, out=outs[0])
    elif act == "sigmoid":
        xp.multiply(g, y * (1 - y), out=outs[0])
    else:   # tanh
        xp.multiply(g, 1 - y * y, out=outs[0])


def _act_backward_grad(node, hg):
    """``d/dg = h f'(y)`` (this op again); ``d/dy = h g f''``, with f'' as a function of y:
    relu 0, sigmoid ``1 - 2y``, tanh ``-2y``."""
    g, y = node.inputs
    act = node.attrs["act_type"]
    dg = F._backward_Activation(hg[0], y, act_type=act)
    if act == "relu":
        return [dg, None]
    second = F._rminus_scalar(F._mul_scalar(y, scalar=2.0), scalar=1.0) if act == "sigmoid" \
        else F._mul_scalar(y, scalar=-2.0)
    return [dg, F.broadcast_mul(F.broadcast_mul(hg[0], g), second)]


OUTPUT_DERIVATIVES = ("relu", "sigmoid", "tanh")   # the act_types this op computes

register(Op(name="_backward_Activation",
            compute=lambda xp, ins, a: _fresh(_act_backward_into, xp, ins, a),
            compute_into=_act_backward_into, num_inputs=2, input_names=("ograd", "output"),
            attrs=(Attr("act_type", "str", choices=OUTPUT_DERIVATIVES),), infer_shape=same_shape,
            infer_type=same_dtype, gradient=_act_backward_grad, hidden=True,
            inplace=((0, 0),),   # NOTE: the kernel reads each ograd element before writing it
            doc="Gradient of ``Activation`` from the output gradient and the output."))


# -- softmax / log_softmax -----------------------------------------------------------------------
def _summed(x, axis):
    """``sum(x, axis, keepdims)`` as the ``sum`` op computes it (float16 accumulates wider)."""
    if x.dtype == _FLOAT16:
        return x.sum(axis=axis, dtype=numpy.float32, keepdims=True).astype(_FLOAT16)
    return x.sum(axis=axis, keepdims=True)


def _scaled(out, attrs):
    temperature = attrs["temperature"]
    if temperature is not None and temperature != 1.0:
        out /= temperature


def _log_softmax_backward_into(xp, inputs, attrs, outs):
    """``(g - exp(y) * sum(g)) / T``."""
    g, y = inputs
    out = outs[0]
    total = _summed(g, attrs["axis"])
    xp.exp(y, out=out)
    out *= total
    xp.subtract(g, out, out=out)
    _scaled(out, attrs)


def _softmax_backward_into(xp, inputs, attrs, outs):
    """``y * (g - sum(g * y)) / T``."""
    g, y = inputs
    out = outs[0]
    xp.multiply(g, y, out=out)
    total = _summed(out, attrs["axis"])
    xp.subtract(g, total, out=out)
    xp.multiply(y, out, out=out)
    _scaled(out, attrs)


def _unscaled_head(node, hg):
    temperature = node.attrs["temperature"]
    if temperature is not None and temperature != 1.0:
        return F._div_scalar(hg[0], scalar=temperature)
    return hg[0]


def _log_softmax_backward_grad(node, hg):
    """With ``h = head / T`` and ``e = exp(y)``: ``d/dg = h - sum(h e)``,
    ``d/dy = -h e sum(g)``."""
    g, y = node.inputs
    axis = node.attrs["axis"]
    h, e = _unscaled_head(node, hg), F.exp(y)
    dg = F.broadcast_sub(h, F.sum(F.broadcast_mul(h, e), axis=axis, keepdims=True))
    dy = F.negative(F.broadcast_mul(F.broadcast_mul(h, e), F.sum(g, axis=axis, keepdims=True)))
    return [dg, dy]


def _softmax_backward_grad(node, hg):
    """With ``h = head / T``: ``d/dg = y (h - sum(h y))`` (this op again, which divides by T),
    ``d/dy = h (g - sum(g y)) - g sum(h y)``."""
    g, y = node.inputs
    axis = node.attrs["axis"]
    dg = F._backward_softmax(hg[0], y, **node.attrs)
    h = _unscaled_head(node, hg)
    centered = F.broadcast_sub(g, F.sum(F.broadcast_mul(g, y), axis=axis, keepdims=True))
    spread = F.broadcast_mul(g, F.sum(F.broadcast_mul(h, y), axis=axis, keepdims=True))
    return [dg, F.broadcast_sub(F.broadcast_mul(h, centered), spread)]


_SOFTMAX_ATTRS = (Attr("axis", "int", -1), Attr("temperature", "float", None, optional=True))

for _name, _into, _grad in (("_backward_softmax", _softmax_backward_into, _softmax_backward_grad),
                            ("_backward_log_softmax", _log_softmax_backward_into,
                             _log_softmax_backward_grad)):
    register(Op(name=_name, compute=lambda xp, ins, a, into=_into: _fresh(into, xp, ins, a),
                compute_into=_into, num_inputs=2, input_names=("ograd", "output"),
                attrs=_SOFTMAX_ATTRS, infer_shape=same_shape, infer_type=same_dtype,
                gradient=_grad, hidden=True,
                # NOTE: log_softmax's kernel reads the output y only through exp(y) written over
                #   it first; softmax's reads both inputs after writing: no in-place for it
                inplace=((1, 0),) if _name == "_backward_log_softmax" else (),
                doc=f"Gradient of ``{_name[10:]}`` from the output gradient and the output."))
