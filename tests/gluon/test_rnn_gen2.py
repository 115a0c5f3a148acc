"""MXNet 2.0's side of ``gluon.rnn``: the fused layers' flat ``rnn_param`` (NumPy mode) agrees
with the 1.x per-gate layout, LSTMP and ``use_sequence_length`` layers, ``dynamic_unroll``,
``VariationalDropoutCell``; the convolutional cells, ``LSTMPCell``, ``dynamic_unroll`` and LSTMP
layers against MXNet 1.9.1 (opt-in, through ``gluon.contrib.rnn`` where 1.x kept them)."""
import json
import os
import re
import subprocess

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetValueError

RNG = numpy.random.RandomState(5)


def _fill(params, seed=0):
    """Deterministic values by gate-group name (prefixes differ between the generations)."""
    rng = numpy.random.RandomState(seed)
    for name in sorted(params, key=_group):
        params[name].set_data(_array(rng.uniform(-0.4, 0.4, params[name].shape)))


def _array(values):
    return (mx.np.array if mx.util.is_np_array() else mx.nd.array)(values.astype("float32"))


def _group(name):
    return re.search(r"((?:[lr]\d+_)?(?:i2h|h2h|h2r)_(?:weight|bias))$", name).group(1)


def _pair(cls, **kwargs):
    """The same layer in 1.x layout (mx.nd) and in 2.0 layout (built in NumPy mode), with equal
    weights: the 2.0 layer's rnn_param is the 1.x layer's groups packed in op order."""
    old = cls(5, input_size=3, **kwargs)
    old.initialize()
    _fill(old.collect_params())
    with mx.util.np_array(True), mx.util.np_shape(True):
        new = cls(5, input_size=3, **kwargs)
        new.initialize()
        new.rnn_param.set_data(old._flat_params(
            {n: p.data() for n, p in old._reg_params.items()}).as_np_ndarray())
    return old, new


@pytest.mark.parametrize("cls, kwargs", [
    (mx.gluon.rnn.LSTM, {"num_layers": 2, "bidirectional": True}),
    (mx.gluon.rnn.GRU, {"num_layers": 2, "layout": "NTC"}),
    (mx.gluon.rnn.RNN, {"activation": "tanh", "bidirectional": True}),
    (mx.gluon.rnn.LSTM, {"num_layers": 2, "projection_size": 2, "bidirectional": True}),
])
def test_flat_rnn_param_matches_per_gate_layout(cls, kwargs):
    old, new = _pair(cls, **kwargs)
    assert sorted(new.collect_params()) == ["rnn_param"]
    assert "l0_i2h_weight" in old.collect_params()
    x = RNG.uniform(-1, 1, (4, 2, 3)).astype("float32")
    results = []
    for layer, make in ((old, mx.nd.array), (new, mx.np.array)):
        data = make(x)
        data.attach_grad()
        with mx.autograd.record():
            out = layer(data)
            (out * make(numpy.arange(out.size).reshape(out.shape) % 7)).sum().backward()
        results.append((out.asnumpy(), data.grad.asnumpy()))
    numpy.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5, atol=1e-6)
    mode = new._mode
    grads = mx.gluon.utils.split_rnn_params(new.rnn_param.grad(), mode, new._num_layers, 3, 5,
                                            new._dir == 2, new._projection_size)
    assert sorted(grads) == sorted(old.collect_params())
    for name, grad in grads.items():
        numpy.testing.assert_allclose(grad.asnumpy(), old.collect_params()[name].grad()
                                      .asnumpy(), rtol=1e-5, atol=1e-6, err_msg=name)


