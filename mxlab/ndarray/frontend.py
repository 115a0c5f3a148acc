"""Generated namespace functions: how ``mx.nd.FullyConnected(x, w, b, num_hidden=3)`` becomes an op
call.

Shared by every flavour (``mx.nd``, ``mx.np``, ``mx.npx``; ``mx.sym`` reuses
:func:`bind_arguments`): leading positional arrays are inputs, further positionals fill attributes
in declared order, keywords named after inputs are inputs, everything else is an attribute.
"""
import numbers

import numpy

from ..base import MXNetNotImplementedError, MXNetTypeError
from ..imperative import invoke, invoke_one
from .legacy_checks import LEGACY_CHECKS, checked
from .ndarray import NDArray

__all__ = ["bind_arguments", "make_array_frontend"]


def bind_arguments(op, args, kwargs, is_input):
    """Split a call's arguments into ``(inputs, attribute kwargs)`` for ``op``.

    ``is_input(value)`` says whether a value is an array-like input (NDArray for arrays, Symbol for
    symbols).
    """
    kwargs = dict(kwargs)
    static_count = op.num_inputs if isinstance(op.num_inputs, int) else None
    inputs, rest, slots = [], list(args), len(_input_name_pool(op))
    position = 0   # NOTE: a None in an input's place is that input left out (bias=None)
    while rest and (static_count is None or len(inputs) < static_count) and \
            (is_input(rest[0]) or (rest[0] is None and position < slots)):
        value = rest.pop(0)
        if value is not None:
            inputs.append(value)
        position += 1
    if rest and not inputs and isinstance(rest[0], (list, tuple)) and rest[0] \
            and all(is_input(v) for v in rest[0]) and static_count is None:
        inputs = list(rest.pop(0))   # NOTE: a sequence of arrays first (concatenate, stack, ...)
    attr_names = [a.name for a in op.attrs if a.name not in kwargs]
    if len(rest) > len(attr_names):
        raise MXNetTypeError(f"{op.name}: too many positional arguments ({len(args)})")
    kwargs.update(zip(attr_names, rest))
    named = {k: kwargs.pop(k) for k in list(kwargs) if is_input(kwargs[k]) or
             (kwargs[k] is None and k in _optional_input_names(op))}
    if named:
        order = _input_name_pool(op)
        for key in sorted(named, key=lambda k: order.index(k) if k in order else len(order)):
            if named[key] is not None:
                inputs.append(named[key])
    if "num_args" in op._attr_specs and "num_args" not in kwargs:
        kwargs["num_args"] = len(inputs)
    return inputs, kwargs


def _optional_input_names(op):
    """Every input name ``op`` has under its default attributes or with its flags switched on
    (``sequence_length`` exists only with ``use_sequence_length=True``): MXNet's functions take
    such an input as ``name=None`` whatever the flags say."""
    names = set(_input_name_pool(op))
    if callable(op.input_names):
        flags = {a.name: True for a in op.attrs if a.kind == "bool"}
        try:
            names.update(op.input_names({**op._defaults, **flags}))
        except Exception:  # noqa: BLE001 - names that need other attributes: defaults only
            pass
    return names


def _input_name_pool(op):
    names = op.input_names
    if callable(names):
        try:
            names = names(op._defaults)
        except Exception:  # NOTE: names depending on required attributes; fall back to none known.
            names = ()
    return list(names)


def _is_array(value):
    return isinstance(value, NDArray)


def _all_arrays(args):
    for arg in args:
        if not isinstance(arg, NDArray):
            return False
    return True


def _scalar_ufunc(op, public, cls):
    """``mx.np``'s unary ufuncs take a Python scalar and return NumPy's scalar result, as MXNet's
    (``mx.np.sqrt(2)``); None where that does not apply."""
    if cls is NDArray or not op.elementwise or op.num_inputs != 1 or op.np_name != public:
        return None
    theirs = getattr(numpy, public, None)
    return theirs if isinstance(theirs, numpy.ufunc) else None


# NumPy's ufunc keywords and their defaults: mx.np's ufuncs accept each at its default only.
_UFUNC_KWARGS = {"where": True, "casting": "same_kind", "order": "K", "dtype": None, "subok": True}


