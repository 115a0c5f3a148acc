"""The imperative fast lane (ops run inline under the NaiveEngine) looks exactly like a push.

Each test runs under both engines (the ``engine`` fixture): what the log, the versions, errors and
autograd show must not depend on which path ran the op.
"""
import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetError


def test_each_op_logs_one_event_with_the_versions_a_push_logs(engine):
    x = mx.nd.array([1.0, 2.0])
    mx.engine.wait_all()
    mx.engine.event_log.clear()
    y = x * 2
    z = mx.nd.tanh(y) + y
    z.wait_to_read()
    events = mx.engine.event_log.events()
    assert [e.name for e in events] == ["_mul_scalar", "tanh", "broadcast_add"]
    mul, tanh, add = events
    assert mul.reads == ((x._var.id, 1),) and mul.writes == ((y._var.id, 1),)
    assert tanh.reads == ((y._var.id, 1),)
    assert add.reads == ((tanh.writes[0][0], 1), (y._var.id, 1))
    assert add.writes == ((z._var.id, 1),) and z.version == 1
    assert [e.push_seq for e in events] == sorted(e.push_seq for e in events)
    assert all(e.error is None and e.pushed <= e.start <= e.end for e in events)


def test_an_op_reading_one_array_twice_logs_one_read(engine):
    x = mx.nd.array([3.0])
    mx.engine.wait_all()
    mx.engine.event_log.clear()
    (x * x).wait_to_read()
    (event,) = mx.engine.event_log.events()
    assert event.reads == ((x._var.id, 1),)


def test_listeners_hear_every_op_with_the_buffer_off(engine):
    log, heard = mx.engine.event_log, []
    log.enabled = False
    log.add_listener(heard.append)
    try:
        (mx.nd.ones(3) - 1).wait_to_read()
    finally:
        log.remove_listener(heard.append)
    assert [e.name for e in heard][-1] == "_minus_scalar" and len(log) == 0
    assert not log.active
    log.enabled = True
    assert log.active


def test_a_failing_op_raises_naming_it_and_logs_one_failed_event(engine):
    a, b = mx.nd.ones((2, 3)), mx.nd.ones((4, 5))
    mx.engine.wait_all()
    mx.engine.event_log.clear()
    with pytest.raises(MXNetError, match="broadcast_add"):
        (a + b).wait_to_read()
    failed = [e for e in mx.engine.event_log.events() if e.name == "broadcast_add"]
    assert len(failed) == 1 and failed[0].error is not None
    assert (a + 1).asnumpy().tolist() == [[2.0] * 3] * 2   # the engine carries on


def test_inputs_on_different_devices_are_an_error_naming_the_op(engine):
    with pytest.raises(MXNetError, match="broadcast_mul.*same device"):
        mx.nd.ones(2, ctx=mx.cpu(0)) * mx.nd.ones(2, ctx=mx.cpu(1))


def test_autograd_records_ops_run_inline(engine):
    x = mx.nd.array([0.5, -1.0])
    x.attach_grad()
    with mx.autograd.record():
        y = (mx.nd.tanh(x * 2.0) - 0.5).sum()
    y.backward()
    expected = 2.0 * (1.0 - numpy.tanh(2.0 * numpy.array([0.5, -1.0])) ** 2)
    numpy.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-6)


def test_results_keep_class_device_and_flavour(engine):
    a = mx.np.array([1.0, 2.0], device=mx.cpu(1))
    b = mx.np.tanh(a) * 3
    assert type(b) is mx.np.ndarray and b.device == mx.cpu(1)
    assert float(mx.np.sum(a * a)) == 5.0
