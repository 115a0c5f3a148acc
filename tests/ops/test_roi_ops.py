"""ROIPooling, contrib.ROIAlign, contrib.RROIAlign and Correlation against loop-by-loop NumPy
references written from MXNet's CPU kernels, gradients by central differences (the oracle cases
against MXNet 1.9.1 are in test_vision_ops_oracle.py)."""
import math

import numpy as np
import pytest
from helpers import check_gradient

import mxlab as mx
from mxlab.base import MXNetError

RNG = np.random.default_rng(7)


# -- references -----------------------------------------------------------------------------------
def roi_pool_ref(data, rois, pooled, scale):
    n, c, h, w = data.shape
    ph, pw = pooled
    out = np.zeros((len(rois), c, ph, pw), data.dtype)
    for r, roi in enumerate(rois):
        b = int(roi[0])
        x1, y1, x2, y2 = (int(math.copysign(math.floor(abs(v * scale) + 0.5), v))  # std::round
                          for v in roi[1:])
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for i in range(ph):
            for j in range(pw):
                hs = min(max(int(math.floor(i * rh / ph)) + y1, 0), h)
                he = min(max(int(math.ceil((i + 1) * rh / ph)) + y1, 0), h)
                ws = min(max(int(math.floor(j * rw / pw)) + x1, 0), w)
                we = min(max(int(math.ceil((j + 1) * rw / pw)) + x1, 0), w)
                if he <= hs or we <= ws or not 0 <= b < n:
                    continue
                out[r, :, i, j] = data[b, :, hs:he, ws:we].max(axis=(1, 2))
    return out


def _bilinear(img, h, w, y, x):
    if y < -1 or y > h or x < -1 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    yl, xl = int(y), int(x)
    if yl >= h - 1:
        yl = yh = h - 1
        y = float(yl)
    else:
        yh = yl + 1
    if xl >= w - 1:
        xl = xh = w - 1
        x = float(xl)
    else:
        xh = xl + 1
    ly, lx = y - yl, x - xl
    return ((1 - ly) * (1 - lx) * img[yl, xl] + (1 - ly) * lx * img[yl, xh]
            + ly * (1 - lx) * img[yh, xl] + ly * lx * img[yh, xh])


def roi_align_ref(data, rois, pooled, scale, ratio=-1, ps=False, aligned=False):
    _, c, h, w = data.shape
    ph, pw = pooled
    c_out = c // (ph * pw) if ps else c
    out = np.zeros((len(rois), c_out, ph, pw))
    off = 0.5 if aligned else 0.0
    for r, roi in enumerate(rois):
        b = int(roi[0])
        if b < 0:
            continue
        x1, y1, x2, y2 = (v * scale - off for v in roi[1:])
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = ratio if ratio > 0 else int(math.ceil(rh / ph))
        gw = ratio if ratio > 0 else int(math.ceil(rw / pw))
        for k in range(c_out):
            for i in range(ph):
                for j in range(pw):
                    ch = k * ph * pw + i * pw + j if ps else k
                    total = 0.0
                    for iy in range(gh):
                        y = y1 + i * rh / ph + (iy + 0.5) * rh / ph / gh
                        for ix in range(gw):
                            x = x1 + j * rw / pw + (ix + 0.5) * rw / pw / gw
                            total += _bilinear(data[b, ch], h, w, y, x)
                    out[r, k, i, j] = total / (gh * gw)
    return out


