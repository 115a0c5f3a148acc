"""mx.gluon.metric (MXNet 2.0): values hand-computed from confusion counts and NumPy, the JSON
config round trip, mx.metric keeping MXNet 1.x's formulas, and (oracle) the 2.0 metrics whose
value equals a 1.9.1 metric's (micro F1 / MCC / Pearson r, PCC) compared with MXNet 1.9.1."""
import json
import os
import subprocess

import numpy
import pytest

import mxlab as mx

M = mx.gluon.metric
RNG = numpy.random.default_rng(3)
ENV = "MXLAB_MXNET_PYTHON"


def _counts(truth, guess, cls):
    tp = numpy.sum((guess == cls) & (truth == cls))
    fp = numpy.sum((guess == cls) & (truth != cls))
    fn = numpy.sum((guess != cls) & (truth == cls))
    return tp, fp, fn


def _f1(tp, fp, fn):
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


def test_binary_f1_counts_over_all_updates():
    probs = [RNG.dirichlet([1, 1], size=7) for _ in range(3)]
    truths = [RNG.integers(0, 2, size=7) for _ in range(3)]
    f1, fb = M.F1(), M.Fbeta(beta=2)
    for p, t in zip(probs, truths):
        f1.update([mx.np.array(t)], [mx.np.array(p)])
        fb.update([mx.np.array(t)], [mx.np.array(p)])
    guess = numpy.concatenate([(p[:, 1] > 0.5).astype(int) for p in probs])
    tp, fp, fn = _counts(numpy.concatenate(truths), guess, 1)
    assert f1.get()[1] == pytest.approx(_f1(tp, fp, fn))
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    assert fb.get()[1] == pytest.approx(5 * precision * recall / (4 * precision + recall))
    assert f1.num_inst == 21


def test_multiclass_f1_macro_is_mean_over_classes():
    probs = RNG.dirichlet([1, 1, 1], size=12)
    truth = RNG.integers(0, 3, size=12)
    macro = M.F1(class_type="multiclass", average="macro")
    per_class = M.F1(class_type="multiclass", average=None)
    for metric in (macro, per_class):
        metric.update([mx.np.array(truth)], [mx.np.array(probs)])
    scores = [_f1(*_counts(truth, probs.argmax(1), c)) for c in range(3)]
    assert macro.get()[1] == pytest.approx(numpy.mean(scores))
    numpy.testing.assert_allclose(per_class.get()[1], scores)
    with pytest.raises(ValueError, match="class_type"):
        M.F1(class_type="ordinal")
    with pytest.raises(ValueError, match="binary"):
        M.F1().update([mx.np.array([0, 2])], [mx.np.array([[0.1, 0.9], [0.8, 0.2]])])


def test_binary_accuracy_thresholds():
    bacc = M.BinaryAccuracy(threshold=0.6)
    bacc.update([mx.np.array([0.0, 1.0, 0.0])], [mx.np.array([0.7, 1.0, 0.55])])
    assert bacc.get() == ("binary_accuracy", pytest.approx(2 / 3))


def test_pcc_equals_mcc_on_two_classes_and_grows():
    truth = RNG.integers(0, 2, size=30)
    probs = RNG.dirichlet([1, 1], size=30)
    pcc, mcc = M.PCC(), M.MCC()
    for metric in (pcc, mcc):
        metric.update([mx.np.array(truth)], [mx.np.array(probs)])
    assert pcc.get()[1] == pytest.approx(mcc.get()[1])
    pcc.update([mx.np.array([4])], [mx.np.array([4])])
    assert pcc.lcm.shape == (5, 5) and pcc.lcm.sum() == 31


def test_regression_metrics_average_per_example():
    label, pred = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
    label2, pred2 = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3))
    got = {}
    for name in ("mae", "mse", "rmse"):
        metric = M.create(name)
        metric.update([mx.np.array(label)], [mx.np.array(pred)])
        metric.update(mx.np.array(label2), mx.np.array(pred2))  # a single array, not a list
        got[name] = metric.get()[1]
    diff = numpy.concatenate([label - pred, label2 - pred2])
    assert got["mae"] == pytest.approx(numpy.abs(diff).mean())
    assert got["mse"] == pytest.approx((diff ** 2).mean())
    assert got["rmse"] == pytest.approx(numpy.sqrt((diff ** 2).mean()))
    mpd = M.MeanPairwiseDistance()
    mpd.update([mx.np.array(label)], [mx.np.array(pred)])
    assert mpd.get()[1] == pytest.approx(numpy.linalg.norm(label - pred, axis=1).mean())
    cos = M.MeanCosineSimilarity()
    cos.update([mx.np.array(label)], [mx.np.array(pred)])
    want = ((label * pred).sum(1) / numpy.linalg.norm(label, axis=1)
            / numpy.linalg.norm(pred, axis=1)).mean()
    assert cos.get()[1] == pytest.approx(want)


