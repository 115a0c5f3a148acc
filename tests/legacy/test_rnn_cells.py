"""mx.rnn's symbolic cells: the unrolled stepping cells compute what the fused RNN op computes
(values and gradients, through unpack_weights/pack_weights), names and weight layouts."""
import json

import numpy as np
import pytest

import mxlab as mx

T, N, IN, H = 3, 2, 4, 5


def _bind(sym, args):
    exe = sym.simple_bind(mx.cpu(), data=(T, N, IN))
    for name, value in args.items():
        exe.arg_dict[name][:] = value
    return exe


def _run(sym, args, head):
    exe = _bind(sym, args)
    exe.forward(is_train=True)
    exe.backward([mx.nd.array(head)])
    return exe.outputs[0].asnumpy(), {k: v.asnumpy() for k, v in exe.grad_dict.items()}


@pytest.mark.parametrize("mode,layers,bidirectional", [
    ("lstm", 1, False), ("gru", 2, False), ("lstm", 2, True), ("rnn_tanh", 1, True),
])
def test_unrolled_cells_match_the_fused_op(mode, layers, bidirectional):
    fused = mx.rnn.FusedRNNCell(H, num_layers=layers, mode=mode, bidirectional=bidirectional,
                                prefix="f_")
    stack = fused.unfuse()
    data = mx.sym.Variable("data")
    fused_sym = fused.unroll(T, data, layout="TNC", merge_outputs=True)[0]
    stack_sym = stack.unroll(T, data, layout="TNC", merge_outputs=True)[0]
    rng = np.random.RandomState(0)
    size = fused_sym.infer_shape(data=(T, N, IN))[0][1][0]
    flat = mx.nd.array(rng.uniform(-0.5, 0.5, size))
    x = rng.uniform(-1, 1, (T, N, IN))
    unpacked = fused.unpack_weights({"f_parameters": flat})
    stack_args = stack.pack_weights(unpacked)
    assert sorted(stack_args) == sorted(n for n in stack_sym.list_arguments() if n != "data")
    out_f, grad_f = _run(fused_sym, {"data": x, "f_parameters": flat}, np.ones((T, N, 2 * H
                                                                                if bidirectional
                                                                                else H)))
    head = np.ones(out_f.shape)
    out_s, grad_s = _run(stack_sym, dict(stack_args, data=x), head)
    np.testing.assert_allclose(out_s, out_f, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grad_s["data"], grad_f["data"], rtol=1e-4, atol=1e-6)
    stack_grads = {k: mx.nd.array(v) for k, v in grad_s.items() if k != "data"}
    packed = fused.pack_weights(stack.unpack_weights(stack_grads))
    np.testing.assert_allclose(packed["f_parameters"].asnumpy(), grad_f["f_parameters"],
                               rtol=1e-4, atol=1e-6)


def test_unpack_pack_round_trip():
    cell = mx.rnn.LSTMCell(H, prefix="lstm_")
    rng = np.random.RandomState(1)
    args = {"lstm_i2h_weight": mx.nd.array(rng.rand(4 * H, IN)),
            "lstm_i2h_bias": mx.nd.array(rng.rand(4 * H)),
            "lstm_h2h_weight": mx.nd.array(rng.rand(4 * H, H)),
            "lstm_h2h_bias": mx.nd.array(rng.rand(4 * H)), "other": mx.nd.ones((1,))}
    unpacked = cell.unpack_weights(args)
    assert "lstm_i2h_f_weight" in unpacked and "lstm_i2h_weight" not in unpacked
    np.testing.assert_array_equal(unpacked["lstm_h2h_c_bias"].asnumpy(),
                                  args["lstm_h2h_bias"].asnumpy()[2 * H:3 * H])
    packed = cell.pack_weights(unpacked)
    assert sorted(packed) == sorted(args)
    for name, value in args.items():
        np.testing.assert_array_equal(packed[name].asnumpy(), value.asnumpy())


