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


def test_copy_make_border_and_not_built_rotation():
    padded = mx.image.copyMakeBorder(IMG, 1, 2, 3, 4, type=1)
    assert padded.shape == (23, 37, 3)
    assert (padded.asnumpy()[0, 3:-4] == WANT["image"][0]).all()
    with pytest.raises(NotImplementedError, match="imrotate"):
        mx.image.imrotate(IMG, 30)


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
