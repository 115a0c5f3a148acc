"""Validation of a parsed MXNet symbol JSON document before any node is built.

A symbol file comes from outside (a model zoo, another framework, a hand edit), so everything read
is checked: the document and node records are objects with the required keys (``nodes``,
``heads``; ``op``, ``name``), attribute maps hold strings, entries are ``[node, index(, version)]``
of non-negative integers with the node id in range (Python's negative indexing would silently
rewire the graph), and names are valid Unicode. :func:`check_acyclic` runs once the nodes exist.
Errors are :class:`~mxlab.base.MXNetValueError` naming the source, the node (or key) and what was
expected.

Example
-------
>>> check_graph_dict({"nodes": [{"op": "null", "name": "x", "inputs": []}], "heads": [[0, 0]]},
...                  "net.json")
>>> check_graph_dict({"nodes": [], "heads": [[-1, 0]]}, "net.json")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
mxlab.base.MXNetValueError: Cannot load symbol from net.json: heads[0]: node id -1 is out of ...
"""
from ..base import MXNetValueError

__all__ = ["check_graph_dict", "check_acyclic", "check_output_indices"]

_ATTR_KEYS = ("param", "attr", "attrs")


def _fail(source, where, what):
    raise MXNetValueError(f"Cannot load symbol from {source}: {where}: {what}")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _check_type(value, kind, source, where, expected):
    if not isinstance(value, kind):
        _fail(source, where, f"expected {expected}, got {type(value).__name__} {value!r:.60}")


def _check_text(value, source, where):
    _check_type(value, str, source, where, "a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        _fail(source, where, f"{value!r:.60} is not valid Unicode text")


def _check_entry(entry, count, source, where, control=False):
    """``[node, index(, version)]`` (or a bare node id for control deps) with the node in range."""
    if control:
        entry = [entry, 0]
    _check_type(entry, list, source, where, "an entry [node_id, output_index(, version)]")
    if len(entry) not in (2, 3) or not all(_is_int(v) for v in entry):
        _fail(source, where, f"expected [node_id, output_index(, version)] of integers, got "
                             f"{entry!r:.60}")
    if not 0 <= entry[0] < count:
        _fail(source, where, f"node id {entry[0]} is out of range (expected 0 <= id < {count})")
    if any(v < 0 for v in entry[1:]):
        _fail(source, where, f"output index and version must be >= 0, got {entry!r:.60}")


def _check_node(record, i, count, source):
    where = f"node {i}"
    _check_type(record, dict, source, where, "an object")
    for key in ("op", "name"):
        if key not in record:
            _fail(source, where, f"missing required key '{key}'")
        _check_text(record[key], source, f"{where} '{key}'")
    where = f"node {i} ('{record['name']}')"
    for key in _ATTR_KEYS:
        attrs = record.get(key)
        if attrs is None:
            continue
        _check_type(attrs, dict, source, f"{where} '{key}'", "an object of strings")
        for name, value in attrs.items():
            _check_text(name, source, f"{where} '{key}'")
            _check_type(value, (str, int, float), source, f"{where} '{key}.{name}'", "a string")
    inputs = record.get("inputs", [])
    _check_type(inputs, list, source, f"{where} 'inputs'", "a list of entries")
    for k, entry in enumerate(inputs):
        _check_entry(entry, count, source, f"{where} input {k}")
    deps = record.get("control_deps", [])
    _check_type(deps, list, source, f"{where} 'control_deps'", "a list of node ids")
    for k, dep in enumerate(deps):
        _check_entry(dep, count, source, f"{where} control_deps[{k}]", control=True)
    subgraphs = record.get("subgraphs", [])
    _check_type(subgraphs, list, source, f"{where} 'subgraphs'", "a list of graphs")
    for k, sub in enumerate(subgraphs):
        check_graph_dict(sub, f"{source} ({where} subgraph {k})")


def check_graph_dict(data, source):
    """Raise a clear error for anything in a parsed symbol document a loader cannot trust."""
    _check_type(data, dict, source, "top level", "a JSON object with 'nodes' and 'heads'")
    for key in ("nodes", "heads"):
        if key not in data:
            _fail(source, "top level", f"missing required key '{key}' (not an MXNet symbol file?)")
        _check_type(data[key], list, source, f"'{key}'", "a list")
    count = len(data["nodes"])
    for i, record in enumerate(data["nodes"]):
        _check_node(record, i, count, source)
    if not data["heads"]:
        _fail(source, "'heads'", "expected at least one output entry")
    for k, head in enumerate(data["heads"]):
        _check_entry(head, count, source, f"heads[{k}]")
    for key in ("arg_nodes", "node_row_ptr"):
        values = data.get(key, [])
        _check_type(values, list, source, f"'{key}'", "a list of integers")
        if not all(_is_int(v) and v >= 0 for v in values):
            _fail(source, f"'{key}'", "expected non-negative integers")
    attrs = data.get("attrs", {})
    _check_type(attrs, dict, source, "'attrs'", "an object")
    version = attrs.get("mxnet_version", ["int", 0])
    if not (isinstance(version, list) and len(version) == 2 and _is_int(version[1])):
        _fail(source, "'attrs.mxnet_version'",
              f"expected [\"int\", <version>], got {version!r:.60}")


def check_acyclic(nodes, source):
    """Every node's inputs and control deps lead back to variables (no cycle, no self-loop)."""
    state = {}
    for root in nodes:
        if id(root) in state:
            continue
        stack = [(root, iter(_deps(root)))]
        state[id(root)] = "open"
        while stack:
            node, deps = stack[-1]
            nxt = next(deps, None)
            if nxt is None:
                state[id(node)] = "done"
                stack.pop()
            elif state.get(id(nxt)) == "open":
                _fail(source, f"node '{nxt.name}'", f"is part of a cycle (through "
                                                    f"'{node.name}'); a graph must be acyclic")
            elif id(nxt) not in state:
                state[id(nxt)] = "open"
                stack.append((nxt, iter(_deps(nxt))))


def _deps(node):
    return [e.node for e in node.inputs] + list(node.control_deps)


def check_output_indices(nodes, heads, source):
    """Every entry reads an output its node has."""
    def check(entry, where):
        node = entry.node
        # NOTE: a subgraph op's outputs are its subgraph's (before restore_subgraph_ops its op
        #   is a placeholder)
        count = len(node.subgraphs[0]._outputs) if node.subgraphs else node.num_outputs
        if entry.index >= count:
            _fail(source, where, f"reads output {entry.index} of node '{node.name}', which has "
                                 f"{count} output{'s' if count != 1 else ''}")
    for node in nodes:
        for k, entry in enumerate(node.inputs):
            check(entry, f"node '{node.name}' input {k}")
    for k, entry in enumerate(heads):
        check(entry, f"heads[{k}]")
