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
