"""MXNet 1.x ops that older code still calls: ``hard_sigmoid``, ``smooth_l1``,
``softmax_cross_entropy``, ``L2Normalization``, ``all_finite`` / ``multi_all_finite`` (the AMP
loss-scaler's check), ``contrib.allclose``.

Gradients are written with differentiable ops, so they can be differentiated again.

Example
-------
>>> import mxlab as mx
>>> mx.nd.hard_sigmoid(mx.nd.array([-5.0, 0.0, 1.0])).asnumpy().tolist()
[0.0, 0.5, 0.699999988079071]
"""
import numpy

from .attrs import Attr
from .registry import F, Op, register

__all__ = []


# -- hard_sigmoid: clip(alpha * x + beta, 0, 1) ----------------------------------------------------
def _hard_sigmoid(xp, inputs, attrs):
    x = inputs[0]
    y = x * x.dtype.type(attrs["alpha"]) + x.dtype.type(attrs["beta"])
    return xp.clip(y, 0, 1, out=y)


def _hard_sigmoid_grad(node, g):
    """``alpha`` where the output is strictly between 0 and 1 (MXNet's rule), else 0."""
    y = node.outputs[0]
    inside = F.broadcast_mul(F._greater_scalar(y, scalar=0.0), F._lesser_scalar(y, scalar=1.0))
    return [F.broadcast_mul(g[0], F._mul_scalar(inside, scalar=node.attrs["alpha"]))]


register(Op(name="hard_sigmoid", compute=_hard_sigmoid, input_names=("data",),
            attrs=(Attr("alpha", "float", 0.2), Attr("beta", "float", 0.5)),
            infer_shape=lambda attrs, s: [s[0]], gradient=_hard_sigmoid_grad,
            save_inputs=False, elementwise=True,
            doc="``clip(alpha * x + beta, 0, 1)`` (MXNet's ``hard_sigmoid``)."))


# -- L2Normalization: x / sqrt(sum(x^2) + eps) over the mode's axes --------------------------------
def _l2_axes(mode, ndim):
    return {"instance": tuple(range(1, ndim)), "channel": (1,),
            "spatial": tuple(range(2, ndim))}[mode]


def _l2_normalization(xp, inputs, attrs):
    x = inputs[0]
    axes = _l2_axes(attrs["mode"], x.ndim)
    norm = xp.sqrt((x * x).sum(axis=axes, keepdims=True) + x.dtype.type(attrs["eps"]))
    return x / norm, norm


def _l2_normalization_grad(node, g):
    """``(g - y * sum(g * y)) / norm`` over the normalised axes."""
    y, norm = node.outputs[0], node.outputs[1]
    # NOTE: the axes as sum's (axis, exclude): the rank is not known while building a graph
    axes = {"instance": {"axis": 0, "exclude": True}, "channel": {"axis": 1},
            "spatial": {"axis": (0, 1), "exclude": True}}[node.attrs["mode"]]
    along = F.sum(F.broadcast_mul(g[0], y), keepdims=True, **axes)
    return [F.broadcast_div(F.broadcast_sub(g[0], F.broadcast_mul(y, along)), norm)]


def _l2_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None, None]
    axes = _l2_axes(attrs["mode"], len(s))
    return [tuple(s), tuple(1 if i in axes else d for i, d in enumerate(s))]


register(Op(name="L2Normalization", compute=_l2_normalization, input_names=("data",),
            num_outputs=2, num_visible_outputs=1, output_names=("output", "norm"),
            attrs=(Attr("eps", "float", 1e-10),
                   Attr("mode", "str", "instance", choices=("instance", "channel", "spatial"))),
            infer_shape=_l2_infer, gradient=_l2_normalization_grad, save_inputs=False,
            doc="``x / sqrt(sum(x**2) + eps)`` per instance, channel or spatial position."))


# -- all_finite / multi_all_finite: 1.0 when every value is finite, else 0.0 -----------------------
def _all_finite(xp, inputs, attrs):
    finite = all(bool(xp.isfinite(x).all()) for x in inputs)
    return xp.asarray([1.0 if finite else 0.0], dtype=numpy.float32)


_FINITE_ATTRS = (Attr("init_output", "bool", True),)
register(Op(name="all_finite", compute=_all_finite, input_names=("data",), attrs=_FINITE_ATTRS,
            infer_shape=lambda attrs, s: [(1,)], infer_type=lambda attrs, d: ["float32"],
            gradient=lambda node, g: [None],
            doc="``[1.0]`` when every value of ``data`` is finite, else ``[0.0]``."))
