"""Deformable convolution (v1 and modulated v2): zero offsets give a plain convolution, and the
modulated op's gradients match central differences (MXNet 1.9.1 has no CPU kernel for it; the
v1 op is compared with MXNet in tests/oracle/test_mxnet_ops.py)."""
import numpy as np
import pytest

import mxlab as mx
from mxlab import autograd
from mxlab.base import MXNetError


def test_zero_offsets_and_unit_mask_give_a_plain_convolution():
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((2, 4, 5, 6)), rng.standard_normal((6, 2, 3, 3)), np.ones(6)
    kw = dict(kernel=(3, 3), pad=(1, 1), num_filter=6, num_group=2)
    plain = mx.nd.Convolution(mx.nd.array(x), mx.nd.array(w), mx.nd.array(b), **kw).asnumpy()
    v1 = mx.nd.contrib.DeformableConvolution(
        mx.nd.array(x), mx.nd.zeros((2, 18, 5, 6)), mx.nd.array(w), mx.nd.array(b), **kw)
    v2 = mx.npx.modulated_deformable_convolution(
        mx.np.array(x), mx.np.zeros((2, 18, 5, 6)), mx.np.ones((2, 9, 5, 6)), mx.np.array(w),
        mx.np.array(b), **kw)
    np.testing.assert_allclose(v1.asnumpy(), plain, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(v2.asnumpy(), plain, rtol=1e-5, atol=1e-5)


def _modulated(args):
    return mx.nd.contrib.ModulatedDeformableConvolution(
        *args, kernel=(3, 3), pad=(2, 2), dilate=(2, 2), num_filter=3, num_deformable_group=2)


@pytest.mark.parametrize("which", [0, 1, 2, 3, 4])
def test_modulated_gradients_match_central_differences(which):
    rng = np.random.default_rng(1)
    values = [rng.uniform(-1, 1, (1, 4, 4, 5)), rng.uniform(-1.5, 1.5, (1, 36, 4, 5)),
              rng.uniform(0, 1, (1, 18, 4, 5)), rng.standard_normal((3, 4, 3, 3)),
              rng.standard_normal(3)]
    head = rng.standard_normal((1, 3, 4, 5))
    args = [mx.nd.array(v, dtype="float64") for v in values]
    for a in args:
        a.attach_grad()
    with autograd.record():
        out = _modulated(args)
    out.backward(mx.nd.array(head, dtype="float64"))
    analytic = args[which].grad.asnumpy()
    flat = values[which].reshape(-1)
    for i in rng.choice(flat.size, min(12, flat.size), replace=False):
        shifted = []
        for step in (1e-6, -1e-6):
            trial = [v.copy() for v in values]
            trial[which].reshape(-1)[i] += step
            y = _modulated([mx.nd.array(v, dtype="float64") for v in trial]).asnumpy()
            shifted.append((y * head).sum())
        numeric = (shifted[0] - shifted[1]) / 2e-6
        assert abs(analytic.reshape(-1)[i] - numeric) < 1e-5 * max(1, abs(numeric))


def test_offset_of_the_wrong_shape_is_refused_naming_it():
    with pytest.raises(MXNetError, match="offset"):
        mx.nd.contrib.DeformableConvolution(
            mx.nd.ones((1, 2, 4, 4)), mx.nd.ones((1, 9, 4, 4)), mx.nd.ones((2, 2, 3, 3)),
            kernel=(3, 3), pad=(1, 1), num_filter=2, no_bias=True).wait_to_read()
