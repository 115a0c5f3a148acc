"""The ``_np_call`` op: one symbol node that runs an imperative ``mx.np`` function.

``mx.sym.np`` builds it for functions without a registry op (:mod:`mxlab.symbol.np_call`). The
kernel wraps its input buffers as ``mx.np`` arrays and calls the function (autograd paused,
deferred compute off); ``_backward_np_call`` re-runs it under ``autograd.record`` and returns the
input gradients, so forward, shapes, dtypes and gradients are the imperative function's. It lives
in the executor layer because its kernels use autograd, which the ops layer may not import.
"""
import math

import numpy

from .. import autograd, deferred_compute
from ..base import MXNetValueError
from ..ndarray.ndarray import NDArray, from_numpy_data
from ..ops.attrs import Attr
from ..ops.call_args import load_args
from ..ops.registry import META_LIMIT, F, Op, register
from ..symbol.np_call import decode_call, resolve
from ..symbol.symbol import var

__all__ = []


def _is_known(func):
    try:
        resolve(func)
    except MXNetValueError:
        return False
    return True


def _valid_args(text):
    load_args(text, "_np_call: attribute 'args'")
    return True


_ATTRS = (Attr("func", "str", check=(_is_known, "must name one of the mx.np functions mx.sym.np "
                                     "builds _np_call nodes for (ALLOWED_CALLS)")),
          Attr("args", "str", '{"args": [], "kwargs": {}}', check=(_valid_args, ""),
               doc="the call's arguments as JSON, symbols as {'__input__': i}"),
          Attr("num_args", "int", 1, doc="number of symbol inputs"),
          Attr("num_outputs", "int", 1, doc="number of arrays the function returns"))


def _call(attrs, arrays, deferred=False):
    """Run (or, ``deferred``, record) the function on ``arrays``; returns its outputs as a list
    of arrays."""
    args, kwargs = decode_call(attrs["args"], arrays, from_numpy_data)
    with deferred_compute.context(deferred):
        result = resolve(attrs["func"])(*args, **kwargs)
    outs = list(result) if isinstance(result, (list, tuple)) else [result]
    if len(outs) != attrs["num_outputs"]:
        raise MXNetValueError(f"_np_call: {attrs['func']} returned {len(outs)} arrays, the "
                              f"symbol was built for {attrs['num_outputs']}")
    return outs


def _infer_shape(attrs, in_shapes):
    """The function's output shapes, traced under deferred compute on data-less stand-ins: each
    op inside records its own shape rule's result and nothing runs, so no size the attributes or
    inputs name is ever allocated. A function that reads values (``isclose``, ``unique``) is run
    on zero dummies instead, when that is small (:func:`_small_call`); else its outputs are
    unknown."""
    count = attrs["num_outputs"]
    if any(s is None or None in s for s in in_shapes):
        return [None] * count
    arrays = _dummies(in_shapes)
    deferred_compute.set_variable(arrays, [var(f"data{i}") for i in range(len(arrays))])
    try:
        with autograd.pause(), deferred_compute.shapes_only():
            shapes = [_traced_shape(o) for o in _call(attrs, arrays, deferred=True)]
    except deferred_compute.ValuesNeeded:
        shapes = [None] * count
    if None in shapes and _small_call(attrs, in_shapes):
        with autograd.pause():     # NOTE: a traced fallback's shape depends on the values
            shapes = [_traced_shape(o) for o in _call(attrs, _dummies(in_shapes))]
    return shapes


def _dummies(shapes):
    return [from_numpy_data(numpy.broadcast_to(numpy.zeros((), numpy.float32), s))
            for s in shapes]


def _small_call(attrs, in_shapes):
    """Whether running the function on dummies stays small: at most META_LIMIT input elements,
    and the sizes its arguments can name (the product of their integers: ``bins``, ``minlength``,
    ``N``) within META_LIMIT too, so what it allocates is bounded whatever the file says."""
    if sum(math.prod(s) for s in in_shapes) > META_LIMIT:
        return False
    sizes = 1
    for value in _integers(load_args(attrs["args"], "_np_call")):
        sizes *= max(abs(value), 1)
    return sizes <= META_LIMIT


def _integers(value):
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _integers(item)
    elif isinstance(value, dict):
        if "__input__" in value:
            return
        for item in value.values():
            yield from _integers(item)


def _traced_shape(value):
    if isinstance(value, NDArray):
        return None if value._data is None and value._shape is None else tuple(value.shape)
    return tuple(numpy.shape(value))


def _data(xp, value):
    return value._get_data() if isinstance(value, NDArray) else xp.asarray(value)


def _forward(xp, inputs, attrs):
    with autograd.pause():
        outs = _call(attrs, [from_numpy_data(x) for x in inputs])
    return tuple(_data(xp, o) for o in outs)


def _differentiable(dtype):
    return numpy.dtype(dtype).kind == "f"


def _backward(xp, inputs, attrs):
    """Input gradients: the function re-run under ``autograd.record``, then backward from the
    head gradients."""
    n_out = attrs["num_outputs"]
    heads, datas = inputs[:n_out], inputs[n_out:]
    arrays = [from_numpy_data(x.copy()) for x in datas]
    for a in arrays:
        if _differentiable(a.dtype):
            a.attach_grad()
    with autograd.record():
        outs = _call(attrs, arrays)
    pairs = [(o, from_numpy_data(h)) for o, h in zip(outs, heads)
             if isinstance(o, NDArray) and _differentiable(o.dtype)]
    if pairs and any(_differentiable(a.dtype) for a in arrays):
        autograd.backward([o for o, _ in pairs], head_grads=[h for _, h in pairs])
    return tuple(a.grad._get_data() if _differentiable(a.dtype) and a.grad is not None
                 else xp.zeros_like(x) for a, x in zip(arrays, datas))


def _gradient(node, out_grads):
    if not node.inputs:
        return []
    grads = F._backward_np_call(*out_grads, *node.inputs, **node.attrs)
    return grads if isinstance(grads, list) else [grads]


register(Op(name="_np_call", compute=_forward, attrs=_ATTRS, nd_names=(), hidden=True,
            num_inputs=lambda a: a["num_args"], num_outputs=lambda a: a["num_outputs"],
            input_names=("data",), gradient=_gradient, save_outputs=False,
            infer_shape=_infer_shape,
            doc="Run the imperative mx.np function ``func`` (symbols' mx.np compositions)."))
register(Op(name="_backward_np_call", compute=_backward, attrs=_ATTRS, nd_names=(), hidden=True,
            num_inputs=lambda a: a["num_outputs"] + a["num_args"],
            num_outputs=lambda a: a["num_args"], input_names=("data",),
            infer_shape=lambda a, s: s[a["num_outputs"]:],
            infer_type=lambda a, t: t[a["num_outputs"]:],
            doc="Gradients of ``_np_call`` w.r.t. its inputs (autograd over the function)."))
