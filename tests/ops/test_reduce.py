"""Reductions: values against NumPy, legacy vs NumPy shapes and dtypes, gradients, bad axes."""
import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetAxisError, MXNetError, MXNetTypeError, MXNetValueError

from helpers import (analytic_gradient, assert_same_results, check_gradient, requires_oracle,
                     run_both)

AXES = [None, 0, -1, (0, 2), (1,)]
SHAPE = (2, 3, 4)
# public name, NumPy reference
REDUCTIONS = [("sum", numpy.sum), ("mean", numpy.mean), ("max", numpy.max), ("min", numpy.min),
              ("prod", numpy.prod)]
RED_IDS = [row[0] for row in REDUCTIONS]


def _data(shape=SHAPE, dtype="float32", low=0.5, high=1.5):
    return numpy.random.uniform(low, high, size=shape).astype(dtype)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,ref", REDUCTIONS, ids=RED_IDS)
def test_np_reduction_values(name, ref, dtype, axis, keepdims):
    x = _data(dtype=dtype)
    got = getattr(mx.np, name)(mx.np.array(x), axis=axis, keepdims=keepdims)
    expected = ref(x, axis=axis, keepdims=keepdims)
    assert got.shape == expected.shape and got.dtype == numpy.dtype(dtype)
    numpy.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-5)


@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("name,ref", REDUCTIONS, ids=RED_IDS)
def test_nd_reduction_values_and_legacy_shapes(name, ref, axis):
    x = _data()
    got = getattr(mx.nd, name)(mx.nd.array(x), axis=axis)
    expected = numpy.asarray(ref(x, axis=axis))
    assert got.shape == (expected.shape or (1,))
    numpy.testing.assert_allclose(got.asnumpy().reshape(expected.shape), expected, rtol=1e-5)


@pytest.mark.parametrize("name,ref", REDUCTIONS, ids=RED_IDS)
def test_nd_exclude_reduces_the_other_axes(name, ref):
    x = _data()
    got = getattr(mx.nd, name)(mx.nd.array(x), axis=1, exclude=True, keepdims=True)
    numpy.testing.assert_allclose(got.asnumpy(), ref(x, axis=(0, 2), keepdims=True), rtol=1e-5)


@pytest.mark.parametrize("call,shape", [
    (lambda: mx.nd.sum(mx.nd.ones((2, 3)), axis=()), (1,)),
    (lambda: mx.np.sum(mx.np.ones((2, 3)), axis=()), (2, 3)),
    (lambda: mx.nd.sum(mx.nd.ones((2, 3))), (1,)),
    (lambda: mx.np.sum(mx.np.ones((2, 3))), ()),
    (lambda: mx.nd.max(mx.nd.ones((2, 3)), keepdims=True), (1, 1)),
    (lambda: mx.nd.ones((2, 3)).sum(), (1,)),
    (lambda: mx.np.ones((2, 3)).sum(), ()),
], ids=["nd-empty-axis", "np-empty-axis", "nd-full", "np-full", "nd-keepdims", "nd-method",
        "np-method"])
def test_full_reduction_shapes_per_flavour(call, shape):
    assert call().shape == shape


@pytest.mark.parametrize("call,dtype,value", [
    (lambda: mx.np.sum(mx.np.array([1, 2], dtype="int32")), "int32", 3),
    (lambda: mx.np.sum(mx.np.array([True, True, False])), "int64", 2),
    (lambda: mx.np.sum(mx.np.array([1, 2], dtype="int32"), dtype="float64"), "float64", 3),
    (lambda: mx.np.mean(mx.np.array([1, 2], dtype="int32")), "float32", 1.5),
    (lambda: mx.nd.mean(mx.nd.array([1, 2], dtype="int32")), "int32", 1),
    (lambda: mx.np.sum(mx.np.array([1.0, 2.0]), initial=10.0), "float32", 13),
    (lambda: mx.np.max(mx.np.array([1.0, 2.0]), initial=5.0), "float32", 5),
], ids=["np-int-sum", "np-bool-sum", "np-sum-dtype", "np-int-mean", "nd-int-mean", "initial-sum",
        "initial-max"])
