"""Errors and environment helpers shared by every module.

Every error mxlab raises is an :class:`MXNetError` (so MXNet-style ``except mx.MXNetError`` works)
and, where one fits, also the natural Python type (``ValueError``, ``TypeError``, ...) so plain
Python code catches it too.
"""
import os

__all__ = ["MXNetError", "MXNetValueError", "MXNetTypeError", "MXNetIndexError",
           "MXNetAxisError", "MXNetKeyError", "MXNetNotImplementedError", "MXNetRuntimeError",
           "MXNetAttributeError", "env_int", "env_str", "env_float"]


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
