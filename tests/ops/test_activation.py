"""Activations: values against NumPy formulas, gradients by central differences, errors."""
import math

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetError, MXNetNotImplementedError, MXNetTypeError, MXNetValueError
from mxlab.imperative import STATE

from mxlab.test_utils import check_numeric_gradient

from mxlab.ops.registry import get_op

from helpers import (analytic_gradient, assert_same_results, check_gradient, check_second_order,
                     numeric_gradient, requires_oracle, run_both)

SELU_L, SELU_A = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717


def _softplus(x):
    return numpy.log1p(numpy.exp(x))


def _sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def _gelu(x):
    return 0.5 * x * (1 + numpy.vectorize(math.erf)(x / math.sqrt(2)))


# act_type / op name, NumPy reference
ACTS = {
    "relu": lambda x: numpy.maximum(x, 0), "sigmoid": _sigmoid, "tanh": numpy.tanh,
    "softrelu": _softplus,
    "softsign": lambda x: x / (1 + numpy.abs(x)), "log_sigmoid": lambda x: numpy.log(_sigmoid(x)),
    "mish": lambda x: x * numpy.tanh(_softplus(x)),
}
STANDALONE = ["relu", "sigmoid", "softsign", "log_sigmoid", "mish"]
LEAKY = {
    "leaky": lambda x, s: numpy.where(x > 0, x, s * x),
    "elu": lambda x, s: numpy.where(x > 0, x, s * numpy.expm1(x)),
    "selu": lambda x, s: SELU_L * numpy.where(x > 0, x, SELU_A * numpy.expm1(x)),
    "gelu": lambda x, s: _gelu(x),
    "rrelu": lambda x, s: numpy.where(x > 0, x, (0.125 + 0.334) / 2 * x),
}
SHAPES = [(5,), (2, 3, 4)]


def _data(shape, dtype="float64"):
    x = numpy.random.uniform(-2, 2, size=shape)
    x[numpy.abs(x) < 0.05] = 0.3   # keep kinks away from finite-difference steps
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("act_type", list(ACTS))
def test_activation_values(act_type, shape, dtype):
    x = _data(shape, dtype)
    expected = ACTS[act_type](x.astype("float64"))
    results = [mx.nd.Activation(mx.nd.array(x, dtype=dtype), act_type=act_type),
               mx.npx.activation(mx.np.array(x, dtype=dtype), act_type=act_type)]
    if act_type in STANDALONE:
        results.append(getattr(mx.nd, act_type)(mx.nd.array(x, dtype=dtype)))
    if act_type in ("relu", "sigmoid"):
        results.append(getattr(mx.npx, act_type)(mx.np.array(x, dtype=dtype)))
    for got in results:
        assert got.shape == shape and numpy.dtype(got.dtype) == numpy.dtype(dtype)
        numpy.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("act_type", list(ACTS))
def test_activation_gradient(act_type):
    check_gradient("Activation", [_data((2, 3))], {"act_type": act_type})


@pytest.mark.parametrize("name", STANDALONE)
def test_standalone_activation_gradient(name):
    check_gradient(name, [_data((2, 3))])


def test_relu_keeps_integer_dtype():
    got = mx.nd.relu(mx.nd.array([-2, 3], dtype="int32"))
    assert got.dtype == numpy.int32
    numpy.testing.assert_array_equal(got.asnumpy(), [0, 3])


@pytest.mark.parametrize("slope", [0.25, 0.1])
@pytest.mark.parametrize("act_type", list(LEAKY))
def test_leaky_relu_values(act_type, slope):
    x = _data((2, 3, 4), "float32")
    expected = LEAKY[act_type](x.astype("float64"), slope)
    for got in (mx.nd.LeakyReLU(mx.nd.array(x), act_type=act_type, slope=slope),
                mx.npx.leaky_relu(mx.np.array(x), act_type=act_type, slope=slope)):
        if act_type == "rrelu":   # [output, mask], as in MXNet
            got, mask = got
            numpy.testing.assert_array_equal(mask.asnumpy(), numpy.zeros_like(x))
        numpy.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("act_type", ["leaky", "elu", "selu", "gelu", "rrelu"])
def test_leaky_relu_gradient(act_type):
    check_gradient("LeakyReLU", [_data((2, 3))], {"act_type": act_type, "slope": 0.3})


