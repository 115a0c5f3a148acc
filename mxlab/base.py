"""Errors and environment helpers shared by every module.

Every error mxlab raises is an :class:`MXNetError` (so MXNet-style ``except mx.MXNetError`` works)
and, where one fits, also the natural Python type (``ValueError``, ``TypeError``, ...) so plain
Python code catches it too.
"""
import os

import numpy

__all__ = ["MXNetError", "MXNetValueError", "MXNetTypeError", "MXNetIndexError",
           "MXNetAxisError", "MXNetKeyError", "MXNetNotImplementedError", "MXNetRuntimeError",
           "MXNetAttributeError", "env_int", "env_str", "env_float", "string_types",
           "integer_types", "numeric_types", "mx_real_t", "py_str", "_as_list", "data_dir",
           "data_dir_default", "NotImplementedForSymbol", "NotSupportedForSparseNDArray",
           "_Null", "MXNetFileNotFoundError", "MXNetAssertionError",
           "MXNetUserWarning"]


class MXNetError(Exception):
    """Base class of every error raised by mxlab (the name MXNet users catch)."""


class MXNetValueError(MXNetError, ValueError):
    """A value is wrong: shapes that do not match, an attribute out of range, a bad axis."""


class MXNetTypeError(MXNetError, TypeError):
    """An argument has the wrong type or dtype."""


class MXNetIndexError(MXNetError, IndexError):
    """An index or axis is out of bounds."""


class MXNetAxisError(MXNetValueError, IndexError):
    """An axis is out of range (both a ValueError and an IndexError, like numpy's AxisError)."""


class MXNetKeyError(MXNetError, KeyError):
    """A name (op, attribute, parameter, backend) is not known."""

    def __str__(self):
        # NOTE: KeyError quotes its argument; keep the message readable.
        return str(self.args[0]) if self.args else ""


class MXNetNotImplementedError(MXNetError, NotImplementedError):
    """A feature that mxlab (or MXNet) does not support."""


class MXNetRuntimeError(MXNetError, RuntimeError):
    """An operation failed while running (engine, devices, missing libraries)."""


class MXNetAttributeError(MXNetError, AttributeError):
    """An attribute does not exist on an object."""


class MXNetFileNotFoundError(MXNetError, FileNotFoundError):
    """A file mxlab needs (a dataset, weights) is not where it was looked for."""


class MXNetAssertionError(MXNetError, AssertionError):
    """A structural requirement MXNet checks with ``assert`` (control-flow bodies)."""


class MXNetUserWarning(MXNetError, UserWarning):
    """A misuse MXNet raises as ``UserWarning`` (``set_learning_rate`` under a scheduler)."""


def env_str(name, default=None):
    """Read an environment variable (MXNet's knobs are read at the moment they are needed)."""
    return os.environ.get(name, default)


def env_int(name, default):
    """Read an integer environment variable, with a clear error when it is not an integer."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise MXNetValueError(
            f"environment variable {name} must be an integer, got {value!r}") from None


def env_float(name, default):
    """Read a float environment variable, with a clear error when it is not a number."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return float(value)
    except ValueError:
        raise MXNetValueError(
            f"environment variable {name} must be a number, got {value!r}") from None


# -- Names MXNet's Python code imports from mxnet.base (its C-API handles and _LIB stay absent) ----
string_types = (str,)
integer_types = (int, numpy.integer)
numeric_types = (float, int, numpy.generic)
error_types = {}
mx_uint = int
mx_int = int
mx_int64 = int
mx_float = float
mx_real_t = numpy.float32
_MAX_VALUE_64_BIT_SIGNED_ = 2 ** 63 - 1
_MAX_VALUE_64_BIT_UNSIGNED_ = 2 ** 64 - 1
_MAX_VALUE_FLOAT32_REPRESENT_ = 2 ** 24


class _NullType:
    """MXNet's placeholder for "argument not given" (``_Null``) in generated op signatures."""

    def __repr__(self):
        return "_Null"


_Null = _NullType()


class NotImplementedForSymbol(MXNetNotImplementedError):
    """An array method that has no symbolic counterpart."""

    def __init__(self, function, alias, *args):
        super().__init__(function, alias, *args)
        self.function, self.alias, self.args_ = function, alias, args

    def __str__(self):
        name = getattr(self.function, "__name__", str(self.function))
        alias = self.alias or name
        given = f" with arguments {tuple(type(a) for a in self.args_)}" if self.args_ else ""
        return (f'Function {name} (namely operator "{alias}"){given} is not implemented for '
                f"Symbol and only available in NDArray.")


class NotSupportedForSparseNDArray(MXNetNotImplementedError):
    """A method that sparse arrays do not support."""

    def __init__(self, function, alias, *args):
        super().__init__(function, alias, *args)
        self.function, self.alias = function, alias

    def __str__(self):
        name = self.alias or getattr(self.function, "__name__", str(self.function))
        return f"Function {name} is not supported for SparseNDArray"


def py_str(value):
    """A Python ``str`` from bytes (C strings in MXNet) or ``str``."""
    return value.decode("utf-8") if isinstance(value, (bytes, bytearray)) else str(value)


def _as_list(obj):
    """``obj`` as a list: a list stays, a tuple becomes a list, anything else is wrapped."""
    if isinstance(obj, list):
        return obj
    if isinstance(obj, tuple):
        return list(obj)
    return [obj]


def data_dir_default():
    """MXNet's default data directory: ``~/.mxnet``."""
    return os.path.join(os.path.expanduser("~"), ".mxnet")


def data_dir():
    """The data directory: ``$MXNET_HOME`` or :func:`data_dir_default`."""
    return os.getenv("MXNET_HOME", data_dir_default())
