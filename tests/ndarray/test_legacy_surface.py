"""MXNet 1.x ``mx.nd`` surface that MXNet's test_ndarray.py reaches for: fluent methods, views
with ``inplace=True``, shape queries, block rearrangements, slice_like, softmin/nanprod, split_v2,
the contrib NaN tests, the adaptive update ops and ``mx.nd.array``'s float32 default. Expected
values were read off MXNet 1.9.1."""
import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetValueError


def test_nd_array_of_a_numpy_integer_array_is_float32():
    assert mx.nd.array(numpy.arange(3)).dtype == numpy.float32
    assert mx.nd.array(numpy.array([True])).dtype == numpy.float32
    assert mx.nd.array(numpy.arange(3), dtype="int64").dtype == numpy.int64
    assert mx.nd.array(mx.nd.ones((2,), dtype="int32")).dtype == numpy.int32
    assert mx.np.array(numpy.arange(3)).dtype == numpy.int64


@pytest.mark.parametrize("method,args", [("flatten", ()), ("squeeze", ()),
                                         ("expand_dims", (1,))])
def test_inplace_true_returns_a_view_sharing_the_data(method, args):
    tensor = mx.nd.arange(1, 7).reshape(2, 1, 3)
    copy = getattr(tensor, method)(*args)
    view = getattr(tensor, method)(*args, inplace=True)
    tensor[0] = -1
    assert copy.asnumpy().ravel()[0] == 1 and view.asnumpy().ravel()[0] == -1
    view[:] = 5                                       # writes through the view reach the base
    assert (tensor.asnumpy() == 5).all() and view.shape == copy.shape


def test_fluent_methods_of_legacy_ops():
    x = mx.nd.array([[1.4, -2.6, 0.5]])
    numpy.testing.assert_array_equal(x.rint().asnumpy(), [[1, -3, 0]])
    numpy.testing.assert_array_equal(x.fix().asnumpy(), [[1, -2, 0]])
    numpy.testing.assert_allclose(x.softmin().asnumpy(), mx.nd.softmax(-x).asnumpy(), rtol=1e-6)
    assert x.shape_array().asnumpy().tolist() == [1, 3]
    assert not hasattr(mx.nd.ones((2,)), "all")       # np.all converts a legacy array
    assert numpy.all(mx.nd.array([2, 2]) == 2) and mx.np.ones((2,)).all()


def test_shape_and_size_arrays_are_int64():
    x = mx.nd.zeros((2, 3, 4))
    assert mx.nd.shape_array(x).asnumpy().tolist() == [2, 3, 4]
    assert mx.nd.size_array(x).asnumpy().tolist() == [24]
    assert mx.nd.shape_array(x).dtype == numpy.int64


def test_depth_to_space_is_dcr_and_space_to_depth_inverts_it():
    d = mx.nd.arange(16).reshape(1, 4, 2, 2)
    out = mx.nd.depth_to_space(d, 2)
    assert out.shape == (1, 1, 4, 4)
    numpy.testing.assert_array_equal(out.asnumpy().ravel(),
                                     [0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15])
    numpy.testing.assert_array_equal(mx.nd.space_to_depth(out, 2).asnumpy(), d.asnumpy())
    with pytest.raises(MXNetValueError, match="block_size"):
        mx.nd.depth_to_space(mx.nd.zeros((1, 3, 2, 2)), 2).wait_to_read()


def test_slice_like_shapes_and_gradient():
    x = mx.nd.array(numpy.arange(24).reshape(2, 3, 4))
    assert mx.nd.slice_like(x, mx.nd.zeros((1, 2, 3)), axes=(0, -1)).shape == (1, 3, 3)
    assert mx.nd.slice_like(x, mx.nd.zeros((1, 2, 3))).shape == (1, 2, 3)
    w = mx.nd.array([[1, 2], [3, 4]])
    w.attach_grad()
    with mx.autograd.record():
        y = mx.nd.slice_like(w, mx.nd.zeros((1, 1)))
    y.backward()
    numpy.testing.assert_array_equal(w.grad.asnumpy(), [[1, 0], [0, 0]])


