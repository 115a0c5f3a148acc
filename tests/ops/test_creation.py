"""Creation ops and casts: values and dtypes against NumPy, MXNet's argument orders, devices,
shape/dtype rules read from attributes only, and the Cast gradient."""

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetTypeError, MXNetValueError
from mxlab.ops.registry import get_op

from helpers import check_gradient


@pytest.mark.parametrize("ns", [mx.np, mx.nd])
@pytest.mark.parametrize("name,fill", [("zeros", 0), ("ones", 1), ("empty", None)])
def test_constant_arrays(ns, name, fill):
    out = getattr(ns, name)((2, 3))
    assert out.shape == (2, 3) and numpy.dtype(out.dtype) == numpy.float32
    if fill is not None:
        assert (out.asnumpy() == fill).all()
    assert getattr(ns, name)(4, dtype="int32").asnumpy().dtype == numpy.int32


def test_positional_ctx_in_nd_and_device_in_np():
    assert mx.nd.zeros((2,), mx.cpu(1)).context == mx.cpu(1)
    assert mx.nd.ones((2,), mx.cpu(1), "float16").dtype == numpy.float16
    assert mx.np.zeros((2,), "int8", device=mx.cpu(1)).device == mx.cpu(1)
    assert mx.np.ones(3, ctx=mx.cpu(1)).device == mx.cpu(1)
    with mx.cpu(1):
        assert mx.np.arange(3).device == mx.cpu(1)


def test_full():
    assert mx.nd.full((2,), 7).asnumpy().tolist() == [7.0, 7.0]
    assert mx.nd.full((2,), 7, mx.cpu(), "int64").dtype == numpy.int64
    out = mx.np.full((2, 2), 3)
    assert out.dtype == numpy.float32 and out.asnumpy().tolist() == [[3, 3], [3, 3]]
    assert mx.np.full((2,), True).dtype == numpy.bool_
    assert mx.np.full((2,), 2.5, dtype="float64").dtype == numpy.float64


@pytest.mark.parametrize(
    "args,kwargs", [((5,), {}), ((1, 7, 2), {}), ((3.0, 0.0, -0.5), {}), ((2, 2), {})]
)
def test_arange_matches_numpy(args, kwargs):
    expected = numpy.arange(*args).astype(numpy.float32)
    numpy.testing.assert_array_equal(mx.np.arange(*args, **kwargs).asnumpy(), expected)
    numpy.testing.assert_array_equal(mx.nd.arange(*args, **kwargs).asnumpy(), expected)


def test_arange_repeat_and_dtype():
    assert mx.nd.arange(0, 3, repeat=2).asnumpy().tolist() == [0, 0, 1, 1, 2, 2]
    assert mx.nd.arange(3).dtype == numpy.float32 and mx.np.arange(3).dtype == numpy.float32
    assert mx.np.arange(3, dtype="int64").asnumpy().tolist() == [0, 1, 2]
    with pytest.raises(MXNetValueError, match="arange: attribute 'step' must not be 0"):
        mx.np.arange(0, 3, 0)


def test_linspace_and_eye():
    numpy.testing.assert_allclose(mx.np.linspace(0, 1, 5).asnumpy(), numpy.linspace(0, 1, 5))
    numpy.testing.assert_allclose(
        mx.np.linspace(0, 1, 4, endpoint=False).asnumpy(), numpy.linspace(0, 1, 4, endpoint=False)
    )
    values, step = mx.np.linspace(0, 2, 5, retstep=True)
    assert step == 0.5 and values.shape == (5,)
    assert mx.np.linspace(0, 1, 3).dtype == numpy.float32
    numpy.testing.assert_array_equal(mx.np.eye(3, 4, k=1).asnumpy(), numpy.eye(3, 4, k=1))
    numpy.testing.assert_array_equal(mx.nd.eye(2).asnumpy(), numpy.eye(2))


def test_full_like_and_like_ops():
    x = mx.np.zeros((2, 3), dtype="int32")
    out = mx.np.full_like(x, 4)
    assert out.dtype == numpy.int32 and (out.asnumpy() == 4).all()
    assert mx.np.full_like(x, 0.5, dtype="float32").asnumpy()[0, 0] == 0.5
    assert mx.np.zeros_like(x).shape == (2, 3) and mx.np.ones_like(x).asnumpy().sum() == 6