def test_flat_layer_infers_its_size_and_initializes_groups():
    with mx.util.np_array(True), mx.util.np_shape(True):
        layer = mx.gluon.rnn.LSTM(10)
        layer.initialize(mx.init.One())
        out = layer(mx.np.ones((3, 2, 7)))
        assert out.shape == (3, 2, 10) and layer.rnn_param.shape == (760,)
        parts = mx.gluon.utils.split_rnn_params(layer.rnn_param.data(), "lstm", 1, 7, 10)
    assert (parts["l0_i2h_weight"].asnumpy() == 1).all()
    assert (parts["l0_h2h_bias"].asnumpy() == 0).all()
    assert repr(layer) == "LSTM(7 -> 10, TNC)"


def test_sequence_length_layer_and_state_checks():
    layer = mx.gluon.rnn.GRU(4, layout="NTC", bidirectional=True, input_size=3,
                             use_sequence_length=True)
    layer.initialize()
    x = mx.nd.array(RNG.uniform(-1, 1, (2, 5, 3)), dtype="float32")
    states = layer.begin_state(batch_size=2)
    out, (h,) = layer(x, states, mx.nd.array([5, 2]))
    full, (h_full,) = layer(x[1:2, :2], [s[:, 1:2] for s in states], mx.nd.array([2]))
    numpy.testing.assert_allclose(out.asnumpy()[1, :2], full.asnumpy()[0], rtol=1e-5)
    assert not out.asnumpy()[1, 2:].any()
    numpy.testing.assert_allclose(h.asnumpy()[:, 1], h_full.asnumpy()[:, 0], rtol=1e-5)
    with pytest.raises(MXNetValueError, match="sequence_length"):
        layer(x, states)
    gru = mx.gluon.rnn.GRU(4, input_size=3)
    gru.initialize()
    with pytest.raises(ValueError, match="Invalid recurrent state shape"):
        gru(x, [mx.nd.zeros((1, 3, 4))])


def test_dynamic_unroll_matches_unroll_and_stops_states():
    cell = mx.gluon.rnn.LSTMCell(4, input_size=3)
    cell.initialize()
    x = mx.nd.array(RNG.uniform(-1, 1, (2, 5, 3)), dtype="float32")
    states = [mx.nd.array(RNG.uniform(-1, 1, (2, 4)), dtype="float32") for _ in range(2)]
    length = mx.nd.array([3, 5])
    got, got_states = mx.gluon.rnn.rnn_cell.dynamic_unroll(cell, x, states, layout="NTC",
                                                           valid_length=length)
    want, want_states = cell.unroll(5, x, states, layout="NTC", merge_outputs=True,
                                    valid_length=length)
    numpy.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(got_states, want_states):
        numpy.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-6)
    assert not got.asnumpy()[0, 3:].any()


def test_variational_dropout_keeps_one_mask_per_sequence():
    base = mx.gluon.rnn.RNNCell(6, input_size=3)
    cell = mx.gluon.rnn.VariationalDropoutCell(base, drop_outputs=0.5)
    cell.initialize()
    x = mx.nd.array(RNG.uniform(0.5, 1, (2, 4, 3)), dtype="float32")
    plain, _ = base.unroll(4, x, merge_outputs=True)
    same, _ = cell.unroll(4, x, merge_outputs=True)
    numpy.testing.assert_allclose(same.asnumpy(), plain.asnumpy(), rtol=1e-6)
    with mx.autograd.record():
        first, _ = cell.unroll(4, x, merge_outputs=True)
        second, _ = cell.unroll(4, x, merge_outputs=True)
    zeros = first.asnumpy() == 0
    assert zeros.any() and (zeros == zeros[:, :1]).all()
    assert ((second.asnumpy() == 0) != zeros).any()
    with pytest.raises(MXNetValueError, match="variational state dropout"):
        mx.gluon.rnn.VariationalDropoutCell(mx.gluon.rnn.BidirectionalCell(base, base),
                                            drop_states=0.5)


def test_stepping_a_bidirectional_cell_names_unroll():
    cell = mx.gluon.rnn.BidirectionalCell(mx.gluon.rnn.RNNCell(2), mx.gluon.rnn.RNNCell(2))
    with pytest.raises(NotImplementedError, match="Please use unroll"):
        cell(mx.nd.ones((1, 2)), cell.begin_state(batch_size=1))


