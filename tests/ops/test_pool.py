"""Pooling: values vs MXNet's pool.h loops and MXNet-printed goldens, gradients, shapes, errors."""

import itertools
import math

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetValueError
from mxlab.ops.registry import get_op
from mxlab.test_utils import assert_almost_equal, check_numeric_gradient


def _out_size(size, k, s, p, convention):
    if convention == "valid":
        return (size + 2 * p - k) // s + 1
    return 1 + math.ceil((size + 2 * p - k) / s)


def pool_ref(
    x, kernel, stride, pad, pool_type, convention="valid", count_include_pad=True, p_value=2
):
    """MXNet's pool.h: window [start, min(start + k, size + pad)) clipped to the input."""
    nd = x.ndim - 2
    out_sp = [
        _out_size(x.shape[2 + i], kernel[i], stride[i], pad[i], convention) for i in range(nd)
    ]
    out = numpy.zeros(x.shape[:2] + tuple(out_sp))
    for o in itertools.product(*(range(s) for s in out_sp)):
        starts = [o[i] * stride[i] - pad[i] for i in range(nd)]
        ends = [min(starts[i] + kernel[i], x.shape[2 + i] + pad[i]) for i in range(nd)]
        size = numpy.prod([e - s for s, e in zip(starts, ends)])
        lo = [max(s, 0) for s in starts]
        hi = [min(e, x.shape[2 + i]) for i, e in enumerate(ends)]
        window = x[(slice(None), slice(None)) + tuple(slice(a, b) for a, b in zip(lo, hi))]
        window = window.reshape(x.shape[:2] + (-1,))
        if not count_include_pad:
            size = window.shape[2]
        if pool_type == "max":
            value = window.max(axis=2) if window.shape[2] else numpy.finfo(x.dtype).min
        elif pool_type == "lp":
            value = numpy.sum(window**p_value, axis=2) ** (1.0 / p_value)
        else:
            value = window.sum(axis=2)
            if pool_type == "avg":
                value = value / max(size, 1)
        out[(slice(None), slice(None)) + o] = value
    return out


CASES = [
    ((2, 3, 9), (3,), (2,), (1,)),
    ((2, 2, 7, 6), (3, 2), (2, 2), (1, 1)),
    ((1, 2, 5, 4, 5), (2, 3, 2), (2, 1, 2), (1, 1, 0)),
]


@pytest.mark.parametrize("shape,kernel,stride,pad", CASES)
@pytest.mark.parametrize("pool_type", ["max", "avg", "sum"])
@pytest.mark.parametrize("convention", ["valid", "full"])
def test_pooling_matches_reference(shape, kernel, stride, pad, pool_type, convention):
    x = numpy.random.randn(*shape)
    for include in (True, False):
        out = mx.nd.Pooling(
            mx.nd.array(x, dtype="float64"),
            kernel=kernel,
            stride=stride,
            pad=pad,
            pool_type=pool_type,
            pooling_convention=convention,
            count_include_pad=include,
        )
        expected = pool_ref(x, kernel, stride, pad, pool_type, convention, include)
        assert_almost_equal(out, expected, rtol=1e-12, atol=1e-12)


def test_average_pooling_goldens_printed_by_mxnet():
    """Values MXNet 1.9.1 printed for avg pooling of arange(25) on a 5x5 map."""
    x = mx.nd.array(numpy.arange(25, dtype="float32").reshape(1, 1, 5, 5))
    full = mx.nd.Pooling(
        x, kernel=(2, 2), stride=(2, 2), pool_type="avg", pooling_convention="full"
    )
    assert full.asnumpy()[0, 0].tolist() == [
        [3.0, 5.0, 6.5],
        [13.0, 15.0, 16.5],
        [20.5, 22.5, 24.0],
    ]
    padded = mx.nd.Pooling(x, kernel=(2, 2), stride=(3, 3), pad=(1, 1), pool_type="avg")
    assert padded.asnumpy()[0, 0].tolist() == [[0.0, 1.25], [6.25, 15.0]]


def test_lp_pooling_goldens_printed_by_mxnet():
    x = numpy.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    lp2 = mx.nd.Pooling(mx.nd.array(x), kernel=(2, 2), stride=(2, 2), pool_type="lp", p_value=2)
    assert_almost_equal(
        lp2, [[[[6.480741, 9.899495], [21.400934, 25.337719]]]], rtol=1e-6, atol=1e-6
    )
    lp1 = mx.nd.Pooling(mx.nd.array(x - 8), kernel=(2, 2), stride=(2, 2), pool_type="lp", p_value=1)
    assert lp1.asnumpy().tolist() == [[[[-22.0, -14.0], [10.0, 18.0]]]]


