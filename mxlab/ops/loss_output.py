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
    if label.shape == out.shape:   # NOTE: a probability target: no normalisation (MXNet's)
        grad = (out - label) * attrs["grad_scale"]
    elif attrs["multi_output"] and data.ndim > 2:
        spatial = out.size // (out.shape[0] * out.shape[1])
        grad = _class_backward(xp, out, label, attrs, 1, label.shape[0], spatial)
    elif attrs["preserve_shape"] or data.ndim <= 2:
        grad = _class_backward(xp, out, label, attrs, data.ndim - 1, label.size)
    else:
        grad = _flat_backward(xp, out, label, attrs).reshape(data.shape)
    return grad.astype(data.dtype, copy=False), xp.zeros_like(label)


def _flat_backward(xp, out, label, attrs):
    """MXNet's default mode on N-d data: softmax over each sample's flattened values, and the
    label read as its first ``n`` values (the label is inferred as ``data.shape[:-1]``)."""
    flat = out.reshape(out.shape[0], -1)
    return _class_backward(xp, flat, label.reshape(-1)[:flat.shape[0]], attrs, 1, label.size,
                           full_label=label)


def _class_backward(xp, out, label, attrs, axis, batch_count, spatial=1, full_label=None):
    """``out - one_hot(label)`` along ``axis``, scaled as MXNet's kernel: ``grad_scale`` over
    the count ``normalization`` names ('batch': ``batch_count``; 'valid': labels that are not
    ``ignore_label``), and with ``multi_output`` over the positions per sample too."""
    moved = xp.moveaxis(out, axis, -1)
    classes = moved.shape[-1]
    index = label.reshape(moved.shape[:-1]).astype(numpy.int64)
    ignore = int(attrs["ignore_label"])
    alpha = attrs["smooth_alpha"]
    # NOTE: as MXNet's kernel, a label outside [0, classes) matches no class (no -1 anywhere)
    hot = xp.arange(classes) == index[..., None]
    target = xp.where(hot, 1.0 - alpha, alpha / max(classes - 1, 1)).astype(out.dtype)
    grad = moved - target
    if attrs["use_ignore"]:
        grad = grad * (index != ignore)[..., None]
    normalization = attrs["normalization"]
    count = 1
    if normalization == "batch":
        count = batch_count
    elif normalization == "valid":
        counted = full_label if full_label is not None else label
        count = max(int((counted.astype(numpy.int64) != ignore).sum()), 1)
        spatial = 1
    grad = grad * (attrs["grad_scale"] / spatial / count)
    return xp.moveaxis(grad, -1, axis)


def _softmax_output_shape(attrs, in_shapes, out_shapes=None):
    """The label is ``data``'s shape without the class axis (axis 1 with ``multi_output``, else
    the last; a label shaped like ``data`` is given, never inferred)."""
    data = merge_shapes("SoftmaxOutput", [in_shapes[0]] + list(out_shapes or []))
    label = in_shapes[1]
    if data is not None and label is None:
        label = data[:1] + data[2:] if attrs["multi_output"] and len(data) > 2 else data[:-1]
    return [data, label], [data]


def _data_dtype(attrs, dtypes):
    """Output and an unknown label take ``data``'s dtype (an inference bind gives no label)."""
    return [dtypes[0], dtypes[1] if dtypes[1] is not None else dtypes[0]], [dtypes[0]]


def _softmax_output_grad(node, g):
    """A loss head ignores its head gradient unless ``out_grad`` (then it scales elementwise)."""
    data_grad, _ = F._backward_SoftmaxOutput(node.inputs[0], node.inputs[1], **node.attrs)
    return [F.elemwise_mul(data_grad, g[0]) if node.attrs["out_grad"] else data_grad, None]


_SOFTMAX_ATTRS = (
    Attr("grad_scale", "float", 1.0, doc="gradient scale"),
    Attr("ignore_label", "float", -1.0, doc="label whose rows get no gradient (use_ignore)"),
    Attr("multi_output", "bool", False, doc="softmax over axis 1 of (n, k, d1, ...)"),
    Attr("use_ignore", "bool", False, doc="skip rows labelled ignore_label"),
    Attr("preserve_shape", "bool", False, doc="softmax over the last axis, shape kept"),
    Attr("normalization", "str", "null", choices=("null", "batch", "valid"),
         doc="divide the gradient by nothing, the batch size, or the valid count"),
    Attr("out_grad", "bool", False, doc="multiply the gradient by the head gradient"),
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
