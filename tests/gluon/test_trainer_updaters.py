"""Trainer with several devices: one Updater per device (update counts advance once per step),
Parameter._trainer and the store reset when a parameter is loaded, user stores (TestStore)."""
import numpy
import pytest

import mxlab as mx
from mxlab import gluon


def _step(x, trainer):
    with mx.autograd.record():
        for w in x.list_data():
            (w + 1).backward()
    trainer.step(1)


def test_scheduler_advances_once_per_step_with_two_devices():
    x = gluon.Parameter("x", shape=(3,))
    x.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    sched = mx.lr_scheduler.FactorScheduler(2, factor=0.1, base_lr=1.0)
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0, "lr_scheduler": sched},
                            update_on_kvstore=False)
    seen = []
    for _ in range(4):
        _step(x, trainer)
        seen.append(trainer.learning_rate)
    numpy.testing.assert_allclose(seen, [1.0, 1.0, 0.1, 0.1])
    assert len(trainer._updaters) == 2 and x._trainer() is trainer


def test_loading_a_parameter_resets_the_store():
    x = gluon.Parameter("x", shape=(3,))
    x.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 0.1}, kvstore="local")
    _step(x, trainer)
    assert trainer._update_on_kvstore and trainer._kvstore is not None
    x._load_init(mx.nd.zeros((3,)), None)
    assert trainer._kvstore is None and trainer._kv_initialized is False
    _step(x, trainer)
    numpy.testing.assert_allclose(x.data(mx.cpu(1)).asnumpy(), [-0.2] * 3, rtol=1e-6)
    with pytest.raises(AssertionError):
        trainer.update(1)


def test_teststore_sums_devices_and_cannot_run_the_optimizer():
    x = gluon.Parameter("x", shape=(2,))
    x.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    kv = mx.kv.create("teststore")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0}, kvstore=kv)
    _step(x, trainer)
    assert trainer._update_on_kvstore is False
    numpy.testing.assert_allclose(x.data(mx.cpu(1)).asnumpy(), [-2.0, -2.0])
    bad = gluon.Trainer([x], "sgd", kvstore=kv, update_on_kvstore=True)
    with pytest.raises(ValueError, match="update_on_kvstore=False"):
        bad._init_kvstore()


def _dense_trainer(momentum=0.0, **opt):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(4, activation="relu"), gluon.nn.Dense(2))
    net.initialize(mx.init.Uniform(1.0))
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            dict(learning_rate=0.1, momentum=momentum, **opt))
    return net, trainer


@pytest.mark.parametrize("opt", [{}, {"momentum": 0.9}, {"wd": 0.01, "clip_gradient": 0.5}])
def test_an_sgd_step_is_one_engine_push_with_the_per_parameter_results(opt):
    net, trainer = _dense_trainer(**opt)
    x = mx.nd.array(numpy.random.default_rng(0).standard_normal((3, 5)))
    with mx.autograd.record():
        net(x).sum().backward()
    params = list(net.collect_params().values())
    # NOTE: the reference: one sgd op per parameter, as the fused kernels define the step
    expected = []
    for p in params:
        w, g = p.data().copy(), p.grad().copy()
        kwargs = dict(lr=0.1, wd=opt.get("wd", 0.0), rescale_grad=1 / 3,
                      clip_gradient=opt.get("clip_gradient", -1.0))
        if "momentum" in opt:
            mom = mx.nd.zeros(w.shape)
            mx.nd.sgd_mom_update(w, g, mom, momentum=0.9, out=w, **kwargs)
        else:
            mx.nd.sgd_update(w, g, out=w, **kwargs)
        expected.append(w.asnumpy())
    mx.engine.event_log.clear()
    trainer.step(3)
    mx.nd.waitall()
    events = [e for e in mx.engine.event_log.events() if "update" in e.name]
    assert [e.name for e in events] == ["sgd_mom_update" if "momentum" in opt else "sgd_update"]
    assert len(events[0].writes) == len(params) * (2 if "momentum" in opt else 1)
    for p, want in zip(params, expected):
        numpy.testing.assert_array_equal(p.data().asnumpy(), want)


def test_a_batched_step_names_the_failing_update():
    w, g = mx.nd.ones((3,)), mx.nd.ones((4,))
    w2, g2 = mx.nd.ones((2,)), mx.nd.ones((2,))
    opt = mx.optimizer.SGD(learning_rate=0.1)
    with pytest.raises(mx.base.MXNetError, match="sgd_update"):
        opt.update([0, 1], [w2, w], [g2, g], [None, None])
        w.wait_to_read()


def test_a_one_parameter_optimizer_override_gets_one_parameter_per_call():
    seen = []

    class OneAtATime(mx.optimizer.SGD):
        def update(self, index, weight, grad, state):
            seen.append(len(index))
            super().update(index, weight, grad, state)

    net, _ = _dense_trainer()
    trainer = gluon.Trainer(net.collect_params(), OneAtATime(learning_rate=0.1))
    x = mx.nd.ones((2, 5))
    with mx.autograd.record():
        net(x).sum().backward()
    trainer.step(2)
    assert seen == [1] * len(net.collect_params())
