"""MXNet 2.0 surface of mx.np that MXNet master's test_numpy_op.py uses: ``ndarray.diagonal``,
``ndarray.mT`` and the NumPy ufunc keywords (``where``, ``casting``, ...) at non-default values."""
import numpy as onp
import pytest

import mxlab as mx
from mxlab.base import MXNetError


def test_diagonal_method_matches_numpy_imperatively_and_hybridized():
    x = onp.arange(60, dtype=onp.float32).reshape(3, 4, 5)

    class Diag(mx.gluon.HybridBlock):
        def forward(self, a):
            return a.diagonal(1, 1, 2)

    block = Diag()
    imperative = block(mx.np.array(x)).asnumpy()
    block.hybridize()
    hybrid = block(mx.np.array(x)).asnumpy()
    onp.testing.assert_array_equal(imperative, x.diagonal(1, 1, 2))
    onp.testing.assert_array_equal(hybrid, x.diagonal(1, 1, 2))


def test_mT_swaps_the_last_two_axes_and_needs_two_of_them():
    x = mx.np.arange(24).reshape(2, 3, 4)
    assert x.mT.shape == (2, 4, 3)
    onp.testing.assert_array_equal(x.mT.asnumpy(), onp.swapaxes(x.asnumpy(), -1, -2))
    with pytest.raises(ValueError, match="2-dimensional"):
        mx.np.ones(3).mT


@pytest.mark.parametrize("kwargs", [dict(where=False), dict(subok=False), dict(dtype=onp.int8),
                                    dict(casting="safe"), dict(order="C")])
def test_ufunc_keyword_at_another_value_is_not_implemented(kwargs):
    with pytest.raises(NotImplementedError, match="not implemented yet for operator cos"):
        mx.np.cos(mx.np.ones(2), **kwargs)


@pytest.mark.parametrize("kwargs", [dict(dtype="abcdefg"), dict(casting="mxnet")])
def test_ufunc_keyword_with_an_invalid_value_is_a_type_error(kwargs):
    with pytest.raises(TypeError, match="not understood") as info:
        mx.np.sqrt(mx.np.ones(2), **kwargs)
    assert isinstance(info.value, MXNetError)


def test_ufunc_keywords_at_their_defaults_are_accepted():
    out = mx.np.exp(mx.np.zeros(2), where=True, casting="same_kind", order="K", dtype=None,
                    subok=True)
    onp.testing.assert_array_equal(out.asnumpy(), [1, 1])


def test_sort_and_argsort_take_descending_and_its_gradient_follows():
    x = onp.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], dtype=onp.float32)
    a = mx.np.array(x)
    a.attach_grad()
    with mx.autograd.record():
        y = mx.np.sort(a, -1, descending=True)
        z = (y * mx.np.array([[1, 2, 3], [4, 5, 6]])).sum()
    z.backward()
    onp.testing.assert_array_equal(y.asnumpy(), -onp.sort(-x, -1))
    onp.testing.assert_array_equal(mx.np.argsort(a, descending=True).asnumpy(), [[0, 2, 1],
                                                                                [1, 2, 0]])
    onp.testing.assert_array_equal(a.grad.asnumpy(), [[1, 3, 2], [6, 4, 5]])
    onp.testing.assert_array_equal(mx.np.sort(a, axis=None).asnumpy(), onp.sort(x, axis=None))


def test_unravel_index_is_recorded_so_it_hybridizes():
    class Unravel(mx.gluon.HybridBlock):
        def forward(self, a):
            return mx.np.unravel_index(a, (3, 4))

    block = Unravel()
    block.hybridize()
    x = mx.np.array([5, 11, 0], dtype="int32")
    rows, cols = block(x)
    assert rows.dtype == onp.int32
    onp.testing.assert_array_equal(rows.asnumpy(), [1, 2, 0])
    onp.testing.assert_array_equal(cols.asnumpy(), [1, 3, 0])
    assert mx.np.unravel_index(7, 10) == (7,)


def test_transpose_method_takes_none_as_numpy_does():
    x = mx.np.arange(6).reshape(2, 3)
    assert x.transpose(None).shape == (3, 2)
    assert mx.np.array(1.0).transpose(None).shape == ()


def test_transpose_gradient_with_negative_axes_has_the_input_shape():
    x = mx.np.array(onp.arange(24, dtype=onp.float32).reshape(4, 2, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.np.permute_dims(x, (-1, 1, 0))
    y.backward(mx.np.array(onp.arange(24, dtype=onp.float32).reshape(3, 2, 4)))
    onp.testing.assert_array_equal(
        x.grad.asnumpy(), onp.transpose(onp.arange(24).reshape(3, 2, 4), (2, 1, 0)))


def test_np_array_with_grad_req_null_has_no_gradient_and_legacy_keeps_zeros():
    a, b = mx.np.ones((2, 2)), mx.np.ones((2, 2))
    a.attach_grad(grad_req="null")
    b.attach_grad()
    with mx.autograd.record():
        y = mx.np.matmul(a, b)
    y.backward()
    assert a.grad is None
    onp.testing.assert_array_equal(b.grad.asnumpy(), onp.full((2, 2), 2.0))
    legacy = mx.nd.ones((2,))
    legacy.attach_grad(grad_req="null")
    onp.testing.assert_array_equal(legacy.grad.asnumpy(), [0, 0])   # MXNet 1.x: zeros


def test_np_default_dtype_mode_gives_numpy_dtypes_and_is_off_by_default():
    """``npx.set_np(dtype=True)`` / ``use_np_default_dtype``: float64 and int64 defaults."""
    np = mx.np
    made = [lambda: np.array([1, 2, 3]), lambda: np.ones(5), lambda: np.zeros((2,)),
            lambda: np.eye(3, k=1), lambda: np.identity(2), lambda: np.linspace(2.0, 3.0, 5),
            lambda: np.logspace(2.0, 3.0, num=4), lambda: np.hanning(3),
            lambda: np.mean(np.array([1, 2], dtype="int64")),
            lambda: np.random.uniform(-1, 1, size=3), lambda: np.random.normal(0, 0.1, 3),
            lambda: np.true_divide(np.array([1, 2], dtype="int32"), 4)]
    with mx.util.np_default_dtype():
        assert {str(make().dtype) for make in made} == {"float64"}
        assert np.arange(3, 7, 2).dtype == "int64" and np.arange(3.0).dtype == "float64"
        assert np.zeros((2,), "int32").dtype == "int32"         # an explicit dtype wins
        assert np.array([True]).dtype == "bool"
    assert {str(make().dtype) for make in made} == {"float32"}
    assert np.arange(3, 7, 2).dtype == "float32"
