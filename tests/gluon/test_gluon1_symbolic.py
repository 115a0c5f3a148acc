"""Gluon 1 blocks called with Symbols compose graphs with MXNet 1.x's names, and those graphs run
inside other blocks (GluonCV's feature extractors: internals picked by name, a SymbolBlock over
them, hybridized inside the detector)."""
import numpy
import pytest

import mxlab as mx
from mxlab import gluon
from mxlab.gluon import nn

# NOTE: what MXNet 1.9.1 lists for these layers (tests/oracle compares with it live).
MXNET_1_9_1_NAMES = [
    "data", "net_conv0_weight", "net_conv0_bias", "net_conv0_fwd_output",
    "net_conv0_relu_fwd_output", "net_batchnorm0_gamma", "net_batchnorm0_beta",
    "net_batchnorm0_running_mean", "net_batchnorm0_running_var", "net_batchnorm0_fwd_output",
    "net_pool0_fwd_output", "net_relu0_fwd_output", "net_leakyrelu0_fwd_output",
    "net_flatten0_flatten0_output", "net_dense0_weight", "net_dense0_bias",
    "net_dense0_fwd_output", "net_dense0_relu_fwd_output", "net_dropout0_fwd_output",
    "net_dense1_weight", "net_dense1_bias", "net_dense1_fwd_output", "net_elu0_leakyrelu0_output"]


def test_symbolic_call_names_nodes_and_parameters_as_mxnet_1x():
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, activation="relu"), nn.BatchNorm(), nn.MaxPool2D(),
                nn.Activation("relu"), nn.LeakyReLU(0.1), nn.Flatten(),
                nn.Dense(4, activation="relu"), nn.Dropout(0.5), nn.Dense(2), nn.ELU())
    assert net(mx.sym.var("data")).get_internals().list_outputs() == MXNET_1_9_1_NAMES


def _backbone(prefix="backbone_"):
    net = nn.HybridSequential(prefix=prefix)
    with net.name_scope():
        net.add(nn.Dense(6, activation="relu", in_units=7),
                nn.Dense(5, activation="tanh", in_units=6), nn.Dense(3, in_units=5))
    net.initialize(mx.init.Xavier())
    return net


def _feature_block(net):
    """GluonCV's FeatureExpander in small: an internal picked by its 1.x name, over the whole
    backbone's parameters (the unused classifier included, which 1.x allows)."""
    data = mx.sym.var("data")
    internals = net(data).get_internals()
    feature = internals[net.prefix + "dense1_tanh_fwd_output"]
    return gluon.SymbolBlock(feature, data, params=net.collect_params())


def test_symbol_block_over_picked_internals_shares_the_backbone_parameters():
    net = _backbone()
    block = _feature_block(net)
    x = mx.nd.array(numpy.random.default_rng(0).standard_normal((2, 7)))
    first = net[0](x)
    expected = net[1](first).asnumpy()
    numpy.testing.assert_allclose(block(x).asnumpy(), expected, rtol=1e-6)
    assert block.collect_params()["backbone_dense0_weight"] is net[0].weight


class _Detector(gluon.HybridBlock):
    def __init__(self, features):
        super().__init__()
        with self.name_scope():
            self.features = features
            self.head = nn.Dense(2)

    def hybrid_forward(self, F, x):
        return self.head(self.features(x))


@pytest.mark.parametrize("flags", [{}, {"static_alloc": True, "static_shape": True}])
def test_symbol_block_inside_a_hybridized_gluon1_block_matches_eager(flags):
    net = _Detector(_feature_block(_backbone("detector_backbone_")))
    net.head.initialize()
    x = mx.nd.array(numpy.random.default_rng(1).standard_normal((3, 7)))
    with mx.autograd.record():
        eager = net(x)
    eager.backward()
    weight = net.features.collect_params()["detector_backbone_dense0_weight"]
    eager_grad = weight.grad().asnumpy()
    net.hybridize(**flags)
    with mx.autograd.record():
        hybrid = net(x)
    hybrid.backward()
    numpy.testing.assert_array_equal(hybrid.asnumpy(), eager.asnumpy())
    grad = weight.grad().asnumpy()
    numpy.testing.assert_allclose(grad, eager_grad, rtol=1e-6)


