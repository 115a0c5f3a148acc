"""Engine workers read no caller mode flags: the engine copies no thread-local state to them.

Kernels get their mode from their OpContext; shape inference of the graphs kernels run (a
partitioned subgraph's CachedOp, a control-flow body) is handed every input shape, so it never
consults the np-shape scopes of whichever thread it runs on. These tests record every read of those
scopes while ThreadedEngine runs such kernels under a scope that only the main thread has.
"""
import threading

import numpy
import pytest

import mxlab as mx
from mxlab import util


@pytest.fixture
def flag_reads(monkeypatch):
    """Names of the threads that read a np scope flag during the test."""
    readers, real_get = [], util._get

    def recording_get(flag):
        readers.append(threading.current_thread().name)
        return real_get(flag)

    monkeypatch.setattr(util, "_get", recording_get)
    previous = mx.engine.get_engine()
    mx.engine.set_engine("ThreadedEngine")
    yield readers
    mx.engine.wait_all()
    mx.engine.set_engine(previous)


def _worker_reads(readers):
    return [name for name in readers if name != threading.main_thread().name]


def _partitioned_exp_cos():
    x = mx.sym.var("x")
    return mx.sym.cos(mx.sym.exp(x) * 2) + x


def test_partitioned_subgraph_runs_without_reading_scopes_on_workers(flag_reads):
    sym = _partitioned_exp_cos()
    args = {"x": mx.nd.array(numpy.linspace(-1, 1, 6, dtype="float32").reshape(2, 3))}
    part = sym.optimize_for("default", args=args, op_names=["exp", "cos"])
    assert "subgraph_op" in part.tojson()
    with mx.util.np_shape(True):
        got = part.bind(mx.cpu(), args).forward()[0].asnumpy()
        assert mx.util.is_np_shape() and flag_reads, "the recorder must see this thread's read"
    want = numpy.cos(numpy.exp(args["x"].asnumpy()) * 2) + args["x"].asnumpy()
    numpy.testing.assert_allclose(got, want, rtol=1e-5)
    assert _worker_reads(flag_reads) == []


def test_foreach_body_inference_on_workers_reads_no_scope(flag_reads):
    outs, states = mx.sym.contrib.foreach(
        lambda x, s: (mx.sym.tanh(x + s[0]), [s[0] + 1]), mx.sym.var("data"), [mx.sym.var("s")])
    sym = mx.sym.Group([outs, states[0]])
    data, s0 = numpy.arange(6, dtype="float32").reshape(3, 2) / 6, numpy.zeros(2, "float32")
    with mx.util.np_shape(True):
        exe = sym.bind(mx.cpu(), {"data": mx.nd.array(data), "s": mx.nd.array(s0)})
        rows, final = (o.asnumpy() for o in exe.forward())
    numpy.testing.assert_allclose(rows, numpy.tanh(data + numpy.arange(3)[:, None]), rtol=1e-6)
    numpy.testing.assert_allclose(final, s0 + 3)
    assert _worker_reads(flag_reads) == []


def test_control_flow_body_shapes_are_internal_form():
    """A scalar step of a 1-d sequence keeps its shape ``()`` (the user form outside np-shape
    mode reads ``()`` as 'unknown', and the scope of a worker thread is not the caller's)."""
    outs, _ = mx.sym.contrib.foreach(lambda x, s: (x * 2, s), mx.sym.var("data"),
                                     [mx.sym.var("s")])
    node = outs._outputs[0].node
    assert node.op.infer_shapes(node.attrs, [(4,), (1,)])[1][0] == (4,)
