"""The graph interpreter template (:class:`Interpreter`) and its plain specializations.

Every way mxlab runs a graph node by node is one walk with hooks (MXNet's executors share the
same shape: visit nodes in topological order, gather the inputs, call the op with an
``OpContext``, store the outputs):

- :meth:`Interpreter.run`: for each node of :meth:`~Interpreter.order` a variable is
  :meth:`~Interpreter.bind`-ed, an op node is :meth:`~Interpreter.gather`-ed,
  :meth:`~Interpreter.call`-ed (with :attr:`~Interpreter.ctx`) and :meth:`~Interpreter.store`-d;
  then :meth:`~Interpreter.after` runs (retire a buffer, report to a monitor).
- :meth:`Interpreter.compile`: the same walk done once ahead, giving one closure per node
  (:meth:`~Interpreter.kernel`) to call in order: a straight-line program. A specialization that
  binds each node's buffers into its closure at compile time is a compiled program; the
  runtime's ``Program`` (:mod:`mxlab.executor.runtime`) is that specialization for planned graphs.

Built on it: :class:`ValueInterpreter` (values by ``(node, index)`` from the heads: ``Symbol.eval``
in :mod:`mxlab.symbol.evaluate`, where the call hook is an imperative call so autograd records
it, and :func:`evaluate` / :func:`run_graph` on raw arrays), :class:`PlannedInterpreter`
(:func:`run_planned`: entries viewed into the blocks of a memory plan, a block poisoned once no
live entry uses it), deferred compute's lazy evaluation (:mod:`mxlab.deferred_compute`: the order
is the pending nodes an array needs) and ``GraphExecutor``'s run (the order is its bound bulk
segments, the call an engine push).

``run_planned`` fills a freed block with 0xFF bytes (NaN for floats) when ``poison`` is on, so a
read of freed memory shows up in the results.

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
import functools

import numpy

from ..base import MXNetValueError
from ..ops.context import PREDICT
from ..ops.registry import run_kernel
from .memory import EXTERNAL_STORAGE, value_readers
from .node import topo_sort

__all__ = ["Interpreter", "ValueInterpreter", "PlannedInterpreter", "run_graph", "run_planned",
           "evaluate", "bind_inputs", "POISON_BYTE"]

POISON_BYTE = 0xFF


class Interpreter:
    """The walk every graph interpreter specializes (see module doc).

    Subclasses give :meth:`order` and the hooks they need; ``xp`` is the array module kernels
    compute with and ``ctx`` the :class:`~mxlab.ops.context.OpContext` they are called with.
    """

    xp = numpy
    ctx = PREDICT

    def order(self):
        """The nodes to visit, inputs before consumers."""
        raise NotImplementedError(f"{type(self).__name__}.order")

    def is_variable(self, node):
        return node.is_variable

    def bind(self, node):
        """Give a variable node its value."""
        raise NotImplementedError(f"{type(self).__name__}.bind")

    def gather(self, node):
        """The input values of an op node."""
        raise NotImplementedError(f"{type(self).__name__}.gather")

    def call(self, node, inputs):
        """The op's outputs from ``inputs`` (the kernel, with the op context)."""
        return run_kernel(node.op, self.xp, inputs, node.attrs, ctx=self.ctx)

    def store(self, node, outputs):
        """Keep an op node's outputs where its consumers gather them."""
        raise NotImplementedError(f"{type(self).__name__}.store")

    def after(self, node):
        """Called after each node (variables too); nothing by default."""

    def result(self):
        """What :meth:`run` returns."""
        return None

    def step(self, node):
        """Run one op node: gather, call, store."""
        self.store(node, self.call(node, self.gather(node)))

    def visit(self, node):
        if self.is_variable(node):
            self.bind(node)
        else:
            self.step(node)
        self.after(node)

    def run(self):
        """Visit every node of :meth:`order`; returns :meth:`result`."""
        for node in self.order():
            self.visit(node)
        return self.result()

    def kernel(self, node):
        """A zero-argument callable visiting ``node`` (a compiled program binds buffers here)."""
        return functools.partial(self.visit, node)

    def compile(self):
        """The walk done once ahead: a :class:`StraightLine` of :meth:`kernel` per node."""
        return StraightLine([self.kernel(node) for node in self.order()], self.result)


class StraightLine:
    """A compiled walk: the kernels called in order, then the interpreter's result."""

    def __init__(self, kernels, result):
        self.kernels, self._result = kernels, result

    def __call__(self):
        for kernel in self.kernels:
            kernel()
        return self._result()

    def __len__(self):
        return len(self.kernels)


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


