"""``masked_softmax`` and ``masked_log_softmax`` (MXNet 2.0, also ``npx.masked_softmax``):
softmax over ``axis`` of the positions where a boolean ``mask`` (broadcastable to ``data``) is
True. Masked positions give 0 (softmax) or -inf (log_softmax); a slice with nothing kept is all
0 (all -inf). The mask gets a zero gradient.

Example
-------
>>> import mxlab as mx
>>> x = mx.nd.array([[1.0, 2.0, 3.0]])
>>> mx.nd.masked_softmax(x, mx.nd.array([[1, 0, 1]], dtype="bool")).asnumpy().round(3)
array([[0.119, 0.   , 0.881]], dtype=float32)
"""
import numpy

from ..base import MXNetValueError
from .activation import softmax_kernel
from .attrs import Attr
from .elemwise import as_array, float_result
from .reduce import reduced_axes
from .registry import F, Op, register

__all__ = []

_ATTRS = (Attr("axis", "int", -1), Attr("temperature", "float", None, optional=True),
          Attr("normalize", "bool", True, optional=True))


def _mask(name, xp, data, mask):
    if mask.ndim != data.ndim or any(m not in (1, d) for m, d in zip(mask.shape, data.shape)):
        raise MXNetValueError(f"{name}: mask of shape {mask.shape} does not broadcast to data of "
                              f"shape {data.shape} (same rank, each axis equal or 1)")
    return mask if mask.dtype == numpy.bool_ else mask != 0   # NOTE: any dtype, nonzero kept


def _forward(name, log):
    def compute(xp, inputs, attrs):
        x, mask = inputs
        (axis,) = reduced_axes(name, attrs["axis"], x.ndim)
        mask = _mask(name, xp, x, mask)
        work = x.astype(numpy.float32) if x.dtype == numpy.float16 else x   # MXNet's AType
        y = softmax_kernel(xp, work, (axis,), attrs["temperature"], log, mask)
        return as_array(xp, y.astype(float_result(x.dtype), copy=False))
    return compute


def _backward(name, log):
    """softmax: ``y * (g - sum(g * y)) / T``; log: ``(g' - exp(y) * sum(g')) / T`` with ``g'`` the
    gradient at kept positions; masked positions get 0."""
    def compute(xp, inputs, attrs):
        g, mask, y = inputs
        (axis,) = reduced_axes(name, attrs["axis"], y.ndim)
        mask = _mask(name, xp, y, mask)
        dtype = y.dtype
        if dtype == numpy.float16:
            g, y = g.astype(numpy.float32), y.astype(numpy.float32)
        if log:
            kept = xp.where(mask, g, 0)
            result = kept - xp.exp(y) * kept.sum(axis=axis, keepdims=True)
        else:
            result = y * (g - (g * y).sum(axis=axis, keepdims=True))
        temperature = attrs["temperature"]
        if temperature is not None and temperature != 1.0:
            result = result / temperature
        return as_array(xp, xp.where(mask, result, 0).astype(dtype, copy=False))
    return compute


def _infer_type(attrs, dtypes):
    return [None if dtypes[0] is None else float_result(numpy.dtype(dtypes[0])).name]


for _name, _log in (("masked_softmax", False), ("masked_log_softmax", True)):
    _bwd = f"_backward_{_name}"
    register(Op(name=_name, aliases=(f"_npx_{_name}",), compute=_forward(_name, _log),
                attrs=_ATTRS, num_inputs=2, input_names=("data", "mask"),
                infer_shape=lambda attrs, s: [s[0]], infer_type=_infer_type,
                gradient=lambda node, g, bwd=_bwd: [
                    getattr(F, bwd)(g[0], node.inputs[1], node.outputs[0], **node.attrs),
                    F.zeros_like(node.inputs[1])],
                save_inputs=(1,), npx_name=_name,
                doc=f"{_name.split('_', 1)[1]} over ``axis`` of the positions ``mask`` keeps."))
    register(Op(name=_bwd, compute=_backward(_name, _log), attrs=_ATTRS, num_inputs=3,
                input_names=("ograd", "mask", "output"), hidden=True,
                infer_shape=lambda attrs, s: [s[2]], infer_type=lambda attrs, d: [d[2]],
                doc=f"Gradient of {_name} with respect to its data."))
