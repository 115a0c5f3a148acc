"""Layers and losses against NumPy formulas (MXNet's definitions), nd and np flavours."""
import math

import numpy
import pytest

import mxlab as mx
from mxlab import autograd, gluon
from mxlab.gluon import nn

RNG = numpy.random.default_rng(0)


def host(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape).astype("float32")


def initialized(block, x):
    block.initialize()
    block(x)
    return block


def test_dense_matches_numpy_and_keeps_flavour():
    x = host(2, 3, 4)
    for array in (mx.nd.array, mx.np.array):
        net = initialized(nn.Dense(5, activation="relu"), array(x))
        out = net(array(x))
        assert type(out) is type(array(x))
        w, b = net.weight.data().asnumpy(), net.bias.data().asnumpy()
        numpy.testing.assert_allclose(out.asnumpy(), numpy.maximum(x.reshape(2, 12) @ w.T + b, 0),
                                      rtol=1e-5, atol=1e-6)
    net = initialized(nn.Dense(5, flatten=False, use_bias=False), mx.nd.array(x))
    assert net.weight.shape == (5, 4) and net.bias is None
    assert net(mx.nd.array(x)).shape == (2, 3, 5)


def test_conv_family_shapes():
    x2 = mx.nd.array(host(1, 4, 9, 9))
    cases = [
        (nn.Conv1D(3, 3, strides=2), mx.nd.array(host(1, 4, 9)), (1, 3, 4), (3, 4, 3)),
        (nn.Conv2D(6, (3, 2), padding=1, groups=2), x2, (1, 6, 9, 10), (6, 2, 3, 2)),
        (nn.Conv3D(2, 2), mx.nd.array(host(1, 4, 3, 3, 3)), (1, 2, 2, 2, 2), (2, 4, 2, 2, 2)),
        (nn.Conv2DTranspose(3, 3, strides=2), x2, (1, 3, 19, 19), (4, 3, 3, 3)),
    ]
    for layer, x, out_shape, weight_shape in cases:
        out = initialized(layer, x)(x)
        assert out.shape == out_shape and layer.weight.shape == weight_shape, layer


def test_conv2d_matches_direct_correlation():
    x, layer = host(1, 2, 5, 5), nn.Conv2D(1, 3, use_bias=False)
    out = initialized(layer, mx.nd.array(x))(mx.nd.array(x)).asnumpy()
    w = layer.weight.data().asnumpy()
    expected = numpy.array([[(x[0, :, i:i + 3, j:j + 3] * w[0]).sum() for j in range(3)]
                            for i in range(3)])
    numpy.testing.assert_allclose(out[0, 0], expected, rtol=1e-5, atol=1e-6)


def test_pooling_layers():
    x = host(1, 2, 4, 4)
    nd = mx.nd.array(x)
    blocks = x.reshape(1, 2, 2, 2, 2, 2)
    numpy.testing.assert_allclose(nn.MaxPool2D()(nd).asnumpy(), blocks.max(axis=(3, 5)))
    numpy.testing.assert_allclose(nn.AvgPool2D()(nd).asnumpy(), blocks.mean(axis=(3, 5)),
                                  rtol=1e-6)
    numpy.testing.assert_allclose(nn.GlobalAvgPool2D()(nd).asnumpy(),
                                  x.mean(axis=(2, 3), keepdims=True), rtol=1e-6)
    numpy.testing.assert_allclose(nn.GlobalMaxPool2D()(nd).asnumpy(),
                                  x.max(axis=(2, 3), keepdims=True))
    x1 = mx.nd.array(x[:, :, 0])
    numpy.testing.assert_allclose(nn.MaxPool1D()(x1).asnumpy(),
                                  x[:, :, 0].reshape(1, 2, 2, 2).max(axis=3))
    numpy.testing.assert_allclose(nn.AvgPool1D()(x1).asnumpy(),
                                  x[:, :, 0].reshape(1, 2, 2, 2).mean(axis=3), rtol=1e-6)
    assert nn.GlobalAvgPool1D()(x1).shape == (1, 2, 1)
    assert nn.GlobalMaxPool1D()(x1).shape == (1, 2, 1)
    assert nn.MaxPool2D(3, 2, ceil_mode=True)(mx.nd.array(host(1, 1, 6, 6))).shape == (1, 1, 3, 3)


