"""The JSON form of a recorded function call's arguments (``_npi_fallback`` and ``_np_call``
nodes), read safely.

A graph file is data: its ``args`` attribute may only hold JSON values, array inputs
(``{"__input__": i}``), tuples, dicts, slices, ``Ellipsis``, numeric or bool dtypes and small
literal arrays of those dtypes. :func:`load_args` checks all of that (when the graph is loaded,
through the ops' attribute parsing, and again before each call), so no object dtype (hence no
pickle) and no dtype of unbounded item size (``'U1000000000'``) reaches NumPy, nesting is bounded
and every error is an ``MXNetValueError``.
"""
import json
import warnings

import numpy

from ..base import MXNetValueError

__all__ = ["load_args", "safe_dtype", "input_of", "MAX_DEPTH"]

MAX_DEPTH = 32            # nesting of lists / tuples / dicts in one argument
_DTYPE_KINDS = "biufc"    # bool, integers, floats, complex: fixed item sizes, no Python objects
_TAGS = ("__input__", "__tuple__", "__dict__", "__slice__", "__ellipsis__", "__dtype__",
         "__array__")


def safe_dtype(name, where):
    """``numpy.dtype(name)`` when it is a bool or numeric dtype; otherwise an error naming
    ``where``."""
    try:
        dtype = numpy.dtype(name) if isinstance(name, str) else None
    except (TypeError, ValueError):
        dtype = None
    if dtype is None or dtype.kind not in _DTYPE_KINDS or dtype.fields is not None:
        raise MXNetValueError(f"{where}: dtype {name!r} is not allowed (only bool and numeric "
                              "dtypes)")
    return dtype


def _check_tagged(value, where, depth):
    tags = [t for t in _TAGS if t in value]
    if len(tags) != 1:
        raise MXNetValueError(f"{where}: bad argument encoding {_short(value)}")
    tag, body = tags[0], value[tags[0]]
    if tag == "__input__":
        if not isinstance(body, int) or isinstance(body, bool) or body < 0:
            raise MXNetValueError(f"{where}: bad input index {body!r}")
    elif tag in ("__tuple__", "__slice__"):
        if not isinstance(body, list) or tag == "__slice__" and len(body) != 3:
            raise MXNetValueError(f"{where}: bad {tag} encoding {_short(value)}")
        _check(body, where, depth + 1)
    elif tag == "__dict__":
        if not isinstance(body, list) or not all(
                isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in body):
            raise MXNetValueError(f"{where}: bad __dict__ encoding {_short(value)}")
        _check([p[1] for p in body], where, depth + 1)
    elif tag == "__dtype__":
        safe_dtype(body, where)
    elif tag == "__array__":
        _check_array(value, where)


def _check_array(value, where):
    """A literal array: plain numbers (or bools) in nested lists and a numeric ``dtype``."""
    safe_dtype(value.get("dtype"), where)
    try:
        data = numpy.array(value["__array__"], dtype=value["dtype"])
    except (TypeError, ValueError, OverflowError):
        raise MXNetValueError(f"{where}: bad __array__ encoding {_short(value)}") from None
    if data.ndim > MAX_DEPTH:
        raise MXNetValueError(f"{where}: __array__ nested deeper than {MAX_DEPTH}")


def _check(value, where, depth):
    if depth > MAX_DEPTH:
        raise MXNetValueError(f"{where}: arguments nested deeper than {MAX_DEPTH}")
    if isinstance(value, list):
        for item in value:
            _check(item, where, depth + 1)
    elif isinstance(value, dict):
        _check_tagged(value, where, depth)
    elif isinstance(value, str):
        _check_string(value, where)
    elif not (value is None or isinstance(value, (bool, int, float))):
        raise MXNetValueError(f"{where}: bad argument {_short(value)}")


def _check_string(value, where):
    """A plain string may be a dtype given by name (``dtype="float32"``, a positional dtype):
    one NumPy reads as a dtype must be bool or numeric, like a tagged one, so ``'O'`` or
    ``'U1000000000'`` never reaches NumPy; other strings (``'left'``, ``'linear'``) pass."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            dtype = numpy.dtype(value)
        except (TypeError, ValueError, SyntaxError):
            return
    if dtype.kind not in _DTYPE_KINDS or dtype.fields is not None:
        raise MXNetValueError(f"{where}: dtype {value!r} is not allowed (only bool and numeric "
                              "dtypes)")


def _short(value, limit=120):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def load_args(text, where):
    """``{"args": [...], "kwargs": {...}}`` parsed from ``text`` and checked (see module doc);
    errors name ``where`` (the op)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise MXNetValueError(f"{where}: the arguments are not valid JSON ({exc})") from None
    if not isinstance(data, dict) or set(data) != {"args", "kwargs"} or \
            not isinstance(data["args"], list) or not isinstance(data["kwargs"], dict):
        raise MXNetValueError(f"{where}: the arguments must be {{'args': [...], 'kwargs': "
                              "{...}}")
    _check(data["args"], where, 1)
    _check(list(data["kwargs"].values()), where, 1)
    return data


def input_of(inputs, index, where):
    """``inputs[index]``, or an error naming ``where`` when the graph has no such input."""
    if index >= len(inputs):
        raise MXNetValueError(f"{where}: argument refers to input {index}, the node has "
                              f"{len(inputs)}")
    return inputs[index]
