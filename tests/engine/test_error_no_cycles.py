"""An op error leaves no reference cycle: MXNet's tests (tests/python/conftest.py) collect with
gc.DEBUG_SAVEALL around each test and fail it when the garbage holds a live NDArray; an error
that is its own cause, or a frame holding the error it raises, kept every caller's arrays there."""
import gc

import pytest

import mxlab as mx
from mxlab.base import MXNetError


def _garbage_after(fn):
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


def _failing_ops():
    a = mx.np.ones((5, 3))
    with pytest.raises(MXNetError):
        mx.np.argmax(a, 3)
        mx.npx.waitall()
    with pytest.raises(MXNetError):     # NOTE: under ThreadedEngine errors surface at the wait
        a.transpose((0, 1, 3)).wait_to_read()
    with pytest.raises(ValueError):
        mx.nd.ones((2, 3)).reshape((4, 4)).wait_to_read()


@pytest.mark.parametrize("enabled", [True, False])
def test_a_failing_op_leaves_no_garbage_with_the_event_log_on_or_off(enabled):
    log = mx.engine.get_engine().event_log
    before = log.enabled
    log.enabled = enabled
    try:
        garbage = _garbage_after(_failing_ops)
    finally:
        log.enabled = before
    assert not [o for o in garbage if isinstance(o, (mx.nd.NDArray, BaseException))], garbage[:5]
