"""MXNet's symbol JSON format (nnvm graph JSON), read and written from :mod:`mxlab.graph.node`
graphs.

Layout (MXNet 1.9)::

    {"nodes": [{"op": "null" | op name, "name": str, "attrs": {str: str}, "inputs": [[nid, index,
    version]],
                "control_deps": [nid], "subgraphs": [graph]}],
     "arg_nodes": [nid of every variable], "node_row_ptr": [first entry id of each node, ...,
     total], "heads": [[nid, index, version]], "attrs": {"mxnet_version": ["int", 10901]}}

Nodes are in DFS post-order (inputs first). ``attrs`` holds, as strings, the op parameters that were
set explicitly (MXNet does not write defaults) together with the symbol attributes (``__shape__``,
``__init__``,
...). Older files use ``"param"`` and ``"attr"`` instead of ``"attrs"`` and carry
``"backward_source_id"``; loading accepts them and applies MXNet's upgrades
(:mod:`mxlab.symbol.legacy`).

Example
-------
>>> import mxlab as mx
>>> text = (mx.sym.var('x') + 1).tojson()
>>> mx.sym.fromjson(text).list_arguments()
['x']
"""

import ast
import json
import weakref

from ..base import MXNetKeyError, MXNetTypeError, MXNetValueError
from ..graph.node import Entry, Node, topo_sort
from ..ops import registry
from ..util import is_np_shape
from . import json_check, legacy

__all__ = ["MXNET_VERSION", "graph_to_dict", "graph_from_dict", "param_strings", "mark_explicit"]

MXNET_VERSION = 10901
_EXPLICIT = weakref.WeakKeyDictionary()  # node -> names of op parameters the user set explicitly


def mark_explicit(node, names):
    """Remember which op parameters of ``node`` were given explicitly (only those are written, like
    MXNet)."""
    _EXPLICIT[node] = tuple(n for n in names if n in node.op._attr_specs)


def param_strings(node):
    """The op parameters of ``node`` as MXNet strings: the explicitly set ones, or (for nodes built
    by other paths such as deferred compute) those that differ from the op's defaults."""
    op = node.op
    if op is None:
        return {}
    names = _EXPLICIT.get(node)
    strings = op.attrs_to_strings(node.attrs)
    if names is None:
        defaults = op.attrs_to_strings(op._defaults)
        names = [k for k, v in strings.items() if defaults.get(k) != v]
    return {k: strings[k] for k in names if k in strings}


def node_attr_strings(node):
    """Everything MXNet keeps in a node's attribute dict: op parameters and symbol attributes."""
    attrs = param_strings(node)
    attrs.update(node.extra)
    return dict(sorted(attrs.items()))


def graph_to_dict(heads, subgraph_heads=lambda sub: sub._outputs):
    """The JSON-ready dict of the graph reaching ``heads`` (a list of Entry)."""
    order = topo_sort(heads)
    ids = {id(node): i for i, node in enumerate(order)}
    nodes, row_ptr = [], [0]
    legacy_names = {} if is_np_shape() else _LEGACY_OP_NAMES
    for node in order:
        op_name = "null" if node.op is None else node.op.name
        record = {"op": legacy_names.get(op_name, op_name), "name": node.name}
        attrs = node_attr_strings(node)
        if attrs:
            record["attrs"] = attrs
        record["inputs"] = [[ids[id(e.node)], e.index, e.version] for e in node.inputs]
        if node.control_deps:
            record["control_deps"] = [ids[id(n)] for n in node.control_deps]
        if node.subgraphs:
            record["subgraphs"] = [
                graph_to_dict(subgraph_heads(s), subgraph_heads) for s in node.subgraphs
            ]
        nodes.append(record)
        row_ptr.append(row_ptr[-1] + node.num_outputs)
    return {
        "nodes": nodes,
        "arg_nodes": [i for i, n in enumerate(order) if n.op is None],
        "node_row_ptr": row_ptr,
        "heads": [[ids[id(e.node)], e.index, e.version] for e in heads],
        "attrs": _graph_attrs(),
    }


# Written under MXNet 1.x's name outside NumPy-shape mode: MXNet's ``_npi_zeros`` reads a 0 in
# ``shape`` as a zero-size dim, its ``_zeros`` as unknown (``sym.zeros((0, n))``, an RNN state).
_LEGACY_OP_NAMES = {"_npi_zeros": "_zeros"}


def _graph_attrs():
    """The file's attributes: the version, and ``is_np_shape`` when written in NumPy-shape mode
    (a 0 in its shape hints is then a zero-size dim, not an unknown one)."""
    attrs = {"mxnet_version": ["int", MXNET_VERSION]}
    if is_np_shape():
        attrs["is_np_shape"] = ["int", 1]
    return attrs


def to_json(heads, subgraph_heads=lambda sub: sub._outputs):
    """JSON text laid out like MXNet's: one key per line, lists of numbers on one line."""
    return _dump(graph_to_dict(heads, subgraph_heads), "")


