"""Workload steps written once against MXNet's Python API, so the same code runs on mxlab and on
real MXNet 1.9.1 (``mx`` is passed in: ``import mxlab as mx`` here, ``import mxnet as mx`` in
:mod:`benchmarks.mxnet_worker`). Each ``*_step`` function returns a zero-argument callable that runs
one step and then waits for *all* pushed work (``mx.nd.waitall()``), so the time covers the whole
computation under any engine. NOTE: waiting on the step's output alone let MXNet's backward and
optimizer updates run on after the round's clock stopped (the ResNet-18 row showed half its cost).

Modes (Gluon): ``imperative`` (no hybridize), ``hybridize``, ``static``
(``static_alloc=True, static_shape=True``), ``fuse`` (``backend='fuse'``, mxlab only).
"""
import importlib

import numpy

from .timing import NOT_BUILT, Unavailable

__all__ = ["MLP_SIZES", "MODES", "mlp_nd_step", "mlp_gluon_step", "chain_ops", "chain_nd_step",
           "chain_gluon_step", "with_event_log", "resnet_step", "require_gluon"]

MLP_SIZES = (784, 256, 128, 10)
MLP_BATCH = 64
LR = 0.01
CHAIN_REPEAT = 16
MEMORY_CHAIN = {"depth": 100, "hidden": 1024, "batch": 256}   # the memory workload's two graphs
MEMORY_RESNET_SHAPE = (32, 3, 224, 224)
MODES = ("imperative", "hybridize", "static", "fuse")
_STATIC = {"static_alloc": True, "static_shape": True}
_HYBRIDIZE = {"imperative": None, "hybridize": {}, "static": _STATIC,
              "fuse": dict(_STATIC, backend="fuse")}


class NotBuilt(Unavailable):
    """The framework lacks a part the workload needs (mxlab parts still being written)."""

    def __init__(self, part):
        super().__init__(f"{NOT_BUILT[:-1]}: {part})")


def require_gluon(mx, *parts):
    """``mx.gluon`` (and ``mx.gluon.<part>`` for each dotted ``part``) or :class:`NotBuilt`."""
    try:
        gluon = importlib.import_module(f"{mx.__name__}.gluon")
    except ImportError as exc:
        raise NotBuilt(f"gluon: {str(exc)[:50]}") from exc
    for part in parts:
        obj = gluon
        for name in part.split("."):
            obj = getattr(obj, name, None)
            if obj is None:
                raise NotBuilt(f"gluon.{part}")
    return gluon


def _mlp_data(mx, rng):
    x = mx.nd.array(rng.standard_normal((MLP_BATCH, MLP_SIZES[0])).astype("float32"))
    label = mx.nd.array(rng.integers(0, MLP_SIZES[-1], MLP_BATCH).astype("float32"))
    return x, label


def _xent(mx, out, label):
    return -mx.nd.pick(mx.nd.log_softmax(out), label).mean()


def mlp_nd_step(mx):
    """784-256-128-10 MLP (relu), softmax cross-entropy, SGD: plain ``mx.nd`` ops + autograd."""
    rng = numpy.random.default_rng(0)
    x, label = _mlp_data(mx, rng)
    params = []
    for n_in, n_out in zip(MLP_SIZES, MLP_SIZES[1:]):
        w = mx.nd.array((rng.standard_normal((n_out, n_in)) / n_in ** 0.5).astype("float32"))
        b = mx.nd.zeros((n_out,))
        params += [w, b]
    for p in params:
        p.attach_grad()

    def step():
        with mx.autograd.record():
            h = x
            for i in range(0, len(params), 2):
                h = mx.nd.FullyConnected(h, params[i], params[i + 1], num_hidden=params[i].shape[0])
                if i + 2 < len(params):
                    h = mx.nd.relu(h)
            loss = _xent(mx, h, label)
        loss.backward()
        for p in params:
            p -= LR * p.grad
        mx.nd.waitall()
    return step


def _hybridize(net, mode):
    options = _HYBRIDIZE[mode]
    if options is not None:
        net.hybridize(**options)


def _with_loss(gluon, net, loss_fn):
    """``net`` and ``loss_fn`` as one HybridBlock: hybridized, the loss is in the same graph."""
    class WithLoss(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.net, self.loss = net, loss_fn

        def hybrid_forward(self, F, x, label):
            return self.loss(self.net(x), label)
    return WithLoss()


def mlp_gluon_step(mx, mode):
    """The same MLP as :func:`mlp_nd_step` as a Gluon ``HybridSequential`` + ``Trainer('sgd')``;
    the net and its loss are wrapped in one HybridBlock, so a hybridized step is one graph."""
    gluon = require_gluon(mx, "nn.Dense", "Trainer", "loss.SoftmaxCrossEntropyLoss")
    net = gluon.nn.HybridSequential()
    for size in MLP_SIZES[1:-1]:
        net.add(gluon.nn.Dense(size, activation="relu"))
    net.add(gluon.nn.Dense(MLP_SIZES[-1]))
    net.initialize()
    model = _with_loss(gluon, net, gluon.loss.SoftmaxCrossEntropyLoss())
    _hybridize(model, mode)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": LR})
    x, label = _mlp_data(mx, numpy.random.default_rng(0))

    def step():
        with mx.autograd.record():
            loss = model(x, label)
        loss.backward()
        trainer.step(MLP_BATCH)
        mx.nd.waitall()
    return step


def chain_ops(F, x):
    """The 64-op elementwise chain: ``(x*1.01; x+0.1; tanh; x-0.05)`` x 16, with namespace ``F``."""
    for _ in range(CHAIN_REPEAT):
        x = F.tanh(x * 1.01 + 0.1) - 0.05
    return x


def chain_nd_step(mx, size):
    """The chain run op by op on ``mx.nd`` (imperative, no autograd)."""
    x = mx.nd.array(numpy.linspace(-1, 1, size, dtype="float32"))

    def step():
        chain_ops(mx.nd, x)
        mx.nd.waitall()
    return step


def with_event_log(mx, step, enabled):
    """``step`` run with the engine event log switched to ``enabled`` (then switched back): the
    log is on in notebooks and off in scripts, and the rows show what it costs per op."""
    def run():
        saved = mx.engine.event_log.enabled
        mx.engine.event_log.enabled = enabled
        try:
            step()
        finally:
            mx.engine.event_log.enabled = saved
    return run


def chain_gluon_step(mx, size, mode):
    """The chain as a ``HybridBlock`` (inference), hybridized as ``mode`` says."""
    gluon = require_gluon(mx, "HybridBlock")

    class Chain(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return chain_ops(F, x)

    net = Chain()
    _hybridize(net, mode)
    x = mx.nd.array(numpy.linspace(-1, 1, size, dtype="float32"))

    def step():
        net(x)
        mx.nd.waitall()
    return step


def resnet_step(mx, mode, batch=8, size=64):
    """``resnet18_v1`` forward+backward on ``batch`` x 3 x ``size`` x ``size`` (Gluon model zoo)."""
    gluon = require_gluon(mx, "model_zoo.vision.resnet18_v1")
    net = gluon.model_zoo.vision.resnet18_v1()
    net.initialize()
    _hybridize(net, mode)
    data = numpy.random.default_rng(0).standard_normal((batch, 3, size, size))
    x = mx.nd.array(data.astype("float32"))

    def step():
        with mx.autograd.record():
            out = net(x)
        out.backward()
        mx.nd.waitall()
    return step
