"""masked_softmax / masked_log_softmax (MXNet 2.0 ops, not in MXNet 1.9.1: checked against
NumPy formulas, those of MXNet master's test_operator.py)."""
import numpy as np
import pytest

import mxlab as mx
from mxlab import autograd
from mxlab.base import MXNetError


def _reference(x, mask, axis, temperature=1.0):
    t = np.where(mask, x, -1e18) / temperature
    e = np.exp(t - t.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True) * mask


@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("temperature", [1.0, 5.0])
def test_masked_softmax_forward_and_gradient_match_the_formulas(axis, temperature):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    mask = rng.integers(0, 2, (3, 1, 5)).astype(bool)
    g = rng.standard_normal(x.shape).astype(np.float32)
    data = mx.nd.array(x)
    data.attach_grad()
    with autograd.record():
        out = mx.nd.masked_softmax(data, mx.nd.array(mask, dtype="bool"), axis=axis,
                                   temperature=temperature)
    out.backward(mx.nd.array(g))
    expected = _reference(x, mask, axis, temperature)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-6)
    grad = expected * (g - (expected * g).sum(axis=axis, keepdims=True)) / temperature
    np.testing.assert_allclose(data.grad.asnumpy(), grad, rtol=1e-4, atol=1e-6)


def test_masked_log_softmax_is_minus_inf_where_masked_and_its_gradient_zero_there():
    x = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]], dtype=np.float32)
    mask = np.array([[1, 0, 1], [0, 0, 0]], dtype=bool)
    data = mx.nd.array(x)
    data.attach_grad()
    with autograd.record():
        out = mx.npx.masked_log_softmax(data.as_np_ndarray(), mx.np.array(mask, dtype="bool"))
    out.backward()
    kept = np.log(_reference(x, mask, -1)[0, [0, 2]])
    np.testing.assert_allclose(out.asnumpy()[0, [0, 2]], kept, rtol=1e-6)
    assert np.isneginf(out.asnumpy()[0, 1]) and np.isneginf(out.asnumpy()[1]).all()
    grad = data.grad.asnumpy()
    assert grad[0, 1] == 0 and (grad[1] == 0).all()
    np.testing.assert_allclose(grad[0, [0, 2]], 1 - 2 * np.exp(kept), rtol=1e-5)


def test_masked_softmax_symbol_gives_the_mask_a_zero_gradient():
    sym = mx.sym.masked_softmax(mx.sym.Variable("data"), mx.sym.Variable("mask"))
    x = mx.nd.array(np.ones((2, 3)))
    mask = mx.nd.array(np.array([[1, 1, 0], [1, 0, 0]]), dtype="bool")
    exe = sym._bind(mx.cpu(), {"data": x, "mask": mask},
                    args_grad={"data": mx.nd.zeros((2, 3)), "mask": mx.nd.ones((2, 3))})
    out = exe.forward(is_train=True)[0].asnumpy()
    exe.backward(mx.nd.ones((2, 3)))
    np.testing.assert_allclose(out, [[0.5, 0.5, 0], [1, 0, 0]])
    assert not exe.grad_arrays[1].asnumpy().any()


def test_masked_softmax_rejects_a_mask_that_does_not_broadcast():
    with pytest.raises(MXNetError, match="mask of shape"):
        mx.nd.masked_softmax(mx.nd.ones((2, 3)), mx.nd.ones((2, 2), dtype="bool")).wait_to_read()