def _normalized(x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    return (x - mean) / numpy.sqrt(x.var(axis=axes, keepdims=True) + eps)


def test_normalisation_layers():
    x = host(2, 4, 3, 3)
    nd = mx.nd.array(x)
    with autograd.record():
        bn = initialized(nn.BatchNorm(), nd)(nd)
    numpy.testing.assert_allclose(bn.asnumpy(), _normalized(x, (0, 2, 3), 1e-5), rtol=1e-4,
                                  atol=1e-4)
    numpy.testing.assert_allclose(initialized(nn.LayerNorm(), nd)(nd).asnumpy(),
                                  _normalized(x, (3,), 1e-5), rtol=1e-4, atol=1e-4)
    numpy.testing.assert_allclose(initialized(nn.InstanceNorm(), nd)(nd).asnumpy(),
                                  _normalized(x, (2, 3), 1e-5), rtol=1e-4, atol=1e-4)
    grouped = _normalized(x.reshape(2, 2, 18), (2,), 1e-5).reshape(x.shape)
    numpy.testing.assert_allclose(initialized(nn.GroupNorm(2), nd)(nd).asnumpy(), grouped,
                                  rtol=1e-4, atol=1e-4)


def test_batchnorm_running_stats_update_only_when_training():
    x = mx.nd.array(host(4, 3))
    bn = nn.BatchNorm(in_channels=3, momentum=0.5)
    bn.initialize()
    bn(x)  # inference: uses (and keeps) the running statistics
    numpy.testing.assert_array_equal(bn.running_mean.data().asnumpy(), numpy.zeros(3))
    with autograd.record():
        bn(x)
    numpy.testing.assert_allclose(bn.running_mean.data().asnumpy(),
                                  0.5 * x.asnumpy().mean(axis=0), rtol=1e-5, atol=1e-6)


def test_dropout_embedding_flatten_identity_lambdas():
    x = mx.nd.ones((100, 10))
    numpy.testing.assert_array_equal(nn.Dropout(0.5)(x).asnumpy(), x.asnumpy())
    with autograd.train_mode():
        dropped = nn.Dropout(0.5)(x).asnumpy()
    assert set(numpy.unique(dropped)) <= {0.0, 2.0} and 0.3 < (dropped == 0).mean() < 0.7
    emb = nn.Embedding(5, 3)
    emb.initialize()
    idx = mx.nd.array([[0, 4], [2, 2]])
    numpy.testing.assert_array_equal(emb(idx).asnumpy(),
                                     emb.weight.data().asnumpy()[[[0, 4], [2, 2]]])
    assert nn.Flatten()(mx.nd.ones((2, 3, 4))).shape == (2, 12)
    assert nn.Identity()(x) is x
    numpy.testing.assert_allclose(nn.Lambda("tanh")(x).asnumpy(), numpy.tanh(x.asnumpy()))
    hl = nn.HybridLambda(lambda F, a: F.relu(a) * 2)
    numpy.testing.assert_array_equal(hl(mx.nd.array([-1.0, 3.0])).asnumpy(), [0.0, 6.0])


def test_hybrid_lambda_takes_F_as_its_generation_does():
    """MXNet 1.x passes F to the function, 2.0 does not: 2.0 code (mx.np arrays, a function
    without an ``F`` parameter) gets the array first; an op name on mx.np arrays stays mx.np."""
    x = mx.np.array([-1.0, 3.0])
    two = nn.HybridLambda(lambda a, *args: mx.npx.leaky_relu(a, *args, slope=0.1))
    numpy.testing.assert_allclose(two(x).asnumpy(), [-0.1, 3.0], rtol=1e-6)
    one = nn.HybridLambda(lambda F, a: F.relu(a))
    numpy.testing.assert_array_equal(one(x).asnumpy(), [0.0, 3.0])
    named = nn.HybridLambda("tanh")(x)
    assert isinstance(named, mx.np.ndarray)
    numpy.testing.assert_allclose(named.asnumpy(), numpy.tanh([-1.0, 3.0]), rtol=1e-6)
    legacy = nn.HybridLambda(lambda G, a: G.relu(a))   # 1.x code on mx.nd arrays gets F
    assert legacy(mx.nd.array([-1.0, 2.0])).asnumpy().tolist() == [0.0, 2.0]


ACTIVATIONS = [
    (nn.Activation("relu"), lambda x: numpy.maximum(x, 0)),
    (nn.Activation("sigmoid"), lambda x: 1 / (1 + numpy.exp(-x))),
    (nn.Activation("tanh"), numpy.tanh),
    (nn.Activation("softrelu"), lambda x: numpy.log1p(numpy.exp(x))),
    (nn.LeakyReLU(0.1), lambda x: numpy.where(x > 0, x, 0.1 * x)),
    (nn.ELU(), lambda x: numpy.where(x > 0, x, numpy.expm1(x))),
    (nn.SELU(), lambda x: 1.0507009873554805 * numpy.where(
        x > 0, x, 1.6732632423543772 * numpy.expm1(x))),
    (nn.GELU(), lambda x: 0.5 * x * (1 + numpy.vectorize(math.erf)(x / math.sqrt(2)))),
    (nn.Swish(), lambda x: x / (1 + numpy.exp(-x))),
]


@pytest.mark.parametrize("layer,formula", ACTIVATIONS, ids=lambda v: getattr(v, "_act_type",
                                                                              type(v).__name__))
def test_activations(layer, formula):
    x = host(3, 4, low=-3, high=3)
    numpy.testing.assert_allclose(layer(mx.nd.array(x)).asnumpy(), formula(x), rtol=1e-4,
                                  atol=1e-5)


def test_prelu_learns_its_slope():
    layer = nn.PReLU()
    layer.initialize()
    x = mx.nd.array([[-2.0, 1.0]])
    with autograd.record():
        out = layer(x)
    out.backward()
    numpy.testing.assert_allclose(out.asnumpy(), [[-0.5, 1.0]])
    numpy.testing.assert_allclose(layer.alpha.grad().asnumpy(), [-2.0])


# -- losses --------------------------------------------------------------------------------------
def _log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - numpy.log(numpy.exp(shifted).sum(axis=axis, keepdims=True))


def _mean_but_first(x):
    return x.reshape(x.shape[0], -1).mean(axis=1)


def test_regression_losses():
    pred, label = host(4, 3), host(4, 3)
    diff = label - pred
    loss = gluon.loss
    cases = [
        (loss.L2Loss(), 0.5 * diff ** 2),
        (loss.L2Loss(weight=3.0), 1.5 * diff ** 2),
        (loss.L1Loss(), numpy.abs(diff)),
        (loss.HuberLoss(rho=0.5), numpy.where(numpy.abs(diff) > 0.5, numpy.abs(diff) - 0.25,
                                              diff ** 2)),
    ]
    for block, expected in cases:
        out = block(mx.nd.array(pred), mx.nd.array(label)).asnumpy()
        numpy.testing.assert_allclose(out, _mean_but_first(expected), rtol=1e-5, atol=1e-6)


def test_sample_weight_and_batch_axis():
    pred, label, weight = host(4, 3), host(4, 3), host(4, 1, low=0, high=1)
    out = gluon.loss.L1Loss()(mx.nd.array(pred), mx.nd.array(label), mx.nd.array(weight))
    numpy.testing.assert_allclose(out.asnumpy(),
                                  _mean_but_first(numpy.abs(label - pred) * weight), rtol=1e-5)
    out = gluon.loss.L1Loss(batch_axis=1)(mx.nd.array(pred), mx.nd.array(label))
    numpy.testing.assert_allclose(out.asnumpy(), numpy.abs(label - pred).mean(axis=0), rtol=1e-5)


def test_softmax_cross_entropy_variants():
    pred = host(4, 5, low=-3, high=3)
    sparse = numpy.array([0, 3, 1, 4])
    dense = numpy.eye(5, dtype="float32")[sparse]
    expected = -_log_softmax(pred)[numpy.arange(4), sparse]
    sce = gluon.loss.SoftmaxCrossEntropyLoss()
    numpy.testing.assert_allclose(sce(mx.nd.array(pred), mx.nd.array(sparse)).asnumpy(),
                                  expected, rtol=1e-5)
    dense_loss = gluon.loss.SoftmaxCrossEntropyLoss(sparse_label=False)
    numpy.testing.assert_allclose(dense_loss(mx.nd.array(pred), mx.nd.array(dense)).asnumpy(),
                                  expected, rtol=1e-5)
    logits = gluon.loss.SoftmaxCrossEntropyLoss(from_logits=True)
    numpy.testing.assert_allclose(logits(mx.nd.array(pred), mx.nd.array(sparse)).asnumpy(),
                                  -pred[numpy.arange(4), sparse], rtol=1e-6)
    axis0 = gluon.loss.SoftmaxCrossEntropyLoss(axis=0, batch_axis=1)
    numpy.testing.assert_allclose(
        axis0(mx.nd.array(pred.T), mx.nd.array(sparse)).asnumpy(), expected, rtol=1e-5)


def test_sigmoid_bce_and_kl_div():
    pred, label = host(4, 3, low=-4, high=4), (host(4, 3) > 0).astype("float32")
    prob = 1 / (1 + numpy.exp(-pred))
    expected = -(label * numpy.log(prob) + (1 - label) * numpy.log(1 - prob))
    bce = gluon.loss.SigmoidBinaryCrossEntropyLoss()
    numpy.testing.assert_allclose(bce(mx.nd.array(pred), mx.nd.array(label)).asnumpy(),
                                  _mean_but_first(expected), rtol=1e-5)
    from_sigmoid = gluon.loss.SigmoidBCELoss(from_sigmoid=True)
    numpy.testing.assert_allclose(from_sigmoid(mx.nd.array(prob), mx.nd.array(label)).asnumpy(),
                                  _mean_but_first(expected), rtol=1e-4)
    target = numpy.exp(_log_softmax(host(4, 3)))
    kl = gluon.loss.KLDivLoss(from_logits=False)
    expected = target * (numpy.log(target + 1e-12) - _log_softmax(pred))
    numpy.testing.assert_allclose(kl(mx.nd.array(pred), mx.nd.array(target)).asnumpy(),
                                  expected.sum(axis=1), rtol=1e-5, atol=1e-6)


def test_losses_hybridize_to_the_same_values():
    pred, label = mx.nd.array(host(4, 5)), mx.nd.array([0, 1, 2, 3])
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    expected = loss(pred, label).asnumpy()
    loss.hybridize()
    numpy.testing.assert_allclose(loss(pred, label).asnumpy(), expected, rtol=1e-6)


def test_unknown_dims_are_minus_one_under_numpy_semantics():
    # as MXNet 1.9.1 and 2.0 (D2L's lazy-init section prints (256, -1) and Dense(-1 -> 256, ...))
    net = nn.Dense(256)
    net.initialize()
    assert net.weight.shape == (256, 0) and repr(net).startswith("Dense(None -> 256")
    with mx.util.np_shape(True):
        assert net.weight.shape == (256, -1) and repr(net).startswith("Dense(-1 -> 256")
        assert "shape=(256, -1)" in repr(net.weight)
        from mxlab.gluon.block_io import _size
        assert _size(net.weight.shape) == 0   # NOTE: summary counts an unknown dim as 0
    mx.npx.set_np()
    try:
        net = nn.Dense(4)
        net.initialize()
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
        with autograd.record():
            loss = net(mx.np.ones((2, 3))).sum()
        loss.backward()
        trainer.step(2)
        assert net.weight.shape == (4, 3)
    finally:
        mx.npx.reset_np()


@pytest.mark.parametrize("hybridize", [False, True])
def test_an_input_that_does_not_fit_known_parameters_is_an_assertion(hybridize):
    """MXNet 2.0 runs a block's own infer_shape on its first call even when every shape is
    known: LayerNorm(in_channels=10) on 11 channels asserts, naming the parameter."""
    layer = nn.LayerNorm(in_channels=10)
    layer.initialize()
    if hybridize:
        layer.hybridize()
    with pytest.raises(AssertionError, match="incompatible.*gamma") as info:
        layer(mx.np.ones((2, 11)))
    assert isinstance(info.value, ValueError)
    fits = nn.LayerNorm(in_channels=11)
    fits.initialize()
    assert fits(mx.np.ones((2, 11))).shape == (2, 11)


def test_an_unknown_parameter_storage_type_is_an_assertion():
    for key in ("stype", "grad_stype"):
        with pytest.raises(AssertionError, match=f"Invalid {key} 'invalid'"):
            gluon.Parameter("weight", shape=(10, 10), **{key: "invalid"})


def test_a_symbol_block_refuses_a_row_sparse_parameter():
    data = mx.sym.var("data")
    weight = mx.sym.var("weight", stype="row_sparse")
    out = mx.sym.broadcast_add(mx.sym.dot(data, weight), mx.sym.var("bias"))
    with pytest.raises(AssertionError, match="'weight'.*row_sparse"):
        gluon.SymbolBlock(out, data)


def test_hybrid_block_inputs_follow_mxnet_2():
    """At least one array (ValueError otherwise), no symbols mixed with arrays (TypeError), and
    a trailing None runs on the graph cached without it (a default argument)."""
    class Either(gluon.HybridBlock):
        def forward(self, a, b=None):
            return a if b is None else a + b

    for hybridize in (False, True):
        block = Either()
        if hybridize:
            block.hybridize()
        with pytest.raises(ValueError, match="one NDArray"):
            block(None, None)
        with pytest.raises(TypeError, match="mix"):
            block(mx.np.ones((2,)), mx.sym.var("a"))
        assert block(mx.np.ones((2,))).asnumpy().tolist() == [1.0, 1.0]
        assert block(mx.np.ones((2,)), None).asnumpy().tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="does not match the cached"):
        block(mx.np.ones((2,)), mx.np.ones((2,)))
