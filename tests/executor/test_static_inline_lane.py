"""A static CachedOp's steady inference call on the naive engine with nothing logged runs its
program at once instead of pushing it (``FastCall``'s inline lane): the same values, the same var
versions and the same errors as the push it stands in for."""
import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetError
from mxlab.engine import NaiveEngine
from mxlab.executor import CachedOp
from mxlab.executor.runtime import BoundSegment

STATIC = {"static_alloc": True, "static_shape": True}


@pytest.fixture
def log_off(monkeypatch):
    monkeypatch.setattr(mx.engine.event_log, "enabled", False)


def _op():
    x = mx.sym.var("x")
    return CachedOp(mx.sym.tanh(mx.sym.FullyConnected(x, num_hidden=3, no_bias=True,
                                                      name="fc")), STATIC)


def _calls(op, x, w, count=3):
    outs = [op(x, w) for _ in range(count)]
    mx.nd.waitall()   # NOTE: a threaded engine counts a write when it completes
    return outs, [o._var.version for o in outs]


@pytest.mark.parametrize("log", [False, True])
def test_the_lane_and_the_push_agree_on_values_and_versions(monkeypatch, log):
    monkeypatch.setattr(mx.engine.event_log, "enabled", log)
    rng = numpy.random.default_rng(0)
    x = mx.nd.array(rng.standard_normal((4, 5)))
    w = mx.nd.array(rng.standard_normal((3, 5)))
    op = _op()
    op(x, w), op(x, w)   # planned, then the steady path made
    pushes = []
    push = BoundSegment.push_arrays
    monkeypatch.setattr(BoundSegment, "push_arrays",
                        lambda seg, *args: (pushes.append(seg), push(seg, *args))[1])
    outs, versions = _calls(op, x, w)
    inline = type(mx.engine.get_engine()) is NaiveEngine and not log
    assert (pushes == []) == inline
    expected = numpy.tanh(x.asnumpy() @ w.asnumpy().T)
    for out in outs:
        numpy.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)
    assert versions == [1, 1, 1]            # each output written once
    assert x._var.version == w._var.version == 1   # inputs only read
    assert op._fast is not None             # the steady path ran


def test_a_kernel_error_in_the_lane_names_the_program(log_off, monkeypatch):
    rng = numpy.random.default_rng(1)
    x = mx.nd.array(rng.standard_normal((4, 5)))
    w = mx.nd.array(rng.standard_normal((3, 5)))
    op = _op()
    op(x, w), op(x, w)
    seg = op._fast.segments[0][0]

    def broken():
        raise ValueError("boom")
    monkeypatch.setattr(seg, "kernels", [broken] + list(seg.kernels[1:]))
    with pytest.raises(MXNetError, match="segment") as info:
        op(x, w).wait_to_read()
    assert isinstance(info.value, ValueError)
