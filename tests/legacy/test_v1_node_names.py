"""MXNet 1.x node names of graphs built from Gluon 1 blocks: RNN cells unrolled on symbols name
each step's output ``<prefix>t<step>_out``; a hybridized block called on ``mx.nd`` arrays traces
nodes named under each block's prefix (``dense_dense0_fwd``), as MXNet 1.x's ``_build_cache``
names them; MXNet 2.0 code (``mx.np``) keeps ``node_<k>``."""
import json
import pathlib
import sys

import numpy
import pytest

import mxlab as mx
from mxlab import gluon

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "oracle"))
from mxnet_oracle import requires_mxnet, run_mxlab, run_mxnet  # noqa: E402

STEPS = ["rnn_t0_out_output", "rnn_t1_out_output", "rnn_t2_out_output"]


def _unrolled(cell):
    inputs = [mx.sym.Variable(f"rnn_t{i}_data") for i in range(3)]
    outputs, _ = cell.unroll(3, inputs)
    return mx.sym.Group(outputs)


@pytest.mark.parametrize("make", [gluon.rnn.RNNCell, gluon.rnn.LSTMCell, gluon.rnn.GRUCell])
def test_cell_steps_are_named_t_out(make):
    outputs = _unrolled(make(8, prefix="rnn_"))
    assert outputs.list_outputs() == STEPS
    _, shapes, _ = outputs.infer_shape(rnn_t0_data=(2, 5), rnn_t1_data=(2, 5),
                                       rnn_t2_data=(2, 5))
    assert shapes == [(2, 8)] * 3


def test_unroll_again_restarts_the_step_count():
    cell = gluon.rnn.LSTMCell(4, prefix="rnn_")
    _unrolled(cell)
    assert _unrolled(cell).list_outputs() == STEPS


def test_lstm_internal_names():
    names = _unrolled(gluon.rnn.LSTMCell(4, prefix="rnn_")).get_internals().list_outputs()
    for suffix in ("i2h", "h2h", "plus0", "i", "f", "c", "o", "state", "out"):
        assert f"rnn_t1_{suffix}_output" in names


def test_stacked_cells_name_the_last_cells_steps():
    stack = gluon.rnn.SequentialRNNCell()
    for i in range(3):
        stack.add(gluon.rnn.LSTMCell(6, prefix=f"rnn_stack{i}_"))
    assert _unrolled(stack).list_outputs() == [n.replace("rnn_", "rnn_stack2_")
                                               for n in STEPS]


def test_conv_and_projected_cells():
    conv = gluon.contrib.rnn.Conv1DGRUCell((3, 10), 4, 3, 3, prefix="rnn_")
    assert _unrolled(conv).list_outputs() == STEPS
    lstmp = gluon.contrib.rnn.LSTMPCell(8, 3, prefix="rnn_")
    outputs = _unrolled(lstmp)
    assert outputs.list_outputs() == STEPS
    _, shapes, _ = outputs.infer_shape(rnn_t0_data=(2, 5), rnn_t1_data=(2, 5),
                                       rnn_t2_data=(2, 5))
    assert shapes == [(2, 3)] * 3


def test_cell_on_arrays_unchanged():
    cell = gluon.rnn.LSTMCell(3, input_size=2)
    cell.initialize(mx.init.Constant(0.1))
    out, states = cell.unroll(2, mx.nd.ones((1, 2, 2)), merge_outputs=True)
    assert out.shape == (1, 2, 3) and states[1].shape == (1, 3)
    # one step by hand: every gate pre-activation is 0.1 * 2 + 0.1 * 0 (h=0), biases zero
    g = 0.2
    c = 1 / (1 + numpy.exp(-g)) * numpy.tanh(g)
    h = 1 / (1 + numpy.exp(-g)) * numpy.tanh(c)
    numpy.testing.assert_allclose(out.asnumpy()[0, 0], [h] * 3, rtol=1e-5)


def test_lstm_bias_initializer_reaches_module():
    stack = gluon.rnn.SequentialRNNCell()
    stack.add(gluon.rnn.LSTMCell(4, i2h_bias_initializer=mx.init.LSTMBias(2.0), prefix="l0_"))
    sym, _ = stack.unroll(1, mx.sym.Variable("data"), merge_outputs=True)
    assert json.loads(sym.attr_dict()["l0_i2h_bias"]["__init__"]) == \
        ["lstmbias", {"forget_bias": 2.0}]
    mod = mx.mod.Module(sym, label_names=None, context=mx.cpu())
    mod.bind(data_shapes=[("data", (2, 1, 3))], label_shapes=None)
    mod.init_params()
    bias = mod.get_params()[0]["l0_i2h_bias"].asnumpy()
    numpy.testing.assert_array_equal(bias, [0] * 4 + [2] * 4 + [0] * 8)


def _hooked_names(model, x):
    seen = []
    model.register_op_hook(lambda name, op, arr: seen.append(name), True)
    model(x)
    return seen