def test_fused_unpack_names_and_round_trip():
    fused = mx.rnn.FusedRNNCell(H, num_layers=2, mode="gru", bidirectional=True, prefix="g_")
    size = fused.unroll(T, mx.sym.Variable("data"), layout="TNC")[0] \
        .infer_shape(data=(T, N, IN))[0][1][0]
    flat = mx.nd.array(np.arange(size, dtype=np.float32))
    unpacked = fused.unpack_weights({"g_parameters": flat})
    assert unpacked["g_r1_i2h_z_weight"].shape == (H, 2 * H)
    assert unpacked["g_l0_h2h_o_bias"].shape == (H,)
    np.testing.assert_array_equal(fused.pack_weights(unpacked)["g_parameters"].asnumpy(),
                                  flat.asnumpy())


def test_fused_rnn_initializer_sets_forget_bias_per_gate():
    fused = mx.rnn.FusedRNNCell(H, mode="lstm", forget_bias=3.0, prefix="l_")
    arr = mx.nd.zeros((4 * H * (IN + H + 2),))
    init = mx.init.FusedRNN(mx.init.Constant(0.5), H, 1, "lstm", forget_bias=3.0)
    mx.init.Uniform()(mx.init.InitDesc("l_parameters", {"__init__": init.dumps()}), arr)
    args = fused.unpack_weights({"l_parameters": arr})
    np.testing.assert_array_equal(args["l_l0_i2h_f_bias"].asnumpy(), np.full(H, 3.0))
    np.testing.assert_array_equal(args["l_l0_h2h_i_bias"].asnumpy(), np.zeros(H))
    np.testing.assert_array_equal(args["l_l0_h2h_c_weight"].asnumpy(), np.full((H, H), 0.5))


def test_begin_state_batch_is_inferred_and_eval_sizes_it():
    cell = mx.rnn.GRUCell(H, prefix="gru_")
    out, _ = cell.unroll(2, mx.sym.Variable("data"), merge_outputs=True)
    assert out.infer_shape(data=(N, 2, IN))[1] == [(N, 2, H)]
    args = {"data": mx.nd.ones((N, 2, IN)), "gru_i2h_weight": mx.nd.zeros((3 * H, IN)),
            "gru_i2h_bias": mx.nd.zeros((3 * H,)), "gru_h2h_weight": mx.nd.zeros((3 * H, H)),
            "gru_h2h_bias": mx.nd.zeros((3 * H,))}
    assert out.eval(**args)[0].shape == (N, 2, H)


def test_modifier_cells_guard_their_base():
    base = mx.rnn.LSTMCell(H, prefix="b_")
    cell = mx.rnn.ZoneoutCell(base, zoneout_states=0.3)
    with pytest.raises(ValueError, match="modifier"):
        base.begin_state()
    assert len(cell.begin_state()) == 2
    with pytest.raises(ValueError, match="unfuse"):
        mx.rnn.ZoneoutCell(mx.rnn.FusedRNNCell(H))
    with pytest.raises(NotImplementedError, match="stepped"):
        mx.rnn.FusedRNNCell(H)(mx.sym.Variable("x"), [])


def test_bidirectional_merged_output_names_and_shapes():
    cell = mx.rnn.BidirectionalCell(mx.rnn.RNNCell(H, prefix="l_"), mx.rnn.RNNCell(H, prefix="r_"),
                                    output_prefix="bi_")
    out, states = cell.unroll(3, mx.sym.Variable("data"), merge_outputs=True)
    assert out.list_outputs() == ["bi_out_output"]
    assert out.infer_shape(data=(N, 3, IN))[1] == [(N, 3, 2 * H)]
    assert len(states) == 2


def test_conv_cell_state_shape_comes_from_the_i2h_convolution():
    cell = mx.rnn.ConvLSTMCell((2, 3, 8, 6), 4, i2h_kernel=(3, 3), i2h_pad=(0, 0), prefix="c_")
    assert cell.state_shape == [(0, 4, 6, 4), (0, 4, 6, 4)]
    out, _ = cell.unroll(2, [mx.sym.Variable("a"), mx.sym.Variable("b")])
    assert mx.sym.Group(out).infer_shape(a=(2, 3, 8, 6), b=(2, 3, 8, 6))[1] == [(2, 4, 6, 4)] * 2


