"""``mx.nd.image`` / ``mx.sym.image`` / ``mx.npx.image`` (the ``_image_*`` ops).

Values against MXNet 1.9.1 are in tests/oracle (opt-in); every path in tests/test_op_paths.py.
These pin layouts, MXNet's saturating casts and the random ops' use of the seeded generator."""
import numpy
import pytest

import mxlab as mx

RNG = numpy.random.default_rng(0)
IMG = RNG.integers(0, 256, (5, 6, 3)).astype("uint8")
BATCH = RNG.integers(0, 256, (2, 5, 6, 3)).astype("uint8")


def _nd(values):
    return mx.nd.array(values, dtype=values.dtype)


def test_to_tensor_moves_channels_first_and_scales():
    out = mx.nd.image.to_tensor(_nd(IMG))
    assert out.dtype == numpy.float32 and out.shape == (3, 5, 6)
    numpy.testing.assert_allclose(out.asnumpy(), IMG.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    assert mx.nd.image.to_tensor(_nd(BATCH)).shape == (2, 3, 5, 6)


def test_normalize_per_channel_broadcasts_one_value_and_differentiates():
    x = mx.nd.array(RNG.uniform(0, 1, (3, 4, 4)))
    y = mx.nd.image.normalize(x, mean=(0.1, 0.2, 0.3), std=(0.5, 2.0, 1.5))
    want = (x.asnumpy() - [[[0.1]], [[0.2]], [[0.3]]]) / [[[0.5]], [[2.0]], [[1.5]]]
    numpy.testing.assert_allclose(y.asnumpy(), want, rtol=1e-5)
    numpy.testing.assert_allclose(mx.nd.image.normalize(x, mean=0.5, std=2.0).asnumpy(),
                                  (x.asnumpy() - 0.5) / 2.0, rtol=1e-6)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.image.normalize(x, mean=(0.1, 0.2, 0.3), std=(0.5, 2.0, 1.5))
    y.backward()
    numpy.testing.assert_allclose(x.grad.asnumpy()[:, 0, 0], [2.0, 0.5, 1 / 1.5], rtol=1e-6)


def test_flips_and_crop_follow_the_hwc_layout():
    numpy.testing.assert_array_equal(mx.nd.image.flip_left_right(_nd(IMG)).asnumpy(),
                                     IMG[:, ::-1])
    numpy.testing.assert_array_equal(mx.nd.image.flip_top_bottom(_nd(BATCH)).asnumpy(),
                                     BATCH[:, ::-1])
    crop = mx.nd.image.crop(_nd(BATCH), x=1, y=2, width=3, height=2)
    numpy.testing.assert_array_equal(crop.asnumpy(), BATCH[:, 2:4, 1:4])
    x = mx.nd.array(IMG.astype("float32"))
    x.attach_grad()
    with mx.autograd.record():
        mx.nd.image.crop(x, x=1, y=2, width=3, height=2).backward()
    assert x.grad.asnumpy().sum() == 2 * 3 * 3 and x.grad.asnumpy()[2:4, 1:4].all()
    with pytest.raises(mx.MXNetError, match="does not fit") as err:
        mx.nd.image.crop(_nd(IMG), x=4, y=0, width=3, height=2).asnumpy()
    assert isinstance(err.value, ValueError)


def test_resize_matches_mx_image_imresize_and_keeps_the_ratio():
    out = mx.nd.image.resize(_nd(IMG), size=(4, 3))
    assert out.shape == (3, 4, 3) and out.dtype == numpy.uint8
    numpy.testing.assert_array_equal(out.asnumpy(), mx.image.imresize(_nd(IMG), 4, 3).asnumpy())
    assert mx.nd.image.resize(_nd(IMG), size=4, keep_ratio=True).shape == (4, 4, 3)
    assert mx.nd.image.resize(_nd(BATCH), size=(7, 8)).shape == (2, 8, 7, 3)


def test_colour_ops_saturate_uint8_like_mxnet():
    bright = mx.nd.image.random_brightness(_nd(IMG), min_factor=1.5, max_factor=1.5).asnumpy()
    numpy.testing.assert_array_equal(bright, numpy.clip(IMG * 1.5, 0, 255).astype("uint8"))
    grey = mx.nd.image.random_saturation(mx.nd.array(IMG.astype("float32")), 0.0, 0.0).asnumpy()
    luma = IMG.astype("float32") @ numpy.array([0.299, 0.587, 0.114], "float32")
    numpy.testing.assert_allclose(grey, numpy.repeat(luma[..., None], 3, axis=2), rtol=1e-5)
    flat = mx.nd.image.random_contrast(mx.nd.array(IMG.astype("float32")), 0.0, 0.0).asnumpy()
    numpy.testing.assert_allclose(flat, numpy.full(IMG.shape, luma.mean()), rtol=1e-5)
    same = mx.nd.image.adjust_lighting(_nd(IMG), alpha=(0.0, 0.0, 0.0)).asnumpy()
    numpy.testing.assert_array_equal(same, IMG)


def test_random_ops_draw_from_the_seeded_generator():
    def draws():
        mx.random.seed(7)
        return [mx.nd.image.random_lighting(mx.nd.array(IMG.astype("float32"))).asnumpy()
                for _ in range(2)]
    first, second = draws(), draws()
    numpy.testing.assert_array_equal(first[0], second[0])
    assert not numpy.array_equal(first[0], first[1])
    flips = {mx.nd.image.random_flip_left_right(_nd(IMG)).asnumpy()[0, 0, 0] for _ in range(40)}
    assert flips == {IMG[0, 0, 0], IMG[0, -1, 0]}


def test_namespaces_and_what_is_not_built():
    out = mx.npx.image.to_tensor(mx.np.array(IMG, dtype="uint8"))
    assert isinstance(out, mx.np.ndarray) and out.shape == (3, 5, 6)
    sym = mx.sym.image.normalize(mx.sym.var("x"), mean=(0.5,), std=(2.0,))
    assert sym.infer_shape(x=(3, 4, 4))[1] == [(3, 4, 4)]
    assert mx.sym.load_json(sym.tojson()).tojson() == sym.tojson()
    for namespace in (mx.nd.image, mx.sym.image, mx.npx.image):
        assert callable(namespace.random_hue) and callable(namespace.random_resized_crop)
        with pytest.raises(AttributeError):
            namespace.no_such_op  # noqa: B018