@pytest.mark.parametrize("shape,gamma_shape", [((2, 3, 4), (3,)), ((2, 3), (1,)), ((5,), (1,))],
                         ids=str)
def test_prelu_values_and_gradients(shape, gamma_shape):
    x, gamma = _data(shape), numpy.random.uniform(0.1, 0.5, size=gamma_shape)
    view = gamma.reshape((1, -1) + (1,) * (len(shape) - 2)) if gamma.size > 1 else gamma
    got = mx.nd.LeakyReLU(mx.nd.array(x, dtype="float64"), mx.nd.array(gamma, dtype="float64"),
                          act_type="prelu")
    numpy.testing.assert_allclose(got.asnumpy(), numpy.where(x > 0, x, view * x), rtol=1e-12)
    check_gradient("LeakyReLU", [x, gamma], {"act_type": "prelu"})


def test_rrelu_in_training_mode_is_not_implemented():
    previous, STATE.training = STATE.training, True
    try:
        with pytest.raises(MXNetNotImplementedError, match="rrelu"):
            mx.nd.LeakyReLU(mx.nd.ones(3), act_type="rrelu")[0].wait_to_read()
    finally:
        STATE.training = previous


def _softmax(x, axis, temperature=1.0):
    z = x / temperature
    e = numpy.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("temperature", [None, 2.0])
@pytest.mark.parametrize("axis", [-1, 0, 1])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_values(log, axis, temperature):
    x = _data((2, 3, 4), "float32") * 10
    expected = _softmax(x.astype("float64"), axis, temperature or 1.0)
    expected = numpy.log(expected) if log else expected
    name = "log_softmax" if log else "softmax"
    for got in (getattr(mx.nd, name)(mx.nd.array(x), axis=axis, temperature=temperature),
                getattr(mx.npx, name)(mx.np.array(x), axis, temperature=temperature)):
        numpy.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-5, atol=1e-6)


def _masked_softmax(x, length, axis):
    moved = numpy.moveaxis(x, axis, -1)
    keep = numpy.arange(moved.shape[-1]) < length[..., None]
    e = numpy.where(keep, numpy.exp(moved - moved.max(axis=-1, keepdims=True)), 0)
    total = e.sum(axis=-1, keepdims=True)
    return numpy.moveaxis(e / numpy.where(total == 0, 1, total), -1, axis)


@pytest.mark.parametrize("axis", [-1, 1, 0])
def test_softmax_with_length(axis):
    x = _data((2, 3, 4))
    length_shape = tuple(d for i, d in enumerate(x.shape) if i != axis % 3)
    length = numpy.random.randint(0, x.shape[axis] + 1, size=length_shape).astype("int32")
    length.reshape(-1)[0] = 0   # an empty slice is all zeros
    got = mx.npx.softmax(mx.np.array(x, dtype="float64"), mx.np.array(length, dtype="int32"),
                         axis=axis, use_length=True)
    numpy.testing.assert_allclose(got.asnumpy(), _masked_softmax(x, length, axis), atol=1e-12)
    grads, _, head = analytic_gradient("softmax", [x, length], {"axis": axis, "use_length": True})
    expected = numeric_gradient(get_op("softmax"), [x, length], get_op("softmax").parse_attrs(
        {"axis": axis, "use_length": True}), head, 0)
    assert grads[1] is None
    numpy.testing.assert_allclose(grads[0].asnumpy(), expected, rtol=1e-5, atol=1e-8)


def test_softmax_is_stable_for_large_inputs():
    got = mx.nd.softmax(mx.nd.array([1000.0, 1000.0, -1000.0]))
    numpy.testing.assert_allclose(got.asnumpy(), [0.5, 0.5, 0.0])


def test_softmax_dtype_attribute():
    got = mx.nd.softmax(mx.nd.array([1.0, 2.0]), dtype="float64")
    assert got.dtype == numpy.float64


@pytest.mark.parametrize("temperature", [None, 0.5])
@pytest.mark.parametrize("axis", [-1, 1])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_gradient(name, axis, temperature):
    check_gradient(name, [_data((2, 3, 4))], {"axis": axis, "temperature": temperature})


