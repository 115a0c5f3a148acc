"""Planned reductions over axes of extent 1 run as a copy (a loss's per-sample mean of a
``(batch, 1)`` column): the same values as the reduction, and every case the copy does not
cover (``initial``, a dtype change, integers) still reduces."""
import numpy
import pytest

import mxlab as mx
from mxlab.ops.registry import get_op

COLUMN = numpy.array([[1.5], [-0.0], [numpy.nan], [-2.25]], dtype="float32")


@pytest.mark.parametrize("name", ["mean", "sum", "max", "min", "prod", "_npi_mean", "_np_sum"])
def test_unit_axis_reduction_into_a_buffer_equals_the_reduction(name):
    op = get_op(name)
    attrs = op.parse_attrs({"axis": 1})
    expected = op.compute(numpy, [COLUMN], attrs)
    out = numpy.full(expected.shape, 7.0, "float32")
    op.compute_into(numpy, [COLUMN], attrs, [out])
    numpy.testing.assert_array_equal(out, expected)
    assert numpy.array_equal(numpy.signbit(out), numpy.signbit(expected))


def test_an_initial_value_is_still_added():
    op = get_op("_np_sum")
    attrs = op.parse_attrs({"axis": 1, "initial": 5.0})
    out = numpy.empty(4, "float32")
    op.compute_into(numpy, [COLUMN], attrs, [out])
    numpy.testing.assert_array_equal(out, COLUMN[:, 0] + 5)


@pytest.mark.parametrize("dtype, attrs", [("int32", {"axis": 1}),
                                          ("float32", {"axis": 1, "dtype": "float64"})])
def test_integer_inputs_and_dtype_changes_reduce(dtype, attrs):
    op = get_op("_npi_mean")
    x = numpy.array([[3], [4]], dtype=dtype)
    attrs = op.parse_attrs(attrs)
    expected = op.compute(numpy, [x], attrs)
    out = numpy.empty(expected.shape, expected.dtype)
    op.compute_into(numpy, [x], attrs, [out])
    numpy.testing.assert_array_equal(out, expected)
    assert out.dtype == expected.dtype


def test_a_hybridized_loss_mean_matches_imperative_with_gradients():
    class Loss(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, pred, label):
            return F.mean(-F.pick(F.log_softmax(pred), label, keepdims=True), axis=0,
                          exclude=True)

    rng = numpy.random.default_rng(0)
    pred = mx.nd.array(rng.standard_normal((6, 5)).astype("float32"))
    label = mx.nd.array(rng.integers(0, 5, 6).astype("float32"))
    results = []
    for options in (None, {"static_alloc": True, "static_shape": True}):
        loss = Loss()
        if options is not None:
            loss.hybridize(**options)
        pred.attach_grad()
        with mx.autograd.record():
            value = loss(pred, label)
        value.backward()
        results.append((value.asnumpy(), pred.grad.asnumpy()))
    numpy.testing.assert_array_equal(results[0][0], results[1][0])
    numpy.testing.assert_array_equal(results[0][1], results[1][1])
