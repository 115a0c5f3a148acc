"""Elementwise ops: values against NumPy, dtypes per flavour, scalars, in-place operators,
gradients, dtype/shape inference, errors and (opt-in) MXNet 1.9.1 as an oracle."""
import doctest
import math

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetError, MXNetTypeError, MXNetValueError
from mxlab.ops import activation, elemwise, reduce, unary
from mxlab.ops.registry import get_op

from helpers import (analytic_gradient, assert_same_results, check_gradient, requires_oracle,
                     run_both)

SHAPES = [(), (3,), (2, 3, 4)]
FLOATS = ["float32", "float64"]


def _erf(x):
    return numpy.vectorize(math.erf)(x)


def _round_away(x):
    return numpy.sign(x) * numpy.floor(numpy.abs(x) + 0.5)


def _rint_legacy(x):
    low = numpy.floor(x)
    return numpy.where(x - low <= 0.5, low, low + 1)


# op name, NumPy reference, input domain (low, high)
UNARY = [
    ("abs", numpy.abs, (-2, 2)), ("sign", numpy.sign, (-2, 2)),
    ("negative", numpy.negative, (-2, 2)), ("square", numpy.square, (-2, 2)),
    ("reciprocal", numpy.reciprocal, (0.5, 2)), ("exp", numpy.exp, (-2, 2)),
    ("expm1", numpy.expm1, (-2, 2)), ("log", numpy.log, (0.5, 3)), ("log2", numpy.log2, (0.5, 3)),
    ("log10", numpy.log10, (0.5, 3)), ("log1p", numpy.log1p, (-0.5, 2)),
    ("sqrt", numpy.sqrt, (0.5, 3)), ("rsqrt", lambda x: 1 / numpy.sqrt(x), (0.5, 3)),
    ("cbrt", numpy.cbrt, (0.5, 3)), ("rcbrt", lambda x: 1 / numpy.cbrt(x), (0.5, 3)),
    ("sin", numpy.sin, (-2, 2)), ("cos", numpy.cos, (-2, 2)), ("tan", numpy.tan, (-1, 1)),
    ("arcsin", numpy.arcsin, (-0.9, 0.9)), ("arccos", numpy.arccos, (-0.9, 0.9)),
    ("arctan", numpy.arctan, (-2, 2)), ("sinh", numpy.sinh, (-2, 2)), ("cosh", numpy.cosh, (-2, 2)),
    ("tanh", numpy.tanh, (-2, 2)), ("arcsinh", numpy.arcsinh, (-2, 2)),
    ("arccosh", numpy.arccosh, (1.2, 3)),
    ("arctanh", numpy.arctanh, (-0.9, 0.9)), ("degrees", numpy.degrees, (-2, 2)),
    ("radians", numpy.radians, (-90, 90)), ("erf", _erf, (-2, 2)),
    ("floor", numpy.floor, (-3, 3)), ("ceil", numpy.ceil, (-3, 3)), ("trunc", numpy.trunc, (-3, 3)),
    ("fix", numpy.fix, (-3, 3)), ("round", _round_away, (-3, 3)), ("rint", _rint_legacy, (-3, 3)),
    ("_npi_rint", numpy.rint, (-3, 3)), ("_npi_around", numpy.round, (-3, 3)),
]
UNARY_IDS = [row[0] for row in UNARY]


def _uniform(shape, domain, dtype="float64"):
    return numpy.random.uniform(*domain, size=shape).astype(dtype)


def _run(name, x, flavour):
    """Apply op ``name`` through the flavour's namespace (its public name there)."""
    op = get_op(name)
    if flavour == "np":
        return getattr(mx.np, op.np_name)(mx.np.array(x, dtype=x.dtype))
    return getattr(mx.nd, name)(mx.nd.array(x, dtype=x.dtype))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name,ref,domain", UNARY, ids=UNARY_IDS)
def test_unary_values(name, ref, domain, dtype, shape):
    x = _uniform(shape, domain, dtype)
    flavours = ["nd"] + (["np"] if get_op(name).np_name else [])
    for flavour in flavours:
        got = _run(name, x, flavour)
        expected = ref(x.astype("float64"))
        assert got.shape == x.shape and numpy.dtype(got.dtype) == numpy.dtype(dtype)
        tol = 1e-5 if dtype == "float32" else 1e-12
        numpy.testing.assert_allclose(got.asnumpy(), expected, rtol=tol, atol=tol)


HALVES = numpy.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.3, -0.7])


