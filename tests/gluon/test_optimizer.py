"""Optimizer rules (two steps each, so states are exercised) against NumPy transcriptions of
MXNet 1.9's update kernels (and, opt-in, MXNet 1.9.1 itself), and the schedulers' values."""
import json
import math
import os
import subprocess

import numpy
import pytest

import mxlab as mx

W0 = numpy.array([0.5, -1.0, 2.0, 0.1], dtype="float32")
GRADS = [numpy.array([0.3, -0.2, 4.0, 0.0], dtype="float32"),
         numpy.array([-0.1, 0.5, -3.0, 1.0], dtype="float32")]
COMMON = {"rescale_grad": 0.5, "clip_gradient": 1.0, "wd": 0.1}


def prep(g, decay=0.0):
    """MXNet's preprocessing: clip(rescale * grad + decay) (decay: Adam/RMSProp's wd * w)."""
    return numpy.clip(g * COMMON["rescale_grad"] + decay, -COMMON["clip_gradient"],
                      COMMON["clip_gradient"])


def sgd_ref(lr=0.1, momentum=0.9):
    w, mom = W0.copy(), numpy.zeros_like(W0)
    for g in GRADS:
        mom = momentum * mom - lr * (prep(g) + 0.1 * w)
        w = w + mom
    return w


def nag_ref(lr=0.1, momentum=0.9):
    w, mom = W0.copy(), numpy.zeros_like(W0)
    for g in GRADS:
        decayed = momentum * mom
        w_new = w - decayed + (momentum + 1) * (decayed - lr * (prep(g) + 0.1 * w))
        mom = decayed - lr * (prep(g) + 0.1 * w_new)  # the kernel reads the updated weight
        w = w_new
    return w


def adam_ref(lr=0.01, b1=0.9, b2=0.999, eps=1e-8, decoupled=False):
    w, m, v = W0.copy(), numpy.zeros_like(W0), numpy.zeros_like(W0)
    for t, g in enumerate(GRADS, 1):
        g = prep(g) if decoupled else prep(g, 0.1 * w)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        lr_t = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = w - lr_t * m / (numpy.sqrt(v) + eps)
        if decoupled:
            w = w - lr_t * 0.1 * w
    return w


def rmsprop_ref(lr=0.01, g1=0.9, eps=1e-8):
    w, n = W0.copy(), numpy.zeros_like(W0)
    for g in GRADS:
        g = prep(g, 0.1 * w)
        n = (1 - g1) * g * g + g1 * n
        w = w - lr * g / numpy.sqrt(n + eps)
    return w


def rmsprop_centered_ref(lr=0.01, g1=0.9, g2=0.9, eps=1e-8):
    w, n, mean, delta = (W0.copy(),) + tuple(numpy.zeros_like(W0) for _ in range(3))
    for g in GRADS:
        g = prep(g, 0.1 * w)
        n = (1 - g1) * g * g + g1 * n
        mean = (1 - g1) * g + g1 * mean
        delta = g2 * delta - lr * g / numpy.sqrt(n - mean * mean + eps)
        w = w + delta
    return w


def adagrad_ref(lr=0.1, eps=1e-7):
    w, h = W0.copy(), numpy.zeros_like(W0)
    for g in GRADS:
        g = prep(g)
        h = h + g * g
        w = w - lr * (g / numpy.sqrt(h + eps) + 0.1 * w)
    return w


CASES = [
    ("sgd", {"learning_rate": 0.1, "momentum": 0.9}, sgd_ref()),
    ("sgd", {"learning_rate": 0.1}, sgd_ref(momentum=0.0)),
    ("nag", {"learning_rate": 0.1, "momentum": 0.9}, nag_ref()),
    ("adam", {"learning_rate": 0.01}, adam_ref()),
    ("adamw", {"learning_rate": 0.01, "epsilon": 1e-8}, adam_ref(decoupled=True)),
    ("rmsprop", {"learning_rate": 0.01}, rmsprop_ref()),
    ("rmsprop", {"learning_rate": 0.01, "centered": True}, rmsprop_centered_ref()),
    ("adagrad", {"learning_rate": 0.1}, adagrad_ref()),
]


@pytest.mark.parametrize("name,kwargs,expected", CASES,
                         ids=[f"{c[0]}{'-' + '-'.join(c[1]) if len(c[1]) > 1 else ''}"
                              for c in CASES])
