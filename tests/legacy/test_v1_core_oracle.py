"""1.x semantics checked against real MXNet 1.9.1 (opt-in ``oracle`` tests) and pinned values:
mx.metric.PCC, SigmoidBinaryCrossEntropyLoss's pos_weight, FullyConnected's (num_hidden, 1)
bias."""
import pathlib
import sys

import numpy as np
import pytest

import mxlab as mx

sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "oracle"))
from mxnet_oracle import assert_same_outputs, requires_mxnet, run_mxlab  # noqa: E402

PCC_CODE = """
pcc = mx.metric.create('pcc')
for k in range(3):
    pcc.update([mx.nd.array(inputs['label%d' % k])], [mx.nd.array(inputs['pred%d' % k])])
    outputs['local%d' % k] = pcc.get()[1]
    if k == 1:
        pcc.reset_local()
outputs['global'] = pcc.get_global()[1]
pcc.reset_local()
pcc.update([mx.nd.array(inputs['label0'])], [mx.nd.array(inputs['pred0']).argmax(axis=1)])
outputs['scalar_pred'] = pcc.get()[1]
"""

BCE_CODE = """
loss = mx.gluon.loss.SigmoidBinaryCrossEntropyLoss()
prob = mx.gluon.loss.SigmoidBinaryCrossEntropyLoss(from_sigmoid=True)
pred, label, pw = (mx.nd.array(inputs[k]) for k in ('pred', 'label', 'pos_weight'))
outputs['logits'] = loss(pred, label, None, pw).asnumpy()
outputs['probs'] = prob(mx.nd.sigmoid(pred), label, None, pw).asnumpy()
outputs['plain'] = loss(pred, label).asnumpy()
"""

FC_CODE = """
x, w = mx.nd.array(inputs['x']), mx.nd.array(inputs['w'])
b = mx.nd.array(inputs['b']).tostype('row_sparse')   # NOTE: MXNet's oneDNN FC refuses (n, 1)
outputs['y'] = mx.nd.FullyConnected(x, w, b, num_hidden=4).asnumpy()
"""


def _pcc_inputs():
    rng = np.random.RandomState(0)
    inputs = {}
    for k, classes in enumerate((2, 3, 5)):     # NOTE: the confusion matrix grows
        inputs[f"label{k}"] = rng.randint(0, classes, size=20).astype(np.float32)
        inputs[f"pred{k}"] = rng.rand(20, classes).astype(np.float32)
    return inputs


def _bce_inputs():
    rng = np.random.RandomState(1)
    return {"pred": rng.uniform(-5, 5, (6, 5)).astype(np.float32),
            "label": rng.randint(0, 2, (6, 5)).astype(np.float32),
            "pos_weight": rng.uniform(0, 10, (1, 5)).astype(np.float32)}


def _fc_inputs():
    rng = np.random.RandomState(2)
    return {"x": rng.rand(3, 5).astype(np.float32), "w": rng.rand(4, 5).astype(np.float32),
            "b": rng.rand(4, 1).astype(np.float32)}


def test_pcc_grows_and_keeps_global_stats():
    out = run_mxlab(PCC_CODE, _pcc_inputs())
    assert np.isfinite(out["local0"]) and np.isfinite(out["global"])
    assert out["scalar_pred"] == out["local0"]
    labels = np.array([0, 1, 1, 0], np.float32)
    preds = np.array([[0.9, 0.1], [0.2, 0.8], [0.3, 0.7], [0.6, 0.4]], np.float32)
    pcc = mx.metric.PCC()
    pcc.update([mx.nd.array(labels)], [mx.nd.array(preds)])
    assert pcc.get() == ("pcc", 1.0)


def test_bce_pos_weight_scales_the_positive_term():
    out = run_mxlab(BCE_CODE, _bce_inputs())
    inputs = _bce_inputs()
    prob = 1 / (1 + np.exp(-inputs["pred"]))
    label = inputs["label"]
    expected = (-label * np.log(prob) * inputs["pos_weight"]
                - (1 - label) * np.log(1 - prob)).mean(axis=1)
    np.testing.assert_allclose(out["logits"], expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out["probs"], expected, rtol=1e-4, atol=1e-5)


def test_fully_connected_takes_a_column_bias():
    inputs = _fc_inputs()
    out = run_mxlab(FC_CODE, inputs)
    np.testing.assert_allclose(out["y"], inputs["x"] @ inputs["w"].T + inputs["b"].T, rtol=1e-6)
    x, w, b = (mx.nd.array(inputs[k]) for k in ("x", "w", "b"))
    b.attach_grad()
    with mx.autograd.record():
        y = mx.nd.FullyConnected(x, w, b, num_hidden=4)
    y.backward()
    assert b.grad.shape == (4, 1)
    np.testing.assert_allclose(b.grad.asnumpy(), np.full((4, 1), 3.0))
    sym = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=4, bias=mx.sym.var("b", shape=(4, 1)))
    assert sym.infer_shape(x=(3, 5))[0] == [(3, 5), (4, 5), (4, 1)]
    exe = sym.simple_bind(mx.cpu(), x=(3, 5))
    exe.forward(is_train=True, x=x, b=b, **{sym.list_arguments()[1]: w})
    exe.backward(mx.nd.ones((3, 4)))
    np.testing.assert_allclose(exe.grad_dict["b"].asnumpy(), np.full((4, 1), 3.0))


@pytest.mark.oracle
@requires_mxnet
@pytest.mark.parametrize("code,make_inputs", [(PCC_CODE, _pcc_inputs), (BCE_CODE, _bce_inputs),
                                              (FC_CODE, _fc_inputs)],
                         ids=["pcc", "bce_pos_weight", "fc_column_bias"])
def test_matches_mxnet_1_9_1(code, make_inputs):
    assert_same_outputs(code, make_inputs())
