"""gluon.contrib.data.vision.transforms.bbox: box arithmetic hand-computed, images through the
np / nd image ops."""
import random

import numpy
import pytest

import mxlab as mx
from mxlab.gluon.contrib.data.vision.transforms import bbox as T
from mxlab.gluon.contrib.data.vision.transforms.bbox import utils as U


def test_flip_mirrors_image_and_boxes():
    img = numpy.zeros((4, 6, 3), "uint8")
    img[0, 0, 0] = 9
    out, box = T.ImageBboxRandomFlipLeftRight(1.0)(mx.np.array(img), mx.np.array([[1, 2, 3, 4]]))
    assert out.asnumpy()[0, 5, 0] == 9
    assert box.asnumpy().tolist() == [[3, 2, 5, 4]]
    same, kept = T.ImageBboxRandomFlipLeftRight(0.0)(mx.nd.array(img), mx.nd.array([[1, 2, 3, 4]]))
    assert same.asnumpy()[0, 0, 0] == 9 and kept.asnumpy().tolist() == [[1, 2, 3, 4]]
    with pytest.raises(ValueError, match=r"\(N, 4\+\)"):
        T.ImageBboxRandomFlipLeftRight(1.0)(mx.np.array(img), mx.np.array([1, 2, 3, 4]))


def test_crop_drops_boxes_whose_centre_leaves():
    boxes = numpy.array([[0, 1, 3, 4, 0], [4, 4, 6, 6, 1]], "float32")
    img, box = T.ImageBboxCrop((0, 0, 3, 3))(mx.np.ones((10, 10, 3)), mx.np.array(boxes))
    assert img.shape == (3, 3, 3)
    assert box.asnumpy().tolist() == [[0, 1, 3, 3, 0]]
    inside = U.bbox_crop(boxes, (1, 1, 8, 8), allow_outside_center=True)
    numpy.testing.assert_array_equal(inside[:, :4], [[0, 0, 2, 3], [3, 3, 5, 5]])
    with pytest.raises(ValueError, match="positive size"):
        T.ImageBboxCrop((0, 0, 0, 3))


def test_resize_and_expand():
    img, box = T.ImageBboxResize(5, 20)(mx.nd.ones((10, 10, 3)), mx.nd.array([[2, 2, 4, 4]]))
    assert img.shape == (20, 5, 3)
    assert box.asnumpy().tolist() == [[1, 4, 2, 8]]
    random.seed(1)
    canvas, moved = T.ImageBboxRandomExpand(p=1, max_ratio=3, fill=7)(
        mx.np.ones((4, 4, 3)), mx.np.array([[0, 0, 2, 2]]))
    x0, y0 = moved.asnumpy()[0, :2].astype(int)
    arr = canvas.asnumpy()
    assert arr[y0:y0 + 4, x0:x0 + 4].min() == 1 and (arr == 7).sum() == arr.size - 48


def test_iou_and_box_formats():
    a = numpy.array([[0, 0, 2, 2]], "float64")
    b = numpy.array([[1, 1, 3, 3], [5, 5, 6, 6]], "float64")
    numpy.testing.assert_allclose(U.bbox_iou(a, b), [[1 / 7, 0]])
    assert U.bbox_xywh_to_xyxy((1, 2, 3, 4)) == (1, 2, 3, 5)
    assert U.bbox_xyxy_to_xywh((1, 2, 3, 5)) == (1, 2, 3, 4)
    with pytest.raises(TypeError, match="xyxy"):
        U.bbox_clip_xyxy("box", 4, 4)


def test_random_crop_with_constraints_keeps_boxes_inside():
    random.seed(0)
    numpy.random.seed(0)
    boxes = numpy.array([[10, 10, 40, 40, 3]], "float64")
    new, (left, top, width, height) = U.bbox_random_crop_with_constraints(boxes, (64, 48))
    assert 0 <= left and left + width <= 64 and 0 <= top and top + height <= 48
    assert len(new) == 1 and (new[:, 2] <= width).all() and (new[:, 3] <= height).all()
    assert new[0, 4] == 3
