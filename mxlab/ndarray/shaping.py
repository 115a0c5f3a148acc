"""Hand-written shape frontends: NumPy's split/stack/flatten signatures, legacy ``nd.squeeze``.

The ops are in :mod:`mxlab.ops.shape`; these functions give them the call signatures of
``numpy`` and of MXNet 1.x.
"""
import numpy

from ..base import MXNetTypeError, MXNetValueError
from .namespace import call_op, invoke_op, publish, register_frontend

__all__ = []


def _as_list(x):
    return x if isinstance(x, (list, tuple)) else [x]


def _np_splitter(op_name):
    def split(ary, indices_or_sections, axis=0):
        """NumPy split: an int gives that many pieces, a sequence gives the split points."""
        if isinstance(indices_or_sections, (int, numpy.integer)):
            return list(
                _as_list(call_op(op_name, [ary], sections=int(indices_or_sections), axis=axis))
            )
        return list(
            _as_list(call_op(op_name, [ary], indices=(0,) + tuple(indices_or_sections), axis=axis))
        )

    split.__name__ = op_name.replace("_npi_", "")
    return split


def _np_joiner(op_name):
    def join(seq, axis=0, out=None):
        """NumPy join of a sequence of arrays along ``axis`` (any iterable, as MXNet's)."""
        seq = list(seq)
        return invoke_op(op_name, seq, out, axis=axis, num_args=len(seq))

    join.__name__ = op_name.replace("_npi_", "")
    return join


def _np_stacker(axis, min_ndim):
    """``vstack`` / ``hstack``: promote each array to ``min_ndim`` dims, then concatenate."""

    def join(tup):
        arrays = [
            (
                call_op("_np_reshape", [x], newshape=(1,) * (min_ndim - x.ndim) + tuple(x.shape))
                if x.ndim < min_ndim
                else x
            )
            for x in tup
        ]
        along = 0 if axis == 1 and arrays[0].ndim == 1 else axis
        return call_op("_npi_concatenate", arrays, axis=along, num_args=len(arrays))

    join.__doc__ = f"NumPy stacking along axis {axis} (arrays promoted to at least {min_ndim}-D)."
    return join


def _np_flatten(a, order="C"):
    """NumPy ``ndarray.flatten``: a 1-D copy."""
    return call_op("_np_reshape", [a], newshape=(-1,), order=order)


def _nd_squeeze(data, axis=None, out=None):
    """Legacy ``mx.nd.squeeze``: squeezing all axes of a size-1 array leaves shape (1,), not ()."""
    result = invoke_op("squeeze", [data], axis=axis)
    if result.ndim == 0:
        result = call_op("Reshape", [result], shape=(1,))
    return result if out is None else result.copyto(out)


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """MXNet's ``nd.split_v2``: an int gives that many equal pieces (an uneven split is an error),
    a tuple gives the split points."""
    if isinstance(indices_or_sections, (int, numpy.integer)):
        sections = int(indices_or_sections)
        if sections <= 0 or ary.shape[axis] % sections:
            raise MXNetValueError(f"split_v2: array split does not result in an equal division "
                                  f"({ary.shape[axis]} into {sections} sections)")
        indices = tuple(range(0, ary.shape[axis], ary.shape[axis] // sections))
    elif isinstance(indices_or_sections, (tuple, list)):
        indices = (0,) + tuple(indices_or_sections)
    else:
        raise MXNetTypeError(f"split_v2: indices_or_sections must be an int or a tuple of ints, "
                             f"got {type(indices_or_sections).__name__}")
    return _as_list(call_op("_split_v2", [ary], indices=indices, axis=axis,
                            squeeze_axis=squeeze_axis))


def histogram(a, bins=10, range=None):  # noqa: A002 - MXNet's argument name
    """MXNet's ``nd.histogram``: ``bins`` an array of edges, or an int of equal bins over
    ``range`` (without a range, NumPy's histogram of the values in float32, as MXNet does);
    returns the int64 counts and the edges."""
    from .ndarray import NDArray, array
    if isinstance(bins, NDArray):
        return tuple(call_op("_histogram", [a, bins]))
    if isinstance(bins, (int, numpy.integer)):
        if range is None:
            counts, edges = numpy.histogram(a.asnumpy(), bins=int(bins))
            # NOTE: MXNet wraps NumPy's result with nd.array: float32 counts and edges
            return (array(counts, dtype="float32", device=a.device, cls=type(a)),
                    array(edges, dtype="float32", device=a.device, cls=type(a)))
        return tuple(call_op("_histogram", [a], bin_cnt=int(bins), range=tuple(range)))
    raise MXNetTypeError(f"histogram: bins must be an int or an NDArray, got "
                         f"{type(bins).__name__}")


register_frontend("nd", name="squeeze")(_nd_squeeze)
register_frontend("nd", name="histogram")(histogram)
register_frontend("nd", name="split_v2")(split_v2)
register_frontend("np", name="split")(_np_splitter("_npi_split"))
register_frontend("np", name="array_split")(_np_splitter("_npi_array_split"))
register_frontend("np", name="flatten")(_np_flatten)
register_frontend("np", name="vstack")(_np_stacker(0, 2))
register_frontend("np", name="hstack")(_np_stacker(1, 1))
register_frontend("np", name="concatenate")(_np_joiner("_npi_concatenate"))
register_frontend("np", name="stack")(_np_joiner("_npi_stack"))
register_frontend("np", name="ravel")(_np_flatten)
for _op_name, _public in (
    ("reshape_like", "reshape_like"),
    ("broadcast_like", "broadcast_like"),
    ("Flatten", "batch_flatten"),
):
    publish(_op_name, "np", _public)
publish("_np_moveaxis", "nd", "moveaxis")
