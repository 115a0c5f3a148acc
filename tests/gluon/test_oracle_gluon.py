"""Opt-in differential tests against real MXNet 1.9.1 (run in a subprocess; skipped unless
MXLAB_MXNET_PYTHON names its python): losses, learning-rate schedules, layer outputs."""
import json
import os
import subprocess

import numpy
import pytest

import mxlab as mx

ENV = "MXLAB_MXNET_PYTHON"
pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(not os.environ.get(ENV),
                                 reason=f"oracle test: set {ENV} to a python with mxnet==1.9.1")]

RNG = numpy.random.default_rng(5)
PRED = RNG.uniform(-2, 2, (4, 3)).astype("float32")
LABEL = RNG.uniform(0, 1, (4, 3)).astype("float32")
SPARSE = numpy.array([0, 2, 1, 2], dtype="float32")
WEIGHT = RNG.uniform(0, 1, (4, 1)).astype("float32")

LOSSES = {
    "L1Loss()": "dense", "L2Loss(weight=2.0)": "dense", "HuberLoss(rho=0.7)": "dense",
    "SigmoidBinaryCrossEntropyLoss()": "dense",
    "SigmoidBinaryCrossEntropyLoss(from_sigmoid=True)": "prob",
    "SoftmaxCrossEntropyLoss()": "sparse", "SoftmaxCrossEntropyLoss(sparse_label=False)": "dense",
    "KLDivLoss(from_logits=False)": "dense",
}

_LOSS_CODE = """
import json, sys, numpy as np, mxnet as mx
spec = json.loads(sys.argv[1])
out = {}
for expr, kind in spec['losses'].items():
    pred = np.array(spec['prob'] if kind == 'prob' else spec['pred'], dtype='float32')
    label = np.array(spec['sparse'] if kind == 'sparse' else spec['label'], dtype='float32')
    loss = eval('mx.gluon.loss.' + expr)
    value = loss(mx.nd.array(pred), mx.nd.array(label), mx.nd.array(spec['weight']))
    out[expr] = value.asnumpy().tolist()
lrs = {}
for expr in spec['schedulers']:
    sched = eval('mx.lr_scheduler.' + expr)
    lrs[expr] = [sched(n) for n in range(0, 30)]
print(json.dumps({'losses': out, 'lrs': lrs}))
"""

SCHEDULERS = [
    "FactorScheduler(step=4, factor=0.7, base_lr=0.5, warmup_steps=3, warmup_begin_lr=0.1)",
    "MultiFactorScheduler(step=[5, 9, 20], factor=0.3, base_lr=1.0)",
    "CosineScheduler(max_update=25, base_lr=1.0, final_lr=0.05, warmup_steps=5)",
    "PolyScheduler(max_update=25, base_lr=1.0, pwr=3, final_lr=0.1, warmup_steps=4, "
    "warmup_mode='constant', warmup_begin_lr=0.2)",
]


@pytest.fixture(scope="module")
def mxnet_results():
    prob = 1 / (1 + numpy.exp(-PRED))
    spec = {"losses": LOSSES, "schedulers": SCHEDULERS, "pred": PRED.tolist(),
            "prob": prob.tolist(), "label": LABEL.tolist(), "sparse": SPARSE.tolist(),
            "weight": WEIGHT.tolist()}
    done = subprocess.run([os.environ[ENV], "-c", _LOSS_CODE, json.dumps(spec)], check=True,
                          capture_output=True, text=True, timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1]), prob


@pytest.mark.parametrize("expr", list(LOSSES))
def test_losses_equal_mxnet(expr, mxnet_results):
    results, prob = mxnet_results
    kind = LOSSES[expr]
    pred = prob if kind == "prob" else PRED
    label = SPARSE if kind == "sparse" else LABEL
    loss = eval("mx.gluon.loss." + expr)  # noqa: S307 (a fixed table above)
    ours = loss(mx.nd.array(pred), mx.nd.array(label), mx.nd.array(WEIGHT)).asnumpy()
    numpy.testing.assert_allclose(ours, results["losses"][expr], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("expr", SCHEDULERS)
def test_schedules_equal_mxnet(expr, mxnet_results):
    sched = eval("mx.lr_scheduler." + expr)  # noqa: S307 (a fixed table above)
    numpy.testing.assert_allclose([sched(n) for n in range(0, 30)],
                                  mxnet_results[0]["lrs"][expr], rtol=1e-6)


# Layers whose outputs are determined by the input once initialized with mx.init.One().
LAYERS = [
    "nn.LayerNorm()", "nn.InstanceNorm()", "nn.GroupNorm(2)", "nn.BatchNorm()",
    "nn.ELU(0.5)", "nn.SELU()", "nn.GELU()", "nn.Swish(1.5)", "nn.LeakyReLU(0.2)",
    "nn.PReLU()", "nn.Activation('softrelu')",
    "nn.AvgPool2D(3, 2, 1, ceil_mode=True)", "nn.AvgPool2D(3, 2, 1, count_include_pad=False)",
    "nn.MaxPool2D(3, 2, 1)", "nn.GlobalMaxPool2D()", "nn.Flatten()",
    "nn.Conv2D(3, 3, strides=2, padding=1, dilation=1, groups=1)",
    "nn.Conv2D(4, (3, 1), padding=(1, 0), groups=2, use_bias=False)",
    "nn.Conv2DTranspose(2, 3, strides=2, padding=1, output_padding=1)",
]
X4 = RNG.uniform(-2, 2, (2, 4, 5, 5)).astype("float32")

_LAYER_CODE = """
import json, sys, numpy as np, mxnet as mx
from mxnet.gluon import nn
spec = json.loads(sys.argv[1])
x = mx.nd.array(np.array(spec['x'], dtype='float32'))
out = {}
for expr in spec['layers']:
    layer = eval(expr)
    layer.initialize(mx.init.One())
    out[expr] = layer(x).asnumpy().tolist()
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def mxnet_layer_outputs():
    spec = {"layers": LAYERS, "x": X4.tolist()}
    done = subprocess.run([os.environ[ENV], "-c", _LAYER_CODE, json.dumps(spec)], check=True,
                          capture_output=True, text=True, timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("expr", LAYERS)
def test_layers_equal_mxnet(expr, mxnet_layer_outputs):
    from mxlab.gluon import nn  # noqa: F401 (used by eval)

    layer = eval(expr)  # noqa: S307 (a fixed table above)
    layer.initialize(mx.init.One())
    ours = layer(mx.nd.array(X4)).asnumpy()
    expected = numpy.array(mxnet_layer_outputs[expr])
    assert ours.shape == expected.shape
    numpy.testing.assert_allclose(ours, expected, rtol=1e-4, atol=1e-5)