@pytest.mark.parametrize("mode,axes", [("instance", -1), ("channel", 1)])
def test_softmax_activation(mode, axes):
    x = _data((2, 3, 4))
    got = mx.nd.SoftmaxActivation(mx.nd.array(x, dtype="float64"), mode=mode)
    numpy.testing.assert_allclose(got.asnumpy(), _softmax(x, axes), rtol=1e-12)
    check_gradient("SoftmaxActivation", [x], {"mode": mode})


def test_softmax_gradient_with_autograd():
    x = mx.np.array(_data((2, 3)), dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = (mx.npx.softmax(x) * mx.np.array([[1.0, 2.0, 3.0]], dtype="float64")).sum()
    y.backward()
    s = _softmax(x.asnumpy(), -1)
    w = numpy.array([[1.0, 2.0, 3.0]])
    expected = s * (w - (s * w).sum(axis=-1, keepdims=True))
    numpy.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-10)


@pytest.mark.parametrize("call,error,message", [
    (lambda: mx.nd.Activation(mx.nd.ones(2), act_type="swish"), MXNetValueError,
     "Activation: attribute"),
    (lambda: mx.nd.Activation(mx.nd.ones(2)), MXNetValueError, "Activation: required attribute"),
    (lambda: mx.nd.LeakyReLU(mx.nd.ones(2), act_type="leaky", gamma2=1), MXNetValueError,
     "LeakyReLU: unknown"),
    (lambda: mx.nd.log_softmax(mx.nd.ones((1, 2)), mx.nd.ones(1, dtype="int32"), use_length=True),
     MXNetNotImplementedError, "log_softmax: use_length"),
    (lambda: mx.nd.softmax(mx.nd.ones((1, 2)), mx.nd.ones(1), use_length=True), MXNetTypeError,
     "softmax: 'length' must be an integer"),
    (lambda: mx.nd.softmax(mx.nd.ones((2, 3)), axis=4), MXNetError, "softmax"),
])
def test_errors_name_the_op(call, error, message):
    with pytest.raises(error, match=message):
        call().wait_to_read()


# -- oracle: the same code under real MXNet 1.9.1 --------------------------------------------------
# NOTE: not compared: MXNet's selu backward (lambda * (y + alpha) instead of the derivative) and
# SoftmaxActivation's backward (inconsistent with its forward).
ORACLE_CODE = """
x = mx.nd.array(inputs["x"])
gamma = mx.nd.array(inputs["gamma"])
for act in ("relu", "sigmoid", "tanh", "softrelu", "softsign"):
    outputs["act_" + act] = mx.nd.Activation(x, act_type=act).asnumpy()
for act in ("leaky", "elu", "selu", "gelu"):
    outputs["leaky_" + act] = mx.nd.LeakyReLU(x, act_type=act, slope=0.3).asnumpy()
rrelu, mask = mx.nd.LeakyReLU(x, act_type="rrelu")
outputs["rrelu"] = rrelu.asnumpy()  # NOTE: MXNet leaves the mask unwritten at inference (garbage)
outputs["prelu"] = mx.nd.LeakyReLU(x.reshape((2, 3, 4)), gamma, act_type="prelu").asnumpy()
outputs["softmax_t"] = mx.nd.softmax(x, axis=0, temperature=2.0).asnumpy()
outputs["log_softmax"] = mx.nd.log_softmax(x).asnumpy()
length = mx.nd.array([2, 6, 0, 3], dtype="int32")
outputs["softmax_length"] = mx.nd.softmax(x, length, use_length=True, temperature=0.5).asnumpy()
outputs["instance"] = mx.nd.SoftmaxActivation(x.reshape((2, 3, 4))).asnumpy()
outputs["channel"] = mx.nd.SoftmaxActivation(x.reshape((2, 3, 4)), mode="channel").asnumpy()
head = mx.nd.array(np.cos(np.arange(24)).reshape((4, 6)) + 1.5)
for name, fn in (("log_softmax", lambda v: mx.nd.log_softmax(v, temperature=1.5)),
                 ("softmax", lambda v: mx.nd.softmax(v, axis=0)),
                 ("softmax_length", lambda v: mx.nd.softmax(v, length, use_length=True)),
                 ("gelu", lambda v: mx.nd.LeakyReLU(v, act_type="gelu")),
                 ("elu", lambda v: mx.nd.LeakyReLU(v, act_type="elu", slope=0.3)),
                 ("softrelu", lambda v: mx.nd.Activation(v, act_type="softrelu"))):
    v = x.copy()
    v.attach_grad()
    with mx.autograd.record():
        y = fn(v)
    y.backward(head)
    outputs["grad_" + name] = v.grad.asnumpy()
v, g = x.reshape((2, 3, 4)).copy(), gamma.copy()
v.attach_grad()
g.attach_grad()
with mx.autograd.record():
    y = mx.nd.LeakyReLU(v, g, act_type="prelu")
y.backward()
outputs["grad_prelu_x"] = v.grad.asnumpy()
outputs["grad_prelu_gamma"] = g.grad.asnumpy()
"""


