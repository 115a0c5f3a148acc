"""Engine replay: per-step states in push order, versions before/after, live buffers, overlap,
and small per-step updates on a 2,000-node graph."""
import json

import pytest
from nb_helpers import chain_symbol, recorded_cached_op

import mxlab as mx
from mxlab.engine.log import EngineEvent
from mxlab.notebook.replay import ReplayModel, replay


def _event(seq, name, reads, writes, thread, start, end, push_seq=None):
    return EngineEvent(seq, name, reads, writes, thread, start, end, push_seq=push_seq)


def test_steps_follow_push_order_with_versions_before_and_after():
    events = [_event(2, "b", ((1, 1),), ((2, 1),), "w0", 2.0, 3.0, push_seq=1),
              _event(1, "a", (), ((1, 1),), "w0", 0.0, 1.0, push_seq=0),
              _event(3, "c", (), ((1, 2),), "w1", 3.0, 4.0, push_seq=2)]
    steps = ReplayModel(events).steps
    assert [s["name"] for s in steps] == ["a", "b", "c"]
    assert steps[2]["writes"] == [(1, 1, 2)]        # var 1: version 1 -> 2
    assert steps[1]["reads"] == [(1, 1)]
    assert steps[0]["live"] == [1] and steps[1]["live"] == [1, 2] and steps[2]["live"] == [1]


def test_overlap_and_a_write_waiting_on_a_read():
    """A read of var 1 runs on w0 while an unrelated op runs on w1 (overlap); the write of var 1
    starts only when the read ended."""
    events = [_event(1, "read_v1", ((1, 1),), ((2, 1),), "w0", 0.0, 2.0, push_seq=0),
              _event(2, "other", (), ((3, 1),), "w1", 1.0, 1.5, push_seq=1),
              _event(3, "write_v1", (), ((1, 2),), "w1", 2.0, 2.5, push_seq=2)]
    model = ReplayModel(events)
    assert model.steps[0]["overlap"] == ["other"] and model.steps[1]["overlap"] == ["read_v1"]
    assert model.steps[2]["overlap"] == []
    assert "ran alone" in model.step_html(2) and "overlapped" in model.step_html(0)
    assert "v1: 1&rarr;2" in model.step_html(2)


def test_cached_op_replay_highlights_the_nodes_each_segment_runs():
    mx.engine.event_log.clear()
    op = recorded_cached_op()
    mx.engine.wait_all()
    view = replay(op)
    steps = view.model.steps
    graph = view.model.graph_model.graph
    names = {f"n{n.nid}": n.name for n in graph.indexed.nodes}
    assert steps and all(s["running"] for s in steps)
    for s in steps:
        assert {names[d] for d in s["running"]} == set(s["nodes"])
    backward = next(s for s in steps if "sum_grad" in s["nodes"])
    assert backward["read_nodes"]                   # it reads gradients made by earlier steps
    view.slider.value = len(steps) - 1
    assert view.canvas.highlight["mxlab-running"] == steps[-1]["running"]
    assert f"step {len(steps)}/{len(steps)}" in view.info.value


@pytest.mark.parametrize("length", [300, pytest.param(2000, marks=pytest.mark.slow)])
def test_large_graph_steps_with_small_updates(length):
    y = chain_symbol(length, blocks=20)
    op = mx.executor.CachedOp(y, {"static_alloc": True})
    x = mx.nd.ones((4,))
    x.attach_grad()
    mx.engine.event_log.clear()
    with mx.autograd.record():
        out = op(x)
    out.backward()                                   # training: bulk segments of 15 nodes
    mx.engine.wait_all()
    view = replay(op)
    svg = view.canvas.svg
    assert view.model.graph_model.graph.indexed.num_nodes > 2 * length
    assert len(view.model.steps) >= length // 10
    sizes = []
    for i in range(0, len(view.model.steps), 7):
        view.slider.value = i
        sizes.append(len(json.dumps(view.canvas.highlight)) + len(view.info.value))
        assert view.model.steps[i]["running"][0].startswith("c")   # inside a collapsed block
    assert view.canvas.svg is svg                    # the drawing is sent once
    assert max(sizes) < 4000                         # each step sends a small delta


def test_replay_of_a_cell_without_a_graph():
    mx.engine.event_log.clear()
    a = mx.nd.ones((3,))
    a += 1
    mx.engine.wait_all()
    view = replay()
    assert view.canvas is None and [s["name"] for s in view.model.steps][-1] == "_plus_scalar"
    bundle = view._repr_mimebundle_()
    assert "step 1/" in bundle["text/html"]
