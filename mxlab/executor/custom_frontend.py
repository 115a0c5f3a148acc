"""``mx.nd.Custom``, ``mx.npx.custom`` and ``mx.sym.Custom``: a call of a registered custom op
(:mod:`.custom_op`).

Inputs go by position or by their Prop's names (``list_arguments()`` then
``list_auxiliary_states()``); every other keyword but ``name``/``attr``/``out`` is a Prop argument,
handed to its ``__init__`` as a string, as MXNet does.
"""
from .. import attribute as _attribute, name as _name
from ..base import MXNetTypeError, MXNetValueError
from ..device import current_device
from ..imperative import invoke
from ..ndarray.namespace import register_frontend
from ..ndarray.ndarray import NDArray, ndarray
from ..symbol.compose import make_node, outputs_of
from ..symbol.symbol import Symbol
from .custom_op import info_of
from .custom_sparse import run_sparse

__all__ = ["nd_custom", "np_custom", "sym_custom"]


def _bind(args, kwargs, is_input, op_type):
    """``(info, inputs in the op's order, attributes)`` of one call."""
    if op_type is None:
        raise MXNetValueError("Custom: required argument 'op_type' is missing")
    named = {k: kwargs.pop(k) for k in list(kwargs) if is_input(kwargs[k])}
    for value in args:
        if not is_input(value):
            raise MXNetTypeError(f"Custom '{op_type}': positional arguments must be inputs, got "
                                 f"{type(value).__name__}; pass the Prop's arguments by keyword")
    attrs = {"op_type": str(op_type)}
    attrs.update({k: v if isinstance(v, str) else str(v) for k, v in kwargs.items()})
    info = info_of(attrs)
    names = info.args + info.auxs
    if len(args) > len(names):
        raise MXNetValueError(f"Custom '{op_type}': {len(args)} inputs given, the op takes "
                              f"{len(names)} {names}")
    slots = list(args) + [None] * (len(names) - len(args))
    for key, value in named.items():
        if key not in names:
            raise MXNetValueError(f"Custom '{op_type}': unknown input '{key}'; inputs are "
                                  f"{names}")
        slots[names.index(key)] = value
    return info, slots, attrs


def _array_call(cls, args, op_type, out, kwargs):
    kwargs.pop("name", None)
    info, slots, attrs = _bind(args, kwargs, lambda v: isinstance(v, NDArray), op_type)
    missing = [n for n, s in zip(info.args + info.auxs, slots) if s is None]
    if missing:
        raise MXNetValueError(f"Custom '{op_type}': inputs {missing} are missing")
    if any(s._sparse for s in slots[:info.n_args]):
        stypes = info.storage_types([s.stype for s in slots[:info.n_args]])
        if out is None and any(t != "default" for t in sum(stypes, [])):
            outputs = run_sparse(info, slots, attrs, stypes, cls)
            return outputs[0] if len(outputs) == 1 else outputs
    if out is not None:
        out = [out] if isinstance(out, NDArray) else list(out)
    outputs = invoke(info.new_op(), slots, attrs, out=out,
                     cls=None if slots else cls, device=None if slots else current_device())
    return outputs[0] if len(outputs) == 1 else outputs


def nd_custom(*args, op_type=None, out=None, **kwargs):
    """``mx.nd.Custom(*inputs, op_type=name, **prop_kwargs)``: run a registered custom op."""
    return _array_call(NDArray, args, op_type, out, kwargs)


def np_custom(*args, op_type=None, out=None, **kwargs):
    """``mx.npx.custom(*inputs, op_type=name, **prop_kwargs)``: ``mx.nd.Custom`` on ``mx.np``
    arrays."""
    return _array_call(ndarray, args, op_type, out, kwargs)


def _symbol_call(cls, args, op_type, name, attr, kwargs):
    info, slots, attrs = _bind(args, kwargs, lambda v: isinstance(v, Symbol), op_type)
    named = {n: s for n, s in zip(info.args + info.auxs, slots) if s is not None}
    name = _name.current().get(name, "custom")
    node = make_node(info.new_op(), attrs, [], named, name=name, hint="Custom",
                     explicit=tuple(attrs))
    result = outputs_of(node, cls)
    attr = _attribute.current().get(attr)
    if attr:
        result._set_attr(**attr)
    return result


def sym_custom(*args, op_type=None, name=None, attr=None, **kwargs):
    """``mx.sym.Custom(*inputs, op_type=name, name=None, **prop_kwargs)``: a ``Custom`` node;
    inputs left out become variables ``<name>_<input>``."""
    return _symbol_call(Symbol, args, op_type, name, attr, kwargs)


register_frontend("nd", name="Custom")(nd_custom)
register_frontend("npx", name="custom")(np_custom)
register_frontend("sym", name="Custom")(sym_custom)
