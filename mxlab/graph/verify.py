"""Check a memory plan two ways: statically (no forbidden sharing) and by running it poisoned.

``check_plan_liveness``: two entries may share a block while both are live (closed intervals, so a
reader and a writer at the same node overlap) only when one continues the other: in place (the new
entry is produced by the old one's last reader) or add-to, possibly through a chain of such links.
``check_plan_execution``: :func:`~mxlab.graph.interpreter.run_planned` with poisoning must equal
the plain evaluation. :func:`verify_plan` runs both and raises
:class:`~mxlab.base.MXNetValueError` listing the problems.

Example
-------
>>> import numpy
>>> from mxlab.graph.node import Node, Entry
>>> from mxlab.graph.graph import Graph
>>> from mxlab.graph.passes import apply_pass
>>> from mxlab.ops.registry import get_op
>>> x = Node(None, "x")
>>> g = Graph([Entry(Node(get_op("exp"), "e", {}, [Entry(x)]))])
>>> g = apply_pass(g, "infer_shape", shapes={"x": (3,)})
>>> g = apply_pass(apply_pass(g, "infer_type", dtypes={"x": "float64"}), "plan_memory")
>>> verify_plan(g, {"x": numpy.ones(3)})
[]
"""
import numpy

from ..base import MXNetValueError
from .interpreter import run_graph, run_planned

__all__ = ["verify_plan", "check_plan_liveness", "check_plan_execution"]


def _continues(plan, later, earlier):
    """Whether ``later`` legally takes over ``earlier``'s block: a direct add-to link, or a chain
    of in-place / add-to links along which ``later`` starts at or after ``earlier``'s last read."""
    entry = plan.entries[later]
    direct = entry.inplace_source == earlier
    while entry.inplace_source is not None:
        entry = plan.entries[entry.inplace_source]
        if entry.eid == earlier:
            start, end = plan.entries[later].live[0], entry.live[1]
            return (direct and plan.entries[later].addto) or start >= end
    return False


def _label(entry):
    return f"{entry.node}[{entry.index}]"


def _block_problems(plan, block):
    members = sorted(block.entries, key=lambda e: plan.entries[e].live)
    problems = [f"block {block.sid} ({block.nbytes} bytes) is too small for "
                f"{_label(plan.entries[e])} ({plan.entries[e].nbytes} bytes)"
                for e in members if plan.entries[e].nbytes > block.nbytes]
    for i, a in enumerate(members):
        for b in members[i + 1:]:
            ea, eb = plan.entries[a], plan.entries[b]
            if eb.live[0] > ea.live[1] or "null" in (ea.request, eb.request):
                continue
            if not (_continues(plan, b, a) or _continues(plan, a, b)):
                problems.append(f"block {block.sid}: {_label(ea)} live {ea.live} overlaps "
                                f"{_label(eb)} live {eb.live}")
    return problems


def check_plan_liveness(plan):
    """Problems (strings): simultaneously live entries sharing a block without a legal link."""
    return [p for block in plan.blocks for p in _block_problems(plan, block)]


def check_plan_execution(graph, plan, inputs, rtol=1e-6, atol=1e-6):
    """Problems (strings): outputs of the poisoned planned run that differ from the plain run."""
    expected = run_graph(graph, inputs)
    actual = run_planned(graph, plan, inputs, poison=True)
    problems = []
    for i, (want, got) in enumerate(zip(expected, actual)):
        if want.shape == got.shape and numpy.allclose(got, want, rtol=rtol, atol=atol):
            continue
        error = numpy.nanmax(numpy.abs(numpy.asarray(got, float) - want)) \
            if want.shape == got.shape else "shape mismatch"
        label = graph.indexed.entry_label(graph.indexed.outputs[i])
        problems.append(f"output {i} ({label}) differs: max abs error {error}")
    return problems


def verify_plan(graph, inputs=None, plan=None):
    """Both checks on ``graph``'s memory plan (execution only with ``inputs``); [] or raises."""
    plan = plan if plan is not None else graph.attrs["memory_plan"]
    problems = check_plan_liveness(plan)
    if inputs is not None:
        problems += check_plan_execution(graph, plan, inputs)
    if problems:
        raise MXNetValueError("memory plan check failed:\n" + "\n".join(problems))
    return problems
