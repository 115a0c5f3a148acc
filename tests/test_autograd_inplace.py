"""Backward refuses an array saved for it that was written in place after it was recorded (the
gradient would silently use the new value, as in MXNet); ``MXNET_AUTOGRAD_INPLACE_CHECK=0``
restores MXNet's result. Every lane checks: the tape walk, the one-node backward, recorded
CachedOp runs (dynamic, static, the steady RecordedCall)."""
import numpy
import pytest

import mxlab as mx
from mxlab.base import MXNetRuntimeError
from mxlab.gluon import nn

ENV = "MXNET_AUTOGRAD_INPLACE_CHECK"


def _setitem(x):
    x[:] = 10


def _iadd(x):
    x += 1


def _imul(x):
    x *= 2


def _out(x):
    mx.np.add(x, 1, out=x)


def _copyto(x):
    mx.np.array([5.0, 5.0]).copyto(x)


def _npx_out(x):
    mx.npx.relu(x - 3, out=x)


def _view(x):
    x[1:] = 7   # NOTE: a view shares its base's engine var


WRITES = [_setitem, _iadd, _imul, _out, _copyto, _npx_out, _view]


def _square_sum():
    x = mx.np.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = (x * x).sum()
    return x, y


@pytest.mark.parametrize("write", WRITES, ids=lambda f: f.__name__[1:])
def test_leaf_written_after_record_raises(write):
    x, y = _square_sum()
    write(x)
    with pytest.raises(MXNetRuntimeError, match=r"saved by 'broadcast_mul' .*input 0, "
                       r"shape \(2,\), version 1 at record, 2 now\) was modified in place"):
        y.backward()
    assert isinstance(MXNetRuntimeError("x"), RuntimeError)


def test_one_node_tape_raises():
    """``x * x`` alone is the one-node backward's tape."""
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x * x
    x[:] = 3
    with pytest.raises(MXNetRuntimeError, match="modified in place"):
        y.backward()


def test_intermediate_written_after_record_raises():
    x = mx.np.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        h = x * 2
        y = (h * h).sum()
    h[:] = 0
    with pytest.raises(MXNetRuntimeError, match="modified in place"):
        y.backward()


def test_saved_output_written_raises():
    """exp saves its output, not its input."""
    x = mx.np.array([0.0, 1.0])
    x.attach_grad()
    with mx.autograd.record():
        e = mx.np.exp(x)
    e += 1
    with pytest.raises(MXNetRuntimeError, match=r"saved by 'exp' .*output 0"):
        e.backward()


def test_grad_also_checks():
    x, y = _square_sum()
    x[:] = 0
    with pytest.raises(MXNetRuntimeError, match="modified in place"):
        mx.autograd.grad(y, [x])