def test_conv_cells_shapes_and_bad_kernels():
    cell = mx.gluon.rnn.Conv2DGRUCell((3, 6, 5), 4, (3, 3), 3, i2h_pad=(1, 1))
    cell.initialize()
    out, states = cell.unroll(2, mx.nd.ones((1, 2, 3, 6, 5)), merge_outputs=True)
    assert out.shape == (1, 2, 4, 6, 5) and states[0].shape == (1, 4, 6, 5)
    with pytest.raises(MXNetValueError, match="odd"):
        mx.gluon.rnn.Conv1DRNNCell((3, 6), 4, 3, 2)
    with pytest.raises(MXNetValueError, match="length 2"):
        mx.gluon.rnn.Conv2DLSTMCell((3, 6, 5), 4, (3,), 3)


# -- against MXNet 1.9.1 --------------------------------------------------------------------------
_DRIVER = r"""
import json, re, sys
import numpy as np
import mxnet as mx
exec(compile(sys.argv[1], "<oracle>", "exec"), {"mx": mx, "np": np, "re": re, "out": (out := {})})
print(json.dumps({k: np.asarray(v).tolist() for k, v in out.items()}))
"""

_CELL_CODE = """
rnn = mx.gluon.contrib.rnn
x = mx.nd.array(np.random.RandomState(1).uniform(-1, 1, {shape}), dtype="float32")
cell = {make}
cell.initialize()
rng = np.random.RandomState(0)
params = cell.collect_params()
group = lambda n: re.search(r"((?:[lr]\\d+_)?(?:i2h|h2h|h2r)_(?:weight|bias))$", n).group(1)
for name in sorted(params, key=group):
    params[name].set_data(mx.nd.array(rng.uniform(-0.4, 0.4, params[name].shape),
                                       dtype="float32"))
x.attach_grad()
with mx.autograd.record():
    {run}
    weights = mx.nd.array(np.arange(y.size).reshape(y.shape) % 5, dtype="float32")
    loss = (y * weights).sum() + states[-1].sum()
loss.backward()
out["y"], out["state"], out["dx"] = y.asnumpy(), states[-1].asnumpy(), x.grad.asnumpy()
for name in params:
    out["d" + group(name)] = params[name].grad().asnumpy()
"""

_UNROLL = "y, states = cell.unroll(3, x, layout='NTC', merge_outputs=True)"
_DYNAMIC = ("y, states = rnn.rnn_cell.dynamic_unroll(cell, x, cell.begin_state(batch_size=2), "
            "layout='NTC', valid_length=mx.nd.array([2, 3]))")
_CELLS = [
    ("rnn.Conv1DLSTMCell((3, 6), 4, 3, 3)", (2, 3, 3, 6), _UNROLL),
    ("rnn.Conv2DGRUCell((2, 5, 4), 3, (3, 3), (3, 1), i2h_pad=(1, 0))", (2, 3, 2, 5, 4),
     _UNROLL),
    ("rnn.Conv1DRNNCell((3, 6), 4, 3, 5, activation='relu', h2h_dilate=(2,))", (2, 3, 3, 6),
     _UNROLL),
    ("rnn.Conv3DLSTMCell((2, 3, 4, 4), 2, 2, 3)", (2, 3, 2, 3, 4, 4), _UNROLL),
    ("rnn.LSTMPCell(6, 3, input_size=4)", (2, 3, 4), _UNROLL),
    ("mx.gluon.rnn.GRUCell(5, input_size=4)", (2, 3, 4), _DYNAMIC),
]


def _run_mxlab(code):
    out = {}
    exec(compile(code, "<mxlab>", "exec"), {"mx": mx, "np": numpy, "re": re, "out": out})
    return out


