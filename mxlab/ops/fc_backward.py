"""``_backward_FullyConnected``: every gradient of FullyConnected in one op (as MXNet's).

One node instead of five (``dot``, ``Flatten``, ``dot``, ``reshape_like``, ``_reduce_sum_like``):
planned graphs run it as one kernel, and its ``compute_into`` skips the outputs nobody reads
(planned with write request ``null``, e.g. the data gradient when data is an input without
gradient). Its own gradient is written with differentiable ops, so second order still works.

Example
-------
>>> import numpy
>>> from mxlab.ops.registry import get_op
>>> op = get_op("_backward_FullyConnected")
>>> g, x, w = numpy.ones((2, 3)), numpy.ones((2, 4)), numpy.ones((3, 4))
>>> [a.shape for a in op.compute(numpy, [g, x, w], {"num_hidden": 3, "no_bias": False,
...                                                   "flatten": True})]
[(2, 4), (3, 4), (3,)]
"""
from .attrs import Attr
from .infer import one_dtype
from .registry import F, Op, register

__all__ = []

_ATTRS = (Attr("num_hidden", "int"), Attr("no_bias", "bool", False), Attr("flatten", "bool", True))


def _fc_backward(xp, inputs, a):
    g, x, w = inputs
    outs = [xp.empty(x.shape, x.dtype), xp.empty(w.shape, w.dtype)]
    if not a["no_bias"]:
        outs.append(xp.empty((a["num_hidden"],), g.dtype))
    _fc_backward_into(xp, inputs, a, outs)
    return tuple(outs)


def _fc_backward_into(xp, inputs, a, outs):
    """Write the gradients into ``outs``; a ``None`` out is not computed (nobody reads it)."""
    g, x, w = inputs
    # NOTE: data as rows of weight's width: flattened after the batch axis (flatten) or all but
    #   the last axis -- the same matrix either way, and explicit sizes keep zero-size batches.
    g2, width = g.reshape(-1, a["num_hidden"]), w.shape[1]
    if outs[0] is not None:
        xp.matmul(g2, w, out=outs[0].reshape(-1, width))
    if outs[1] is not None:
        xp.matmul(g2.T, x.reshape(-1, width), out=outs[1])
    if len(outs) > 2 and outs[2] is not None:
        g2.sum(axis=0, out=outs[2].reshape(-1))   # NOTE: a (num_hidden, 1) bias's buffer too


_fc_backward_into.skips_none = True   # runtime: outputs with request null are passed as None


def _fc_backward_grad(node, hg):
    """Second order: the gradients are linear in ``g`` and in each of ``x``, ``w``."""
    g, x, w = node.inputs
    a = node.attrs
    hidden = a["num_hidden"]

    def rows(v):
        return F.Flatten(v) if a["flatten"] else F.Reshape(v, shape=(-1, 0), reverse=True)
    g2 = F.Reshape(g, shape=(-1, hidden))
    hx, hw = hg[0], hg[1]
    terms = []
    if hx is not None:
        terms.append(F.dot(rows(hx), w, transpose_b=True))
    if hw is not None:
        terms.append(F.dot(rows(x), hw, transpose_b=True))
    if len(hg) > 2 and hg[2] is not None:
        terms.append(F.broadcast_like(F.Reshape(hg[2], shape=(1, hidden)), g2))
    dg = None
    for term in terms:
        dg = term if dg is None else dg + term
    return [None if dg is None else F.reshape_like(dg, g),
            None if hw is None else F.reshape_like(F.dot(g2, hw), x),
            None if hx is None else F.dot(g2, rows(hx), transpose_a=True)]


def _fc_backward_infer(a, in_shapes):
    shapes = [None if s is None else tuple(s) for s in in_shapes]
    out = [shapes[1], shapes[2]]
    return out if a["no_bias"] else out + [(a["num_hidden"],)]


def _fc_backward_type(a, in_dtypes):
    ins, (dtype,) = _ONE_DTYPE(a, in_dtypes)
    return ins, [dtype] * (2 if a["no_bias"] else 3)


_ONE_DTYPE = one_dtype("_backward_FullyConnected", ("ograd", "data", "weight"))

register(
    Op(
        name="_backward_FullyConnected",
        compute=_fc_backward,
        compute_into=_fc_backward_into,
        num_inputs=3,
        num_outputs=lambda a: 2 if a["no_bias"] else 3,
        input_names=("ograd", "data", "weight"),
        attrs=_ATTRS,
        infer_shape=_fc_backward_infer,
        infer_type=_fc_backward_type,
        gradient=_fc_backward_grad,
        save_outputs=False,
        never_mirror=True,
        hidden=True,
        doc="Gradients of FullyConnected (data, weight, bias) in one op.",
    )
)
