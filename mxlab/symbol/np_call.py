"""``mx.sym.np`` functions that have no registry op of their own: a ``_np_call`` node.

Most ``mx.np`` functions are Python compositions of several ops (``tensordot``, ``split``,
``linalg.norm``...). On symbols each becomes one ``_np_call`` node whose attributes name the
function (``func``: ``tensordot``, ``linalg.norm``, ``npx.topk``) and hold the call's other
arguments as JSON (``args``); its kernel runs the imperative function and its gradient comes
from autograd over it (:mod:`mxlab.executor.np_call`). The node survives ``tojson``/``load``.

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
from .compose import make_node, outputs_of
from .symbol import Symbol

__all__ = ["encode_call", "decode_call", "resolve", "make_function", "NAMESPACES"]

# func prefix -> module holding the imperative functions
NAMESPACES = {"": "mxlab.numpy", "linalg.": "mxlab.numpy.linalg",
              "random.": "mxlab.numpy.random", "npx.": "mxlab.numpy_extension"}


def resolve(func):
    """The imperative function ``func`` names (``tensordot``, ``linalg.norm``, ``npx.relu``)."""
    for prefix in sorted(NAMESPACES, key=len, reverse=True):
        if func.startswith(prefix):
            module = importlib.import_module(NAMESPACES[prefix])
            fn = getattr(module, func[len(prefix):], None)
            if callable(fn) and not isinstance(fn, type):
                return fn
            break
    raise MXNetValueError(f"_np_call: unknown function '{func}' (not in mx.np, mx.np.linalg, "
                          "mx.np.random or mx.npx)")


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
    if isinstance(value, list):
        return [_decode(v, inputs, make_array) for v in value]
    if not isinstance(value, dict):
        return value
    if "__input__" in value:
        return inputs[value["__input__"]]
    if "__tuple__" in value:
        return tuple(_decode(v, inputs, make_array) for v in value["__tuple__"])
    if "__dict__" in value:
        return {k: _decode(v, inputs, make_array) for k, v in value["__dict__"]}
    if "__slice__" in value:
        return slice(*value["__slice__"])
    if "__ellipsis__" in value:
        return Ellipsis
    if "__dtype__" in value:
        return numpy.dtype(value["__dtype__"]).type
    if "__array__" in value:
        return make_array(numpy.array(value["__array__"], dtype=value["dtype"]))
    raise MXNetValueError(f"_np_call: bad argument encoding {value!r}")


def decode_call(text, inputs, make_array):
    """``(args, kwargs)`` from :func:`encode_call`'s JSON with ``inputs`` in the symbols'
    places."""
    data = json.loads(text)
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
    """The ``mx.sym.np`` function for ``func`` (a name :func:`resolve` knows), building ``cls``."""
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
    """Add a ``_np_call`` function for every public function of ``prefix``'s module that
    ``namespace`` lacks."""
    module = importlib.import_module(NAMESPACES[prefix])
    for public in _public_functions(module):
        if public not in namespace:
            namespace[public] = make_function(prefix + public, cls)


def sub_namespace(prefix, cls, module_name):
    """A module object (``mx.sym.np.linalg``) holding the ``_np_call`` functions of ``prefix``."""
    module = types.ModuleType(module_name)
    module.__doc__ = f"``mx.np.{prefix.rstrip('.')}`` functions on symbols (``_np_call`` nodes)."
    fill_namespace(module.__dict__, prefix, cls)
    return module
