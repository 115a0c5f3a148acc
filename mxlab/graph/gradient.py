"""The gradient pass: append the backward graph of ``ys`` with respect to ``xs`` (nnvm's Gradient).

For each forward node, in reverse topological order, the gradients reaching its outputs are summed
(:func:`aggregate_gradient`) and its op's gradient rule builds the input gradients. Rules are
written with :data:`~mxlab.ops.registry.F`; here ``F`` is dispatched on
:class:`~mxlab.graph.node.Entry`, so a rule called on entries builds graph nodes (named
``<forward node>_backward_<op><k>``).

Head gradients are placeholder variables ``<output>_head_grad`` wrapped in
``_identity_with_attr_like_rhs`` nodes ``<output>_id`` (they take the output's shape and dtype
without keeping it alive). A node chosen by the mirror policy (MXNET_BACKWARD_DO_MIRROR,
``__force_mirroring__``, or a recompute plan) is duplicated as ``<name>_mirror`` (``extra``
``__mirror_of__``) and backward reads the duplicate, so the forward value can be freed and
recomputed. Every gradient rule sees its node's inputs through the mirrors (unlike nnvm, which
remaps only mirrored nodes), so a kept checkpoint node does not keep its recomputable inputs alive.

Example
-------
>>> from mxlab.graph.node import Node, Entry
>>> from mxlab.graph.graph import Graph
>>> from mxlab.ops.registry import get_op
>>> x = Node(None, "x")
>>> g = build_gradient_graph(Graph([Entry(Node(get_op("exp"), "e", {}, [Entry(x)]))]), xs=["x"])
>>> [e.node.name for e in g.outputs]
['e', 'e_backward_broadcast_mul0']
"""
import threading

from ..base import MXNetNotImplementedError, MXNetValueError, env_int
from ..ops.registry import F, NodeView, get_op, register_dispatch
from .graph import Graph
from .node import Entry, Node, new_node_name, topo_sort
from .passes import register_pass

__all__ = ["build_gradient_graph", "aggregate_gradient", "env_mirror_policy", "mirrorable"]

_TRUE = {"true", "1"}
_ZERO_OPS = ("_zeros", "zeros_like")


# -- building nodes from entries: F dispatched on Entry --------------------------------------------
class _Scope(threading.local):
    """Naming prefix and the nodes created by the gradient rule now running (per thread)."""
    prefix = None
    counters = None
    created = None


_SCOPE = _Scope()


def _entry_node(op, inputs, attrs):
    """``F.<op>(*entries)``: a new node; its visible outputs as entries."""
    if _SCOPE.prefix is None:
        name = new_node_name(op.name)
    else:
        base = op.name.lower().lstrip("_")
        count = _SCOPE.counters.get(base, 0)
        _SCOPE.counters[base] = count + 1
        name = f"{_SCOPE.prefix}_{base}{count}"
    node = Node(op, name, attrs, inputs)
    if _SCOPE.created is not None:
        _SCOPE.created.add(id(node))
    return [Entry(node, i) for i in range(op.get_num_visible_outputs(attrs))]


register_dispatch(Entry, _entry_node)


def _named(entry, name):
    entry.node.name = name
    return entry


def _node_view(node, inputs):
    """What a gradient rule sees: the (mirrored) forward node, its inputs and outputs as entries."""
    return NodeView(node.op, node.attrs, inputs,
                    [Entry(node, i) for i in range(node.num_outputs)], node.name)


# -- mirror (recompute) ----------------------------------------------------------------------------
def env_mirror_policy():
    """MXNet's policy: ``__force_mirroring__`` forces; MXNET_BACKWARD_DO_MIRROR mirrors cheap ops.

    Random ops (Dropout) and ops that mutate inputs are never mirrored, nor, under the variable,
    ops marked ``Op.never_mirror`` (Convolution, FullyConnected, Concat, BatchNorm).
    """
    do_mirror = env_int("MXNET_BACKWARD_DO_MIRROR", 0)

    def need_mirror(node):
        if not mirrorable(node):
            return False
        if node.extra.get("__force_mirroring__", "False").lower() in _TRUE:
            return True
        return bool(do_mirror) and not node.op.never_mirror
    return need_mirror


def mirrorable(node):
    """Whether recomputing ``node`` gives the same value (an op, ``Op.mirrorable``)."""
    return not node.is_variable and node.op.mirrorable


def _mirror_map(order, need_mirror):
    """``id(node) -> <name>_mirror`` duplicates of the nodes the policy picks (inputs remapped)."""
    mirrors = {}
    for node in order:
        if node.is_variable or not need_mirror(node):
            continue
        extra = dict(node.extra, __mirror_of__=node.name)
        mirrors[id(node)] = Node(node.op, node.name + "_mirror", node.attrs,
                                 [_remap(mirrors, e) for e in node.inputs], extra,
                                 [mirrors.get(id(d), d) for d in node.control_deps],
                                 scope=node.scope)
    return mirrors


