"""Graphs and graph passes.

The IR (:mod:`.node`), ``Graph``/``IndexedGraph``, the pass registry, and the passes CachedOp and
GraphExecutor run: ``build_gradient``, ``infer_shape``/``infer_type``, ``plan_memory``,
``detect_inplace_addto``, ``plan_segments``; plus the sublinear recompute planner, a reference
interpreter and a plan verifier. Every result is a plain object (dataclasses, lists by entry id)
for the notebook to draw.
"""
from .node import Entry, Node, topo_sort  # noqa: F401
from .graph import Graph, IndexedGraph, PassRecord  # noqa: F401
from .passes import apply_pass, list_passes, register_pass  # noqa: F401
from . import infer, gradient, memory, segments, recompute, cse  # noqa: F401
from .gradient import build_gradient_graph  # noqa: F401
from .memory import MemoryPlan, EntryPlan, StorageBlock  # noqa: F401
from .segments import Segment  # noqa: F401
from .recompute import RecomputePlan, plan_sublinear  # noqa: F401
from .interpreter import run_graph, run_planned  # noqa: F401
from .verify import verify_plan  # noqa: F401
