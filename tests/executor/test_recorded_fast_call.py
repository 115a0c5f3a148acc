"""A static CachedOp's steady *recorded* call (a training step's forward) repeats the last one
with every look-up done once (``RecordedCall``): the same outputs, gradients, tape and var
versions as the full path, and the full path again whenever anything differs. Also: the steady
inference call (``FastCall``) is taken by blocks with parameters."""
import numpy

import mxlab as mx
from mxlab.executor import static_call

STATIC = {"static_alloc": True, "static_shape": True}


class _Counted:
    """Counts the calls a steady-state class answered (not None) during the test."""

    def __init__(self, monkeypatch, cls):
        self.hits = 0
        call = cls.__call__

        def counted(lane, inputs):
            result = call(lane, inputs)
            self.hits += result is not None
            return result
        monkeypatch.setattr(cls, "__call__", counted)


def _model(seed=0):
    mx.random.seed(seed)
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(8, activation="relu"), mx.gluon.nn.Dense(3))
    net.initialize(mx.init.Xavier(rnd_type="gaussian"))
    rng = numpy.random.default_rng(seed)
    x = mx.nd.array(rng.standard_normal((5, 4)).astype("float32"))
    label = mx.nd.array(rng.integers(0, 3, 5).astype("float32"))
    return net, x, label


def _train(net, x, label, steps):
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    losses = []
    for _ in range(steps):
        with mx.autograd.record():
            loss = loss_fn(net(x), label)
        loss.backward()
        trainer.step(x.shape[0])
        losses.append(loss.asnumpy())
    mx.nd.waitall()
    return losses, {k: p.data().asnumpy() for k, p in net.collect_params().items()}


def test_training_through_the_lane_matches_the_imperative_run(monkeypatch):
    counted = _Counted(monkeypatch, static_call.RecordedCall)
    eager, x, label = _model()
    expected_losses, expected_params = _train(eager, x, label, 5)
    net, x, label = _model()
    net.hybridize(**STATIC)
    losses, params = _train(net, x, label, 5)
    assert counted.hits >= 3                     # the steady calls took the lane
    for got, want in zip(losses, expected_losses):
        numpy.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    for key, value in expected_params.items():
        numpy.testing.assert_allclose(params[key], value, rtol=1e-6, atol=1e-7)


def test_a_held_run_or_other_gradient_requests_take_the_full_path(monkeypatch):
    counted = _Counted(monkeypatch, static_call.RecordedCall)
    net, x, label = _model(1)
    net.hybridize(**STATIC)
    for _ in range(2):
        with mx.autograd.record():
            net(x).backward()
    hits = counted.hits
    with mx.autograd.record():
        kept = net(x)                            # NOTE: its run holds the state...
        second = net(x)                          # ...so this call takes another state
        total = kept + second
    assert counted.hits == hits + 1
    total.backward()
    grad = net[0].weight.grad().asnumpy().copy()
    with mx.autograd.record():
        double = net(x) * 2
    double.backward()
    numpy.testing.assert_allclose(grad, net[0].weight.grad().asnumpy(), rtol=1e-6)
    x.attach_grad()                              # NOTE: now the data wants a gradient too
    with mx.autograd.record():
        y = net(x)
    y.backward()
    assert counted.hits == hits + 2              # NOTE: the new requests made a new lane
    assert float(abs(x.grad).sum().asscalar()) > 0


def test_the_lane_keeps_var_versions_and_the_event_log(monkeypatch):
    monkeypatch.setattr(mx.engine.event_log, "enabled", True)
    net, x, label = _model(2)
    net.hybridize(**STATIC)
    for _ in range(3):
        with mx.autograd.record():
            out = net(x)
        out.backward()
    mx.nd.waitall()
    assert out._var.version == 1                 # the output written once
    assert x._var.version == 1                   # the data only read
    names = [e.name for e in mx.engine.event_log.events()[-6:]]
    assert any("forward" in n or "fwd" in n or "CachedOp" in n for n in names), names


def test_inference_fast_call_is_taken_by_a_block_with_parameters(monkeypatch):
    counted = _Counted(monkeypatch, static_call.FastCall)
    net, x, _ = _model(3)
    net.hybridize(**STATIC)
    outs = [net(x).asnumpy() for _ in range(4)]
    assert counted.hits >= 2
    for out in outs[1:]:
        numpy.testing.assert_array_equal(out, outs[0])