def test_two_updates_match_mxnet_formulas(name, kwargs, expected):
    opt = mx.optimizer.create(name, **kwargs, **COMMON)
    weight = mx.nd.array(W0)
    state = opt.create_state(0, weight)
    for g in GRADS:
        opt.update(0, weight, mx.nd.array(g), state)
    numpy.testing.assert_allclose(weight.asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_lr_and_wd_multipliers_and_unknown_names():
    param = mx.gluon.Parameter("w", shape=(1,), lr_mult=2.0, wd_mult=0.0)
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=1.0, param_dict={0: param})
    weight = mx.nd.array([1.0])
    opt.update(0, weight, mx.nd.array([1.0]), None)
    numpy.testing.assert_allclose(weight.asnumpy(), [0.8])
    with pytest.raises(ValueError, match="Cannot find optimizer"):
        mx.optimizer.create("nosuch")
    with pytest.raises(TypeError, match="unknown arguments"):   # MXNet: object.__init__
        mx.optimizer.create("sgd", learning_rat=0.1)


# -- schedulers ----------------------------------------------------------------------------------
def test_factor_scheduler():
    s = mx.lr_scheduler.FactorScheduler(step=3, factor=0.5, base_lr=1.0, stop_factor_lr=0.2)
    assert [s(n) for n in range(1, 12)] == [1.0] * 3 + [0.5] * 3 + [0.25] * 3 + [0.2] * 2


def test_multifactor_scheduler_with_warmup():
    s = mx.lr_scheduler.MultiFactorScheduler(step=[4, 6], factor=0.1, base_lr=1.0,
                                             warmup_steps=2, warmup_begin_lr=0.5)
    values = [s(n) for n in range(0, 9)]
    numpy.testing.assert_allclose(values, [0.5, 0.75, 1.0, 1.0, 1.0, 0.1, 0.1, 0.01, 0.01])


def test_cosine_scheduler_with_warmup():
    s = mx.lr_scheduler.CosineScheduler(max_update=12, base_lr=1.0, final_lr=0.1,
                                        warmup_steps=2, warmup_begin_lr=0.0)
    assert s(1) == pytest.approx(0.5)
    expected = [0.1 + 0.9 * (1 + math.cos(math.pi * (n - 2) / 10)) / 2 for n in (2, 7, 12)]
    assert [s(n) for n in (2, 7, 12)] == pytest.approx(expected)
    assert s(20) == pytest.approx(0.1)


def test_poly_scheduler_and_constant_warmup():
    s = mx.lr_scheduler.PolyScheduler(max_update=10, base_lr=1.0, pwr=2, warmup_steps=2,
                                      warmup_begin_lr=0.3, warmup_mode="constant")
    assert s(1) == 0.3
    assert s(6) == pytest.approx((1 - 4 / 8) ** 2)


def test_scheduler_drives_optimizer_learning_rate():
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5)
    opt = mx.optimizer.SGD(learning_rate=1.0, lr_scheduler=sched)
    weight = mx.nd.array([0.0])
    for _ in range(3):
        opt.update(0, weight, mx.nd.array([1.0]), None)
    numpy.testing.assert_allclose(weight.asnumpy(), [-(1.0 + 0.5 + 0.25)])
    with pytest.raises(UserWarning, match="LRScheduler of the optimizer has already been "
                       "defined"):
        opt.set_learning_rate(0.1)


@pytest.mark.parametrize("name", ["sgd", "nag", "adagrad"])
def test_scheduler_without_base_lr_as_in_mxnet_191(name):
    # D2L's chapter_optimization/lr-scheduler passes plain callables (no base_lr): MXNet 1.9.1's
    # SGD, NAG and AdaGrad default learning_rate to None, so the scheduler alone sets the rate
    class SquareRootScheduler:
        def __call__(self, num_update):
            return 0.1 * pow(num_update + 1.0, -0.5)

    opt = mx.optimizer.create(name, lr_scheduler=SquareRootScheduler())
    assert opt.lr is None and opt.learning_rate == pytest.approx(0.1)
    assert mx.optimizer.create(name).learning_rate == 0.01
    with pytest.raises(AttributeError, match="base_lr"):   # NOTE: as MXNet 1.9.1
        mx.optimizer.create(name, learning_rate=0.5, lr_scheduler=SquareRootScheduler())


_ORACLE_CODE = """
import json, sys, numpy as np, mxnet as mx
name, kwargs, w0, grads = json.loads(sys.argv[1])
if name == 'adamw':
    # NOTE: 1.9 has AdamW only as the contrib kernel; the python class is MXNet 2's.
    sys.exit(3)
opt = mx.optimizer.create(name, **kwargs)
weight = mx.nd.array(w0)
state = opt.create_state(0, weight)
for g in grads:
    opt.update(0, weight, mx.nd.array(g), state)
print(json.dumps(weight.asnumpy().tolist()))
"""


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get("MXLAB_MXNET_PYTHON"),
                    reason="oracle test: set MXLAB_MXNET_PYTHON to a python with mxnet==1.9.1")
