"""Reusable shape/dtype rules for op definitions (shapes: tuples; ``None`` = unknown shape or
dim)."""
import numpy

from ..base import MXNetTypeError, MXNetValueError

__all__ = ["same_shape", "broadcast_shapes", "known", "same_dtype", "first_dtype",
           "check_one_dtype", "one_dtype"]


def known(shape):
    """True when the shape and every dim are known."""
    return shape is not None and all(d is not None and d >= 0 for d in shape)


def merge_shapes(op_name, shapes):
    """The most precise shape compatible with all of ``shapes`` (``None`` = unknown shape or
    dim)."""
    merged = None
    for shape in shapes:
        if shape is None:
            continue
        if merged is None:
            merged = tuple(shape)
            continue
        if len(shape) != len(merged) or any(a is not None and b is not None and a != b
                                            for a, b in zip(merged, shape)):
            raise MXNetValueError(f"{op_name}: shapes {tuple(merged)} and {tuple(shape)} differ")
        merged = tuple(a if a is not None else b for a, b in zip(merged, shape))
    return merged


def same_shape(attrs, in_shapes, out_shapes=None):
    """Elementwise rule: all inputs and the output share one shape; fills unknown and partly known
    ones both ways (from the output too, when the graph already knows it)."""
    shape = merge_shapes("elementwise", list(in_shapes) + list(out_shapes or ()))
    return [shape] * len(in_shapes), [shape]


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


def check_one_dtype(op_name, names, dtypes):
    """The dtype every input shares (MXNet's ``ElemwiseType``: no promotion); a mismatch is an
    error naming the op, the input and both dtypes. Unknown (None) dtypes are skipped."""
    first = None
    for name, dtype in zip(names, dtypes):
        if dtype is None:
            continue
        dtype = numpy.dtype(dtype)
        if first is None:
            first = (name, dtype)
        elif dtype != first[1]:
            raise MXNetTypeError(
                f"{op_name}: input '{name}' has dtype {dtype.name}, expected {first[1].name} "
                f"(the dtype of '{first[0]}'); all inputs must share one dtype, cast with "
                f"astype()")
    return None if first is None else first[1].name


def one_dtype(op_name, names):
    """``infer_type`` rule of ops whose inputs and output share one dtype (dot, FullyConnected)."""
    def infer_type(attrs, in_dtypes):
        dtype = check_one_dtype(op_name, names, in_dtypes)
        return [dtype if d is None else d for d in in_dtypes], [dtype]
    return infer_type
