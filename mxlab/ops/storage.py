"""Ops whose MXNet form is about storage types, as dense graph ops: ``cast_storage`` (the
identity on values), ``_square_sum`` (``sum(x * x)``, MXNet's row_sparse-friendly reduction) and
``_sparse_retain`` (keep the rows listed in ``indices``). In ``mx.nd`` their sparse forms are
``ndarray/sparse_ops.py``; in graphs (``mx.sym``, hybridized blocks) every array is dense, so these
compute the values MXNet computes.

Example
-------
>>> import numpy
>>> from mxlab.ops.registry import get_op
>>> x = numpy.array([[1.0, 2.0], [3.0, 4.0]])
>>> get_op("_square_sum").forward(numpy, [x], {"axis": (1,), "keepdims": False})[0]
array([ 5., 25.])
"""
from .attrs import Attr
from .infer import same_dtype, same_shape
from .reduce import _spread, reduction
from .registry import F, Op, register

__all__ = []

register(Op(
    name="cast_storage",
    compute=lambda xp, inputs, attrs: inputs[0].copy(),
    attrs=(Attr("stype", "str", "default", choices=("default", "row_sparse", "csr")),),
    infer_shape=same_shape,
    infer_type=same_dtype,
    gradient=lambda node, g: [g[0]],
    save_inputs=False,
    save_outputs=False,
    doc="The input in storage type ``stype`` (values unchanged; graphs hold dense arrays).",
))

reduction("_square_sum", lambda xp, x, axes, dtype, attrs: (x * x).sum(axis=axes, keepdims=True),
          lambda dtype, attrs: dtype,
          grad=lambda legacy: lambda node, g: [
              F.broadcast_mul(F._mul_scalar(node.inputs[0], scalar=2.0),
                              _spread(node, g[0], legacy))],
          doc="``sum(data * data, axis)`` (MXNet's square_sum).")


def _retain(xp, inputs, attrs):
    data, indices = inputs
    mask = xp.zeros(data.shape[0], dtype=bool)
    ids = indices.astype("int64").reshape(-1)
    mask[ids[(ids >= 0) & (ids < data.shape[0])]] = True
    return data * mask.reshape((-1,) + (1,) * (data.ndim - 1)).astype(data.dtype)


register(Op(
    name="_sparse_retain",
    compute=_retain,
    num_inputs=2,
    input_names=("data", "indices"),
    infer_shape=lambda attrs, shapes: (shapes, [shapes[0]]),
    infer_type=lambda attrs, dtypes: [dtypes[0]],
    gradient=lambda node, g: [F._sparse_retain(g[0], node.inputs[1]), None],
    nd_names=("_sparse_retain", "retain"),
    doc="The rows of ``data`` whose index is in ``indices``; the other rows are zero.",
))
