"""The ``partition_graph`` pass: replace the subgraphs a backend selects by subgraph nodes
(MXNet's ``PartitionGraph``, src/operator/subgraph/partition_graph.cc).

Steps, as in MXNet:

1. Number every input slot and graph output in post-order DFS from the outputs (keeps the
   order of boundary inputs and outputs, hence ``list_inputs()``, unchanged).
2. For each node in topological order, with a new selector: if ``select(node)`` and the node is
   unlabelled, grow a subgraph by BFS (``select_input`` / ``select_output``), recording the outside
   nodes that feed it or consume from it.
3. A direct loop (an outside node both consuming from and feeding the set) or an indirect one (an
   outside consumer that is an ancestor of an outside feeder) excludes the topologically latest
   subgraph node involved (the other one when that is the seed) and retries.
4. ``filter`` the candidates (never add), reset labels of dropped nodes, split the rest into
   connected components: each is a subgraph with the next id.
5. Collapse each subgraph: boundary input entries become variables ``<entry name><k>``, one output
   per consuming slot plus graph outputs (no dedup) sorted by slot order, consumers rewired.

The input graph is copied first; the result is a new graph whose ``attrs["partition"]`` is a
:class:`Partition` (which node went where, boundaries, exclusions and why) for the notebook.

Example
-------
>>> import mxlab as mx
>>> from mxlab.subgraph.partition import partition_symbol
>>> x = mx.sym.var('data')
>>> e = mx.sym.exp(x, name='e')
>>> y = mx.sym.elemwise_add(mx.sym.cos(e, name='c'), mx.sym.sin(e, name='s'), name='add')
>>> sym, part = partition_symbol(y, 'default', op_names=['exp', 'sin', 'elemwise_add'])
>>> part.subgraphs
[['e', 's'], ['add']]
"""
import collections
import dataclasses
import logging

from ..base import MXNetNotImplementedError, MXNetValueError
from ..graph.graph import Graph
from ..graph.node import Entry, Node, topo_sort
from ..graph.passes import apply_pass, register_pass
from .registry import create_property

__all__ = ["Partition", "Exclusion", "partition_graph", "partition_symbol", "partition_entries"]

_LOG = logging.getLogger(__name__)


@dataclasses.dataclass
class Exclusion:
    """A retry of the BFS from ``seed`` after a cycle: the nodes excluded so far, and the log
    line."""
    seed: str
    excluded: list
    message: str


@dataclasses.dataclass
class Partition:
    """What ``partition_graph`` did.

    Attributes
    ----------
    backend : str
    subgraphs : list of list of str
        Original node names of each subgraph (by subgraph id), topologically sorted.
    nodes : list of str
        Name of the node replacing each subgraph.
    inputs : list of list of str
        Outside entries feeding each subgraph (``node[index]``), in subgraph input order.
    outputs : list of list of str
        Where each subgraph output goes: ``consumer.inputs[slot]`` or ``output[i]``.
    exclusions : list of Exclusion
    """
    backend: str
    subgraphs: list = dataclasses.field(default_factory=list)
    nodes: list = dataclasses.field(default_factory=list)
    inputs: list = dataclasses.field(default_factory=list)
    outputs: list = dataclasses.field(default_factory=list)
    exclusions: list = dataclasses.field(default_factory=list)

    def subgraph_of(self, name):
        """Subgraph id of the original node ``name``; None when it stayed outside."""
        return next((i for i, names in enumerate(self.subgraphs) if name in names), None)

    def __str__(self):
        lines = [f"partition by '{self.backend}': {len(self.subgraphs)} subgraph(s)"]
        for i, names in enumerate(self.subgraphs):
            lines.append(f"  {self.nodes[i]}: {', '.join(names)}  <- {', '.join(self.inputs[i])}"
                         f"  -> {', '.join(self.outputs[i])}")
        lines += [f"  {x.message}" for x in self.exclusions]
        return "\n".join(lines)


