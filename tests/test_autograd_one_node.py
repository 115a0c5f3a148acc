"""``backward`` on a tape of one op node over leaves (a hybridized model's call, or one imperative
op) skips the general walk: the same gradients, buffers and tape state as the walk."""
import importlib

import numpy
import pytest

import mxlab as mx

bw = importlib.import_module("mxlab.autograd.backward")   # NOTE: the module, not the function


def _one_op_tapes():
    """(name, make): ``make()`` returns (head, leaves) recorded on a fresh one-node tape."""
    def square():
        x = mx.nd.array([1.0, -2.0, 3.0])
        x.attach_grad()
        with mx.autograd.record():
            y = x * x           # NOTE: one node reading the same leaf twice
        return y, [x]

    def with_constant():
        x, c = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 4.0])
        x.attach_grad()
        with mx.autograd.record():
            y = x * c
        return y, [x]

    def hybridized():
        net = mx.gluon.nn.Dense(3, in_units=4)
        net.initialize()
        net.hybridize(static_alloc=True, static_shape=True)
        x = mx.nd.array(numpy.arange(8, dtype="float32").reshape(2, 4))
        net(x)   # NOTE: the first call builds the graph; the recorded one below is one node
        with mx.autograd.record():
            y = net(x)
        return y, [net.weight.data(), net.bias.data()]
    return [("square", square), ("constant", with_constant), ("hybridized", hybridized)]


@pytest.mark.parametrize("name, make", _one_op_tapes())
def test_the_short_path_gives_the_general_walks_gradients(name, make):
    head, leaves = make()
    short = bw._one_node_gradients([head], None, True, True)
    assert short is not None, name
    targets, grads, _ = bw._differentiate([head], None, None, True, False, True)
    assert [t for t in short[0]] == targets
    for a, b in zip(short[1], grads):
        numpy.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


@pytest.mark.parametrize("name, make", _one_op_tapes())
def test_backward_through_the_short_path_frees_the_tape_unless_retained(name, make):
    head, leaves = make()
    head.backward(retain_graph=True)
    first = [leaf.grad.asnumpy().copy() for leaf in leaves]
    head.backward()               # NOTE: the retained tape runs again, then is freed
    for leaf, grad in zip(leaves, first):
        numpy.testing.assert_array_equal(leaf.grad.asnumpy(), grad)
    with pytest.raises(mx.MXNetError, match="not in a computational graph"):
        head.backward()


def test_grad_req_add_accumulates_through_the_short_path():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad(grad_req="add")
    for _ in range(3):
        with mx.autograd.record():
            y = x * x
        y.backward()
    numpy.testing.assert_array_equal(x.grad.asnumpy(), [6.0, 12.0])


def test_deeper_tapes_and_head_gradients_take_the_general_walk():
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = (x * x) + 1.0
    assert bw._one_node_gradients([y], None, True, True) is None
    assert bw._one_node_gradients([y], [mx.nd.ones((2,))], True, True) is None
    y.backward()
    numpy.testing.assert_array_equal(x.grad.asnumpy(), [2.0, 4.0])
