"""Graph layout runs in worker processes: crashes and timeouts fall back, the caller survives."""
import os
import signal

import pytest
from nb_helpers import chain_symbol, mlp_symbol
from random_graphs import random_case

import mxlab as mx
from mxlab.notebook import fallback
from mxlab.notebook.explorer import VIEWS, ExplorerModel
from mxlab.notebook.layout import layout, without_edge_labels
from mxlab.notebook.sources import Source
from mxlab.viz import layout as viz_layout
from mxlab.viz.layout import LayoutError, WorkerPool


def test_layout_runs_in_another_process():
    pool = WorkerPool(1)
    try:
        svg = pool.run("digraph { a -> b }").decode()
        worker = pool._idle.get_nowait()
        assert worker.proc.pid != os.getpid() and "<svg" in svg
    finally:
        worker.kill()


def test_crashed_worker_is_reported_and_replaced():
    pool = WorkerPool(1)
    pool.warm()
    worker = pool._idle.queue[0]
    os.kill(worker.proc.pid, signal.SIGABRT)        # what Graphviz's failed assertion does
    worker.proc.wait()
    with pytest.raises(LayoutError, match="crashed .*SIGABRT"):
        pool.run("digraph { a -> b }")
    assert b"<svg" in pool.run("digraph { a -> b }")  # a fresh worker took its place
    pool.close()


def test_timeout_falls_back_to_the_layered_drawing_and_says_so():
    dot = ExplorerModel(Source(chain_symbol(600, blocks=1)), depth=0).dot()
    result = layout(dot, timeout=0.001)
    assert "longer than 0.001 s" in result.fallback and "layered" in result.fallback
    nodes, _ = fallback.parse_dot(dot)
    assert result.svg.count('class="node"') == len(nodes) == 301   # 300 drawn + "more" note
    assert "mxlab-fallback" in result.svg


def test_graphviz_error_falls_back():
    result = layout("digraph { a -> }")
    assert result.fallback and "Graphviz failed" in result.fallback


def test_edge_labels_are_dropped_on_retry_only():
    dot = 'digraph {\n  n0 [label="x"]\n  n0 -> n1 [label="2x3" color="red"]\n}'
    assert without_edge_labels(dot) == 'digraph {\n  n0 [label="x"]\n  n0 -> n1 [ color="red"]\n}'


def test_fallback_keeps_clickable_node_titles():
    dot = ExplorerModel(Source(mlp_symbol())).dot()
    svg = fallback.layered_svg(dot, "test reason")
    nodes, edges = fallback.parse_dot(dot)
    assert len(edges) == 7 and set(nodes) == {f"n{i}" for i in range(8)}
    for key in nodes:
        assert f"<title>{key}</title>" in svg
    assert "test reason" in svg


def test_model_summary_says_when_the_layout_fell_back(monkeypatch):
    model = ExplorerModel(Source(mlp_symbol()))
    assert model.layout_note() is None and "layout:" not in model.summary_html()
    monkeypatch.setattr(viz_layout, "DEFAULT_TIMEOUT", 1e-6)
    layout.cache_clear()
    try:
        model.set_filter("FullyConnected")             # a new drawing, laid out with no time
        assert "longer than" in model.layout_note()
        assert "mxlab-layout-note" in model.summary_html()
    finally:
        layout.cache_clear()


def _every_view(model):
    for view in VIEWS:
        model.set_view(view)
        svg = model.svg()
        assert svg.startswith("<svg") and 'class="node"' in svg, (view, model.layout_note())


@pytest.mark.parametrize("seed", range(20))
def test_random_graphs_lay_out_in_every_view(seed):
    sym, shapes, partition = random_case(seed)
    _every_view(ExplorerModel(Source(sym, shapes=shapes, partition=partition)))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20, 200))
def test_random_graphs_lay_out_in_every_view_sweep(seed):
    test_random_graphs_lay_out_in_every_view(seed)


def _zoo_training_model(name):
    from mxlab.gluon.model_zoo import vision
    net = vision.get_model(name)
    net.initialize()
    net.hybridize(static_alloc=True)
    with mx.autograd.record():
        loss = net(mx.np.ones((1, 3, 32, 32))).sum()
    loss.backward()
    return ExplorerModel(Source(net))


def test_resnet18_memory_view_survives_graphviz():
    """The view that made Graphviz abort the kernel (issue 18, item 7)."""
    model = _zoo_training_model("resnet18_v1")
    model.set_depth(0)
    model.set_view("memory")
    svg = model.svg()
    assert svg.startswith("<svg") and svg.count('class="node"') >= 250   # the whole training graph
    note = model.layout_note()
    assert note is None or ("crashed" in note or "failed" in note)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["resnet18_v1", "resnet34_v1", "resnet18_v2", "resnet34_v2"])
def test_every_view_of_every_zoo_training_graph(name):
    model = _zoo_training_model(name)
    for depth in (model.depth, 0):
        model.set_depth(depth)
        _every_view(model)
