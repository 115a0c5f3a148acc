"""Bulk segments: runs of consecutive op nodes pushed to the engine as one task, and why each
run ended.

A segment ends (MXNet's ``InitOpSegs`` / CachedOp's ``CreateEngineOpSeg``) at a variable
(GraphExecutor only; CachedOp passes ``break_at_variables=False``), when it holds ``bulk_size``
nodes (MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN, default 15), before an async op (which runs alone),
before a node writing a gradient output (which runs alone, so gradients are ready early), before a
node touching an excluded entry (which starts the next segment), and at the end of the forward and
backward parts. Inference graphs (no backward) are one segment when MXNET_EXEC_BULK_EXEC_INFERENCE
is on (default). Plus nodes skipped by add-to are left out.

Example
-------
>>> from mxlab.graph.node import Node, Entry
>>> from mxlab.graph.graph import Graph
>>> from mxlab.ops.registry import get_op
>>> e = Entry(Node(None, "x"))
>>> for i in range(5):
...     e = Entry(Node(get_op("tanh"), f"t{i}", {}, [e]))
>>> [(s.names, s.reason) for s in plan_segments(Graph([e]), bulk_size=2, inference_bulk=False)
...  .attrs["segments"]]
[(['t0', 't1'], 'size_limit'), (['t2', 't3'], 'size_limit'), (['t4'], 'end_of_forward')]
"""
import dataclasses

from ..base import env_int
from .passes import register_pass

__all__ = ["Segment", "plan_segments", "REASONS"]

#: Why a segment ended.
REASONS = ("variable", "size_limit", "async_op", "gradient_output", "excluded_entry",
           "end_of_forward", "end_of_graph", "bulk_disabled")


@dataclasses.dataclass
class Segment:
    """Op nodes run as one engine task; ``bulk`` is False for a node that must run alone."""
    nodes: list
    names: list
    reason: str
    part: str
    bulk: bool = True

    @property
    def start(self):
        return self.nodes[0]

    @property
    def stop(self):
        return self.nodes[-1] + 1


class _Cutter:
    """Collects segments while walking one part (forward or backward) of the graph."""

    def __init__(self, idx, part):
        self.idx, self.part, self.segments, self.current = idx, part, [], []

    def close(self, reason):
        if self.current:
            names = [self.idx[n].name for n in self.current]
            self.segments.append(Segment(self.current, names, reason, self.part))
        self.current = []

    def alone(self, nid, reason):
        self.close(reason)
        self.segments.append(Segment([nid], [self.idx[nid].name], reason, self.part, bulk=False))


@dataclasses.dataclass
class _Rules:
    """What decides the cuts (see :func:`plan_segments`)."""
    idx: object
    bulk_size: int
    bulk: bool
    excluded: set
    async_ops: set
    skipped: set
    gradients: set
    break_at_variables: bool = True

    def alone_reason(self, n):
        """Why node ``n`` must run alone, or None."""
        if n.op.name in self.async_ops:
            return "async_op"
        if not self.bulk:
            return "bulk_disabled"
        if set(self.idx.output_entries(n.nid)) & self.gradients:
            return "gradient_output"
        return None

    def touches_excluded(self, n):
        return bool(set(n.inputs + self.idx.output_entries(n.nid)) & self.excluded)


def _walk(part, nodes, rules):
    idx = rules.idx
    cut = _Cutter(idx, part)
    for nid in nodes:
        n = idx[nid]
        if n.is_variable:
            if rules.break_at_variables:
                cut.close("variable")
            continue
        if nid in rules.skipped:
            continue
        reason = rules.alone_reason(n)
        if reason is not None:
            cut.alone(nid, reason)
            continue
        if rules.touches_excluded(n):
            cut.close("excluded_entry")
        elif len(cut.current) >= rules.bulk_size:
            cut.close("size_limit")
        cut.current.append(nid)
    cut.close("end_of_forward" if part == "forward" else "end_of_graph")
    return cut.segments


def _flag(value, env_name):
    return bool(env_int(env_name, 1)) if value is None else value


@register_pass("plan_segments", provides=("segments",))
def plan_segments(graph, bulk_size=None, excluded=(), async_ops=(), inference_bulk=None,
                  bulk=None, break_at_variables=True):
    """Cut the graph into :class:`Segment` objects (``graph.attrs["segments"]``).

    Parameters
    ----------
    bulk_size : int, optional
        Maximum nodes per segment (MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN, default 15).
    excluded : iterable of int
        Entry ids a segment must not cross (CachedOp: graph outputs, and inputs when recording).
    async_ops : iterable of str
        Op names that run asynchronously (each runs alone).
    inference_bulk, bulk : bool, optional
        MXNET_EXEC_BULK_EXEC_INFERENCE / MXNET_EXEC_BULK_EXEC_TRAIN (default on).
    break_at_variables : bool
        End a segment at each variable node (GraphExecutor); CachedOp skips them instead.
    """
    idx = graph.indexed
    if bulk_size is None:
        bulk_size = env_int("MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN", 15)
    plan = graph.attrs.get("memory_plan")
    rules = _Rules(idx, bulk_size, _flag(bulk, "MXNET_EXEC_BULK_EXEC_TRAIN"), set(excluded),
                   set(async_ops), set(plan.skipped_nodes) if plan is not None else set(),
                   set(idx.outputs[graph.num_forward_outputs:]), break_at_variables)
    num_forward = graph.num_forward_nodes
    ops = [n.nid for n in idx.nodes if not n.is_variable and n.nid not in rules.skipped]
    whole = _flag(inference_bulk, "MXNET_EXEC_BULK_EXEC_INFERENCE") and ops and not any(
        idx[n].op.name in rules.async_ops for n in ops)
    if num_forward == idx.num_nodes and whole:
        segments = [Segment(ops, [idx[n].name for n in ops], "end_of_graph", "forward")]
    else:
        segments = _walk("forward", range(num_forward), rules)
        segments += _walk("backward", range(num_forward, idx.num_nodes), rules)
    return graph.copy(segments=segments)
