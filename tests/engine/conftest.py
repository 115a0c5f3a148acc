"""Engine fixtures: run a test under each engine, then restore the engine and the event log."""
import pytest

import mxlab as mx

ENGINE_NAMES = ["NaiveEngine", "ThreadedEngine"]


@pytest.fixture(params=ENGINE_NAMES)
def engine(request):
    """The engine named by the parameter, made ``mx.engine``'s current engine for the test."""
    log = mx.engine.event_log
    previous, enabled, maxlen = mx.engine.get_engine(), log.enabled, log.maxlen
    current = mx.engine.set_engine(request.param)
    log.clear()
    yield current
    mx.engine.set_engine(previous)
    log.enabled = enabled
    log.resize(maxlen)


@pytest.fixture
def threaded():
    """A private two-worker ThreadedEngine with its own event log (stopped after the test)."""
    engine = mx.engine.ThreadedEngine(event_log=mx.engine.EventLog(), num_workers=2)
    yield engine
    engine.shutdown()