def test_softmin_and_nanprod_values_and_gradients():
    x = mx.nd.array([[1, 2, 3.0]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.softmin(x) * mx.nd.array([[1, 2, 3]])
    y.backward()
    numpy.testing.assert_allclose(x.grad.asnumpy(), [[0.28258747, -0.14077035, -0.1418171]],
                                  rtol=1e-5)
    z = mx.nd.array([[1, numpy.nan, 3.0]])
    z.attach_grad()
    with mx.autograd.record():
        p = mx.nd.nanprod(z, axis=1)
    p.backward()
    assert p.asnumpy().tolist() == [3.0]
    numpy.testing.assert_array_equal(z.grad.asnumpy(), [[3, 0, 1]])


def test_argmax_channel_reduces_axis_one():
    x = mx.nd.array(numpy.arange(24).reshape(2, 3, 4) % 5)
    numpy.testing.assert_array_equal(mx.nd.argmax_channel(x).asnumpy(),
                                     [[1, 2, 0, 0], [0, 0, 0, 1]])


def test_split_v2_by_points_and_sections():
    parts = mx.nd.split_v2(mx.nd.arange(6), (2, 3))
    assert [p.asnumpy().tolist() for p in parts] == [[0, 1], [2], [3, 4, 5]]
    pieces = mx.nd.arange(6).reshape(2, 3).split_v2(3, axis=1, squeeze_axis=True)
    assert [p.shape for p in pieces] == [(2,)] * 3
    with pytest.raises(MXNetValueError, match="equal division"):
        mx.nd.split_v2(mx.nd.arange(5), 2)


def test_contrib_nan_and_inf_tests_give_zero_one_in_the_input_dtype():
    x = mx.nd.array([1.0, numpy.inf, -numpy.inf, numpy.nan])
    assert mx.nd.contrib.isinf(x).asnumpy().tolist() == [0, 1, 1, 0]
    assert mx.nd.contrib.isfinite(x).asnumpy().tolist() == [1, 0, 0, 0]
    assert mx.nd.contrib.isnan(x).asnumpy().tolist() == [0, 0, 0, 1]
    assert mx.nd.contrib.isnan(x).dtype == numpy.float32


def test_attributes_take_ranges_and_numpy_arrays_as_tuples():
    assert mx.nd.broadcast_to(mx.nd.ones((1,)), shape=numpy.array([5])).shape == (5,)
    assert mx.nd.moveaxis(mx.nd.ones((1, 2, 3)), range(3), [2, 1, 0]).shape == (3, 2, 1)


def _step(op, n_states, **attrs):
    rng = numpy.random.RandomState(0)
    w0, g0 = rng.randn(5).astype("float32"), rng.randn(5).astype("float32")
    states0 = [numpy.abs(rng.randn(5)).astype("float32") for _ in range(n_states)]
    w, g = mx.nd.array(w0), mx.nd.array(g0)
    states = [mx.nd.array(s) for s in states0]
    getattr(mx.nd, op)(w, g, *states, out=w, **attrs)
    return w0, g0, states0, w.asnumpy(), [s.asnumpy() for s in states]


def test_adam_update_clips_the_decayed_gradient_as_mxnet_1_9():
    w0, g0, (m0, v0), w, (m, v) = _step("adam_update", 2, lr=0.01, wd=1e-3, rescale_grad=0.1,
                                        clip_gradient=0.05)
    g = numpy.clip(0.1 * g0 + 1e-3 * w0, -0.05, 0.05)
    numpy.testing.assert_allclose(m, 0.9 * m0 + 0.1 * g, rtol=1e-6)
    numpy.testing.assert_allclose(v, 0.999 * v0 + 0.001 * g * g, rtol=1e-6)
    numpy.testing.assert_allclose(w, w0 - 0.01 * m / (numpy.sqrt(v) + 1e-8), rtol=1e-6)


def test_rmsprop_update_clips_weights():
    w0, g0, (n0,), w, (n,) = _step("rmsprop_update", 1, lr=0.01, wd=1e-3, clip_weights=0.5)
    g = g0 + 1e-3 * w0
    numpy.testing.assert_allclose(n, 0.95 * n0 + 0.05 * g * g, rtol=1e-6)
    expected = numpy.clip(w0 - 0.01 * g / (numpy.sqrt(n) + 1e-8), -0.5, 0.5)
    numpy.testing.assert_allclose(w, expected, rtol=1e-6)


@pytest.mark.parametrize("name,kwargs,op,n_states,attrs", [
    ("ftml", {}, "ftml_update", 3, {"t": 1}),
    ("ftrl", {}, "ftrl_update", 2, {}),
    ("rmsprop", {"centered": True}, "rmspropalex_update", 3, {"rho": 0.9, "momentum": 0.9}),
])
def test_update_ops_agree_with_the_optimizer_classes(name, kwargs, op, n_states, attrs):
    """The fused op and the optimizer's op-by-op rule are two paths to one step."""
    rng = numpy.random.RandomState(1)
    w0, g0 = rng.randn(5).astype("float32"), rng.randn(5).astype("float32")
    w_op = mx.nd.array(w0)
    states = [mx.nd.zeros((5,)) for _ in range(n_states)]
    getattr(mx.nd, op)(w_op, mx.nd.array(g0), *states, out=w_op, lr=0.01, wd=1e-3, **attrs)
    opt = mx.optimizer.create(name, learning_rate=0.01, wd=1e-3, **kwargs)
    weight = mx.nd.array(w0)
    opt.update(0, weight, mx.nd.array(g0), opt.create_state(0, weight))
    numpy.testing.assert_allclose(weight.asnumpy(), w_op.asnumpy(), rtol=1e-5, atol=1e-6)


def test_fill_element_0index_and_its_gradients():
    x, v = mx.nd.array([[1, 2, 3], [4, 5, 6]]), mx.nd.array([9, 8])
    x.attach_grad()
    v.attach_grad()
    with mx.autograd.record():
        y = mx.nd.fill_element_0index(x, v, mx.nd.array([2, 0]))
    y.backward(mx.nd.array([[1, 2, 3], [4, 5, 6]]))
    assert y.asnumpy().tolist() == [[1, 2, 9], [8, 5, 6]]
    assert x.grad.asnumpy().tolist() == [[1, 2, 0], [0, 5, 6]]
    assert v.grad.asnumpy().tolist() == [3, 4]


def test_broadcast_like_with_axes_and_transpose_with_axes_keyword():
    a, b = mx.nd.ones((1, 1, 3)), mx.nd.zeros((4, 5, 6))
    assert mx.nd.broadcast_like(a, b, lhs_axes=(0, 1), rhs_axes=(1, 0)).shape == (5, 4, 3)
    with pytest.raises(MXNetValueError, match="lhs_axes"):
        mx.nd.broadcast_like(a, b, lhs_axes=(), rhs_axes=()).wait_to_read()
    assert mx.nd.array([[1, 2], [3, 4]]).transpose(axes=(1, 0)).asnumpy().tolist() == [[1, 3],
                                                                                      [2, 4]]


def test_asscalar_is_a_numpy_scalar_as_in_mxnet():
    value = mx.nd.array([2.5]).asscalar()
    assert isinstance(value, numpy.float32) and value.shape == () and float(value) == 2.5
    assert mx.nd.norm(mx.nd.array([3.0, 4.0])).asscalar().shape == ()


@pytest.mark.parametrize("shape", [(), (0, 3), 0])
def test_legacy_zeros_and_ones_refuse_unknown_shapes_outside_np_shape_mode(shape):
    """MXNet 1.x reads () and 0 as unknown there: its shape inference refuses them."""
    for make in (mx.nd.zeros, mx.nd.ones):
        with pytest.raises(mx.base.MXNetValueError, match="unknown dimension"):
            make(shape)
    with mx.np_shape():
        assert mx.nd.zeros(shape).shape == ((shape,) if isinstance(shape, int) else shape)
    assert mx.np.zeros(shape).size == 0 or shape == ()


@pytest.mark.parametrize("call", [
    lambda: mx.nd.tile(mx.nd.ones((2, 2)), reps=(1, 0)),
    lambda: mx.nd.tile(mx.nd.ones((2, 2)), (0, 1)),
    lambda: mx.nd.depth_to_space(mx.nd.array(numpy.ones((1, 4, 0, 3))), 2),
    lambda: mx.nd.space_to_depth(mx.nd.array(numpy.ones((1, 1, 0, 4))), 2),
    lambda: mx.nd.diag(mx.nd.ones((3, 4)), k=5),
    lambda: mx.nd.diag(mx.nd.ones((3, 4)), k=-4),
])
def test_legacy_frontends_refuse_what_mxnet_1x_shape_inference_refuses(call):
    with pytest.raises(MXNetValueError):
        call()
    with mx.np_shape():   # NOTE: 0 is a zero-size dim there, and an empty diagonal is fine
        assert call().size == 0


def test_numpy_flavour_keeps_zero_sizes_and_empty_diagonals():
    assert mx.np.tile(mx.np.ones((2, 2)), (1, 0)).shape == (2, 0)
    assert mx.np.diag(mx.np.ones((3, 4)), k=5).shape == (0,)
    assert mx.nd.diag(mx.nd.ones((3, 4)), k=4).shape == (0,)   # MXNet 1.9.1's boundary
