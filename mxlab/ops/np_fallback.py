"""``_npi_fallback``: a NumPy function run on its inputs' data, as one graph node.

``mx.np``'s fallbacks (``unique``, ``median``, ``tril_indices``, ... see
:mod:`mxlab.numpy.fallback`) run eagerly. Inside a hybridized block (deferred compute) they record
this op instead, so the traced graph computes them too, as MXNet's own ops for these functions
do. The node names the NumPy function (``func``) and holds the call's other arguments as JSON
(``args``, arrays as ``{"__input__": i}``); outputs have data-dependent shapes (``unique``) of
the ranks (``ndims``) and with the dtypes (``dtypes``) of the call seen while tracing. No
gradient, as for the fallbacks.

Example
-------
>>> import numpy
>>> from mxlab.ops.np_fallback import encode_args, fallback_compute
>>> text, arrays = encode_args((numpy.array([3, 1, 3]),), {"return_counts": True},
...                            lambda v: isinstance(v, numpy.ndarray))
>>> fallback_compute(numpy, arrays, {"func": "unique", "args": text})[1]
array([1, 2])

A graph file is data, so ``func`` must be one of :data:`ALLOWED_FUNCS` (checked when the graph is
loaded, by the attribute's parsing, and again before each call): the names ``mx.np``'s fallbacks
record, all pure array functions -- none reads or writes a file, unpickles, or changes global
state. The arguments are checked by :func:`mxlab.ops.call_args.load_args`.
"""
import json

import numpy

from ..base import MXNetValueError
from .attrs import Attr
from .call_args import input_of, load_args, safe_dtype
from .registry import Op, register

__all__ = ["encode_args", "fallback_compute", "FALLBACK_NAMES", "CREATION_NAMES", "RENAMED",
           "ALLOWED_FUNCS"]

# NOTE: MXNet's own fallback list, then the non-differentiable names of its mx.np __all__.
#   mx.np's fallbacks (mxlab.numpy.fallback) are built from these tables; adding a name here
#   allows graph files to call it: never a function taking a path, a file or a callable.
FALLBACK_NAMES = (
    "allclose", "alltrue", "apply_along_axis", "apply_over_axes", "argpartition", "argwhere",
    "array_equal", "array_equiv", "choose", "compress", "corrcoef", "correlate", "count_nonzero",
    "cov", "cumprod", "digitize", "divmod", "extract", "float_power", "frexp", "heaviside",
    "histogram2d", "histogram_bin_edges", "histogramdd", "i0", "in1d", "intersect1d", "isclose",
    "isin", "ix_", "lexsort", "min_scalar_type", "modf", "msort", "nanargmax", "nanargmin",
    "nancumprod", "nancumsum", "nanmax", "nanmedian", "nanmin", "nanpercentile", "nanprod",
    "nanquantile", "nanstd", "nansum", "nanvar", "ndim", "packbits", "partition", "piecewise",
    "poly", "polyadd", "polydiv", "polyfit", "polyint", "polymul", "polysub", "promote_types",
    "ptp", "real", "roots", "searchsorted", "select", "setdiff1d", "setxor1d", "signbit", "size",
    "spacing", "take_along_axis", "trapz", "tril_indices_from", "trim_zeros", "union1d",
    "unpackbits", "unwrap", "vander",
    # from mx.np's __all__: no gradient in MXNet either
    "median", "quantile", "percentile", "histogram", "unique", "bincount", "interp", "isnan",
    "isinf", "isfinite", "isposinf", "isneginf", "unravel_index", "tril_indices", "triu_indices",
    "triu_indices_from", "diag_indices_from", "delete", "insert", "resize", "shares_memory",
    "may_share_memory", "unique_all", "unique_inverse", "unique_values", "can_cast",
    "result_type",
)
CREATION_NAMES = ("tri", "hanning", "hamming", "blackman", "indices")
# MXNet's names removed from NumPy 2 -> the NumPy function the fallback calls (and records)
RENAMED = {"alltrue": "all", "msort": "sort", "trapz": "trapezoid", "in1d": "isin"}
# Fallbacks whose arguments include Python callables: never recorded (JSON cannot hold one).
_TAKES_CALLABLE = frozenset({"apply_along_axis", "apply_over_axes", "piecewise"})

# A constant inside a traced ``mx.np`` composition (``ediff1d(x, to_begin=[7, 8])``) is recorded
#   as ``numpy.array`` of its literal values (mxlab.numpy.extras).
TRACED_CONSTANT = "array"

#: The NumPy functions an ``_npi_fallback`` node may name.
ALLOWED_FUNCS = frozenset(FALLBACK_NAMES + CREATION_NAMES + tuple(RENAMED.values()) +
                          (TRACED_CONSTANT,)) - _TAKES_CALLABLE