@pytest.mark.parametrize("call,expected", [
    (lambda x: mx.nd.round(mx.nd.array(x)), [-3, -2, -1, 1, 2, 3, 0, -1]),
    (lambda x: mx.np.round(mx.np.array(x)), [-2, -2, 0, 0, 2, 2, 0, -1]),
    (lambda x: mx.nd.rint(mx.nd.array(x)), [-3, -2, -1, 0, 1, 2, 0, -1]),
    (lambda x: mx.np.rint(mx.np.array(x)), [-2, -2, 0, 0, 2, 2, 0, -1]),
], ids=["nd.round", "np.round", "nd.rint", "np.rint"])
def test_rounding_halves_follow_each_flavour(call, expected):
    numpy.testing.assert_array_equal(call(HALVES).asnumpy(), expected)


def test_np_round_decimals():
    x = numpy.array([1.234, -5.678])
    got = mx.np.round(mx.np.array(x, dtype="float64"), 2)
    numpy.testing.assert_allclose(got.asnumpy(), [1.23, -5.68])


@pytest.mark.parametrize("name,expected_dtype", [
    ("exp", "float32"), ("sqrt", "float32"), ("sin", "float32"), ("reciprocal", "float32"),
    ("abs", "int32"), ("square", "int32"), ("negative", "int32"), ("sign", "int32"),
    ("floor", "int32"), ("round", "int32"),
])
def test_unary_integer_inputs(name, expected_dtype):
    x = numpy.array([1, 4, 9], dtype="int32")
    got = _run(name, x, "nd")
    assert numpy.dtype(got.dtype) == numpy.dtype(expected_dtype)
    ref = dict(UNARY_REFS)[name]
    numpy.testing.assert_allclose(got.asnumpy(), ref(x.astype("float64")), rtol=1e-6)


UNARY_REFS = [(row[0], row[1]) for row in UNARY]


@pytest.mark.parametrize("name,ref,domain", UNARY, ids=UNARY_IDS)
def test_unary_gradient(name, ref, domain):
    check_gradient(name, [_uniform((2, 3), domain)])


def test_erf_fallback_without_scipy():
    x = numpy.linspace(-3, 3, 13)
    numpy.testing.assert_allclose(unary.erf_fallback(x), _erf(x), rtol=1e-15)
    assert unary.erf_fallback(x.astype("float32")).dtype == numpy.float32
    zero_dim = unary.erf_fallback(numpy.array(0.5, dtype="float32"))
    assert zero_dim.shape == () and zero_dim.dtype == numpy.float32


def test_unary_zero_gradients_are_arrays_of_zeros():
    grads, _, _ = analytic_gradient("floor", [_uniform((2, 3), (-2, 2))])
    numpy.testing.assert_array_equal(grads[0].asnumpy(), numpy.zeros((2, 3)))


def test_logical_not_and_invert_per_flavour():
    x = numpy.array([0.0, 1.0, 2.0], dtype="float32")
    nd_result = mx.nd.logical_not(mx.nd.array(x))
    np_result = mx.np.logical_not(mx.np.array(x))
    assert nd_result.dtype == numpy.float32 and np_result.dtype == numpy.bool_
    numpy.testing.assert_array_equal(nd_result.asnumpy(), [1, 0, 0])
    numpy.testing.assert_array_equal(np_result.asnumpy(), [True, False, False])
    flags = mx.np.array([True, False])
    numpy.testing.assert_array_equal((~flags).asnumpy(), [False, True])
    numpy.testing.assert_array_equal((~mx.np.array([1, 2], dtype="int32")).asnumpy(), [-2, -3])
    with pytest.raises(MXNetTypeError, match="_npi_bitwise_not"):
        (~mx.np.array([1.5])).wait_to_read()


# -- binary ops ------------------------------------------------------------------------------------
POSITIVE, ANY = (0.5, 2.0), (-2.0, 2.0)
# public name, NumPy reference, lhs domain, rhs domain, tensor op (gradient checked)
BINARY = [
    ("add", numpy.add, ANY, ANY, "broadcast_add"),
    ("subtract", numpy.subtract, ANY, ANY, "broadcast_sub"),
    ("multiply", numpy.multiply, ANY, ANY, "broadcast_mul"),
    ("true_divide", numpy.true_divide, ANY, POSITIVE, "broadcast_div"),
    ("divide", numpy.divide, ANY, POSITIVE, "broadcast_div"),
    ("power", numpy.power, POSITIVE, ANY, "broadcast_power"),
    ("mod", numpy.mod, (-3.0, 3.0), POSITIVE, "broadcast_mod"),
    ("floor_divide", numpy.floor_divide, (-3.0, 3.0), POSITIVE, "_npi_floor_divide"),
    ("maximum", numpy.maximum, ANY, ANY, "broadcast_maximum"),
    ("minimum", numpy.minimum, ANY, ANY, "broadcast_minimum"),
    ("hypot", numpy.hypot, ANY, ANY, "broadcast_hypot"),
    ("arctan2", numpy.arctan2, ANY, ANY, "_npi_arctan2"),
]
BINARY_IDS = [row[0] for row in BINARY]
BROADCASTS = [((2, 3), (2, 3)), ((2, 1, 3), (4, 3)), ((3,), ()), ((), (2, 2))]
NAMESPACES = {"np": (mx.np, mx.np.array), "nd": (mx.nd, mx.nd.array)}


