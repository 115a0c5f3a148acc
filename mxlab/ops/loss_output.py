"""MXNet 1.x's loss output layers: ``SoftmaxOutput`` and the regression outputs.

A 1.x training symbol ends in one of these (``mx.mod.Module`` trains it without head
gradients): forward gives the prediction (softmax probabilities, the identity, or the sigmoid),
backward ignores the head gradient and sends the loss gradient itself:

* ``SoftmaxOutput``: ``(softmax(data) - one_hot(label)) * grad_scale / norm``; rows whose label is
  ``ignore_label`` get none (``use_ignore``); ``normalization`` is ``null`` (no division),
  ``batch`` or ``valid`` (non-ignored count); ``smooth_alpha`` spreads ``alpha`` over the other
  classes; a label shaped like ``data`` is a probability target.
* ``LinearRegressionOutput`` / ``LogisticRegressionOutput`` / ``MAERegressionOutput``:
  ``(out - label)`` (``sign(out - label)`` for MAE) ``* grad_scale / num_output``, where
  ``num_output`` is the label's size per sample.

The label receives no gradient.
"""
import numpy

from .attrs import Attr
from .elemwise import zero_grads
from .infer import merge_shapes
from .registry import F, Op, register

__all__ = []


# -- SoftmaxOutput ---------------------------------------------------------------------------------
def _softmax(xp, x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    e = xp.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


def _class_axis(attrs, ndim):
    return 1 if attrs["multi_output"] and ndim > 2 else ndim - 1


def _softmax_output(xp, inputs, attrs):
    data = inputs[0]
    if attrs["multi_output"] or attrs["preserve_shape"] or data.ndim <= 2:
        return _softmax(xp, data, _class_axis(attrs, data.ndim))
    flat = data.reshape(data.shape[0], -1)
    return _softmax(xp, flat, 1).reshape(data.shape)


def _softmax_output_backward(xp, inputs, attrs):
    """The data gradient and the label's (zeros), MXNet's two backward outputs."""
    data, label = inputs
    out = _softmax_output(xp, [data], attrs)
    if not attrs["multi_output"] and not attrs["preserve_shape"] and data.ndim > 2:
        grad = _flat_backward(xp, out, label, attrs).reshape(data.shape)
    else:
        grad = _class_backward(xp, out, label, attrs, _class_axis(attrs, data.ndim))
    return grad, xp.zeros_like(label)


def _flat_backward(xp, out, label, attrs):
    flat = out.reshape(out.shape[0], -1)
    if label.size == out.size:
        label = label.reshape(flat.shape)
    return _class_backward(xp, flat, label, attrs, 1)


def _class_backward(xp, out, label, attrs, axis):
    """``out - target`` along ``axis`` with ignore/normalisation/smoothing applied."""
    if label.shape == out.shape:   # NOTE: a probability target (MXNet's same-shape label)
        grad = out - label
        return (grad * _scale(attrs, out.shape[0], None)).astype(out.dtype, copy=False)
    moved = xp.moveaxis(out, axis, -1)
    classes = moved.shape[-1]
    index = label.reshape(moved.shape[:-1]).astype(numpy.int64)
    valid = index != int(attrs["ignore_label"]) if attrs["use_ignore"] else None
    safe = xp.clip(index, 0, classes - 1)
    alpha = attrs["smooth_alpha"]
    target = xp.full(moved.shape, alpha / max(classes - 1, 1), dtype=out.dtype)
    xp.put_along_axis(target, safe[..., None], 1.0 - alpha, axis=-1)
    grad = moved - target
    if valid is not None:
        grad = grad * valid[..., None]
    count = int(valid.sum()) if valid is not None else index.size
    grad = grad * _scale(attrs, out.shape[0], count)
    return xp.moveaxis(grad, -1, axis).astype(out.dtype, copy=False)


def _scale(attrs, batch, valid_count):
    scale = attrs["grad_scale"]
    if attrs["normalization"] == "batch":
        return scale / batch
    if attrs["normalization"] == "valid" and valid_count is not None:
        return scale / max(valid_count, 1)
    return scale


def _softmax_output_shape(attrs, in_shapes, out_shapes=None):
    """The label is ``data``'s shape without the class axis (or ``data``'s own shape)."""
    data = merge_shapes("SoftmaxOutput", [in_shapes[0]] + list(out_shapes or []))
    label = in_shapes[1]
    if data is not None and label is None:
        if attrs["multi_output"] and len(data) > 2:
            label = data[:1] + data[2:]
        elif attrs["preserve_shape"]:
            label = data[:-1]
        else:
            label = data[:1]
    return [data, label], [data]


def _data_dtype(attrs, dtypes):
    """Output and an unknown label take ``data``'s dtype (an inference bind gives no label)."""
    return [dtypes[0], dtypes[1] if dtypes[1] is not None else dtypes[0]], [dtypes[0]]


def _softmax_output_grad(node, g):
    data_grad, _ = F._backward_SoftmaxOutput(node.inputs[0], node.inputs[1], **node.attrs)
    return [data_grad, None]


_SOFTMAX_ATTRS = (
    Attr("grad_scale", "float", 1.0, doc="gradient scale"),
    Attr("ignore_label", "float", -1.0, doc="label whose rows get no gradient (use_ignore)"),
    Attr("multi_output", "bool", False, doc="softmax over axis 1 of (n, k, d1, ...)"),
    Attr("use_ignore", "bool", False, doc="skip rows labelled ignore_label"),
    Attr("preserve_shape", "bool", False, doc="softmax over the last axis, shape kept"),
    Attr("normalization", "str", "null", choices=("null", "batch", "valid"),
         doc="divide the gradient by nothing, the batch size, or the valid count"),
    Attr("out_grad", "bool", False, doc="(MXNet: multiply by the head gradient; unused)"),
    Attr("smooth_alpha", "float", 0.0, doc="label smoothing mass spread over other classes"),
)

register(Op(name="SoftmaxOutput", aliases=("Softmax",), compute=_softmax_output, num_inputs=2,
            input_names=("data", "label"), attrs=_SOFTMAX_ATTRS,
            infer_shape=_softmax_output_shape, infer_type=_data_dtype,
            gradient=_softmax_output_grad, save_inputs=True, save_outputs=False,
            doc="Softmax forward; backward sends ``softmax - one_hot(label)`` (a loss head)."))
register(Op(name="_backward_SoftmaxOutput", compute=_softmax_output_backward, num_inputs=2,
            num_outputs=2, input_names=("data", "label"), attrs=_SOFTMAX_ATTRS,
            infer_shape=lambda attrs, s: [s[0], s[1]], infer_type=lambda attrs, d: [d[0], d[1]],
            gradient=zero_grads, hidden=True, nd_names=(),
            doc="The gradient ``SoftmaxOutput`` sends to its data."))


# -- regression outputs ---------------------------------------------------------------------------
def _regression(kind):
    forward = {"linear": lambda xp, x: x.copy(), "mae": lambda xp, x: x.copy(),
               "logistic": lambda xp, x: 1.0 / (1.0 + xp.exp(-x))}[kind]

    def compute(xp, inputs, attrs):
        return forward(xp, inputs[0]).astype(inputs[0].dtype, copy=False)

    def backward(xp, inputs, attrs):
        data, label = inputs
        out = compute(xp, [data], attrs)
        label = label.reshape(out.shape)
        diff = out - label
        if kind == "mae":
            diff = xp.sign(diff)
        num_output = label.size // label.shape[0] if label.ndim else 1
        grad = (diff * (attrs["grad_scale"] / num_output)).astype(data.dtype, copy=False)
        return grad, xp.zeros_like(inputs[1])
    return compute, backward


def _regression_shape(attrs, in_shapes, out_shapes=None):
    """The label has ``data``'s shape (``(n,)`` also goes with data ``(n, 1)``)."""
    data = merge_shapes("RegressionOutput", [in_shapes[0]] + list(out_shapes or []))
    label = in_shapes[1] if in_shapes[1] is not None else data
    return [data, label], [data]


_REGRESSION_ATTRS = (Attr("grad_scale", "float", 1.0, doc="gradient scale"),)

for _name, _kind, _doc in (
        ("LinearRegressionOutput", "linear", "Identity forward; backward ``out - label``."),
        ("LogisticRegressionOutput", "logistic", "Sigmoid forward; backward ``out - label``."),
        ("MAERegressionOutput", "mae", "Identity forward; backward ``sign(out - label)``.")):
    _fwd, _bwd = _regression(_kind)
    _backward_name = "_backward_" + _name

    def _grad(node, g, _backward_name=_backward_name):
        data_grad, _ = getattr(F, _backward_name)(node.inputs[0], node.inputs[1], **node.attrs)
        return [data_grad, None]

    register(Op(name=_name, compute=_fwd, num_inputs=2, input_names=("data", "label"),
                attrs=_REGRESSION_ATTRS, infer_shape=_regression_shape,
                infer_type=_data_dtype, gradient=_grad, save_inputs=True,
                save_outputs=False, doc=_doc + " Scaled by grad_scale / outputs per sample."))
    register(Op(name=_backward_name, compute=_bwd, num_inputs=2, num_outputs=2,
                input_names=("data", "label"), attrs=_REGRESSION_ATTRS,
                infer_shape=lambda attrs, s: [s[0], s[1]],
                infer_type=lambda attrs, d: [d[0], d[1]], gradient=zero_grads, hidden=True,
                nd_names=(), doc=f"The gradient ``{_name}`` sends to its data."))
