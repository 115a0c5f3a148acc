"""The explorer model without a browser: views, selection, details, knobs, large graphs."""
import pytest
from nb_helpers import chain_symbol, mlp_symbol, recorded_cached_op

import mxlab as mx
from mxlab.base import MXNetTypeError, MXNetValueError
from mxlab.notebook.explorer import NO_PARTITION, VIEWS, ExplorerModel, explore
from mxlab.notebook.sources import Source


def _model(obj, **kwargs):
    return ExplorerModel(Source(obj, **kwargs))


def test_symbol_model_selects_node_with_shapes_and_storage():
    model = _model(mlp_symbol(), shapes={"data": (2, 5)})
    info = model.select("fc1")
    assert info["op"] == "FullyConnected"
    assert info["attrs"]["num_hidden"] == "4"
    assert [r["shape"] for r in info["inputs"]] == [(2, 5), (4, 5), (4,)]
    assert info["outputs"][0]["shape"] == (2, 4)
    assert info["outputs"][0]["dtype"] == "float32"
    assert isinstance(info["outputs"][0]["storage_id"], int)
    assert info["segment"]["reason"] == "end_of_graph"
    assert "fc1" in model.details_html() and "FullyConnected" in model.details_html()


def test_select_by_dot_id_and_unknown_name():
    model = _model(mlp_symbol())
    assert model.select("n4")["name"] == "relu1"
    assert model.selected == 4
    with pytest.raises(MXNetValueError, match="no node named 'nope'"):
        model.select("nope")


def test_view_switching_changes_colouring_and_panel():
    model = _model(recorded_cached_op())
    assert model.kind == "full"
    seen = []
    model.listeners.append(lambda m: seen.append(m.view))
    for view in VIEWS:
        model.set_view(view)
        assert model.panel_html()
    assert seen == list(VIEWS)
    model.set_view("memory")
    assert "sid=" in model.dot()
    assert "storage id" in model.panel_html() and "<img" in model.panel_html()
    model.set_view("segments")
    assert "ended by" in model.dot()
    with pytest.raises(MXNetValueError, match="unknown view"):
        model.set_view("colours")


def test_backward_graph_labels_head_gradient_and_backward_nodes():
    model = _model(recorded_cached_op())
    dot = model.dot()
    assert "head gradient" in dot
    assert "filled,dashed" in dot          # backward nodes
    assert model.source.kinds() == ["full", "backward"]


def test_partitions_view_without_partition_says_so():
    mx.subgraph._LAST.clear()
    model = _model(mlp_symbol())
    model.set_view("partitions")
    assert NO_PARTITION in model.panel_html().replace("&#x27;", "'")


def test_partitions_view_draws_subgraph_clusters():
    x = mx.sym.var("data")
    y = mx.sym.cos(mx.sym.exp(x, name="e")) + mx.sym.sin(mx.sym.var("z"), name="s")
    _, part = mx.subgraph.partition(y, "default", op_names=["exp", "cos"])
    model = _model(y, partition=part)
    model.set_view("partitions")
    dot = model.dot()
    assert 'subgraph "cluster_g0"' in dot and "subgraph 0" in dot
    assert 'color="#d62728" penwidth=2' in dot      # boundary edge out of the subgraph
    assert "backend <b>default</b>" in model.panel_html()
    assert model.select("e")["subgraph"] == 0


def test_memory_knobs_replan_what_if():
    model = _model(recorded_cached_op())
    model.set_kind("full")
    shared = model.replan(match_range=16)
    alone = model.replan(match_range=0)
    assert alone.planned_bytes >= shared.planned_bytes
    assert len(alone.blocks) >= len(shared.blocks)
    assert model.what_if.memory_plan is alone
    with pytest.raises(MXNetValueError, match="unknown planner knobs"):
        model.replan(speed=3)


def test_recompute_knob_adds_mirror_nodes_and_saves_memory():
    y = mx.sym.var("x")
    for i in range(12):
        y = mx.sym.tanh(y, name=f"t{i}")
    op = mx.executor.CachedOp(y, {"static_alloc": True})
    a = mx.nd.ones((64,))
    a.attach_grad()
    with mx.autograd.record():
        out = op(a)
    out.backward()
    model = _model(op)
    kept = model.replan().planned_bytes
    mirrored = model.replan(recompute=True).planned_bytes
    assert mirrored < kept
    assert any(n.name.endswith("_mirror") for n in model.graph.indexed.nodes)
    assert "mirror of t" in model.dot()


def test_large_graph_is_collapsed_and_filterable():
    model = ExplorerModel(Source(chain_symbol(2000, blocks=20)))
    assert len(model.collapsed) == 20
    dot = model.dot()
    assert dot.count("collapsed)") == 20
    assert dot.count(" shape=box ") == 0            # every op hidden inside a block box
    model.toggle_block("block3")
    assert dot.count("collapsed)") - model.dot().count("collapsed)") == 1
    model.select("c0")                               # clicking a collapsed block expands it
    assert "block0" not in model.collapsed
    model.collapsed.clear()
    model.set_filter("tanh")
    assert "more nodes not drawn" in model.dot()
    assert model.dot().count('shape=box fillcolor') <= model.max_nodes


def test_large_graph_svg_renders_quickly():
    import time
    model = ExplorerModel(Source(chain_symbol(2000, blocks=20)))
    start = time.perf_counter()
    svg = model.svg()
    assert svg.startswith("<svg") and "block19" in svg
    assert time.perf_counter() - start < 10


def test_refresh_notices_replan_and_keeps_selection():
    x = mx.sym.var("x")
    op = mx.executor.CachedOp(mx.sym.tanh(x, name="t") * 2, {})
    op(mx.nd.ones((2,)))
    model = _model(op)
    model.select("t")
    assert model.refresh() is False
    op(mx.nd.ones((5,)))
    assert model.refresh() is True
    assert model.graph.indexed[model.selected].name == "t"
    assert "shape" in model.summary_html()


