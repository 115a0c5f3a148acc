"""plan_memory / detect_inplace_addto invariants, checked statically and by poisoned execution."""
import dataclasses

import numpy
import pytest

from mxlab.base import MXNetValueError
from mxlab.graph.gradient import build_gradient_graph
from mxlab.graph.graph import Graph
from mxlab.graph.memory import _Pool, nbytes_of
from mxlab.graph.passes import apply_pass
from mxlab.graph.verify import check_plan_execution, check_plan_liveness, verify_plan
from mxlab.ops.registry import Op

from graph_helpers import apply, chain, planned, prepared, random_inputs, two_output_op, var


def _plan(graph):
    return graph.attrs["memory_plan"]


def _checked(graph, shapes, dtype="float64", **options):
    g = planned(graph, shapes, dtype, **options)
    verify_plan(g, random_inputs(g))
    return g, _plan(g)


def test_inference_chain_runs_in_place_in_one_block():
    g, plan = _checked(Graph([chain(var("x"), ["tanh", "exp", "sin", "negative"])]), {"x": (8, 4)})
    assert [e.storage_id for e in plan.entries] == [-2, 0, 0, 0, 0]
    assert [e.request for e in plan.entries] == [None, "write", "inplace", "inplace", "inplace"]
    assert [e.inplace_source for e in plan.entries] == [None, None, 1, 2, 3]
    assert plan.planned_bytes == 8 * 4 * 8 and plan.naive_bytes == 4 * 8 * 4 * 8


def test_diamond_reuses_the_branch_with_one_reader():
    x = var("x")
    c = apply("broadcast_add", apply("tanh", x, name="a"), apply("exp", x, name="b"), name="c")
    g, plan = _checked(Graph([c]), {"x": (5,)})
    by_name = {e.node: e for e in plan.entries}
    assert by_name["x"].storage_id == -2
    assert by_name["a"].storage_id != by_name["b"].storage_id
    assert by_name["c"].storage_id == by_name["a"].storage_id and by_name["c"].inplace_index == 0
    assert by_name["a"].live == (1, 3) and by_name["c"].live == (3, 3)


def test_input_read_later_is_not_overwritten_in_place():
    x = var("x")
    a = apply("tanh", x, name="a")
    b = apply("exp", a, name="b")
    g, plan = _checked(Graph([apply("broadcast_mul", a, b, name="m")]), {"x": (5,)})
    entries = {e.node: e for e in plan.entries}
    assert entries["b"].storage_id != entries["a"].storage_id and entries["b"].inplace_index == -1


def test_multi_output_op_with_an_unused_output():
    x, w = var("x"), var("w")
    s, d = apply(two_output_op(), apply("tanh", x, name="t"), w, name="sd")
    y = apply("broadcast_mul", apply("exp", d, name="e"), d, name="m")
    g, plan = _checked(Graph([y]), {"x": (6,), "w": (6,)})
    entries = {(e.node, e.index): e for e in plan.entries}
    assert entries[("sd", 0)].inplace_index == -2 and entries[("sd", 0)].request == "null"
    assert entries[("sd", 1)].request == "write"
    # NOTE: the unused output's block went straight back to the pool with t's; e reuses one.
    assert len(plan.blocks) == 3
    freed = (entries[("t", 0)].storage_id, entries[("sd", 0)].storage_id)
    assert entries[("e", 0)].storage_id in freed


def test_match_range_zero_disables_sharing():
    x = var("x")
    y = apply("broadcast_mul", apply("exp", x, name="a"), apply("exp", x, name="b"), name="m")
    z = apply("broadcast_add", apply("sin", y, name="s"), apply("cos", y, name="c"), name="z")
    shared = _plan(planned(Graph([z]), {"x": (7,)}))
    g, private = _checked(Graph([z]), {"x": (7,)}, match_range=0)
    assert len(private.blocks) > len(shared.blocks)
    # NOTE: only in-place reuse is left: one block per entry that is not in place.
    own = [e for e in private.entries if e.storage_id >= 0 and e.inplace_index < 0]
    assert len(private.blocks) == len(own)
    assert private.planned_bytes == sum(e.nbytes for e in private.entries if e.inplace_index == -1
                                        and e.storage_id >= 0)


def test_match_range_from_environment(monkeypatch):
    x = var("x")
    y = apply("broadcast_mul", apply("exp", x, name="a"), apply("exp", x, name="b"), name="m")
    z = apply("broadcast_add", apply("sin", y, name="s"), apply("cos", y, name="c"), name="z")
    monkeypatch.setenv("NNVM_EXEC_MATCH_RANGE", "0")
    assert _plan(planned(Graph([z]), {"x": (7,)})).match_range == 0
    with pytest.raises(MXNetValueError, match="match_range must be >= 0"):
        planned(Graph([z]), {"x": (7,)}, match_range=-1)


def test_pool_best_fit_then_grows_a_smaller_block():
    pool = _Pool(match_range=4)
    big, small = pool.request(400), pool.request(100)
    pool.release(big)
    pool.release(small)
    assert pool.request(90) == small            # best fit in [90, 360]
    assert pool.request(300) == big             # fits
    pool.release(small)
    assert pool.request(200) == small and pool.sizes[small] == 200   # in [50, 200), grown
    assert pool.request(10) == 2                # nothing free fits: a new block
    assert _Pool(0).request(8) == 0