def test_unused_parameters_are_refused_for_mx_np_graphs_as_in_mxnet_2():
    net = _backbone()
    data = mx.sym.var("data").as_np_ndarray()
    only_first = mx.sym.np.dot(data, mx.sym.var("backbone_dense0_weight").as_np_ndarray())
    with pytest.raises(ValueError, match="unused by the model"):
        gluon.SymbolBlock(only_first, data, params=net.collect_params())


def test_an_initializer_given_as_op_attribute_is_kept_as_its_json():
    conv = mx.sym.Convolution(mx.sym.var("x"), num_filter=2, kernel=(1, 1), name="c",
                              attr={"__init__": mx.init.Xavier(magnitude=1.0)})
    stored = conv.attr_dict()["c_weight"]["__init__"]
    assert stored == mx.init.Xavier(magnitude=1.0).dumps()
    with pytest.raises(ValueError, match="only accepts string"):
        conv._set_attr(__init__=mx.init.Xavier())


def test_name_scope_prefixes_symbols_made_inside_and_empty_prefix_opens_none():
    net = nn.HybridSequential(prefix="outer_")
    with net.name_scope():
        conv = mx.sym.Convolution(mx.sym.var("x"), num_filter=2, kernel=(1, 1), name="expand")
        inner = nn.HybridSequential(prefix="")
        with inner.name_scope():
            inner.add(nn.Dense(2))
        with net.name_scope():   # NOTE: one scope per block, counters carry over
            pass
        net.add(inner, nn.Dense(3))
    assert conv.name == "outer_expand"
    assert [c.prefix for c in inner._children.values()] == ["outer_dense0_"]
    assert list(net._children.values())[1].prefix == "outer_dense1_"


def test_mxnet_1x_checkpoint_keys_of_a_symbol_block_load(tmp_path):
    """MXNet 1.x keys a SymbolBlock's parameters less their common prefix, character-wise, in
    save_parameters (GluonCV's SSD files: ``features.mobilenet0_conv0_weight``); these are the
    keys MXNet 1.9.1 gives this block."""
    net = _backbone("checkpoint_backbone_")
    block = _feature_block(net)
    keys = list(block._collect_params_with_prefix(legacy=True))
    assert keys == ["0_weight", "0_bias", "1_weight", "1_bias"]
    values = {k: mx.nd.full(p.shape, i) for i, (k, p) in
              enumerate(block._collect_params_with_prefix(legacy=True).items())}
    mx.nd.save(str(tmp_path / "legacy.params"), values)
    block.load_parameters(str(tmp_path / "legacy.params"))
    assert float(net[1].weight.data().asnumpy()[0, 0]) == 2.0


class _ModeBranch(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x * 2 if mx.autograd.is_training() else x


@pytest.mark.parametrize("array, expected", [(mx.nd.ones, 2.0), (mx.np.ones, 1.0)])
def test_tracing_keeps_the_callers_training_mode_for_mx_nd(array, expected):
    """MXNet 1.x composed a hybridized block in the caller's mode (GluonCV's SSD returns its
    training outputs under train_mode); MXNet 2.0 traces in predict mode."""
    net = _ModeBranch()
    net.hybridize()
    with mx.autograd.train_mode():
        out = net(array((2,)))
    assert float(out.asnumpy()[0]) == expected


class _Unit(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type="relu")


def test_prefix_empty_blocks_count_their_ops_in_the_enclosing_scope():
    """GluonCV's ResNet stages hold prefix='' blocks; their ops are counted in the stage's scope
    (``resnetv10_stage3_activation1``, picked by SSD-512), as MXNet 1.9.1 names them."""
    stage = nn.HybridSequential(prefix="stage_")
    with stage.name_scope():
        stage.add(_Unit(prefix=""), _Unit(prefix=""))
    names = stage(mx.sym.var("data")).get_internals().list_outputs()
    assert names == ["data", "stage_activation0_output", "stage_activation1_output"]
