"""The fused RNN op's LSTMP (``projection_size``) and variable-length (``use_sequence_length``)
forms: gradients against central differences, lengths against running each sequence cut to its
length, and LSTMP inference values against MXNet 1.9.1 (opt-in)."""
import numpy
import pytest
from helpers import assert_same_results, requires_oracle, run_both

import mxlab as mx
from mxlab.ops.rnn import rnn_param_size

T, N, C, H, P = 4, 3, 3, 3, 2


def _inputs(mode, layers, bidirectional, proj=None, seed=0):
    rng = numpy.random.RandomState(seed)
    dirs = 2 if bidirectional else 1
    size = rnn_param_size(mode, layers, C, H, bidirectional, proj)
    arrays = [rng.uniform(-1, 1, (T, N, C)), rng.uniform(-0.6, 0.6, size),
              rng.uniform(-1, 1, (layers * dirs, N, proj or H))]
    return arrays + ([rng.uniform(-1, 1, (layers * dirs, N, H))] if mode == "lstm" else [])


def _call(arrays, lengths=None, **attrs):
    args = [mx.nd.array(a, dtype="float64") if not isinstance(a, mx.nd.NDArray) else a
            for a in arrays]
    if lengths is not None:
        args.append(mx.nd.array(lengths, dtype="float64"))
    outs = mx.nd.RNN(*args, state_size=H, state_outputs=True,
                     use_sequence_length=lengths is not None, **attrs)
    return outs if isinstance(outs, list) else [outs]


CASES = [
    ({"mode": "lstm", "num_layers": 2, "bidirectional": True, "projection_size": P}, None),
    ({"mode": "lstm", "num_layers": 1, "bidirectional": False, "projection_size": P}, [4, 2, 1]),
    ({"mode": "gru", "num_layers": 2, "bidirectional": True}, [1, 4, 3]),
    ({"mode": "rnn_tanh", "num_layers": 1, "bidirectional": True}, [2, 3, 4]),
]


@pytest.mark.parametrize("attrs, lengths", CASES)
def test_gradients_match_central_differences(attrs, lengths):
    arrays = _inputs(attrs["mode"], attrs["num_layers"], attrs["bidirectional"],
                     attrs.get("projection_size"))
    weights = [numpy.cos(numpy.arange(o.size)).reshape(o.shape) + 1.5
               for o in _call(arrays, lengths, **attrs)]
    handles = [mx.nd.array(a, dtype="float64") for a in arrays]
    for h in handles:
        h.attach_grad()
    with mx.autograd.record():
        outs = _call(handles, lengths, **attrs)
        total = sum((o * mx.nd.array(w, dtype="float64")).sum() for o, w in zip(outs, weights))
    total.backward()

    def objective():
        return sum(float((o.asnumpy() * w).sum())
                   for o, w in zip(_call(arrays, lengths, **attrs), weights))
    for index, array in enumerate(arrays):
        flat = array.reshape(-1)
        for i in numpy.random.RandomState(index).choice(flat.size, min(flat.size, 10), False):
            keep = flat[i]
            flat[i] = keep + 1e-6
            plus = objective()
            flat[i] = keep - 1e-6
            minus = objective()
            flat[i] = keep
            numeric = (plus - minus) / 2e-6
            got = handles[index].grad.asnumpy().reshape(-1)[i]
            assert abs(got - numeric) < 1e-6 + 1e-5 * abs(numeric), (index, i, got, numeric)


@pytest.mark.parametrize("attrs, lengths", [case for case in CASES if case[1]])
def test_lengths_equal_each_sequence_run_alone(attrs, lengths):
    arrays = _inputs(attrs["mode"], attrs["num_layers"], attrs["bidirectional"],
                     attrs.get("projection_size"))
    outs = [o.asnumpy() for o in _call(arrays, lengths, **attrs)]
    for n, length in enumerate(lengths):
        alone = [arrays[0][:length, n:n + 1], arrays[1]] + [s[:, n:n + 1] for s in arrays[2:]]
        want = [o.asnumpy() for o in _call(alone, **attrs)]
        numpy.testing.assert_allclose(outs[0][:length, n:n + 1], want[0], rtol=1e-10)
        assert not outs[0][length:, n].any()
        for got, state in zip(outs[1:], want[1:]):
            numpy.testing.assert_allclose(got[:, n:n + 1], state, rtol=1e-10)


def test_bad_options_are_named():
    arrays = _inputs("gru", 1, False)
    with pytest.raises(ValueError, match="projection_size"):
        _call(arrays, mode="gru", num_layers=1, projection_size=2)[0].wait_to_read()
    arrays = _inputs("lstm", 1, False)
    with pytest.raises(NotImplementedError, match="lstm_state_clip"):
        _call(arrays, mode="lstm", num_layers=1, lstm_state_clip_min=-1,
              lstm_state_clip_max=1)[0].wait_to_read()


def test_shapes_with_projection():
    rnn = mx.sym.RNN(mx.sym.var("data"), mx.sym.var("params"), mx.sym.var("state"),
                     mx.sym.var("cell"), state_size=5, num_layers=2, mode="lstm",
                     bidirectional=True, state_outputs=True, projection_size=3)
    args, outs, _ = rnn.infer_shape(data=(7, 2, 4))
    assert args[1] == (rnn_param_size("lstm", 2, 4, 5, True, 3),)
    assert args[2] == (4, 2, 3) and args[3] == (4, 2, 5)
    assert outs == [(7, 2, 6), (4, 2, 3), (4, 2, 5)]


@requires_oracle
@pytest.mark.oracle
@pytest.mark.parametrize("layers, bidirectional", [(1, False), (2, True)])
def test_projection_matches_mxnet(layers, bidirectional):
    # NOTE: MXNet 1.9.1 has no LSTMP training on CPU ("No training support for LSTM with
    # projection"), so the oracle checks inference values; gradients are checked above.
    code = f"""
arrs = [mx.nd.array(inputs[k]) for k in sorted(inputs)]
o = mx.nd.RNN(*arrs, state_size={H}, num_layers={layers}, bidirectional={bidirectional},
              mode='lstm', state_outputs=True, projection_size={P})
outputs.update(out=o[0].asnumpy(), hy=o[1].asnumpy(), cy=o[2].asnumpy())
"""
    names = ("a_data", "b_params", "c_state", "d_cell")
    arrays = {n: a.astype(numpy.float32)
              for n, a in zip(names, _inputs("lstm", layers, bidirectional, P))}
    mine, theirs = run_both(code, arrays)
    assert_same_results(mine, theirs, rtol=1e-4, atol=2e-5)
