"""DOT building and SVG layout."""
from nb_helpers import mlp_symbol, recorded_cached_op

import mxlab as mx
from mxlab.graph import Graph
from mxlab.notebook.render import DrawOptions, block_path, build_dot, node_role, to_svg


def test_block_path_rules():
    assert block_path("net.0.weight") == ["net", "net.0"]
    assert block_path("fc1_weight") == ["fc1"]
    assert block_path("node_3") == []
    assert block_path("sum_grad_1") == []


def test_dot_golden_for_mlp():
    dot = build_dot(Graph(mlp_symbol()._outputs))
    assert 'n3 [label="fc1\\nFullyConnected" shape=box fillcolor="#bebada" tooltip="fc1" ' \
           'id="n3"]' in dot
    assert 'subgraph "cluster_fc1"' in dot
    assert 'n1 [label="fc1_weight" shape=ellipse fillcolor="#d9d9d9"' in dot     # parameter
    assert 'n0 [label="data" shape=ellipse fillcolor="#8dd3c7"' in dot           # input
    assert "peripheries=2" in dot.split("n7 [")[1].split("\n")[0]                  # output
    assert "  n3 -> n4 []" in dot


def test_roles_in_gradient_graph():
    op = recorded_cached_op()
    graph = op.full_graph
    roles = {n.name: node_role(graph, n.nid) for n in graph.indexed.nodes}
    assert roles["x"] == "input"
    assert any(r == "head_grad" for r in roles.values())
    assert any(r == "backward" for r in roles.values())


def test_selected_node_highlighted_and_svg_has_titles():
    graph = Graph(mlp_symbol()._outputs)
    dot = build_dot(graph, DrawOptions(selected=4))
    assert 'id="n4" color="#d62728" penwidth=3' in dot
    svg = to_svg(dot)
    assert svg.startswith("<svg") and "<title>n4</title>" in svg


def test_memory_view_colours_edges_by_storage():
    op = recorded_cached_op()
    dot = build_dot(op.full_graph, DrawOptions(view="memory"), memory_plan=op.memory_plan("full"))
    assert "sid=" in dot and "penwidth=2" in dot


def test_op_filter_keeps_only_matching_ops():
    dot = build_dot(Graph(mlp_symbol()._outputs), DrawOptions(op_filter="Activation"))
    assert "relu1" in dot and "fc1\\n" not in dot


def test_partition_exclusion_marked():
    x = mx.sym.var("data")
    e = mx.sym.exp(x, name="e")
    y = mx.sym.cos(e, name="c") + mx.sym.sin(e, name="s")
    _, part = mx.subgraph.partition(y, "default", op_names=["exp", "sin", "elemwise_add"])
    dot = build_dot(Graph(y._outputs), DrawOptions(view="partitions"), partition=part)
    assert 'xlabel="excluded (cycle from e)"' in dot