def test_bytes_use_real_dtype_sizes():
    graph = Graph([chain(var("x"), ["tanh", "exp"])])
    sizes = {d: _plan(planned(graph, {"x": (3, 5)}, d)).planned_bytes
             for d in ("float16", "float32", "float64")}
    assert sizes == {"float16": 30, "float32": 60, "float64": 120}
    assert nbytes_of((2, 3), "bfloat16") == 12 and nbytes_of((2, None), "float32") is None


def test_external_outputs_and_unknown_shapes():
    graph = Graph([chain(var("x"), ["tanh", "exp"])])
    plan = _plan(planned(graph, {"x": (4,)}, external_outputs=True))
    assert [e.storage_id for e in plan.entries] == [-2, 0, -2]
    unknown = _plan(apply_pass(apply_pass(apply_pass(graph, "infer_shape"), "infer_type",
                                          dtypes={"x": "float32"}), "plan_memory"))
    assert [e.storage_id for e in unknown.entries] == [-2, -1, -1]
    assert unknown.num_not_allocated == 2


def test_dynamic_shape_outputs_are_dynamic_storage():
    nonzero = Op(name="_test_nonzero", dynamic_shape=True, infer_shape=lambda attrs, s: [(None,)],
                 compute=lambda xp, ins, attrs: xp.flatnonzero(ins[0]).astype(ins[0].dtype))
    nz = apply(nonzero, apply("tanh", var("x"), name="t"), name="nz")
    graph = Graph([apply("exp", nz, name="e")])
    g = planned(graph, {"x": (6,)})
    plan = _plan(g)
    assert [e.storage_id for e in plan.entries] == [-2, 0, -3, -1]
    assert check_plan_execution(g, plan, {"x": numpy.array([0.0, 1, 0, 2, 3, 0])}) == []


def test_verifier_catches_forbidden_sharing():
    x = var("x")
    y = apply("broadcast_mul", apply("exp", x, name="a"), apply("sin", x, name="b"), name="m")
    g = planned(Graph([y]), {"x": (5,)})
    plan = _plan(g)
    a, b = plan.entries[1], plan.entries[2]
    assert a.storage_id != b.storage_id
    broken = dataclasses.replace(
        plan, entries=[dataclasses.replace(e) for e in plan.entries],
        blocks=[dataclasses.replace(blk, entries=list(blk.entries)) for blk in plan.blocks])
    broken.entries[2].storage_id = a.storage_id
    broken.blocks[a.storage_id].entries.append(2)
    assert any("overlaps" in p for p in check_plan_liveness(broken))
    assert check_plan_execution(g, broken, random_inputs(g)) != []
    with pytest.raises(MXNetValueError, match="memory plan check failed"):
        verify_plan(g, plan=broken)


def test_plan_printout_is_stable():
    x = var("x")
    y = apply("broadcast_mul", apply("exp", x, name="a"), apply("sin", x, name="b"), name="m")
    g = planned(Graph([apply("tanh", y, name="t")]), {"x": (2,)}, "float32")
    assert _plan(g).to_text(g) == (
        "#0 x = var  [0] sid=-2 input 8B\n"
        "#1 a = exp(x[0])  [0] sid=0 write 8B\n"
        "#2 b = sin(x[0])  [0] sid=1 write 8B\n"
        "#3 m = broadcast_mul(a[0], b[0])  [0] sid=0 inplace from 1 8B\n"
        "#4 t = tanh(m[0])  [0] sid=0 inplace from 3 8B\n"
        "outputs: t[0]\n"
        "2 blocks, planned 16 bytes vs naive 32 bytes, 2 in-place, 0 add-to, 0 skipped nodes")


def test_plan_text_and_requests():
    g = planned(Graph([chain(var("x"), ["tanh", "exp"])]), {"x": (2,)})
    plan = _plan(g)
    assert plan.requests() == [None, "write", "inplace"]
    assert [row["request"] for row in plan.rows()] == plan.requests()
    assert plan.rows()[2]["inplace_source"] == 1
    assert plan.storage_ids() == [-2, 0, 0]
    assert repr(plan) == ("<MemoryPlan 1 blocks, planned 16 bytes vs naive 32 bytes, 1 in-place, "
                          "0 add-to, 0 skipped nodes>")


def test_node_range_plans_backward_apart_from_forward():
    x = var("x")
    forward = Graph([chain(x, ["tanh", "exp", "sin"])])
    full = build_gradient_graph(forward, xs=["x"])
    g = prepared(full, {"x": (4,)})
    idx = g.indexed
    num_forward = idx.node_of_entry(idx.outputs[0]) + 1
    forward_entries = range(idx.node_row_ptr[num_forward])
    storage = [-2 if eid in forward_entries else -1 for eid in range(idx.num_entries)]
    plan = _plan(apply_pass(g, "plan_memory", node_range=(num_forward, idx.num_nodes),
                            storage=storage))
    assert plan.node_range == (num_forward, idx.num_nodes)
    assert all(plan.entries[e].storage_id == -2 for e in forward_entries)
    assert all(e.storage_id >= 0 for e in plan.entries[idx.node_row_ptr[num_forward]:]
               if not e.is_variable)
    assert check_plan_liveness(plan) == [] and plan.num_not_allocated == 0
    with pytest.raises(MXNetValueError, match="may only preset"):
        apply_pass(g, "plan_memory", storage=[0] * idx.num_entries)
