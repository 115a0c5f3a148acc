"""FullyConnected's weight-first product (``(w @ x.T).T`` where OpenBLAS runs it faster): the
rule's choices, ``x @ w.T`` to rounding, and the same bits on every path."""
import numpy
import pytest

import mxlab as mx
from mxlab.ops.matrix import _weight_first
from mxlab.ops.registry import get_op

FC = get_op("FullyConnected")


def _arrays(rows, width, outputs, dtype="float32"):
    rng = numpy.random.default_rng(rows * 7 + outputs)
    return (rng.standard_normal((rows, width)).astype(dtype),
            rng.standard_normal((outputs, width)).astype(dtype),
            rng.standard_normal(outputs).astype(dtype))


@pytest.mark.parametrize("shape, expected", [
    ((64, 784, 256), True), ((8, 512, 1000), True),      # fewer rows than outputs, large
    ((64, 128, 10), False), ((512, 256, 64), False),      # more rows than outputs
    ((1, 784, 256), False),                               # too small to gain
])
def test_rule_picks_weight_first_for_few_rows_and_a_large_product(shape, expected):
    x, w, _ = _arrays(*shape)
    assert _weight_first(numpy, x, w) is expected


def test_rule_keeps_the_written_order_for_integers_and_half_floats():
    for dtype in ("int32", "float16"):
        x, w, _ = _arrays(64, 784, 256, dtype)
        assert not _weight_first(numpy, x, w)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(64, 784, 256), (8, 512, 1000), (64, 128, 10)])
def test_both_kernels_give_the_written_product(shape, dtype):
    """Equal to rounding: OpenBLAS accumulates the two orientations in the same order on some
    processors (the same bits) but not on all (AMD EPYC's kernels differ in the last bit)."""
    x, w, b = _arrays(*shape, dtype)
    attrs = FC.parse_attrs({"num_hidden": shape[2]})
    expected = x @ w.T + b
    rtol = 1e-5 if dtype == "float32" else 1e-12
    out = numpy.full((shape[0], shape[2]), numpy.nan, dtype)
    FC.compute_into(numpy, [x, w, b], attrs, [out])
    numpy.testing.assert_allclose(out, expected, rtol=rtol, atol=rtol * numpy.abs(expected).max())
    result = FC.compute(numpy, [x, w, b], attrs)
    assert result.flags.c_contiguous
    numpy.testing.assert_array_equal(result, out)


@pytest.mark.parametrize("options", [{}, {"static_alloc": True, "static_shape": True}])
def test_a_hybridized_dense_layer_matches_imperative_bit_for_bit(options):
    x = mx.nd.array(numpy.random.default_rng(1).standard_normal((8, 512)).astype("float32"))
    net = mx.gluon.nn.Dense(1000, in_units=512)
    net.initialize()
    with mx.autograd.record():
        eager = net(x)
    eager.backward()
    eager_grad = net.weight.grad().asnumpy().copy()
    net.hybridize(**options)
    with mx.autograd.record():
        planned = net(x)
    planned.backward()
    assert numpy.array_equal(planned.asnumpy(), eager.asnumpy())
    assert numpy.array_equal(net.weight.grad().asnumpy(), eager_grad)