def test_global_pooling_and_max_with_padding():
    x = numpy.random.randn(2, 3, 4, 5)
    for pool_type, fn in (("max", numpy.max), ("avg", numpy.mean), ("sum", numpy.sum)):
        out = mx.nd.Pooling(
            mx.nd.array(x, dtype="float64"), kernel=(1, 1), global_pool=True, pool_type=pool_type
        )
        assert_almost_equal(out, fn(x, axis=(2, 3), keepdims=True), rtol=1e-12, atol=1e-12)
    neg = mx.nd.array(numpy.arange(16, dtype="float32").reshape(1, 1, 4, 4) - 20)
    out = mx.nd.Pooling(neg, kernel=(3, 3), pad=(1, 1), pool_type="max")
    assert out.asnumpy()[0, 0, 0].tolist() == [-15.0, -14.0, -13.0, -13.0]


def test_same_convention_one_d():
    x = numpy.random.randn(1, 2, 7)
    out = mx.nd.Pooling(
        mx.nd.array(x, dtype="float64"), kernel=(3,), stride=(2,), pooling_convention="same"
    )
    assert out.shape == (1, 2, 4)
    padded = numpy.pad(x, ((0, 0), (0, 0), (1, 1)), constant_values=-numpy.inf)
    expected = numpy.stack([padded[..., 2 * i : 2 * i + 3].max(axis=-1) for i in range(4)], axis=-1)
    assert_almost_equal(out, expected, rtol=1e-12, atol=1e-12)


def _distinct(*shape):
    """Values without ties, so max pooling is differentiable at the point."""
    return numpy.random.permutation(numpy.prod(shape)).reshape(shape) / 7.0


@pytest.mark.parametrize(
    "pool_type,extra",
    [
        ("max", {}),
        ("avg", {}),
        ("avg", {"count_include_pad": False}),
        ("sum", {}),
        ("lp", {"p_value": 2}),
        ("lp", {"p_value": 3}),
    ],
)
def test_pooling_gradients(pool_type, extra):
    x = _distinct(1, 2, 5, 6) + (0.5 if pool_type == "lp" else 0)
    attrs = dict(
        kernel=(3, 2),
        stride=(2, 2),
        pad=(1, 1),
        pool_type=pool_type,
        pooling_convention="full",
        **extra,
    )
    check_numeric_gradient(
        lambda x: mx.nd.Pooling(x, **attrs),
        [x],
        numeric_eps=1e-5,
        rtol=1e-5,
        atol=1e-6,
        dtype=numpy.float64,
    )


@pytest.mark.parametrize("pool_type", ["max", "avg"])
def test_global_and_3d_pooling_gradients(pool_type):
    check_numeric_gradient(
        lambda x: mx.nd.Pooling(x, global_pool=True, pool_type=pool_type),
        [_distinct(2, 2, 3, 4)],
        numeric_eps=1e-5,
        rtol=1e-5,
        atol=1e-6,
        dtype=numpy.float64,
    )
    check_numeric_gradient(
        lambda x: mx.nd.Pooling(x, kernel=(2, 2, 2), stride=(1, 2, 2), pool_type=pool_type),
        [_distinct(1, 1, 3, 4, 4)],
        numeric_eps=1e-5,
        rtol=1e-5,
        atol=1e-6,
        dtype=numpy.float64,
    )


def test_max_pooling_gradient_goes_to_first_maximum():
    x = mx.nd.array(numpy.ones((1, 1, 2, 2)))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Pooling(x, kernel=(2, 2), pool_type="max")
    y.backward()
    assert x.grad.asnumpy().ravel().tolist() == [1.0, 0.0, 0.0, 0.0]


def test_shape_inference_and_names():
    op = get_op("Pooling")
    attrs = op.parse_attrs(dict(kernel=(3, 3), stride=(2, 2), pooling_convention="full"))
    assert op.infer_shapes(attrs, [(2, 3, 8, 8)])[1] == [(2, 3, 4, 4)]
    out = mx.npx.pooling(
        mx.np.array(numpy.ones((1, 2, 4, 4))), kernel=(2, 2), stride=(2, 2), cudnn_off=True
    )
    assert isinstance(out, mx.np.ndarray) and out.shape == (1, 2, 2, 2)