def _legal_ufunc_option(key, value):
    if key == "casting":
        return value in ("no", "equiv", "safe", "same_kind", "unsafe")
    if key == "dtype":
        try:
            numpy.dtype(value)
        except TypeError:
            return False
    return key != "order" or isinstance(value, str)


def check_ufunc_kwargs(op, public, kwargs):
    """MXNet's rule for NumPy ufunc keywords (``where``, ``casting``, ``order``, ``dtype``,
    ``subok``) an op does not take: the default is dropped, any other valid value raises
    NotImplementedError, an invalid one TypeError."""
    for key in [k for k in kwargs if k in _UFUNC_KWARGS and k not in op._attr_specs]:
        _check_ufunc_option(public, key, kwargs.pop(key))


def check_ufunc_options(public, kwargs):
    """:func:`check_ufunc_kwargs` for a function taking no other keywords (``mx.np.add``,
    ``isnan``): any keyword but NumPy's ufunc ones is a TypeError, as in MXNet."""
    for key, value in kwargs.items():
        if key not in _UFUNC_KWARGS:
            raise MXNetTypeError(f"{key} is an invalid keyword to function '{public}'")
        _check_ufunc_option(public, key, value)


def _check_ufunc_option(public, key, value):
    default = _UFUNC_KWARGS[key]
    if value is default or (default is not None and isinstance(value, type(default))
                            and value == default):
        return
    if _legal_ufunc_option(key, value):
        raise MXNetNotImplementedError(
            f"{key}={value} is not implemented yet for operator {public}")
    raise MXNetTypeError(f"{key}={value} not understood for operator {public}")


def make_array_frontend(cls):
    """A ``make_frontend(op, public)`` for :func:`~mxlab.ops.registry.populate_namespace` producing
    ``cls``."""
    def make(op, public):
        # NOTE: the common call `f(x)` / `f(x, y)` with arrays only skips argument binding and
        # parsing.
        fast_arity = op.num_inputs if isinstance(op.num_inputs, int) and not op._required \
            and "num_args" not in op._attr_specs else -1
        one_output = op.num_visible_outputs in (None, 1) and op.num_outputs == 1
        on_scalar = _scalar_ufunc(op, public, cls)
        np_flavour = getattr(cls, "_flavour", None) == "np"
        ufunc_kwargs = op.ufunc is not None and np_flavour
        strict = np_flavour and not op._attr_specs   # NOTE: legacy ops then ignore keywords

        def frontend(*args, out=None, name=None, ctx=None, device=None, **kwargs):
            if on_scalar is not None and len(args) == 1 and not kwargs and out is None and \
                    isinstance(args[0], (numbers.Number, numpy.generic)):
                return on_scalar(args[0])
            if not kwargs and len(args) == fast_arity and (
                    isinstance(args[0], NDArray) if fast_arity == 1 else _all_arrays(args)):
                inputs, attrs = list(args), dict(op._defaults)
                if out is None and one_output and inputs and device is None and ctx is None:
                    return invoke_one(op, inputs, attrs, cls)
            else:
                if ufunc_kwargs:
                    check_ufunc_kwargs(op, public, kwargs)
                inputs, attr_kwargs = bind_arguments(op, args, kwargs, _is_array)
                if strict and attr_kwargs:
                    raise MXNetTypeError(f"{next(iter(attr_kwargs))} is an invalid keyword to "
                                         f"function '{public}'")
                attrs = op.parse_attrs(attr_kwargs)
            if out is not None and not isinstance(out, (list, tuple)):
                out = [out]
            outputs = invoke(op, inputs, attrs, out=out, cls=cls, device=device or ctx)
            if one_output:
                return outputs[0]
            visible = op.get_num_visible_outputs(attrs)
            return outputs[0] if visible == 1 else outputs[:visible]
        frontend.__name__ = public
        frontend.__qualname__ = public
        frontend.__doc__ = op.doc or f"Apply the registered op ``{op.name}``."
        if cls._flavour == "nd" and op.name in LEGACY_CHECKS:
            return checked(op, frontend, lambda args, kwargs: bind_arguments(
                op, args, kwargs, lambda v: isinstance(v, NDArray)))
        return frontend
    return make
