"""contrib.AdaptiveAvgPooling2D, contrib.BilinearResize2D, moments, histogram and split_v2:
values against NumPy references (MXNet's own test formulas), gradients by central differences,
and a hybridized block of the vision ops against its imperative run."""
import math

import numpy as np
import pytest
from helpers import check_gradient

import mxlab as mx
from mxlab.base import MXNetError
from mxlab.gluon import HybridBlock

RNG = np.random.default_rng(11)


# -- AdaptiveAvgPooling2D -------------------------------------------------------------------------
def adaptive_ref(x, oh, ow):
    n, c, h, w = x.shape
    out = np.empty((n, c, oh, ow))
    for i in range(oh):
        hs, he = (i * h) // oh, math.ceil((i + 1) * h / oh)
        for j in range(ow):
            ws, we = (j * w) // ow, math.ceil((j + 1) * w / ow)
            out[:, :, i, j] = x[:, :, hs:he, ws:we].mean(axis=(2, 3))
    return out


@pytest.mark.parametrize("size,expect", [((), (1, 1)), (3, (3, 3)), ((4, 2), (4, 2)),
                                         ((7, 11), (7, 11))])
def test_adaptive_avg_pooling_matches_reference(size, expect):
    x = RNG.uniform(size=(2, 3, 7, 5))
    kw = {} if size == () else {"output_size": size}
    out = mx.nd.contrib.AdaptiveAvgPooling2D(mx.nd.array(x, dtype="float64"), **kw)
    np.testing.assert_allclose(out.asnumpy(), adaptive_ref(x, *expect), rtol=1e-12)
    check_gradient("_contrib_AdaptiveAvgPooling2D", [x[:1, :2]], kw, cls=mx.nd.NDArray)


def test_adaptive_avg_pooling_of_a_divisible_size_is_average_pooling():
    x = mx.nd.array(RNG.uniform(size=(1, 2, 6, 8)))
    pooled = mx.nd.Pooling(x, kernel=(3, 4), stride=(3, 4), pool_type="avg")
    np.testing.assert_allclose(mx.nd.contrib.AdaptiveAvgPooling2D(x, output_size=(2, 2))
                               .asnumpy(), pooled.asnumpy(), rtol=1e-6)


# -- BilinearResize2D -----------------------------------------------------------------------------
def test_bilinear_resize_align_corners_values_from_mxnet_test():
    x = mx.nd.array(np.array([64, 32, 32, 64, 50, 100], "float32").reshape(1, 1, 3, 2))
    off = [64.0, 56.0, 40.0, 32.0, 56.0, 52.0, 44.0, 40.0, 40.0, 44.0, 52.0, 56.0, 36.5, 45.625,
           63.875, 73.0, 45.5, 56.875, 79.625, 91.0, 50.0, 62.5, 87.5, 100.0]
    on = [64.0, 53.333, 42.667, 32.0, 51.2, 49.067, 46.933, 44.8, 38.4, 44.8, 51.2, 57.6, 35.6,
          47.467, 59.333, 71.2, 42.8, 57.067, 71.333, 85.6, 50.0, 66.667, 83.333, 100.0]
    for corners, expected in ((False, off), (True, on)):
        y = mx.nd.contrib.BilinearResize2D(x, height=6, width=4, align_corners=corners)
        np.testing.assert_allclose(y.asnumpy().ravel(), expected, atol=1e-3)


@pytest.mark.parametrize("kw,shape", [
    ({"height": 5, "width": 9}, (5, 9)), ({"scale_height": 0.5, "scale_width": 2.0}, (3, 16)),
    ({"mode": "odd_scale", "scale_height": 2, "scale_width": 0.5}, (13, 4)),
    ({"mode": "to_even_down"}, (6, 8)), ({"mode": "to_even_up"}, (8, 8)),
    ({"mode": "to_odd_down"}, (7, 7)), ({"mode": "to_odd_up"}, (7, 9)),
    ({"height": 4, "width": 3, "align_corners": False}, (4, 3))])
def test_bilinear_resize_sizes_and_gradients(kw, shape):
    x = RNG.uniform(size=(1, 2, 7, 8))
    y = mx.nd.contrib.BilinearResize2D(mx.nd.array(x, dtype="float64"), **kw)
    assert y.shape[2:] == shape
    check_gradient("_contrib_BilinearResize2D", [x], kw, cls=mx.nd.NDArray)


def test_bilinear_resize_like_mode_and_none_like():
    x, like = mx.nd.array(RNG.uniform(size=(1, 2, 4, 5))), mx.nd.zeros((1, 3, 7, 2))
    like.attach_grad()
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.BilinearResize2D(x, like, mode="like")
    y.backward()
    assert y.shape == (1, 2, 7, 2)
    assert float(like.grad.abs().sum().asscalar()) == 0
    np.testing.assert_allclose(float(x.grad.sum().asscalar()), y.size, rtol=1e-5)
    same = mx.nd.contrib.BilinearResize2D(x, None, 7, 2)
    np.testing.assert_allclose(same.asnumpy(), y.asnumpy(), rtol=1e-6)
    sym = mx.sym.contrib.BilinearResize2D(mx.sym.var("d"), None, scale_height=2.,
                                          scale_width=2.)
    assert sym.infer_shape(d=(1, 2, 4, 5))[1] == [(1, 2, 8, 10)]