def test_reduction_dtypes(call, dtype, value):
    result = call()
    assert numpy.dtype(result.dtype) == numpy.dtype(dtype)
    assert float(result.asnumpy().reshape(-1)[0]) == value


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_arg_reductions_per_flavour(name, axis):
    x = _data((3, 4))
    ref = getattr(numpy, name)(x, axis=axis)
    np_result = getattr(mx.np, name)(mx.np.array(x), axis=axis)
    nd_result = getattr(mx.nd, name)(mx.nd.array(x), axis=axis)
    assert np_result.dtype == numpy.int64 and np_result.shape == numpy.shape(ref)
    assert nd_result.dtype == numpy.float32 and nd_result.shape == (numpy.shape(ref) or (1,))
    numpy.testing.assert_array_equal(np_result.asnumpy(), ref)
    numpy.testing.assert_array_equal(nd_result.asnumpy().reshape(numpy.shape(ref)), ref)


def test_argmax_keepdims():
    x = _data((3, 4))
    got = mx.np.argmax(mx.np.array(x), axis=1, keepdims=True)
    numpy.testing.assert_array_equal(got.asnumpy(), numpy.argmax(x, axis=1, keepdims=True))


@pytest.mark.parametrize("ord_", [1, 2])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), ((0, 1), True), (-1, True)])
def test_norm_values(ord_, axis, keepdims):
    x = _data(low=-1.0, high=1.0)
    got = mx.nd.norm(mx.nd.array(x), ord=ord_, axis=axis, keepdims=keepdims)
    flat = numpy.abs(x) if ord_ == 1 else x * x
    expected = flat.sum(axis=axis, keepdims=keepdims)
    expected = expected if ord_ == 1 else numpy.sqrt(expected)
    assert got.shape == (numpy.shape(expected) or (1,))
    numpy.testing.assert_allclose(got.asnumpy().reshape(numpy.shape(expected)), expected, rtol=1e-5)


@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("axis,ddof", [(None, 0), (1, 1), ((0, 2), 0)])
def test_std_var_values(name, axis, ddof):
    x = _data()
    got = getattr(mx.np, name)(mx.np.array(x), axis=axis, ddof=ddof)
    expected = getattr(numpy, name)(x, axis=axis, ddof=ddof)
    numpy.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-5)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_cumsum_values(axis):
    x = _data((3, 4))
    for got in (mx.np.cumsum(mx.np.array(x), axis=axis), mx.nd.cumsum(mx.nd.array(x), axis=axis)):
        numpy.testing.assert_allclose(got.asnumpy(), numpy.cumsum(x, axis=axis), rtol=1e-5)


@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_all_any(name, axis):
    x = numpy.random.randint(0, 2, size=(3, 4)).astype("float32")
    got = getattr(mx.np, name)(mx.np.array(x), axis=axis)
    assert got.dtype == numpy.bool_
    numpy.testing.assert_array_equal(got.asnumpy(), getattr(numpy, name)(x, axis=axis))


def test_nansum_treats_nan_as_zero():
    x = numpy.array([[1.0, numpy.nan], [2.0, 3.0]], dtype="float32")
    numpy.testing.assert_array_equal(mx.nd.nansum(mx.nd.array(x), axis=1).asnumpy(), [1.0, 5.0])


# -- gradients -------------------------------------------------------------------------------------
GRAD_AXES = [{}, {"axis": 1}, {"axis": (0, 2), "keepdims": True}, {"axis": -1}]
# op, extra attributes, domain
GRAD_OPS = [
    ("sum", {}), ("_np_sum", {}), ("mean", {}), ("_npi_mean", {}), ("max", {}), ("_np_max", {}),
    ("min", {}), ("_np_min", {}), ("prod", {}), ("_np_prod", {}), ("nansum", {}),
    ("norm", {"ord": 2}), ("norm", {"ord": 1}), ("_npi_std", {"ddof": 1}),
    ("_npi_var", {"ddof": 0}), ("_npi_var", {"ddof": 1}),
]


