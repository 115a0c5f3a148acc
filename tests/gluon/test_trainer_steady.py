"""The steady-state SGD step (issue 15): ``Trainer`` and ``SGD`` keep what a repeated step reuses
(the parameter plan, the prepared engine push); every change between steps is still honoured.

Each test steps a small net several times and compares the weights with NumPy's arithmetic in
the kernel's order of operations (batch 4 is a power of two, so ``w - g * (lr / 4)`` is the exact
value of MXNet's ``w - lr * (g / 4)``).
"""
import numpy
import pytest

import mxlab as mx
from mxlab import gluon

BATCH = 4


def _net(**opt):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(3, activation="relu", in_units=5), gluon.nn.Dense(2, in_units=3))
    net.initialize(mx.init.Uniform(1.0))
    params = list(net.collect_params().values())
    trainer = gluon.Trainer(params, "sgd", dict({"learning_rate": 0.1}, **opt))
    return net, params, trainer


def _backward(net, seed):
    x = mx.nd.array(numpy.random.default_rng(seed).standard_normal((BATCH, 5)))
    with mx.autograd.record():
        loss = (net(x) ** 2).sum()
    loss.backward()


def _values(params):
    return [p.data().asnumpy().copy() for p in params], [p.grad().asnumpy().copy() for p in params]


def _sgd_expected(ws, gs, lrs):
    """``w - g * (lr / batch)``, per parameter (no weight decay, no clip)."""
    return [w - g * (lr / BATCH) for w, g, lr in zip(ws, gs, lrs)]


def _check(params, expected):
    for p, want in zip(params, expected):
        numpy.testing.assert_array_equal(p.data().asnumpy(), want)


def test_repeated_steps_match_numpy_bit_for_bit():
    net, params, trainer = _net()
    for seed in range(4):
        _backward(net, seed)
        ws, gs = _values(params)
        trainer.step(BATCH)
        _check(params, _sgd_expected(ws, gs, [0.1] * len(params)))


def test_set_learning_rate_between_steps_is_used_by_the_next_step():
    net, params, trainer = _net()
    for seed, lr in enumerate([0.1, 0.1, 0.25, 0.25, 0.5]):
        trainer.set_learning_rate(lr)
        _backward(net, seed)
        ws, gs = _values(params)
        trainer.step(BATCH)
        _check(params, _sgd_expected(ws, gs, [lr] * len(params)))


def test_lr_mult_and_wd_mult_edits_between_steps_are_used():
    net, params, trainer = _net()
    for seed in range(2):
        _backward(net, seed)
        trainer.step(BATCH)
    params[0].lr_mult = 0.5
    _backward(net, 7)
    ws, gs = _values(params)
    trainer.step(BATCH)
    _check(params, _sgd_expected(ws, gs, [0.05] + [0.1] * (len(params) - 1)))
    trainer.optimizer.wd = 0.01
    params[1].wd_mult = 0.0   # NOTE: decay on every parameter but this one from now on
    _backward(net, 8)
    ws, gs = _values(params)
    trainer.step(BATCH)
    for k, (p, w, g) in enumerate(zip(params, ws, gs)):
        lr, wd = (0.05 if k == 0 else 0.1), (0.0 if k == 1 else 0.01)
        want = w - lr * (g / BATCH + wd * w)
        numpy.testing.assert_allclose(p.data().asnumpy(), want, rtol=1e-6, atol=1e-7)


def test_a_scheduler_gives_each_step_its_own_rate():
    scheduler = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=0.4)
    net, params, trainer = _net(lr_scheduler=scheduler)
    rates = []
    for seed in range(4):
        _backward(net, seed)
        ws, gs = _values(params)
        # NOTE: the step counts its update first, then asks the scheduler for the rate
        lr = scheduler(trainer.optimizer.num_update + 1)
        rates.append(lr)
        trainer.step(BATCH)
        _check(params, _sgd_expected(ws, gs, [lr] * len(params)))
    assert len(set(rates)) == 4


def test_momentum_state_carries_over_steps():
    net, params, trainer = _net(momentum=0.9)
    moms = [numpy.zeros_like(p.data().asnumpy()) for p in params]
    for seed in range(4):
        _backward(net, seed)
        ws, gs = _values(params)
        trainer.step(BATCH)
        for k, (p, w, g) in enumerate(zip(params, ws, gs)):
            moms[k] = 0.9 * moms[k] - g * (0.1 / BATCH)
            numpy.testing.assert_allclose(p.data().asnumpy(), w + moms[k], rtol=1e-6,
                                          atol=1e-7)


def test_a_batch_size_change_rescales_the_next_step():
    net, params, trainer = _net()
    _backward(net, 0)
    trainer.step(BATCH)
    _backward(net, 1)
    ws, gs = _values(params)
    trainer.step(2 * BATCH)
    _check(params, [w - g * (0.1 / (2 * BATCH)) for w, g in zip(ws, gs)])


