"""``mx.gluon.contrib.nn``: MXNet 1.9.1's contrib layer names (values checked against 1.9.1)."""
import numpy as np
import pytest

import mxlab as mx
from mxlab.gluon.contrib import nn as cnn


def _x():
    return mx.nd.array(np.arange(8, dtype="float32").reshape(2, 4) / 10)


@pytest.mark.parametrize("hybridize", [False, True])
def test_hybrid_concurrent_joins_children_outputs(hybridize):
    net = cnn.HybridConcurrent(axis=1, prefix="branches_")
    net.add(mx.gluon.nn.Dense(3), cnn.Identity(), mx.gluon.nn.Dense(2, activation="relu"))
    net.initialize(mx.init.One())
    if hybridize:
        net.hybridize()
    x = _x().asnumpy()
    row_sums = x.sum(axis=1, keepdims=True)
    want = np.concatenate([np.repeat(row_sums, 3, 1), x, np.repeat(row_sums, 2, 1)], axis=1)
    np.testing.assert_allclose(net(_x()).asnumpy(), want, rtol=1e-6)


def test_concurrent_concatenates_along_axis():
    net = cnn.Concurrent(axis=0)
    net.add(cnn.Identity(), cnn.Identity())
    out = net(_x()).asnumpy()
    assert out.shape == (4, 4)
    np.testing.assert_array_equal(out[2:], _x().asnumpy())


def test_sync_batch_norm_single_device_is_batch_norm():
    data = mx.nd.array(np.arange(12, dtype="float32").reshape(3, 2, 2))
    results = []
    for layer in (cnn.SyncBatchNorm(num_devices=1), mx.gluon.nn.BatchNorm()):
        layer.initialize()
        with mx.autograd.record():
            out = layer(data)
        out.backward()
        results.append((out.asnumpy(), layer.running_mean.data().asnumpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    # MXNet 1.9.1 gives running_mean [0.45, 0.65] after this step for both layers
    np.testing.assert_allclose(results[0][1], [0.45, 0.65], rtol=1e-5)


def test_sync_batch_norm_several_devices_is_refused():
    with pytest.raises(NotImplementedError, match="num_devices=2"):
        cnn.SyncBatchNorm(num_devices=2)


def test_sparse_embedding_gives_row_sparse_gradients():
    layer = cnn.SparseEmbedding(10, 4)
    layer.initialize()
    with mx.autograd.record():
        y = layer(mx.nd.array([3, 1]))
    y.backward()
    assert layer.weight.grad().stype == "row_sparse"
    grad = layer.weight.grad().asnumpy()
    assert (grad[[1, 3]] == 1).all() and (grad[[0, 2, 4]] == 0).all()
    assert mx.gluon.contrib.data.IntervalSampler is mx.gluon.data.IntervalSampler


def test_parts_not_built_name_themselves():
    assert mx.gluon.contrib.cnn.DeformableConvolution is mx.gluon.nn.DeformableConvolution
    with pytest.raises(AttributeError):
        mx.gluon.contrib.no_such_thing
