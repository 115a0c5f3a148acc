"""Bounding-box transforms: Blocks mapping ``(img, bbox)`` -> ``(img, bbox)`` for HWC images and
``(N, 4+)`` boxes ``(xmin, ymin, xmax, ymax, ...)`` (MXNet 2.0's
``gluon.contrib.data.vision.transforms.bbox``). Images go through ``npx.image`` for ``mx.np``
arrays and ``nd.image`` otherwise; boxes are computed with NumPy.

Example
-------
>>> import mxlab as mx
>>> from mxlab.gluon.contrib.data.vision.transforms.bbox import ImageBboxCrop
>>> img, box = ImageBboxCrop((0, 0, 3, 3))(mx.np.ones((10, 10, 3)), mx.np.array([[0, 1, 3, 4, 0]]))
>>> img.shape, box.asnumpy().tolist()
((3, 3, 3), [[0.0, 1.0, 3.0, 3.0, 0.0]])
"""
import numbers
import random

from .......base import MXNetValueError
from .......numpy import ndarray as _np_ndarray
from .......ndarray import image as _nd_image
from .......numpy_extension import image as _npx_image
from .......ndarray.ndarray import array as _nd_array
from .......numpy import array as _np_array, full as _np_full
from ......block import Block
from .utils import (_check_bbox_shape, bbox_crop, bbox_flip, bbox_random_crop_with_constraints,
                    bbox_resize, bbox_translate)

__all__ = ["ImageBboxRandomFlipLeftRight", "ImageBboxCrop", "ImageBboxRandomCropWithConstraints",
           "ImageBboxRandomExpand", "ImageBboxResize"]


def _flavour(img):
    """(image op namespace, array maker) matching ``img`` 's flavour."""
    if isinstance(img, _np_ndarray):
        return _npx_image, _np_array
    return _nd_image, _nd_array


def _host(bbox):
    return bbox.asnumpy() if hasattr(bbox, "asnumpy") else bbox


class ImageBboxRandomFlipLeftRight(Block):
    """Flip the image and its boxes left-right with probability ``p``."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img, bbox):
        _check_bbox_shape(bbox)
        if self.p <= 0 or (self.p < 1 and self.p < random.random()):
            return img, bbox
        image, make = _flavour(img)
        img = image.flip_left_right(img)
        return img, make(bbox_flip(_host(bbox), (img.shape[-2], img.shape[-3]), flip_x=True))


class ImageBboxCrop(Block):
    """Crop ``crop = (x_min, y_min, width, height)`` out of the image and its boxes (the
    image is returned unchanged when the crop does not fit inside it)."""

    def __init__(self, crop, allow_outside_center=False):
        super().__init__()
        if len(crop) != 4:
            raise MXNetValueError(f"expect crop to be (x_min, y_min, x_max, y_max), got {crop}")
        self.xmin, self.ymin, self.width, self.height = crop
        if self.xmin < 0 or self.ymin < 0 or self.width <= 0 or self.height <= 0:
            raise MXNetValueError(f"crop {crop} needs x_min, y_min >= 0 and a positive size")
        self.xmax, self.ymax = self.width + self.xmin, self.height + self.ymin
        self._allow_outside_center = allow_outside_center

    def forward(self, img, bbox):
        if self.xmax >= img.shape[-2] or self.ymax >= img.shape[-3]:
            return img, bbox
        image, make = _flavour(img)
        box = (self.xmin, self.ymin, self.width, self.height)
        return (image.crop(img, *box),
                make(bbox_crop(_host(bbox), box, self._allow_outside_center)))


class ImageBboxRandomCropWithConstraints(Block):
    """SSD-style random crop (see :func:`.utils.bbox_random_crop_with_constraints`), applied
    with probability ``p``."""

    def __init__(self, p=0.5, min_scale=0.3, max_scale=1, max_aspect_ratio=2, constraints=None,
                 max_trial=50):
        super().__init__()
        self.p = p
        self._args = {"min_scale": min_scale, "max_scale": max_scale,
                      "max_aspect_ratio": max_aspect_ratio, "constraints": constraints,
                      "max_trial": max_trial}

    def forward(self, img, bbox):
        if random.random() > self.p:
            return img, bbox
        im_size = (img.shape[-2], img.shape[-3])
        new_bbox, crop = bbox_random_crop_with_constraints(_host(bbox), im_size, **self._args)
        if crop == (0, 0, im_size[0], im_size[1]):
            return img, bbox
        image, make = _flavour(img)
        return image.crop(img, *crop), make(new_bbox)


class ImageBboxRandomExpand(Block):
    """Place the image at a random offset on a canvas up to ``max_ratio`` times larger filled
    with ``fill`` (a number or one value per channel), with probability ``p``."""

    def __init__(self, p=0.5, max_ratio=4, fill=0, keep_ratio=True):
        super().__init__()
        self.p, self._max_ratio, self._fill, self._keep_ratio = p, max_ratio, fill, keep_ratio

    def forward(self, img, bbox):
        if self._max_ratio <= 1 or random.random() > self.p:
            return img, bbox
        if len(img.shape) != 3:
            raise NotImplementedError("ImageBboxRandomExpand only support images in HWC format")
        h, w, c = img.shape
        ratio_x = random.uniform(1, self._max_ratio)
        ratio_y = ratio_x if self._keep_ratio else random.uniform(1, self._max_ratio)
        oh, ow = int(h * ratio_y), int(w * ratio_x)
        off_y, off_x = random.randint(0, oh - h), random.randint(0, ow - w)
        _, make = _flavour(img)
        if isinstance(self._fill, numbers.Number):
            canvas = _np_full((oh, ow, c), self._fill, dtype=img.dtype)
        else:
            fill = _np_array(self._fill, dtype=img.dtype)
            if fill.size != c:
                raise MXNetValueError(f"Channel and fill size mismatch, {c} vs {fill.size}")
            canvas = _np_full((oh, ow, c), 0, dtype=img.dtype) + fill.reshape((1, 1, c))
        if not isinstance(img, _np_ndarray):
            canvas = canvas.as_nd_ndarray()
        canvas[off_y:off_y + h, off_x:off_x + w, :] = img
        return canvas, make(bbox_translate(_host(bbox), off_x, off_y))


class ImageBboxResize(Block):
    """Resize the image to ``(width, height)`` and scale its boxes (``interp=-1``: a random
    interpolation method)."""

    def __init__(self, width, height, interp=1):
        super().__init__()
        self._size, self._interp = (width, height), interp

    def forward(self, img, bbox):
        if len(img.shape) != 3:
            raise NotImplementedError("ImageBboxResize only support images in HWC format")
        interp = random.randint(0, 5) if self._interp == -1 else self._interp
        image, make = _flavour(img)
        return (image.resize(img, self._size, False, interp),
                make(bbox_resize(_host(bbox), (img.shape[-2], img.shape[-3]), self._size)))
