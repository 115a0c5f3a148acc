"""The fused RNN op (vanilla relu/tanh, LSTM, GRU; stacked, bidirectional, with final states)
exported to ONNX RNN/LSTM/GRU nodes: onnxruntime and the re-imported Symbol match mxlab."""
import numpy
import pytest
from onnx_helpers import roundtrip

import mxlab as mx
from mxlab.ops.rnn import rnn_param_size

T, N, C, H = 5, 2, 3, 4


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("layers,bidirectional", [(1, False), (2, True)])
def test_fused_rnn_round_trips(mode, layers, bidirectional, tmp_path):
    dirs = 2 if bidirectional else 1
    inputs = [mx.sym.var("data"), mx.sym.var("parameters"), mx.sym.var("state")]
    shapes = {"data": (T, N, C), "state": (layers * dirs, N, H)}
    if mode == "lstm":
        inputs.append(mx.sym.var("state_cell"))
        shapes["state_cell"] = (layers * dirs, N, H)
    sym = mx.sym.RNN(*inputs, state_size=H, num_layers=layers, mode=mode,
                     bidirectional=bidirectional, state_outputs=True)
    size = rnn_param_size(mode, layers, C, H, bidirectional)
    params = {"parameters": mx.nd.array(numpy.random.default_rng(1).uniform(-0.5, 0.5, size),
                                        dtype="float32")}
    worst = roundtrip(sym, params, shapes, tmp_path / "rnn.onnx", batches=(), dynamic=False)
    assert worst < 1e-5


def test_gluon_lstm_layer_exports(tmp_path):
    net = mx.gluon.rnn.LSTM(H, num_layers=2, input_size=C)
    net.initialize(mx.init.Uniform(0.3))
    net.hybridize()
    data = mx.nd.array(numpy.random.default_rng(2).uniform(-1, 1, (T, N, C)), dtype="float32")
    expected = net(data).asnumpy()
    path = tmp_path / "lstm.onnx"
    mx.onnx.export_model(net, None, [(T, N, C)], numpy.float32, str(path))
    from onnx_helpers import run_onnx

    (got,) = run_onnx(path, {run_onnx_input(path): data.asnumpy()})
    numpy.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def run_onnx_input(path):
    import onnx

    model = onnx.load(str(path))
    initialized = {i.name for i in model.graph.initializer}
    return next(i.name for i in model.graph.input if i.name not in initialized)


@pytest.mark.parametrize("mode", ["lstm", "gru"])
def test_open_batch_and_sequence_axes(mode, tmp_path):
    """Exported with the batch and time axes open, the file runs at other sizes too."""
    import onnxruntime as ort

    inputs = [mx.sym.var("data"), mx.sym.var("parameters"), mx.sym.var("state")]
    states = 1 + (mode == "lstm")
    inputs += [mx.sym.var("state_cell")] if mode == "lstm" else []
    sym = mx.sym.RNN(*inputs, state_size=H, num_layers=2, mode=mode, bidirectional=True,
                     state_outputs=True)
    flat = numpy.random.default_rng(1).uniform(-0.5, 0.5, rnn_param_size(mode, 2, C, H, True))
    params = {"parameters": mx.nd.array(flat, dtype="float32")}
    shapes = [(T, N, C)] + [(4, N, H)] * states
    open_axes = [(None, None, C)] + [(4, None, H)] * states
    path = tmp_path / "rnn.onnx"
    mx.onnx.export_model(sym, params, shapes, numpy.float32, str(path), dynamic=True,
                         dynamic_input_shapes=open_axes)
    rng = numpy.random.default_rng(3)
    for steps, batch in ((T, N), (T + 2, N + 1)):
        feeds = {"data": rng.uniform(-1, 1, (steps, batch, C)).astype("float32"),
                 "state": rng.uniform(-1, 1, (4, batch, H)).astype("float32")}
        if mode == "lstm":
            feeds["state_cell"] = rng.uniform(-1, 1, (4, batch, H)).astype("float32")
        got = ort.InferenceSession(str(path)).run(None, feeds)
        want = sym.eval(parameters=params["parameters"],
                        **{k: mx.nd.array(v) for k, v in feeds.items()})
        for g, w in zip(got, want):
            numpy.testing.assert_allclose(g, w.asnumpy(), rtol=1e-5, atol=1e-6)