def test_errors_name_op_and_argument():
    x = mx.nd.array(numpy.ones((1, 1, 4, 4)))
    with pytest.raises(MXNetValueError, match="Pooling.*'kernel' is required"):
        mx.nd.Pooling(x)
        mx.engine.wait_all()
    with pytest.raises(MXNetValueError, match="Pooling.*'p_value'"):
        mx.nd.Pooling(x, kernel=(2, 2), pool_type="lp")
        mx.engine.wait_all()
    with pytest.raises(MXNetValueError, match="Pooling.*'same'"):
        mx.nd.Pooling(x, kernel=(2, 2), pooling_convention="same")
        mx.engine.wait_all()
    with pytest.raises(MXNetValueError, match="Pooling.*kernel size 5 exceeds"):
        mx.nd.Pooling(x, kernel=(5, 5))
        mx.engine.wait_all()
    with pytest.raises(MXNetValueError, match="Pooling.*'data'"):
        mx.nd.Pooling(mx.nd.array(numpy.ones((4, 4))), kernel=(2,))
        mx.engine.wait_all()


# -- gradient kernels against MXNet's unpool loops (pool.h), bit for bit ---------------------------
def _windows(x_shape, kernel, stride, pad, convention):
    """MXNet's windows in output order: (output index, per-axis [start, end) clipped to the
    input, the unclipped window size clipped to input + pad)."""
    nd = len(kernel)
    out_sp = [
        _out_size(x_shape[2 + i], kernel[i], stride[i], pad[i], convention) for i in range(nd)
    ]
    for o in itertools.product(*(range(s) for s in out_sp)):
        starts = [o[i] * stride[i] - pad[i] for i in range(nd)]
        ends = [min(starts[i] + kernel[i], x_shape[2 + i] + pad[i]) for i in range(nd)]
        size = int(numpy.prod([e - s for s, e in zip(starts, ends)]))
        lo = [max(s, 0) for s in starts]
        hi = [min(e, x_shape[2 + i]) for i, e in enumerate(ends)]
        yield o, lo, hi, size


def unpool_max_ref(x, y, dy, kernel, stride, pad, convention="valid"):
    """``unpool_max_*_cpu``: each output's gradient goes to the first input (row-major in the
    window clipped to the input) equal to the output, added in output order in x's dtype."""
    dx = numpy.zeros_like(x)
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o, lo, hi, _ in _windows(x.shape, kernel, stride, pad, convention):
            for pos in itertools.product(*(range(a, b) for a, b in zip(lo, hi))):
                if x[(n, c) + pos] == y[(n, c) + o]:
                    dx[(n, c) + pos] += dy[(n, c) + o]
                    break
    return dx


def unpool_avg_ref(x, dy, kernel, stride, pad, convention="valid", count_include_pad=True):
    """``unpool_sum_*_cpu`` for average pooling: dy / window size added to each input."""
    dx = numpy.zeros_like(x)
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o, lo, hi, size in _windows(x.shape, kernel, stride, pad, convention):
            if not count_include_pad:
                size = int(numpy.prod([b - a for a, b in zip(lo, hi)]))
            for pos in itertools.product(*(range(a, b) for a, b in zip(lo, hi))):
                dx[(n, c) + pos] += dy[(n, c) + o] / x.dtype.type(max(size, 1))
    return dx


def _pool_grad(x, dy, **attrs):
    xa = mx.nd.array(x, dtype=x.dtype)
    xa.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Pooling(xa, **attrs)
    y.backward(mx.nd.array(dy, dtype=dy.dtype))
    return y.asnumpy(), xa.grad.asnumpy()


GRAD_CASES = [  # shape, kernel, stride, pad, convention: overlap, padding, strides, 1-3 d
    ((2, 3, 9, 9), (3, 3), (2, 2), (1, 1), "valid"),
    ((1, 2, 8, 7), (3, 2), (1, 2), (1, 0), "full"),
    ((2, 2, 6, 6), (2, 2), (2, 2), (0, 0), "valid"),
    ((1, 2, 7, 5), (4, 3), (3, 1), (2, 1), "full"),
    ((2, 3, 11), (3,), (2,), (1,), "valid"),
    ((1, 2, 4, 5, 5), (2, 3, 3), (1, 2, 2), (1, 1, 0), "valid"),
]


