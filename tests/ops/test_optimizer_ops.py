"""Fused optimizer update ops against MXNet's kernel formulas (in place on the weight)."""
import numpy
import pytest

import mxlab as mx


def _arrays():
    rng = numpy.random.default_rng(0)
    return rng.normal(size=(4, 3)).astype("float32"), rng.normal(size=(4, 3)).astype("float32")


@pytest.mark.parametrize("clip", [-1.0, 0.3])
def test_sgd_update_matches_formula_in_place(clip):
    w0, g = _arrays()
    weight = mx.nd.array(w0)
    weight.wait_to_read()   # NOTE: a var's version counts completed writes (threaded engines)
    before = weight.version
    result = mx.nd.sgd_update(weight, mx.nd.array(g), lr=0.1, wd=0.01, rescale_grad=0.5,
                              clip_gradient=clip, out=weight)
    weight.wait_to_read()
    scaled = g * 0.5 if clip < 0 else numpy.clip(g * 0.5, -clip, clip)
    expected = w0 - 0.1 * (scaled + 0.01 * w0)
    assert result is weight and weight.version == before + 1
    numpy.testing.assert_allclose(weight.asnumpy(), expected, rtol=1e-6)


def test_sgd_mom_update_updates_weight_and_momentum():
    w0, g = _arrays()
    m0 = numpy.full_like(w0, 0.2)
    weight, mom = mx.nd.array(w0), mx.nd.array(m0)
    mx.nd.sgd_mom_update(weight, mx.nd.array(g), mom, lr=0.1, wd=0.01, momentum=0.9, out=weight)
    expected_mom = 0.9 * m0 - 0.1 * (g + 0.01 * w0)
    numpy.testing.assert_allclose(mom.asnumpy(), expected_mom, rtol=1e-6)
    numpy.testing.assert_allclose(weight.asnumpy(), w0 + expected_mom, rtol=1e-6)
    assert mom.version == 2  # created, then written by the update


def test_without_out_the_weight_is_untouched():
    w0, g = _arrays()
    weight = mx.np.array(w0)
    new = mx.npx.sgd_update(weight, mx.np.array(g), lr=1.0)
    numpy.testing.assert_array_equal(weight.asnumpy(), w0)
    numpy.testing.assert_allclose(new.asnumpy(), w0 - g, rtol=1e-6)


def test_missing_learning_rate_names_the_op():
    w0, g = _arrays()
    with pytest.raises(mx.MXNetError, match="sgd_update: required attribute 'lr'"):
        mx.nd.sgd_update(mx.nd.array(w0), mx.nd.array(g))


def test_signsgd_and_signum_follow_mxnets_kernels():
    rng = numpy.random.default_rng(0)
    w0, g0, m0 = (rng.standard_normal(6).astype("float32") for _ in range(3))
    w = mx.nd.array(w0)
    mx.nd.signsgd_update(w, mx.nd.array(g0), lr=0.1, wd=0.01, out=w)
    numpy.testing.assert_allclose(w.asnumpy(), (1 - 0.001) * w0 - 0.1 * numpy.sign(g0),
                                  rtol=1e-6)
    w, m = mx.nd.array(w0), mx.nd.array(m0)
    mx.nd.signum_update(w, mx.nd.array(g0), m, lr=0.1, momentum=0.9, wd=0.01, wd_lh=0.02,
                        rescale_grad=0.5, clip_gradient=0.3, out=w)
    mom = 0.9 * m0 - 0.1 * (numpy.clip(0.5 * g0, -0.3, 0.3) + 0.01 * w0)
    numpy.testing.assert_allclose(m.asnumpy(), mom, rtol=1e-5, atol=1e-7)
    numpy.testing.assert_allclose(w.asnumpy(), (1 - 0.002) * w0 + 0.1 * numpy.sign(mom),
                                  rtol=1e-6)