def _remap(mirrors, entry):
    node = mirrors.get(id(entry.node))
    return entry if node is None else Entry(node, entry.index)


# -- aggregation -----------------------------------------------------------------------------------
def _is_zero(entry):
    return entry.node.op is not None and entry.node.op.name in _ZERO_OPS


def _reaches(start, target):
    """Whether ``target`` is ``start`` or one of its ancestors (inputs or control deps)."""
    return any(n is target for n in topo_sort([start]))


def aggregate_gradient(grads, like=None, sum_cap=None, created=None):
    """Sum the gradient entries reaching one forward entry, MXNet's ``AggregateGradient``.

    Empty -> ``zeros_like(like)`` ("zeros"); zero entries are dropped (one kept); one left ->
    itself; fewer than ``sum_cap`` (MXNET_EXEC_INPLACE_GRAD_SUM_CAP, default 8) -> one
    ``ElementWiseSum`` "sum_grad"; else a chain of ``_grad_add`` "sum_grad_1".. ending in
    ``identity`` "sum_grad_final", where each addend's producer runs after the running sum (a
    control dependency), so sums go in reverse forward order and can become add-to writes.
    ``created`` (ids of nodes this pass built) limits which producers get control dependencies.
    """
    if not grads:
        if like is None:
            raise MXNetValueError("aggregate_gradient: no gradients and no entry for the shape")
        return _named(F.zeros_like(like), "zeros")
    kept = [g for g in grads if not _is_zero(g)] or grads[:1]
    if len(kept) == 1:
        return kept[0]
    cap = env_int("MXNET_EXEC_INPLACE_GRAD_SUM_CAP", 8) if sum_cap is None else sum_cap
    if len(kept) < cap:
        return _named(F.ElementWiseSum(*kept, num_args=len(kept)), "sum_grad")
    total = kept[0]
    for i in range(1, len(kept)):
        producer = kept[i].node
        ours = created is None or id(producer) in created
        if producer is not kept[i - 1].node and ours and not _reaches(total.node, producer):
            producer.control_deps.append(total.node)
        total = _named(F._grad_add(total, kept[i]), f"sum_grad_{i}")
    return _named(F.identity(total), "sum_grad_final")


# -- the pass --------------------------------------------------------------------------------------
def _resolve_xs(graph, xs):
    """Entries for ``xs`` (entries, nodes or variable names); default: every non-aux input."""
    idx = graph.indexed
    if xs is None:
        return [Entry(idx[n].node) for n in idx.input_nodes if n not in idx.mutable_input_nodes]
    by_name = {idx[n].name: idx[n].node for n in idx.input_nodes}
    resolved = []
    for x in xs:
        if isinstance(x, str):
            if x not in by_name:
                raise MXNetValueError(f"build_gradient: '{x}' is not an input of the graph; "
                                      f"inputs: {sorted(by_name)}")
            x = by_name[x]
        resolved.append(x if isinstance(x, Entry) else Entry(x))
    return resolved


def _head_gradients(ys):
    """``<output>_head_grad`` variables wrapped as ``<output>_id`` nodes (attrs like the output)."""
    heads = []
    for y in ys:
        out_name = y.node.output_names()[y.index]
        var = Node(None, f"{out_name}_head_grad")
        like = get_op("_identity_with_attr_like_rhs")
        heads.append(Entry(Node(like, f"{out_name}_id", {}, [Entry(var), y])))
    return heads


class _Gradients:
    """Gradient contributions per forward entry, and their sums (each built once, when needed)."""

    def __init__(self, sum_cap):
        self.sum_cap, self.created = sum_cap, set()
        self.parts, self.sums = {}, {}

    @staticmethod
    def key(entry):
        return id(entry.node), entry.index

    def add(self, entry, grad):
        self.parts.setdefault(self.key(entry), []).append(grad)

    def has_any(self, node):
        return any(self.parts.get((id(node), i)) for i in range(node.num_outputs))

    def total(self, entry):
        """The aggregated gradient of ``entry`` (zeros when nothing reached it)."""
        key = self.key(entry)
        if key not in self.sums:
            parts = list(self.parts.get(key, []))
            self.sums[key] = aggregate_gradient(parts, entry, self.sum_cap, self.created)
        return self.sums[key]


def _backward_node(node, mirrors, grads):
    """Sum the output gradients of ``node`` and add its input gradients to ``grads``."""
    if not grads.has_any(node):
        return
    if node.op.gradient is None:
        raise MXNetNotImplementedError(
            f"Operator {node.op.name} is non-differentiable because it didn't register FGradient "
            f"attribute (node '{node.name}').")
    out_grads = [grads.total(Entry(node, i)) for i in range(node.num_outputs)]
    view = _node_view(mirrors.get(id(node), node), [_remap(mirrors, e) for e in node.inputs])
    _SCOPE.prefix, _SCOPE.counters = f"{node.name}_backward", {}
    try:
        in_grads = node.op.gradient(view, out_grads)
    finally:
        _SCOPE.prefix = None
    if len(in_grads) != len(node.inputs):
        raise MXNetValueError(f"gradient of {node.op.name} (node '{node.name}') returned "
                              f"{len(in_grads)} entries for {len(node.inputs)} inputs")
    for e, g in zip(node.inputs, in_grads):
        if g is not None:
            grads.add(e, g)


