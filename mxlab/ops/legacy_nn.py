"""MXNet 1.x layers that MXNet 2.0 dropped: ``SVMOutput`` (a loss head), ``LRN`` (AlexNet's local
response normalisation) and ``BatchNorm_v1`` (in :mod:`.nn.norm`, next to BatchNorm).

* ``SVMOutput(data, label)``: forward is the identity; backward ignores the head gradient and sends
  the (L1 or L2) one-vs-all hinge loss gradient, ``regularization_coefficient`` times: for the
  label's class ``k``, ``-[margin > x_k]`` (L1) or ``-2 (margin - x_k)+`` (L2); for the others
  ``[margin > -x_j]`` or ``2 (margin + x_j)+``. The label gets no gradient.
* ``LRN(data, nsize, alpha, beta, knorm)`` over the channels of NCHW data:
  ``norm = knorm + alpha / nsize * sum(x^2 over nsize channels centred on c)``, ``out = x *
  norm^-beta``; ``norm`` is a second, hidden output (``tmp_norm``), as in MXNet.

Example
-------
>>> import mxlab as mx
>>> x = mx.nd.ones((1, 3, 1, 1))
>>> mx.nd.LRN(x, nsize=3, alpha=3.0, beta=1.0, knorm=1.0).asnumpy().ravel().tolist()
[0.3333333432674408, 0.25, 0.3333333432674408]
"""
import numpy

from ..base import MXNetValueError
from .attrs import Attr
from .elemwise import zero_grads
from .infer import merge_shapes
from .registry import F, Op, register

__all__ = []


# -- SVMOutput -------------------------------------------------------------------------------------
def _svm_forward(xp, inputs, attrs):
    return inputs[0].copy()


def _svm_backward(xp, inputs, attrs):
    """The data gradient and the label's (zeros), MXNet's ``L1_SVM`` / ``L2_SVM``."""
    data, label = inputs
    flat = data.reshape(data.shape[0], -1) if data.ndim else data.reshape(1, 1)
    dtype = flat.dtype.type
    margin, coef = dtype(attrs["margin"]), dtype(attrs["regularization_coefficient"])
    classes = label.reshape(-1).astype(numpy.int64)
    is_label = xp.arange(flat.shape[1])[None, :] == classes[:, None]
    if attrs["use_linear"]:
        grad = xp.where(is_label, -(margin > flat).astype(flat.dtype),
                        (margin > -flat).astype(flat.dtype))
    else:
        grad = xp.where(is_label, -2 * xp.maximum(margin - flat, 0),
                        2 * xp.maximum(margin + flat, 0))
    grad = (grad * coef).astype(data.dtype, copy=False)
    return grad.reshape(data.shape), xp.zeros_like(label)


def _svm_shape(attrs, in_shapes, out_shapes=None):
    """The label has ``data``'s shape without the last dim (one class index per row)."""
    data = merge_shapes("SVMOutput", [in_shapes[0]] + list(out_shapes or []))
    if data is None:
        return list(in_shapes), [None]
    label = merge_shapes("SVMOutput", [in_shapes[1], tuple(data[:-1])])
    return [data, label], [data]


def _data_dtype(attrs, dtypes):
    if dtypes[0] is None:
        return list(dtypes), [None]
    return [dtypes[0], dtypes[1] if dtypes[1] is not None else dtypes[0]], [dtypes[0]]


def _svm_grad(node, g):
    data_grad, _ = F._backward_SVMOutput(node.inputs[0], node.inputs[1], **node.attrs)
    return [data_grad, None]


_SVM_ATTRS = (
    Attr("margin", "float", 1.0, doc="outputs outside this margin are penalised"),
    Attr("regularization_coefficient", "float", 1.0, doc="scale of the gradient"),
    Attr("use_linear", "bool", False, doc="L1-SVM (hinge) instead of L2-SVM (squared hinge)"),
)
register(Op(name="SVMOutput", compute=_svm_forward, num_inputs=2, input_names=("data", "label"),
            attrs=_SVM_ATTRS, infer_shape=_svm_shape, infer_type=_data_dtype,
            gradient=_svm_grad, save_inputs=True, save_outputs=False,
            doc="Identity forward; backward sends the SVM hinge-loss gradient (a loss head)."))