def rroi_align_ref(data, rois, pooled, scale, ratio=-1):
    _, c, h, w = data.shape
    ph, pw = pooled
    out = np.zeros((len(rois), c, ph, pw))
    for r, roi in enumerate(rois):
        b = int(roi[0])
        cx, cy, rw, rh = (v * scale for v in roi[1:5])
        theta = roi[5] * math.pi / 180
        rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = ratio if ratio > 0 else int(math.ceil(rh / ph))
        gw = ratio if ratio > 0 else int(math.ceil(rw / pw))
        for k in range(c):
            for i in range(ph):
                for j in range(pw):
                    total = 0.0
                    for iy in range(gh):
                        yy = -rh / 2 + i * rh / ph + (iy + 0.5) * rh / ph / gh
                        for ix in range(gw):
                            xx = -rw / 2 + j * rw / pw + (ix + 0.5) * rw / pw / gw
                            x = xx * math.cos(theta) + yy * math.sin(theta) + cx
                            y = yy * math.cos(theta) - xx * math.sin(theta) + cy
                            total += _bilinear(data[b, k], h, w, y, x)
                    out[r, k, i, j] = total / (gh * gw)
    return out


ROIS = np.array([[0, 1.1, 1.1, 6.2, 6.2], [1, 6.1, 2.1, 8.2, 11.2], [1, 3.1, 1.1, 5.2, 10.2],
                 [0, 3, 3, 3, 3], [1, -4, -3, 2.4, 1.6], [0, 9.5, 10.5, 20, 30],
                 [1, 8.2, 3.3, 2.1, 1.4]])


# -- ROIPooling -----------------------------------------------------------------------------------
def test_roi_pooling_hand_case_and_shape():
    x = mx.nd.arange(32).reshape((1, 2, 4, 4))
    rois = mx.nd.array([[0, 0, 0, 3, 3], [0, 1, 1, 1, 1]])
    out = mx.nd.ROIPooling(x, rois, pooled_size=(2, 2), spatial_scale=1.0)
    assert out.shape == (2, 2, 2, 2)
    assert out[0, 0].asnumpy().tolist() == [[5, 7], [13, 15]]
    assert out[1, 1].asnumpy().tolist() == [[21, 21], [21, 21]]
    npx = mx.npx.roi_pooling(x.as_np_ndarray(), rois.as_np_ndarray(), pooled_size=(2, 2),
                             spatial_scale=1.0)
    assert isinstance(npx, mx.np.ndarray) and npx.asnumpy().tolist() == out.asnumpy().tolist()


@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_roi_pooling_matches_reference(scale):
    data = RNG.standard_normal((2, 3, 12, 9)).astype("float32")
    rois = np.concatenate([ROIS, [[5, 0, 0, 4, 4], [-1, 0, 0, 4, 4]]]).astype("float32")
    out = mx.nd.ROIPooling(mx.nd.array(data), mx.nd.array(rois), pooled_size=(3, 2),
                           spatial_scale=scale)
    np.testing.assert_allclose(out.asnumpy(), roi_pool_ref(data, rois, (3, 2), scale))


def test_roi_pooling_gradient_goes_to_each_bins_argmax():
    data = RNG.permutation(2 * 2 * 8 * 7).reshape(2, 2, 8, 7).astype("float64")
    check_gradient("ROIPooling", [data, ROIS[:4]], {"pooled_size": (2, 3), "spatial_scale": 1.0},
                   wrt=[0], cls=mx.nd.NDArray)
    x, rois = mx.nd.array(data), mx.nd.array(ROIS[:4])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.ROIPooling(x, rois, pooled_size=(2, 3), spatial_scale=1.0)
    y.backward(mx.nd.ones_like(y))
    # every output value is found once in the data: the gradient counts how often it was chosen
    assert float(x.grad.sum().asscalar()) == y.size - np.sum(y.asnumpy() == 0)


def test_roi_pooling_checks_its_inputs():
    with pytest.raises(MXNetError, match="rois"):
        mx.nd.ROIPooling(mx.nd.zeros((1, 1, 4, 4)), mx.nd.zeros((2, 4)), pooled_size=(2, 2),
                         spatial_scale=1.0)
        mx.nd.waitall()   # NOTE: ThreadedEngine raises kernel errors at the wait
    with pytest.raises(MXNetError, match="pooled_size"):
        mx.nd.ROIPooling(mx.nd.zeros((1, 1, 4, 4)), mx.nd.zeros((2, 5)), spatial_scale=1.0)
        mx.nd.waitall()   # NOTE: ThreadedEngine raises kernel errors at the wait


