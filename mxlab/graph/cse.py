"""Common subexpression elimination: MXNet's ``EliminateCommonExpr`` pass
(``MXNET_ELIMINATE_COMMON_EXPR=1``).

Two op nodes with the same op, the same attributes and the same input entries compute the same
value unless the op mutates an input, draws random numbers or holds state, so the later one is
dropped and its readers read the first. Repeated until nothing changes; outputs that end up as
one entry more than once get ``_copy`` nodes (``<name>_<k>_copy``), so every output is its own
entry, as in MXNet.

Example
-------
>>> import mxlab as mx
>>> from mxlab.graph.passes import apply_pass
>>> a, b = mx.sym.var("a"), mx.sym.var("b")
>>> graph = apply_pass(((a + b) * (a + b)).graph, "eliminate_common_expr")
>>> sum(1 for n in graph.indexed.nodes if not n.is_variable)
2
"""
from ..ops.registry import get_op
from .graph import Graph
from .node import Entry, Node, topo_sort
from .passes import register_pass

__all__ = ["eliminate_common_expr"]


def _mergeable(node):
    op = node.op
    return (op is not None and not op.mutate_inputs and not op.is_random and not node.subgraphs
            and all(r == "temp" for r in op.resources))


def _copy_nodes(outputs):
    """A copy of the graph reaching ``outputs`` (the pass never edits the caller's nodes)."""
    mapping = {}
    for node in topo_sort(outputs):
        new = Node(node.op, node.name, dict(node.attrs), extra=node.extra,
                   subgraphs=node.subgraphs, scope=node.scope)
        new.inputs = [Entry(mapping[id(e.node)], e.index, e.version) for e in node.inputs]
        new.control_deps = [mapping[id(n)] for n in node.control_deps]
        mapping[id(node)] = new
    return [Entry(mapping[id(e.node)], e.index, e.version) for e in outputs]


def _merge_once(outputs):
    """Merge every group of equal nodes once; returns ``(outputs, merged any)``."""
    groups = {}
    for node in topo_sort(outputs):
        if node.inputs and _mergeable(node):
            key = (node.op.name, tuple((id(e.node), e.index) for e in node.inputs))
            groups.setdefault(key, []).append(node)
    replace = {}
    for nodes in groups.values():
        kept = []
        for node in nodes:
            same = next((k for k in kept if k.attrs == node.attrs), None)
            if same is None:
                kept.append(node)
            else:
                replace[id(node)] = same
                same.control_deps.extend(d for d in node.control_deps if d is not same)
    if not replace:
        return outputs, False
    for node in topo_sort(outputs):
        node.inputs = [Entry(replace.get(id(e.node), e.node), e.index, e.version)
                       for e in node.inputs]
        node.control_deps = [replace.get(id(n), n) for n in node.control_deps]
    return [Entry(replace.get(id(e.node), e.node), e.index, e.version) for e in outputs], True


@register_pass("eliminate_common_expr")
def eliminate_common_expr(graph):
    """MXNet's common subexpression elimination on a forward graph (see the module docstring)."""
    outputs, changed = _copy_nodes(graph.outputs), True
    while changed:
        outputs, changed = _merge_once(outputs)
    seen, copy_op = {}, get_op("_copy")
    for i, entry in enumerate(outputs):
        key = (id(entry.node), entry.index)
        if key not in seen:
            seen[key] = 0
            continue
        copy = Node(copy_op, f"{entry.node.name}_{seen[key]}_copy", {})
        copy.inputs = [entry]
        seen[key] += 1
        outputs[i] = Entry(copy)
    return Graph(outputs, {"pass_log": list(graph.pass_log)})
