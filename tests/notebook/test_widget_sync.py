"""The explorer widgets and the model stay in step both ways (model -> widgets and back)."""
from nb_helpers import mlp_symbol, recorded_cached_op

import mxlab as mx
from mxlab.notebook.explorer import DEFAULT_MATCH_RANGE, VIEWS, explore


def test_view_buttons_follow_the_model_and_back():
    ex = explore(mlp_symbol(), shapes={"data": (2, 5)})
    for view in VIEWS:
        ex.model.set_view(view)
        assert ex.views.value == view.capitalize()
    ex.views.value = "Segments"
    assert ex.model.view == "segments"
    ex.model.set_view("memory")
    assert ex.views.value == "Memory" and ex.knobs.layout.display == ""


def test_knobs_follow_the_model_and_back():
    ex = explore(recorded_cached_op(), kind="backward")
    assert ex.match_range.value == DEFAULT_MATCH_RANGE and not ex.recompute.value
    ex.model.replan(match_range=0, recompute=True)
    assert ex.match_range.value == 0 and ex.recompute.value is True
    assert "match_range=0" in ex.header.value and "recompute=on" in ex.header.value
    ex.sum_cap.value = 3
    assert ex.model.knobs == {"match_range": 0, "sum_cap": 3, "recompute": True}
    ex.reset.click()
    assert ex.model.what_if is None and ex.model.knobs["match_range"] is None
    assert ex.match_range.value == DEFAULT_MATCH_RANGE and ex.sum_cap.value == 0
    assert "what-if" not in ex.header.value


def test_kind_change_drops_the_what_if_and_says_so():
    ex = explore(recorded_cached_op())
    ex.model.replan(match_range=0)
    ex.kind.value = "backward"
    assert ex.model.kind == "backward" and ex.model.what_if is None
    assert ex.match_range.value == DEFAULT_MATCH_RANGE


def test_filter_depth_and_picker_follow_the_model():
    ex = explore(mlp_symbol())
    ex.model.set_filter("Activation")
    assert ex.filter.value == "Activation"
    ex.model.set_depth(1)
    assert ex.depth.value == 1 and "fc1" in ex.model.collapsed
    ex.depth.value = 0
    assert not ex.model.collapsed
    ex.model.select("fc2")
    assert ex.picker.value == "fc2" and ex.canvas.selected == "n7"
    label = {v: k for k, v in ex.picker.options}["fc2"]
    assert "FullyConnected" in label


def test_cluster_click_collapses_and_box_click_expands():
    ex = explore(mlp_symbol())
    ex.canvas.selected = "cluster_fc1"              # what a click on a block title sends
    assert ex.model.collapsed == {"fc1"}
    assert "collapsed)" in ex.canvas.svg or "collapsed" in ex.model.dot()
    ex.canvas.selected = "c0"                       # the collapsed box
    assert not ex.model.collapsed


def test_bad_click_is_logged_not_raised():
    ex = explore(mlp_symbol())
    ex.canvas.selected = "nope"
    assert "no node named 'nope'" in ex.model.log[-1] and "nope" in ex.header.value


def test_engine_view_of_an_unrun_symbol_shows_no_other_events():
    mx.nd.tanh(mx.nd.ones((3,)) + 1)                # events of "another cell", same op
    mx.engine.wait_all()
    ex = explore(mx.sym.tanh(mx.sym.var("q"), name="never_run"))
    ex.model.set_view("engine")
    assert ex.model.engine_events() == []
    assert "No engine events for this graph yet" in ex.panel.value
