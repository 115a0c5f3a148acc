"""The rest of gluon.loss: hinge family, logistic, triplet, Poisson NLL, cosine embedding, SDML
(NumPy formulas here; MXNet 1.9.1 itself in the opt-in oracle test at the end)."""
import json
import os
import subprocess

import numpy
import pytest

import mxlab as mx
from mxlab.gluon import loss as L

RNG = numpy.random.default_rng(3)
PRED = RNG.normal(size=(3, 4)).astype("float32")
SIGNS = numpy.sign(RNG.normal(size=(3, 4))).astype("float32")
POS = RNG.normal(size=(3, 4)).astype("float32")
NEG = RNG.normal(size=(3, 4)).astype("float32")
PAIR = numpy.array([1, -1, 1], "float32")
COUNTS = RNG.poisson(2, (3, 4)).astype("float32") + 1
A = mx.nd.array


def test_hinge_family_and_logistic():
    margin = numpy.maximum(0, 1 - PRED * SIGNS)
    assert numpy.allclose(L.HingeLoss()(A(PRED), A(SIGNS)).asnumpy(), margin.mean(1))
    sq = numpy.maximum(0, 2 - PRED * SIGNS) ** 2
    assert numpy.allclose(L.SquaredHingeLoss(margin=2)(A(PRED), A(SIGNS)).asnumpy(), sq.mean(1))
    logistic = numpy.log1p(numpy.exp(-PRED * SIGNS)).mean(1)
    assert numpy.allclose(L.LogisticLoss()(A(PRED), A(SIGNS)).asnumpy(), logistic, atol=1e-6)
    binary = (SIGNS > 0).astype("float32")
    assert numpy.allclose(L.LogisticLoss(label_format="binary")(A(PRED), A(binary)).asnumpy(),
                          logistic, atol=1e-6)
    with pytest.raises(ValueError, match="label_format"):
        L.LogisticLoss(label_format="zero-one")


def test_triplet_poisson_and_cosine():
    gap = ((POS - PRED) ** 2 - (NEG - PRED) ** 2).sum(1)
    assert numpy.allclose(L.TripletLoss()(A(PRED), A(POS), A(NEG)).asnumpy(),
                          numpy.maximum(gap + 1, 0), atol=1e-5)
    poisson = (numpy.exp(PRED) - COUNTS * PRED).mean()
    assert numpy.allclose(L.PoissonNLLLoss()(A(PRED), A(COUNTS)).asnumpy(), poisson, atol=1e-5)
    cos = (PRED * POS).sum(1) / numpy.linalg.norm(PRED, axis=1) / numpy.linalg.norm(POS, axis=1)
    want = numpy.where(PAIR == 1, 1 - cos, numpy.maximum(cos - 0.1, 0))
    got = L.CosineEmbeddingLoss(margin=0.1)(A(PRED), A(POS), A(PAIR)).asnumpy()
    assert got.shape == (3, 1) and numpy.allclose(got[:, 0], want, atol=1e-6)


def test_np_flavour_follows_mxnet2_reductions():
    poisson = L.PoissonNLLLoss()(mx.np.array(PRED), mx.np.array(COUNTS))
    assert poisson.shape == (3,)
    cosine = L.CosineEmbeddingLoss()(mx.np.array(PRED), mx.np.array(POS), mx.np.array(PAIR))
    assert cosine.shape == (3,)


def test_sdml_is_kl_to_smoothed_identity():
    dist = ((PRED[:, None] - POS[None]) ** 2).sum(2)
    logp = -dist - numpy.log(numpy.exp(-dist).sum(1, keepdims=True))
    labels = numpy.where(numpy.eye(3) == 1, 0.7, 0.3 / 2)
    want = (labels * (numpy.log(labels) - logp)).sum(1)
    assert numpy.allclose(L.SDMLLoss()(A(PRED), A(POS)).asnumpy(), want, atol=1e-4)


def test_new_losses_differentiate_and_hybridize():
    triplet = lambda: L.TripletLoss(margin=10)  # noqa: E731 (every sample inside the margin)
    for make, args in ((L.HingeLoss, (PRED, SIGNS)), (triplet, (PRED, POS, NEG)),
                       (L.CosineEmbeddingLoss, (PRED, POS, PAIR)), (L.SDMLLoss, (PRED, POS))):
        block = make()
        arrays = [A(a) for a in args]
        arrays[0].attach_grad()
        with mx.autograd.record():
            out = block(*arrays)
        out.backward()
        eager, grad = out.asnumpy(), arrays[0].grad.asnumpy()
        block.hybridize()
        assert numpy.allclose(block(*arrays).asnumpy(), eager, atol=1e-6)
        assert numpy.isfinite(grad).all() and numpy.abs(grad).sum() > 0


ENV = "MXLAB_MXNET_PYTHON"
_ORACLE = """
import json, sys, numpy as np, mxnet as mx
spec = {k: np.array(v, dtype='float32') for k, v in json.loads(sys.argv[1]).items()}
L, A = mx.gluon.loss, mx.nd.array
calls = {EXPRS}
print(json.dumps({name: eval(expr).asnumpy().tolist() for name, expr in calls.items()}))
"""
EXPRS = {
    "hinge": "L.HingeLoss()(A(spec['pred']), A(spec['signs']))",
    "sqhinge": "L.SquaredHingeLoss(margin=2)(A(spec['pred']), A(spec['signs']))",
    "logistic": "L.LogisticLoss()(A(spec['pred']), A(spec['signs']))",
    "triplet": "L.TripletLoss(margin=0.5)(A(spec['pred']), A(spec['pos']), A(spec['neg']))",
    "poisson": "L.PoissonNLLLoss()(A(spec['pred']), A(spec['counts']))",
    "poisson_full": "L.PoissonNLLLoss(from_logits=False, compute_full=True)"
                    "(A(abs(spec['pred']) + 0.1), A(spec['counts']))",
    "cosine": "L.CosineEmbeddingLoss(margin=0.1)(A(spec['pred']), A(spec['pos']), A(spec['pair']))",
    "sdml": "L.SDMLLoss()(A(spec['pred']), A(spec['pos']))",
    "weighted": "L.HingeLoss(weight=0.5)(A(spec['pred']), A(spec['signs']), A(spec['w']))",
}


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get(ENV), reason=f"oracle test: set {ENV} to mxnet==1.9.1")
def test_new_losses_equal_mxnet_191():
    spec = {"pred": PRED, "signs": SIGNS, "pos": POS, "neg": NEG, "pair": PAIR,
            "counts": COUNTS, "w": numpy.array([[1.0], [2.0], [0.5]], "float32")}
    code = _ORACLE.replace("{EXPRS}", repr(EXPRS))
    done = subprocess.run([os.environ[ENV], "-c", code,
                           json.dumps({k: v.tolist() for k, v in spec.items()})],
                          check=True, capture_output=True, text=True, timeout=300)
    want = json.loads(done.stdout.strip().splitlines()[-1])
    ours = {name: eval(expr, {"L": L, "A": A, "spec": spec, "abs": abs})  # noqa: S307
            for name, expr in EXPRS.items()}
    for name, value in ours.items():
        numpy.testing.assert_allclose(value.asnumpy(), want[name], rtol=1e-5, atol=1e-6,
                                      err_msg=name)
