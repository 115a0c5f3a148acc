"""Typed op attributes: parse from Python values or MXNet's JSON strings, validate, print back as
strings.

MXNet stores every attribute as a string in its JSON (``"kernel": "(3, 3)"``, ``"no_bias":
"True"``); ops see typed values. One :class:`Attr` per attribute does both directions so Symbol
files round-trip.
"""
import ast
import dataclasses

import numpy

from ..base import MXNetTypeError, MXNetValueError

__all__ = ["Attr", "REQUIRED", "parse_dtype"]


class _Required:
    def __repr__(self):
        return "REQUIRED"


REQUIRED = _Required()
_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no"}


def _literal(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _as_int(value):
    if isinstance(value, (bool, numpy.bool_)):
        return int(value)
    if isinstance(value, (int, numpy.integer)):
        return int(value)
    if isinstance(value, (float, numpy.floating)) and float(value).is_integer():
        return int(value)
    raise TypeError


def _parse_int(value):
    return _as_int(_literal(value) if isinstance(value, str) else value)


def _parse_float(value):
    if isinstance(value, str):
        return float(value)
    if isinstance(value, (int, float, numpy.integer, numpy.floating, bool)):
        return float(value)
    raise TypeError


def _parse_bool(value):
    if isinstance(value, str):
        low = value.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise ValueError
    if isinstance(value, (bool, numpy.bool_, int, numpy.integer)):
        return bool(value)
    raise TypeError


def _as_sequence(value):
    """``value`` as a tuple or list when it is one, a range or a 1-D NumPy array (MXNet's frontend
    passes ``str(value)``, so those work as tuples there), else None."""
    if isinstance(value, (tuple, list)):
        return value
    if isinstance(value, range) or (isinstance(value, numpy.ndarray) and value.ndim == 1):
        return value.tolist() if isinstance(value, numpy.ndarray) else list(value)
    return None


def _parse_shape(value):
    if isinstance(value, str):
        value = _literal(value.strip())
    if value is None:
        return None
    if isinstance(value, (int, numpy.integer)):
        return (int(value),)
    value = _as_sequence(value)
    if value is not None:
        return tuple(None if v is None else _as_int(v) for v in value)
    raise TypeError


def _parse_axis(value):
    if isinstance(value, str):
        value = _literal(value.strip())
    if value is None:
        return None
    if isinstance(value, (int, numpy.integer)) and not isinstance(value, bool):
        return int(value)
    value = _as_sequence(value)
    if value is not None:
        return tuple(_as_int(v) for v in value)
    raise TypeError


def parse_dtype(value):
    """Canonical dtype name ('float32', 'int64', 'bool', ...) from a string, NumPy type or dtype;
    None stays."""
    if value is None or (isinstance(value, str) and value in ("None", "")):
        return None
    if isinstance(value, str) and value == "bfloat16":
        return value
    if getattr(value, "names", None) == ("bfloat16",):
        return "bfloat16"   # NOTE: MXNet's NumPy spelling of bfloat16 (a one-field record dtype)
    return numpy.dtype(value).name


def _parse_str(value):
    if isinstance(value, str):
        return value
    raise TypeError


def _parse_floats(value):
    """A tuple of floats (MXNet's ``Tuple<float>``): ``(1, 2.5)``, ``[0.5]``, ``"(0.5, 1)"``, 2."""
    if isinstance(value, str):
        value = _literal(value.strip())
    if isinstance(value, (int, float, numpy.integer, numpy.floating)) and \
            not isinstance(value, (bool, numpy.bool_)):
        return (float(value),)
    value = _as_sequence(value)
    if value is not None:
        return tuple(_parse_float(v) for v in value)
    raise TypeError


def _parse_any(value):
    return _literal(value) if isinstance(value, str) else value


def _parse_float_or_int(value):
    """Scalars keep int-ness ('2' -> 2, 2.5 -> 2.5) so integer arrays stay integer."""
    if isinstance(value, str):
        value = _literal(value)
    if isinstance(value, (bool, numpy.bool_)):
        return int(value)
    if isinstance(value, (int, numpy.integer)):
        return int(value)
    if isinstance(value, (float, numpy.floating)):
        return float(value)
    raise TypeError


_PARSERS = {"int": _parse_int, "float": _parse_float, "bool": _parse_bool,
            "shape": _parse_shape, "axis": _parse_axis, "dtype": parse_dtype, "str": _parse_str,
            "floats": _parse_floats, "any": _parse_any, "scalar": _parse_float_or_int}


@dataclasses.dataclass(frozen=True)
class Attr:
    """One typed attribute of an op.

    ``kind`` is one of int, float, bool, shape, axis, dtype, str, floats (a tuple of floats), any,
    scalar (int or float kept as given). ``optional`` allows ``None``; ``choices`` restricts
    values; ``check`` is an extra predicate with a message.
    """
    name: str
    kind: str
    default: object = REQUIRED
    choices: tuple = ()
    optional: bool = False
    doc: str = ""
    check: object = None  # (predicate, message) pair

    def __post_init__(self):
        if self.kind not in _PARSERS:
            raise ValueError(f"unknown attribute kind {self.kind!r} for {self.name}")

    def parse(self, value, op_name):
        """Typed value from a Python value or JSON string; errors name the op and the attribute."""
        if value is None or (isinstance(value, str) and value == "None" and self.kind != "str"):
            if self.optional or self.default is None:
                return None
            raise MXNetValueError(f"{op_name}: attribute '{self.name}' must not be None")
        try:
            parsed = _PARSERS[self.kind](value)
        except (TypeError, ValueError):
            raise MXNetTypeError(f"{op_name}: attribute '{self.name}' expects {self.kind}, got "
                                 f"{value!r}") from None
        if self.choices and parsed not in self.choices:
            raise MXNetValueError(f"{op_name}: attribute '{self.name}' must be one of "
                                  f"{list(self.choices)}, got {parsed!r}")
        if self.check is not None and not self.check[0](parsed):
            raise MXNetValueError(f"{op_name}: attribute '{self.name}' {self.check[1]}, got "
                                  f"{parsed!r}")
        return parsed

    @staticmethod
    def to_str(value):
        """MXNet's string form of an attribute value (what ``str()`` gives in its Python
        frontend)."""
        if isinstance(value, tuple):
            return "(" + ", ".join(str(v) for v in value) + ("," if len(value) == 1 else "") + ")"
        return str(value)
