"""``mx.np`` functions in the argument forms NumPy (and MXNet's numpy tests) use: tuple shifts in
``roll``, an array ``fill_value``, per-matrix tolerances of ``pinv``/``matrix_rank``, a scalar
``clip``, per-element ``repeats``, ``interpolation=``, ``dtype=`` of ``ones_like``, and constants
inside traced compositions."""
import numpy
import pytest

import mxlab as mx
from helpers import FnBlock

RS = numpy.random.RandomState(5)


@pytest.mark.parametrize("shift, axis", [((1, 2), (0, 2)), ((1, -2), 1), (2, (0, 1)),
                                         (-7, None), ((1, 1), (2, 2))])
def test_roll_broadcasts_shift_and_axis(shift, axis):
    a = numpy.arange(24).reshape(2, 3, 4)
    numpy.testing.assert_array_equal(mx.np.roll(mx.np.array(a), shift, axis).asnumpy(),
                                     numpy.roll(a, shift, axis))


def test_full_with_an_array_fill_value():
    got = mx.np.full((2, 3), mx.np.array([1.0, 2.0, 3.0]), dtype="int32")
    assert got.dtype == numpy.int32
    numpy.testing.assert_array_equal(got.asnumpy(), numpy.full((2, 3), [1, 2, 3]))


@pytest.mark.parametrize("a_shape, tol_shape", [((4, 3), ()), ((2, 3, 5), (2,)),
                                                ((2, 2, 5, 4), (1, 2))])
def test_pinv_and_matrix_rank_with_array_tolerances(a_shape, tol_shape):
    a = RS.uniform(-10, 10, a_shape)
    rcond = RS.uniform(0, 0.5, tol_shape)
    got = mx.np.linalg.pinv(mx.np.array(a, dtype="float64"), mx.np.array(rcond, dtype="float64"))
    numpy.testing.assert_allclose(got.asnumpy(), numpy.linalg.pinv(a, rcond), rtol=1e-6,
                                  atol=1e-8)
    tol = RS.uniform(5, 15, tol_shape)
    rank = mx.np.linalg.matrix_rank(mx.np.array(a, dtype="float64"),
                                    mx.np.array(tol, dtype="float64"))
    numpy.testing.assert_array_equal(rank.asnumpy(), numpy.linalg.matrix_rank(a, tol))


def test_clip_of_a_scalar_and_method_names():
    assert mx.np.clip(3.5, 0, 1) == 1.0
    x = mx.np.array([-1.0, 0.5, 2.0])
    numpy.testing.assert_array_equal(x.clip(min=0, max=1).asnumpy(), [0.0, 0.5, 1.0])
    numpy.testing.assert_array_equal(mx.np.clip(x, -0.5, 0.5).asnumpy(), [-0.5, 0.5, 0.5])


@pytest.mark.parametrize("hybridize", [False, True])
def test_repeat_per_element_and_traced_constants(hybridize):
    a = numpy.arange(8).reshape(4, 2).astype("float32")
    for fn, want in ((lambda x: x.repeat([1, 2], 1), a.repeat([1, 2], 1)),
                     (lambda x: mx.np.repeat(x, [2, 3] * 4), a.repeat([2, 3] * 4)),
                     (lambda x: mx.np.ediff1d(x, to_begin=[7, 8]),
                      numpy.ediff1d(a, to_begin=[7, 8]))):
        block = FnBlock(fn)
        if hybridize:
            block.hybridize()
        for _ in range(2):
            numpy.testing.assert_array_equal(block(mx.np.array(a)).asnumpy(), want)


def test_quantile_interpolation_keyword():
    a = RS.uniform(size=(3, 5))
    got = mx.np.quantile(mx.np.array(a), 0.3, axis=1, interpolation="lower")
    numpy.testing.assert_allclose(got.asnumpy(), numpy.quantile(a, 0.3, axis=1, method="lower"),
                                  rtol=1e-6)


def test_polyval_one_coefficient_keeps_x_shape():
    got = mx.np.polyval(mx.np.array([2.0]), mx.np.ones(5))
    numpy.testing.assert_array_equal(got.asnumpy(), numpy.full(5, 2.0))


def test_ones_like_dtype_and_column_stack_of_scalars():
    a = mx.np.ones((2, 3), dtype="float16")
    assert mx.np.ones_like(a, dtype="int32").dtype == numpy.int32
    assert mx.np.zeros_like(a).dtype == numpy.float16
    assert numpy.ones_like(a, dtype="float64").dtype == numpy.float64    # __array_function__
    got = mx.np.column_stack([mx.np.array(1.0), mx.np.array(2.0)])
    numpy.testing.assert_array_equal(got.asnumpy(), numpy.column_stack([1.0, 2.0]))


def test_tensorsolve_equal_ndims_takes_all_of_a():
    """NumPy's ``a.shape[-(a.ndim - b.ndim):]`` is all of ``a.shape`` when the ranks match."""
    a, b = numpy.full((1, 1, 1), 2.0), numpy.full((1, 1, 1), 4.0)
    got = mx.np.linalg.tensorsolve(mx.np.array(a), mx.np.array(b))
    assert got.shape == numpy.linalg.tensorsolve(a, b).shape == (1, 1, 1)
    numpy.testing.assert_allclose(got.asnumpy(), numpy.linalg.tensorsolve(a, b))


def test_trace_of_a_vector_raises():
    with pytest.raises(ValueError, match="two dimensions"):
        mx.np.trace(mx.np.ones(2))


def test_lstsq_rank_is_an_array_and_traceable():
    a, b = RS.uniform(size=(4, 3)), RS.uniform(size=4)
    block = FnBlock(lambda ab: mx.np.linalg.lstsq(ab[:, :3], ab[:, 3], rcond=None))
    block.hybridize()
    for fn in (block, lambda ab: mx.np.linalg.lstsq(ab[:, :3], ab[:, 3], rcond=None)):
        x, residuals, rank, s = fn(mx.np.array(numpy.column_stack([a, b])))
        assert rank.shape == () and int(rank) == 3
        numpy.testing.assert_allclose(x.asnumpy(), numpy.linalg.lstsq(a, b, rcond=None)[0],
                                      rtol=1e-4)


@pytest.mark.parametrize("obj", [[-1, 1, 9], -1, slice(-2, None), slice(None, None, 2)])
def test_delete_ignores_out_of_range_list_entries(obj):
    """MXNet (and NumPy before 1.19) ignore negative and too large entries of an index list;
    inside a hybridized block the call is traced, slices included."""
    a = numpy.arange(6.0)
    ref = numpy.delete(a, [i for i in obj if 0 <= i < 6] if isinstance(obj, list) else obj)
    block = FnBlock(lambda x: mx.np.delete(x, obj))
    block.hybridize()
    for fn in (lambda x: mx.np.delete(x, obj), block):
        numpy.testing.assert_array_equal(fn(mx.np.array(a)).asnumpy(), ref)
