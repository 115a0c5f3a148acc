"""``mx.sym.np`` functions that have no registry op of their own: a ``_np_call`` node.

Most ``mx.np`` functions are Python compositions of several ops (``tensordot``, ``split``,
``linalg.norm``...). On symbols each becomes one ``_np_call`` node whose attributes name the
function (``func``: ``tensordot``, ``linalg.norm``, ``npx.topk``) and hold the call's other
arguments as JSON (``args``); its kernel runs the imperative function and its gradient comes
from autograd over it (:mod:`mxlab.executor.np_call`). The node survives ``tojson``/``load``.

A graph file is data: ``func`` must be in :data:`ALLOWED_CALLS`, a reviewed table with no file,
pickle, callable-taking or global-state function in it, and ``args`` must pass
:func:`mxlab.ops.call_args.load_args`; both are checked when a graph is loaded and before each
call.

Example
-------
>>> import mxlab as mx
>>> a, b = mx.sym.var('a').as_np_ndarray(), mx.sym.var('b').as_np_ndarray()
>>> c = mx.sym.np.tensordot(a, b, axes=1)
>>> c.infer_shape(a=(2, 3), b=(3, 4))[1]
[(2, 4)]
"""
import importlib
import json
import types

import numpy

from ..base import MXNetTypeError, MXNetValueError
from ..ops.call_args import input_of, load_args, safe_dtype
from .compose import make_node, outputs_of
from .symbol import Symbol

__all__ = ["encode_call", "decode_call", "resolve", "make_function", "NAMESPACES",
           "ALLOWED_CALLS", "UNREVIEWED"]

# func prefix -> module holding the imperative functions
NAMESPACES = {"": "mxlab.numpy", "linalg.": "mxlab.numpy.linalg",
              "random.": "mxlab.numpy.random", "npx.": "mxlab.numpy_extension"}


# -- which functions a node may name ---------------------------------------------------------
# NOTE: a graph file is data: ``func`` selects code, so it is one of these reviewed names (checked
#   when the graph is loaded, by the attribute's parsing, and again before each call). They are
#   the functions mx.sym.np builds ``_np_call`` nodes for, all pure array functions: adding a
#   name here lets graph files call it -- never one that reads or writes a file, unpickles, takes
#   a Python callable or changes global state (those are in _DENIED).
_ALLOWED = {
    "": frozenset({
        "absolute", "acos", "acosh", "allclose", "alltrue", "amax", "amin", "append",
        "arctan2", "argpartition", "argwhere", "around", "array", "array_equal",
        "array_equiv", "array_split", "asarray", "asin", "asinh", "astype", "atan",
        "atan2", "atanh", "atleast_1d", "atleast_2d", "atleast_3d", "average",
        "batch_flatten", "bincount", "bitwise_and", "bitwise_invert", "bitwise_left_shift",
        "bitwise_or", "bitwise_right_shift", "bitwise_xor", "blackman", "broadcast_arrays",
        "broadcast_like", "can_cast", "cast", "choose", "column_stack", "compress",
        "concat", "copy", "copysign", "corrcoef", "correlate", "count_nonzero", "cov",
        "cross", "cumprod", "deg2rad", "delete", "diag_indices_from", "diagflat",
        "diagonal", "diff", "digitize", "divmod", "dsplit", "dstack", "ediff1d", "einsum",
        "empty_like", "equal", "extract", "fabs", "fill_diagonal", "flatten", "fliplr",
        "flipud", "float_power", "floor_divide", "fmax", "fmin", "fmod", "frexp", "full",
        "gcd", "greater", "greater_equal", "hamming", "hanning", "heaviside", "histogram",
        "histogram2d", "histogram_bin_edges", "histogramdd", "hsplit", "hstack", "hypot",
        "i0", "identity", "in1d", "indices", "inner", "insert", "interp", "intersect1d",
        "invert", "isclose", "isfinite", "isin", "isinf", "isnan", "isneginf", "isposinf",
        "ix_", "kron", "lcm", "ldexp", "left_shift", "less", "less_equal", "lexsort",
        "linspace", "logaddexp", "logical_and", "logical_or", "logical_xor", "logspace",
        "maximum", "may_share_memory", "median", "meshgrid", "min_scalar_type", "minimum",
        "modf", "msort", "nan_to_num", "nanargmax", "nanargmin", "nancumprod", "nancumsum",
        "nanmax", "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanquantile",
        "nanstd", "nansum", "nanvar", "ndim", "nonzero", "not_equal", "one_hot", "outer",
        "packbits", "pad", "partition", "percentile", "permute_dims", "pick", "poly",
        "polyadd", "polydiv", "polyfit", "polyint", "polymul", "polysub", "polyval",
        "positive", "pow", "promote_types", "ptp", "quantile", "rad2deg", "ravel", "real",
        "remainder", "reshape_like", "resize", "result_type", "right_shift", "roll",
        "rollaxis", "roots", "rot90", "round_", "row_stack", "searchsorted", "select",
        "setdiff1d", "setxor1d", "shape", "shares_memory", "signbit", "size", "slice",
        "slice_axis", "spacing", "split", "take_along_axis", "tensordot", "topk", "trace",
        "trapz", "tri", "tril_indices", "tril_indices_from", "trim_zeros", "triu",
        "triu_indices", "triu_indices_from", "union1d", "unique", "unique_all",
        "unique_inverse", "unique_values", "unpackbits", "unravel_index", "unwrap",
        "vander", "vdot", "vsplit", "vstack", "where"}),
    "linalg.": frozenset({
        "cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals",
        "eigvalsh", "inv", "lstsq", "matrix_norm", "matrix_power", "matrix_rank",
        "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "qr", "slogdet", "solve",
        "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot",
        "vector_norm"}),
    "random.": frozenset({
        "bernoulli", "beta", "chisquare", "choice", "exponential", "f", "gamma", "gumbel",
        "laplace", "logistic", "lognormal", "multinomial", "multivariate_normal", "normal",
        "pareto", "poisson", "power", "rand", "randint", "randn", "rayleigh", "uniform",
        "weibull"}),
    "npx.": frozenset({
        "scalar_poisson", "slice", "tensor_poisson"}),
}
# Public functions of the namespaces that mx.sym.np does not offer (no ``_np_call`` node).
_DENIED = {
    "": frozenset({"genfromtxt",                                     # reads a file
                   "set_printoptions",                               # global state
                   "apply_along_axis", "apply_over_axes", "piecewise",  # take callables
                   "from_dlpack"}),                                 # foreign memory
    "linalg.": frozenset({"get_op", "invoke"}),                       # registry internals
    "random.": frozenset({"array_params", "bernoulli_into", "bind_params", "check_pvals",
                          "check_randint", "draw_with_arrays", "sample",  # sampler internals
                          "shuffle"}),                                # mutates its input
    "npx.": frozenset({"load", "save", "savez",                        # files
                       "cond", "foreach", "while_loop",                # take callables
                       "set_np", "reset_np", "use_np", "is_np_array", "is_np_shape",  # modes
                       "cpu", "cpu_pinned", "gpu", "current_context", "current_device",
                       "num_gpus", "waitall",                          # devices
                       "from_dlpack", "from_numpy", "to_dlpack_for_read",
                       "to_dlpack_for_write"}),                        # foreign memory
}
#: Every name a ``_np_call`` node may hold (``tensordot``, ``linalg.norm``, ``npx.slice``).
ALLOWED_CALLS = frozenset(p + n for p, names in _ALLOWED.items() for n in names)
#: Public functions :func:`fill_namespace` found in neither table (to review; kept empty by test).
UNREVIEWED = []