def _pair(lhs_shape, rhs_shape, lhs_domain, rhs_domain, dtype="float64"):
    return _uniform(lhs_shape, lhs_domain, dtype), _uniform(rhs_shape, rhs_domain, dtype)


@pytest.mark.parametrize("flavour", ["np", "nd"])
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
@pytest.mark.parametrize("name,ref,lhs,rhs,op", BINARY, ids=BINARY_IDS)
def test_binary_broadcast_values(name, ref, lhs, rhs, op, shapes, flavour):
    ns, array = NAMESPACES[flavour]
    a, b = _pair(*shapes, lhs, rhs, "float32")
    got = getattr(ns, name)(array(a), array(b))
    expected = ref(a, b)
    assert got.shape == expected.shape and got.dtype == numpy.float32
    numpy.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("flavour", ["np", "nd"])
@pytest.mark.parametrize("scalar", [2, 1.5])
@pytest.mark.parametrize("name,ref,lhs,rhs,op", BINARY, ids=BINARY_IDS)
def test_binary_scalar_on_either_side(name, ref, lhs, rhs, op, scalar, flavour):
    ns, array = NAMESPACES[flavour]
    a = _uniform((2, 3), POSITIVE, "float32")
    fn = getattr(ns, name)
    s = numpy.float32(scalar)
    numpy.testing.assert_allclose(fn(array(a), scalar).asnumpy(), ref(a, s), rtol=1e-5)
    numpy.testing.assert_allclose(fn(scalar, array(a)).asnumpy(), ref(s, a), rtol=1e-5)
    assert fn(array(a), scalar).dtype == numpy.float32


OPERATORS = [
    ("+", lambda a, b: a + b), ("-", lambda a, b: a - b), ("*", lambda a, b: a * b),
    ("/", lambda a, b: a / b), ("//", lambda a, b: a // b), ("%", lambda a, b: a % b),
    ("**", lambda a, b: a ** b),
]


@pytest.mark.parametrize("flavour", ["np", "nd"])
@pytest.mark.parametrize("symbol,apply", OPERATORS, ids=[o[0] for o in OPERATORS])
def test_python_operators(symbol, apply, flavour):
    _, array = NAMESPACES[flavour]
    a, b = _pair((2, 3), (3,), POSITIVE, POSITIVE, "float32")
    two, three = numpy.float32(2), numpy.float32(3)
    for lhs, rhs, ref in ((array(a), array(b), apply(a, b)), (array(a), 2, apply(a, two)),
                          (3, array(b), apply(three, b))):
        got = apply(lhs, rhs)
        assert type(got) is type(array(a))
        numpy.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5)


INPLACE = [("+=", "__iadd__", numpy.add), ("-=", "__isub__", numpy.subtract),
           ("*=", "__imul__", numpy.multiply), ("/=", "__itruediv__", numpy.true_divide)]


@pytest.mark.parametrize("flavour", ["np", "nd"])
@pytest.mark.parametrize("other", ["array", "broadcast", "int", "float"])
@pytest.mark.parametrize("symbol,method,ref", INPLACE, ids=[row[0] for row in INPLACE])
def test_inplace_operators_write_into_self(symbol, method, ref, other, flavour):
    _, array = NAMESPACES[flavour]
    a = _uniform((2, 3), POSITIVE, "float32")
    rhs = {"array": _uniform((2, 3), POSITIVE, "float32"),
           "broadcast": _uniform((3,), POSITIVE, "float32"), "int": 2, "float": 1.5}[other]
    x = array(a)
    x.wait_to_read()
    version = x.version
    result = getattr(x, method)(array(rhs) if isinstance(rhs, numpy.ndarray) else rhs)
    x.wait_to_read()   # NOTE: a var's version counts completed writes (threaded engines)
    assert result is x and x.version > version
    expected = ref(a, numpy.asarray(rhs, dtype="float32"))
    numpy.testing.assert_allclose(x.asnumpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("flavour", ["np", "nd"])
@pytest.mark.parametrize("other", ["array", "scalar"])
def test_inplace_operators_reuse_the_buffer(flavour, other):
    _, array = NAMESPACES[flavour]
    x = array([1.0, 2.0])
    data = x._data
    x += array([3.0]) if other == "array" else 3
    x *= 2
    assert x._data is data
    numpy.testing.assert_array_equal(x.asnumpy(), [8.0, 10.0])


def test_inplace_float_into_int_fails_like_numpy():
    x = mx.np.array([1, 2], dtype="int32")
    with pytest.raises(MXNetTypeError, match="_plus_scalar"):
        x += 1.5
        x.wait_to_read()


def test_inplace_broadcast_to_a_bigger_shape_fails_naming_the_op():
    x = mx.np.ones((3,))
    with pytest.raises(MXNetValueError, match="broadcast_add"):
        x += mx.np.ones((2, 3))
        x.wait_to_read()


# -- comparisons and logical ops -------------------------------------------------------------------
COMPARISONS = [
    ("equal", numpy.equal, "=="), ("not_equal", numpy.not_equal, "!="),
    ("greater", numpy.greater, ">"), ("greater_equal", numpy.greater_equal, ">="),
    ("less", numpy.less, "<"),
    ("less_equal", numpy.less_equal, "<="), ("logical_and", numpy.logical_and, None),
    ("logical_or", numpy.logical_or, None), ("logical_xor", numpy.logical_xor, None),
]
CMP_IDS = [row[0] for row in COMPARISONS]
PY_COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, ">": lambda a, b: a > b,
              ">=": lambda a, b: a >= b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b}