# -- ROIAlign -------------------------------------------------------------------------------------
@pytest.mark.parametrize("ratio,ps,aligned", [(-1, False, False), (2, False, False),
                                              (-1, True, False), (3, True, False),
                                              (-1, False, True)])
def test_roi_align_matches_reference(ratio, ps, aligned):
    channels = 12 if ps else 3
    data = RNG.standard_normal((2, channels, 12, 9)).astype("float64")
    rois = ROIS[[0, 1, 2, 4, 5]] if aligned else np.concatenate([ROIS, [[-1, 0, 0, 4, 4]]])
    kw = dict(pooled_size=(3, 2), spatial_scale=0.75, sample_ratio=ratio,
              position_sensitive=ps, aligned=aligned)
    out = mx.nd.contrib.ROIAlign(mx.nd.array(data, dtype="float64"),
                                 mx.nd.array(rois, dtype="float64"), **kw)
    ref = roi_align_ref(data, rois, (3, 2), 0.75, ratio, ps, aligned)
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-10, atol=1e-10)
    check_gradient("_contrib_ROIAlign", [data[:, :, :6, :5], rois[:4]], kw, wrt=[0],
                   cls=mx.nd.NDArray)


def test_roi_align_aligned_refuses_an_empty_box_and_ps_needs_divisible_channels():
    with pytest.raises(MXNetError, match="positive width"):
        mx.nd.contrib.ROIAlign(mx.nd.ones((1, 1, 4, 4)), mx.nd.array([[0, 2, 2, 2, 3]]),
                               pooled_size=(2, 2), spatial_scale=1.0, aligned=True).wait_to_read()
    with pytest.raises(MXNetError, match="divide"):
        mx.nd.contrib.ROIAlign(mx.nd.ones((1, 3, 4, 4)), mx.nd.array([[0, 0, 0, 2, 3]]),
                               pooled_size=(2, 2), spatial_scale=1.0, position_sensitive=True)
        mx.nd.waitall()   # NOTE: ThreadedEngine raises kernel errors at the wait


def test_roi_align_rois_get_a_zero_gradient():
    x, rois = mx.nd.array(RNG.uniform(size=(2, 2, 6, 6))), mx.nd.array(ROIS[:3])
    x.attach_grad()
    rois.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.ROIAlign(x, rois, pooled_size=(2, 2), spatial_scale=1.0)
    y.backward()
    assert float(rois.grad.abs().sum().asscalar()) == 0
    assert float(x.grad.sum().asscalar()) > 0


# -- RROIAlign ------------------------------------------------------------------------------------
@pytest.mark.parametrize("ratio", [-1, 2])
def test_rroi_align_matches_reference(ratio):
    data = RNG.standard_normal((2, 2, 10, 11)).astype("float64")
    rois = np.array([[0, 5, 4, 6, 3, 30], [1, 2, 8, 7.5, 2, -60], [1, 9, 1, 0.5, 12, 95],
                     [0, 20, 20, 4, 4, 10]])
    out = mx.nd.contrib.RROIAlign(mx.nd.array(data, dtype="float64"),
                                  mx.nd.array(rois, dtype="float64"), pooled_size=(2, 3),
                                  spatial_scale=0.5, sampling_ratio=ratio)
    np.testing.assert_allclose(out.asnumpy(), rroi_align_ref(data, rois, (2, 3), 0.5, ratio),
                               rtol=1e-10, atol=1e-10)


