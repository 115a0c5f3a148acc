"""Variable-length sequence ops: ``SequenceMask``, ``SequenceLast``, ``SequenceReverse``.

Data is laid out with the time axis ``axis`` (0: ``(T, B, ...)``, 1: ``(B, T, ...)``) and, when
``use_sequence_length`` is set, a second input gives each batch entry's length. Without lengths
every sequence is ``T`` long (mask: identity, last: the final step, reverse: a flip).

Example
-------
>>> import mxlab as mx
>>> x = mx.nd.array([[1, 2], [3, 4], [5, 6]])          # T=3, B=2
>>> mx.nd.SequenceMask(x, mx.nd.array([1, 3]), use_sequence_length=True).asnumpy()
array([[1., 2.],
       [0., 4.],
       [0., 6.]], dtype=float32)
"""
from ..base import MXNetValueError
from .attrs import Attr
from .registry import F, Op, register

__all__ = []


def _common_attrs(axis_doc):
    return (Attr("use_sequence_length", "bool", False,
                 doc="read the lengths from the second input"),
            Attr("axis", "int", 0, doc=axis_doc))


def _num_inputs(attrs):
    return 2 if attrs["use_sequence_length"] else 1


def _input_names(attrs):
    return ("data", "sequence_length")[:_num_inputs(attrs)]


def _check_axis(name, axis, allowed):
    if axis not in allowed:
        raise MXNetValueError(f"{name}: axis must be one of {list(allowed)}, got {axis}")


def _lengths(xp, inputs, attrs):
    """Per-batch lengths as int64 (all ``T`` without ``use_sequence_length``)."""
    data, axis = inputs[0], attrs["axis"]
    if attrs["use_sequence_length"]:
        return inputs[1].astype("int64")
    return xp.full((data.shape[1 - axis],), data.shape[axis], dtype="int64")


def _valid(xp, data, lengths, axis):
    """Boolean ``(T, B)`` (axis 0) or ``(B, T)`` (axis 1) mask of steps inside each sequence,
    broadcastable against ``data``."""
    steps = xp.arange(data.shape[axis])
    valid = steps[:, None] < lengths[None, :] if axis == 0 else lengths[:, None] > steps[None, :]
    return valid.reshape(valid.shape + (1,) * (data.ndim - 2))


# -- SequenceMask ----------------------------------------------------------------------------------
def _mask(xp, inputs, attrs):
    _check_axis("SequenceMask", attrs["axis"], (0, 1))
    data = inputs[0]
    if not attrs["use_sequence_length"]:
        return data.copy()
    valid = _valid(xp, data, _lengths(xp, inputs, attrs), attrs["axis"])
    return xp.where(valid, data, xp.asarray(attrs["value"], dtype=data.dtype))


def _mask_grad(node, g):
    if not node.attrs["use_sequence_length"]:
        return [g[0]]
    attrs = dict(node.attrs, value=0.0)
    return [F.SequenceMask(g[0], node.inputs[1], **attrs), None]


register(Op(name="SequenceMask", aliases=("_npx_sequence_mask",), npx_name="sequence_mask",
            compute=_mask, num_inputs=_num_inputs, input_names=_input_names,
            attrs=_common_attrs("the time axis (0 or 1)") + (
                Attr("value", "float", 0.0, doc="what masked steps become"),),
            infer_shape=lambda attrs, shapes: [shapes[0]], gradient=_mask_grad,
            save_inputs=(1,), save_outputs=False,
            doc="Set the steps past each sequence's length to ``value``."))


# -- SequenceLast ----------------------------------------------------------------------------------
def _last_index(xp, inputs, attrs):
    return xp.clip(_lengths(xp, inputs, attrs) - 1, 0, inputs[0].shape[attrs["axis"]] - 1)


def _last(xp, inputs, attrs):
    _check_axis("SequenceLast", attrs["axis"], (0, 1))
    data = inputs[0]
    index, batch = _last_index(xp, inputs, attrs), xp.arange(data.shape[1 - attrs["axis"]])
    return data[index, batch] if attrs["axis"] == 0 else data[batch, index]


def _last_backward(xp, inputs, attrs):
    """Scatter the head gradient back to each sequence's last step (zeros elsewhere)."""
    g, data = inputs[0], inputs[1]
    grad = xp.zeros(data.shape, dtype=g.dtype)
    index = _last_index(xp, inputs[1:], attrs)
    batch = xp.arange(data.shape[1 - attrs["axis"]])
    if attrs["axis"] == 0:
        grad[index, batch] = g
    else:
        grad[batch, index] = g
    return grad


def _last_shape(attrs, shapes):
    data = shapes[0]
    if data is None:
        return [None]
    return [tuple(d for i, d in enumerate(data) if i != attrs["axis"])]


def _last_grad(node, g):
    grad = F._backward_SequenceLast(g[0], *node.inputs, **node.attrs)
    return [grad] + [None] * (len(node.inputs) - 1)


register(Op(name="SequenceLast", aliases=("_npx_sequence_last",), npx_name="sequence_last",
            compute=_last, num_inputs=_num_inputs, input_names=_input_names,
            attrs=_common_attrs("the time axis (0 or 1)"), infer_shape=_last_shape,
            gradient=_last_grad, save_outputs=False,
            doc="The last valid step of every sequence (the time axis removed)."))
register(Op(name="_backward_SequenceLast", compute=_last_backward, attrs=_common_attrs("time axis"),
            num_inputs=lambda attrs: _num_inputs(attrs) + 1,
            input_names=lambda attrs: ("grad",) + _input_names(attrs),
            infer_shape=lambda attrs, shapes: [shapes[1]], ignore_inputs=(1,), hidden=True,
            nd_names=(), doc="SequenceLast's gradient: the head gradient at each last step."))


# -- SequenceReverse -------------------------------------------------------------------------------
def _reverse(xp, inputs, attrs):
    _check_axis("SequenceReverse", attrs["axis"], (0,))
    data = inputs[0]
    lengths = _lengths(xp, inputs, attrs)
    steps = xp.arange(data.shape[0])[:, None]
    source = xp.where(steps < lengths[None, :], lengths[None, :] - 1 - steps, steps)
    source = source.reshape(source.shape + (1,) * (data.ndim - 2))
    return xp.take_along_axis(data, xp.broadcast_to(source, data.shape), axis=0)


def _reverse_grad(node, g):
    return [F.SequenceReverse(g[0], *node.inputs[1:], **node.attrs)] + \
        [None] * (len(node.inputs) - 1)


register(Op(name="SequenceReverse", aliases=("_npx_sequence_reverse",),
            npx_name="sequence_reverse", compute=_reverse, num_inputs=_num_inputs,
            input_names=_input_names, attrs=_common_attrs("the time axis (only 0)"),
            infer_shape=lambda attrs, shapes: [shapes[0]], gradient=_reverse_grad,
            save_inputs=(1,), save_outputs=False,
            doc="Reverse the first ``length`` steps of every sequence (the rest stays)."))