def _small_ints(shape, dtype="float32"):
    return numpy.random.randint(0, 3, size=shape).astype(dtype)


@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
@pytest.mark.parametrize("name,ref,symbol", COMPARISONS, ids=CMP_IDS)
def test_comparison_dtype_per_flavour(name, ref, symbol, shapes):
    a, b = _small_ints(shapes[0]), _small_ints(shapes[1])
    expected = ref(a, b)
    np_result = getattr(mx.np, name)(mx.np.array(a), mx.np.array(b))
    nd_result = getattr(mx.nd, name)(mx.nd.array(a), mx.nd.array(b))
    assert np_result.dtype == numpy.bool_ and nd_result.dtype == numpy.float32
    numpy.testing.assert_array_equal(np_result.asnumpy(), expected)
    numpy.testing.assert_array_equal(nd_result.asnumpy(), expected.astype("float32"))


@pytest.mark.parametrize("flavour", ["np", "nd"])
@pytest.mark.parametrize("name,ref,symbol", COMPARISONS, ids=CMP_IDS)
def test_comparison_with_scalars_on_either_side(name, ref, symbol, flavour):
    ns, array = NAMESPACES[flavour]
    a = _small_ints((2, 3))
    fn = getattr(ns, name)
    for got, expected in ((fn(array(a), 1), ref(a, 1)), (fn(1, array(a)), ref(1, a))):
        assert (got.dtype == numpy.bool_) == (flavour == "np")
        numpy.testing.assert_array_equal(got.asnumpy(), expected)
    if symbol is not None:
        compare = PY_COMPARE[symbol]
        numpy.testing.assert_array_equal(compare(array(a), 1).asnumpy(), compare(a, 1))
        numpy.testing.assert_array_equal(compare(1, array(a)).asnumpy(), compare(1, a))


def test_nd_legacy_comparison_names():
    a, b = mx.nd.array([1, 2, 3]), mx.nd.array([2, 2, 2])
    numpy.testing.assert_array_equal(mx.nd.lesser(a, b).asnumpy(), [1, 0, 0])
    numpy.testing.assert_array_equal(mx.nd.broadcast_lesser_equal(a, b).asnumpy(), [1, 1, 0])
    numpy.testing.assert_array_equal(mx.nd._lesser_scalar(a, scalar=2).asnumpy(), [1, 0, 0])
    numpy.testing.assert_array_equal(mx.nd.modulo(a, 2).asnumpy(), [1, 0, 1])


# -- dtype promotion -------------------------------------------------------------------------------
def _ints(values, dtype="int32"):
    return mx.np.array(values, dtype=dtype)