class _State:
    """The graph seen by the partitioner: nodes in DFS order, consumers and labels by node id."""

    def __init__(self, heads):
        self.order = topo_sort(heads)
        self.nid = {id(n): i for i, n in enumerate(self.order)}
        self.labels = [-1] * len(self.order)
        # per node id: id(consumer) -> (consumer node, input slots reading the node)
        self.consumers = [{} for _ in self.order]
        for node in self.order:
            if node.control_deps:
                raise MXNetNotImplementedError(
                    f"partition_graph: node '{node.name}' has control dependencies, which "
                    f"partitioning does not support")
            for slot, e in enumerate(node.inputs):
                users = self.consumers[self.nid[id(e.node)]]
                users.setdefault(id(node), (node, []))[1].append(slot)

    def name(self, nid):
        return self.order[nid].name

    def label_of(self, node):
        """Label of an original node; None for a node created by collapsing."""
        nid = self.nid.get(id(node))
        return None if nid is None else self.labels[nid]


def _entry_order(heads):
    """Position of every input slot ``(id(node), slot)`` and graph output ``("out", i)`` in
    post-order DFS (MXNet's ``TopSortEntries``)."""
    order, visited = {}, set()

    def mark(ref):
        order.setdefault(ref, len(order))

    for i, head in enumerate(heads):
        if id(head.node) in visited:
            mark(("out", i))
            continue
        visited.add(id(head.node))
        stack = [[head.node, 0, ("out", i)]]
        while stack:
            top = stack[-1]
            node, pos = top[0], top[1]
            if pos == len(node.inputs):
                mark(top[2])
                stack.pop()
                continue
            top[1] += 1
            child, ref = node.inputs[pos].node, (id(node), pos)
            if id(child) in visited:
                mark(ref)
            else:
                visited.add(id(child))
                stack.append([child, 0, ref])
    return order


# -- finding subgraphs -----------------------------------------------------------------------------
def _is_ancestor(state, ancestor, descendant, members):
    """Whether ``ancestor`` reaches ``descendant`` along paths avoiding subgraph ``members``."""
    stack, seen = [descendant], set()
    while stack:
        top = stack.pop()
        if top == ancestor:
            return True
        if top in seen:
            continue
        seen.add(top)
        for e in state.order[top].inputs:
            nid = state.nid[id(e.node)]
            if nid not in members:
                stack.append(nid)
    return False


def _bfs(state, selector, label, seed, excluded):
    """Label the nodes reachable from ``seed``; returns (members in BFS order, boundary map).

    Boundary: outside node id -> (subgraph nodes reading it, subgraph nodes it reads).
    """
    members, boundary = [], collections.defaultdict(lambda: ([], []))
    queue = collections.deque()
    if seed not in excluded:
        state.labels[seed] = label
        queue.append(seed)
    while queue:
        cur = queue.popleft()
        members.append(cur)
        node = state.order[cur]
        for e in node.inputs:
            nid = state.nid[id(e.node)]
            if nid not in excluded and selector.select_input(node, e.node):
                if state.labels[nid] == -1:
                    state.labels[nid] = label
                    queue.append(nid)
            else:
                boundary[nid][0].append(cur)
        for consumer, _slots in state.consumers[cur].values():
            nid = state.nid[id(consumer)]
            if nid not in excluded and selector.select_output(node, consumer):
                if state.labels[nid] == -1:
                    state.labels[nid] = label
                    queue.append(nid)
            else:
                boundary[nid][1].append(cur)
    return members, boundary


def _node_to_exclude(state, members, boundary, seed):
    """The subgraph node breaking a loop between the set and outside nodes, or -1.

    Each loop leaves the set at a feeder and comes back at a reader; the later of the two is
    excluded, or the other one when the later is the seed (the seed must stay: a residual
    pattern seeded at its join node would otherwise be a false cycle error).
    """
    outside = sorted(boundary)
    member_set = set(members)
    exclude = -1

    def breaker(*pair):
        return max(n for n in pair if n != seed)

    for i, ext in enumerate(outside):
        readers, feeders = (sorted(x) for x in boundary[ext])
        if readers and feeders:
            exclude = max(exclude, breaker(readers[-1], feeders[-1]))
        elif feeders:
            for later in outside[i + 1:]:
                later_readers = sorted(boundary[later][0])
                if later_readers and _is_ancestor(state, ext, later, member_set):
                    exclude = max(exclude, breaker(feeders[-1], later_readers[-1]))
    return exclude


