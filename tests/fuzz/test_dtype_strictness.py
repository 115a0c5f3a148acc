"""Where MXNet 1.9.1 refuses a dtype, mxlab raises an MXNetError naming it (issue 12)."""
import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetError


def _int_float(shape=(2, 2)):
    return mx.nd.ones(shape, dtype="int32"), mx.nd.ones(shape)


@pytest.mark.parametrize("call", [
    lambda a, b: mx.nd.dot(a, b),
    lambda a, b: mx.np.dot(a.as_np_ndarray(), b.as_np_ndarray()),
    lambda a, b: mx.np.matmul(a.as_np_ndarray(), b.as_np_ndarray()),
    lambda a, b: mx.nd.FullyConnected(a, b, no_bias=True, num_hidden=2),
    lambda a, b: mx.nd.elemwise_add(a, b),
    lambda a, b: mx.nd.elemwise_mul(a, b),
], ids=["nd.dot", "np.dot", "np.matmul", "FullyConnected", "elemwise_add", "elemwise_mul"])
def test_mixed_int_float_operands_are_refused(call):
    a, b = _int_float()
    with pytest.raises(MXNetError, match="'rhs'|'b'|'weight'") as info:
        call(a, b).wait_to_read()
    assert isinstance(info.value, TypeError)
    assert "int32" in str(info.value) and "float32" in str(info.value)


def test_one_dtype_rule_in_symbolic_inference():
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    _, out_types, _ = fc.infer_type(data="float64")
    assert out_types == [numpy.float64]
    with pytest.raises(MXNetError, match="fc.*float32.*float64|fc.*float64.*float32"):
        fc.infer_type(data="float64", fc_weight="float32")


def test_simple_bind_infers_undeclared_argument_dtypes():
    """MXNet infers the weight's dtype from type_dict's data (only all-float32 without one)."""
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    ex = fc.simple_bind(mx.cpu(), type_dict={"data": "float64"}, data=(2, 4))
    assert {a.dtype for a in ex.arg_arrays} == {numpy.float64}


def test_head_gradient_is_cast_to_the_head_dtype():
    """A float64 head gradient for a float32 output (as MXNet copies it into the grad buffer)."""
    x, w = mx.nd.ones((2, 3)), mx.nd.ones((4, 3))
    w.attach_grad()
    with mx.autograd.record():
        y = mx.nd.FullyConnected(x, w, no_bias=True, num_hidden=4)
    y.backward(mx.nd.array(numpy.ones((2, 4))))
    assert w.grad.dtype == numpy.float32
    numpy.testing.assert_array_equal(w.grad.asnumpy(), numpy.full((4, 3), 2.0))


def test_same_dtype_elemwise_and_numpy_promotion_still_work():
    a, b = _int_float()
    assert mx.nd.elemwise_add(b, b).asnumpy().sum() == 8
    assert (a.as_np_ndarray() + b.as_np_ndarray()).dtype == numpy.float32  # mx.np promotes


@pytest.mark.parametrize("make", [
    lambda: mx.nd.array([1], dtype="complex64"),
    lambda: mx.np.array(numpy.zeros(2, dtype=complex)),
    lambda: mx.np.array(["a"]),
    lambda: mx.nd.array([b"x"]),
], ids=["complex64", "complex-source", "str", "bytes"])
def test_unsupported_array_dtypes_are_refused(make):
    with pytest.raises(MXNetError, match="not supported") as info:
        make()
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("params", [{}, []])
def test_trainer_needs_parameters(params):
    with pytest.raises(MXNetError, match="params is empty") as info:
        mx.gluon.Trainer(params, "sgd")
    assert isinstance(info.value, ValueError)
