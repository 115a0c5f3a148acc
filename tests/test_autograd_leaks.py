"""No NDArray may end up in a reference cycle (MXNet's conftest checks this after every test with
gc's DEBUG_SAVEALL), and second derivatives match their analytic values."""
import gc
import math
import sys

import numpy
import pytest

import mxlab as mx
from mxlab import autograd, nd
from mxlab.ndarray.ndarray import NDArray


def _garbage_of(fn):
    """Run ``fn`` and return the objects only gc (a reference cycle) would free, the way MXNet's
    tests/python/conftest.py finds them."""
    del gc.garbage[:]
    gc.collect()
    flags = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        fn()
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(flags)
        del gc.garbage[:]


def _leaked_arrays(fn):
    """The arrays in :func:`_garbage_of` ``fn`` (inside lists, tuples and dicts too)."""
    found = []
    for obj in _garbage_of(fn):
        if isinstance(obj, NDArray):
            found.append(obj)
        elif isinstance(obj, (list, tuple)):
            found.extend(x for x in obj if isinstance(x, NDArray))
        elif isinstance(obj, dict):
            found.extend(x for x in obj.values() if isinstance(x, NDArray))
    return found


def test_leak_check_sees_a_real_cycle():
    def cycle():
        box = [nd.ones((2,))]
        box.append(box)
    assert _leaked_arrays(cycle)


def test_create_graph_grad_leaves_no_cycle():
    def second_order():
        x = nd.array([0.5, -1.0, 2.0])
        x.attach_grad()
        with autograd.record():
            y = nd.sin(x)
            dy = autograd.grad(y, [x], head_grads=nd.random.normal(shape=x.shape),
                               create_graph=True, retain_graph=True)[0]
            d2y = autograd.grad(dy, [x], create_graph=True, retain_graph=True)[0]
        d2y.backward()
        assert x.grad.shape == (3,)
    assert not _leaked_arrays(second_order)


@pytest.mark.parametrize("name, fn, d2", [
    ("sin", nd.sin, lambda x: -numpy.sin(x)),
    ("cos", nd.cos, lambda x: -numpy.cos(x)),
    ("tanh", nd.tanh, lambda x: -2 * numpy.tanh(x) * (1 - numpy.tanh(x) ** 2)),
    ("log", nd.log, lambda x: -1 / x ** 2),
    ("sigmoid", nd.sigmoid,
     lambda x: (lambda s: s * (1 - s) * (1 - 2 * s))(1 / (1 + numpy.exp(-x)))),
    ("arcsinh", nd.arcsinh, lambda x: -x / (x ** 2 + 1) ** 1.5),
    ("relu", nd.relu, numpy.zeros_like),
    ("radians", nd.radians, numpy.zeros_like),   # constant first derivative: zeros, as MXNet
    ("degrees", nd.degrees, numpy.zeros_like),
])
def test_second_derivative_matches_analytic(name, fn, d2):
    xs = numpy.array([0.3, 0.7, 1.9], dtype="float32")
    x = nd.array(xs)
    x.attach_grad()
    with autograd.record():
        dy = autograd.grad(fn(x), [x], create_graph=True, retain_graph=True)[0]
        d2y = autograd.grad(dy, [x], create_graph=True, retain_graph=True)[0]
    numpy.testing.assert_allclose(d2y.asnumpy(), d2(xs), rtol=1e-4, atol=1e-6, err_msg=name)


def test_third_derivative_of_sin():
    x = nd.array([0.2, 1.1])
    x.attach_grad()
    with autograd.record():
        y = nd.sin(x)
        for _ in range(3):
            y = autograd.grad(y, [x], create_graph=True, retain_graph=True)[0]
    numpy.testing.assert_allclose(y.asnumpy(), -numpy.cos([0.2, 1.1]), rtol=1e-5)