def _label_subgraph(state, selector, label, seed, excluded):
    """One BFS attempt; returns the sorted members, or None after excluding a node."""
    members, boundary = _bfs(state, selector, label, seed, excluded)
    exclude = _node_to_exclude(state, members, boundary, seed)
    if exclude == -1:
        return sorted(members)
    excluded.add(exclude)
    for nid in members:
        state.labels[nid] = -1
    return None


def _preselect(state, selector, label, seed, exclusions):
    """Candidates grown from ``seed``, retrying while cycles force exclusions."""
    excluded = set()
    for _ in range(len(state.order) ** 2):
        members = _label_subgraph(state, selector, label, seed, excluded)
        if members is not None:
            return members
        names = ", ".join(state.name(n) for n in sorted(excluded))
        message = (f"Found a cycle when BFS from node {state.name(seed)}. Excluding nodes "
                   f"{names}, and retrying")
        _LOG.info(message)
        exclusions.append(Exclusion(state.name(seed), [state.name(n) for n in sorted(excluded)],
                                    message))
    message = (f"Tried {len(state.order) ** 2} times of finding subgraphs starting from node "
               f"{state.name(seed)} without success because a loop is always found between the "
               f"subgraph and some other nodes. Will treat seed node {state.name(seed)} as a "
               f"subgraph with one node")
    _LOG.info(message)
    exclusions.append(Exclusion(state.name(seed), [], message))
    state.labels[seed] = label
    return [seed]


def _filtered(state, selector, candidates):
    """``selector.filter`` on candidate nodes, checked to add nothing; returns sorted node ids."""
    kept = selector.filter([state.order[n] for n in candidates])
    allowed = set(candidates)
    ids = []
    for node in kept:
        nid = state.nid.get(id(node))
        if nid not in allowed:
            raise MXNetValueError(f"Node {node.name} is not found in the pre-selected subgraph "
                                  f"nodes. Please make sure that no new nodes were added in your "
                                  f"subgraph selector's Filter function")
        ids.append(nid)
    return sorted(set(ids))


def _components(state, nodes, next_id):
    """Split ``nodes`` into connected components, labelled ``next_id``, ``next_id + 1``, ..."""
    left, components = set(nodes), []
    for start in nodes:
        if start not in left:
            continue
        left.discard(start)
        label = next_id + len(components)
        state.labels[start] = label
        component, queue = [start], collections.deque([start])
        while queue:
            cur = queue.popleft()
            neighbours = [state.nid[id(e.node)] for e in state.order[cur].inputs]
            neighbours += [state.nid[id(c)] for c, _ in state.consumers[cur].values()]
            for nid in neighbours:
                if nid in left:
                    left.discard(nid)
                    state.labels[nid] = label
                    component.append(nid)
                    queue.append(nid)
        components.append(sorted(component))
    return components


def _find_subgraphs(state, prop, exclusions):
    subgraphs = []
    for nid, node in enumerate(state.order):
        selector = prop.create_subgraph_selector()
        if not selector.select(node) or state.labels[nid] != -1:
            continue
        candidates = _preselect(state, selector, len(subgraphs), nid, exclusions)
        kept = _filtered(state, selector, candidates)
        for n in set(candidates) - set(kept):
            state.labels[n] = -1
        subgraphs += _components(state, kept, len(subgraphs))
    return subgraphs


# -- collapsing ------------------------------------------------------------------------------------
class _Slots:
    """Reading and writing input slots ``(id(node), slot)`` and graph outputs ``("out", i)``."""

    def __init__(self, heads):
        self.heads = heads
        self.nodes = {}

    def ref(self, node, slot):
        self.nodes[id(node)] = node
        return (id(node), slot)

    def get(self, ref):
        return self.heads[ref[1]] if ref[0] == "out" else self.nodes[ref[0]].inputs[ref[1]]

    def set(self, ref, entry):
        if ref[0] == "out":
            self.heads[ref[1]] = entry
        else:
            self.nodes[ref[0]].inputs[ref[1]] = entry

    def describe(self, ref):
        return f"output[{ref[1]}]" if ref[0] == "out" else \
            f"{self.nodes[ref[0]].name}.inputs[{ref[1]}]"


