"""The pass pipelines CachedOp and GraphExecutor run, every step a registered graph pass.

Each pipeline is a chain of :func:`~mxlab.graph.passes.apply_pass` calls, so the planned graph's
``pass_log`` lists every transformation once, with what it required and provided:

- inference (CachedOp ``forward``): ``infer_shape``, ``infer_type``, ``plan_memory``,
  ``plan_segments``;
- training (CachedOp ``full``/``backward``, GraphExecutor ``joint``): ``build_gradient`` on the
  symbol's graph, then ``infer_shape`` and ``infer_type`` once over the whole gradient graph (head
  gradients take their output's shape and dtype through ``_identity_with_attr_like_rhs``), then
  ``plan_memory``, ``detect_inplace_addto`` (backward, joint) and ``plan_segments``. With
  ``recompute``, ``plan_recompute`` (sizing nodes from the input shapes on a scratch copy) picks
  the nodes ``build_gradient`` mirrors first, so inference still runs once. A partitioned
  symbol's graph starts with its ``partition_graph`` record (see :attr:`mxlab.sym.Symbol.graph`).

Three plans, as MXNet's CachedOp keeps them (``forward_mem_plan``, ``full_mem_plan``,
``backward_mem_plan``):

- ``forward``: the inference graph, one plan over all its nodes, outputs external;
- ``full``: the forward part of the gradient graph (run while recording), planned with the whole
  graph's reference counts so the entries backward reads stay alive;
- ``backward``: the backward part, forward entries preset external (they live in the forward
  frame), then in-place add-to.

GraphExecutor plans the gradient graph jointly (``joint``), as nnvm's PlanMemory does.

Example
-------
>>> import mxlab as mx
>>> from mxlab.graph import Graph
>>> g = Graph(mx.sym.tanh(mx.sym.var('x'))._outputs)
>>> p = plan_graph(infer_graph(g, {'x': (4,)}, {'x': 'float32'}), 'forward')
>>> p.memory_plan.planned_bytes, [s.reason for s in p.segments]
(0, ['end_of_graph'])
>>> [r.name for r in p.graph.pass_log]
['infer_shape', 'infer_type', 'plan_memory', 'plan_segments']
"""
import dataclasses

from ..graph.memory import BAD_STORAGE, EXTERNAL_STORAGE
from ..graph.passes import apply_pass

__all__ = ["PlannedGraph", "infer_graph", "gradient_graph", "plan_graph", "head_entry_ids",
           "KINDS"]

KINDS = ("forward", "full", "backward", "joint")


@dataclasses.dataclass
class PlannedGraph:
    """A graph with its memory plan and bulk segments for one node range (``kind``)."""
    kind: str
    graph: object
    memory_plan: object
    segments: list
    node_range: tuple
    key: object = None       # what the plan was made for (CachedOp: signature and reqs)
    program: object = None   # the compiled :class:`~mxlab.executor.runtime.Program`
    input_eids: list = None  # entry id per caller input, in the caller's order
    output_eids: list = None
    variable_eids: set = None
    output_meta: list = None  # (shape, dtype) per output
    simple_outputs: bool = True  # no output is an input or repeats another
    head_eids: list = None   # entry id of each head-gradient variable (None: unused by backward)

    @property
    def planned_bytes(self):
        return self.memory_plan.planned_bytes

    @property
    def pass_log(self):
        """The passes that made this plan, oldest first (:class:`~mxlab.graph.PassRecord`)."""
        return self.graph.pass_log


def infer_graph(graph, shapes, dtypes):
    """``graph`` with ``shape`` and ``dtype`` attributes from variable shapes/dtypes by name."""
    graph = apply_pass(graph, "infer_shape", shapes=shapes, strict=True)
    return apply_pass(graph, "infer_type", dtypes=dtypes, strict=True)


def head_entry_ids(graph):
    """Entry id of each ``<output>_head_grad`` variable, None where backward never reads it (the
    output's gradient rule ignores its head gradient, as loss ops do)."""
    idx = graph.indexed
    present = {id(idx[n].node): idx.node_row_ptr[n] for n in idx.input_nodes}
    return [present.get(id(node)) for node in graph.attrs.get("head_grad_nodes", ())]


def gradient_graph(forward, xs, recompute=False, recompute_budget=None, sum_cap=None,
                   shapes=None, dtypes=None):
    """The full graph (forward outputs + gradients of ``xs``); with ``recompute`` the sublinear
    planner picks the nodes to mirror, sized by input ``shapes``/``dtypes`` (by name) or by an
    inferred ``forward``'s attributes."""
    if recompute:
        forward = apply_pass(forward, "plan_recompute", budget=recompute_budget, shapes=shapes,
                             dtypes=dtypes)
    return apply_pass(forward, "build_gradient", xs=xs, sum_cap=sum_cap)


def plan_graph(graph, kind, bulk_size=15, match_range=None, excluded=(), bulk=None,
               external=()):
    """Plan ``graph`` (inferred) for ``kind`` (see module doc); returns a :class:`PlannedGraph`.

    ``excluded`` entry ids end segments (recording: inputs and outputs); ``external`` entry ids are
    the caller's arrays besides inputs and outputs.
    """
    idx = graph.indexed
    nf = graph.num_forward_nodes
    options = {"match_range": match_range, "external_outputs": True, "external": external}
    if kind == "forward" or kind == "joint":
        planned = apply_pass(graph, "plan_memory", **options)
        node_range, part = (0, idx.num_nodes), None
    elif kind == "full":
        planned = apply_pass(graph, "plan_memory", node_range=(0, nf), **options)
        node_range, part = (0, nf), "forward"
    else:
        forward_entries = idx.node_row_ptr[nf]
        storage = [EXTERNAL_STORAGE if eid < forward_entries else BAD_STORAGE
                   for eid in range(idx.num_entries)]
        planned = apply_pass(graph, "plan_memory", node_range=(nf, idx.num_nodes),
                             storage=storage, **options)
        node_range, part = (nf, idx.num_nodes), "backward"
    if kind in ("backward", "joint"):
        planned = apply_pass(planned, "detect_inplace_addto")
    planned = apply_pass(planned, "plan_segments", bulk_size=bulk_size, excluded=excluded,
                         bulk=bulk)
    segments = [s for s in planned.attrs["segments"] if part is None or s.part == part]
    return PlannedGraph(kind, planned, planned.attrs["memory_plan"], segments, node_range)


def saved_reads(backward, input_names, aux):
    """The caller's arrays a ``backward`` plan reads (positions in ``[*inputs, *outputs]``; not
    the ``aux`` states the forward writes itself) and a label for each, for the tape's check that
    none was written in place before backward (``record_op``'s ``saved``)."""
    idx = backward.graph.indexed
    start, _ = backward.node_range
    read = {e for nid in range(start, idx.num_nodes) for e in idx[nid].inputs}
    positions = {}
    for i, eid in enumerate(backward.input_eids):
        if i not in aux:
            positions.setdefault(eid, (i, f"input '{input_names[i]}'"))
    count = len(backward.input_eids)
    for j, eid in enumerate(backward.output_eids):
        positions.setdefault(eid, (count + j, f"output {j}"))
    entries = backward.memory_plan.entries
    found = [(i, f"{label}, shape {entries[eid].shape}")
             for eid, (i, label) in positions.items() if eid in read]
    return tuple(i for i, _ in found), tuple(label for _, label in found)
