"""Generated ``mx.sym`` / ``mx.sym.np`` / ``mx.sym.npx`` functions: an op call on symbols adds a
node.

Arguments are split like the array namespaces (:func:`mxlab.ndarray.frontend.bind_arguments`);
inputs passed by keyword (``weight=w``) go to their named slot, and inputs left out become new
variables named ``<node>_<input>`` (``fc1_weight``), as in MXNet.
"""

from .. import attribute as _attribute, name as _name
from ..base import MXNetTypeError, MXNetValueError
from ..ndarray.frontend import bind_arguments
from ..ops import registry
from .compose import apply_op, make_node, outputs_of
from .symbol import HIDDEN_KEYS, Symbol, _hidden

__all__ = [
    "make_symbol_frontend",
    "populate_flavour",
    "zeros",
    "ones",
    "full",
    "pow",
    "power",
    "maximum",
    "minimum",
    "hypot",
    "split_v2",
    "histogram",
]


def _is_symbol(value):
    return isinstance(value, Symbol)


def compose_op(op, args, kwargs, cls, name=None, attr=None, hint=None):
    """Build the node for one frontend call and return its visible outputs as a ``cls`` symbol."""
    kwargs = dict(kwargs)
    hidden = {k: kwargs.pop(k) for k in list(kwargs)
              if k in HIDDEN_KEYS and k not in op._attr_specs}
    # NOTE: MXNet: a `__key__` keyword (`Activation(..., __layout__='TNC')`) is a node attribute
    dunder = {k: str(kwargs.pop(k)) for k in list(kwargs)
              if k.startswith("__") and k.endswith("__") and k not in op._attr_specs}
    if dunder:
        attr = {**dunder, **(attr or {})}
    if hidden:   # NOTE: MXNet: `Convolution(..., lr_mult=2)` sets the attribute __lr_mult__
        attr = {**{f"__{k}__": str(v) for k, v in hidden.items()}, **(attr or {})}
    dunder = {k: str(kwargs.pop(k)) for k in list(kwargs)
              if k.startswith("__") and k.endswith("__") and len(k) > 4}
    if dunder:   # NOTE: MXNet: `zeros(shape=..., __layout__='NC')` sets a node attribute
        attr = {**dunder, **(attr or {})}
    named = {k: kwargs.pop(k) for k in list(kwargs) if _is_symbol(kwargs[k])}
    positional, attr_kwargs = bind_arguments(op, args, kwargs, _is_symbol)
    attrs = op.parse_attrs(attr_kwargs)
    explicit = tuple(k for k in attr_kwargs if attr_kwargs[k] is not None or k == "num_args")
    name = _name.current().get(name, (hint or op.name).lower().lstrip("_"))   # mx.name.Prefix
    node = make_node(op, attrs, positional, named, name=name, hint=hint, explicit=explicit)
    result = outputs_of(node, cls)
    attr = _attribute.current().get(attr)   # mx.AttrScope
    if attr:   # NOTE: as MXNet's op creation, any value is kept as a string (GluonCV passes
        #   `attr={'__init__': mx.init.Xavier()}`); only `Symbol._set_attr` insists on strings
        attr = {k: _attr_string(v) for k, v in attr.items()}
        result._set_attr(**attr)
        _hidden_attrs_to_new_variables(node, positional, named, attr)
    return result


def _attr_string(value):
    """An attribute value as stored: an initializer as its JSON (what ``var(init=)`` stores, so
    ``__init__`` stays readable), anything else as ``str``."""
    if isinstance(value, str):
        return value
    dumps = getattr(value, "dumps", None)
    return dumps() if callable(dumps) else str(value)


def _hidden_attrs_to_new_variables(node, positional, named, attr):
    """As nnvm's compose: variables created for missing inputs (``conv_weight``) get the
    ``__hidden__`` attributes the op was created with."""
    given = {id(e.node) for s in list(positional) + list(named.values()) for e in s._outputs}
    for entry in node.inputs:
        if entry.node.op is None and id(entry.node) not in given:
            for key, value in attr.items():
                hidden = _hidden(key)
                if hidden.startswith("__") and hidden.endswith("__"):
                    entry.node.extra[hidden] = str(value)


def make_symbol_frontend(cls):
    """A ``make_frontend(op, public)`` for :func:`~mxlab.ops.registry.populate_namespace` building
    ``cls``."""

    def make(op, public):
        def frontend(*args, name=None, attr=None, out=None, **kwargs):
            return compose_op(op, args, kwargs, cls, name=name, attr=attr, hint=public)

        frontend.__name__ = frontend.__qualname__ = public
        frontend.__doc__ = op.doc or f"Add a node of the registered op ``{op.name}``."
        return frontend

    return make


