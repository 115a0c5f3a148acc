"""The one-node gradients of Activation and softmax / log_softmax (``_backward_Activation``,
``_backward_softmax``, ``_backward_log_softmax``): the same values as the composed formulas,
second-order gradients that match central differences, and fewer nodes in a planned backward."""
import numpy
import pytest

import mxlab as mx
from mxlab.ops.registry import get_op

RNG = numpy.random.default_rng(11)


def _composed(name, g, y, axis=-1, temperature=None):
    """The formulas the fused ops replace, in the composed ops' order."""
    t = 1.0 if temperature is None else temperature
    if name == "relu":
        return g * (y > 0).astype(y.dtype)
    if name == "sigmoid":
        return g * (y * (1 - y))
    if name == "tanh":
        return g * (1 - y * y)
    if name == "log_softmax":
        return (g - numpy.exp(y) * g.sum(axis=axis, keepdims=True)) / t
    return y * (g - (g * y).sum(axis=axis, keepdims=True)) / t


@pytest.mark.parametrize("act", ["relu", "sigmoid", "tanh"])
def test_backward_activation_equals_the_composed_formula(act):
    g, y = (RNG.standard_normal((3, 5)).astype("float32") for _ in range(2))
    if act != "relu":
        y = numpy.tanh(y) if act == "tanh" else 1 / (1 + numpy.exp(-y))
    op = get_op("_backward_Activation")
    got = op.compute(numpy, [g, y], op.parse_attrs({"act_type": act}))
    numpy.testing.assert_array_equal(got, _composed(act, g, y))


@pytest.mark.parametrize("name,axis,temperature", [("softmax", -1, None), ("softmax", 0, 2.0),
                                                   ("log_softmax", -1, None),
                                                   ("log_softmax", 1, 3.0)])
def test_backward_softmax_family_matches_the_formula(name, axis, temperature):
    x = RNG.standard_normal((4, 6))
    g = RNG.standard_normal((4, 6))
    shifted = x - x.max(axis=axis, keepdims=True)
    y = shifted - numpy.log(numpy.exp(shifted).sum(axis=axis, keepdims=True))
    if name == "softmax":
        y = numpy.exp(y)
    op = get_op(f"_backward_{name}")
    attrs = op.parse_attrs({"axis": axis, "temperature": temperature})
    numpy.testing.assert_allclose(op.compute(numpy, [g, y], attrs),
                                  _composed(name, g, y, axis, temperature), rtol=1e-12)


def _second_order(make, x0, head, w):
    """d/dx of sum(w * d/dx sum(head * f(x))) by autograd."""
    x = mx.nd.array(x0, dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = make(x)
        (gx,) = mx.autograd.grad(y, [x], head_grads=[mx.nd.array(head, dtype="float64")],
                                 create_graph=True, retain_graph=True)
        (gx * mx.nd.array(w, dtype="float64")).sum().backward()
    return x.grad.asnumpy()


CASES = {
    "sigmoid": lambda F: lambda x: F.Activation(x, act_type="sigmoid"),
    "tanh": lambda F: lambda x: F.Activation(x, act_type="tanh"),
    "softmax_T": lambda F: lambda x: F.softmax(x, axis=0, temperature=2.0),
    "log_softmax": lambda F: lambda x: F.log_softmax(x),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_second_order_gradients_match_central_differences(case):
    x0, head, w = (RNG.standard_normal((3, 4)) for _ in range(3))
    make = CASES[case](mx.nd)

    def first(x):   # the first-order gradient, by autograd, as a NumPy function of x
        arr = mx.nd.array(x, dtype="float64")
        arr.attach_grad()
        with mx.autograd.record():
            y = make(arr)
        y.backward(mx.nd.array(head, dtype="float64"))
        return arr.grad.asnumpy()

    eps, numeric = 1e-6, numpy.zeros_like(x0)
    for idx in numpy.ndindex(x0.shape):
        plus, minus = x0.copy(), x0.copy()
        plus[idx] += eps
        minus[idx] -= eps
        numeric[idx] = ((first(plus) - first(minus)) * w).sum() / (2 * eps)
    numpy.testing.assert_allclose(_second_order(make, x0, head, w), numeric, rtol=1e-5,
                                  atol=1e-7)


class _WithLoss(mx.gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        self.net = mx.gluon.nn.HybridSequential()
        self.net.add(mx.gluon.nn.Dense(8, activation="relu"), mx.gluon.nn.Dense(3))
        self.loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()

    def forward(self, x, label):
        return self.loss(self.net(x), label)


def test_a_planned_mlp_backward_runs_one_node_per_activation_and_loss():
    model = _WithLoss()
    model.initialize()
    x, label = mx.nd.array(RNG.standard_normal((2, 5))), mx.nd.array([0, 2])
    with mx.autograd.record():
        eager = model(x, label)
    eager.backward()
    want = model.net[0].weight.grad().asnumpy().copy()
    model.hybridize(static_alloc=True, static_shape=True)
    with mx.autograd.record():
        loss = model(x, label)
    loss.backward()
    ops = [n.op.name for n in model._cached_op.plans["backward"].graph.indexed.nodes
           if n.op is not None]
    assert ops.count("_backward_Activation") == 1 and ops.count("_backward_log_softmax") == 1
    assert not {"_greater_scalar", "exp", "broadcast_sub"} & set(ops)
    numpy.testing.assert_allclose(model.net[0].weight.grad().asnumpy(), want, rtol=1e-6)