def test_grad_is_zeros_where_only_zero_gradients_reach_the_variable():
    # relu's derivative is a mask: its own derivative reaches x as zeros, not None (MXNet).
    x = nd.array([0.5, -1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        dy = autograd.grad(nd.relu(x), [x], create_graph=True, retain_graph=True)[0]
        d2y = autograd.grad(dy, [x])[0]
    assert isinstance(d2y, mx.nd.NDArray)
    assert d2y.asnumpy().tolist() == [0.0, 0.0, 0.0]
    assert math.isclose(dy.asnumpy()[0], 1.0)


def test_attach_grad_on_an_intermediate_keeps_its_history():
    # MXNet 2: marking a recorded result fills its gradient too; drop_grad frees it again.
    x = nd.array([1, 2, 3, 4])
    x.attach_grad()
    y = nd.array([5, 6, 7, 8])
    y.attach_grad()
    with autograd.record():
        u = x * y
        z = u * x
    u.attach_grad()
    z.attach_grad()
    out_grad = nd.array([10, 10, 10, 10])
    z.backward(out_grad, retain_graph=True)
    xs, ys = x.asnumpy(), y.asnumpy()
    assert u.grad.asnumpy().tolist() == (10 * xs).tolist()
    assert z.grad.asnumpy().tolist() == [10] * 4
    assert x.grad.asnumpy().tolist() == (20 * xs * ys).tolist()
    assert y.grad.asnumpy().tolist() == (10 * xs * xs).tolist()
    u.drop_grad()
    z.drop_grad()
    y.drop_grad()
    z.backward(nd.array([1, 1, 1, 1]))
    assert u.grad is None and z.grad is None and y.grad is None
    assert x.grad.asnumpy().tolist() == (2 * xs * ys).tolist()


def test_marking_an_intermediate_twice_is_refused():
    x = nd.array([1.0])
    x.attach_grad()
    with autograd.record():
        u = x * 2
    u.attach_grad()
    with pytest.raises(mx.MXNetError, match="already been marked"):
        u.attach_grad()


def test_pytest_plugin_drops_the_previous_failure_before_setup():
    # The failed test's frames would otherwise become garbage inside the next test, which
    # MXNet's conftest would report as that test's leak.
    from mxlab.compat import pytest_plugin
    try:
        raise ValueError(nd.ones((1,)))
    except ValueError as exc:
        sys.last_value, sys.last_traceback = exc, exc.__traceback__
    pytest_plugin.pytest_runtest_setup(None)
    assert not hasattr(sys, "last_value") and not hasattr(sys, "last_traceback")


@pytest.fixture(params=["NaiveEngine", "ThreadedEngine"])
def engine_name(request):
    previous = mx.engine.get_engine()
    mx.engine.set_engine(request.param)
    yield request.param
    mx.engine.set_engine(previous)


@pytest.mark.parametrize("log_on", [True, False], ids=["log-on", "log-off"])
@pytest.mark.parametrize("bad", [
    lambda: mx.np.ones((10, 10)).reshape((1,)),                      # MXNetError naming the op
    lambda: mx.np.ones((5, 4, 3))[mx.np.zeros((4, 4), dtype=bool)],   # translated IndexError
    lambda: mx.nd.random.normal(0, -1, shape=(2,)),                   # attribute check
    lambda: mx.nd.ones((2, 3)) + mx.nd.ones((4, 5)),                  # shape check
    lambda: mx.np.argmax(mx.np.ones((5, 3)), 3),                      # axis check
    lambda: mx.np.ones((5, 3)).transpose((0, 1, 3)),                  # axes check
])
def test_raised_op_errors_leave_no_cycle(engine_name, bad, log_on):
    # A frame of the error's traceback holding the error (or the error being its own cause)
    # kept the arrays of every frame alive until gc: MXNet's conftest saw them as leaks. With the
    # event log off the engine runs ops through another (unlogged) path.
    def raise_and_catch():
        with pytest.raises(mx.MXNetError):
            bad().wait_to_read()
    log = mx.engine.get_engine().event_log
    before, log.enabled = log.enabled, log_on
    try:
        assert not _leaked_arrays(raise_and_catch)
    finally:
        log.enabled = before


@pytest.mark.parametrize("hybrid_flags", [{}, {"static_alloc": True}], ids=["dynamic", "static"])
def test_a_dropped_hybridized_block_frees_its_buffers_without_gc(engine_name, hybrid_flags):
    # A reused dynamic frame caches its bound backward segments; a segment holding the frame made
    # a cycle, and MXNet's conftest then walked every buffer of the garbage (188 s in test_gluon).
    def train_and_drop():
        net = mx.gluon.nn.HybridSequential()
        net.add(mx.gluon.nn.Dense(8, activation="relu"), mx.gluon.nn.Dense(2))
        net.initialize()
        net.hybridize(**hybrid_flags)
        x = mx.nd.ones((4, 5))
        for _ in range(2):
            with autograd.record():
                y = net(x)
            y.backward()
        mx.nd.waitall()
    kinds = {type(obj).__name__ for obj in _garbage_of(train_and_drop)}
    assert not kinds & {"Frame", "BoundSegment", "CachedOp", "NDArray"}