@pytest.mark.parametrize("axes", GRAD_AXES, ids=str)
@pytest.mark.parametrize("name,attrs", GRAD_OPS, ids=[f"{r[0]}-{r[1]}" for r in GRAD_OPS])
def test_reduction_gradient(name, attrs, axes):
    x = numpy.random.permutation(24).reshape(SHAPE) * 0.1 + 0.5   # distinct: unique max/min
    check_gradient(name, [x], {**attrs, **axes}, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("attrs", [{"axis": 0, "exclude": True}, {"axis": ()}], ids=str)
def test_legacy_exclude_and_empty_axis_gradients(attrs):
    check_gradient("sum", [_data(dtype="float64")], attrs)
    check_gradient("mean", [_data(dtype="float64")], attrs)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_cumsum_gradient(axis):
    check_gradient("_np_cumsum", [_data((3, 4), "float64")], {"axis": axis})


@pytest.mark.parametrize("name,attrs", [
    ("_broadcast_reduced", {"axis": 1}), ("_broadcast_reduced", {"axis": (0, 2), "mean": True}),
    ("_sum_reduced_like", {"axis": 1}), ("_sum_reduced_like", {"axis": 1, "mean": True, "ddof": 1}),
    ("_rcumsum", {"axis": None}), ("_rcumsum", {"axis": 1}),
], ids=str)
def test_gradient_helpers_are_differentiable(name, attrs):
    full = _data((2, 3, 4), "float64")
    reduced = _data((2, 4) if attrs["axis"] == 1 else (3,), "float64")
    scanned = _data((12,) if attrs["axis"] is None else (3, 4), "float64")
    pairs = {"_broadcast_reduced": (reduced, full), "_sum_reduced_like": (full, reduced),
             "_rcumsum": (scanned, _data((3, 4), "float64"))}
    check_gradient(name, list(pairs[name]), attrs, wrt=[0])


def test_max_ties_each_get_the_full_gradient():
    x = numpy.array([1.0, 3.0, 3.0, 2.0])
    grads, _, _ = analytic_gradient("max", [x], head=numpy.array([1.0]))
    numpy.testing.assert_array_equal(grads[0].asnumpy(), [0, 1, 1, 0])


@pytest.mark.parametrize("name", ["argmax", "_npi_argmax", "_np_all", "_np_any"])
def test_index_and_logical_reductions_have_no_gradient(name):
    grads, _, _ = analytic_gradient(name, [_data((2, 3), "float64")], {"axis": 1})
    assert grads == [None]


def test_reduction_gradient_with_autograd_on_nd_arrays():
    x = mx.nd.array(_data((2, 3), "float64"), dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.mean(x, axis=1) * mx.nd.sum(x)
    y.backward()
    data = x.asnumpy()
    expected = data.sum() / 3 + data.mean(axis=1).sum()
    numpy.testing.assert_allclose(x.grad.asnumpy(), numpy.full((2, 3), expected), rtol=1e-12)


# -- errors ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("call,error,message", [
    (lambda: mx.nd.sum(mx.nd.ones((2, 3)), axis=2), MXNetAxisError, "sum: axis 2"),
    (lambda: mx.np.max(mx.np.ones((2, 3)), axis=-3), MXNetAxisError, "_np_max: axis -3"),
    (lambda: mx.np.sum(mx.np.ones((2, 3)), axis=(0, 0)), MXNetValueError, "_np_sum: duplicate"),
    (lambda: mx.np.sum(mx.np.ones((2, 3)), exclude=True), MXNetValueError,
     "_np_sum: unknown attribute"),
    (lambda: mx.nd.argmax(mx.nd.ones((2, 3)), exclude=True), MXNetValueError,
     "argmax: unknown attribute"),
    (lambda: mx.nd.norm(mx.nd.ones((2, 3)), ord=3), MXNetValueError, "norm: attribute 'ord'"),
    (lambda: mx.np.cumsum(mx.np.ones((2, 3)), axis=5), MXNetAxisError, "_np_cumsum: axis 5"),
    (lambda: mx.nd.sum(mx.nd.ones((2, 3)), axis="x"), MXNetTypeError, "sum: attribute 'axis'"),
])
def test_bad_arguments_name_the_op(call, error, message):
    with pytest.raises(error, match=message) as info:
        call()
        mx.engine.wait_all()  # NOTE: an engine op's error surfaces at a wait (threaded engines)
    assert isinstance(info.value, MXNetError)