def populate_flavour(namespace, attr_name, cls):
    """Fill ``namespace`` with a symbol function per op whose ``attr_name`` (np_name/npx_name) is
    set.

    NOTE: not :func:`registry.populate_namespace`, whose hand-written "np"/"npx" frontends take
    arrays.
    """
    make = make_symbol_frontend(cls)
    generated = set()

    def add(op):
        public = getattr(op, attr_name)
        if public and (public not in namespace or public in generated):
            namespace[public] = make(op, public)
            generated.add(public)

    def remove(op):
        public = getattr(op, attr_name)
        if public in generated:
            namespace.pop(public, None)
            generated.discard(public)

    for name in registry.list_ops():
        add(registry.get_op(name))
    registry.on_register(add, remove)


# -- MXNet's hand-written mx.sym functions (python/mxnet/symbol/symbol.py) ------------------------
def _creation(op_name, name=None, attr=None, **kwargs):
    op = registry.get_op(op_name)
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    return compose_op(op, (), kwargs, Symbol, name=name, attr=attr, hint=op_name)


def zeros(shape, dtype=None, **kwargs):
    """A symbol of zeros (``_zeros``) with the given shape."""
    return _creation("_zeros", shape=shape, dtype=dtype, **kwargs)


def ones(shape, dtype=None, **kwargs):
    """A symbol of ones (``_ones``) with the given shape."""
    return _creation("_ones", shape=shape, dtype=dtype, **kwargs)


def full(shape, val, dtype=None, **kwargs):
    """A symbol filled with ``val`` (``_full``)."""
    return _creation("_full", shape=shape, value=float(val), dtype=dtype, **kwargs)


def _elementwise_pair(tensor_op, scalar_op, rscalar_op, doc):
    """``f(left, right)`` on symbols and numbers, picking the tensor op or a scalar variant."""

    def call(left, right):
        if isinstance(left, Symbol) and isinstance(right, Symbol):
            return apply_op(tensor_op, [left, right], {}, type(left))
        if isinstance(left, Symbol):
            return apply_op(scalar_op, [left], {"scalar": right}, type(left))
        if isinstance(right, Symbol):
            return apply_op(rscalar_op, [right], {"scalar": left}, type(right))
        raise MXNetTypeError(f"{doc}: expects a Symbol operand, got {type(left)} and {type(right)}")

    call.__doc__ = f"``{doc}(left, right)`` for symbols and scalars (MXNet's ``mx.sym.{doc}``)."
    return call


pow = power = _elementwise_pair("_power", "_power_scalar", "_rpower_scalar", "power")  # noqa: A001
maximum = _elementwise_pair("_maximum", "_maximum_scalar", "_maximum_scalar", "maximum")
minimum = _elementwise_pair("_minimum", "_minimum_scalar", "_minimum_scalar", "minimum")
hypot = _elementwise_pair("_hypot", "_hypot_scalar", "_hypot_scalar", "hypot")


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False, **kwargs):
    """MXNet's ``mx.sym.split_v2``: an int is a number of equal sections, a tuple the split
    points (``_split_v2`` with ``sections`` or ``indices = (0,) + points``)."""
    if isinstance(indices_or_sections, int):
        indices, sections = (), indices_or_sections
    elif isinstance(indices_or_sections, tuple):
        indices, sections = (0,) + indices_or_sections, 0
    else:
        raise MXNetTypeError(f"split_v2: indices_or_sections must be an int or a tuple of ints, "
                             f"got {type(indices_or_sections).__name__}")
    return compose_op(registry.get_op("_split_v2"), (ary,),
                      dict(indices=indices, axis=axis, squeeze_axis=squeeze_axis,
                           sections=sections, **kwargs), Symbol, hint="split_v2")


def histogram(a, bins=10, range=None, **kwargs):  # noqa: A002 - MXNet's argument name
    """MXNet's ``mx.sym.histogram``: ``bins`` a Symbol of edges, or an int of equal bins over
    ``range`` (required for symbols); outputs the counts and the edges."""
    op = registry.get_op("_histogram")
    if isinstance(bins, Symbol):
        return compose_op(op, (a, bins), kwargs, Symbol, hint="histogram")
    if isinstance(bins, int):
        if range is None:
            raise MXNetValueError("histogram: a symbol needs range= with an int number of bins")
        return compose_op(op, (a,), dict(bin_cnt=bins, range=range, **kwargs), Symbol,
                          hint="histogram")
    raise MXNetTypeError(f"histogram: bins must be an int or a Symbol, got {type(bins).__name__}")
