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
