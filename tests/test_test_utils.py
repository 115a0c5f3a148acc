"""mx.test_utils: tolerances, comparison messages, random data and the gradient checkers."""
import doctest

import numpy
import pytest

import mxlab as mx
from mxlab import test_utils as tu
from mxlab.base import MXNetNotImplementedError, MXNetValueError


# -- tolerances ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype, rtol, atol", [
    (numpy.float16, 1e-2, 1e-1), (numpy.float32, 1e-4, 1e-3), (numpy.float64, 1e-5, 1e-20),
    (numpy.int32, 0, 0), (numpy.bool_, 0, 0),
])
def test_default_tolerances_are_mxnets(dtype, rtol, atol):
    assert tu.default_rtols()[numpy.dtype(dtype)] == rtol
    assert tu.default_atols()[numpy.dtype(dtype)] == atol


def test_get_tols_takes_the_looser_dtype_and_explicit_values():
    half, single = numpy.zeros(2, numpy.float16), numpy.zeros(2, numpy.float32)
    assert tu.get_tols(half, single, None, None) == (1e-2, 1e-1)
    assert tu.get_tols(single, single, 0.5, {numpy.dtype(numpy.float32): 0.25}) == (0.5, 0.25)
    assert tu.get_tols(1.0, single, None, None) == (1e-4, 1e-3)  # Python floats count as float64


def test_numeric_eps_are_powers_of_two():
    eps = tu.default_numeric_eps()
    assert eps[numpy.dtype(numpy.float32)] == 2.0 ** -9
    assert all(numpy.log2(v).is_integer() for v in eps.values())


# -- comparison ------------------------------------------------------------------------------------
def test_assert_almost_equal_accepts_arrays_of_every_kind_within_tolerance():
    want = numpy.array([[1.0, 2.0], [3.0, 4.0]], dtype=numpy.float32)
    tu.assert_almost_equal(mx.nd.array(want), want + 1e-4)
    tu.assert_almost_equal(want, mx.np.array(want))
    tu.assert_almost_equal(want, [[1.0, 2.0], [3.0, 4.0]])
    tu.assert_almost_equal(want[0], want[:1])  # broadcasting (1, 2) against (2,)


def test_assert_almost_equal_reports_worst_mismatches_with_names_and_locations():
    a = numpy.zeros((3, 4), dtype=numpy.float32)
    b = a.copy()
    b[1, 2], b[2, 0], b[0, 3] = 5.0, 1.0, 0.5
    with pytest.raises(AssertionError) as info:
        tu.assert_almost_equal(a, b, names=("mine", "ref"), mismatches=(2, 10))
    text = str(info.value)
    assert "mismatch 25.000000%: 3 of 12 elements" in text
    assert "Location (1, 2), mine=0.00000000, ref=5.00000000" in text.splitlines()[1]
    assert "Location (2, 0)" in text.splitlines()[2]
    assert "Location (0, 3)" not in text  # only mismatches[0] = 2 listed


def test_assert_almost_equal_shapes_dtypes_and_nans():
    with pytest.raises(AssertionError, match="do not broadcast"):
        tu.assert_almost_equal(numpy.zeros(3), numpy.zeros(4))
    with pytest.raises(AssertionError, match="are not equal"):
        tu.assert_almost_equal(numpy.zeros((1, 3)), numpy.zeros(3), use_broadcast=False)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(numpy.array([True, False]), numpy.array([True, True]))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(numpy.array([1, 2]), numpy.array([1, 3]))  # ints compare exactly
    nan = numpy.array([1.0, numpy.nan])
    with pytest.raises(AssertionError, match="Error inf"):
        tu.assert_almost_equal(nan, nan)
    tu.assert_almost_equal(nan, nan, equal_nan=True)
    tu.assert_almost_equal_ignore_nan([1.0, numpy.nan, 3.0], [numpy.nan, 2.0, 3.0])
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_ignore_nan([1.0, numpy.nan, 3.0], [numpy.nan, 2.0, 4.0])


