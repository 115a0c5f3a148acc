"""AdaBelief, LANS and Test (MXNet 2's Python rules; MXNet 1.9.1 has no such classes) against
NumPy transcriptions, two steps each so the states are exercised; the MXNet 2 interface
(lists, use_fused_step, float16 master copies)."""
import numpy
import pytest

import mxlab as mx

W0 = numpy.array([0.5, -1.0, 2.0, 0.25], dtype=numpy.float32)
GRADS = [numpy.array([1.0, -2.0, 0.5, 3.0], dtype=numpy.float32),
         numpy.array([-0.5, 1.0, 2.0, -1.0], dtype=numpy.float32)]


def _run(opt):
    weight = mx.nd.array(W0)
    state = opt.create_state_multi_precision(0, weight)
    for g in GRADS:
        opt.update([0], [weight], [mx.nd.array(g)], [state])
    return weight.asnumpy()


def _adabelief(lr=0.01, b1=0.9, b2=0.999, eps=1e-6, wd=0.1, rescale=0.5, clip=1.0):
    w, m, v = W0.astype(numpy.float64), numpy.zeros(4), numpy.zeros(4)
    for t, g in enumerate(GRADS, 1):
        g = numpy.clip(g * rescale + wd * w, -clip, clip)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * (g - m) ** 2 + eps
        w = w - lr * numpy.sqrt(1 - b2 ** t) / (1 - b1 ** t) * m / (numpy.sqrt(v) + eps)
    return w


def _lans(lr=0.01, b1=0.9, b2=0.999, eps=1e-6, wd=0.1, rescale=0.5):
    w, m, v = W0.astype(numpy.float64), numpy.zeros(4), numpy.zeros(4)
    for t, g in enumerate(GRADS, 1):
        g = g * rescale
        g = g / numpy.linalg.norm(g)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        r1 = numpy.linalg.norm(w)
        denom = numpy.sqrt(v / (1 - b2 ** t)) + eps
        first = m / (1 - b1 ** t) / denom + wd * w
        w = w - lr * r1 / numpy.linalg.norm(first) * b1 * first
        second = g / denom + wd * w
        w = w - lr * r1 / numpy.linalg.norm(second) * (1 - b1) * second
    return w


@pytest.mark.parametrize("fused", [False, True])
def test_adabelief_matches_its_formula(fused):
    opt = mx.optimizer.AdaBelief(learning_rate=0.01, wd=0.1, rescale_grad=0.5,
                                 clip_gradient=1.0, use_fused_step=fused)
    numpy.testing.assert_allclose(_run(opt), _adabelief(), rtol=1e-5, atol=1e-6)


def test_lans_matches_its_formula():
    opt = mx.optimizer.create("lans", learning_rate=0.01, wd=0.1, rescale_grad=0.5)
    numpy.testing.assert_allclose(_run(opt), _lans(), rtol=1e-5, atol=1e-6)


def test_test_optimizer_and_float16_master_copy():
    opt = mx.optimizer.create("test", learning_rate=0.5, rescale_grad=2.0)
    weight = mx.nd.array([1.0, 2.0], dtype="float16")
    opt.multi_precision = True
    state = opt.create_state_multi_precision(0, weight)
    assert state[0].dtype == numpy.float32 and state[1].shape == (2,)
    opt.update_multi_precision([0], [weight], [mx.nd.array([0.25, 0.5], dtype="float16")],
                               [state])
    numpy.testing.assert_allclose(weight.asnumpy(), [0.75, 1.5])
    numpy.testing.assert_allclose(state[0].asnumpy(), [0.75, 1.5])
    assert weight.dtype == numpy.float16


def test_lr_mult_by_index_and_name_and_user_warning():
    opt = mx.optimizer.SGD(learning_rate=1.0, param_idx2name={1: "fc_weight"})
    opt.set_lr_mult({0: 0.5, "fc_weight": 0.25})
    assert opt._get_lrs([0, 1, 2]) == [0.5, 0.25, 1.0]
    sched = mx.lr_scheduler.FactorScheduler(step=1)
    with pytest.raises(UserWarning):
        mx.optimizer.Optimizer(lr_scheduler=sched, learning_rate=0.3).set_learning_rate(0.5)
