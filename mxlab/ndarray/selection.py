"""Hand-written selection frontends: NumPy's ``nonzero``, ``where`` and ``take`` signatures.

The ops are in :mod:`mxlab.ops.sorting` and :mod:`mxlab.ops.indexing`.
"""
from ..base import MXNetValueError
from .namespace import call_op, invoke_op, publish, register_frontend

__all__ = []


def _np_nonzero(a):
    """NumPy ``nonzero``: a tuple with the indices of non-zero entries along each axis."""
    pairs = call_op("_npi_nonzero", [a])
    ndim = max(a.ndim, 1)
    return tuple(
        call_op(
            "SliceChannel",
            [call_op("transpose", [pairs])],
            num_outputs=ndim,
            axis=0,
            squeeze_axis=True,
        )
        if ndim > 1
        else [call_op("_np_reshape", [pairs], newshape=(-1,))]
    )


register_frontend("np", "nd", name="nonzero")(_np_nonzero)
publish("topk", "np", "topk")


def _np_where(condition, x=None, y=None):
    """NumPy ``where``: one argument gives ``nonzero(condition)``; scalars are filled to the other's
    shape."""
    if x is None and y is None:
        return _np_nonzero(condition)
    if x is None or y is None:
        raise MXNetValueError("where: either both or neither of x and y should be given")
    if not hasattr(condition, "shape"):
        # NOTE: a Python condition (NumPy takes one) selects a whole side: fill it like x or y
        if not (hasattr(x, "shape") or hasattr(y, "shape")):
            raise MXNetValueError("where: give at least one array among condition, x and y")
        condition = call_op("_npi_full_like", [x if hasattr(x, "shape") else y],
                            fill_value=bool(condition), dtype="bool")
    like = x if hasattr(x, "shape") else y if hasattr(y, "shape") else condition
    dtype = None if hasattr(like, "dtype") and like is not condition else "float32"
    x = x if hasattr(x, "shape") else call_op("_npi_full_like", [like], fill_value=x, dtype=dtype)
    y = y if hasattr(y, "shape") else call_op("_npi_full_like", [like], fill_value=y, dtype=dtype)
    return call_op("_npi_where", [condition, x, y])


def _np_take(a, indices, axis=None, mode="clip", out=None):
    """NumPy ``take``: ``axis=None`` takes from the flattened array (MXNet's default mode is
    clip)."""
    if axis is None:
        a, axis = call_op("_np_reshape", [a], newshape=(-1,)), 0
    return invoke_op("take", [a, indices], out, axis=axis, mode=mode)


register_frontend("np", name="take")(_np_take)
register_frontend("np", name="where")(_np_where)
for _op_name, _public in (
    ("pick", "pick"),
    ("one_hot", "one_hot"),
    ("slice", "slice"),
    ("slice_axis", "slice_axis"),
):
    publish(_op_name, "np", _public)
