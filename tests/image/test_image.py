"""mx.image and gluon.data.vision.transforms against what MXNet 1.9.1 (OpenCV) computed on the
same image (fixtures/mxnet191_image.npz, made by fixtures/make_resize_fixture.py)."""
import io
import pathlib
import random

import numpy
import pytest
from PIL import Image

import mxlab as mx
from mxlab.gluon.data.vision import transforms as T

WANT = numpy.load(pathlib.Path(__file__).parent / "fixtures" / "mxnet191_image.npz")
IMG = mx.nd.array(WANT["image"], dtype="uint8")


def close(got, key, tol=1):
    """Within one grey level: OpenCV rounds fixed-point weights, we round float32 ones."""
    got = got.asnumpy()
    assert got.shape == WANT[key].shape and got.dtype == WANT[key].dtype
    assert numpy.abs(got.astype(float) - WANT[key]).max() <= tol


@pytest.mark.parametrize("interp", range(5))
@pytest.mark.parametrize("w,h", [(17, 9), (45, 33), (15, 10)])
def test_imresize_matches_opencv_for_every_interp_code(interp, w, h):
    close(mx.image.imresize(IMG, w, h, interp=interp), f"imresize_{interp}_{w}x{h}")


def test_resize_short_and_transforms_match_mxnet():
    close(mx.image.resize_short(IMG, 11), "short11")
    close(T.Resize((13, 7))(IMG), "resize_13x7")
    close(T.Resize(10, keep_ratio=True)(IMG), "resize_keep10")
    close(T.CenterCrop(8)(IMG), "center8", tol=0)
    close(T.ToTensor()(IMG), "to_tensor", tol=1e-6)
    close(T.Normalize((0.1, 0.2, 0.3), (0.5, 0.6, 0.7))(T.ToTensor()(IMG)), "normalize", tol=1e-5)


def test_unknown_interp_is_an_error():
    with pytest.raises(ValueError, match="Unknown interp method 7"):
        mx.image.imresize(IMG, 3, 3, interp=7)


def test_crops_report_their_box_and_keep_the_flavour():
    out, box = mx.image.center_crop(mx.np.array(WANT["image"], dtype="uint8"), (10, 6))
    assert isinstance(out, mx.np.ndarray) and out.shape == (6, 10, 3) and box == (10, 7, 10, 6)
    out, (x0, y0, w, h) = mx.image.random_crop(IMG, (8, 8))
    assert (out.asnumpy() == WANT["image"][y0:y0 + h, x0:x0 + w]).all()
    out, box = mx.image.random_size_crop(IMG, (5, 5), (0.3, 1.0), (0.75, 1.33))
    assert out.shape == (5, 5, 3)


def test_imdecode_and_imread_round_trip_png(tmp_path):
    buf = io.BytesIO()
    Image.fromarray(WANT["image"]).save(buf, format="PNG")
    decoded = mx.image.imdecode(buf.getvalue())
    assert (decoded.asnumpy() == WANT["image"]).all()
    assert (mx.image.imdecode(buf.getvalue(), to_rgb=False).asnumpy()
            == WANT["image"][..., ::-1]).all()
    path = tmp_path / "x.png"
    path.write_bytes(buf.getvalue())
    grey = mx.image.imread(str(path), flag=0)
    assert grey.shape == (20, 30, 1) and grey.dtype == numpy.uint8
    with pytest.raises(ValueError, match="cannot decode"):
        mx.image.imdecode(b"not an image")


def test_copy_make_border():
    padded = mx.image.copyMakeBorder(IMG, 1, 2, 3, 4, type=1)
    assert padded.shape == (23, 37, 3)
    assert (padded.asnumpy()[0, 3:-4] == WANT["image"][0]).all()


