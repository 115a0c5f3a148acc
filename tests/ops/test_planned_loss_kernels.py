"""The planned (``compute_into``) kernels of a classifier's loss -- softmax / log_softmax, pick
and pick's backward -- write exactly what the op's own compute returns, on their fast paths (last
axis, plain float input) and on the cases that fall back (other axis, temperature, a cast, ints)."""
import numpy
import pytest

from mxlab.ops.registry import get_op


def _into(name, inputs, out_shape, out_dtype, **attrs):
    op = get_op(name)
    parsed = op.parse_attrs(attrs)
    expected = numpy.asarray(op.compute(numpy, inputs, parsed))
    out = numpy.full(out_shape, numpy.nan, out_dtype)
    op.compute_into(numpy, inputs, parsed, [out])
    return out, expected


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("attrs", [{"axis": -1}, {"axis": 0}, {"axis": 1, "temperature": 2.0},
                                   {"axis": -1, "dtype": "float64"}])
def test_softmax_into_matches_its_compute_bit_for_bit(name, attrs):
    x = numpy.random.default_rng(0).standard_normal((6, 5)).astype("float32") * 4
    dtype = attrs.get("dtype", "float32")
    out, expected = _into(name, [x], x.shape, dtype, **attrs)
    assert out.dtype == expected.dtype
    numpy.testing.assert_array_equal(out, expected)


def test_softmax_into_of_integers_computes_in_float():
    x = numpy.arange(12, dtype="int32").reshape(3, 4)
    out, expected = _into("softmax", [x], x.shape, "float32", axis=-1)
    numpy.testing.assert_allclose(out, expected, rtol=1e-6)
    numpy.testing.assert_allclose(out.sum(axis=-1), 1.0, rtol=1e-6)


@pytest.mark.parametrize("axis, shape", [(-1, (4, 7)), (1, (4, 7, 3)), (0, (5, 2)),
                                         (-1, (2, 3, 6))])
@pytest.mark.parametrize("mode", ["clip", "wrap"])
def test_pick_matches_take_along_axis(axis, shape, mode):
    rng = numpy.random.default_rng(1)
    data = rng.standard_normal(shape).astype("float32")
    index_shape = shape[:axis % len(shape)] + shape[axis % len(shape) + 1:]
    index = rng.integers(-3, shape[axis] + 3, index_shape).astype("float32")
    op = get_op("pick")
    attrs = op.parse_attrs({"axis": axis, "mode": mode})
    got = op.compute(numpy, [data, index], attrs)
    wrapped = numpy.clip(index, 0, shape[axis] - 1) if mode == "clip" else index % shape[axis]
    expected = numpy.take_along_axis(
        data, numpy.expand_dims(wrapped.astype("int64"), axis), axis=axis).squeeze(axis)
    numpy.testing.assert_array_equal(got, expected)
    into = numpy.full(expected.shape, numpy.nan, "float32")
    op.compute_into(numpy, [data, index], attrs, [into])
    numpy.testing.assert_array_equal(into, expected)
    strided = numpy.full(expected.shape[::-1], numpy.nan, "float32").T   # NOTE: not contiguous
    op.compute_into(numpy, [data, index], attrs, [strided])
    numpy.testing.assert_array_equal(strided, expected)


def test_pick_into_with_kept_dims_and_a_transposed_input():
    rng = numpy.random.default_rng(3)
    data = rng.standard_normal((6, 4)).astype("float32").T.copy().T   # NOTE: F-ordered
    index = numpy.array([3, 0, 2, 2, 1, 9], "float32")
    op = get_op("pick")
    out = numpy.empty((6, 1), "float32")
    op.compute_into(numpy, [data, index], op.parse_attrs({"keepdims": True}), [out])
    numpy.testing.assert_array_equal(out[:, 0], data[numpy.arange(6), [3, 0, 2, 2, 1, 3]])


@pytest.mark.parametrize("contiguous", [True, False])
def test_pick_backward_puts_the_gradient_at_the_picked_positions(contiguous):
    rng = numpy.random.default_rng(2)
    data = rng.standard_normal((5, 4)).astype("float32")
    index = numpy.array([0, 3, 1, 1, 2], "float32")
    grad = rng.standard_normal(5).astype("float32")
    op = get_op("_backward_pick")
    holder = numpy.full((4, 5), numpy.nan, "float32")
    out = numpy.full((5, 4), numpy.nan, "float32") if contiguous else holder.T
    op.compute_into(numpy, [grad, data, index], op.parse_attrs({"axis": -1}), [out])
    expected = numpy.zeros((5, 4), "float32")
    expected[numpy.arange(5), index.astype(int)] = grad
    numpy.testing.assert_array_equal(out, expected)