class ValueInterpreter(Interpreter):
    """Nodes reaching ``heads`` (entries), values kept by ``(node, output index)``.

    ``variable(node)`` gives a variable's value; :meth:`run` returns the heads' values.
    """

    def __init__(self, heads, variable, xp=numpy, ctx=PREDICT):
        self.heads, self.variable, self.xp, self.ctx = list(heads), variable, xp, ctx
        self.values = {}

    def order(self):
        return topo_sort(self.heads)

    def bind(self, node):
        self.values[(node, 0)] = self.variable(node)

    def gather(self, node):
        values = self.values
        inputs = []
        for e in node.inputs:
            key = (e.node, e.index)
            if key not in values:
                self.missing(node, e)
            inputs.append(values[key])
        return inputs

    def missing(self, node, entry):
        """``node`` reads an output its producer did not give."""
        raise MXNetValueError(f"{node.name} reads output {entry.index} of {entry.node.name}, "
                              f"which produced {entry.node.num_outputs} output(s)")

    def store(self, node, outputs):
        for i, value in enumerate(outputs):
            self.values[(node, i)] = value

    def result(self):
        return [self.values[(e.node, e.index)] for e in self.heads]


def evaluate(graph, inputs, xp=numpy, ctx=PREDICT):
    """Every entry's value (list by entry id), each node computed into fresh arrays."""
    idx = graph.indexed
    bound = bind_inputs(idx, inputs)
    walk = ValueInterpreter(graph.outputs, lambda node: bound[idx.entry_id(node, 0)], xp, ctx)
    walk.run()
    values = walk.values
    return [values.get((n.node, i)) for n in idx.nodes for i in range(n.node.num_outputs)]


def run_graph(graph, inputs, xp=numpy, ctx=PREDICT):
    """The graph outputs, computed without a memory plan."""
    values = evaluate(graph, inputs, xp, ctx)
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


def _retire_schedule(idx):
    """For each node id, the entries whose last value reader it is."""
    schedule = [[] for _ in range(idx.num_nodes)]
    for eid, readers in enumerate(value_readers(idx)):
        if readers:
            schedule[max(readers)].append(eid)
    return schedule


class PlannedInterpreter(Interpreter):
    """``graph`` run in the storage of ``plan`` (a :class:`~mxlab.graph.memory.MemoryPlan`).

    Nodes are the indexed graph's (entry ids as inputs); outputs are written into views of the
    plan's blocks with the plan's write requests; skipped plus nodes (add-to) are not called:
    their output block already holds the sum. :meth:`after` retires the entries whose last reader
    the node was.
    """

    def __init__(self, graph, plan, inputs, xp=numpy, poison=True, ctx=PREDICT):
        idx = self.idx = graph.indexed
        if len(plan.entries) != idx.num_entries:
            raise MXNetValueError(f"run_planned: the plan has {len(plan.entries)} entries but the "
                                  f"graph has {idx.num_entries}; plan this graph first")
        self.xp, self.ctx = xp, ctx
        self.buffers = _Buffers(plan, xp, poison)
        self.inputs = bind_inputs(idx, inputs)
        self.reqs = plan.requests()
        self.skipped = set(plan.skipped_nodes)
        self.retire_at = _retire_schedule(idx)

    def order(self):
        return self.idx.nodes

    def bind(self, node):
        eid = self.idx.node_row_ptr[node.nid]
        self.buffers.values[eid] = self.inputs[eid]

    def gather(self, node):
        return [self.buffers.values[e] for e in node.inputs]

    def call(self, node, inputs):
        eids = self.idx.output_entries(node.nid)
        if node.nid in self.skipped:
            return [self.buffers.view(eid) for eid in eids]
        outs = [self.buffers.output_buffer(e) for e in eids]
        if any(o is None for o in outs):
            return run_kernel(node.op, self.xp, inputs, node.node.attrs, ctx=self.ctx)
        return run_kernel(node.op, self.xp, inputs, node.node.attrs, outs,
                          [self.reqs[e] for e in eids], self.ctx)

    def store(self, node, outputs):
        for eid, value in zip(self.idx.output_entries(node.nid), outputs):
            self.buffers.produced(eid, value)

    def after(self, node):
        for eid in self.retire_at[node.nid]:
            self.buffers.retire(eid)

    def result(self):
        """Copies of the outputs."""
        return [self.buffers.values[eid].copy() for eid in self.idx.outputs]


def run_planned(graph, plan, inputs, xp=numpy, poison=True, ctx=PREDICT):
    """Run ``graph`` in the storage of ``plan``; returns copies of the outputs (see
    :class:`PlannedInterpreter`)."""
    return PlannedInterpreter(graph, plan, inputs, xp, poison, ctx).run()
