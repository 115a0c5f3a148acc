"""plan_segments: bulk segments and the reason each one ended."""
from mxlab.graph.gradient import build_gradient_graph
from mxlab.graph.graph import Graph
from mxlab.graph.passes import apply_pass

from graph_helpers import apply, chain, planned, var


def _segments(graph, **options):
    return apply_pass(graph, "plan_segments", **options).attrs["segments"]


def _covers_every_op_once(graph, segments, skipped=()):
    ops = [n.nid for n in graph.indexed.nodes if not n.is_variable and n.nid not in skipped]
    return sorted(nid for s in segments for nid in s.nodes) == ops


def test_inference_graph_is_one_segment():
    graph = Graph([chain(var("x"), ["tanh"] * 20)])
    segments = _segments(graph)
    assert len(segments) == 1 and segments[0].reason == "end_of_graph"
    assert len(segments[0].nodes) == 20
    assert (segments[0].start, segments[0].stop) == (1, 21)


def test_size_limit_from_option_and_environment(monkeypatch):
    graph = Graph([chain(var("x"), ["tanh"] * 7)])
    sizes = [(len(s.nodes), s.reason) for s in _segments(graph, inference_bulk=False, bulk_size=3)]
    assert sizes == [(3, "size_limit"), (3, "size_limit"), (1, "end_of_forward")]
    monkeypatch.setenv("MXNET_EXEC_BULK_EXEC_MAX_NODE_TRAIN", "5")
    monkeypatch.setenv("MXNET_EXEC_BULK_EXEC_INFERENCE", "0")
    assert [len(s.nodes) for s in _segments(graph)] == [5, 2]


def test_training_graph_cuts_at_variables_and_gradient_writers():
    x, w = var("x"), var("w")
    y = chain(apply("broadcast_mul", x, w, name="mul"), ["tanh", "sin"], prefix="f")
    full = build_gradient_graph(Graph([y]), xs=["x", "w"])
    segments = _segments(full)
    assert _covers_every_op_once(full, segments)
    forward = [s for s in segments if s.part == "forward"]
    assert [s.names for s in forward] == [["mul", "f0", "f1"]]
    assert forward[0].reason == "end_of_forward"
    backward = [s for s in segments if s.part == "backward"]
    writers = [s for s in backward if s.reason == "gradient_output"]
    grads = {full.indexed.node_of_entry(e) for e in full.indexed.outputs[1:]}
    assert {s.nodes[0] for s in writers if not s.bulk} == grads
    assert all(len(s.nodes) == 1 for s in backward if not s.bulk)
    assert backward[-1].reason in ("end_of_graph", "gradient_output")


def test_async_ops_run_alone_and_excluded_entries_start_segments():
    graph = Graph([chain(var("x"), ["tanh", "exp", "sin", "cos", "negative"])])
    segments = _segments(graph, async_ops=["sin"])
    assert [(s.names, s.reason, s.bulk) for s in segments] == [
        (["n0", "n1"], "async_op", True), (["n2"], "async_op", False),
        (["n3", "n4"], "end_of_forward", True)]
    idx = graph.indexed
    excluded = [idx.entry_id(idx[3].node, 0)]     # n2's output: n2 writes it, n3 reads it
    segments = _segments(graph, excluded=excluded, inference_bulk=False)
    assert [(s.names, s.reason) for s in segments] == [
        (["n0", "n1"], "excluded_entry"), (["n2"], "excluded_entry"),
        (["n3", "n4"], "end_of_forward")]


def test_bulk_disabled_runs_every_op_alone():
    graph = build_gradient_graph(Graph([chain(var("x"), ["tanh", "exp"])]), xs=["x"])
    segments = _segments(graph, bulk=False)
    assert all(not s.bulk and len(s.nodes) == 1 for s in segments)
    assert {s.reason for s in segments} == {"bulk_disabled"}


def test_skipped_plus_nodes_are_left_out():
    x = var("x")
    terms = [apply(op, x, name=f"f{i}") for i, op in enumerate(["sin", "cos", "exp"] * 3)]
    total = terms[0]
    for i, term in enumerate(terms[1:]):
        total = apply("broadcast_add", total, term, name=f"add{i}")
    full = planned(build_gradient_graph(Graph([total]), xs=["x"]), {"x": (3,)}, addto=True)
    skipped = full.attrs["memory_plan"].skipped_nodes
    assert skipped
    assert _covers_every_op_once(full, _segments(full), skipped)


def test_cached_op_style_does_not_break_at_variables():
    x, w = var("x"), var("w")
    y = apply("broadcast_mul", apply("tanh", x, name="t"), w, name="m")
    full = build_gradient_graph(Graph([apply("exp", y, name="e")]), xs=["x"])
    executor = [s.reason for s in _segments(full) if s.part == "forward"]
    cached = [s.reason for s in _segments(full, break_at_variables=False) if s.part == "forward"]
    assert executor == ["variable", "end_of_forward"] and cached == ["end_of_forward"]
