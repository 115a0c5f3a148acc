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
