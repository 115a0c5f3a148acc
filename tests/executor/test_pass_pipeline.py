"""CachedOp and GraphExecutor run every graph transformation through the pass registry, once."""
import numpy

import mxlab as mx
from mxlab.executor import CachedOp
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
    assert names[:4] == ["infer_shape", "infer_type", "plan_recompute", "build_gradient"]
    assert names.count("build_gradient") == 1 and names.count("plan_memory") == 1
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
