"""Sparse arrays in training: autograd's sparse gradient buffers, Embedding(sparse_grad=True),
lazy optimizer updates, the kvstore's row_sparse_pull and executors writing sparse gradients."""
import numpy
import pytest

import mxlab as mx
from mxlab import gluon
from mxlab.base import MXNetValueError

RNG = numpy.random.default_rng(11)


@pytest.mark.parametrize("stype", ["default", "csr", "row_sparse"])
def test_attach_grad_storage_types(stype):
    x = mx.nd.array(RNG.uniform(size=(3, 4))).tostype(stype)
    x.attach_grad()
    assert x.grad.stype == stype
    with mx.autograd.record():
        y = x * 2
    y.backward()
    assert x.grad.stype == stype and (x.grad.asnumpy() == 2).all()
    x.attach_grad(stype="row_sparse")
    assert x.grad.stype == "row_sparse" and x.detach().stype == stype


def test_dot_gradient_through_a_csr_input():
    lhs = mx.nd.array(RNG.uniform(size=(2, 5)) * (RNG.uniform(size=(2, 5)) < 0.5)).tostype("csr")
    rhs = mx.nd.array(RNG.normal(size=(5, 3)))
    rhs.attach_grad()
    with mx.autograd.record():
        out = mx.nd.dot(lhs, rhs)
    out.backward()
    numpy.testing.assert_allclose(rhs.grad.asnumpy(), lhs.asnumpy().T @ numpy.ones((2, 3)),
                                  rtol=1e-6)


@pytest.mark.parametrize("hybridize", [False, True])
def test_embedding_sparse_grad_is_row_sparse_and_lazy_sgd_touches_its_rows(hybridize):
    net = gluon.nn.Embedding(8, 3, sparse_grad=True)
    net.initialize()
    if hybridize:
        net.hybridize()
    with mx.autograd.record():
        loss = net(mx.nd.array([1, 5, 5])).sum()
    loss.backward()
    grad = net.weight.grad()
    assert grad.stype == "row_sparse" and grad.indices.asnumpy().tolist() == [1, 5]
    assert grad.asnumpy().sum(axis=1).tolist() == [0, 3, 0, 0, 0, 6, 0, 0]
    before = net.weight.data().asnumpy().copy()
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": 0.5, "wd": 0.1, "lazy_update": True})
    trainer.step(1)
    changed = (net.weight.data().asnumpy() != before).any(axis=1)
    assert changed.tolist() == [False, True, False, False, False, True, False, False]
    want = before[5] - 0.5 * (2.0 + 0.1 * before[5])
    numpy.testing.assert_allclose(net.weight.data().asnumpy()[5], want, rtol=1e-6)


@pytest.mark.parametrize("lazy", [True, False])
def test_adam_lazy_update_against_numpy(lazy):
    weight = RNG.uniform(size=(5, 2)).astype("float32")
    grad = numpy.zeros((5, 2), "float32")
    grad[[1, 3]] = RNG.normal(size=(2, 2))
    opt = mx.optimizer.Adam(learning_rate=0.1, wd=0.01, lazy_update=lazy)
    w = mx.nd.array(weight)
    state = opt.create_state(0, w)
    opt.update(0, w, mx.nd.array(grad).tostype("row_sparse"), state)
    g = grad + 0.01 * weight
    mean, var = 0.1 * g, 0.001 * g * g
    lr = 0.1 * numpy.sqrt(1 - 0.999) / (1 - 0.9)
    want = weight - lr * mean / (numpy.sqrt(var) + 1e-8)
    if lazy:
        want[[0, 2, 4]] = weight[[0, 2, 4]]
    numpy.testing.assert_allclose(w.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_kvstore_row_sparse_pull_and_ignore_sparse():
    kv = mx.kv.create("local")
    kv.init("e", mx.nd.ones((4, 2)).tostype("row_sparse"))
    out = mx.nd.zeros((4, 2), stype="row_sparse")
    kv.row_sparse_pull("e", out=out, row_ids=mx.nd.array([0, 2]))
    assert out.stype == "row_sparse" and out.asnumpy().sum(axis=1).tolist() == [2, 0, 2, 0]
    skipped = mx.nd.zeros((4, 2), stype="row_sparse")
    kv.pull("e", out=skipped)
    assert skipped.asnumpy().sum() == 0
    kv.pull("e", out=skipped, ignore_sparse=False)
    assert skipped.asnumpy().sum() == 8
    with pytest.raises(MXNetValueError, match="out must be row_sparse"):
        kv.row_sparse_pull("e", out=mx.nd.zeros((4, 2)), row_ids=mx.nd.array([0]))


def test_executor_writes_sparse_args_grad():
    x = mx.sym.var("x")
    w = mx.sym.var("w")
    out = mx.sym.dot(x, w)
    x_nd = mx.nd.array(RNG.uniform(size=(2, 4)), dtype="float32")
    grad = mx.nd.zeros((4, 3), stype="row_sparse")
    exe = out._bind(mx.cpu(), args={"x": x_nd, "w": mx.nd.ones((4, 3))},
                    args_grad={"w": grad})
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((2, 3)))
    assert grad.stype == "row_sparse"
    numpy.testing.assert_allclose(grad.asnumpy(), x_nd.asnumpy().T @ numpy.ones((2, 3)),
                                  rtol=1e-6)