@pytest.mark.parametrize(
    "op_name,attrs,shape,dtype",
    [
        ("_npi_zeros", {"shape": (2, 3)}, (2, 3), "float32"),
        ("_ones", {"shape": (4,), "dtype": "int8"}, (4,), "int8"),
        ("_full", {"shape": (1,), "value": 2}, (1,), "float32"),
        ("_arange", {"start": 0, "stop": 5, "repeat": 2}, (10,), "float32"),
        ("_npi_arange", {"start": 1, "stop": 2, "step": 0.25}, (4,), "float32"),
        ("_linspace", {"start": 0, "stop": 1, "num": 7}, (7,), "float32"),
        ("_eye", {"N": 3, "M": 5, "dtype": "float64"}, (3, 5), "float64"),
    ],
)
def test_shape_and_dtype_rules_need_no_inputs(op_name, attrs, shape, dtype):
    op = get_op(op_name)
    parsed = op.parse_attrs(attrs)
    assert op.infer_shapes(parsed, []) == ([], [shape])
    assert op.infer_types(parsed, []) == ([], [dtype])
    assert op.forward(numpy, [], parsed)[0].shape == shape


def test_mxnet_names_resolve():
    for name in (
        "_zeros",
        "_ones",
        "_full",
        "_arange",
        "_eye",
        "_npi_zeros",
        "_npi_ones",
        "_npi_full",
        "_npi_arange",
        "_npi_eye",
        "Cast",
        "cast",
        "_npi_astype",
        "_linspace",
    ):
        assert get_op(name) is not None


def test_cast_and_astype():
    x = mx.nd.array([1.7, -2.2])
    assert mx.nd.cast(x, dtype="int32").asnumpy().tolist() == [1, -2]
    assert x.astype("float16").dtype == numpy.float16
    y = mx.np.array([1.5, 2.5])
    assert y.astype("int64").dtype == numpy.int64 and y.astype("float32", copy=False) is y
    assert mx.np.astype(y, "float64").dtype == numpy.float64
    op = get_op("Cast")
    assert op.infer_types(op.parse_attrs({"dtype": "int8"}), ["float32"])[1] == ["int8"]
    with pytest.raises(MXNetTypeError, match="Cast: attribute 'dtype'"):
        mx.nd.cast(x, dtype="not_a_dtype")


def test_cast_gradient_is_cast_back():
    x = mx.nd.array([1.0, 2.0], dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.cast(x, dtype="float32") * 3
    y.backward()
    assert x.grad.dtype == numpy.float64 and x.grad.asnumpy().tolist() == [3.0, 3.0]
    check_gradient("Cast", [numpy.array([0.5, 1.5])], {"dtype": "float64"})


def test_creation_errors():
    with pytest.raises(MXNetValueError, match="_eye: required attribute 'N'"):
        mx.np.eye()
    with pytest.raises(MXNetValueError, match="_npi_zeros: takes at most"):
        mx.nd.zeros((2,), mx.cpu(), "float32", 7)
    with pytest.raises(MXNetTypeError, match="_npi_zeros: attribute 'shape'"):
        mx.np.zeros("x")


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "full"])
def test_creation_order_other_than_c_is_not_implemented(name):
    # MXNet 1.9.1: mx.np creators take order='C' only and raise NotImplementedError otherwise
    args = ((2,), 1) if name == "full" else ((2,),)
    assert getattr(mx.np, name)(*args, order="C").shape == (2,)
    with pytest.raises(NotImplementedError, match="only supports order equal to `C`"):
        getattr(mx.np, name)(*args, order="F")


def test_cast_to_bfloat16_is_not_built_and_says_so():
    # MXNet's NumPy spelling of bfloat16 (a one-field record dtype) and the string name alike
    spelled = numpy.dtype([("bfloat16", numpy.uint16)])
    for cast in (lambda x: x.astype(spelled), lambda x: mx.nd.Cast(x, dtype="bfloat16")):
        with pytest.raises(NotImplementedError, match="bfloat16 arrays are not built"):
            cast(mx.nd.ones((2,))).wait_to_read()
