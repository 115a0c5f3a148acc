"""The swish extension: load, forward, gradient (numeric check), symbols, a hybridized block,
unload and reload."""
import os

import numpy as np
import pytest

import mxlab as mx
from mxlab.ops.registry import has_op
from mxlab.test_utils import assert_almost_equal

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def swish():
    record = mx.library.load(HERE)
    yield record
    mx.library.unload(record.name)


def _reference(x, beta):
    return x / (1 + np.exp(-beta * x))


def test_registers_op_and_namespaces(swish):
    assert swish.ops == ['swish'] and has_op('swish')
    assert callable(mx.nd.swish) and callable(mx.sym.swish) and callable(mx.npx.swish)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_and_gradient(swish, dtype):
    x = np.linspace(-3, 3, 7).astype(dtype)
    a = mx.nd.array(x, dtype=dtype)
    a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.swish(a, beta=1.5)
    y.backward()
    assert y.dtype == np.dtype(dtype)
    assert_almost_equal(y.asnumpy(), _reference(x, 1.5), rtol=1e-5)
    eps = 1e-3
    numeric = (_reference(x.astype('float64') + eps, 1.5) -
               _reference(x.astype('float64') - eps, 1.5)) / (2 * eps)
    assert_almost_equal(a.grad.asnumpy(), numeric, rtol=1e-3, atol=1e-4)


def test_symbol_shape_and_type_inference(swish):
    y = mx.sym.swish(mx.sym.var('x'), beta=2.0)
    assert y.infer_shape(x=(2, 5))[1] == [(2, 5)]
    assert y.infer_type(x='float16')[1] == [np.float16]


class _Net(mx.gluon.HybridBlock):
    def forward(self, x):
        return mx.npx.swish(x * 2, beta=0.5) + 1


def test_hybridized_block(swish):
    mx.npx.set_np()
    data = np.linspace(-1, 1, 6).astype('float32')
    net = _Net()
    want = net(mx.np.array(data)).asnumpy()
    net.hybridize()
    x = mx.np.array(data)
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
    y.backward()
    assert_almost_equal(y.asnumpy(), want, rtol=1e-6)
    assert_almost_equal(y.asnumpy(), _reference(2 * data, 0.5) + 1, rtol=1e-5)
    assert np.all(np.isfinite(x.grad.asnumpy()))


def test_unload_and_reload():
    record = mx.library.load(HERE)
    mx.library.unload(record.name)
    assert not has_op('swish') and not hasattr(mx.nd, 'swish')
    record = mx.library.load(HERE)
    assert has_op('swish')
    mx.library.unload(record.name)