def _boundary_inputs(state, group, label, slots, order):
    refs = []
    for nid in group:
        node = state.order[nid]
        refs += [slots.ref(node, j) for j, e in enumerate(node.inputs)
                 if state.label_of(e.node) != label]
    return sorted(refs, key=order.__getitem__)


def _boundary_outputs(state, group, label, slots, order):
    refs = []
    for nid in group:
        for consumer, consumer_slots in state.consumers[nid].values():
            if state.label_of(consumer) != label:
                refs += [slots.ref(consumer, j) for j in consumer_slots]
    refs += [("out", i) for i, e in enumerate(slots.heads) if state.label_of(e.node) == label]
    return sorted(refs, key=order.__getitem__)


def _cut_inputs(refs, slots):
    """Replace each boundary input by a new variable ``<entry name><k>``; returns the old
    entries."""
    counts, originals = {}, []
    for ref in refs:
        entry = slots.get(ref)
        originals.append(entry)
        base = entry.node.output_names()[entry.index]
        counts[base] = counts.get(base, -1) + 1
        slots.set(ref, Entry(Node(None, f"{base}{counts[base]}")))
    return originals


def _collapse(state, group, label, prop, slots, order, cls):
    """Replace subgraph ``label`` by one node; returns (node, input labels, output
    descriptions)."""
    in_refs = _boundary_inputs(state, group, label, slots, order)
    originals = _cut_inputs(in_refs, slots)
    out_refs = _boundary_outputs(state, group, label, slots, order)
    node = prop.create_subgraph_node(cls([slots.get(r) for r in out_refs]), label)
    for k, ref in enumerate(out_refs):
        slots.set(ref, Entry(node, k))
    node.inputs = originals
    members = {id(state.order[n]) for n in group}
    for k, (ref, entry) in enumerate(zip(in_refs, originals)):
        order[slots.ref(node, k)] = order[ref]
        src = state.nid.get(id(entry.node))
        if src is not None:
            users = state.consumers[src]
            for key in [key for key in users if key in members]:
                del users[key]
            users.setdefault(id(node), (node, []))[1].append(k)
    return node, [repr(e) for e in originals], [slots.describe(r) for r in out_refs]


def partition_entries(heads, prop, backend="", cls=None):
    """Partition the graph reaching ``heads`` (entries; the nodes are copied first).

    Returns ``(new heads, Partition)``. ``cls`` wraps inner graphs (default: ``Symbol``).
    """
    from ..symbol.compose import copy_graph
    from ..symbol.symbol import Symbol

    heads = copy_graph(list(heads))
    state = _State(heads)
    order = _entry_order(heads)
    result = Partition(backend)
    groups = _find_subgraphs(state, prop, result.exclusions)
    slots = _Slots(heads)
    for label, group in enumerate(groups):
        node, ins, outs = _collapse(state, group, label, prop, slots, order, cls or Symbol)
        result.subgraphs.append([state.name(n) for n in group])
        result.nodes.append(node.name)
        result.inputs.append(ins)
        result.outputs.append(outs)
    return heads, result


@register_pass("partition_graph", provides=("partition",))
def partition_graph(graph, backend="default", prop=None, cls=None, **options):
    """The pass: ``graph`` partitioned by ``prop`` (or a new property of ``backend`` with
    ``options``); the result's ``attrs["partition"]`` is the :class:`Partition`. ``cls`` wraps
    inner graphs (default: ``Symbol``)."""
    prop = prop or create_property(backend, **options)
    heads, partition = partition_entries(graph.outputs, prop, backend, cls)
    attrs = {k: v for k, v in graph.attrs.items() if k in ("pass_log", "num_forward_outputs")}
    return Graph(heads, dict(attrs, pass_log=list(graph.pass_log), partition=partition))


def partition_symbol(sym, backend="default", prop=None, **options):
    """``(partitioned symbol, Partition)`` for a symbol (same class as ``sym``), through the
    ``partition_graph`` pass: the result's :attr:`~mxlab.sym.Symbol.graph` keeps its record."""
    graph = apply_pass(sym.graph, "partition_graph", backend=backend, prop=prop, cls=type(sym),
                       **options)
    return type(sym).from_graph(graph), graph.attrs["partition"]