def _run_mxnet(code):
    result = subprocess.run([os.environ["MXLAB_MXNET_PYTHON"], "-c", _DRIVER, code],
                            capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": ""})
    assert result.returncode == 0, result.stderr[-3000:]
    return {k: numpy.array(v) for k, v in json.loads(result.stdout).items()}


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get("MXLAB_MXNET_PYTHON"), reason="set MXLAB_MXNET_PYTHON")
@pytest.mark.parametrize("make, shape, run", _CELLS)
def test_cells_match_mxnet(make, shape, run):
    code = _CELL_CODE.format(make=make, shape=shape, run=run)
    mine, theirs = _run_mxlab(code), _run_mxnet(code)
    assert sorted(mine) == sorted(theirs)
    for key, want in theirs.items():
        numpy.testing.assert_allclose(mine[key], want, rtol=1e-4, atol=1e-5, err_msg=key)


_LSTMP_CODE = """
layer = mx.gluon.rnn.LSTM(5, num_layers=2, bidirectional=True, projection_size=3, input_size=4)
layer.initialize()
rng = np.random.RandomState(0)
params = layer.collect_params()
group = lambda n: re.search(r"((?:[lr]\\d+_)?(?:i2h|h2h|h2r)_(?:weight|bias))$", n).group(1)
for name in sorted(params, key=group):
    params[name].set_data(mx.nd.array(rng.uniform(-0.4, 0.4, params[name].shape),
                                       dtype="float32"))
x = mx.nd.array(np.random.RandomState(1).uniform(-1, 1, (4, 2, 4)), dtype="float32")
y, (h, c) = layer(x, layer.begin_state(batch_size=2))
out["y"], out["h"], out["c"] = y.asnumpy(), h.asnumpy(), c.asnumpy()
"""


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get("MXLAB_MXNET_PYTHON"), reason="set MXLAB_MXNET_PYTHON")
def test_lstmp_layer_matches_mxnet():
    # NOTE: MXNet 1.9.1 runs LSTMP on CPU for inference only (its gradient is cuDNN's); mxlab's
    # gradient is checked against the unrolled LSTMPCell below and by central differences.
    mine, theirs = _run_mxlab(_LSTMP_CODE), _run_mxnet(_LSTMP_CODE)
    for key, want in theirs.items():
        numpy.testing.assert_allclose(mine[key], want, rtol=1e-4, atol=1e-5, err_msg=key)


def test_lstmp_layer_matches_its_cell_unrolled():
    layer = mx.gluon.rnn.LSTM(5, projection_size=3, input_size=4)
    layer.initialize()
    _fill(layer.collect_params())
    cell = mx.gluon.rnn.LSTMPCell(5, 3, input_size=4)
    cell.initialize()
    for name in ("i2h_weight", "h2h_weight", "h2r_weight", "i2h_bias", "h2h_bias"):
        getattr(cell, name).set_data(getattr(layer, f"l0_{name}").data())
    x = mx.nd.array(RNG.uniform(-1, 1, (4, 2, 4)), dtype="float32")
    outs = []
    for run in (lambda d: layer(d), lambda d: cell.unroll(4, d, layout="TNC",
                                                          merge_outputs=True)[0]):
        data = x.copy()
        data.attach_grad()
        with mx.autograd.record():
            y = run(data)
            (y * y).sum().backward()
        h2r = layer.l0_h2r_weight if not outs else cell.h2r_weight
        outs.append((y.asnumpy(), data.grad.asnumpy(), h2r.grad().asnumpy()))
    for a, b in zip(*outs):
        numpy.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_gluon1_prefixes_name_layer_and_cell_parameters():
    layer = mx.gluon.rnn.LSTM(3, prefix="enc_", input_size=2, projection_size=2)
    assert "enc_l0_h2r_weight" in layer.params.keys()
    cell = mx.gluon.rnn.GRUCell(3, prefix="dec_", input_size=2)
    assert sorted(cell.params.keys())[0] == "dec_h2h_bias"