@pytest.mark.oracle
@requires_oracle
def test_legacy_semantics_match_mxnet():
    inputs = {"x": numpy.random.uniform(-2, 2, size=(4, 6)).astype("float32"),
              "gamma": numpy.array([0.1, 0.2, 0.3], dtype="float32")}
    assert_same_results(*run_both(ORACLE_CODE, inputs), rtol=1e-5, atol=1e-5)


# -- through mx.autograd: composite expressions and second order ----------------------------------
def test_composite_expression_gradient_with_autograd():
    def fn(a):
        soft = mx.npx.softmax(a, temperature=0.7).max(axis=1)
        spread = mx.np.var(mx.npx.leaky_relu(a, act_type="gelu"), axis=1)
        return mx.np.std(mx.np.cumsum(a, axis=0) ** 2, axis=1) + soft * spread
    check_numeric_gradient(fn, [numpy.random.rand(3, 4)], dtype=numpy.float64)


SECOND_ORDER = [
    ("tanh", mx.np.tanh), ("sigmoid", mx.npx.sigmoid), ("log", lambda a: mx.np.log(a + 3)),
    ("softmax", lambda a: mx.npx.softmax(a, temperature=2.0) * mx.np.array([1.0, 2.0, 3.0])),
    ("log_softmax", lambda a: mx.npx.log_softmax(a) ** 2),
    ("gelu", lambda a: mx.npx.leaky_relu(a, act_type="gelu")),
    ("elu", lambda a: mx.npx.leaky_relu(a, act_type="elu")),
    ("softrelu", lambda a: mx.npx.activation(a, act_type="softrelu")),
    ("mean", lambda a: mx.np.mean(a * a, axis=1)), ("std", lambda a: mx.np.std(a, axis=0)),
    ("power", lambda a: (a + 3) ** a), ("norm", lambda a: mx.nd.norm(a.as_nd_ndarray(), axis=1)),
]


@pytest.mark.parametrize("name,fn", SECOND_ORDER, ids=[row[0] for row in SECOND_ORDER])
def test_second_order_gradient(name, fn):
    check_second_order(fn, numpy.random.uniform(-1, 1, size=(2, 3)))


@pytest.mark.parametrize("shape", [(3, 0, 4), (0, 0)])
def test_softmax_of_an_empty_array(shape):
    x = mx.np.zeros(shape)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.npx.softmax(x, axis=-1)
        z = mx.npx.masked_softmax(x, mx.np.ones(shape, dtype="bool"), axis=1)
        total = y.sum() + z.sum()
    total.backward()
    assert y.shape == z.shape == x.grad.shape == shape


@pytest.mark.parametrize("relu, nan_grad", [
    (lambda x: mx.nd.relu(x), True),
    (lambda x: mx.npx.relu(x.as_np_ndarray()), True),
    (lambda x: mx.nd.Activation(x, act_type="relu"), False),
])
def test_relu_gradient_at_nan_is_mxnets(relu, nan_grad):
    # MXNet 1.9.1: relu's gradient is NaN where the input is NaN (relu_grad), Activation's is 0.
    x = mx.nd.array([numpy.nan, -1, 2, 0, numpy.inf])
    x.attach_grad()
    with mx.autograd.record():
        y = relu(x)
    y.backward()
    expected = [numpy.nan if nan_grad else 0.0, 0, 1, 0, 1]
    numpy.testing.assert_equal(x.grad.asnumpy(), numpy.array(expected, dtype="float32"))
