"""The op context replaces thread-local modes: kernels on engine workers get the mode fixed at
push time, and the engine copies no thread-local state (autograd modes, np scopes) to workers."""
import threading

import numpy
import pytest

import mxlab as mx
from mxlab.engine import Var
from mxlab.imperative import STATE


@pytest.fixture
def threaded_engine():
    previous = mx.engine.get_engine()
    yield mx.engine.set_engine("ThreadedEngine")
    mx.engine.set_engine(previous)


def test_a_worker_sees_its_own_np_shape_scope_not_the_pushing_threads(threaded_engine):
    seen = []
    with mx.util.np_shape(True):
        mx.engine.push(lambda: seen.append(mx.util.is_np_shape()), (), (Var(),), "read_scope")
        mx.engine.wait_all()
    assert seen == [False]


def test_a_worker_sees_its_own_mode_not_the_pushing_threads(threaded_engine):
    seen = []
    with mx.autograd.train_mode():
        mx.engine.push(lambda: seen.append((threading.current_thread().name, STATE.training)),
                       (), (Var(),), "read_mode")
    mx.engine.wait_all()
    (name, training), = seen
    assert name != threading.current_thread().name and training is False


@pytest.mark.parametrize("repeat", range(3))
def test_dropout_on_a_worker_uses_the_mode_of_its_push(threaded_engine, repeat):
    x = mx.nd.ones((64, 64))
    with mx.autograd.train_mode():
        dropped = mx.nd.Dropout(x, p=0.5)
    kept = mx.nd.Dropout(x, p=0.5)
    values = dropped.asnumpy()
    assert (values == 0).any() and set(numpy.unique(values)) <= {0.0, 2.0}
    numpy.testing.assert_array_equal(kept.asnumpy(), x.asnumpy())
