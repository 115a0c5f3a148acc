"""Versions and error propagation, under both engines and under the threaded one alone."""
import threading

import pytest

import mxlab as mx
from mxlab.base import MXNetError, MXNetKeyError, MXNetRuntimeError, MXNetValueError
from mxlab.engine import Var


def _raise(exc):
    def fn():
        raise exc
    return fn


def _push_then_sync(push_fn, var):
    """Push (the naive engine raises here) and sync on ``var`` (the threaded engine raises here)."""
    push_fn()
    mx.engine.wait_for_var(var)


def test_versions_count_completed_writes(engine):
    var = Var()
    assert var.version == 0
    for _ in range(10):
        mx.engine.push(lambda: None, [var], [], "read")
    mx.engine.wait_all()
    assert var.version == 0
    for _ in range(10):
        mx.engine.push(lambda: None, [], [var], "write")
    mx.engine.wait_for_var(var)
    assert var.version == 10


def test_version_bumps_when_the_write_completes(threaded):
    var, gate = Var(), threading.Event()
    threaded.push(lambda: gate.wait(10), [], [var], "gated_write")
    assert var.version == 0
    gate.set()
    threaded.wait_for_var(var)
    assert var.version == 1


def test_error_is_raised_at_the_next_sync_naming_the_op(engine):
    var = Var()
    with pytest.raises(MXNetValueError, match="bad_op") as info:
        _push_then_sync(lambda: mx.engine.push(_raise(ValueError("boom")), [], [var], "bad_op"),
                        var)
    assert isinstance(info.value, ValueError)
    assert "boom" in str(info.value)
    assert var.version == 0
    # the engine stays usable, and the error is not raised twice
    mx.engine.push(lambda: None, [], [var], "good_op")
    mx.engine.wait_for_var(var)
    mx.engine.wait_all()
    assert var.version == 1


@pytest.mark.parametrize("exc, expected", [(KeyError("k"), MXNetKeyError),
                                           (OSError("io"), MXNetError),
                                           (MXNetValueError("op_x: bad value"), MXNetValueError)])
def test_error_types_are_kept(engine, exc, expected):
    var = Var()
    with pytest.raises(expected, match="op_x") as info:
        _push_then_sync(lambda: mx.engine.push(_raise(exc), [], [var], "op_x"), var)
    if isinstance(exc, MXNetError):
        assert info.value is exc
    else:
        assert info.value.__cause__ is exc


def test_dependent_ops_skip_and_inherit_the_error(threaded):
    bad, dependent, independent, ran = Var(), Var(), Var(), []
    threaded.push(_raise(ValueError("boom")), [], [bad], "first")
    threaded.push(lambda: ran.append("second"), [bad], [dependent], "second")
    threaded.push(lambda: ran.append("third"), [], [independent], "third")
    threaded.wait_for_var(independent)
    with pytest.raises(MXNetValueError, match="first"):
        threaded.wait_for_var(dependent)
    assert ran == ["third"]
    assert dependent.version == 0 and independent.version == 1
    events = {e.name: e for e in threaded.event_log.events()}
    assert events["first"].error.startswith("MXNetValueError")
    assert events["second"].error.startswith("skipped") and "first" in events["second"].error
    # MXNet's rule: one failed op's error is raised once, through whichever var syncs first
    threaded.wait_for_var(bad)
    threaded.wait_all()


def test_wait_all_raises_the_first_error_once(threaded):
    threaded.push(_raise(ValueError("one")), [], [Var()], "fails_one")
    with pytest.raises(MXNetValueError, match="fails_one"):
        threaded.wait_all()
    threaded.wait_all()
    var = Var()
    threaded.push(lambda: None, [], [var], "after")
    threaded.wait_all()
    assert var.version == 1


def test_wait_for_var_raises_each_failed_write_once(threaded):
    var = Var()
    for attempt in range(2):
        threaded.push(_raise(ValueError(f"try{attempt}")), [], [var], f"fails{attempt}")
        with pytest.raises(MXNetValueError, match=f"fails{attempt}"):
            threaded.wait_for_var(var)
        threaded.wait_for_var(var)


def test_wait_all_inside_an_op_is_an_error(threaded):
    var = Var()
    threaded.push(threaded.wait_all, [], [var], "waits_for_all")
    with pytest.raises(MXNetRuntimeError, match="waits_for_all"):
        threaded.wait_for_var(var)