@pytest.mark.parametrize("make,dtype,values", [
    (lambda: _ints([1, 2]) + 1, "int32", [2, 3]),
    (lambda: _ints([1, 2]) + 1.5, "float32", [2.5, 3.5]),
    (lambda: _ints([1, 2]) / 2, "float32", [0.5, 1.0]),
    (lambda: _ints([1, 2]) / _ints([2, 4]), "float32", [0.5, 0.5]),
    (lambda: _ints([1, 2]) + mx.np.array([0.5, 0.5]), "float32", [1.5, 2.5]),
    (lambda: _ints([1, 2]) * _ints([3, 3], "int64"), "int64", [3, 6]),
    (lambda: _ints([3, 4]) // 2, "int32", [1, 2]),
    (lambda: _ints([3, 4]) ** 2, "int32", [9, 16]),
    (lambda: _ints([1, 2], "float64") * _ints([1, 1], "float32"), "float64", [1, 2]),
], ids=["int+int", "int+float", "int/int-scalar", "int/int", "int+float32", "int32*int64",
        "int//int", "int**int", "f64*f32"])
def test_dtype_promotion(make, dtype, values):
    result = make()
    assert numpy.dtype(result.dtype) == numpy.dtype(dtype)
    numpy.testing.assert_allclose(result.asnumpy(), values)


def _legacy_ints(values, dtype="int32"):
    return mx.nd.array(values, dtype=dtype)


# Values from MXNet 1.9.1: integers divide as C does (toward zero, keeping the dtype), and a float
# scalar meets an integer array cast to the array's dtype (2.5 -> 2).
@pytest.mark.parametrize("make,dtype,values", [
    (lambda: _legacy_ints([-7, 7, 5]) / _legacy_ints([2, 2, 1]), "int32", [-3, 3, 5]),
    (lambda: mx.nd.elemwise_div(_legacy_ints([-7, 7]), _legacy_ints([2, 2])), "int32", [-3, 3]),
    (lambda: _legacy_ints([-7, 7, 5]) / 2, "int32", [-3, 3, 2]),
    (lambda: 7 / _legacy_ints([-7, 7, 5]), "int32", [-1, 1, 1]),
    (lambda: _legacy_ints([-7, 7, 5]) / 2.5, "int32", [-3, 3, 2]),
    (lambda: _legacy_ints([2, 3, -3]) - 2.7, "int32", [0, 1, -5]),
    (lambda: _legacy_ints([2, 3, -3]) ** 2.5, "int32", [4, 9, 9]),
    (lambda: _legacy_ints([2, 3, -3]) >= 2.5, "int32", [1, 1, 0]),
    (lambda: _legacy_ints([2, 3, 253], "uint8") / 2.5, "uint8", [1, 1, 126]),
    (lambda: _legacy_ints([-7], "int64") % _legacy_ints([2], "int64"), "int64", [1]),
    (lambda: mx.nd.array([1.0, 3.0]) / 2, "float32", [0.5, 1.5]),
], ids=["int/int", "elemwise_div", "int/2", "7/int", "int/2.5", "int-2.7", "int**2.5",
        "int>=2.5", "uint8/2.5", "int%int", "float/2"])
def test_legacy_integer_arithmetic_is_mxnet_1x(make, dtype, values):
    result = make()
    assert numpy.dtype(result.dtype) == numpy.dtype(dtype)
    numpy.testing.assert_array_equal(result.asnumpy(), values)


@pytest.mark.parametrize("hybridize", [False, True])
def test_legacy_integer_division_in_place_and_in_graphs(hybridize):
    x = _legacy_ints([-7, 7, 5])
    x /= 2                                       # the correction is taken before x is overwritten
    numpy.testing.assert_array_equal(x.asnumpy(), [-3, 3, 2])
    a, b = mx.sym.var("a"), mx.sym.var("b")
    op = mx.executor.CachedOp((a / b) * 3 + a / 2.5, {"static_alloc": hybridize})
    got = op(_legacy_ints([-7, 7, 5]), _legacy_ints([2, 2, 2]))
    numpy.testing.assert_array_equal(got.asnumpy(), [-9 - 3, 9 + 3, 6 + 2])


def test_np_symbols_say_whether_the_scalar_is_an_int():
    x = mx.sym.var("x").as_np_ndarray()
    out = (x + 2.5)._bind(mx.cpu(), {"x": mx.np.array([1, 2], dtype="int32")}).forward()[0]
    assert out.dtype == numpy.float32
    numpy.testing.assert_allclose(out.asnumpy(), [3.5, 4.5])


# -- gradients -------------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 1, 3), (4, 3)), ((3,), ())], ids=str)
@pytest.mark.parametrize("name,ref,lhs,rhs,op", BINARY, ids=BINARY_IDS)
def test_binary_gradient_reduces_broadcasts(name, ref, lhs, rhs, op, shapes):
    a, b = _pair(*shapes, lhs, rhs)
    check_gradient(op, [a, b])


# op, scalar, input domain
SCALAR_GRADS = [
    ("_plus_scalar", 1.5, ANY), ("_minus_scalar", 1.5, ANY), ("_rminus_scalar", 1.5, ANY),
    ("_mul_scalar", -2.5, ANY), ("_div_scalar", 2.5, ANY), ("_rdiv_scalar", 2.5, POSITIVE),
    ("_power_scalar", 2.5, POSITIVE), ("_power_scalar", 3, ANY), ("_rpower_scalar", 1.7, ANY),
    ("_mod_scalar", 1.3, (0.1, 1.2)), ("_rmod_scalar", 2.5, (0.9, 1.2)),
    ("_maximum_scalar", 0.1, ANY),
    ("_minimum_scalar", 0.1, ANY), ("_hypot_scalar", 1.5, ANY), ("_npi_arctan2_scalar", 1.5, ANY),
    ("_npi_rarctan2_scalar", 1.5, ANY), ("_npi_floor_divide_scalar", 0.7, ANY),
    ("_npi_rfloor_divide_scalar", 2.0, POSITIVE),
]


@pytest.mark.parametrize("name,scalar,domain", SCALAR_GRADS,
                         ids=[f"{r[0]}-{r[1]}" for r in SCALAR_GRADS])
def test_scalar_op_gradient(name, scalar, domain):
    check_gradient(name, [_uniform((2, 3), domain)], {"scalar": scalar})


LEGACY_STEMS = [n.replace("less", "lesser") for n in CMP_IDS]
NO_GRAD_OPS = [f"broadcast_{n}" for n in LEGACY_STEMS] + [f"_npi_{n}" for n in CMP_IDS] + \
    [f"_{n}_scalar" for n in LEGACY_STEMS] + [f"_npi_{n}_scalar" for n in CMP_IDS] + \
    ["logical_not", "_npi_logical_not"]


@pytest.mark.parametrize("name", NO_GRAD_OPS)
def test_comparisons_have_no_gradient(name):
    arity = get_op(name).get_num_inputs({})
    attrs = {"scalar": 1.0} if name.endswith("_scalar") else None
    grads, _, _ = analytic_gradient(name, [_small_ints((2, 3), "float64")] * arity, attrs)
    assert grads == [None] * arity


def test_gradient_through_mixed_expression_with_autograd():
    x = mx.np.array([[0.5, 1.0, 2.0]], dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = (mx.np.maximum(x, 0.8) * (x > 0.7) + mx.np.sqrt(x) ** 2 - 1 / x).sum()
    y.backward()
    expected = numpy.array([[0.0 + 1 + 4, 1 + 1 + 1, 1 + 1 + 0.25]])
    numpy.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-12)


def test_second_order_gradient_with_autograd():
    x = mx.np.array([0.3, -0.4], dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = mx.np.tanh(x)
        dy = mx.autograd.grad(y, [x], create_graph=True)[0]
    dy.backward()
    t = numpy.tanh(x.asnumpy())
    numpy.testing.assert_allclose(x.grad.asnumpy(), -2 * t * (1 - t ** 2), rtol=1e-10)


# -- errors ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("call,error,message", [
    (lambda: mx.np.add(mx.np.ones((2, 3)), mx.np.ones((4,))), MXNetValueError, "broadcast_add"),
    (lambda: mx.nd.power(mx.nd.ones((2, 3)), mx.nd.ones((2,))), MXNetValueError, "broadcast_power"),
    (lambda: mx.np.equal(mx.np.ones((2, 3)), mx.np.ones((4,))), MXNetValueError, "_npi_equal"),
    (lambda: mx.np.add(mx.np.ones(2), "a"), MXNetTypeError, "add"),
    (lambda: mx.nd.ones_like(mx.nd.ones(2)) * [1, 2], MXNetTypeError, "multiply"),
    (lambda: mx.nd.clip(mx.nd.ones(2), 0, 1, alpha=1), MXNetValueError,
     "clip: unknown attribute 'alpha'"),
    (lambda: mx.nd._plus_scalar(mx.nd.ones(2), scalar="x"), MXNetTypeError, "_plus_scalar"),
])
def test_errors_name_the_op(call, error, message):
    with pytest.raises(error, match=message) as info:
        call()
        mx.engine.wait_all()  # NOTE: an engine op's error surfaces at a wait (threaded engines)
    assert isinstance(info.value, MXNetError)


