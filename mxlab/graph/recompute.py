"""Sublinear-memory recompute planning (Chen et al. 2016, "Training Deep Nets with Sublinear
Memory Cost").

The forward nodes are walked in topological order with a memory budget ``B``: the bytes of
consecutive nodes accumulate into the current segment, and the node that makes the segment exceed
``B`` becomes a *checkpoint* (its output is kept for backward); every other node is *mirrored*
(recomputed in backward from the previous checkpoint, see :mod:`mxlab.graph.gradient`). For a
chain of ``n`` equal nodes and ``B ~ sqrt(n)`` nodes this keeps ``O(sqrt n)`` activations. ``B`` is
searched, as MXNet's memonger does, to minimise the estimated peak ``kept bytes + largest
segment``. Graph outputs, random ops and ops mutating inputs are always checkpoints.

Example
-------
>>> from mxlab.graph.node import Node, Entry
>>> from mxlab.graph.graph import Graph
>>> from mxlab.ops.registry import get_op
>>> e = Entry(Node(None, "x"))
>>> for i in range(16):
...     e = Entry(Node(get_op("tanh"), f"t{i}", {}, [e]))
>>> plan = plan_sublinear(Graph([e]))
>>> len(plan.checkpoints), len(plan.mirrored)
(4, 12)
"""
import dataclasses
import math

from .memory import nbytes_of
from .infer import infer_shape, infer_type
from .passes import register_pass

__all__ = ["plan_sublinear", "plan_recompute", "RecomputePlan"]


@dataclasses.dataclass
class RecomputePlan:
    """Which forward nodes are kept (checkpoints) and which are recomputed (mirrored), and why.

    ``budget`` is the segment budget chosen (bytes, or nodes when shapes are unknown);
    ``estimated_peak`` the model's ``kept + largest segment``; ``segments`` the mirrored node
    names between checkpoints.
    """
    checkpoints: list
    mirrored: list
    budget: float
    estimated_peak: float
    segments: list


def _node_costs(graph):
    """(node, bytes of its outputs) per forward op node; 1 per node without shapes/dtypes."""
    idx = graph.indexed
    shapes, dtypes = graph.attrs.get("shape"), graph.attrs.get("dtype")
    costs = []
    for n in idx.nodes:
        if n.is_variable:
            continue
        if shapes is None or dtypes is None:
            costs.append((n.node, 1.0))
            continue
        eids = idx.output_entries(n.nid)
        costs.append((n.node, float(sum(nbytes_of(shapes[e], dtypes[e]) or 0 for e in eids))))
    return costs


def _walk(costs, budget, outputs):
    """One budgeted walk: (checkpoint names, mirrored names, segments, estimated peak)."""
    checkpoints, mirrored, segments, current = [], [], [], []
    kept = local = largest = 0.0
    for node, cost in costs:
        local += cost
        if local > budget or not node.op.mirrorable or id(node) in outputs:
            checkpoints.append(node.name)
            kept += cost
            largest = max(largest, local - cost)
            segments.append(current)
            current, local = [], 0.0
        else:
            mirrored.append(node.name)
            current.append(node.name)
    segments.append(current)
    return checkpoints, mirrored, [s for s in segments if s], kept + max(largest, local)


def plan_sublinear(graph, budget=None, trials=24):
    """Choose checkpoints among ``graph``'s nodes (sized by ``shape``/``dtype`` attrs if present).

    ``budget`` fixes the segment budget; otherwise ``trials`` budgets from the largest node to
    ``2 * sqrt(total * largest)`` are tried and the lowest estimated peak wins (ties: fewer
    recomputed nodes). Returns a :class:`RecomputePlan`; pass its ``mirrored`` names as
    ``build_gradient_graph(..., mirror=...)``.
    """
    costs = _node_costs(graph)
    outputs = {id(e.node) for e in graph.outputs}
    if not costs:
        return RecomputePlan([], [], 0.0, 0.0, [])
    if budget is not None:
        candidates = [float(budget)]
    else:
        total, largest = sum(c for _, c in costs), max(c for _, c in costs)
        high = max(largest, 2.0 * math.sqrt(total * largest))
        candidates = [largest * (high / largest) ** (i / max(trials - 1, 1)) for i in range(trials)]
    best = None
    for b in candidates:
        checkpoints, mirrored, segments, peak = _walk(costs, b, outputs)
        key = (peak, len(mirrored))
        if best is None or key < best[0]:
            best = (key, RecomputePlan(checkpoints, mirrored, b, peak, segments))
    return best[1]


@register_pass("plan_recompute", provides=("recompute_plan",))
def plan_recompute(graph, budget=None, shapes=None, dtypes=None):
    """The pass: ``graph.attrs["recompute_plan"]`` (a :class:`RecomputePlan`); ``build_gradient``
    mirrors its ``mirrored`` nodes.

    Nodes are sized by the graph's ``shape``/``dtype`` attributes, or, given input ``shapes`` and
    ``dtypes`` (by name), by inferring them on a scratch copy: the result keeps the graph as it
    was, so the pipeline infers shapes once, over the gradient graph.
    """
    sized = graph
    if shapes is not None and "shape" not in graph.attrs:
        sized = infer_type(infer_shape(graph, shapes), dtypes)
    return graph.copy(recompute_plan=plan_sublinear(sized, budget=budget))