def resolve(func):
    """The imperative function ``func`` names (``tensordot``, ``linalg.norm``, ``npx.slice``);
    only names in :data:`ALLOWED_CALLS`."""
    for prefix in sorted(NAMESPACES, key=len, reverse=True):
        name = func[len(prefix):] if isinstance(func, str) and func.startswith(prefix) else None
        if name in _ALLOWED[prefix]:
            fn = getattr(importlib.import_module(NAMESPACES[prefix]), name, None)
            if callable(fn) and not isinstance(fn, type):
                return fn
    raise MXNetValueError(f"_np_call: function {func!r} is not allowed (not one of the mx.np "
                          "functions mx.sym.np builds _np_call nodes for)")


# -- arguments <-> JSON ----------------------------------------------------------------------------
def _encode(value, symbols):
    if isinstance(value, Symbol):
        if len(value._outputs) != 1:
            raise MXNetTypeError("_np_call: a grouped symbol cannot be one argument")
        symbols.append(value)
        return {"__input__": len(symbols) - 1}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        items = [_encode(v, symbols) for v in value]
        return items if isinstance(value, list) else {"__tuple__": items}
    if isinstance(value, dict):
        return {"__dict__": [[k, _encode(v, symbols)] for k, v in value.items()]}
    if isinstance(value, slice):
        return {"__slice__": [value.start, value.stop, value.step]}
    if value is Ellipsis:
        return {"__ellipsis__": True}
    if isinstance(value, numpy.generic):
        return value.item()
    if isinstance(value, type) or isinstance(value, numpy.dtype):
        return {"__dtype__": numpy.dtype(value).name}
    if hasattr(value, "asnumpy") or isinstance(value, numpy.ndarray):
        data = value.asnumpy() if hasattr(value, "asnumpy") else value
        return {"__array__": data.tolist(), "dtype": data.dtype.name}
    raise MXNetTypeError(f"_np_call: cannot put an argument of type {type(value).__name__} in a "
                         "symbol")


def encode_call(args, kwargs):
    """``(json_text, symbols)``: the call's arguments with each symbol replaced by its input
    index."""
    symbols = []
    data = {"args": [_encode(a, symbols) for a in args],
            "kwargs": {k: _encode(v, symbols) for k, v in kwargs.items()}}
    return json.dumps(data), symbols


