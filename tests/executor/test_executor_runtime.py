"""The shared runtime: buffer pool, kernel binding (direct ufuncs exact), error naming, and the
executors under the threaded engine (engine vars order every push)."""
import numpy
import pytest

import mxlab as mx
from mxlab.executor import CachedOp
from mxlab.executor.runtime import BufferPool, bind_kernel, kernel_caller
from mxlab.graph.node import Entry, Node
from mxlab.ops.registry import OpReq, get_op, list_ops

from executor_helpers import attach, mlp_arrays, mlp_symbol


def test_buffer_pool_best_fit():
    pool = BufferPool(numpy)
    small, big = pool.request(16), pool.request(64)
    pool.release(big)
    pool.release(small)
    assert pool.request(10) is small
    assert pool.request(40) is big
    assert pool.request(8) is not small and pool.allocated_bytes == 16 + 64 + 8


UFUNC_OPS = sorted(name for name in list_ops() if get_op(name).ufunc is not None)


def test_ufunc_ops_include_scalar_arithmetic_and_binary_maps():
    for name in ("_plus_scalar", "_rdiv_scalar", "_rpower_scalar", "tanh", "broadcast_add"):
        assert name in UFUNC_OPS
    assert get_op("_rminus_scalar").ufunc_scalar == "lhs"
    assert get_op("broadcast_greater").ufunc is None   # casts its bool result: not the ufunc


@pytest.mark.parametrize("name", UFUNC_OPS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_ufunc_kernels_match_op_forward(name, dtype):
    """Every op declaring ``Op.ufunc`` computes exactly that ufunc (the runtime calls it
    directly, with a positional ``out``, for same-dtype floats)."""
    op = get_op(name)
    scalar = op.ufunc_scalar is not None
    attrs = op.parse_attrs({"scalar": 1.5} if scalar else {})
    count = 1 if scalar else op.get_num_inputs(attrs)
    inputs = [numpy.array([1.5, 2.0, 3.0 + i]).astype(dtype) for i in range(count)]
    try:
        with numpy.errstate(all="ignore"):
            want = op.forward(numpy, inputs, attrs)[0]
    except TypeError:   # a ufunc without a loop for this dtype (bitwise_not of floats)
        return
    dtypes = [dtype] * count + [want.dtype.name]
    out = numpy.empty(want.shape, want.dtype)
    with numpy.errstate(all="ignore"):
        bind_kernel(op, numpy, inputs, attrs, [out], [OpReq.WRITE], dtypes)()
    numpy.testing.assert_array_equal(out, want)
    fn, _ = kernel_caller(op, numpy, attrs, [OpReq.WRITE], dtypes, count)
    direct = dtype != "int32" and want.dtype.name == dtype and \
        op.ufunc not in ("maximum", "minimum")
    assert isinstance(fn, numpy.ufunc) == direct


def test_add_request_falls_back_to_run_kernel():
    op = get_op("tanh")
    x, out = numpy.array([0.5], "float32"), numpy.ones(1, "float32")
    bind_kernel(op, numpy, [x], {}, [out], [OpReq.ADDTO], ["float32", "float32"])()
    numpy.testing.assert_allclose(out, 1 + numpy.tanh(x), rtol=1e-6)


def test_failing_node_is_named():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    op = CachedOp(mx.sym.dot(a, b, name="bad_dot"), {"static_alloc": True})
    with pytest.raises(mx.MXNetError, match="dot"):
        op(mx.nd.ones((2, 3)), mx.nd.ones((2, 3)))


@pytest.fixture
def threaded_engine():
    previous = mx.engine.get_engine()
    mx.engine.set_engine("ThreadedEngine")
    yield
    mx.engine.set_engine(previous)


@pytest.mark.parametrize("flags", [{}, {"static_alloc": True, "static_shape": True}])
def test_cached_op_under_threaded_engine(threaded_engine, flags):
    sym = mlp_symbol()
    results = []
    for op in (CachedOp(sym, {"inline_limit": 0}), CachedOp(sym, flags)):
        arrays = mlp_arrays(sym)
        attach(arrays, names=sym.list_inputs())
        with mx.autograd.record():
            y = op(*arrays) + op(*arrays)
        y.backward()
        results.append([y.asnumpy()] + [a.grad.asnumpy() for a in arrays[1:]])
    for got, want in zip(*results):
        numpy.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_graph_executor_under_threaded_engine(threaded_engine):
    sym = mlp_symbol()
    ex = sym.simple_bind(mx.cpu(), data=(4, 5))
    arrays = mlp_arrays(sym)
    ex.copy_params_from(dict(zip(sym.list_arguments(), arrays)))
    first = ex.forward(is_train=True)[0].asnumpy()
    ex.backward(mx.nd.ones((4, 4)))
    grad = ex.grad_dict["fc0_weight"].asnumpy()
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones((4, 4)))
    numpy.testing.assert_allclose(ex.outputs[0].asnumpy(), first)
    numpy.testing.assert_allclose(ex.grad_dict["fc0_weight"].asnumpy(), grad)


def test_memory_reuse_adds_false_dependencies(monkeypatch):
    """Segment per node: entries sharing a block serialise their segments through its var."""
    monkeypatch.setenv("MXNET_EXEC_BULK_EXEC_INFERENCE", "0")
    x = mx.sym.var("x")
    y = mx.sym.cos(mx.sym.sin(mx.sym.exp(x) * 2) + 1)
    op = CachedOp(y, {"static_alloc": True, "forward_bulk_size": 1})
    mx.engine.event_log.clear()
    op(mx.nd.ones((3,)))
    mx.nd.waitall()   # NOTE: an op is logged when it has run
    events = [e for e in mx.engine.event_log.events() if e.name.startswith("segment")]
    assert len(events) == len(op.segments("forward")) == 5
    shared = set.intersection(*[{v for v, _ in e.writes} for e in events[:-1]])
    # NOTE: every node but the last (which writes the output array) works in place in one block.
    assert len(op.memory_plan("forward").blocks) == 1 and len(shared) == 1


def test_dynamic_shape_outputs_are_made_by_the_op():
    x = mx.sym.var("x")
    nonzero = mx.sym.Symbol([Entry(Node(get_op("_npi_flatnonzero"), "nz", {}, [x._outputs[0]]))])
    sym = nonzero * 2
    ex = sym.simple_bind(mx.cpu(), grad_req="null", x=(4,))
    for flags in ({}, {"static_alloc": True, "static_shape": True}):
        op = CachedOp(sym, flags)
        for value in ([0, 1, 0, 3], [5, 0, 7, 8]):
            want = 2 * numpy.flatnonzero(value)
            numpy.testing.assert_array_equal(op(mx.nd.array(value)).asnumpy(), want)
            numpy.testing.assert_array_equal(ex.forward(x=mx.nd.array(value))[0].asnumpy(), want)
