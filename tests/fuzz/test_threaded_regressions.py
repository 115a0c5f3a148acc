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
