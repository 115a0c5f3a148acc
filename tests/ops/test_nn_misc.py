"""Dropout (scaling, modes, axes, mask gradient, seeding) and Embedding (lookup, clip, gradient)."""

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetValueError
from mxlab.ops.registry import get_op
from mxlab.test_utils import assert_almost_equal, check_numeric_gradient


def _dropout_train(x, **attrs):
    x = mx.nd.array(x)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Dropout(x, **attrs)
    y.backward()
    return y.asnumpy(), x.grad.asnumpy()


def test_dropout_scales_kept_values_and_gradient_is_the_mask():
    x = numpy.random.rand(200, 50).astype("float32") + 1
    y, grad = _dropout_train(x, p=0.3)
    kept = y != 0
    assert abs(1 - kept.mean() - 0.3) < 0.02
    assert_almost_equal(y[kept], x[kept] / 0.7, rtol=1e-6, atol=1e-6)
    assert_almost_equal(grad, kept / 0.7, rtol=1e-6, atol=1e-6)


def test_dropout_identity_outside_training_unless_always():
    x = numpy.random.rand(10, 10).astype("float32") + 1
    assert (mx.nd.Dropout(mx.nd.array(x), p=0.5).asnumpy() == x).all()
    with mx.autograd.train_mode():
        assert (mx.nd.Dropout(mx.nd.array(x), p=0.5).asnumpy() != x).any()
    assert (mx.nd.Dropout(mx.nd.array(x), p=0.5, mode="always").asnumpy() == 0).any()


def test_dropout_axes_share_the_mask_and_extremes():
    x = numpy.ones((6, 40, 5), dtype="float32")
    y, _ = _dropout_train(x, p=0.5, axes=(1,))
    assert (y == y[:, :1, :]).all()
    y, grad = _dropout_train(x, p=1.0)
    assert not y.any() and not grad.any()
    y, grad = _dropout_train(x, p=0.0)
    assert (y == x).all() and (grad == 1).all()


def test_dropout_follows_the_seed_and_hides_the_mask():
    x = numpy.ones((8, 8), dtype="float32")
    mx.random.seed(11)
    a, _ = _dropout_train(x)
    mx.random.seed(11)
    b, _ = _dropout_train(x)
    assert (a == b).all()
    op = get_op("Dropout")
    assert (
        op.get_num_outputs(op.parse_attrs({})) == 2
        and op.get_num_visible_outputs(op.parse_attrs({})) == 1
    )
    assert mx.npx.dropout(mx.np.array(x), p=0.5).shape == (8, 8)
    with pytest.raises(MXNetValueError, match="Dropout.*'p'"):
        mx.nd.Dropout(mx.nd.array(x), p=1.5)


def test_embedding_lookup_clips_indices_like_mxnet():
    w = numpy.arange(12, dtype="float32").reshape(4, 3)
    out = mx.nd.Embedding(mx.nd.array([-1, 5, 1.7]), mx.nd.array(w), input_dim=4, output_dim=3)
    assert out.asnumpy().tolist() == [[0, 1, 2], [9, 10, 11], [3, 4, 5]]
    assert mx.npx.embedding(
        mx.np.array([[0, 1]]), mx.np.array(w), input_dim=4, output_dim=3
    ).shape == (1, 2, 3)


def test_embedding_gradient_goes_to_weight_only():
    data = numpy.array([[0, 2, 2], [3, 0, 1]], dtype="float64")
    w = numpy.random.randn(4, 5)
    check_numeric_gradient(
        lambda w: mx.nd.Embedding(mx.nd.array(data, dtype="float64"), w, input_dim=4, output_dim=5),
        [w],
        numeric_eps=1e-5,
        rtol=1e-6,
        atol=1e-7,
        dtype=numpy.float64,
    )
    d, wt = mx.nd.array(data), mx.nd.array(w)
    d.attach_grad()
    wt.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Embedding(d, wt, input_dim=4, output_dim=5)
    y.backward()
    assert_almost_equal(
        wt.grad, numpy.array([2, 1, 2, 1])[:, None] * numpy.ones((4, 5)), rtol=0, atol=0
    )
    assert not d.grad.asnumpy().any()


def test_embedding_shapes_types_and_errors():
    op = get_op("Embedding")
    attrs = op.parse_attrs(dict(input_dim=10, output_dim=4, dtype="float16", sparse_grad=True))
    assert op.infer_shapes(attrs, [(2, 3), None]) == ([(2, 3), (10, 4)], [(2, 3, 4)])
    assert op.infer_types(attrs, ["int32", None]) == (["int32", "float16"], ["float16"])
    with pytest.raises(MXNetValueError, match="Embedding.*'weight'"):
        op.infer_shapes(attrs, [(2, 3), (10, 5)])


def test_upsampling_nearest_concat_sum_and_bilinear_as_deconvolution():
    a = numpy.arange(12, dtype="float32").reshape(1, 2, 2, 3)
    b = numpy.arange(24, dtype="float32").reshape(1, 1, 4, 6)
    up_a = a.repeat(2, axis=2).repeat(2, axis=3)
    cat = mx.nd.UpSampling(mx.nd.array(a), mx.nd.array(b), scale=2, sample_type="nearest",
                           num_args=2)
    numpy.testing.assert_array_equal(cat.asnumpy(), numpy.concatenate([up_a, b], axis=1))
    total = mx.nd.UpSampling(mx.nd.array(a), mx.nd.array(a), scale=2, sample_type="nearest",
                             num_args=2, multi_input_mode="sum")
    numpy.testing.assert_array_equal(total.asnumpy(), 2 * up_a)
    weight = mx.nd.array(numpy.random.default_rng(0).uniform(size=(2, 1, 4, 4)))
    bilinear = mx.nd.UpSampling(mx.nd.array(a), weight, scale=2, sample_type="bilinear",
                                num_filter=2)
    deconv = mx.nd.Deconvolution(mx.nd.array(a), weight, kernel=(4, 4), stride=(2, 2),
                                 pad=(1, 1), num_filter=2, num_group=2, no_bias=True)
    assert bilinear.shape == (1, 2, 4, 6)
    numpy.testing.assert_allclose(bilinear.asnumpy(), deconv.asnumpy(), rtol=1e-6)
    with pytest.raises(mx.MXNetError, match="does not divide"):
        mx.nd.UpSampling(mx.nd.array(a), mx.nd.ones((1, 1, 5, 6)), scale=2,
                         sample_type="nearest", num_args=2).asnumpy()


@pytest.mark.parametrize("build", [
    lambda v: mx.sym.Concat(v, dim=0),
    lambda v: mx.sym.stack(v, axis=0, num_args=1),
    lambda v: mx.sym.SliceChannel(v, num_outputs=1, axis=0),
])
def test_one_input_join_and_split_differentiate_in_a_bound_graph(build):
    """A join or split of ONE array: its gradient is one piece, not the fields of the graph
    entry (MXNet test_operator::test_concat starts with a one-input Concat)."""
    out = build(mx.sym.Variable("a"))
    grad = mx.nd.zeros((2, 3))
    exe = out._bind(mx.cpu(), args=[mx.nd.ones((2, 3))], args_grad={"a": grad})
    exe.forward(is_train=True)
    head = mx.nd.array(numpy.arange(exe.outputs[0].size, dtype="float32").reshape(
        exe.outputs[0].shape))
    exe.backward([head])
    numpy.testing.assert_array_equal(grad.asnumpy(), head.asnumpy().reshape(2, 3))