def _encode(value, arrays, is_array):
    if is_array(value):
        arrays.append(value)
        return {"__input__": len(arrays) - 1}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, arrays, is_array) for v in value]
        return items if isinstance(value, list) else {"__tuple__": items}
    if isinstance(value, dict):
        return {"__dict__": [[k, _encode(v, arrays, is_array)] for k, v in value.items()]}
    if isinstance(value, numpy.generic):
        return value.item()
    if isinstance(value, (type, numpy.dtype)):
        return {"__dtype__": numpy.dtype(value).name}
    if isinstance(value, slice):
        return {"__slice__": [_encode(v, arrays, is_array)
                              for v in (value.start, value.stop, value.step)]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise MXNetValueError(f"_npi_fallback: cannot record an argument of type "
                          f"{type(value).__name__}")


def encode_args(args, kwargs, is_array):
    """``(json_text, arrays)``: the call's arguments with each array (``is_array``) replaced by
    its input index."""
    arrays = []
    data = {"args": [_encode(a, arrays, is_array) for a in args],
            "kwargs": {k: _encode(v, arrays, is_array) for k, v in kwargs.items()}}
    return json.dumps(data), arrays


def _decode(value, inputs):
    """A value :func:`load_args` checked, with arrays in the inputs' places."""
    if isinstance(value, list):
        return [_decode(v, inputs) for v in value]
    if not isinstance(value, dict):
        return value
    if "__input__" in value:
        return input_of(inputs, value["__input__"], "_npi_fallback")
    if "__tuple__" in value:
        return tuple(_decode(v, inputs) for v in value["__tuple__"])
    if "__dict__" in value:
        return {k: _decode(v, inputs) for k, v in value["__dict__"]}
    if "__dtype__" in value:
        return safe_dtype(value["__dtype__"], "_npi_fallback")
    if "__slice__" in value:
        return slice(*value["__slice__"])
    raise MXNetValueError(f"_npi_fallback: bad argument encoding {value!r}")


def _allowed(func):
    """Whether ``func`` names an allowed NumPy function (the one guard before ``getattr``)."""
    return func in ALLOWED_FUNCS and hasattr(numpy, func)


def _valid_args(text):
    load_args(text, "_npi_fallback: attribute 'args'")
    return True


def _valid_dtypes(text):
    for name in text.split(","):
        safe_dtype(name.strip(), "_npi_fallback: attribute 'dtypes'")
    return True


def fallback_compute(xp, inputs, attrs):
    """NumPy's (or the device library's) ``func`` on ``inputs``: a tuple of fresh arrays."""
    func = attrs["func"]
    if not _allowed(func):
        raise MXNetValueError(f"_npi_fallback: function '{func}' is not allowed")
    data = load_args(attrs["args"], "_npi_fallback")
    fn = getattr(xp, func, None)
    host = fn is None
    if host:
        fn, inputs = getattr(numpy, func), [xp.asnumpy(x) for x in inputs]
    result = fn(*[_decode(a, inputs) for a in data["args"]],
                **{k: _decode(v, inputs) for k, v in data["kwargs"].items()})
    outs = tuple(result) if isinstance(result, (list, tuple)) else (result,)
    # NOTE: copies: NumPy may return views of the inputs, which the engine does not track.
    return tuple(xp.array(xp.asarray(o) if host else o, copy=True) for o in outs)


def _compute(xp, inputs, attrs):
    outs = fallback_compute(xp, inputs, attrs)
    dtypes = attrs["dtypes"].split(",")
    if len(outs) != len(dtypes):
        raise MXNetValueError(f"_npi_fallback: {attrs['func']} returned {len(outs)} arrays, "
                              f"the graph was traced with {len(dtypes)}")
    return tuple(o if o.dtype == d else o.astype(d) for o, d in zip(outs, dtypes))


register(Op(name="_npi_fallback", compute=_compute, hidden=True, nd_names=(),
            attrs=(Attr("func", "str", check=(_allowed, "must name one of the NumPy functions "
                                              "mx.np's fallbacks record (ALLOWED_FUNCS)"),
                        doc="the NumPy function"),
                   Attr("args", "str", '{"args": [], "kwargs": {}}', check=(_valid_args, ""),
                        doc="the call's arguments as JSON, arrays as {'__input__': i}"),
                   Attr("num_args", "int", 0, doc="number of array inputs"),
                   Attr("dtypes", "str", check=(_valid_dtypes, ""),
                        doc="the outputs' dtypes, comma-separated"),
                   Attr("ndims", "str", doc="the outputs' ranks, comma-separated")),
            num_inputs=lambda a: a["num_args"], input_names=("data",),
            num_outputs=lambda a: len(a["dtypes"].split(",")),
            dynamic_shape=True,
            infer_shape=lambda a, s: [(None,) * int(n) for n in a["ndims"].split(",")],
            infer_type=lambda a, d: a["dtypes"].split(","),
            gradient=lambda node, g: [None] * len(node.inputs),
            save_inputs=False, save_outputs=False,
            doc="A NumPy function on the inputs' data (``mx.np``'s fallbacks in a traced graph)."))
