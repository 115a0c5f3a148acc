"""``mx.nd.contrib`` / ``mx.npx`` contrib ops and the imperative control flow."""
import numpy
import pytest
from helpers import check_gradient

import mxlab as mx
from mxlab.base import MXNetValueError

X = numpy.array([[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]])


def test_quadratic_and_div_sqrt_dim_values_and_gradients():
    got = mx.nd.contrib.quadratic(mx.nd.array(X), a=2.0, b=-1.0, c=0.5).asnumpy()
    numpy.testing.assert_allclose(got, 2 * X * X - X + 0.5, rtol=1e-6)
    check_gradient("_contrib_quadratic", [X], {"a": 2.0, "b": -1.0, "c": 0.5}, cls=mx.nd.NDArray)
    numpy.testing.assert_allclose(mx.nd.contrib.div_sqrt_dim(mx.nd.array(X)).asnumpy(),
                                  X / numpy.sqrt(3), rtol=1e-6)
    check_gradient("_contrib_div_sqrt_dim", [X], cls=mx.nd.NDArray)


def test_gradientmultiplier_scales_only_the_gradient():
    x = mx.nd.array(X)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.gradientmultiplier(x, scalar=-0.5)
    y.backward()
    assert numpy.array_equal(y.asnumpy(), X.astype("float32"))
    assert (x.grad.asnumpy() == -0.5).all()


def test_index_builders():
    x = mx.nd.zeros((2, 3))
    got = mx.nd.contrib.arange_like(x, start=1.0, step=2.0).asnumpy()
    numpy.testing.assert_allclose(got, (1 + 2 * numpy.arange(6)).reshape(2, 3))
    assert mx.npx.arange_like(mx.np.zeros((2, 3)), axis=1).asnumpy().tolist() == [0, 1, 2]
    assert mx.nd.contrib.arange_like(mx.nd.zeros(4), repeat=2).asnumpy().tolist() == [0, 0, 1, 1]
    index = mx.nd.contrib.index_array(x).asnumpy()
    assert index.shape == (2, 3, 2) and index[1, 2].tolist() == [1, 2]
    assert mx.nd.contrib.index_array(x, axes=(1,)).asnumpy()[:, :, 0].tolist() == [[0, 1, 2]] * 2