def test_rroi_align_at_angle_zero_is_roi_align_and_has_no_gradient():
    data = mx.nd.array(RNG.uniform(size=(1, 2, 8, 8)))
    rotated = mx.nd.contrib.RROIAlign(data, mx.nd.array([[0, 4, 3.5, 5, 3, 0]]),
                                      pooled_size=(2, 2), spatial_scale=1.0, sampling_ratio=2)
    plain = mx.nd.contrib.ROIAlign(data, mx.nd.array([[0, 1.5, 2, 6.5, 5]]), pooled_size=(2, 2),
                                   spatial_scale=1.0, sample_ratio=2)
    np.testing.assert_allclose(rotated.asnumpy(), plain.asnumpy(), rtol=1e-5)
    data.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.RROIAlign(data, mx.nd.array([[0, 4, 4, 2, 2, 5]]), pooled_size=(1, 1),
                                    spatial_scale=1.0)
    with pytest.raises(MXNetError, match="non-differentiable"):
        y.backward()


# -- Correlation ----------------------------------------------------------------------------------
def correlation_ref(a, b, k, md, s1, s2, pad, multiply):
    n, c, h, w = a.shape
    t1 = np.pad(a, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    t2 = np.pad(b, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    border = md + (k - 1) // 2
    th = math.ceil((h + 2 * pad - 2 * border) / s1)
    tw = math.ceil((w + 2 * pad - 2 * border) / s1)
    r = md // s2
    g = 2 * r + 1
    out = np.zeros((n, g * g, th, tw))
    for i in range(th):
        for j in range(tw):
            y1, x1 = i * s1 + md, j * s1 + md
            for ch in range(g * g):
                y2, x2 = y1 + (ch // g - r) * s2, x1 + (ch % g - r) * s2
                p, q = t1[:, :, y1:y1 + k, x1:x1 + k], t2[:, :, y2:y2 + k, x2:x2 + k]
                out[:, ch, i, j] = (p * q if multiply else np.abs(p - q)).sum(axis=(1, 2, 3))
    return out / (k * k * c)


@pytest.mark.parametrize("k,md,s1,s2,pad,multiply", [
    (1, 4, 1, 1, 4, False), (1, 5, 1, 2, 5, True), (3, 1, 2, 1, 2, True),
    (3, 1, 2, 1, 2, False), (5, 2, 1, 2, 3, True)])
def test_correlation_matches_reference(k, md, s1, s2, pad, multiply):
    a = RNG.uniform(size=(2, 3, 7, 6))
    b = RNG.uniform(size=(2, 3, 7, 6))
    kw = dict(kernel_size=k, max_displacement=md, stride1=s1, stride2=s2, pad_size=pad,
              is_multiply=multiply)
    out = mx.nd.Correlation(mx.nd.array(a, dtype="float64"), mx.nd.array(b, dtype="float64"),
                            **kw)
    np.testing.assert_allclose(out.asnumpy(), correlation_ref(a, b, k, md, s1, s2, pad, multiply),
                               rtol=1e-10, atol=1e-12)
    check_gradient("Correlation", [a[:1, :2, :5, :4], b[:1, :2, :5, :4]], kw,
                   cls=mx.nd.NDArray)


def test_correlation_checks_its_attributes():
    data = mx.nd.ones((1, 1, 8, 8))
    with pytest.raises(MXNetError, match="odd"):
        mx.nd.Correlation(data, data, kernel_size=2)
        mx.nd.waitall()   # NOTE: ThreadedEngine raises kernel errors at the wait
    with pytest.raises(MXNetError, match="stride1"):
        mx.nd.Correlation(data, data, stride1=0)
        mx.nd.waitall()   # NOTE: ThreadedEngine raises kernel errors at the wait
    with pytest.raises(MXNetError, match="do not fit"):
        mx.nd.Correlation(data, data, kernel_size=9, max_displacement=1)
        mx.nd.waitall()   # NOTE: ThreadedEngine raises kernel errors at the wait
    assert mx.sym.Correlation(mx.sym.var("a"), mx.sym.var("b")).list_outputs() == \
        ["correlation0_output"]