def test_both_scalars_fall_back_to_numpy():
    assert mx.np.add(2, 3) == 5 and mx.nd.maximum(1, 4) == 4


# -- inference (used by Symbol and deferred compute) -----------------------------------------------
@pytest.mark.parametrize("name,attrs,in_dtypes,in_shapes,out_dtype,out_shape", [
    ("broadcast_add", {}, ["int32", "float32"], [(2, 1), (3,)], "float32", (2, 3)),
    ("broadcast_div", {}, ["int32", "int32"], [(2,), (2,)], "int32", (2,)),
    ("_npi_true_divide", {}, ["int32", "int32"], [(2,), (2,)], "float32", (2,)),
    ("broadcast_equal", {}, ["float64", "float64"], [(2, 3), (3,)], "float64", (2, 3)),
    ("_npi_equal", {}, ["float64", "float64"], [(2, 3), (3,)], "bool", (2, 3)),
    ("_npi_less_scalar", {"scalar": 1.0}, ["int32"], [(4,)], "bool", (4,)),
    ("_lesser_scalar", {"scalar": 1.5}, ["int32"], [(4,)], "int32", (4,)),
    ("_lesser_scalar", {"scalar": 1.5, "is_int": False}, ["int32"], [(4,)], "float32", (4,)),
    ("_plus_scalar", {"scalar": 1}, ["int64"], [(4,)], "int64", (4,)),
    ("exp", {}, ["int32"], [(2, 2)], "float32", (2, 2)),
    ("_npi_logical_not", {}, ["float32"], [(3,)], "bool", (3,)),
    ("sum", {"axis": 1}, ["float32"], [(2, 3)], "float32", (2,)),
    ("sum", {}, ["float32"], [(2, 3)], "float32", (1,)),
    ("_np_sum", {}, ["bool"], [(2, 3)], "int64", ()),
    ("argmax", {"axis": 0}, ["float64"], [(2, 3)], "float32", (3,)),
    ("_npi_argmax", {"axis": 0, "keepdims": True}, ["float64"], [(2, 3)], "int64", (1, 3)),
    ("_npi_mean", {"axis": (0, 1)}, ["int32"], [(2, 3, 4)], "float32", (4,)),
    ("softmax", {"dtype": "float64"}, ["float32"], [(2, 3)], "float64", (2, 3)),
    ("Activation", {"act_type": "relu"}, ["float16"], [(5,)], "float16", (5,)),
])
def test_inference_matches_compute(name, attrs, in_dtypes, in_shapes, out_dtype, out_shape):
    op = get_op(name)
    parsed = op.parse_attrs(attrs)
    assert op.infer_types(parsed, in_dtypes)[1] == [out_dtype]
    assert op.infer_shapes(parsed, in_shapes)[1] == [out_shape]
    arrays = [numpy.ones(s, dtype=d) for s, d in zip(in_shapes, in_dtypes)]
    result = op.compute(numpy, arrays, parsed)
    assert (result.dtype.name, result.shape) == (out_dtype, out_shape)


