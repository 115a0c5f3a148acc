"""OpContext.temp_space (MXNet's requested temp workspace) and the norm kernel that uses it."""
import threading

import numpy
import pytest

import mxlab as mx
from mxlab.ops.context import PREDICT, TRAIN, temp_space_bytes
from mxlab.ops.registry import get_op, run_kernel


def test_scratch_has_the_shape_and_dtype_asked_and_reuses_one_buffer():
    small = PREDICT.temp_space(numpy, (3, 4), "float64")
    assert small.shape == (3, 4) and small.dtype == numpy.float64
    held = temp_space_bytes()
    again = TRAIN.temp_space(numpy, (12,), "float32")     # smaller: the same memory
    assert numpy.shares_memory(small, again)
    assert temp_space_bytes() == held


def test_scratch_grows_to_the_largest_request():
    before = temp_space_bytes()
    size = before // 8 + 1000
    big = PREDICT.temp_space(numpy, (size,), "float64")
    assert big.nbytes == size * 8
    assert temp_space_bytes() == size * 8
    assert PREDICT.temp_space(numpy, (0, 5), "int32").shape == (0, 5)


def test_each_thread_has_its_own_scratch():
    main = PREDICT.temp_space(numpy, (16,), "float32")
    seen = []
    worker = threading.Thread(target=lambda: seen.append(PREDICT.temp_space(numpy, (16,),
                                                                            "float32")))
    worker.start()
    worker.join()
    assert not numpy.shares_memory(main, seen[0])


def test_norm_requests_temp_space_and_computes_into_it():
    op = get_op("norm")
    assert op.takes_ctx and "temp" in op.resources
    x = numpy.random.default_rng(0).standard_normal((37, 29)).astype("float32")
    PREDICT.temp_space(numpy, (1,), "uint8")   # NOTE: a buffer smaller than x's squares
    attrs = op.parse_attrs({"axis": 1})
    (got,) = run_kernel(op, numpy, [x], attrs, ctx=PREDICT)
    numpy.testing.assert_allclose(got, numpy.linalg.norm(x, axis=1), rtol=1e-5)
    assert temp_space_bytes() >= x.nbytes   # the squares went into the scratch buffer


@pytest.mark.parametrize("ord_", [1, 2])
def test_norm_results_do_not_alias_the_scratch(ord_):
    a = mx.nd.array(numpy.arange(12.0).reshape(3, 4))
    b = mx.nd.array(-numpy.ones((3, 4)))
    first = mx.nd.norm(a, ord=ord_, axis=0)
    second = mx.nd.norm(b, ord=ord_, axis=0)
    want = numpy.linalg.norm(numpy.arange(12.0).reshape(3, 4), ord=ord_, axis=0)
    numpy.testing.assert_allclose(first.asnumpy(), want, rtol=1e-6)
    numpy.testing.assert_allclose(second.asnumpy(), [3.0 if ord_ == 1 else 3 ** 0.5] * 4,
                                  rtol=1e-6)


def test_norm_gradient_and_hybridized_paths_still_agree():
    x = mx.nd.array([[3.0, 4.0], [6.0, 8.0]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.norm(x, axis=1)
    y.backward()
    numpy.testing.assert_allclose(y.asnumpy(), [5.0, 10.0])
    numpy.testing.assert_allclose(x.grad.asnumpy(), [[0.6, 0.8], [0.6, 0.8]], rtol=1e-6)
    s = mx.sym.norm(mx.sym.var("x"), axis=1)
    ex = s.bind(mx.cpu(), {"x": x})
    numpy.testing.assert_allclose(ex.forward()[0].asnumpy(), [5.0, 10.0])