def test_hybridized_gluon1_block_traces_1x_names():
    model = gluon.nn.HybridSequential(prefix="dense_")
    with model.name_scope():
        model.add(gluon.nn.Dense(2))
        model.add(gluon.nn.Activation("relu"))
    model.initialize()
    model.hybridize()
    assert _hooked_names(model, mx.nd.ones((2, 3))) == [
        "dense_dense0_fwd_data", "dense_dense0_fwd_weight", "dense_dense0_fwd_bias",
        "dense_dense0_fwd_output", "dense_relu0_fwd_input0", "dense_relu0_fwd_output"]
    # a second trace (hybridize again) names the same nodes the same way
    model.hybridize(static_alloc=True)
    model(mx.nd.ones((2, 3)))
    assert model.traced_symbol.list_outputs() == ["dense_relu0_fwd_output"]


class _Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = gluon.nn.Dense(3)

    def hybrid_forward(self, F, x):
        return F.concat(F.relu(self.dense(x)), x, dim=1)


def test_export_keeps_1x_names(tmp_path):
    net = _Net(prefix="net_")
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((2, 4)))
    net.export(str(tmp_path / "net"))
    sym = mx.sym.load(str(tmp_path / "net-symbol.json"))
    assert sym.list_outputs() == ["net_concat0_output"]
    assert sym.get_internals().list_outputs() == [
        "data", "net_dense0_weight", "net_dense0_bias", "net_dense0_fwd_output",
        "net_relu0_output", "net_concat0_output"]


def test_numpy_code_keeps_node_names():
    net = gluon.nn.Dense(2)
    net.initialize()
    net.hybridize()
    net(mx.np.ones((2, 3)))
    nodes = [n for n in net.traced_symbol.get_internals().list_outputs()
             if n.endswith("_output")]
    assert nodes and all(n.startswith("node_") for n in nodes)


_ORACLE = """
g = mx.gluon
names = []
for make in (g.rnn.RNNCell, g.rnn.LSTMCell, g.rnn.GRUCell):
    cell = make(8, prefix='rnn_')
    out, _ = cell.unroll(3, [mx.sym.Variable('rnn_t%d_data' % i) for i in range(3)])
    names += mx.sym.Group(out).list_outputs()
model = g.nn.HybridSequential(prefix='dense_')
with model.name_scope():
    model.add(g.nn.Dense(2))
    model.add(g.nn.Activation('relu'))
model.initialize()
model.hybridize()
model.register_op_hook(lambda name, op, arr: names.append(
    name if isinstance(name, str) else name.decode()), True)
model(mx.nd.ones((2, 3)))
outputs['names'] = np.array(names)
"""


@pytest.mark.oracle
@requires_mxnet
def test_names_match_mxnet_191():
    ours = run_mxlab(_ORACLE, {})["names"].tolist()
    theirs = run_mxnet(_ORACLE, {})["names"].tolist()
    assert ours == theirs
    assert len(ours) == 15


def test_model_zoo_resnet_has_1x_node_names_and_structural_params():
    net = gluon.model_zoo.vision.resnet18_v1()
    assert net.prefix.startswith("resnetv1")
    names = net(mx.sym.var("data")).get_internals().list_outputs()
    for name in ("conv0_fwd_output", "stage1_conv0_fwd_output", "stage1_relu0_fwd_output",
                 "stage1_activation0_output", "stage4_activation1_output", "dense0_fwd_output"):
        assert net.prefix + name in names
    assert list(net.collect_params())[:2] == ["features.0.weight", "features.1.gamma"]


class _Features(gluon.HybridBlock):
    """A 1.x feature extractor: a SymbolBlock over a zoo model's internals (GluonCV's idiom)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            backbone = gluon.model_zoo.vision.resnet18_v1(classes=4, thumbnail=True)
            data = mx.sym.var("data")
            internals = backbone(data).get_internals()
            outs = internals[backbone.name + "_stage2_activation0_output"]
            self.backbone = gluon.SymbolBlock(outs, data, params=backbone.collect_params())
            self.body = gluon.nn.Conv2D(3, 1)

    def hybrid_forward(self, F, x):
        return self.backbone(self.body(x))


def test_symbol_block_over_zoo_internals_saves_and_loads(tmp_path):
    first = _Features()
    first.initialize(mx.init.Normal())
    first.hybridize()
    x = mx.nd.random.normal(shape=(1, 3, 16, 16))
    expected = first(x).asnumpy()
    assert expected.shape == (1, 128, 8, 8)
    first.save_parameters(str(tmp_path / "f.params"))
    saved = mx.nd.load(str(tmp_path / "f.params"))
    assert "backbone.conv0_weight" in saved   # NOTE: 1.x's name, less the common prefix
    second = _Features()   # other block counters: net1_ instead of net0_
    second.load_parameters(str(tmp_path / "f.params"))
    numpy.testing.assert_allclose(second(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)
