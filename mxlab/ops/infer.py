"""Reusable shape/dtype rules for op definitions (shapes: tuples; ``None`` = unknown shape or dim)."""
import numpy

from ..base import MXNetValueError

__all__ = ["same_shape", "broadcast_shapes", "known", "same_dtype", "first_dtype"]


def known(shape):
    """True when the shape and every dim are known."""
    return shape is not None and all(d is not None and d >= 0 for d in shape)


def same_shape(attrs, in_shapes):
    """Elementwise rule: all inputs and the output share one shape; fills unknown ones both ways."""
    shape = next((s for s in in_shapes if known(s)), None)
    if shape is None:
        return in_shapes, [None]
    return [shape if not known(s) else s for s in in_shapes], [shape]


def broadcast_shapes(op_name, *shapes):
    """NumPy broadcasting of known shapes, with an error naming the op."""
    try:
        return tuple(numpy.broadcast_shapes(*shapes))
    except ValueError:
        raise MXNetValueError(f"{op_name}: operands could not be broadcast together with shapes "
                              f"{' '.join(str(tuple(s)) for s in shapes)}") from None


def same_dtype(attrs, in_dtypes):
    """All inputs and outputs share the first known dtype."""
    dtype = next((d for d in in_dtypes if d is not None), None)
    return [dtype if d is None else d for d in in_dtypes], [dtype]


def first_dtype(attrs, in_dtypes):
    return [in_dtypes[0] if in_dtypes else None]
