"""The fused RNN op: gradients against central differences for every mode, shapes and dropout,
and values and gradients against MXNet 1.9.1 (opt-in) with the same flat parameters."""
import numpy
import pytest
from helpers import assert_same_results, requires_oracle, run_both

import mxlab as mx
from mxlab.ops.rnn import rnn_param_size

T, N, C, H = 3, 2, 4, 3


def _inputs(mode, layers, bidirectional, seed=0):
    rng = numpy.random.RandomState(seed)
    dirs = 2 if bidirectional else 1
    size = rnn_param_size(mode, layers, C, H, bidirectional)
    arrays = [rng.uniform(-1, 1, (T, N, C)), rng.uniform(-0.5, 0.5, size),
              rng.uniform(-1, 1, (layers * dirs, N, H))]
    return arrays + ([rng.uniform(-1, 1, (layers * dirs, N, H))] if mode == "lstm" else [])


def _run(arrays, **attrs):
    outs = mx.nd.RNN(*[mx.nd.array(a, dtype="float64") for a in arrays], state_size=H, **attrs)
    return outs if isinstance(outs, list) else [outs]


def _weights(outs):
    return [numpy.cos(numpy.arange(o.size)).reshape(o.shape) + 1.5 for o in outs]


@pytest.mark.parametrize("mode, layers, bidirectional, state_outputs", [
    ("rnn_relu", 1, False, True), ("rnn_tanh", 2, True, True), ("lstm", 1, False, True),
    ("lstm", 2, True, True), ("gru", 2, True, False), ("gru", 1, False, True),
])
def test_gradients_match_central_differences(mode, layers, bidirectional, state_outputs):
    attrs = {"num_layers": layers, "bidirectional": bidirectional, "mode": mode,
             "state_outputs": state_outputs}
    arrays = _inputs(mode, layers, bidirectional)
    weights = _weights(_run(arrays, **attrs))
    handles = [mx.nd.array(a, dtype="float64") for a in arrays]
    for h in handles:
        h.attach_grad()
    with mx.autograd.record():
        outs = mx.nd.RNN(*handles, state_size=H, **attrs)
        outs = outs if isinstance(outs, list) else [outs]
        total = sum((o * mx.nd.array(w, dtype="float64")).sum() for o, w in zip(outs, weights))
    total.backward()

    def objective():
        return sum(float((o.asnumpy() * w).sum()) for o, w in zip(_run(arrays, **attrs), weights))
    for index, array in enumerate(arrays):
        flat = array.reshape(-1)
        picks = numpy.random.RandomState(index).choice(flat.size, min(flat.size, 12), False)
        for i in picks:
            keep = flat[i]
            flat[i] = keep + 1e-6
            plus = objective()
            flat[i] = keep - 1e-6
            minus = objective()
            flat[i] = keep
            numeric = (plus - minus) / 2e-6
            got = handles[index].grad.asnumpy().reshape(-1)[i]
            assert abs(got - numeric) < 1e-6 + 1e-5 * abs(numeric), (index, i, got, numeric)


def test_shapes_parameter_inference_and_npx_name():
    data = mx.sym.var("data")
    rnn = mx.sym.RNN(data, mx.sym.var("params"), mx.sym.var("state"), mx.sym.var("cell"),
                     state_size=5, num_layers=2, mode="lstm", bidirectional=True,
                     state_outputs=True)
    args, outs, _ = rnn.infer_shape(data=(7, 3, 4))
    assert args[1] == (rnn_param_size("lstm", 2, 4, 5, True),)
    assert args[2] == args[3] == (4, 3, 5)
    assert outs == [(7, 3, 10), (4, 3, 5), (4, 3, 5)]
    arrays = [mx.np.array(a) for a in _inputs("gru", 1, False)]
    out = mx.npx.rnn(*arrays, state_size=H, num_layers=1, mode="gru")
    assert isinstance(out, mx.np.ndarray) and out.shape == (T, N, H)


def test_dropout_between_layers_only_while_training():
    arrays = [mx.nd.array(a) for a in _inputs("rnn_tanh", 2, False)]
    attrs = {"state_size": H, "num_layers": 2, "mode": "rnn_tanh", "p": 0.5}
    plain = mx.nd.RNN(*arrays, state_size=H, num_layers=2, mode="rnn_tanh").asnumpy()
    numpy.testing.assert_allclose(mx.nd.RNN(*arrays, **attrs).asnumpy(), plain, rtol=1e-6)
    mx.random.seed(1)
    with mx.autograd.record():
        dropped = mx.nd.RNN(*arrays, **attrs).asnumpy()
    assert not numpy.allclose(dropped, plain)


def test_options_not_built_are_named():
    arrays = [mx.nd.array(a) for a in _inputs("lstm", 1, False)]
    with pytest.raises(NotImplementedError, match="lstm_state_clip"):
        mx.nd.RNN(*arrays, state_size=H, num_layers=1, mode="lstm",
                  lstm_state_clip_max=2.0).wait_to_read()


@requires_oracle
@pytest.mark.oracle
@pytest.mark.parametrize("mode, layers, bidirectional", [
    ("lstm", 2, True), ("gru", 2, True), ("rnn_relu", 1, False), ("rnn_tanh", 2, False)])
def test_values_and_gradients_match_mxnet(mode, layers, bidirectional):
    code = f"""
arrs = [mx.nd.array(inputs[k]) for k in sorted(inputs)]
for a in arrs:
    a.attach_grad()
with mx.autograd.record():
    o = mx.nd.RNN(*arrs, state_size={H}, num_layers={layers}, bidirectional={bidirectional},
                  mode='{mode}', state_outputs=True)
    total = (o[0] * mx.nd.arange(o[0].size).reshape(o[0].shape)).sum() + (o[1] * 2).sum()
total.backward()
outputs.update(out=o[0].asnumpy(), hy=o[1].asnumpy())
outputs.update({{'d' + k: a.grad.asnumpy() for k, a in zip(sorted(inputs), arrs)}})
"""
    names = ("a_data", "b_params", "c_state", "d_cell")
    arrays = {n: a.astype(numpy.float32) for n, a in zip(names, _inputs(mode, layers,
                                                                        bidirectional))}
    mine, theirs = run_both(code, arrays)
    assert_same_results(mine, theirs, rtol=1e-4, atol=2e-5)
