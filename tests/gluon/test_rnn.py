"""``gluon.rnn``: fused layers (layouts, states, bidirectional, layers, dropout, hybridize) and
cells with ``unroll``; layers agree with their cells, and both with MXNet 1.9.1 (opt-in)."""
import os
import subprocess
import sys

import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetValueError

RNG = numpy.random.RandomState(3)
X = RNG.uniform(-1, 1, (5, 3, 4)).astype("float32")       # (T, N, C)


def _set_params(block, seed=0):
    rng = numpy.random.RandomState(seed)
    for name, param in sorted(block.collect_params().items()):
        param.set_data(mx.nd.array(rng.uniform(-0.4, 0.4, param.shape)))


def _layer(cls, **kwargs):
    layer = cls(6, input_size=4, **kwargs)
    layer.initialize()
    _set_params(layer)
    return layer


@pytest.mark.parametrize("cls", [mx.gluon.rnn.RNN, mx.gluon.rnn.LSTM, mx.gluon.rnn.GRU])
def test_layer_shapes_states_and_layouts(cls):
    layer = _layer(cls, num_layers=2, bidirectional=True)
    states = layer.begin_state(batch_size=3)
    assert [s.shape for s in states] == [(4, 3, 6)] * (2 if cls is mx.gluon.rnn.LSTM else 1)
    out, new_states = layer(mx.nd.array(X), states)
    assert out.shape == (5, 3, 12) and [s.shape for s in new_states] == [s.shape for s in states]
    ntc = _layer(cls, num_layers=2, bidirectional=True, layout="NTC")
    swapped = ntc(mx.nd.array(X.transpose(1, 0, 2)))
    numpy.testing.assert_allclose(swapped.asnumpy().transpose(1, 0, 2), out.asnumpy(), rtol=1e-5)


@pytest.mark.parametrize("layer_cls, cell_cls", [
    (mx.gluon.rnn.LSTM, mx.gluon.rnn.LSTMCell), (mx.gluon.rnn.GRU, mx.gluon.rnn.GRUCell),
    (mx.gluon.rnn.RNN, mx.gluon.rnn.RNNCell)])
