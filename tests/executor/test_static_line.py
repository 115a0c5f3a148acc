"""A static CachedOp (static_alloc + static_shape) runs each plan as one straight-line program
(one engine push per call), FC backward is one op that skips gradients nobody reads, and every
path gives the same answers."""
import numpy
import pytest

import mxlab as mx
from mxlab.executor import CachedOp
from mxlab.ops.registry import get_op

STATIC = {"static_alloc": True, "static_shape": True}


def _mlp():
    x = mx.sym.var("x")
    h = mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=6, name="fc0"))
    return mx.sym.FullyConnected(h, num_hidden=3, name="fc1")


def _inputs(rng):
    shapes = {"x": (4, 5), "fc0_weight": (6, 5), "fc0_bias": (6,), "fc1_weight": (3, 6),
              "fc1_bias": (3,)}
    return {k: mx.nd.array(rng.standard_normal(s).astype("float32")) for k, s in shapes.items()}


def _train_step(flags, arrays):
    """Output and gradients of one recorded call (data without gradient)."""
    sym = _mlp()
    op = CachedOp(sym, flags)
    inputs = [arrays[name] for name in op.input_names]
    for name, arr in zip(op.input_names, inputs):
        if name != "x":
            arr.attach_grad()
    with mx.autograd.record():
        out = op(*inputs)
    out.backward(mx.nd.ones_like(out))
    grads = {n: a.grad.asnumpy() for n, a in zip(op.input_names, inputs) if n != "x"}
    return op, out.asnumpy(), grads


@pytest.mark.parametrize("flags", [{}, {"static_alloc": True}, STATIC])
def test_every_mode_gives_the_imperative_answer(flags):
    rng = numpy.random.default_rng(0)
    arrays = _inputs(rng)
    _, out, grads = _train_step(flags, arrays)
    names = ["fc0_weight", "fc0_bias", "fc1_weight", "fc1_bias"]
    params = [arrays[n] for n in names]
    for p in params:
        p.attach_grad()
    with mx.autograd.record():
        h = mx.nd.relu(mx.nd.FullyConnected(arrays["x"], params[0], params[1], num_hidden=6))
        want = mx.nd.FullyConnected(h, params[2], params[3], num_hidden=3)
    want.backward(mx.nd.ones_like(want))
    numpy.testing.assert_array_equal(out, want.asnumpy())
    for name, p in zip(names, params):
        numpy.testing.assert_allclose(grads[name], p.grad.asnumpy(), rtol=1e-6, atol=1e-6)


def test_a_static_call_is_one_engine_push_per_plan():
    rng = numpy.random.default_rng(1)
    arrays = _inputs(rng)
    _train_step(STATIC, arrays)   # plans made
    mx.engine.event_log.clear()
    op, _, _ = _train_step(STATIC, arrays)
    mx.nd.waitall()
    pushes = [e for e in mx.engine.event_log.events() if e.name.startswith("segment")]
    # NOTE: forward (full plan) and backward: one push each, though each has several segments.
    assert len(pushes) == 2
    assert len(op.segments("backward")) > 1


def test_the_data_gradient_nobody_reads_is_planned_null():
    op, _, _ = _train_step(STATIC, _inputs(numpy.random.default_rng(2)))
    graph = op.plans["backward"].graph
    idx = graph.indexed
    requests = op.memory_plan("backward").requests()
    fc_backward = [n for n in idx.nodes if n.op is not None
                   and n.op.name == "_backward_FullyConnected"]
    assert len(fc_backward) == 2
    data_grad_requests = sorted(requests[idx.output_entries(n.nid)[0]] for n in fc_backward)
    assert data_grad_requests == ["null", "write"]


def test_fc_backward_skips_outputs_given_as_none():
    op = get_op("_backward_FullyConnected")
    rng = numpy.random.default_rng(3)
    g, x, w = (rng.standard_normal(s).astype("float32") for s in ((4, 3), (4, 2, 5), (3, 10)))
    attrs = op.parse_attrs({"num_hidden": 3})
    gx, gw, gb = op.compute(numpy, [g, x, w], attrs)
    numpy.testing.assert_allclose(gx, (g @ w).reshape(x.shape), rtol=1e-6)
    numpy.testing.assert_allclose(gw, g.T @ x.reshape(4, -1), rtol=1e-6)
    numpy.testing.assert_allclose(gb, g.sum(axis=0), rtol=1e-6)
    outs = [None, numpy.full(w.shape, numpy.nan, "float32"), None]
    op.compute_into(numpy, [g, x, w], attrs, outs)
    numpy.testing.assert_array_equal(outs[1], gw)


def test_fc_backward_without_flatten_keeps_leading_axes():
    rng = numpy.random.default_rng(4)
    x = mx.nd.array(rng.standard_normal((2, 3, 5)).astype("float32"))
    w = mx.nd.array(rng.standard_normal((4, 5)).astype("float32"))
    for arr in (x, w):
        arr.attach_grad()
    with mx.autograd.record():
        y = mx.nd.FullyConnected(x, w, num_hidden=4, no_bias=True, flatten=False)
    y.backward(mx.nd.ones_like(y))
    numpy.testing.assert_allclose(x.grad.asnumpy(),
                                  numpy.ones((2, 3, 4)) @ w.asnumpy(), rtol=1e-5)
    numpy.testing.assert_allclose(w.grad.asnumpy(),
                                  numpy.ones((6, 4)).T @ x.asnumpy().reshape(6, 5), rtol=1e-5)


def test_a_listener_still_sees_the_static_program_run():
    arrays = _inputs(numpy.random.default_rng(5))
    op = CachedOp(_mlp(), STATIC)
    inputs = [arrays[n] for n in op.input_names]
    op(*inputs)
    mx.engine.event_log.clear()
    op(*inputs).wait_to_read()
    names = [e.name for e in mx.engine.event_log.events()]
    assert any(name.startswith("segment0:fc0") for name in names)