def test_almost_equal_same_and_allclose():
    x = numpy.float32([1.0, 2.0])
    assert tu.almost_equal(x, x + 1e-4) and not tu.almost_equal(x, x + 1e-2)
    assert tu.same(mx.nd.array(x), x) and not tu.same(x, x[:1])
    with pytest.raises(AssertionError):
        tu.assert_allclose(x, x + 1e-5)  # numpy.testing defaults: rtol 1e-7, atol 0


def test_assert_almost_equal_with_err_tolerates_a_fraction():
    a, b = numpy.zeros(10), numpy.zeros(10)
    b[0] = 1.0
    tu.assert_almost_equal_with_err(a, b, etol=0.1)
    with pytest.raises(AssertionError, match="more than etol=0.05"):
        tu.assert_almost_equal_with_err(a, b, etol=0.05)


def test_assert_exception_retry_and_environment(monkeypatch):
    tu.assert_exception(int, ValueError, "x")
    with pytest.raises(AssertionError, match="did not raise"):
        tu.assert_exception(int, ValueError, "3")
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) == 2

    flaky()
    assert len(calls) == 2
    monkeypatch.setenv("MXLAB_TU_A", "old")
    with tu.environment({"MXLAB_TU_A": "new", "MXLAB_TU_B": "b"}):
        assert mx.util.getenv("MXLAB_TU_A") == "new" and mx.util.getenv("MXLAB_TU_B") == "b"
    assert mx.util.getenv("MXLAB_TU_A") == "old" and mx.util.getenv("MXLAB_TU_B") is None


# -- random data and devices -----------------------------------------------------------------------
def test_rand_ndarray_is_a_dense_float32_ndarray():
    arr = tu.rand_ndarray((3, 4))
    assert type(arr) is mx.nd.NDArray and arr.shape == (3, 4) and arr.dtype == numpy.float32
    assert tu.rand_ndarray((2,), dtype=numpy.float64).dtype == numpy.float64
    csr = tu.rand_ndarray((3, 4), stype="csr", density=0.5)
    assert csr.stype == "csr" and len(csr.data) == 6


def test_rand_shapes_respect_bounds():
    for _ in range(20):
        shape = tu.rand_shape_nd(4, dim=3)
        assert len(shape) == 4 and all(1 <= s <= 3 for s in shape)
        assert all(0 <= s <= 2 for s in tu.rand_shape_3d(2, 2, 2, allow_zero_size=True))
    assert len(tu.rand_shape_2d()) == 2
    assert any(0 in tu.rand_shape_nd(3, 1, allow_zero_size=True) for _ in range(20))


def test_default_context_follows_the_thread_default():
    assert tu.default_context() == mx.cpu(0)
    tu.set_default_context(mx.cpu(1))
    try:
        assert tu.default_context() == mx.cpu(1) and mx.current_context() == mx.cpu(1)
    finally:
        tu.set_default_context(mx.cpu(0))
    assert tu.list_gpus() == list(range(mx.device.num_gpus()))


# -- gradient checks -------------------------------------------------------------------------------
def test_numeric_grad_of_a_function():
    point = [numpy.array([[1.0, -2.0], [0.5, 3.0]])]
    grads = tu.numeric_grad(lambda x: x * x * x, point, eps=1e-4, dtype=numpy.float64)
    numpy.testing.assert_allclose(grads["x"], 3 * point[0] ** 2, rtol=1e-6)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_check_numeric_gradient_passes_for_correct_gradients(dtype):
    a, b = numpy.random.rand(3, 4) + 0.5, numpy.random.rand(1, 4) + 0.5
    tu.check_numeric_gradient(lambda x, y: mx.nd.broadcast_mul(mx.nd.tanh(x), y), [a, b],
                              dtype=dtype)
    tu.check_numeric_gradient(lambda x, y: [x * y, x / y], {"x": a[:1], "y": b}, dtype=dtype)


class _WrongSquare(mx.autograd.Function):
    def forward(self, x):
        self.save_for_backward(x)
        return x * x

    def backward(self, dy):
        (x,) = self.saved_tensors
        return dy * x * 3  # the true derivative is 2x