register(Op(name="multi_all_finite", compute=_all_finite,
            num_inputs=lambda attrs: attrs["num_arrays"],
            input_names=lambda attrs: tuple(f"data{i}" for i in range(attrs["num_arrays"])),
            attrs=(Attr("num_arrays", "int", 1),) + _FINITE_ATTRS,
            infer_shape=lambda attrs, s: [(1,)], infer_type=lambda attrs, d: ["float32"],
            gradient=lambda node, g: [None] * len(node.inputs),
            doc="``all_finite`` over ``num_arrays`` arrays at once."))


# -- smooth_l1: Huber-like loss with sigma = scalar ------------------------------------------------
def _smooth_l1(xp, inputs, attrs):
    x, s2 = inputs[0], attrs["scalar"] ** 2
    ax = xp.abs(x)
    return xp.where(ax < 1 / s2, 0.5 * s2 * x * x, ax - 0.5 / s2).astype(x.dtype, copy=False)


def _smooth_l1_grad(node, g):
    """``sigma^2 x`` inside ``|x| < 1 / sigma^2``, ``sign(x)`` outside."""
    x, s2 = node.inputs[0], node.attrs["scalar"] ** 2
    inside = F._lesser_scalar(F.abs(x), scalar=1 / s2)
    slope = F.broadcast_add(F.broadcast_mul(inside, F._mul_scalar(x, scalar=s2)),
                            F.broadcast_mul(F._rminus_scalar(inside, scalar=1.0), F.sign(x)))
    return [F.broadcast_mul(g[0], slope)]


register(Op(name="smooth_l1", compute=_smooth_l1, input_names=("data",),
            attrs=(Attr("scalar", "float", 1.0),), infer_shape=lambda attrs, s: [s[0]],
            gradient=_smooth_l1_grad, save_outputs=False, elementwise=True,
            doc="``0.5 (sigma x)^2`` where ``|x| < 1/sigma^2``, else ``|x| - 0.5/sigma^2``."))


# -- softmax_cross_entropy: sum over the batch of -log softmax(data)[label] ------------------------
def _softmax_cross_entropy(xp, inputs, attrs):
    data, label = inputs
    shifted = data - data.max(axis=-1, keepdims=True)
    log_p = shifted - xp.log(xp.exp(shifted).sum(axis=-1, keepdims=True))
    picked = xp.take_along_axis(log_p, label.astype(numpy.int64)[:, None], axis=-1)
    return (-picked.sum()).reshape(1).astype(data.dtype, copy=False)


def _softmax_cross_entropy_grad(node, g):
    """``g * (softmax(data) - one_hot(label))``; the label gets none."""
    data, label = node.inputs
    per_row = F.broadcast_like(g[0], label)
    probs = F.broadcast_mul(F.softmax(data, axis=-1), F.Reshape(g[0], shape=(1, 1)))
    return [F.broadcast_sub(probs, F._backward_pick(per_row, data, label, axis=-1)), None]


register(Op(name="softmax_cross_entropy", compute=_softmax_cross_entropy, num_inputs=2,
            input_names=("data", "label"), infer_shape=lambda attrs, s: [(1,)],
            infer_type=lambda attrs, d: [d[0]], gradient=_softmax_cross_entropy_grad,
            save_outputs=False,
            doc="Summed cross-entropy of ``softmax(data)`` against integer ``label`` (1 value)."))


# -- contrib.allclose: one uint8 flag -----------------------------------------------------------
def _allclose(xp, inputs, attrs):
    a, b = inputs
    close = xp.allclose(a, b, rtol=attrs["rtol"], atol=attrs["atol"],
                        equal_nan=attrs["equal_nan"])
    return xp.asarray(1 if close else 0, dtype=numpy.uint8)


register(Op(name="_contrib_allclose", compute=_allclose, num_inputs=2, input_names=("a", "b"),
            attrs=(Attr("rtol", "float", 1e-5), Attr("atol", "float", 1e-8),
                   Attr("equal_nan", "bool", True)),
            infer_shape=lambda attrs, s: [()], infer_type=lambda attrs, d: ["uint8"],
            gradient=lambda node, g: [None, None],
            doc="1 (uint8) when every element of ``a`` is close to ``b`` (NumPy's allclose)."))
