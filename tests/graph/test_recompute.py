"""Sublinear recompute: O(sqrt n) memory on deep chains, identical gradients."""
import math

import numpy
import pytest

from mxlab.graph.gradient import build_gradient_graph
from mxlab.graph.graph import Graph
from mxlab.graph.interpreter import run_planned
from mxlab.graph.passes import apply_pass
from mxlab.graph.recompute import plan_sublinear
from mxlab.graph.verify import verify_plan

from graph_helpers import chain, mlp, planned, prepared, random_inputs, var

SHAPE = (16,)
ENTRY_BYTES = 16 * 8


def _chain_graph(n):
    return Graph([chain(var("x"), ["tanh"] * n, prefix="t")])


def _max_live(plan):
    """Most pool blocks holding a live entry at one node (in-place chains count once)."""
    pooled = [e for e in plan.entries if e.storage_id >= 0 and e.request != "null"]
    steps = range(max(e.live[1] for e in pooled) + 1)
    return max(len({e.storage_id for e in pooled if e.live[0] <= t <= e.live[1]}) for t in steps)


def _training(n, recompute):
    forward = prepared(_chain_graph(n), {"x": SHAPE})
    mirror = plan_sublinear(forward).mirrored if recompute else ()
    return planned(build_gradient_graph(forward, xs=["x"], mirror=mirror), {"x": SHAPE}), forward


def test_checkpoints_every_sqrt_n_nodes():
    plan = plan_sublinear(prepared(_chain_graph(100), {"x": SHAPE}))
    assert 7 <= len(plan.checkpoints) <= 14
    assert len(plan.checkpoints) + len(plan.mirrored) == 100
    assert "t99" in plan.checkpoints                 # the graph output is kept anyway
    assert max(len(s) for s in plan.segments) <= 14
    fixed = plan_sublinear(prepared(_chain_graph(100), {"x": SHAPE}), budget=ENTRY_BYTES * 4.5)
    assert max(len(s) for s in fixed.segments) == 4


@pytest.mark.parametrize("n", [25, 100])
def test_recompute_keeps_sqrt_n_activations_and_equal_gradients(n):
    plain, _ = _training(n, recompute=False)
    sublinear, forward = _training(n, recompute=True)
    plain_plan, sub_plan = plain.attrs["memory_plan"], sublinear.attrs["memory_plan"]
    assert _max_live(plain_plan) >= n
    assert _max_live(sub_plan) <= 3 * math.sqrt(n)
    assert sub_plan.planned_bytes <= 3 * math.sqrt(n) * ENTRY_BYTES < plain_plan.planned_bytes
    mirrors = [node for node in sublinear.indexed.nodes if node.name.endswith("_mirror")]
    assert len(mirrors) == len(sublinear.attrs["mirrored"]) > n / 2
    forward_end = sublinear.indexed.node_of_entry(sublinear.indexed.outputs[0])
    assert all(m.nid > forward_end for m in mirrors)
    head = f"t{n - 1}_output_head_grad"
    inputs = {"x": numpy.linspace(-1, 1, 16), head: numpy.linspace(1, 2, 16)}
    verify_plan(sublinear, inputs)
    want = run_planned(plain, plain_plan, inputs)
    got = run_planned(sublinear, sub_plan, inputs)
    for a, b in zip(got, want):
        numpy.testing.assert_allclose(a, b, rtol=1e-12)


def test_recompute_as_a_pass():
    forward = prepared(_chain_graph(16), {"x": SHAPE})
    planned_forward = apply_pass(forward, "plan_recompute")
    full = apply_pass(planned_forward, "build_gradient", xs=["x"])
    assert full.attrs["mirrored"] == plan_sublinear(forward).mirrored
    assert full.attrs["recompute_plan"] is planned_forward.attrs["recompute_plan"]
    log = full.pass_log
    assert [r.name for r in log][-2:] == ["plan_recompute", "build_gradient"]
    assert log[-2].provides == ("recompute_plan",) and "mirrored" in log[-1].provides
    explicit = apply_pass(planned_forward, "build_gradient", xs=["x"], mirror=())
    assert explicit.attrs["mirrored"] == []


def test_without_shapes_every_node_counts_one():
    plan = plan_sublinear(_chain_graph(16))
    assert plan.budget >= 1 and len(plan.checkpoints) == 4


@pytest.mark.parametrize("recompute", [False, True])
def test_deep_mlp_plans_pass_both_checks(recompute):
    forward = prepared(mlp(100, 8), {"data": (4, 8)}, "float32")
    mirror = plan_sublinear(forward).mirrored if recompute else ()
    params = [n for n in random_inputs(forward) if n != "data"]
    full = planned(build_gradient_graph(forward, xs=params, mirror=mirror), {"data": (4, 8)},
                   "float32", addto=True, external_outputs=True)
    blocks = len(full.attrs["memory_plan"].blocks)
    assert blocks <= 25 if recompute else blocks >= 100
    verify_plan(full, random_inputs(full))