def test_broadcast_inference_fails_naming_the_op_family():
    with pytest.raises(MXNetValueError, match="broadcast"):
        get_op("broadcast_add").infer_shapes({}, [(2, 3), (4,)])


@pytest.mark.parametrize("module", [elemwise, unary, reduce, activation],
                         ids=lambda m: m.__name__)
def test_module_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


# -- oracle: the same code under real MXNet 1.9.1 --------------------------------------------------
ORACLE_CODE = """
x = mx.nd.array(inputs["x"])
h = mx.nd.array(inputs["halves"])
outputs["round"] = mx.nd.round(h).asnumpy()
outputs["rint"] = mx.nd.rint(h).asnumpy()
outputs["fix"] = mx.nd.fix(h).asnumpy()
outputs["gt"] = (x > 0).asnumpy()
outputs["lesser"] = mx.nd.lesser(x, 0.5).asnumpy()
outputs["reflected"] = (0.5 < x).asnumpy()
outputs["logical_not"] = mx.nd.logical_not(x > 0).asnumpy()
outputs["logical_and"] = mx.nd.broadcast_logical_and(x > 0, x < 1).asnumpy()
outputs["mod"] = mx.nd.broadcast_mod(x, mx.nd.array([0.7])).asnumpy()
outputs["rmod"] = (2.0 % (x + 3)).asnumpy()
outputs["power"] = mx.nd.broadcast_power(mx.nd.abs(x) + 0.5, x).asnumpy()
outputs["hypot"] = mx.nd.broadcast_hypot(x, x * 2).asnumpy()
outputs["maximum"] = mx.nd.maximum(x, 0.1).asnumpy()
outputs["erf"] = mx.nd.erf(x).asnumpy()
outputs["rsqrt"] = mx.nd.rsqrt(mx.nd.abs(x) + 1).asnumpy()
outputs["rcbrt"] = mx.nd.rcbrt(mx.nd.abs(x) + 1).asnumpy()
for name, fn in (("power", lambda v: mx.nd.broadcast_power(mx.nd.abs(v) + 0.5, v)),
                 ("rmod", lambda v: 2.0 % (v + 3)), ("minimum", lambda v: mx.nd.minimum(v, 0.1)),
                 ("hypot", lambda v: mx.nd.broadcast_hypot(v, v * 2))):
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
              "halves": HALVES.astype("float32")}
    assert_same_results(*run_both(ORACLE_CODE, inputs))


# -- numexpr templates (used by fusion backends) agree with the kernels ------------------------
FAMILY_MODULES = {"mxlab.ops.elemwise", "mxlab.ops.unary", "mxlab.ops.activation"}
TEMPLATED = sorted(name for name in mx.ops.list_ops()
                   if get_op(name).numexpr and not callable(get_op(name).numexpr)
                   and get_op(name).compute.__module__ in FAMILY_MODULES)
ACTIVATION_TYPES = [t for t in mx.ops.activation.ACTIVATIONS
                    if get_op("Activation").numexpr_template({"act_type": t})]
CASES = [(name, {}) for name in TEMPLATED] + [("Activation", {"act_type": t})
                                              for t in ACTIVATION_TYPES]


def test_activation_takes_its_act_types_template():
    assert {"relu", "sigmoid", "tanh"} <= set(ACTIVATION_TYPES)
    assert get_op("Activation").fusable
    assert get_op("Activation").numexpr_template({"act_type": "log_sigmoid"}) is None


@pytest.mark.parametrize("name,given", CASES, ids=[f"{n}-{a}" for n, a in CASES])
def test_numexpr_template_matches_compute(name, given):
    numexpr = pytest.importorskip("numexpr")
    op = get_op(name)
    arity = op.get_num_inputs({})
    domain = (1.2, 1.9) if name == "arccosh" else (0.2, 0.9)
    args = [_uniform((2, 3), domain) for _ in range(arity)]
    attrs = op.parse_attrs(dict(given, scalar=0.5) if "scalar" in op._attr_specs else given)
    names = {f"x{i}": a for i, a in enumerate(args)}
    expression = op.numexpr_template(attrs).format(*names, s=attrs.get("scalar"))
    expected = numpy.asarray(op.compute(numpy, args, attrs))
    numpy.testing.assert_allclose(numexpr.evaluate(expression, local_dict=names), expected,
                                  rtol=1e-12)


# -- deferred compute: traced (shape/dtype from the inference rules) == eager ----------------------
TRACED = [
    ("arith", lambda a: (a * 2 + 1 - a / 3) ** 2 % 1.5),
    ("reflected", lambda a: 1 - 2 / (a + 3)),
    ("compare", lambda a: a > 0.5),
    ("logical", lambda a: (a > 0.2) == (a < 0.7)),
    ("unary", lambda a: a.exp().sqrt() + abs(-a)),
    ("sum-full", lambda a: a.sum()),
    ("max-axis", lambda a: a.max(axis=1, keepdims=True)),
    ("argmax", lambda a: a.argmax(axis=0)),
    ("softmax", lambda a: (mx.npx if isinstance(a, mx.np.ndarray) else mx.nd).softmax(a)),
]


@pytest.mark.parametrize("flavour", ["np", "nd"])
@pytest.mark.parametrize("name,fn", TRACED, ids=[row[0] for row in TRACED])
def test_traced_matches_eager(name, fn, flavour):
    dc = mx.deferred_compute
    _, array = NAMESPACES[flavour]
    x = _uniform((2, 3), (0.0, 1.0), "float32")
    eager = fn(array(x))
    traced_input = array(x)
    dc.set_variable(traced_input, mx.sym.var("a"))
    with dc.context():
        traced = fn(traced_input)
    assert (traced.shape, traced.dtype) == (eager.shape, eager.dtype)
    numpy.testing.assert_allclose(traced.asnumpy(), eager.asnumpy(), rtol=1e-6)


def test_straight_through_estimators_pass_the_gradient_unchanged():
    x = mx.np.array([1.5, -1.5, 0.4, -2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.npx.round_ste(x) * 3 + mx.npx.sign_ste(x)
    y.backward()
    assert y.tolist() == [7.0, -7.0, 1.0, -7.0]
    assert x.grad.tolist() == [4.0, 4.0, 4.0, 4.0]
    assert mx.nd.contrib.round_ste(mx.nd.array([2.5])).asnumpy().tolist() == [3.0]


def test_khatri_rao_is_the_columnwise_kronecker_product():
    a, b, c = (numpy.arange(1, 1 + m * 2, dtype="float32").reshape(m, 2) for m in (3, 1, 2))
    out = mx.nd.khatri_rao(mx.nd.array(a), mx.nd.array(b), mx.nd.array(c)).asnumpy()
    want = numpy.stack([numpy.kron(numpy.kron(a[:, j], b[:, j]), c[:, j]) for j in range(2)], 1)
    numpy.testing.assert_array_equal(out, want)
    with pytest.raises(mx.MXNetError, match="equal column counts"):
        mx.nd.khatri_rao(mx.nd.ones((2, 2)), mx.nd.ones((2, 3))).asnumpy()


def test_ops_without_attributes_ignore_keywords_as_mxnet():
    # MXNet 1.9.1: an op without a parameter struct ignores keywords (test_loss calls
    # broadcast_maximum(..., axis=1)); NumPy-flavour functions refuse them.
    out = mx.nd.broadcast_maximum(mx.nd.array([0]), mx.nd.array([[1, -2]]), axis=1)
    assert out.asnumpy().tolist() == [[1, 0]]
    assert mx.sym.relu(mx.sym.var("a"), foo=1).list_arguments() == ["a"]
    with pytest.raises(MXNetTypeError, match="alpha is an invalid keyword to function 'exp'"):
        mx.np.exp(mx.np.ones(2), alpha=1)
