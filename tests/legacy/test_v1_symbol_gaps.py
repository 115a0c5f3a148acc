"""Small MXNet 1.x symbol gaps: prelu's ``gamma`` is inferred from the data (one slope per
channel, axis 1, data's dtype) and its auto-created variable starts at 0.25, as MXNet's
LeakyReLU gives it."""
import numpy

import mxlab as mx


def test_prelu_gamma_shape_and_dtype_from_data():
    sym = mx.sym.LeakyReLU(data=mx.sym.Variable("data"), act_type="prelu", name="act")
    args, outs, _ = sym.infer_shape(data=(2, 3, 4, 5))
    assert dict(zip(sym.list_arguments(), args)) == {"data": (2, 3, 4, 5), "act_gamma": (3,)}
    assert outs == [(2, 3, 4, 5)]
    arg_types, _, _ = sym.infer_type(data="float64")
    assert [numpy.dtype(t).name for t in arg_types] == ["float64", "float64"]


def test_prelu_default_gamma_init_is_quarter():
    sym = mx.sym.LeakyReLU(data=mx.sym.Variable("data"), act_type="prelu")
    mod = mx.mod.Module(sym, label_names=None)
    mod.bind(data_shapes=[("data", (4, 6))])
    mod.init_params()
    (gamma,) = mod.get_params()[0].values()
    numpy.testing.assert_array_equal(gamma.asnumpy(), numpy.full(6, 0.25, "float32"))


def test_prelu_given_gamma_keeps_its_init():
    gamma = mx.sym.Variable("gamma", init=mx.init.One())
    sym = mx.sym.LeakyReLU(data=mx.sym.Variable("data"), gamma=gamma, act_type="prelu")
    mod = mx.mod.Module(sym, label_names=None)
    mod.bind(data_shapes=[("data", (4, 6))])
    mod.init_params()
    numpy.testing.assert_array_equal(mod.get_params()[0]["gamma"].asnumpy(), numpy.ones(6))


def test_foreach_hands_inferred_input_shapes_back():
    """As MXNet: shapes the loop body infers for its inputs (an LSTM's ``c`` state, the
    weights) become the outer graph's argument shapes."""
    params = mx.rnn.RNNParams()

    def step(x, states):
        return mx.rnn.LSTMCell(4, prefix="", params=params)(x, states)

    out, states = mx.sym.contrib.foreach(step, mx.sym.var("data"),
                                         [mx.sym.var("h"), mx.sym.var("c")])
    group = mx.sym.Group([out] + states)
    args, outs, _ = group.infer_shape(data=(2, 3, 5), h=(3, 4))
    assert dict(zip(group.list_arguments(), args)) == {
        "data": (2, 3, 5), "h": (3, 4), "c": (3, 4), "i2h_weight": (16, 5), "i2h_bias": (16,),
        "h2h_weight": (16, 4), "h2h_bias": (16,)}
    assert outs == [(2, 3, 4), (3, 4), (3, 4)]