def test_zoneout_where_fills_the_unknown_previous_output():
    cell = mx.rnn.ZoneoutCell(mx.rnn.RNNCell(H, prefix="z_"), zoneout_outputs=0.5)
    out, _ = cell.unroll(2, mx.sym.Variable("data"), merge_outputs=True)
    assert out.infer_shape(data=(N, 2, IN))[1] == [(N, 2, H)]
    w = mx.sym.where(mx.sym.var("c"), mx.sym.var("x"), mx.sym.var("y"))
    assert w.infer_shape_partial(c=(3, 2), x=(3, 0))[0] == [(3, 2), (3, 0), (3, 0)]
    assert w.infer_shape_partial(c=(3, 2), y=(3, 2))[0][1] == (3, 2)


def test_symbol_arithmetic_is_saved_under_mxnet_1x_names():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    ops = [n["op"] for n in json.loads((a + b).tojson())["nodes"]]
    assert ops == ["null", "null", "elemwise_add"]
    ops = [n["op"] for n in json.loads(mx.sym.broadcast_add(a, b).tojson())["nodes"]]
    assert ops[-1] == "broadcast_add"
    loaded = mx.sym.load_json((a * b).tojson())
    assert json.loads(loaded.tojson())["nodes"][-1]["op"] == "elemwise_mul"
    zeros = json.loads(mx.sym.zeros((0, 3)).tojson())["nodes"][0]
    assert zeros["op"] == "_zeros" and zeros["attrs"]["shape"] == "(0, 3)"
    with mx.np_shape(True):
        assert mx.sym.zeros((0, 3)).infer_shape()[1] == [(0, 3)]
    assert mx.sym.zeros((0, 3)).infer_shape_partial()[1] == [(0, 3)]


def test_gluon_cells_unroll_over_symbols():
    cell = mx.gluon.rnn.BidirectionalCell(mx.gluon.rnn.LSTMCell(H, input_size=IN),
                                          mx.gluon.rnn.LSTMCell(H, input_size=IN),
                                          output_prefix="bi_")
    outputs, _ = cell.unroll(2, [mx.sym.Variable("a"), mx.sym.Variable("b")])
    group = mx.sym.Group(outputs)
    assert group.list_outputs() == ["bi_t0_output", "bi_t1_output"]
    assert group.infer_shape(a=(N, IN), b=(N, IN))[1] == [(N, 2 * H)] * 2
    zone = mx.gluon.rnn.ZoneoutCell(mx.gluon.rnn.RNNCell(H, input_size=IN), zoneout_states=0.5)
    out, _ = zone.unroll(2, mx.sym.Variable("data"), merge_outputs=True)
    assert out.infer_shape(data=(N, 2, IN))[1] == [(N, 2, H)]


def test_gluon_fused_layer_unfuses_into_cells_sharing_its_parameters():
    layer = mx.gluon.rnn.GRU(H, num_layers=2, bidirectional=True, input_size=IN)
    stack = layer._unfuse()
    layer.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (3, N, IN)))
    fused = layer(x).asnumpy()
    unrolled = stack.unroll(3, x, layout="TNC", merge_outputs=True)[0].asnumpy()
    np.testing.assert_allclose(unrolled, fused, rtol=1e-5, atol=1e-6)
    assert stack[0].l_cell.i2h_weight is layer.l0_i2h_weight


def test_legacy_plus_fills_an_unknown_batch_from_a_batch_of_one():
    state = mx.sym.Convolution(mx.sym.zeros((0, 2, 5, 5)), num_filter=2, kernel=(3, 3),
                               pad=(1, 1), name="h2h")
    x = mx.sym.var("x")
    assert (state + x).infer_shape_partial(x=(1, 2, 5, 5))[1] == [(1, 2, 5, 5)]
    assert mx.sym.broadcast_add(state, x).infer_shape_partial(x=(1, 2, 5, 5))[1] == \
        [(0, 2, 5, 5)]
    with pytest.raises(mx.MXNetError, match=r"elemwise_add.*\(4, 3\).*\(1, 3\)"):
        (mx.sym.var("a") + x).infer_shape(a=(4, 3), x=(1, 3))   # no broadcasting, as MXNet
    cell = mx.rnn.ConvGRUCell((1, 3, 6, 6), 4, prefix="g_")
    out, _ = cell.unroll(2, [mx.sym.var("t0"), mx.sym.var("t1")])
    assert mx.sym.Group(out).infer_shape(t0=(1, 3, 6, 6), t1=(1, 3, 6, 6))[1] == \
        [(1, 4, 6, 6)] * 2
