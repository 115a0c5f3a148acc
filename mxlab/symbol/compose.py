"""Building op nodes for symbols: inputs by position or name, missing inputs as new variables.

Shared by the generated ``mx.sym`` functions, the python operators of :class:`~mxlab.symbol.Symbol`
and the ``registry.F`` dispatch (gradient rules applied to symbols). MXNet's rules: a missing input
becomes the variable ``<node>_<input>`` carrying the op's parameters as attributes (plus
``FSetInputVarAttrOnCompose`` attributes such as BatchNorm's ``__init__``), and every op that
mutates a variable (an auxiliary state) bumps that variable's entry version.
"""

import weakref

from ..base import MXNetValueError
from ..graph.node import Entry, Node, new_node_name, topo_sort
from ..ops import registry
from . import json as _json
from . import legacy

__all__ = ["make_node", "outputs_of", "apply_op", "copy_graph", "single_entry"]


def copy_graph(entries):
    """Deep copy of the graph reaching ``entries``; returns the copied entries (same order and
    versions)."""
    mapping = {}
    for node in topo_sort(entries):
        new = Node(node.op, node.name, dict(node.attrs), extra=node.extra, subgraphs=node.subgraphs,
                   scope=node.scope)
        new.inputs = [Entry(mapping[id(e.node)], e.index, e.version) for e in node.inputs]
        new.control_deps = [mapping[id(n)] for n in node.control_deps]
        if node.op is not None and node in _json._EXPLICIT:
            _json._EXPLICIT[new] = _json._EXPLICIT[node]
        mapping[id(node)] = new
    return [Entry(mapping[id(e.node)], e.index, e.version) for e in entries]


def single_entry(sym, op_name, arg_name):
    """The one output entry of ``sym`` (an op input must be a single output)."""
    if len(sym._outputs) != 1:
        raise MXNetValueError(
            f"{op_name}: argument '{arg_name}' is a group of {len(sym._outputs)} symbols; "
            f"an input must have exactly one output"
        )
    return sym._outputs[0]


# variable node -> number of ops mutating it (MXNet's entry versions)
_VAR_VERSIONS = weakref.WeakKeyDictionary()


def _input_entries(op, attrs, name, positional, named, explicit):
    """One entry per op input: given symbols by position or name, else new variables
    ``<name>_<input>``."""
    input_names = op.get_input_names(attrs)
    count = op.get_num_inputs(attrs)
    if len(positional) > count:
        raise MXNetValueError(
            f"{op.name}: expected at most {count} inputs {list(input_names)}, "
            f"got {len(positional)}"
        )
    slots = list(positional) + [None] * (count - len(positional))
    for key, sym in named.items():
        if key not in input_names:
            raise MXNetValueError(
                f"{op.name}: unknown input '{key}'; inputs are {list(input_names)}"
            )
        slots[input_names.index(key)] = sym
    entries = []
    for i, sym in enumerate(slots):
        if sym is not None:
            entries.append(single_entry(sym, op.name, input_names[i]))
            continue
        extra = dict(explicit)
        extra.update(legacy.INPUT_VAR_ATTRS.get(op.name, {}).get(input_names[i], {}))
        # NOTE: MXNet names the inputs of a variadic op (``num_args``) arg0, arg1, ...
        label = f"arg{i}" if "num_args" in attrs and callable(op.num_inputs) else input_names[i]
        entries.append(Entry(Node(None, f"{name}_{label}", extra=extra)))
    for i in op.mutate_inputs:
        if i < len(entries) and entries[i].node.op is None:
            node = entries[i].node
            _VAR_VERSIONS[node] = _VAR_VERSIONS.get(node, 0) + 1
            entries[i] = Entry(node, entries[i].index, _VAR_VERSIONS[node])
    return entries


def make_node(op, attrs, positional, named=None, name=None, hint=None, explicit=None, extra=None):
    """A new op node; missing inputs become variables.

    ``explicit``: names of the parameters the user gave (written to JSON); ``None`` when unknown, in
    which case parameters that differ from the defaults are written.
    """
    name = name or new_node_name(hint or op.name)
    node = Node(op, name, attrs, extra=extra)
    if explicit is not None:
        _json.mark_explicit(node, explicit)
    node.inputs = _input_entries(
        op, attrs, name, positional, named or {}, _json.param_strings(node)
    )
    return node


def outputs_of(node, cls, visible=True):
    """A ``cls`` symbol of the node's visible (or all) outputs."""
    count = node.op.get_num_visible_outputs(node.attrs) if visible else node.num_outputs
    return cls([Entry(node, i) for i in range(count)])


def apply_op(op_name, inputs, kwargs, cls):
    """Apply a registered op (by any of its names) to symbols; used by the python operators."""
    op = registry.get_op(op_name)
    node = make_node(op, op.parse_attrs(kwargs), inputs, hint=op_name, explicit=tuple(kwargs))
    return outputs_of(node, cls)