def test_index_copy_values_and_gradients():
    old, new = mx.nd.array(X), mx.nd.array([[9.0, 8.0, 7.0]])
    old.attach_grad(), new.attach_grad()
    with mx.autograd.record():
        out = mx.nd.contrib.index_copy(old, mx.nd.array([1]), new)
    out.backward(mx.nd.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert out.asnumpy().tolist() == [[1.5, -2.0, 0.5], [9.0, 8.0, 7.0]]
    assert old.grad.asnumpy().tolist() == [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]
    assert new.grad.asnumpy().tolist() == [[4.0, 5.0, 6.0]]


def test_box_iou_and_nms_match_mxnets_examples():
    lhs = mx.nd.array([[0, 0, 2, 2], [1, 1, 3, 3]])
    iou = mx.nd.contrib.box_iou(lhs, mx.nd.array([[1, 1, 2, 2]])).asnumpy()
    numpy.testing.assert_allclose(iou, [[0.25], [0.25]], rtol=1e-6)
    centers = mx.nd.contrib.box_iou(mx.nd.array([[1, 1, 2, 2]]), mx.nd.array([[1, 1, 2, 2]]),
                                    format="center").asnumpy()
    assert centers.tolist() == [[1.0]]
    x = mx.nd.array([[0, 0.5, 0.1, 0.1, 0.2, 0.2], [1, 0.4, 0.1, 0.1, 0.2, 0.2],
                     [0, 0.3, 0.1, 0.1, 0.14, 0.14], [2, 0.6, 0.5, 0.5, 0.7, 0.8]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.box_nms(x, overlap_thresh=0.1, coord_start=2, score_index=1,
                                  id_index=0, force_suppress=True)
    y.backward(mx.nd.array([[0.1] * 6, [0.2] * 6, [0.3] * 6, [0.4] * 6]))
    numpy.testing.assert_allclose(y.asnumpy(), [[2, 0.6, 0.5, 0.5, 0.7, 0.8],
                                                [0, 0.5, 0.1, 0.1, 0.2, 0.2]] + [[-1] * 6] * 2,
                                  rtol=1e-6)
    numpy.testing.assert_allclose(x.grad.asnumpy(), [[0.2] * 6, [0] * 6, [0] * 6, [0.1] * 6],
                                  rtol=1e-6)
    per_class = mx.nd.contrib.box_nms(x, overlap_thresh=0.1, id_index=0).asnumpy()
    assert (per_class[:3, 0] != -1).all() and (per_class[3] == -1).all()


def test_foreach_while_loop_and_cond_differentiate():
    data = mx.nd.array(X)
    data.attach_grad()
    with mx.autograd.record():
        outs, states = mx.nd.contrib.foreach(lambda x, s: (x * s[0], [s[0] + x]), data,
                                             [mx.nd.ones(3)])
        total = outs.sum() + states[0].sum()
    total.backward()
    assert outs.shape == (2, 3)
    numpy.testing.assert_allclose(states[0].asnumpy(), 1 + X.sum(axis=0), rtol=1e-6)
    numpy.testing.assert_allclose(data.grad.asnumpy()[1], 1 + 1 + X[0], rtol=1e-6)
    outputs, final = mx.nd.contrib.while_loop(
        lambda i, s: i < 3, lambda i, s: ([s], [i + 1, s * 2]),
        [mx.nd.array([0]), mx.nd.array([1.0])], max_iterations=5)
    assert outputs[0].asnumpy().ravel().tolist() == [1, 2, 4, 0, 0]
    assert final[1].asnumpy().tolist() == [8.0]
    assert mx.npx.cond(mx.np.array(0.0), lambda: 1, lambda: 2) == 2


def test_contrib_names_not_built_say_so():
    with pytest.raises(NotImplementedError, match="count_sketch"):
        getattr(mx.nd.contrib, "count_sketch")  # noqa: B009
    with pytest.raises(NotImplementedError, match="hawkesll"):
        getattr(mx.sym.contrib, "hawkesll")  # noqa: B009
    assert mx.sym.contrib.box_nms(mx.sym.var("d")).infer_shape(d=(1, 4, 6))[1] == [(1, 4, 6)]


def test_sparse_namespace_falls_back_to_nd_ops_and_refuses_unknown_names():
    assert mx.nd.sparse.FullyConnected is mx.nd.FullyConnected
    with pytest.raises(MXNetValueError, match="csr storage needs a 2-d"):
        mx.nd.ones(2).tostype("csr")
    with pytest.raises(AttributeError):
        mx.nd.sparse.no_such_name  # noqa: B018


def test_mx_contrib_nd_and_sym_are_the_contrib_op_namespaces():
    assert mx.contrib.nd is mx.nd.contrib and mx.contrib.ndarray is mx.nd.contrib
    assert mx.contrib.sym is mx.sym.contrib and mx.contrib.symbol is mx.sym.contrib
    out = mx.contrib.nd.quadratic(mx.nd.array([1.0, 2.0]), a=1.0, b=1.0, c=1.0)
    assert out.asnumpy().tolist() == [3.0, 7.0]


def test_dynamic_reshape_reads_its_target_shape_from_an_array():
    x = mx.nd.array(numpy.arange(24.0).reshape(2, 3, 4))
    shape = mx.nd.array([-4, 1, 2, -2])
    assert mx.nd.contrib.dynamic_reshape(x, shape).shape == (1, 2, 3, 4)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.dynamic_reshape(x, mx.nd.array([0, -1]))
    y.backward(mx.nd.array(numpy.arange(24.0).reshape(2, 12)))
    numpy.testing.assert_array_equal(x.grad.asnumpy(), numpy.arange(24.0).reshape(2, 3, 4))
    net = mx.sym.contrib.dynamic_reshape(mx.sym.var("data"), mx.sym.var("shape"))
    out = net._bind(mx.cpu(), {"data": x, "shape": mx.nd.array([-3, -1])}).forward()[0]
    assert out.shape == (6, 4)
    # bound with a gradient: the head gradient's shape is known only at backward
    grad = mx.nd.zeros((2, 3, 4))
    exe = net._bind(mx.cpu(), {"data": x, "shape": mx.nd.array([4, -1])}, {"data": grad})
    assert exe.forward(is_train=True)[0].shape == (4, 6)
    exe.backward(mx.nd.array(numpy.arange(24.0).reshape(4, 6)))
    numpy.testing.assert_array_equal(grad.asnumpy(), numpy.arange(24.0).reshape(2, 3, 4))


def test_index_array_of_a_0d_input_is_empty():
    with mx.np_shape():
        out = mx.nd.contrib.index_array(mx.nd.array(numpy.ones(())))
        assert out.shape == (0,) and out.dtype == numpy.int64
        sym = mx.sym.contrib.index_array(mx.sym.var("data"))
        assert sym.infer_shape(data=())[1] == [(0,)]
