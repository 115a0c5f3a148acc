"""CTCLoss: the negative log-likelihood summed over every alignment (brute force here) and its
gradient; the opt-in oracle test compares values and gradients with MXNet 1.9.1."""
import itertools
import json
import os
import subprocess

import numpy
import pytest

import mxlab as mx

RNG = numpy.random.default_rng(0)
T, N, C = 4, 2, 3
DATA = RNG.normal(size=(T, N, C)).astype("float32")
LAST = numpy.array([[0, 1], [1, -1]], "float32")      # blank = C - 1, padding -1
FIRST = numpy.array([[1, 2], [2, 0]], "float32")      # blank = 0, padding 0


def brute_force_nll(logits, seq, blank):
    """-log sum over every path of length T that collapses (merge repeats, drop blanks) to seq."""
    probs = numpy.exp(logits) / numpy.exp(logits).sum(-1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(logits.shape[-1]), repeat=logits.shape[0]):
        merged = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
        if [k for k in merged if k != blank] == list(seq):
            total += numpy.prod([probs[t, k] for t, k in enumerate(path)])
    return -numpy.log(total)


@pytest.mark.parametrize("labels,blank_label,blank,seqs", [
    (LAST, "last", C - 1, [[0, 1], [1]]), (FIRST, "first", 0, [[1, 2], [2]])])
def test_ctc_equals_brute_force(labels, blank_label, blank, seqs):
    loss = mx.nd.CTCLoss(mx.nd.array(DATA), mx.nd.array(labels), blank_label=blank_label)
    want = [brute_force_nll(DATA[:, n].astype(float), seqs[n], blank) for n in range(N)]
    numpy.testing.assert_allclose(loss.asnumpy(), want, rtol=1e-5)


def test_ctc_gradient_matches_central_differences():
    x = mx.nd.array(DATA)
    x.attach_grad()
    with mx.autograd.record():
        loss = mx.nd.CTCLoss(x, mx.nd.array(LAST), blank_label="last").sum()
    loss.backward()
    eps, numeric = 1e-3, numpy.zeros_like(DATA)
    checked = [(t, n, k) for t in range(T) for n in range(N) for k in range(C)][::3]
    for idx in checked:
        plus, minus = DATA.astype(float).copy(), DATA.astype(float).copy()
        plus[idx] += eps
        minus[idx] -= eps
        numeric[idx] = sum(brute_force_nll(plus[:, n], s, C - 1) - brute_force_nll(
            minus[:, n], s, C - 1) for n, s in enumerate([[0, 1], [1]])) / (2 * eps)
    grads = x.grad.asnumpy()
    numpy.testing.assert_allclose([grads[i] for i in checked], [numeric[i] for i in checked],
                                  atol=2e-3)


def test_lengths_and_errors():
    with_lengths = mx.nd.CTCLoss(mx.nd.array(DATA), mx.nd.array(LAST), mx.nd.array([3, 4]),
                                 mx.nd.array([2, 1]), use_data_lengths=True,
                                 use_label_lengths=True, blank_label="last").asnumpy()
    assert numpy.isclose(with_lengths[0], brute_force_nll(DATA[:3, 0], [0, 1], C - 1),
                         rtol=1e-5)
    with pytest.raises(ValueError, match="holds a class outside"):
        mx.nd.CTCLoss(mx.nd.array(DATA), mx.nd.array([[C, 0], [1, 0]]),
                      blank_label="last").wait_to_read()


def test_a_label_equal_to_the_blank_is_computed_as_mxnet_does():
    """MXNet computes labels holding the blank (its test_loss::test_ctc_loss passes [3, 2, 2]
    with 4 classes); the values are MXNet 1.9.1's on this data (NTC, blank last)."""
    data = numpy.random.default_rng(0).standard_normal((2, 12, 4)).astype("float32")
    loss = mx.gluon.loss.CTCLoss()
    for labels, expected in (([[2, 1, -1, -1], [3, 2, 2, -1]], [7.7337966, 9.8620300]),
                             ([[2, 3, -1, -1], [3, 3, 2, -1]], [8.6242390, 11.7930908])):
        got = loss(mx.nd.array(data), mx.nd.array(labels)).asnumpy()
        numpy.testing.assert_allclose(got, expected, rtol=1e-5)


def test_gluon_ctc_loss_layouts_and_hybridize():
    pred = mx.nd.array(DATA.transpose(1, 0, 2))           # NTC
    block = mx.gluon.loss.CTCLoss()
    eager = block(pred, mx.nd.array(LAST)).asnumpy()
    block.hybridize()
    numpy.testing.assert_allclose(block(pred, mx.nd.array(LAST)).asnumpy(), eager, rtol=1e-6)
    tnc = mx.gluon.loss.CTCLoss(layout="TNC", label_layout="TN")
    numpy.testing.assert_allclose(tnc(mx.nd.array(DATA), mx.nd.array(LAST.T)).asnumpy(), eager,
                                  rtol=1e-6)
    assert numpy.allclose(mx.npx.ctc_loss(mx.np.array(DATA), mx.np.array(LAST),
                                          blank_label="last").asnumpy(), eager)


ENV = "MXLAB_MXNET_PYTHON"
_ORACLE = """
import json, sys, numpy as np, mxnet as mx
spec = json.loads(sys.argv[1])
x = mx.nd.array(spec['data']); x.attach_grad()
with mx.autograd.record():
    loss = mx.nd.CTCLoss(x, mx.nd.array(spec['label']), mx.nd.array(spec['dl']),
                         mx.nd.array(spec['ll']), use_data_lengths=True, use_label_lengths=True,
                         blank_label='last')
    (loss * mx.nd.array([1.0, 3.0])).sum().backward()
print(json.dumps({'loss': loss.asnumpy().tolist(), 'grad': x.grad.asnumpy().tolist()}))
"""


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get(ENV), reason=f"oracle test: set {ENV} to mxnet==1.9.1")
def test_ctc_equals_mxnet_191():
    data = RNG.normal(size=(7, 2, 6)).astype("float32")
    spec = {"data": data.tolist(), "label": [[0, 1, 1], [2, 3, -1]], "dl": [7, 5], "ll": [3, 2]}
    done = subprocess.run([os.environ[ENV], "-c", _ORACLE, json.dumps(spec)], check=True,
                          capture_output=True, text=True, timeout=300)
    want = json.loads(done.stdout.strip().splitlines()[-1])
    x = mx.nd.array(data)
    x.attach_grad()
    with mx.autograd.record():
        loss = mx.nd.CTCLoss(x, mx.nd.array(spec["label"]), mx.nd.array(spec["dl"]),
                             mx.nd.array(spec["ll"]), use_data_lengths=True,
                             use_label_lengths=True, blank_label="last")
        (loss * mx.nd.array([1.0, 3.0])).sum().backward()
    numpy.testing.assert_allclose(loss.asnumpy(), want["loss"], rtol=1e-5)
    numpy.testing.assert_allclose(x.grad.asnumpy(), want["grad"], atol=1e-5)