def test_engine_view_lists_events_of_this_graph():
    op = recorded_cached_op()
    model = _model(op)
    model.set_view("engine")
    events = model.engine_events()
    assert events and all(e.name.startswith("segment") or e.name in
                          {n.name for n in model.graph.indexed.nodes} |
                          {n.op.name for n in model.graph.indexed.nodes if n.op} for e in events)
    assert "var@version" in model.panel_html()


def test_block_source_before_and_after_call():
    class Net(mx.gluon.HybridBlock):
        def forward(self, x):
            return mx.np.tanh(x) * 2

    net = Net()
    net.hybridize(static_alloc=True)
    with pytest.raises(MXNetValueError, match="nothing traced"):
        ExplorerModel(Source(net))
    net(mx.np.ones((2, 3)))
    model = ExplorerModel(Source(net))
    assert model.graph.indexed.num_nodes >= 2
    assert model.source.memory_plan("forward") is not None


def test_explore_rejects_other_objects_and_widget_static_bundle():
    with pytest.raises(MXNetTypeError, match="cannot inspect a int"):
        explore(3)
    ex = explore(mlp_symbol(), shapes={"data": (2, 5)})
    bundle = ex._repr_mimebundle_()
    assert bundle["image/svg+xml"].startswith("<svg")
    assert "data:image/svg+xml;base64," in bundle["text/html"]
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_widget_click_selects_node_and_views_toggle():
    ex = explore(mlp_symbol(), shapes={"data": (2, 5)})
    ex.canvas.selected = "n3"                       # what the JS click handler sets
    assert ex.model.details()["name"] == "fc1"
    assert "fc1" in ex.info.value and ex.picker.value == "fc1"
    ex.views.value = "Memory"
    assert ex.model.view == "memory" and ex.knobs.layout.display == ""
    ex.picker.value = "relu1"
    assert ex.canvas.selected == "n4"
    ex.match_range.value = 0                        # knob re-plans live
    assert ex.model.what_if is not None and "what-if" in ex.panel.value


def test_gluon_blocks_become_labelled_clusters():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4, activation="relu"), mx.gluon.nn.Dense(2))
    net.initialize()
    net.hybridize()
    net(mx.np.ones((3, 5)))
    model = ExplorerModel(Source(net))
    dot = model.dot()
    assert 'label="0: Dense"' in dot and 'label="1: Dense"' in dot
    cluster0 = dot.split('subgraph "cluster_0"')[1].split("}")[0]
    assert "FullyConnected" in cluster0 and cluster0.count("shape=ellipse") == 2
    model.toggle_block("0")
    assert "0: Dense\\n(" in model.dot() and "collapsed" in model.dot()


def test_executor_joint_plan():
    y = mx.sym.tanh(mx.sym.exp(mx.sym.var("x"), name="e"), name="t")
    executor = y.simple_bind(mx.cpu(), x=(3,))
    executor.forward(is_train=True)
    executor.backward(mx.nd.ones((3,)))
    model = ExplorerModel(Source(executor))
    assert model.kind == "joint"
    assert model.select("e")["outputs"][0]["shape"] == (3,)
    assert model.replan(match_range=0).planned_bytes >= executor.memory_plan.planned_bytes
    with pytest.raises(MXNetValueError, match="match_range only"):
        model.replan(sum_cap=2)


def test_widget_sync_does_not_select_nodes_by_itself():
    ex = explore(mlp_symbol())
    ex.kind.options = ["forward", "full"]          # an options change resets Dropdown values
    ex.model.set_view("memory")
    assert ex.model.selected is None and ex.picker.value is None
    ex.filter.value = "Activation"
    assert ex.model.op_filter == "Activation" and ex.model.selected is None


def test_full_graph_segments_cover_forward_and_backward_in_every_view():
    model = _model(recorded_cached_op())
    assert model.kind == "full"
    backward = next(n.name for n in model.graph.indexed.nodes if "_backward" in n.name)
    forward = next(n.name for n in model.graph.indexed.nodes
                   if not n.is_variable and n.op.name == "tanh")
    seen = {}
    for view in VIEWS:
        model.set_view(view)
        seen[view] = (model.select(backward)["segment"], model.select(forward)["segment"])
    assert all(pair == seen["graph"] for pair in seen.values()), seen
    back_seg, fwd_seg = seen["graph"]
    assert back_seg["part"] == "backward" and fwd_seg["part"] == "forward"


def test_every_op_of_a_trained_block_gets_a_block_scope_and_a_readable_name():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4, activation="relu"), mx.gluon.nn.Dense(2))
    net.initialize()
    net.hybridize(static_alloc=True)
    x = mx.np.ones((3, 5))
    with mx.autograd.record():
        loss = net(x).sum()
    loss.backward()
    model = ExplorerModel(Source(net))
    paths = model.block_paths()
    graph = model.graph
    relu = next(n for n in graph.indexed.nodes
                if not n.is_variable and n.op.name == "Activation")
    assert paths[relu.name][0] == "0"                        # parameter-free, inside its Dense
    backward = [n.name for n in graph.indexed.nodes if "_backward" in n.name]
    assert backward and all(paths.get(name, [None])[0] in ("0", "1") for name in backward)
    names = model.display_names()
    assert names[relu.name].startswith("0") and "0.weight" in names.values()
    model.set_depth(1)
    assert model.collapsed == {"0", "1"}
    dot = model.dot()
    assert dot.count("collapsed)") == 2 and "_backward" not in dot.replace("tooltip", "")
