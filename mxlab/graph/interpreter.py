"""Interpreters: the graph walk they share (:func:`interpret`), running a graph plainly
(:func:`run_graph`) or inside a memory plan (:func:`run_planned`).

:func:`interpret` is the template: nodes in topological order, a variable bound by one callback,
an op node run by another. ``Symbol.eval`` (``mxlab.symbol.evaluate``: imperative calls, so
autograd records them) and :func:`evaluate` (kernels on raw arrays) are built on it. The planned
runners keep their own loops: :func:`run_planned` walks node ids to retire and poison blocks, the
runtime's ``Program`` compiles node ranges into bulk segments, and deferred compute evaluates on
demand, from the array asked for back to what it needs.

``run_planned`` allocates one byte buffer per storage block, views each entry into its block, runs
every node with ``op.forward(xp, inputs, attrs, outs=buffers, reqs=requests)`` and, when ``poison``
is on, fills a block with 0xFF bytes (NaN for floats) as soon as no live entry uses it, so a read of
freed memory shows up in the results. It is the seed of the executors: small, one loop, no engine.

Example
-------
>>> import numpy
>>> from mxlab.graph.node import Node, Entry
>>> from mxlab.graph.graph import Graph
>>> from mxlab.ops.registry import get_op
>>> x = Node(None, "x")
>>> g = Graph([Entry(Node(get_op("negative"), "n", {}, [Entry(x)]))])
>>> run_graph(g, {"x": numpy.arange(3.0)})
[array([-0., -1., -2.])]
"""
import numpy

from ..base import MXNetValueError
from ..ops.registry import run_kernel
from .memory import EXTERNAL_STORAGE, value_readers
from .node import topo_sort

__all__ = ["interpret", "run_graph", "run_planned", "evaluate", "bind_inputs", "POISON_BYTE"]

POISON_BYTE = 0xFF


def bind_inputs(idx, inputs):
    """``{entry id: array}`` for the variables, from a dict by name or a list in input order."""
    names = [idx[nid].name for nid in idx.input_nodes]
    if not isinstance(inputs, dict):
        if len(inputs) != len(names):
            raise MXNetValueError(f"expected {len(names)} inputs {names}, got {len(inputs)}")
        inputs = dict(zip(names, inputs))
    missing = [name for name in names if name not in inputs]
    if missing:
        raise MXNetValueError(f"missing values for graph inputs {missing}")
    return {idx.node_row_ptr[nid]: inputs[idx[nid].name] for nid in idx.input_nodes}


def interpret(heads, variable, apply, missing=None):
    """The graph walk every plain interpreter is built on.

    Visits the nodes reaching ``heads`` (entries) in topological order: a variable's value is
    ``variable(node)``, an op node's outputs ``apply(node, input values)``. An input whose
    producer gave fewer outputs calls ``missing(node, entry)`` (which should raise). Returns
    ``{(node, index): value}``.
    """
    values = {}
    for node in topo_sort(heads):
        if node.op is None:
            values[(node, 0)] = variable(node)
            continue
        inputs = []
        for e in node.inputs:
            key = (e.node, e.index)
            if key not in values and missing is not None:
                missing(node, e)
            inputs.append(values[key])
        for i, value in enumerate(apply(node, inputs)):
            values[(node, i)] = value
    return values


def evaluate(graph, inputs, xp=numpy):
    """Every entry's value (list by entry id), each node computed into fresh arrays."""
    idx = graph.indexed
    bound = bind_inputs(idx, inputs)
    values = interpret(graph.outputs, lambda node: bound[idx.entry_id(node, 0)],
                       lambda node, ins: run_kernel(node.op, xp, ins, node.attrs))
    return [values.get((n.node, i)) for n in idx.nodes for i in range(n.node.num_outputs)]


def run_graph(graph, inputs, xp=numpy):
    """The graph outputs, computed without a memory plan."""
    values = evaluate(graph, inputs, xp)
    return [values[eid] for eid in graph.indexed.outputs]


class _Buffers:
    """Pool blocks, entry views, and which live entries hold each block (for poisoning)."""

    def __init__(self, plan, xp, poison):
        self.plan, self.xp, self.poison = plan, xp, poison
        self.blocks = [xp.full(b.nbytes, POISON_BYTE, dtype=numpy.uint8) for b in plan.blocks]
        self.live = [set() for _ in plan.blocks]
        self.values = [None] * len(plan.entries)

    def view(self, eid):
        entry = self.plan.entries[eid]
        block = self.blocks[entry.storage_id]
        return block[:entry.nbytes].view(entry.dtype).reshape(entry.shape)

    def output_buffer(self, eid):
        """The array an op writes entry ``eid`` into; None when the op makes its own."""
        entry = self.plan.entries[eid]
        if entry.storage_id >= 0:
            return self.view(eid)
        if entry.storage_id == EXTERNAL_STORAGE:
            return self.xp.empty(entry.shape, dtype=entry.dtype)
        # NOTE: dynamic (-3) and unplanned (-1: shape unknown before running) entries.
        return None

    def produced(self, eid, value):
        self.values[eid] = value
        entry = self.plan.entries[eid]
        if entry.storage_id >= 0 and entry.request != "null":
            self.live[entry.storage_id].add(eid)

    def retire(self, eid):
        """``eid`` has no readers left: drop it; poison its block when nothing else lives there."""
        entry = self.plan.entries[eid]
        if entry.is_output or entry.storage_id < 0:
            return
        self.live[entry.storage_id].discard(eid)
        if self.poison and not self.live[entry.storage_id]:
            self.blocks[entry.storage_id].fill(POISON_BYTE)


def _run_node(n, buffers, idx, reqs, xp):
    eids = idx.output_entries(n.nid)
    ins = [buffers.values[e] for e in n.inputs]
    outs = [buffers.output_buffer(e) for e in eids]
    if any(o is None for o in outs):
        results = run_kernel(n.op, xp, ins, n.node.attrs)
    else:
        results = run_kernel(n.op, xp, ins, n.node.attrs, outs, [reqs[e] for e in eids])
    for eid, value in zip(eids, results):
        buffers.produced(eid, value)


def _retire_schedule(idx):
    """For each node id, the entries whose last value reader it is."""
    schedule = [[] for _ in range(idx.num_nodes)]
    for eid, readers in enumerate(value_readers(idx)):
        if readers:
            schedule[max(readers)].append(eid)
    return schedule


def run_planned(graph, plan, inputs, xp=numpy, poison=True):
    """Run ``graph`` in the storage of ``plan`` (a :class:`~mxlab.graph.memory.MemoryPlan`).

    Returns copies of the outputs. Skipped plus nodes (add-to) are not run: their output block
    already holds the sum.
    """
    idx = graph.indexed
    if len(plan.entries) != idx.num_entries:
        raise MXNetValueError(f"run_planned: the plan has {len(plan.entries)} entries but the "
                              f"graph has {idx.num_entries}; plan this graph first")
    buffers = _Buffers(plan, xp, poison)
    for eid, value in bind_inputs(idx, inputs).items():
        buffers.values[eid] = value
    reqs = plan.requests()
    skipped = set(plan.skipped_nodes)
    retire_at = _retire_schedule(idx)
    for n in idx.nodes:
        if n.nid in skipped:
            for eid in idx.output_entries(n.nid):
                buffers.produced(eid, buffers.view(eid))
        elif not n.is_variable:
            _run_node(n, buffers, idx, reqs, xp)
        for eid in retire_at[n.nid]:
            buffers.retire(eid)
    return [buffers.values[eid].copy() for eid in idx.outputs]