@pytest.mark.parametrize("flags", [{}, STATIC])
def test_repeated_training_steps_match_imperative(flags):
    """Frames and bindings are reused across calls (dynamic: when the pool hands back the same
    blocks); every step still reads the parameters' current values."""
    arrays = _inputs(numpy.random.default_rng(6))
    op = CachedOp(_mlp(), flags)
    names = op.input_names
    params = {n: arrays[n].copy() for n in names if n != "x"}
    for p in params.values():
        p.attach_grad()
    for _ in range(3):
        inputs = [arrays["x"] if n == "x" else params[n] for n in names]
        with mx.autograd.record():
            out = op(*inputs)
        out.backward(mx.nd.ones_like(out))
        got = {n: p.grad.asnumpy() for n, p in params.items()}
        ref = {n: mx.nd.array(p.asnumpy()) for n, p in params.items()}
        for p in ref.values():
            p.attach_grad()
        with mx.autograd.record():
            h = mx.nd.relu(mx.nd.FullyConnected(arrays["x"], ref["fc0_weight"], ref["fc0_bias"],
                                                num_hidden=6))
            want = mx.nd.FullyConnected(h, ref["fc1_weight"], ref["fc1_bias"], num_hidden=3)
        want.backward(mx.nd.ones_like(want))
        numpy.testing.assert_allclose(out.asnumpy(), want.asnumpy(), rtol=1e-6, atol=1e-6)
        for n in params:
            numpy.testing.assert_allclose(got[n], ref[n].grad.asnumpy(), rtol=1e-6, atol=1e-6)
            params[n] -= 0.1 * params[n].grad


def test_two_live_recorded_runs_keep_their_own_frames():
    arrays = _inputs(numpy.random.default_rng(7))
    op = CachedOp(_mlp(), {})
    inputs = [arrays[n] for n in op.input_names]
    weight = inputs[op.input_names.index("fc1_weight")]
    weight.attach_grad()
    with mx.autograd.record():
        total = op(*inputs) + op(*inputs) * 2
    total.backward(mx.nd.ones_like(total))
    first = weight.grad.asnumpy()
    with mx.autograd.record():
        single = op(*inputs)
    single.backward(mx.nd.ones_like(single))
    numpy.testing.assert_allclose(first, 3 * weight.grad.asnumpy(), rtol=1e-5)


def _weight_case(flags):
    arrays = _inputs(numpy.random.default_rng(8))
    op = CachedOp(_mlp(), flags)
    inputs = [arrays[n] for n in op.input_names]
    weight = inputs[op.input_names.index("fc1_weight")]
    weight.attach_grad()
    return op, inputs, weight


@pytest.mark.parametrize("flags", [{}, STATIC])
def test_backward_writes_a_single_use_gradient_into_its_buffer(flags):
    op, inputs, weight = _weight_case(flags)
    buffer = weight.grad
    with mx.autograd.record():
        out = op(*inputs)
    head = mx.nd.ones_like(out)
    mx.engine.event_log.clear()
    out.backward(head)
    mx.nd.waitall()
    assert weight.grad is buffer
    # NOTE: no gradient copied into a .grad buffer: the CachedOp wrote them there itself.
    assert "_copy" not in [e.name for e in mx.engine.event_log.events()]
    with mx.autograd.record():
        out = op(*inputs)
    (via_grad,) = mx.autograd.grad(out, [weight], mx.nd.ones_like(out))
    numpy.testing.assert_array_equal(via_grad.asnumpy(), buffer.asnumpy())


@pytest.mark.parametrize("flags", [{}, STATIC])
def test_a_variable_reached_twice_gets_the_sum(flags):
    """The weight feeds the CachedOp and an imperative op: its gradient is summed, not written
    directly by the CachedOp (which would be overwritten)."""
    op, inputs, weight = _weight_case(flags)
    with mx.autograd.record():
        out = op(*inputs)
    out.backward(mx.nd.ones_like(out))
    alone = weight.grad.asnumpy()
    with mx.autograd.record():
        total = op(*inputs).sum() + (weight * 3).sum()
    total.backward()
    numpy.testing.assert_allclose(weight.grad.asnumpy(), alone + 3, rtol=1e-6)


def test_replay_tells_the_nodes_a_straight_line_program_ran():
    from mxlab.notebook.replay import replay
    x, w = mx.sym.var("x"), mx.sym.var("w")
    op = CachedOp(mx.sym.tanh(x * w) + x, STATIC)
    a, b = mx.nd.ones((3,)), mx.nd.ones((3,)) * 2
    a.attach_grad()
    mx.engine.event_log.clear()
    with mx.autograd.record():
        out = op(a, b)
    out.backward()
    mx.engine.wait_all()
    steps = [s for s in replay(op).model.steps if s["name"].startswith("segment")]
    assert len(steps) == 2                     # forward, backward: one push each
    backward_nodes = set(steps[1]["nodes"])
    assert len(backward_nodes) > 1 and len(steps[1]["running"]) == len(backward_nodes)


def test_bulk_off_keeps_one_push_per_node(monkeypatch):
    monkeypatch.setenv("MXNET_EXEC_BULK_EXEC_INFERENCE", "0")
    op = CachedOp(mx.sym.cos(mx.sym.sin(mx.sym.var("x"))), dict(STATIC, forward_bulk_size=1))
    mx.engine.event_log.clear()
    op(mx.nd.ones((3,))).wait_to_read()
    assert len([e for e in mx.engine.event_log.events() if e.name.startswith("segment")]) == 2
