"""``khatri_rao`` (MXNet's): the column-wise Kronecker product of matrices with equal column
counts; row ``i * M2 + k`` of ``khatri_rao(A, B)`` is ``A[i] * B[k]``.

Example
-------
>>> import numpy
>>> from mxlab.ops.registry import get_op
>>> a, b = numpy.array([[1.0, 2.0], [3.0, 4.0]]), numpy.array([[1.0, 10.0]])
>>> get_op("khatri_rao").forward(numpy, [a, b], {"num_args": 2})[0]
array([[ 1., 20.],
       [ 3., 40.]])
"""
from ..base import MXNetValueError
from .attrs import Attr
from .infer import known
from .registry import Op, register

__all__ = []


def _forward(xp, inputs, attrs):
    _infer(attrs, [x.shape for x in inputs])
    out = inputs[0]
    for x in inputs[1:]:
        out = (out[:, None, :] * x[None, :, :]).reshape(-1, x.shape[1])
    return out.copy() if out is inputs[0] else out


def _infer(attrs, in_shapes):
    if not all(known(s) for s in in_shapes):
        return in_shapes, [None]
    if any(len(s) != 2 for s in in_shapes) or len({s[1] for s in in_shapes}) != 1:
        raise MXNetValueError(f"khatri_rao: inputs must be matrices with equal column counts, "
                              f"got {[tuple(s) for s in in_shapes]}")
    rows = 1
    for shape in in_shapes:
        rows *= shape[0]
    return in_shapes, [(rows, in_shapes[0][1])]


register(Op(
    name="khatri_rao",
    compute=_forward,
    attrs=(Attr("num_args", "int", 1),),
    num_inputs=lambda a: a["num_args"],
    input_names=lambda a: tuple(f"args{i}" for i in range(a["num_args"])),
    infer_shape=_infer,
    nd_names=("khatri_rao",),
    doc="Column-wise Kronecker product of matrices (M_i, N) -> (prod M_i, N).",
))