def test_grad_req_null_then_write_again_between_steps():
    net, params, trainer = _net()
    _backward(net, 0)
    trainer.step(BATCH)
    params[0].grad_req = "null"
    _backward(net, 1)
    ws, gs = _values(params[1:])
    frozen = params[0].data().asnumpy().copy()
    trainer.step(BATCH)
    numpy.testing.assert_array_equal(params[0].data().asnumpy(), frozen)
    _check(params[1:], _sgd_expected(ws, gs, [0.1] * len(ws)))
    params[0].grad_req = "write"
    _backward(net, 2)
    ws, gs = _values(params)
    trainer.step(BATCH)
    _check(params, _sgd_expected(ws, gs, [0.1] * len(params)))


def test_reinitialised_parameters_are_the_ones_updated():
    net, params, trainer = _net()
    _backward(net, 0)
    trainer.step(BATCH)
    old = [p.data() for p in params]
    net.initialize(mx.init.One(), force_reinit=True)
    _backward(net, 1)
    ws, gs = _values(params)
    assert all(p.data() is not o for p, o in zip(params, old)) and (ws[0] == 1).all()
    trainer.step(BATCH)
    _check(params, _sgd_expected(ws, gs, [0.1] * len(params)))


def test_a_stale_gradient_still_raises_and_can_be_skipped():
    net, params, trainer = _net()
    _backward(net, 0)
    trainer.step(BATCH)
    with pytest.raises(mx.MXNetError, match="has not been updated by backward"):
        trainer.step(BATCH)
    _backward(net, 1)
    params[0].data()._fresh_grad = False   # NOTE: as if backward had not reached it
    before = params[0].data().asnumpy().copy()
    ws, gs = _values(params[1:])
    trainer.step(BATCH, ignore_stale_grad=True)
    numpy.testing.assert_array_equal(params[0].data().asnumpy(), before)
    _check(params[1:], _sgd_expected(ws, gs, [0.1] * len(ws)))


def test_every_steady_step_is_one_logged_sgd_update_push():
    net, params, trainer = _net()
    log = mx.engine.event_log
    was = log.enabled
    log.enabled = True
    try:
        for seed in range(3):
            _backward(net, seed)
            log.clear()
            trainer.step(BATCH)
            mx.nd.waitall()   # NOTE: a threaded engine logs an op when it completes
            events = [e for e in log.events() if "update" in e.name]
            assert [e.name for e in events] == ["sgd_update"]
            assert len(events[0].writes) == len(params)
    finally:
        log.enabled = was


@pytest.mark.parametrize("kind", ["ThreadedEngine", "ThreadedEnginePerDevice"])
def test_threaded_engine_orders_each_update_after_its_backward(kind):
    previous = mx.engine.get_engine()
    mx.engine.set_engine(kind)
    try:
        net, params, trainer = _net(momentum=0.5)
        moms = [numpy.zeros(p.shape, "float32") for p in params]
        ws = [p.data().asnumpy() for p in params]
        for seed in range(5):
            x = numpy.random.default_rng(seed).standard_normal((BATCH, 5)).astype("float32")
            with mx.autograd.record():
                loss = (net(mx.nd.array(x)) ** 2).sum()
            loss.backward()
            trainer.step(BATCH)   # NOTE: pushed while backward may still be queued
            gs = _numpy_grads(ws, x)
            for k in range(len(params)):
                moms[k] = 0.5 * moms[k] - gs[k] * (0.1 / BATCH)
                ws[k] = ws[k] + moms[k]
        for p, want in zip(params, ws):
            numpy.testing.assert_allclose(p.data().asnumpy(), want, rtol=1e-5, atol=1e-6)
    finally:
        mx.engine.set_engine(previous)


def _numpy_grads(ws, x):
    """Gradients of ``sum(dense2(relu(dense1(x)))**2)`` in NumPy."""
    w1, b1, w2, b2 = ws
    h = x @ w1.T + b1
    a = numpy.maximum(h, 0)
    y = a @ w2.T + b2
    dy = 2 * y
    da = dy @ w2
    dh = da * (h > 0)
    return [dh.T @ x, dh.sum(0), dy.T @ a, dy.sum(0)]


def test_an_sgd_optimizer_state_pickles_without_its_step_cache():
    import pickle

    net, params, trainer = _net()
    _backward(net, 0)
    trainer.step(BATCH)
    assert trainer.optimizer.__dict__.get("_steady") is not None
    copy = pickle.loads(pickle.dumps(trainer.optimizer))
    assert "_steady" not in copy.__dict__ and copy.lr == 0.1


def test_loaded_momentum_states_replace_the_kept_ones(tmp_path):
    net, params, trainer = _net(momentum=0.9)
    moms = [numpy.zeros(p.shape, "float32") for p in params]
    for seed in range(2):
        _backward(net, seed)
        ws, gs = _values(params)
        trainer.step(BATCH)
        moms = [0.9 * m - g * (0.1 / BATCH) for m, g in zip(moms, gs)]
    fname = str(tmp_path / "sgd.states")
    trainer.save_states(fname)
    _backward(net, 2)
    trainer.step(BATCH)   # NOTE: moves the momenta on; the load below takes them back
    trainer.load_states(fname)
    _backward(net, 3)
    ws, gs = _values(params)
    trainer.step(BATCH)
    for p, w, g, m in zip(params, ws, gs, moms):
        want = w + (0.9 * m - g * (0.1 / BATCH))
        numpy.testing.assert_allclose(p.data().asnumpy(), want, rtol=1e-6, atol=1e-7)