def test_check_numeric_gradient_catches_a_wrong_gradient():
    with pytest.raises(AssertionError, match="NUMERICAL_x"):
        tu.check_numeric_gradient(lambda x: _WrongSquare()(x), [numpy.ones((2, 2))])


def test_check_numeric_gradient_grad_nodes_and_requests():
    a, b = numpy.random.rand(2, 3), numpy.random.rand(2, 3)
    product = lambda x, y: x * y  # noqa: E731
    tu.check_numeric_gradient(product, [a, b], grad_nodes=["y"])
    tu.check_numeric_gradient(product, [a, b], grad_nodes={"x": "add", "y": "null"})
    with pytest.raises(MXNetValueError, match=r"grad_nodes \['z'\] are not arguments"):
        tu.check_numeric_gradient(product, [a, b], grad_nodes=["z"])


def test_check_numeric_gradient_keeps_the_array_flavour():
    seen = []

    def fn(x):
        seen.append(type(x))
        return mx.np.exp(x)

    tu.check_numeric_gradient(fn, [mx.np.array([0.5, 1.0])])
    assert set(seen) == {mx.np.ndarray}


def _symbol_module():
    sym = getattr(mx, "sym", None)
    if sym is None or not hasattr(sym, "var"):
        pytest.skip("mx.sym is not available yet")
    return sym


def test_check_symbolic_forward_on_a_symbol():
    sym = _symbol_module()
    c = sym.var("a") * sym.var("b") + sym.var("a")
    a, b = numpy.random.rand(2, 3), numpy.random.rand(2, 3)
    outputs = tu.check_symbolic_forward(c, {"a": a, "b": b}, [a * b + a])
    with pytest.raises(AssertionError, match="EXPECTED_"):
        tu.check_symbolic_forward(c, [a, b], [a * b])
    assert tu.same(outputs[0], tu.simple_forward(c, a=a.astype(numpy.float32),
                                                 b=b.astype(numpy.float32)))


def test_symbol_gradient_checks_through_bind():
    sym = _symbol_module()
    c = sym.var("a") * sym.var("b")
    a, b = numpy.random.rand(2, 3), numpy.random.rand(2, 3)
    try:
        c.bind(mx.cpu(), args={"a": mx.nd.array(a), "b": mx.nd.array(b)})
    except MXNetNotImplementedError as exc:
        pytest.skip(f"Symbol.bind is not available yet: {exc}")
    head = numpy.random.rand(2, 3)
    tu.check_symbolic_backward(c, [a, b], [head], [head * b, head * a])
    tu.check_symbolic_backward(c, [a, b], [head], [head * b, head * a], grad_req="add")
    tu.check_numeric_gradient(c, [a, b])


def test_docstring_examples_run():
    from mxlab.testing import gradients
    results = [doctest.testmod(module, optionflags=doctest.ELLIPSIS) for module in (tu, gradients)]
    assert sum(r.attempted for r in results) > 10 and sum(r.failed for r in results) == 0


def test_check_consistency_compares_dtypes_and_gradients():
    from mxlab.test_utils import check_consistency
    sym = mx.sym.Concat(name="concat", num_args=2)
    assert sym.list_arguments() == ["concat_arg0", "concat_arg1"]    # MXNet's variadic names
    shapes = {"concat_arg0": (2, 3), "concat_arg1": (2, 4)}
    ctx_list = [dict(shapes, ctx=mx.cpu(), type_dict={n: dtype for n in shapes})
                for dtype in (numpy.float64, numpy.float32)]
    truth = check_consistency(sym, ctx_list)
    assert truth["concat_output"].shape == (2, 7) and truth["concat_arg1"].shape == (2, 4)
    conv = mx.sym.Convolution(num_filter=3, kernel=(3, 3), name="conv")
    ctx_list = [{"ctx": mx.cpu(), "conv_data": (2, 2, 6, 6), "type_dict": {"conv_data": d}}
                for d in (numpy.float64, numpy.float16)]
    with pytest.raises(AssertionError):            # float16 cannot meet a float64 tolerance
        check_consistency(conv, ctx_list, rtol=1e-9, atol=1e-12)