def test_write_to_unsaved_input_is_fine():
    """exp's gradient reads only its output: writing its input changes no gradient."""
    x = mx.np.array([0.0, 1.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.np.exp(x).sum()
    x[:] = 5
    y.backward()
    numpy.testing.assert_allclose(x.grad.asnumpy(), numpy.exp([0.0, 1.0]), rtol=1e-6)


def test_recorded_inplace_is_still_refused_not_silent():
    """A recorded in-place write is MXNet's NotImplementedError, before any backward."""
    x = mx.np.array([1.0, 2.0])
    x.attach_grad()
    with pytest.raises(mx.base.MXNetNotImplementedError, match="Inplace operations"):
        with mx.autograd.record():
            h = x * 2
            h += 1


def test_update_after_backward_then_new_record():
    x = mx.np.array([1.0, 2.0])
    x.attach_grad()
    for _ in range(3):
        with mx.autograd.record():
            y = (x * x).sum()
        y.backward()
        x -= 0.1 * x.grad   # NOTE: the optimizer's in-place update
    numpy.testing.assert_allclose(x.grad.asnumpy(), 2 * x.asnumpy() / 0.8, rtol=1e-6)


def test_retain_graph_then_update_raises():
    x, y = _square_sum()
    y.backward(retain_graph=True)
    numpy.testing.assert_allclose(x.grad.asnumpy(), [2.0, 4.0])
    x -= 1
    with pytest.raises(MXNetRuntimeError, match="modified in place"):
        y.backward()


def test_env_opt_out_gives_mxnets_result(monkeypatch):
    monkeypatch.setenv(ENV, "0")
    x, y = _square_sum()
    x[:] = 10
    y.backward()
    numpy.testing.assert_allclose(x.grad.asnumpy(), [20.0, 20.0])


def _mlp(static, batchnorm=True, dropout=True):
    net = nn.HybridSequential()
    net.add(nn.Dense(6, activation="relu"))
    if batchnorm:
        net.add(nn.BatchNorm())
    if dropout:
        net.add(nn.Dropout(0.3))
    net.add(nn.Dense(1))
    net.initialize(mx.init.Xavier())
    if static is not None:
        net.hybridize(static_alloc=static, static_shape=static)
    return net


HYBRID = [None, False, True]


@pytest.mark.parametrize("static", HYBRID, ids=["imperative", "dynamic", "static"])
def test_block_input_written_raises(static):
    net = _mlp(static)
    for _ in range(3):   # NOTE: later calls take the steady recorded lane (RecordedCall)
        x = mx.np.random.uniform(size=(4, 5))
        x.attach_grad()
        with mx.autograd.record():
            loss = net(x).sum()
        loss.backward()
    with mx.autograd.record():
        loss = net(x).sum()
    x[:] = 1
    with pytest.raises(MXNetRuntimeError, match="modified in place"):
        loss.backward()


@pytest.mark.parametrize("static", HYBRID, ids=["imperative", "dynamic", "static"])
def test_block_weight_written_raises(static):
    net = _mlp(static, batchnorm=False, dropout=False)
    x = mx.np.random.uniform(size=(4, 5))
    for _ in range(3):
        with mx.autograd.record():
            loss = net(x).sum()
        loss.backward()
    with mx.autograd.record():
        loss = net(x).sum()
    net[-1].weight.data()[:] = 0
    with pytest.raises(MXNetRuntimeError, match="modified in place"):
        loss.backward()


@pytest.mark.parametrize("static", HYBRID, ids=["imperative", "dynamic", "static"])
@pytest.mark.parametrize("grad_req", ["write", "add"])
def test_gluon_training_steps_run(static, grad_req):
    """Trainer updates, BatchNorm's moving statistics (written by the forward), dropout,
    grad_req 'add', and one net called twice per step (the second call writes the moving
    statistics the first one read)."""
    net = _mlp(static)
    net.collect_params().setattr("grad_req", grad_req)
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.05})
    for _ in range(4):
        a, b = mx.np.random.uniform(size=(8, 5)), mx.np.random.uniform(size=(8, 5))
        with mx.autograd.record():
            loss = ((net(a) - net(b)) ** 2).mean()
        loss.backward()
        trainer.step(8)
        if grad_req == "add":
            net.collect_params().zero_grad()
    assert numpy.isfinite(loss.item())
    moving = net[1].running_mean.data().asnumpy()
    assert numpy.abs(moving).sum() > 0


def test_threaded_engine_counts_queued_writes():
    """On an asynchronous engine a write counts when pushed, so a record right after a push
    notes it, and training runs without false alarms."""
    old = mx.engine.get_engine()
    mx.engine.set_engine("ThreadedEngine")
    try:
        var = mx.engine.new_var()
        gate = __import__("threading").Event()
        mx.engine.push(gate.wait, (), (var,), "blocked")
        assert (var.version, mx.engine.write_count(var)) == (0, 1)
        gate.set()
        mx.engine.wait_for_var(var)
        assert (var.version, var.queued, mx.engine.write_count(var)) == (1, 0, 1)
        net = _mlp(True)
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.05})
        for _ in range(3):
            x = mx.np.random.uniform(size=(4, 5))
            with mx.autograd.record():
                h = (x * 2).sum() + net(x).sum()
            h.backward()
            trainer.step(4)
        x, y = _square_sum()
        x += 1
        with pytest.raises(MXNetRuntimeError, match="modified in place"):
            y.backward()
        mx.engine.wait_all()
    finally:
        mx.engine.set_engine(old)


