"""Block.register_op_hook: MXNet's names (``<node>_<output>``, ``<node>_<input>`` or
``<node>_input<i>``), the op name and the values, on every CachedOp flag set and when recording.
Blocks called on ``mx.nd`` arrays are 1.x code: their nodes have MXNet 1.x's names
(``dense0_fwd``)."""
import re

import numpy
import pytest

import mxlab as mx

FLAG_SETS = [{}, {"static_alloc": True}, {"static_alloc": True, "static_shape": True}]


def _net(flags):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(2))
    net.add(mx.gluon.nn.Activation("relu"))
    net.initialize(mx.init.Constant(0.5))
    net.hybridize(**flags)
    return net


def _strip(name):
    return re.sub(r"\d+", "", name)   # NOTE: block counters depend on the tests run before


@pytest.mark.parametrize("flags", FLAG_SETS)
def test_names_ops_and_values(flags):
    net = _net(flags)
    seen = []
    net.register_op_hook(lambda name, op, arr: seen.append((name, op, arr.asnumpy())), True)
    x = mx.nd.array(numpy.arange(6, dtype="float32").reshape(2, 3) - 2)
    for _ in range(2):   # the second call takes the bound (or fast) path
        seen.clear()
        out = net(x)
    assert [(_strip(n), op) for n, op, _ in seen] == [
        ("dense_fwd_data", "FullyConnected"), ("dense_fwd_weight", "FullyConnected"),
        ("dense_fwd_bias", "FullyConnected"), ("dense_fwd_output", "FullyConnected"),
        ("relu_fwd_input", "Activation"), ("relu_fwd_output", "Activation")]
    fc = x.asnumpy() @ numpy.full((2, 3), 0.5).T   # bias: zeros (its own initializer)
    numpy.testing.assert_allclose(seen[3][2], fc)
    numpy.testing.assert_allclose(seen[5][2], numpy.maximum(fc, 0))
    numpy.testing.assert_allclose(out.asnumpy(), numpy.maximum(fc, 0))


def test_outputs_only_when_recording_and_after_rebuild():
    net = _net({"static_alloc": True})
    seen = []
    net.register_op_hook(lambda name, op, arr: seen.append((_strip(name), type(arr))))
    x = mx.nd.ones((2, 3))
    with mx.autograd.record():
        net(x).backward()
    assert seen == [("dense_fwd_output", mx.nd.NDArray), ("relu_fwd_output", mx.nd.NDArray)]
    net.hybridize(static_alloc=False)   # a new CachedOp keeps the hook
    seen.clear()
    net(x)
    assert [n for n, _ in seen] == ["dense_fwd_output", "relu_fwd_output"]


def test_hook_must_be_callable():
    net = _net({})
    net(mx.nd.ones((1, 3)))
    with pytest.raises(TypeError, match="invalid callback"):
        net.register_op_hook("not a function")