@pytest.mark.parametrize("shape,kernel,stride,pad,convention", GRAD_CASES)
def test_max_pool_gradient_ties_go_to_first_max_bit_for_bit(shape, kernel, stride, pad, convention):
    rng = numpy.random.default_rng(len(shape) * 7 + kernel[0])
    x = rng.integers(0, 3, size=shape).astype(numpy.float32)  # many tied maxima per window
    attrs = dict(kernel=kernel, stride=stride, pad=pad, pool_type="max",
                 pooling_convention=convention)
    dy = rng.standard_normal(mx.nd.Pooling(mx.nd.array(x), **attrs).shape).astype(numpy.float32)
    y, dx = _pool_grad(x, dy, **attrs)
    expected = unpool_max_ref(x, y, dy, kernel, stride, pad, convention)
    numpy.testing.assert_array_equal(dx, expected)
    assert numpy.count_nonzero(dx) < x.size  # ties really left inputs without gradient


def test_max_pool_gradient_skips_padding_and_nan_windows():
    low = numpy.finfo(numpy.float32).min
    x = numpy.full((1, 1, 3, 3), low, dtype=numpy.float32)  # equals the padding's fill value
    x[0, 0, 2, 2] = numpy.nan
    attrs = dict(kernel=(2, 2), stride=(1, 1), pad=(1, 1), pool_type="max")
    dy = numpy.arange(1, 17, dtype=numpy.float32).reshape(1, 1, 4, 4)
    y, dx = _pool_grad(x, dy, **attrs)
    assert numpy.isnan(y[0, 0, 2:, 2:]).all()   # NaN windows: no input equals the output
    expected = unpool_max_ref(x, y, dy, (2, 2), (1, 1), (1, 1))
    numpy.testing.assert_array_equal(dx, expected)
    assert dx[0, 0, 0, 0] == 1 + 2 + 5 + 6  # padding-first windows still reach the real input


@pytest.mark.parametrize("shape,kernel,stride,pad,convention", GRAD_CASES)
@pytest.mark.parametrize("include", [True, False])
def test_avg_pool_gradient_matches_unpool_loop(shape, kernel, stride, pad, convention, include):
    rng = numpy.random.default_rng(3)
    x = rng.standard_normal(shape)
    attrs = dict(kernel=kernel, stride=stride, pad=pad, pool_type="avg",
                 pooling_convention=convention, count_include_pad=include)
    dy = rng.standard_normal(mx.nd.Pooling(mx.nd.array(x), **attrs).shape)
    _, dx = _pool_grad(x, dy, **attrs)
    expected = unpool_avg_ref(x, dy, kernel, stride, pad, convention, include)
    assert_almost_equal(dx, expected, rtol=1e-12, atol=1e-12)


def test_global_pool_gradients_first_max_and_mean():
    x = numpy.array([[[[1.0, 3.0], [3.0, 0.0]], [[numpy.nan, 2.0], [2.0, 1.0]]]], "float32")
    dy = numpy.array([[[[5.0]], [[7.0]]]], dtype=numpy.float32)
    _, dx = _pool_grad(x, dy, global_pool=True, pool_type="max", kernel=(1, 1))
    assert dx.tolist() == [[[[0.0, 5.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]]]
    _, dx = _pool_grad(x, dy, global_pool=True, pool_type="avg", kernel=(1, 1))
    numpy.testing.assert_array_equal(dx[0, 0], numpy.full((2, 2), 1.25, "float32"))


def test_extra_zero_pad_entries_are_read_as_mxnet_reads_them():
    """MXNet reads the first ndim pad entries: pad=(0, 0, 0) on 1-D data runs (its
    test_valid_max_pooling_pad_type_same); a nonzero extra entry is still an error."""
    x = mx.nd.array(numpy.arange(10.0).reshape(1, 1, 10))
    out = mx.nd.Pooling(x, kernel=2, stride=2, pad=(0, 0, 0), pool_type="max",
                        pooling_convention="same")
    assert out.asnumpy().ravel().tolist() == [1.0, 3.0, 5.0, 7.0, 9.0]
    with pytest.raises(MXNetValueError, match="pad"):   # (the wait: ThreadedEngine's error)
        mx.nd.Pooling(x, kernel=2, stride=2, pad=(0, 1), pool_type="max").wait_to_read()