@pytest.mark.parametrize("transform", [
    T.RandomFlipLeftRight(p=1), T.RandomFlipTopBottom(p=1), T.RandomBrightness(0.5),
    T.RandomContrast(0.5), T.RandomSaturation(0.5), T.RandomHue(0.5),
    T.RandomColorJitter(0.3, 0.3, 0.3, 0.3), T.RandomLighting(0.1), T.RandomGray(1.0),
    T.RandomResizedCrop((12, 10)), T.RandomCrop(16, pad=2), T.Cast("float16")])
def test_random_transforms_keep_shape_rules_and_change_pixels(transform):
    random.seed(1)  # NOTE: a jitter factor within 0.4% of 1 would change no pixel
    numpy.random.seed(1)
    out = transform(IMG).asnumpy()
    if isinstance(transform, T.RandomResizedCrop):
        assert out.shape == (10, 12, 3)
    elif isinstance(transform, T.RandomCrop):
        assert out.shape == (16, 16, 3)
    else:
        assert out.shape == WANT["image"].shape
        assert not numpy.array_equal(out, WANT["image"]) or isinstance(transform, T.Cast)


def test_flips_are_exact_and_batches_work():
    assert (T.RandomFlipLeftRight(p=1)(IMG).asnumpy() == WANT["image"][:, ::-1]).all()
    batch = mx.nd.array(numpy.stack([WANT["image"]] * 2), dtype="uint8")
    tensor = T.Compose([T.Resize(8), T.ToTensor()])(batch)
    assert tensor.shape == (2, 3, 8, 8) and tensor.dtype == numpy.float32


# -- imrotate --------------------------------------------------------------------------------------
def _square(n=5):
    return numpy.arange(3 * n * n, dtype="float32").reshape(3, n, n)


def test_imrotate_by_zero_and_by_a_quarter_turn():
    img = _square()
    numpy.testing.assert_allclose(mx.image.imrotate(mx.nd.array(img), 0).asnumpy(), img,
                                  atol=1e-4)
    quarter = mx.image.imrotate(mx.nd.array(img), 90).asnumpy()
    numpy.testing.assert_allclose(quarter, numpy.rot90(img, k=1, axes=(1, 2)), atol=1e-3)


def test_imrotate_batch_takes_one_angle_per_image_and_keeps_the_flavour():
    batch = numpy.stack([_square(), _square()[::-1].copy()])
    angles = mx.nd.array([90, 0])
    both = mx.image.imrotate(mx.nd.array(batch), angles).asnumpy()
    for i, degrees in enumerate((90, 0)):
        one = mx.image.imrotate(mx.nd.array(batch[i]), degrees).asnumpy()
        numpy.testing.assert_allclose(both[i], one, atol=1e-5)
    assert isinstance(mx.image.imrotate(mx.np.array(batch[0]), 10), mx.np.ndarray)


def test_imrotate_zoom_in_shows_no_padding_and_zoom_out_keeps_the_corners():
    ones = mx.nd.ones((1, 8, 8))
    zoomed_in = mx.image.imrotate(ones, 45, zoom_in=True).asnumpy()
    plain = mx.image.imrotate(ones, 45).asnumpy()
    assert zoomed_in.min() > 0.99 and plain[0, 0, 0] < 0.5   # a plain turn pads the corners
    zoomed_out = mx.image.imrotate(ones, 45, zoom_out=True).asnumpy()
    assert zoomed_out.sum() < plain.sum()                     # shrunk: more border shows


def test_random_rotate_draws_within_the_limits():
    img = mx.nd.array(_square())
    numpy.random.seed(0)
    out = mx.image.random_rotate(img, (-1e-6, 1e-6)).asnumpy()
    numpy.testing.assert_allclose(out, img.asnumpy(), atol=1e-3)


