"""The event log: what is recorded, the ring-buffer bound, the switch, listeners."""
import threading

import pytest

import mxlab as mx
from mxlab.engine import EventLog, Var


def test_events_record_names_threads_and_var_versions(engine):
    a, b = Var(), Var()
    mx.engine.push(lambda: None, [], [a], "make_a")
    mx.engine.push(lambda: None, [a], [b], "a_to_b")
    mx.engine.wait_all()
    first, second = mx.engine.event_log.events()
    assert (first.name, first.reads, first.writes) == ("make_a", (), ((a.id, 1),))
    assert (second.name, second.reads, second.writes) == ("a_to_b", ((a.id, 1),), ((b.id, 1),))
    assert second.seq == first.seq + 1 and second.push_seq == first.push_seq + 1
    assert first.pushed <= first.start <= first.end <= second.start
    expected_thread = "MainThread" if engine.name == "NaiveEngine" else "ThreadedEngine-worker"
    assert first.thread.startswith(expected_thread)


def test_log_is_a_bounded_ring_buffer(engine):
    log = mx.engine.event_log
    log.resize(5)
    for i in range(12):
        mx.engine.push(lambda: None, [], [Var()], f"op{i}")
    mx.engine.wait_all()
    assert len(log) == 5 and log.maxlen == 5
    assert [e.name for e in log.events()] == [f"op{i}" for i in range(7, 12)]


def test_clear_drops_the_late_events_of_ops_pushed_before_it(threaded):
    """A cell that clears the log sees its own ops, not the previous cell's still running."""
    release, var = threading.Event(), Var()
    threaded.push(release.wait, [], [var], "slow_old_op")
    threaded.event_log.clear()
    release.set()
    threaded.push(lambda: None, [var], [Var()], "new_op")
    threaded.wait_all()
    assert [e.name for e in threaded.event_log.events()] == ["new_op"]


def test_log_can_be_switched_off_while_listeners_still_hear(engine):
    log, heard, var = mx.engine.event_log, [], Var()
    log.enabled = False
    mx.engine.push(lambda: None, [], [var], "unlogged")
    mx.engine.wait_all()
    assert len(log) == 0 and var.version == 1
    log.add_listener(heard.append)
    try:
        mx.engine.push(lambda: None, [var], [], "heard")
        mx.engine.wait_all()
    finally:
        log.remove_listener(heard.append)
    assert len(log) == 0
    assert [e.name for e in heard] == ["heard"]
    assert heard[0].reads == ((var.id, 1),)


def test_a_failing_listener_warns_and_the_engine_goes_on(engine):
    log, var = mx.engine.event_log, Var()

    def broken(event):
        raise RuntimeError("listener bug")

    log.add_listener(broken)
    try:
        with pytest.warns(RuntimeWarning, match="listener bug"):
            mx.engine.push(lambda: None, [], [var], "op")
            mx.engine.wait_all()
    finally:
        log.remove_listener(broken)
    assert var.version == 1 and [e.name for e in log.events()] == ["op"]


def test_removing_an_unknown_listener_is_ignored():
    log = EventLog()
    log.enabled = False
    log.add_listener(repr)
    log.remove_listener(print)
    assert log.active
    log.remove_listener(repr)
    assert not log.active
