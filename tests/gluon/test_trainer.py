"""Trainer (step/update/allreduce, stale gradients, learning rate, state checkpoints), a 2-layer
MLP trained to >= 95% accuracy, and the ``fit`` helper's tqdm progress bar."""
import io

import numpy
import pytest

import mxlab as mx
from mxlab import autograd, gluon
from mxlab.gluon import nn


def one_param_net():
    net = nn.Dense(1, in_units=2, use_bias=False)
    net.initialize(mx.init.One())
    return net


def backward_once(net, x=((1.0, 2.0),)):
    with autograd.record():
        loss = net(mx.nd.array(x)).sum()
    loss.backward()


def test_step_rescales_by_batch_size():
    net = one_param_net()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    backward_once(net, ((1.0, 2.0), (3.0, 4.0)))
    trainer.step(2)
    numpy.testing.assert_allclose(net.weight.data().asnumpy(), [[1 - 0.1 * 2, 1 - 0.1 * 3]])


def test_stale_gradient_error_and_ignore():
    net = one_param_net()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    backward_once(net)
    trainer.step(1)
    with pytest.raises(mx.MXNetError, match="has not been updated by backward since last `step`"):
        trainer.step(1)
    before = net.weight.data().asnumpy()
    trainer.step(1, ignore_stale_grad=True)
    numpy.testing.assert_array_equal(net.weight.data().asnumpy(), before)


def test_allreduce_then_update_and_learning_rate():
    net = one_param_net()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5},
                            kvstore="device")
    assert trainer.learning_rate == 0.5
    trainer.set_learning_rate(0.1)
    backward_once(net)
    trainer.allreduce_grads()
    trainer.update(1)
    numpy.testing.assert_allclose(net.weight.data().asnumpy(), [[0.9, 0.8]])
    with pytest.raises(ValueError, match="optimizer_params must be None"):
        gluon.Trainer(net.collect_params(), mx.optimizer.SGD(), {"learning_rate": 0.1})


def adam_trainer():
    net = one_param_net()
    return net, gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.1})


def test_save_and_load_states_round_trip(tmp_path):
    path = str(tmp_path / "trainer.states")
    net, trainer = adam_trainer()
    backward_once(net)
    trainer.step(1)
    trainer.save_states(path)
    checkpoint = net.weight.data().asnumpy()
    backward_once(net)
    trainer.step(1)

    resumed, resumed_trainer = adam_trainer()
    resumed_trainer.load_states(path)
    resumed.weight.set_data(mx.nd.array(checkpoint))
    backward_once(resumed)
    resumed_trainer.step(1)
    assert resumed_trainer.optimizer.num_update == 2
    numpy.testing.assert_allclose(resumed.weight.data().asnumpy(), net.weight.data().asnumpy(),
                                  rtol=1e-6)
    with open(path, "rb") as handle:
        assert not handle.read(2).startswith(b"\x80")  # NOTE: MXNet's binary format, no pickle


def synthetic_data(n=400, seed=0):
    rng = numpy.random.default_rng(seed)
    x = rng.normal(size=(n, 2)).astype("float32")
    y = (x[:, 0] + 2 * x[:, 1] > 0).astype("float32")
    return x, y


def test_two_layer_mlp_trains_to_95_percent():
    mx.random.seed(0)
    x, y = synthetic_data()
    net = nn.HybridSequential()
    net.add(nn.Dense(16, activation="relu"), nn.Dense(2))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=32, shuffle=True)
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.05})
    history = gluon.utils.fit(net, loader, gluon.loss.SoftmaxCrossEntropyLoss(), trainer,
                              epochs=5)
    assert history[-1] < history[0]
    accuracy = (net(mx.nd.array(x)).asnumpy().argmax(axis=1) == y).mean()
    assert accuracy >= 0.95, accuracy


def test_fit_shows_a_tqdm_progress_bar():
    x, y = synthetic_data(64)
    net = nn.Dense(2)
    net.initialize()
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=16)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    stream = io.StringIO()
    gluon.utils.fit(net, loader, gluon.loss.SoftmaxCrossEntropyLoss(), trainer, epochs=2,
                    progress={"file": stream, "ascii": True})
    text = stream.getvalue()
    assert "epoch 0" in text and "epoch 1" in text and "4/4" in text and "loss=" in text


def test_dataloader_progress_flag_uses_tqdm():
    stream = io.StringIO()
    loader = gluon.data.DataLoader(gluon.data.SimpleDataset(list(range(10))), batch_size=5,
                                   progress={"file": stream, "ascii": True})
    assert [b.shape for b in loader] == [(5,), (5,)]
    assert "2/2" in stream.getvalue()


@pytest.mark.parametrize("flags", [{}, {"static_alloc": True},
                                   {"static_alloc": True, "static_shape": True}],
                         ids=["dynamic", "static_alloc", "static_alloc+static_shape"])
def test_hybridized_training_steps_equal_imperative(flags):
    """In-place optimizer updates must reach a CachedOp that keeps parameter buffers."""
    def train(hybrid_flags):
        mx.random.seed(0)
        net = nn.HybridSequential()
        net.add(nn.Dense(8, activation="relu"), nn.BatchNorm(), nn.Dense(2))
        net.initialize()
        if hybrid_flags is not None:
            net.hybridize(**hybrid_flags)
        trainer = gluon.Trainer(net.collect_params(), "sgd",
                                {"learning_rate": 0.5, "momentum": 0.9})
        x, y = mx.nd.random.uniform(shape=(6, 4)), mx.nd.array([0, 1, 0, 1, 1, 0])
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        for _ in range(3):
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(6)
        return net(x).asnumpy()

    reference = train(None)
    numpy.testing.assert_allclose(train(flags), reference, rtol=1e-5, atol=1e-6)


def test_two_devices_allreduce_sums_gradients():
    devices = [mx.cpu(0), mx.cpu(1)]
    net = nn.Dense(1, in_units=2, use_bias=False)
    net.initialize(mx.init.One(), ctx=devices)
    assert net.weight.list_ctx() == devices and len(net.weight.list_data()) == 2
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    parts = gluon.utils.split_and_load(mx.nd.array([[1.0, 2.0], [3.0, 4.0]]), devices)
    with autograd.record():
        losses = [net(part).sum() for part in parts]
    autograd.backward(losses)
    trainer.step(2)
    for weight in net.weight.list_data():
        numpy.testing.assert_allclose(weight.asnumpy(), [[1 - 0.1 * 2, 1 - 0.1 * 3]])
    net.weight.reset_ctx(mx.cpu(0))
    assert net.weight.list_ctx() == [mx.cpu(0)]