def test_fused_layer_matches_its_cell_unrolled(layer_cls, cell_cls):
    layer = _layer(layer_cls)
    kwargs = {"activation": "relu"} if cell_cls is mx.gluon.rnn.RNNCell else {}
    cell = cell_cls(6, input_size=4, **kwargs)
    cell.initialize()
    for name in ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias"):
        getattr(cell, name).set_data(getattr(layer, f"l0_{name}").data())
    fused, fused_states = layer(mx.nd.array(X), layer.begin_state(batch_size=3))
    stepped, states = cell.unroll(5, mx.nd.array(X), layout="TNC", merge_outputs=True)
    numpy.testing.assert_allclose(stepped.asnumpy(), fused.asnumpy(), rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(states[-1].asnumpy(), fused_states[-1][0].asnumpy(),
                                  rtol=1e-5, atol=1e-6)


def test_layer_trains_and_hybridizes():
    layer = _layer(mx.gluon.rnn.LSTM, num_layers=2)
    x = mx.nd.array(X)
    eager = layer(x).asnumpy()
    layer.hybridize()
    numpy.testing.assert_allclose(layer(x).asnumpy(), eager, rtol=1e-5)
    trainer = mx.gluon.Trainer(layer.collect_params(), "sgd", {"learning_rate": 0.5})
    losses = []
    for _ in range(3):
        with mx.autograd.record():
            loss = (layer(x) ** 2).mean()
        loss.backward()
        trainer.step(1)
        losses.append(float(loss.asscalar()))
    assert losses[2] < losses[0]


def test_layer_infers_input_size_and_runs_on_np_arrays():
    layer = mx.gluon.rnn.GRU(3, num_layers=2, dropout=0.2)
    layer.initialize()
    out = layer(mx.np.array(X))
    assert isinstance(out, mx.np.ndarray) and out.shape == (5, 3, 3)
    assert layer.l0_i2h_weight.shape == (9, 4) and layer.l1_i2h_weight.shape == (9, 3)


def test_bad_layout_and_symbol_without_states_are_errors():
    with pytest.raises(MXNetValueError, match="layout"):
        mx.gluon.rnn.LSTM(3, layout="CTN")


def test_cell_wrappers_unroll():
    seq = mx.gluon.rnn.SequentialRNNCell()
    seq.add(mx.gluon.rnn.LSTMCell(3, input_size=4))
    seq.add(mx.gluon.rnn.DropoutCell(0.5))
    seq.add(mx.gluon.rnn.ResidualCell(mx.gluon.rnn.GRUCell(3, input_size=3)))
    seq.initialize()
    data = mx.nd.array(X.transpose(1, 0, 2))                     # NTC
    out, states = seq.unroll(5, data, merge_outputs=True)
    assert out.shape == (3, 5, 3) and [s.shape for s in states] == [(3, 3)] * 3
    valid = mx.nd.array([2, 5, 3])
    masked, last = seq.unroll(5, data, merge_outputs=True, valid_length=valid)
    assert not masked.asnumpy()[0, 2:].any()
    numpy.testing.assert_allclose(last[0].asnumpy()[1], states[0].asnumpy()[1], rtol=1e-5)
    bi = mx.gluon.rnn.BidirectionalCell(mx.gluon.rnn.LSTMCell(3, input_size=4),
                                        mx.gluon.rnn.LSTMCell(2, input_size=4))
    bi.initialize()
    out, states = bi.unroll(5, data, merge_outputs=False)
    assert len(out) == 5 and out[0].shape == (3, 5) and len(states) == 4
    with pytest.raises(NotImplementedError, match="unroll"):
        bi(data[:, 0], bi.begin_state(batch_size=3))


def test_zoneout_keeps_previous_values_only_while_training():
    base = mx.gluon.rnn.RNNCell(3, input_size=4)
    cell = mx.gluon.rnn.ZoneoutCell(base, zoneout_outputs=0.9999, zoneout_states=0.0)
    cell.initialize()
    step = mx.nd.array(X[0])
    states = cell.begin_state(batch_size=3)
    eval_out, _ = cell(step, states)
    assert numpy.abs(eval_out.asnumpy()).sum() > 0
    with mx.autograd.train_mode():
        out, _ = cell(step, states)
    assert numpy.abs(out.asnumpy()).sum() < numpy.abs(eval_out.asnumpy()).sum()


_ORACLE = """
import sys, numpy as np
import mxnet as mx
x = np.load(sys.argv[1])
results = {}
for kind in ('LSTM', 'GRU', 'RNN'):
    layer = getattr(mx.gluon.rnn, kind)(6, num_layers=2, bidirectional=True, input_size=4)
    layer.initialize()
    rng = np.random.RandomState(0)
    params = layer.collect_params()
    for name in sorted(params.keys(), key=lambda n: n.split('_', 1)[1]):
        params[name].set_data(mx.nd.array(rng.uniform(-0.4, 0.4, params[name].shape)))
    results[kind] = layer(mx.nd.array(x)).asnumpy()
np.savez(sys.argv[2], **results)
"""


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get("MXLAB_MXNET_PYTHON"), reason="set MXLAB_MXNET_PYTHON")
def test_layers_match_mxnet(tmp_path):
    numpy.save(tmp_path / "x.npy", X)
    subprocess.run([os.environ["MXLAB_MXNET_PYTHON"], "-c", _ORACLE, str(tmp_path / "x.npy"),
                    str(tmp_path / "out.npz")], check=True, timeout=300,
                   env={**os.environ, "PYTHONPATH": ""}, stdout=sys.stdout)
    want = numpy.load(tmp_path / "out.npz")
    for kind in ("LSTM", "GRU", "RNN"):
        layer = getattr(mx.gluon.rnn, kind)(6, num_layers=2, bidirectional=True, input_size=4)
        layer.initialize()
        _set_params(layer)
        numpy.testing.assert_allclose(layer(mx.nd.array(X)).asnumpy(), want[kind], rtol=1e-4,
                                      atol=1e-5, err_msg=kind)


def test_split_rnn_params_inverts_the_fused_layout():
    layer = _layer(mx.gluon.rnn.GRU, num_layers=2, bidirectional=True)
    flat = layer._flat_params({n: p.data() for n, p in layer._reg_params.items()})
    parts = mx.gluon.utils.split_rnn_params(flat, "gru", 2, 4, 6, bidirectional=True)
    assert sorted(parts) == sorted(layer._reg_params)
    for name, part in parts.items():
        numpy.testing.assert_array_equal(part.asnumpy(), getattr(layer, name).data().asnumpy())