def _decode(value, inputs, make_array):
    """A value :func:`load_args` checked, with the inputs in the symbols' places."""
    if isinstance(value, list):
        return [_decode(v, inputs, make_array) for v in value]
    if not isinstance(value, dict):
        return value
    if "__input__" in value:
        return input_of(inputs, value["__input__"], "_np_call")
    if "__tuple__" in value:
        return tuple(_decode(v, inputs, make_array) for v in value["__tuple__"])
    if "__dict__" in value:
        return {k: _decode(v, inputs, make_array) for k, v in value["__dict__"]}
    if "__slice__" in value:
        return slice(*value["__slice__"])
    if "__ellipsis__" in value:
        return Ellipsis
    if "__dtype__" in value:
        return safe_dtype(value["__dtype__"], "_np_call").type
    if "__array__" in value:
        dtype = safe_dtype(value["dtype"], "_np_call")
        return make_array(numpy.array(value["__array__"], dtype=dtype))
    raise MXNetValueError(f"_np_call: bad argument encoding {value!r}")


def decode_call(text, inputs, make_array):
    """``(args, kwargs)`` from :func:`encode_call`'s JSON (checked by :func:`load_args`) with
    ``inputs`` in the symbols' places."""
    data = load_args(text, "_np_call")
    return ([_decode(a, inputs, make_array) for a in data["args"]],
            {k: _decode(v, inputs, make_array) for k, v in data["kwargs"].items()})


# -- how many outputs a call has (the kernel checks it at run time) --------------------------------
def _split_count(args, kwargs):
    sections = args[1] if len(args) > 1 else kwargs.get("indices_or_sections")
    return len(sections) + 1 if isinstance(sections, (list, tuple)) else int(sections)


def _unique_count(args, kwargs):
    return 1 + sum(bool(kwargs.get(k)) for k in ("return_index", "return_inverse",
                                                 "return_counts"))


def _svd_count(args, kwargs):
    return 3 if kwargs.get("compute_uv", True) else 1


def _count_args(args, kwargs):
    return len(args)


_OUTPUT_COUNTS = {
    "split": _split_count, "array_split": _split_count, "hsplit": _split_count,
    "vsplit": _split_count, "dsplit": _split_count, "unique": _unique_count,
    "meshgrid": _count_args, "broadcast_arrays": _count_args, "atleast_1d": _count_args,
    "atleast_2d": _count_args, "atleast_3d": _count_args, "ix_": _count_args,
    "linalg.svd": _svd_count, "linalg.eigh": lambda a, k: 2, "linalg.eig": lambda a, k: 2,
    "linalg.qr": lambda a, k: 2, "linalg.slogdet": lambda a, k: 2, "linalg.lstsq": lambda a, k: 4,
    "frexp": lambda a, k: 2, "modf": lambda a, k: 2, "divmod": lambda a, k: 2,
    "unique_inverse": lambda a, k: 2, "unique_all": lambda a, k: 4,
    "histogram": lambda a, k: 2, "npx.topk": lambda a, k: 2 if k.get("ret_typ") == "both" else 1,
}


def make_function(func, cls):
    """The ``mx.sym.np`` function for ``func`` (a name :func:`resolve` allows), building
    ``cls``."""
    from ..ops import registry
    public = func.rsplit(".", 1)[-1]

    def call(*args, name=None, out=None, **kwargs):
        if out is not None:
            raise MXNetValueError(f"mx.sym.np.{public}: out= is not supported on symbols")
        text, symbols = encode_call(args, kwargs)
        count = _OUTPUT_COUNTS.get(func, lambda a, k: 1)(args, kwargs)
        attrs = {"func": func, "args": text, "num_args": len(symbols), "num_outputs": count}
        op = registry.get_op("_np_call")
        node = make_node(op, op.parse_attrs(attrs), symbols, {}, name=name, hint=public,
                         explicit=tuple(attrs))
        return outputs_of(node, cls)

    call.__name__ = call.__qualname__ = public
    call.__doc__ = f"``mx.np.{func}`` on symbols: one ``_np_call`` node (see mxlab.symbol.np_call)."
    return call


def _public_functions(module):
    return [n for n in dir(module) if not n.startswith("_")
            and callable(getattr(module, n)) and not isinstance(getattr(module, n), type)
            and not isinstance(getattr(module, n), types.ModuleType)]


def fill_namespace(namespace, prefix, cls):
    """Add a ``_np_call`` function for every allowed public function of ``prefix``'s module
    that ``namespace`` lacks (one in neither table goes to :data:`UNREVIEWED`)."""
    module = importlib.import_module(NAMESPACES[prefix])
    for public in _public_functions(module):
        if public in namespace or public in _DENIED[prefix]:
            continue
        if public in _ALLOWED[prefix]:
            namespace[public] = make_function(prefix + public, cls)
        else:
            UNREVIEWED.append(prefix + public)


def sub_namespace(prefix, cls, module_name):
    """A module object (``mx.sym.np.linalg``) holding the ``_np_call`` functions of ``prefix``."""
    module = types.ModuleType(module_name)
    module.__doc__ = f"``mx.np.{prefix.rstrip('.')}`` functions on symbols (``_np_call`` nodes)."
    fill_namespace(module.__dict__, prefix, cls)
    return module