@pytest.mark.parametrize("call, kind", [
    (lambda: mx.image.imrotate(mx.nd.ones((3, 4, 4)), 5, zoom_in=True, zoom_out=True),
     ValueError),
    (lambda: mx.image.imrotate(mx.nd.ones((3, 4, 4), dtype="float64"), 5), TypeError),
    (lambda: mx.image.imrotate(mx.nd.ones((2, 3, 4, 4)), mx.nd.array([1, 2, 3])), ValueError),
    (lambda: mx.image.imrotate(mx.nd.ones((3, 4, 4)), mx.nd.array([1])), TypeError),
])
def test_imrotate_errors_are_mxnet_errors_of_the_natural_type(call, kind):
    with pytest.raises(mx.MXNetError) as err:
        call()
    assert isinstance(err.value, kind)


def test_to_tensor_and_normalize_hybridize_into_one_graph():
    img = numpy.random.default_rng(2).integers(0, 256, (2, 6, 5, 3)).astype("uint8")
    pipeline = T.HybridCompose([T.ToTensor(), T.Normalize(mean=(0.4, 0.5, 0.6),
                                                          std=(0.2, 0.25, 0.3))])
    eager = pipeline(mx.nd.array(img, dtype="uint8")).asnumpy()
    pipeline.hybridize()
    traced = pipeline(mx.nd.array(img, dtype="uint8")).asnumpy()
    ops = [n.op.name for n in pipeline.cached_op.symbol.graph.indexed.nodes if n.op is not None]
    assert ops == ["_image_to_tensor", "_image_normalize"]
    want = (img.transpose(0, 3, 1, 2) / 255.0 - numpy.array([0.4, 0.5, 0.6])[:, None, None]) \
        / numpy.array([0.2, 0.25, 0.3])[:, None, None]
    numpy.testing.assert_allclose(eager, want, rtol=1e-5)
    numpy.testing.assert_allclose(traced, eager, rtol=1e-6)


def test_rotate_transforms_use_imrotate_and_want_float32():
    x = mx.nd.array(_square())
    numpy.testing.assert_allclose(T.Rotate(90)(x).asnumpy(), mx.image.imrotate(x, 90).asnumpy())
    assert T.RandomRotation((-10, 10), rotate_with_proba=0.0)(x) is x
    with pytest.raises(TypeError, match="float32"):
        T.Rotate(10)(mx.nd.ones((3, 4, 4), dtype="uint8"))
    with pytest.raises(ValueError, match="angle_limits"):
        T.RandomRotation((10, -10))


def test_resize_and_crop_resize_refuse_bad_sizes():
    img = mx.nd.array(numpy.zeros((6, 5, 3), "float32"))
    for bad in (T.Resize(-3, keep_ratio=True), T.Resize((4, 4, 4)),
                T.CropResize(0, 0, 2, 2, (-2, 2)), T.CropResize(0, 0, -1, 2),
                T.CropResize(3, 4, 3, 3)):
        with pytest.raises(mx.base.MXNetError, match="Resize"):
            bad(img)
    assert T.CropResize(1, 2, 3, 4)(img).shape == (4, 3, 3)


def test_random_gray_is_float32_luma_with_mxnets_weights():
    # MXNet's RandomGray (Gluon 2) casts to float32 whether it applies or not, and its weights
    # sum to 0.9999: a grey uint8 image of ones no longer reads 1 (test_random_gray counts that)
    ones = mx.np.ones((4, 4, 3), dtype="uint8")
    kept, grey = T.RandomGray(0.0)(ones).asnumpy(), T.RandomGray(1.0)(ones).asnumpy()
    assert kept.dtype == grey.dtype == numpy.float32 and (kept == 1).all()
    numpy.testing.assert_allclose(grey, numpy.full((4, 4, 3), 0.9999, numpy.float32), rtol=1e-6)
    rgb = mx.np.array(numpy.array([[[10, 20, 30]]]), dtype="uint8")
    numpy.testing.assert_allclose(T.RandomGray(1.0)(rgb).asnumpy(),
                                  numpy.full((1, 1, 3), 2.989 + 11.74 + 3.42), rtol=1e-5)