@pytest.mark.parametrize("name,kwargs,expected", [c for c in CASES if c[0] != "adamw"],
                         ids=[f"{c[0]}-{len(c[1])}" for c in CASES if c[0] != "adamw"])
def test_oracle_updates_equal_mxnet(name, kwargs, expected):
    args = json.dumps([name, dict(kwargs, **COMMON), W0.tolist(), [g.tolist() for g in GRADS]])
    result = subprocess.run([os.environ["MXLAB_MXNET_PYTHON"], "-c", _ORACLE_CODE, args],
                            check=True, capture_output=True, text=True, timeout=300)
    mxnet_weight = numpy.array(json.loads(result.stdout.strip().splitlines()[-1]))
    opt = mx.optimizer.create(name, **kwargs, **COMMON)
    weight = mx.nd.array(W0)
    state = opt.create_state(0, weight)
    for g in GRADS:
        opt.update(0, weight, mx.nd.array(g), state)
    numpy.testing.assert_allclose(weight.asnumpy(), mxnet_weight, rtol=1e-5, atol=1e-6)


def test_optimizer_records_numpy_mode_and_updater_works_without_it():
    # MXNet: Optimizer.allow_np_array is the mode it was made in; an old pickled optimizer has none
    with mx.util.np_array(True):
        assert mx.optimizer.SGD().allow_np_array is True
    optimizer = mx.optimizer.SGD(learning_rate=0.5)
    assert optimizer.allow_np_array is False
    del optimizer.allow_np_array
    weight = mx.nd.ones((2,))
    mx.optimizer.get_updater(optimizer)(0, mx.nd.ones((2,)), weight)
    assert weight.asnumpy().tolist() == [0.5, 0.5]


_GROUP_ADAGRAD_CODE = """
import json, sys, numpy as np, mxnet as mx
kwargs, w0, grads = json.loads(sys.argv[1])
opt = mx.optimizer.create('groupadagrad', **kwargs)
weight = mx.nd.array(w0)
state = opt.create_state(0, weight)
for g in grads:
    opt.update(0, weight, mx.nd.array(g), state)
print(json.dumps([weight.asnumpy().tolist(), state.asnumpy().tolist()]))
"""


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get("MXLAB_MXNET_PYTHON"),
                    reason="oracle test: set MXLAB_MXNET_PYTHON to a python with mxnet==1.9.1")
@pytest.mark.parametrize("kwargs", [{"learning_rate": 0.1},
                                    {"learning_rate": 0.05, "clip_gradient": 0.5,
                                     "rescale_grad": 2.0, "eps": 1e-3}])
def test_oracle_group_adagrad_equals_mxnet(kwargs):
    rng = numpy.random.default_rng(7)
    w0 = rng.uniform(-1, 1, (4, 3)).astype("float32")
    grads = [rng.uniform(-1, 1, (4, 3)).astype("float32") for _ in range(3)]
    args = json.dumps([kwargs, w0.tolist(), [g.tolist() for g in grads]])
    result = subprocess.run([os.environ["MXLAB_MXNET_PYTHON"], "-c", _GROUP_ADAGRAD_CODE, args],
                            check=True, capture_output=True, text=True, timeout=300)
    mxnet_weight, mxnet_state = json.loads(result.stdout.strip().splitlines()[-1])
    opt = mx.optimizer.create("groupadagrad", **kwargs)
    weight = mx.nd.array(w0)
    state = opt.create_state(0, weight)
    for g in grads:
        opt.update(0, weight, mx.nd.array(g), state)
    numpy.testing.assert_allclose(weight.asnumpy(), mxnet_weight, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(state.asnumpy(), mxnet_state, rtol=1e-5, atol=1e-6)


def test_group_adagrad_refuses_weight_decay_and_non_2d_weights():
    opt = mx.optimizer.contrib.GroupAdaGrad(wd=0.1)
    weight = mx.nd.ones((2, 2))
    with pytest.raises(ValueError, match="(?i)weight decay is not supported"):
        opt.update([0], [weight], [mx.nd.ones((2, 2))], [opt.create_state(0, weight)])
    with pytest.raises(ValueError, match="(?i)must be 2-d"):
        opt.create_state(0, mx.nd.ones((3,)))
