"""Bugs that showed only under the threaded engines (issue 12)."""
import numpy
import pytest

import mxlab as mx
from mxlab.gluon import nn


@pytest.fixture(params=["ThreadedEngine", "ThreadedEnginePerDevice"])
def threaded(request):
    previous = mx.engine.get_engine()
    mx.engine.set_engine(request.param)
    yield
    mx.engine.set_engine(previous)


def test_detach_of_a_pending_array_gets_its_data(threaded):
    """HybridBlock detaches its inputs; a handle made while the producing op was still queued
    never got data ('array has no data')."""
    for _ in range(20):
        x = mx.nd.random.uniform(shape=(6, 4))
        assert x.detach().asnumpy().shape == (6, 4)
    net = nn.Dense(2)
    net.initialize()
    net.hybridize()
    assert net(mx.nd.random.uniform(shape=(6, 4))).shape == (6, 2)


def test_tracing_sees_shapes_of_arrays_still_being_computed(threaded):
    """Deferred compute read a queued array's shape as unknown, so a shape error was missed."""
    from mxlab import deferred_compute as dc
    a, b = mx.np.ones((2, 3)), mx.np.ones((2, 3))
    dc.set_variable([a, b], [mx.sym.var("a"), mx.sym.var("b")])
    with dc.context(), pytest.raises(mx.MXNetError, match="matmul"):
        a @ b
    numpy.testing.assert_array_equal(a.asnumpy(), numpy.ones((2, 3)))


@pytest.mark.parametrize("flags", [{"inline_limit": 0}, {"static_alloc": True}],
                         ids=["dynamic", "static_alloc"])
def test_cached_op_backward_reads_inputs_before_a_later_in_place_write(flags):
    """CachedOp's backward reads the forward's inputs from its frame but declared no read of
    their vars, so the optimizer's in-place update of a weight could run first and backward
    used the new weight: hybridized training differed from imperative (issue 12).

    The head gradient's op is held until the weight's in-place write has run (or 1 s passed,
    which it does once backward declares its read): without the read the write always wins.
    """
    import threading
    previous = mx.engine.get_engine()
    mx.engine.set_engine(mx.engine.ThreadedEngine(event_log=mx.engine.EventLog(), num_workers=2))
    try:
        op = mx.executor.CachedOp(mx.sym.var("x") * mx.sym.var("w"), flags)
        x, w = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 4.0])
        x.attach_grad()
        with mx.autograd.record():
            y = op(x, w)
        head, written = mx.nd.ones((2,)), threading.Event()
        mx.engine.push(lambda: written.wait(timeout=1.0), (), (head._var,), "hold_head_grad")
        y.backward(head)
        mx.engine.push(lambda: (w._data.fill(100.0), written.set()), (), (w._var,),
                       "in_place_update")
        numpy.testing.assert_array_equal(x.grad.asnumpy(), [3.0, 4.0])
        numpy.testing.assert_array_equal(w.asnumpy(), [100.0, 100.0])
    finally:
        mx.engine.set_engine(previous)