register(Op(name="_backward_SVMOutput", compute=_svm_backward, num_inputs=2, num_outputs=2,
            input_names=("data", "label"), attrs=_SVM_ATTRS,
            infer_shape=lambda attrs, s: [s[0], s[1]], infer_type=lambda attrs, d: [d[0], d[1]],
            gradient=zero_grads, hidden=True, nd_names=(),
            doc="The gradient ``SVMOutput`` sends to its data."))


# -- LRN -------------------------------------------------------------------------------------------
def _channel_window_sum(xp, x, nsize):
    """Sum over ``nsize`` channels centred on each channel (axis 1, zero padded): MXNet's
    ``chpool<sum>``."""
    half = nsize // 2
    pad = [(0, 0)] * x.ndim
    pad[1] = (half + 1, half)
    csum = xp.cumsum(xp.pad(x, pad), axis=1)
    channels = x.shape[1]
    return csum[:, nsize:nsize + channels] - csum[:, :channels]


def _check_lrn(data, attrs):
    if data.ndim != 4:
        raise MXNetValueError(f"LRN: data must be 4-D (NCHW), got shape {tuple(data.shape)}")
    if attrs["nsize"] % 2 != 1:
        raise MXNetValueError(f"LRN: nsize must be odd, got {attrs['nsize']}")


def _lrn_forward(xp, inputs, attrs):
    x = inputs[0]
    _check_lrn(x, attrs)
    dtype = x.dtype.type
    salpha = dtype(attrs["alpha"] / attrs["nsize"])
    norm = _channel_window_sum(xp, x * x, attrs["nsize"]) * salpha + dtype(attrs["knorm"])
    return (x * norm ** dtype(-attrs["beta"])).astype(x.dtype, copy=False), \
        norm.astype(x.dtype, copy=False)


def _lrn_backward(xp, inputs, attrs):
    """``g * norm^-b - 2 b alpha / n * x * chpool(g * x * norm^(-b-1))`` (MXNet's LRNBackward)."""
    g, x, norm = inputs
    dtype = x.dtype.type
    beta, salpha = dtype(attrs["beta"]), dtype(attrs["alpha"] / attrs["nsize"])
    inner = _channel_window_sum(xp, g * x * norm ** (-beta - 1), attrs["nsize"])
    return (g * norm ** -beta + dtype(-2.0) * beta * salpha * inner * x).astype(x.dtype,
                                                                                 copy=False)


def _lrn_grad(node, g):
    return [F._backward_LRN(g[0], node.inputs[0], node.outputs[1], **node.attrs)]


_LRN_ATTRS = (
    Attr("alpha", "float", 1e-4, doc="variance scaling"),
    Attr("beta", "float", 0.75, doc="power"),
    Attr("knorm", "float", 2.0, doc="the constant k"),
    Attr("nsize", "int", doc="window width in channels (odd)"),
)
register(Op(name="LRN", compute=_lrn_forward, attrs=_LRN_ATTRS, input_names=("data",),
            num_outputs=2, output_names=("output", "tmp_norm"), num_visible_outputs=1,
            infer_shape=lambda attrs, s: (s, [s[0], s[0]]),
            infer_type=lambda attrs, d: (d, [d[0], d[0]]), gradient=_lrn_grad,
            save_inputs=True, save_outputs=(1,),
            doc="Local response normalisation across channels (MXNet 1.x's ``LRN``)."))
register(Op(name="_backward_LRN", compute=_lrn_backward, attrs=_LRN_ATTRS, num_inputs=3,
            input_names=("out_grad", "data", "tmp_norm"),
            infer_shape=lambda attrs, s: [s[1]], infer_type=lambda attrs, d: [d[1]],
            hidden=True, nd_names=(), doc="LRN's gradient to its data."))