def test_cross_entropy_logits_ignore_label_and_perplexity():
    logits = RNG.normal(size=(5, 4))
    probs = numpy.exp(logits) / numpy.exp(logits).sum(1, keepdims=True)
    truth = numpy.array([0, 3, 1, 3, 2])
    nll = -numpy.log(probs[numpy.arange(5), truth])
    ce = M.CrossEntropy(from_logits=True, ignore_label=3)
    ce.update([mx.np.array(truth)], [mx.np.array(logits)])
    assert ce.get()[1] == pytest.approx(nll[truth != 3].mean())
    ppl = M.Perplexity()
    ppl.update([mx.np.array(truth)], [mx.np.array(probs)])
    assert ppl.get()[1] == pytest.approx(numpy.exp(nll.mean()))
    with pytest.raises(ValueError, match="shape mismatch"):
        ce.update([mx.np.array([0, 1])], [mx.np.array(logits)])


def test_pearson_streams_over_updates():
    parts = [(RNG.normal(size=n), RNG.normal(size=n)) for n in (3, 8, 5)]
    metric = M.PearsonCorrelation()
    for label, pred in parts:
        metric.update([mx.np.array(label)], [mx.np.array(label + pred)])
    labels = numpy.concatenate([p[0] for p in parts])
    preds = numpy.concatenate([p[0] + p[1] for p in parts])
    assert metric.get()[1] == pytest.approx(numpy.corrcoef(labels, preds)[0, 1])
    metric.reset()
    assert numpy.isnan(metric.get()[1])


@pytest.mark.parametrize("name", ["acc", "f1", "fbeta", "mcc", "pcc", "mae", "rmse", "mpd",
                                  "cos_sim", "ce", "perplexity", "pearsonr", "loss",
                                  "binaryaccuracy"])
def test_config_json_round_trip(name):
    # NOTE: TopKAccuracy is left out: MXNet appends "_{top_k}" to its name at every creation
    metric = M.create(name)
    again = M.create(json.dumps(metric.get_config()))
    assert type(again) is type(metric) and again.get_config() == metric.get_config()


def test_composite_uses_the_2_0_registry():
    composite = M.create(["f1", "mcc"])
    assert type(composite.metrics[0]) is M.F1
    again = M.create(json.dumps(composite.get_config()))
    assert [type(m) for m in again.metrics] == [M.F1, M.MCC]


def test_mx_metric_keeps_the_1_x_formulas():
    # 1.x RMSE: the mean of each update's RMSE; 2.0: the root of the overall MSE
    old, new = mx.metric.RMSE(), M.RMSE()
    for label, pred in (([0.0, 0.0], [1.0, 1.0]), ([0.0, 0.0], [3.0, 3.0])):
        for metric in (old, new):
            metric.update([mx.nd.array(label)], [mx.nd.array(pred)])
    assert old.get()[1] == pytest.approx(2.0) and new.get()[1] == pytest.approx(numpy.sqrt(5))
    assert type(mx.metric.create("f1")) is mx.metric.F1 is not M.F1
    assert "nll_loss" in mx.metric._REGISTRY and "nll_loss" not in M._REGISTRY


_ORACLE = r"""
import json, sys
import numpy as np
import mxnet as mx
spec = json.loads(sys.argv[1])
out = {}
for key, name, kwargs, pairs in spec:
    metric = mx.metric.create(name, **kwargs)
    for label, pred in pairs:
        metric.update([mx.nd.array(label)], [mx.nd.array(pred)])
    out[key] = metric.get()[1]
print(json.dumps(out))
"""


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get(ENV), reason=f"oracle test: set {ENV} to mxnet==1.9.1")
def test_2_0_metrics_equal_their_mxnet_191_counterparts():
    binary = [(RNG.integers(0, 2, size=9).tolist(), RNG.dirichlet([1, 1], size=9).tolist())
              for _ in range(3)]
    multi = [(RNG.integers(0, 4, size=9).tolist(), RNG.dirichlet([1] * 4, size=9).tolist())
             for _ in range(3)]
    reg = [(RNG.normal(size=6).tolist(), RNG.normal(size=6).tolist()) for _ in range(3)]
    spec = [("f1", "f1", {"average": "micro"}, binary), ("mcc", "mcc", {"average": "micro"},
                                                          binary),
            ("pcc", "pcc", {}, multi), ("pearsonr", "pearsonr", {"average": "micro"}, reg)]
    done = subprocess.run([os.environ[ENV], "-c", _ORACLE, json.dumps(spec)], check=True,
                          capture_output=True, text=True, timeout=300)
    want = json.loads(done.stdout.strip().splitlines()[-1])
    for key, name, _, pairs in spec:
        metric = M.create(name)
        for label, pred in pairs:
            metric.update([mx.np.array(label)], [mx.np.array(pred)])
        assert metric.get()[1] == pytest.approx(want[key], rel=1e-6), key