# One call per op of mxlab.ops.SHAPE_ONLY_GRADIENTS on a (2, 3) array ``x`` (and ``w``, constant).
SHAPE_ONLY_CALLS = {
    "elemwise_add": lambda x, w: mx.nd.elemwise_add(x, w),
    "elemwise_sub": lambda x, w: mx.nd.elemwise_sub(x, w),
    "broadcast_add": lambda x, w: mx.nd.broadcast_add(x, w[:1]),
    "broadcast_sub": lambda x, w: mx.nd.broadcast_sub(w[:1], x),
    "_plus_scalar": lambda x, w: x + 2,
    "_minus_scalar": lambda x, w: x - 2,
    "_rminus_scalar": lambda x, w: 2 - x,
    "sum": lambda x, w: mx.nd.sum(x, axis=1),
    "mean": lambda x, w: mx.nd.mean(x, axis=0),
    "_np_sum": lambda x, w: mx.np.sum(x.as_np_ndarray(), axis=1),
    "Reshape": lambda x, w: mx.nd.reshape(x, (3, 2)),
    "_np_reshape": lambda x, w: mx.np.reshape(x.as_np_ndarray(), (3, 2)),
    "expand_dims": lambda x, w: mx.nd.expand_dims(x, axis=0),
    "squeeze": lambda x, w: mx.nd.squeeze(mx.nd.expand_dims(x, axis=0)),
    "Flatten": lambda x, w: mx.nd.Flatten(mx.nd.expand_dims(x, axis=2)),
    "slice": lambda x, w: mx.nd.slice(x, begin=(0, 1), end=(2, 3)),
    "slice_axis": lambda x, w: mx.nd.slice_axis(x, axis=1, begin=0, end=2),
    "Concat": lambda x, w: mx.nd.concat(x, w, dim=0),
    "_npi_concatenate": lambda x, w: mx.np.concatenate([x.as_np_ndarray(), w.as_np_ndarray()]),
    "_copy": lambda x, w: mx.nd.identity(x),
    "broadcast_to": lambda x, w: mx.nd.broadcast_to(mx.nd.expand_dims(x, 0), (2, 2, 3)),
    "tile": lambda x, w: mx.nd.tile(x, reps=(2, 1)),
    "repeat": lambda x, w: mx.nd.repeat(x, repeats=2, axis=1),
}


def test_shape_only_table_is_covered():
    assert set(SHAPE_ONLY_CALLS) == set(mx.ops.SHAPE_ONLY_GRADIENTS)


@pytest.mark.parametrize("name", sorted(SHAPE_ONLY_CALLS))
def test_shape_only_gradient_allows_later_writes(name):
    """Writing the input of an op whose gradient reads no values is allowed, and the gradient
    is the one of the unchanged array (so the op belongs in the table)."""
    call = SHAPE_ONLY_CALLS[name]
    w = mx.nd.array(numpy.arange(6.0).reshape(2, 3) + 1)
    grads = []
    for write in (False, True):
        x = mx.nd.array(numpy.arange(6.0).reshape(2, 3) * 0.5)
        x.attach_grad()
        with mx.autograd.record():
            out = call(x, w)
        head = mx.nd.array(numpy.linspace(1, 2, out.size).reshape(out.shape))
        if write:
            x[:] = 100
        out.backward(head.as_np_ndarray() if isinstance(out, mx.np.ndarray) else head)
        grads.append(x.grad.asnumpy())
    numpy.testing.assert_array_equal(grads[0], grads[1])
