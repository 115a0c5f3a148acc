"""MXNet's rules for NumPy's ufunc keywords on ``mx.np`` functions (``where``, ``casting``,
``order``, ``dtype``, ``subok``: accepted at their defaults, NotImplementedError for another valid
value, TypeError for an invalid one), ``out=`` of the composed ufuncs, and ``result_type`` by
MXNet's array-API promotion table."""
import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetNotImplementedError, MXNetTypeError

X = mx.np.array([1.0, 2.0, 3.0])
INTS = mx.np.array([6, 4, 9], dtype="int32")

UNARY = [(mx.np.invert, INTS), (mx.np.positive, X), (mx.np.isnan, X), (mx.np.isfinite, X)]
BINARY = [(mx.np.add, X, X), (mx.np.true_divide, X, X), (mx.np.fmod, X, X), (mx.np.fmax, X, X),
          (mx.np.logaddexp, X, X), (mx.np.bitwise_and, INTS, INTS), (mx.np.gcd, INTS, INTS)]


@pytest.mark.parametrize("fn, args", [(u[0], u[1:]) for u in UNARY] +
                         [(b[0], b[1:]) for b in BINARY],
                         ids=[u[0].__name__ for u in UNARY] + [b[0].__name__ for b in BINARY])
def test_ufunc_keywords(fn, args):
    fn(*args, where=True, casting="same_kind", order="K", subok=True).wait_to_read()
    for key, value in (("where", False), ("subok", False), ("casting", "safe"), ("order", "C"),
                       ("dtype", numpy.int8)):
        with pytest.raises(NotImplementedError) as info:
            fn(*args, **{key: value})
        assert isinstance(info.value, MXNetNotImplementedError)
    for key, value in (("casting", "mxnet"), ("dtype", "abcdefg"), ("colour", 1)):
        with pytest.raises(TypeError):
            fn(*args, **{key: value})


def test_shifts_take_no_ufunc_keywords():
    with pytest.raises(TypeError):
        mx.np.bitwise_left_shift(INTS, INTS, where=False)


def test_predicate_out_must_be_bool():
    out = mx.np.zeros(3, dtype="bool")
    assert mx.np.isnan(mx.np.array([1.0, numpy.nan, 0.0]), out=out) is out
    assert out.asnumpy().tolist() == [False, True, False]
    with pytest.raises(MXNetTypeError, match="isnan"):
        mx.np.isnan(X, out=mx.np.zeros(3))


@pytest.mark.parametrize("fn", [mx.np.fmax, mx.np.fmod, mx.np.copysign, mx.np.logaddexp])
def test_composed_ufuncs_fill_out(fn):
    a, b = mx.np.array([1.5, -2.0, 3.0]), mx.np.array([1.0, 0.5, -2.0])
    out = mx.np.zeros(3)
    fn(a, b, out=out)
    numpy.testing.assert_allclose(out.asnumpy(), getattr(numpy, fn.__name__)(
        a.asnumpy(), b.asnumpy()), rtol=1e-6)


def test_composed_ufuncs_round_float16_once():
    """float16 operands are computed in float32 and rounded once (NumPy's float16 ufuncs do
    the same)."""
    rs = numpy.random.RandomState(1)
    a, b = (rs.uniform(-10, 10, 200).astype("float16") for _ in range(2))
    for name in ("logaddexp", "fmod"):
        got = getattr(mx.np, name)(mx.np.array(a), mx.np.array(b))
        assert got.dtype == numpy.float16
        numpy.testing.assert_array_equal(got.asnumpy(), getattr(numpy, name)(a, b))


@pytest.mark.parametrize("a, b, want", [("int16", "float16", "float16"),
                                        ("uint8", "int8", "int16"), ("int8", "uint32", "int64"),
                                        ("bool", "uint16", "uint16"),
                                        ("float16", "float64", "float64"),
                                        ("int32", "int64", "int64")])
def test_result_type_by_mxnet_table(a, b, want):
    assert mx.np.result_type(numpy.dtype(a), mx.np.ones(1, dtype=b)) == numpy.dtype(want)
    assert mx.np.result_type(getattr(mx.np, b), getattr(mx.np, a)) == numpy.dtype(want)


def test_result_type_unknown_promotion_and_scalars():
    with pytest.raises(TypeError, match="Unknown type promotion"):
        mx.np.result_type(mx.np.int64, mx.np.uint64)
    assert mx.np.result_type(mx.np.ones(2, dtype="int32"), 1.0) == numpy.float64