def test_bilinear_resize_scale_height_alone_is_an_error():
    with pytest.raises(MXNetError, match="scale_width"):
        mx.nd.contrib.BilinearResize2D(mx.nd.ones((1, 1, 2, 2)), scale_height=2.0)
        mx.nd.waitall()   # NOTE: ThreadedEngine raises kernel errors at the wait


# -- moments, histogram, split_v2 -----------------------------------------------------------------
@pytest.mark.parametrize("axes,keepdims", [((1,), False), ((0, 2), True), ((0, 1, 2), False),
                                           ((-1,), False)])
def test_moments_matches_numpy(axes, keepdims):
    x = RNG.uniform(-1, 1, size=(3, 4, 5))
    mean, var = mx.nd.moments(mx.nd.array(x, dtype="float64"), axes=axes, keepdims=keepdims)
    ref_mean = x.mean(axis=axes, keepdims=keepdims)
    ref_mean = ref_mean.reshape(1) if ref_mean.ndim == 0 else ref_mean
    np.testing.assert_allclose(mean.asnumpy(), ref_mean, rtol=1e-12)
    np.testing.assert_allclose(var.asnumpy(), x.var(axis=axes, keepdims=keepdims).reshape(
        ref_mean.shape), rtol=1e-12)
    check_gradient("moments", [x], {"axes": axes, "keepdims": keepdims}, cls=mx.nd.NDArray)


def test_moments_needs_axes():
    with pytest.raises(MXNetError, match="axes"):
        mx.nd.moments(mx.nd.ones((2, 2)))
        mx.nd.waitall()   # NOTE: ThreadedEngine raises kernel errors at the wait


def test_histogram_matches_numpy_for_counts_and_edges():
    x = RNG.uniform(-3, 3, size=(4, 5))
    counts, edges = mx.nd.histogram(mx.nd.array(x, dtype="float64"), bins=6, range=(-2.5, 2.5))
    ref_counts, ref_edges = np.histogram(x, bins=6, range=(-2.5, 2.5))
    assert counts.dtype == np.int64 and counts.asnumpy().tolist() == ref_counts.tolist()
    np.testing.assert_allclose(edges.asnumpy(), ref_edges)
    bins = np.array([-1.0, 0.5, 2.0, 4.5, 50.0])
    counts, edges = mx.nd.histogram(mx.nd.array(x, dtype="float64"),
                                    bins=mx.nd.array(bins, dtype="float64"))
    assert counts.asnumpy().tolist() == np.histogram(x, bins=bins)[0].tolist()
    counts, _ = mx.nd.histogram(mx.nd.array(x), bins=4)       # NumPy's own range, as MXNet
    assert counts.asnumpy().tolist() == np.histogram(x.astype("float32"), bins=4)[0].tolist()
    sym = mx.sym.histogram(mx.sym.var("a"), bins=6, range=(-2.5, 2.5))
    out = sym._bind(mx.cpu(), {"a": mx.nd.array(x)}).forward()[0]
    assert out.asnumpy().tolist() == ref_counts.tolist()
    with pytest.raises(MXNetError, match="range"):
        mx.sym.histogram(mx.sym.var("a"), bins=3)


def test_split_v2_symbol_forward_and_backward():
    x = RNG.uniform(size=(3, 7))
    sym = mx.sym.split_v2(mx.sym.var("x"), (2, 5), axis=1)
    assert len(sym.list_outputs()) == 3
    exe = sym._simple_bind(mx.cpu(), x=x.shape)
    outs = exe.forward(is_train=True, x=mx.nd.array(x))
    for got, ref in zip(outs, np.split(x, (2, 5), axis=1)):
        np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-6)
    exe.backward([mx.nd.ones(o.shape) * (i + 1) for i, o in enumerate(outs)])
    assert exe.grad_dict["x"].asnumpy()[0].tolist() == [1, 1, 2, 2, 2, 3, 3]
    squeezed = mx.sym.split_v2(mx.sym.var("x"), 3, axis=0, squeeze_axis=True)
    assert squeezed.infer_shape(x=(3, 7))[1] == [(7,)] * 3


# -- one hybridized block of the new ops ----------------------------------------------------------
class VisionHead(HybridBlock):
    def forward(self, x, rois):
        F = mx.nd
        pooled = F.contrib.ROIAlign(x, rois, pooled_size=(3, 3), spatial_scale=0.5)
        maxed = F.ROIPooling(x, rois, pooled_size=(3, 3), spatial_scale=0.5)
        up = F.contrib.BilinearResize2D(pooled + maxed, height=5, width=4)
        corr = F.Correlation(up, up * 0.5, kernel_size=1, max_displacement=1, pad_size=1)
        mean, var = F.moments(corr, axes=(2, 3))
        return F.contrib.AdaptiveAvgPooling2D(corr, output_size=2).sum() + (mean * var).sum()


def test_hybridized_block_equals_imperative_values_and_gradients():
    x = RNG.uniform(size=(2, 3, 10, 10)).astype("float32")
    rois = np.array([[0, 1, 1, 12, 15], [1, 4, 2, 18, 9], [0, 0, 0, 19, 19]], "float32")
    results = []
    for hybrid in (False, True):
        net = VisionHead()
        if hybrid:
            net.hybridize()
        data = mx.nd.array(x)
        data.attach_grad()
        with mx.autograd.record():
            y = net(data, mx.nd.array(rois))
        y.backward()
        results.append((y.asnumpy(), data.grad.asnumpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-5)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-4, atol=1e-7)
    assert np.abs(results[0][1]).sum() > 0