def _gradient_visit_order(order, xs, num_forward):
    """Output positions: forward outputs, then the gradients of the inputs used last first.

    The topological sort visits outputs in this order, so each layer's gradients are computed as
    soon as the backward sweep reaches it and its temporaries die early.
    """
    pos = {id(n): i for i, n in enumerate(order)}
    first_use = {}
    for n in order:
        for e in n.inputs:
            first_use.setdefault(id(e.node), pos[id(n)])
    grads = sorted(range(len(xs)), key=lambda i: -first_use.get(id(xs[i].node), -1))
    return list(range(num_forward)) + [num_forward + i for i in grads]


def build_gradient_graph(graph, xs=None, ys=None, head_grads=None, sum_cap=None, mirror=None,
                         copy_op="_copy"):
    """Forward outputs followed by the gradient of ``ys`` with respect to each of ``xs``.

    Parameters
    ----------
    graph : Graph
        The forward graph.
    xs : list of str, Node or Entry, optional
        What to differentiate with respect to: variables (by name or node) or any entry
        (default: every input but auxiliary states).
    ys : list of Entry, optional
        Outputs to differentiate (default: ``graph.outputs``).
    head_grads : list of Entry, optional
        Gradients of ``ys``; default: placeholder variables ``<output>_head_grad`` (see module doc).
    sum_cap : int, optional
        Overrides MXNET_EXEC_INPLACE_GRAD_SUM_CAP.
    mirror : callable(Node) -> bool, or collection of node names, optional
        Which forward nodes to recompute in backward; default :func:`env_mirror_policy`.
    copy_op : str
        Op inserted when two inputs would share one gradient entry.

    Returns
    -------
    Graph
        ``outputs`` = forward outputs + one gradient per x; attrs ``num_forward_outputs``, ``xs``
        (names), ``head_grad_nodes`` (placeholder variables), ``mirrored`` (names of recomputed
        nodes), ``visit_order``.
    """
    ys = list(graph.outputs if ys is None else ys)
    xs = _resolve_xs(graph, xs)
    heads = _head_gradients(ys) if head_grads is None else list(head_grads)
    if len(heads) != len(ys):
        raise MXNetValueError(f"build_gradient: {len(heads)} head gradients for {len(ys)} outputs")
    order = topo_sort(ys)
    mirrors = _mirror_map(order, _mirror_policy(mirror))
    grads = _Gradients(sum_cap)
    for y, head in zip(ys, heads):
        grads.add(y, head)
    _SCOPE.created = grads.created
    try:
        for node in reversed(order):
            if not node.is_variable:
                _backward_node(node, mirrors, grads)
        x_grads = _input_gradients(xs, grads, copy_op)
    finally:
        _SCOPE.created = None
    num_forward = len(graph.outputs)
    # NOTE: per-entry attributes of the forward graph do not apply to the new numbering.
    return Graph(list(graph.outputs) + x_grads, {
        "pass_log": list(graph.pass_log), "num_forward_outputs": num_forward,
        "xs": [x.node.name for x in xs],
        "head_grad_nodes": [h.node.inputs[0].node for h in heads] if head_grads is None else [],
        "mirrored": [n.name for n in order if id(n) in mirrors],
        "visit_order": _gradient_visit_order(topo_sort(graph.outputs), xs, num_forward)})


def _input_gradients(xs, grads, copy_op):
    """One gradient entry per x; an entry already given to another x is copied (``copy_op``)."""
    result, seen = [], set()
    for x in xs:
        g = grads.total(x)
        if grads.key(g) in seen:
            g = _named(getattr(F, copy_op)(g), f"{x.node.name}_grad_copy")
        seen.add(grads.key(g))
        result.append(g)
    return result


def _mirror_policy(mirror):
    if mirror is None:
        return env_mirror_policy()
    if callable(mirror):
        return mirror
    names = frozenset(mirror)
    return lambda node: node.name in names and mirrorable(node)


@register_pass("build_gradient", provides=("num_forward_outputs", "xs", "head_grad_nodes",
                                           "mirrored", "visit_order"))
def build_gradient(graph, xs=None, **options):
    """Pass form of :func:`build_gradient_graph`; a ``recompute_plan`` attribute (the
    ``plan_recompute`` pass) chooses the mirrored nodes unless ``mirror`` is given."""
    plan = graph.attrs.get("recompute_plan")
    if plan is not None and options.get("mirror") is None:
        options["mirror"] = plan.mirrored
    result = build_gradient_graph(graph, xs=xs, **options)
    if plan is not None:
        result.attrs["recompute_plan"] = plan
    return result
