"""CachedOp and GraphExecutor run every graph transformation through the pass registry, once."""
import numpy

import mxlab as mx
from mxlab.executor import CachedOp
from mxlab.executor.planning import gradient_graph, infer_graph
from mxlab.graph.recompute import plan_sublinear
from mxlab.graph.passes import get_pass
from mxlab.subgraph import partition_symbol


def _net():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    return mx.sym.tanh(mx.sym.dot(x, w)) * 2


def _names(graph):
    return [r.name for r in graph.pass_log]


def _record_call(op, *arrays):
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        y = op(*arrays)
    y.backward()
    return y


def _arrays():
    return mx.nd.array(numpy.ones((2, 3))), mx.nd.array(numpy.full((3, 4), 0.1))


def test_inference_call_log():
    op = CachedOp(_net(), {"static_alloc": True})
    op(*_arrays())
    assert _names(op.plans["forward"].graph) == ["infer_shape", "infer_type", "plan_memory",
                                                 "plan_segments"]


def test_recorded_call_log_has_the_gradient_pass_and_infers_once():
    op = CachedOp(_net(), {"static_alloc": True})
    _record_call(op, *_arrays())
    prefix = ["build_gradient", "infer_shape", "infer_type", "plan_memory"]
    assert _names(op.plans["full"].graph) == prefix + ["plan_segments"]
    assert _names(op.plans["backward"].graph) == prefix + ["detect_inplace_addto",
                                                           "plan_segments"]


def test_records_carry_what_each_pass_requires_and_provides():
    op = CachedOp(_net(), {"static_alloc": True})
    _record_call(op, *_arrays())
    graph = op.plans["backward"].graph
    for record in graph.pass_log:
        info = get_pass(record.name)
        assert (record.requires, record.provides) == (info.requires, info.provides)
        for attr in record.provides:
            assert attr in graph.attrs, (record.name, attr)
    # NOTE: the segments planned are the plan's own (the pass result graph is kept).
    assert graph.attrs["segments"] and op.plans["backward"].segments
    assert all(s.part == "backward" for s in op.plans["backward"].segments)


def test_recompute_plans_before_the_gradient_pass():
    op = CachedOp(_net(), {"static_alloc": True, "recompute": True})
    _record_call(op, *_arrays())
    names = _names(op.plans["full"].graph)
    assert names[:2] == ["plan_recompute", "build_gradient"]
    for name in ("build_gradient", "infer_shape", "infer_type", "plan_memory"):
        assert names.count(name) == 1, (name, names)   # each pass once, sized by input shapes
    assert "recompute_plan" in op.plans["full"].graph.attrs


def test_executor_joint_log():
    x, w = _arrays()
    ex = _net().bind(mx.cpu(), {"x": x, "w": w}, args_grad={"x": x.zeros_like(),
                                                           "w": w.zeros_like()})
    assert _names(ex.graph) == ["build_gradient", "infer_shape", "infer_type", "plan_memory",
                                "detect_inplace_addto", "plan_segments"]


def test_partition_shows_in_the_cached_op_log():
    sym, _ = partition_symbol(_net(), "default", op_names=["tanh", "_mul_scalar"])
    assert _names(sym.graph) == ["partition_graph"]
    assert sym.graph.attrs["partition"].subgraphs
    op = CachedOp(sym, {"static_alloc": True})
    want = CachedOp(_net(), {"static_alloc": True})(*_arrays()).asnumpy()
    numpy.testing.assert_allclose(op(*_arrays()).asnumpy(), want, rtol=1e-6)
    assert _names(op.plans["forward"].graph)[:2] == ["partition_graph", "infer_shape"]


def test_recompute_sized_from_input_shapes_infers_once():
    shapes, dtypes = {"x": (2, 3), "w": (3, 4)}, {"x": "float32", "w": "float32"}
    net = _net()
    full = infer_graph(gradient_graph(net.graph, ["x", "w"], recompute=True, shapes=shapes,
                                      dtypes=dtypes), shapes, dtypes)
    assert _names(full) == ["plan_recompute", "build_gradient", "infer_shape", "infer_type"]
    sized = plan_sublinear(infer_graph(net.graph, shapes, dtypes))
    assert full.attrs["recompute_plan"].mirrored == sized.mirrored
    assert full.attrs["recompute_plan"].estimated_peak == sized.estimated_peak > 0


def test_executor_log_with_partition_and_mirroring(monkeypatch):
    monkeypatch.setenv("MXNET_BACKWARD_DO_MIRROR", "1")
    sym, _ = partition_symbol(_net(), "default", op_names=["tanh", "_mul_scalar"])
    x, w = _arrays()
    ex = sym.bind(mx.cpu(), {"x": x, "w": w}, args_grad={"x": x.zeros_like(),
                                                         "w": w.zeros_like()})
    names = _names(ex.graph)
    assert names == ["partition_graph", "build_gradient", "infer_shape", "infer_type",
                     "plan_memory", "detect_inplace_addto", "plan_segments"]
    assert ex.graph.attrs["mirrored"]           # the mirror policy ran inside build_gradient
    for record in ex.graph.pass_log:
        assert (record.requires, record.provides) == (get_pass(record.name).requires,
                                                      get_pass(record.name).provides)
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones((2, 4)))
    want = mx.nd.array(numpy.ones((2, 4)) * 2 * (1 - numpy.tanh(0.3) ** 2))
    numpy.testing.assert_allclose(ex.grad_dict["x"].asnumpy(),
                                  mx.nd.dot(want, w.T).asnumpy(), rtol=1e-5)
