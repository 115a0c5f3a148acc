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
"""
import json

import numpy

from ..base import MXNetValueError
from .attrs import Attr
from .registry import Op, register

__all__ = ["encode_args", "fallback_compute"]


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
    if isinstance(value, list):
        return [_decode(v, inputs) for v in value]
    if not isinstance(value, dict):
        return value
    if "__input__" in value:
        return inputs[value["__input__"]]
    if "__tuple__" in value:
        return tuple(_decode(v, inputs) for v in value["__tuple__"])
    if "__dict__" in value:
        return {k: _decode(v, inputs) for k, v in value["__dict__"]}
    if "__dtype__" in value:
        return numpy.dtype(value["__dtype__"])
    if "__slice__" in value:
        return slice(*value["__slice__"])
    raise MXNetValueError(f"_npi_fallback: bad argument encoding {value!r}")


def fallback_compute(xp, inputs, attrs):
    """NumPy's (or the device library's) ``func`` on ``inputs``: a tuple of fresh arrays."""
    data = json.loads(attrs["args"])
    fn = getattr(xp, attrs["func"], None)
    host = fn is None
    if host:
        fn, inputs = getattr(numpy, attrs["func"]), [xp.asnumpy(x) for x in inputs]
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
            attrs=(Attr("func", "str", doc="the NumPy function"),
                   Attr("args", "str", '{"args": [], "kwargs": {}}',
                        doc="the call's arguments as JSON, arrays as {'__input__': i}"),
                   Attr("num_args", "int", 0, doc="number of array inputs"),
                   Attr("dtypes", "str", doc="the outputs' dtypes, comma-separated"),
                   Attr("ndims", "str", doc="the outputs' ranks, comma-separated")),
            num_inputs=lambda a: a["num_args"], input_names=("data",),
            num_outputs=lambda a: len(a["dtypes"].split(",")),
            dynamic_shape=True,
            infer_shape=lambda a, s: [(None,) * int(n) for n in a["ndims"].split(",")],
            infer_type=lambda a, d: a["dtypes"].split(","),
            gradient=lambda node, g: [None] * len(node.inputs),
            save_inputs=False, save_outputs=False,
            doc="A NumPy function on the inputs' data (``mx.np``'s fallbacks in a traced graph)."))