# -- oracle: the same code under real MXNet 1.9.1 --------------------------------------------------
ORACLE_CODE = """
x = mx.nd.array(inputs["x"])
xi = mx.nd.array(inputs["ints"], dtype="int32")
outputs["argmax"] = mx.nd.argmax(x, axis=1).asnumpy()
outputs["argmax_full"] = mx.nd.argmax(x).asnumpy()
outputs["argmin_keep"] = mx.nd.argmin(x, axis=0, keepdims=True).asnumpy()
outputs["sum_full"] = mx.nd.sum(x).asnumpy()
outputs["sum_empty_axis"] = mx.nd.sum(x, axis=()).asnumpy()
outputs["sum_exclude"] = mx.nd.sum(x, axis=1, exclude=True).asnumpy()
outputs["mean_int"] = mx.nd.mean(xi).asnumpy()
outputs["max_keep"] = mx.nd.max(x, axis=0, keepdims=True).asnumpy()
outputs["norm1"] = mx.nd.norm(x, ord=1, axis=1).asnumpy()
outputs["norm2_keep"] = mx.nd.norm(x, axis=(0, 1), keepdims=True).asnumpy()
outputs["prod"] = mx.nd.prod(x, axis=0).asnumpy()
outputs["nansum"] = mx.nd.nansum(x, axis=0).asnumpy()
outputs["cumsum"] = mx.nd.cumsum(x, axis=1).asnumpy()
for name, fn in (("max", lambda v: mx.nd.max(v, axis=1)), ("norm", lambda v: mx.nd.norm(v, axis=1)),
                 ("prod", lambda v: mx.nd.prod(v, axis=0)),
                 ("mean", lambda v: mx.nd.mean(v, axis=0, exclude=True))):
    v = x.copy()
    v.attach_grad()
    with mx.autograd.record():
        y = fn(v)
    y.backward(mx.nd.ones_like(y) * 1.5)
    outputs["grad_" + name] = v.grad.asnumpy()
"""


@pytest.mark.oracle
@requires_oracle
def test_legacy_semantics_match_mxnet():
    inputs = {"x": numpy.random.uniform(-2, 2, size=(4, 6)).astype("float32"),
              "ints": numpy.array([1, 2], dtype="int32")}
    assert_same_results(*run_both(ORACLE_CODE, inputs), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["argmax", "argmin", "sum", "max"])
@pytest.mark.parametrize("axis", [0, -1])
def test_np_reductions_take_axis_zero_of_a_scalar(name, axis):
    """NumPy and MXNet's numpy reductions read axis 0 (or -1) of a 0-d array as the scalar
    itself; axis 1 is still out of bounds."""
    a = mx.np.array(3.0)
    got = getattr(mx.np, name)(a, axis=axis, keepdims=True)
    assert got.shape == ()
    assert got.item() == getattr(numpy, name)(numpy.array(3.0), axis=axis)
    assert mx.np.squeeze(got, axis=axis).shape == ()
    with pytest.raises(MXNetAxisError, match="axis 1"):
        getattr(mx.np, name)(a, axis=1).wait_to_read()


@pytest.mark.parametrize("itype", ["float16", "float32", "float64"])
def test_np_sum_to_float16_accumulates_wide(itype):
    """``np.sum(x, dtype='float16')`` sums in float32 (float16 input) or float64 and rounds
    once at the end, as MXNet does (float16 partial sums would round at every step)."""
    x = numpy.random.RandomState(0).uniform(-1, 1, (64, 4, 4)).astype(itype)
    got = mx.np.sum(mx.np.array(x, dtype=itype), axis=(1, 2), dtype="float16").asnumpy()
    acc = "float32" if itype == "float16" else "float64"
    want = x.sum(axis=(1, 2), dtype=acc).astype("float16")
    assert got.dtype == numpy.float16
    numpy.testing.assert_array_equal(got, want)


def test_np_mean_to_float16_and_integer_dtypes():
    """mean(dtype=float16) accumulates wide; mean(dtype=int8) of a float input still has a float
    gradient 1/N (MXNet's gradient takes the input's dtype)."""
    x_np = numpy.random.RandomState(2).uniform(-1, 1, (8, 6)).astype("float16")
    got = mx.np.mean(mx.np.array(x_np, dtype="float16"), axis=1, dtype="float16")
    numpy.testing.assert_array_equal(got.asnumpy(),
                                     x_np.mean(axis=1, dtype="float32").astype("float16"))
    x = mx.np.array(x_np, dtype="float16")
    x.attach_grad()
    with mx.autograd.record():
        y = x.mean(axis=1, dtype="int8")
    y.backward()
    assert y.dtype == numpy.int8 and x.grad.dtype == numpy.float16
    numpy.testing.assert_array_equal(x.grad.asnumpy(), numpy.ones((8, 6), "float16") / 6)