def _dump(value, indent):
    flat = json.dumps(value)
    if not isinstance(value, (dict, list)) or not value or len(flat) <= 60 and "{" not in flat[1:]:
        return flat
    inner = indent + "  "
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {_dump(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    return "[\n" + ",\n".join(inner + _dump(v, inner) for v in value) + f"\n{indent}]"


def _resolve_op(op_name, node_name):
    if not registry.has_op(op_name):
        raise MXNetKeyError(
            f"Cannot load symbol: node '{node_name}' uses operator '{op_name}', which is not "
            f"registered in mxlab"
        )
    return registry.get_op(op_name)


def _split_attrs(op, strings):
    """Op parameters vs. symbol attributes: dunder keys and parameters the op ignores stay
    attributes."""
    params, extra = {}, {}
    for key, value in strings.items():
        is_extra = key.startswith("__") and key.endswith("__") or key in op.ignored_attrs
        (extra if is_extra else params)[key] = value
    return params, extra


def _node_strings(record):
    """All string attributes of a node record, whatever the format version wrote them as."""
    strings = {}
    for key in ("param", "attr", "attrs"):
        strings.update({k: str(v) for k, v in (record.get(key) or {}).items()})
    return strings


def _make_node(record, make_symbol, moved, old, source):
    name = record["name"]
    strings = _node_strings(record)
    subgraphs = [make_symbol(graph_from_dict(g, make_symbol, f"{source} (node '{name}' subgraph)"))
                 for g in record.get("subgraphs", ())]
    if old:
        strings, moved_here = legacy.fix_hidden_keys(strings)
    if record["op"] == "null":
        return Node(None, name, extra=strings, subgraphs=subgraphs)
    op = _resolve_op(record["op"], name)
    params, extra = _split_attrs(op, strings)
    try:
        attrs = op.parse_attrs(params)
        if hasattr(op, "for_attrs"):   # NOTE: a generic op (Custom) made specific by its attrs
            op = op.for_attrs(attrs)
    except (MXNetValueError, MXNetTypeError, MXNetKeyError) as exc:
        raise type(exc)(f"Cannot load symbol from {source}: node '{name}' "
                        f"({record['op']}): {_message(exc)}") from exc
    node = Node(op, name, attrs, extra=extra, subgraphs=subgraphs)
    mark_explicit(node, params)
    if old and moved_here:
        moved[id(node)] = moved_here
    return node


def _message(exc):
    """An error's text without the quotes ``KeyError`` puts around it."""
    return exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)


def _entry(nodes, triple):
    nid, index = triple[0], triple[1]
    version = triple[2] if len(triple) > 2 else 0
    return Entry(nodes[nid], index, version)


def graph_from_dict(data, make_symbol, source="<symbol JSON>"):
    """Head entries of the graph described by a JSON dict; ``make_symbol(entries)`` wraps
    subgraphs. Everything read is validated first (:mod:`.json_check`); ``source`` names the file
    in errors."""
    json_check.check_graph_dict(data, source)
    records = data["nodes"]
    version = data.get("attrs", {}).get("mxnet_version", ["int", 800])[1]
    moved = {}
    nodes = [_make_node(r, make_symbol, moved, version < MXNET_VERSION, source) for r in records]
    for node, record in zip(nodes, records):
        node.inputs = [_entry(nodes, t) for t in record.get("inputs", ())]
        node.control_deps = [nodes[i] for i in record.get("control_deps", ())]
    json_check.check_acyclic(nodes, source)
    if "is_np_shape" not in data.get("attrs", {}):
        _legacy_shape_hints(nodes)
    if version < MXNET_VERSION:
        legacy.upgrade_nodes(nodes, moved, version, param_strings)
    heads = [_entry(nodes, t) for t in data["heads"]]
    json_check.check_output_indices(nodes, heads, source)
    return heads


def _legacy_shape_hints(nodes):
    """A file written outside NumPy-shape mode meant 0 as an unknown dim in ``__shape__``
    hints: written as -1, which means unknown in either mode (MXNet's loader does the same)."""
    for node in nodes:
        hint = node.extra.get("__shape__") if node.op is None else None
        try:
            dims = ast.literal_eval(hint) if hint else None
        except (ValueError, SyntaxError):   # NOTE: left as written; inference names it
            continue
        dims = (dims,) if isinstance(dims, int) else dims
        if isinstance(dims, tuple) and 0 in dims:
            node.extra["__shape__"] = str(tuple(-1 if d == 0 else d for d in dims))


def from_json(text, make_symbol, source="<symbol JSON>"):
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MXNetValueError(f"Cannot load symbol from {source}: invalid JSON ({exc})") from None
    except RecursionError:
        raise MXNetValueError(f"Cannot load symbol from {source}: JSON nested too deeply")
    return graph_from_dict(data, make_symbol, source)
