"""MXNet's image augmenters, ``CreateAugmenter`` and a file-list ``ImageIter``.

Augmenters take and return HWC arrays; the colour jitters expect float input (``CreateAugmenter``
casts first) and use MXNet's formulas. Random choices come from Python's ``random`` (and NumPy for
the lighting noise), as in MXNet.
"""
import json
import os
import random

import numpy

from .. import recordio
from ..base import MXNetValueError
from ..ops import image_kernels as kernels
from .image import _host, center_crop, color_normalize, imdecode, imread, random_crop, \
    random_size_crop, resize_short, imresize

__all__ = ["Augmenter", "SequentialAug", "RandomOrderAug", "ResizeAug", "ForceResizeAug",
           "RandomCropAug", "RandomSizedCropAug", "CenterCropAug", "BrightnessJitterAug",
           "ContrastJitterAug", "SaturationJitterAug", "HueJitterAug", "ColorJitterAug",
           "LightingAug", "ColorNormalizeAug", "RandomGrayAug", "HorizontalFlipAug", "CastAug",
           "CreateAugmenter", "ImageIter"]

_COEF = numpy.array([[[0.299, 0.587, 0.114]]], dtype=numpy.float32)
_GRAY = numpy.array([[0.21, 0.21, 0.21], [0.72, 0.72, 0.72], [0.07, 0.07, 0.07]],
                    dtype=numpy.float32)


class Augmenter:
    """Base class; ``dumps()`` describes the augmenter as MXNet does (JSON)."""

    def __init__(self, **kwargs):
        self._kwargs = {k: (v.tolist() if isinstance(v, numpy.ndarray) else v)
                        for k, v in kwargs.items()}

    def dumps(self):
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, src):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__")


class _HostAug(Augmenter):
    """An augmenter computed on the host values: ``apply(values) -> values``."""

    def __call__(self, src):
        values, wrap = _host(src)
        return wrap(self.apply(values))


class SequentialAug(Augmenter):
    """Apply ``ts`` in order."""

    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        return [type(self).__name__.lower(), [t.dumps() for t in self.ts]]

    def __call__(self, src):
        for aug in self.ts:
            src = aug(src)
        return src


class RandomOrderAug(SequentialAug):
    """Apply ``ts`` in a random order."""

    def __call__(self, src):
        random.shuffle(self.ts)  # NOTE: in place, as MXNet, so seeded runs draw alike
        for aug in self.ts:
            src = aug(src)
        return src


class _SizedAug(Augmenter):
    """A geometric augmenter with a target ``size`` and an OpenCV ``interp`` code."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size, self.interp = size, interp


class ResizeAug(_SizedAug):
    """Resize the shorter edge to ``size``."""

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(_SizedAug):
    """Resize to ``size`` (w, h), ignoring the aspect ratio."""

    def __call__(self, src):
        return imresize(src, *self.size, interp=self.interp)


class RandomCropAug(_SizedAug):
    """A random crop of ``size`` (w, h)."""

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """A crop of random area and aspect, resized to ``size``."""

    def __init__(self, size, area, ratio, interp=2):
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size, self.area, self.ratio, self.interp = size, area, ratio, interp

    def __call__(self, src):
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(_SizedAug):
    """The centred crop of ``size`` (w, h)."""

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


class BrightnessJitterAug(_HostAug):
    """Scale by ``1 + U(-brightness, brightness)``."""

    def __init__(self, brightness):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def apply(self, src):
        return src * (1.0 + random.uniform(-self.brightness, self.brightness))


class ContrastJitterAug(_HostAug):
    """Blend with the mean luma: ``alpha * src + (1 - alpha) * mean grey``."""

    def __init__(self, contrast):
        super().__init__(contrast=contrast)
        self.contrast = contrast

    def apply(self, src):
        alpha = 1.0 + random.uniform(-self.contrast, self.contrast)
        gray = src * _COEF
        gray = (3.0 * (1.0 - alpha) / gray.size) * gray.sum()
        return src * alpha + gray


class SaturationJitterAug(_HostAug):
    """Blend with the per-pixel luma."""

    def __init__(self, saturation):
        super().__init__(saturation=saturation)
        self.saturation = saturation

    def apply(self, src):
        alpha = 1.0 + random.uniform(-self.saturation, self.saturation)
        gray = (src * _COEF).sum(axis=2, keepdims=True) * (1.0 - alpha)
        return src * alpha + gray


class HueJitterAug(_HostAug):
    """Rotate the hue by ``U(-hue, hue)`` of a half turn (YIQ space)."""

    def __init__(self, hue):
        super().__init__(hue=hue)
        self.hue = hue

    def apply(self, src):
        return kernels.adjust_hue(src, random.uniform(-self.hue, self.hue))


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitter in a random order."""

    def __init__(self, brightness, contrast, saturation):
        steps = [cls(amount) for amount, cls in ((brightness, BrightnessJitterAug),
                                                  (contrast, ContrastJitterAug),
                                                  (saturation, SaturationJitterAug)) if amount]
        super().__init__(steps)


class LightingAug(_HostAug):
    """AlexNet-style PCA noise: add ``eigvec @ (N(0, alphastd) * eigval)``."""

    def __init__(self, alphastd, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd, self.eigval, self.eigvec = alphastd, eigval, eigvec

    def apply(self, src):
        alpha = numpy.random.normal(0, self.alphastd, size=(3,))
        return src + numpy.dot(self.eigvec * alpha, self.eigval).astype(src.dtype)


class ColorNormalizeAug(Augmenter):
    """``(src - mean) / std``."""

    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean = None if mean is None else numpy.asarray(mean, numpy.float32)
        self.std = None if std is None else numpy.asarray(std, numpy.float32)

    def __call__(self, src):
        values, wrap = _host(src)
        return wrap(color_normalize(values, self.mean, self.std).astype(values.dtype))


class RandomGrayAug(_HostAug):
    """Grey (three equal channels) with probability ``p``."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def apply(self, src):
        return numpy.dot(src, _GRAY) if random.random() < self.p else src


class HorizontalFlipAug(_HostAug):
    """Mirror with probability ``p``."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def apply(self, src):
        return numpy.ascontiguousarray(src[:, ::-1]) if random.random() < self.p else src


class CastAug(_HostAug):
    """Cast to ``typ``."""

    def __init__(self, typ="float32"):
        super().__init__(type=typ)
        self.typ = typ

    def apply(self, src):
        return src.astype(self.typ)


def CreateAugmenter(data_shape, resize=0, rand_crop=False, rand_resize=False,  # noqa: N802
                    rand_mirror=False, mean=None, std=None, brightness=0, contrast=0,
                    saturation=0, hue=0, pca_noise=0, rand_gray=0, inter_method=2):
    """MXNet's standard augmenter list for images of ``data_shape`` (C, H, W)."""
    augs = [ResizeAug(resize, inter_method)] if resize > 0 else []
    crop_size = (data_shape[2], data_shape[1])
    if rand_resize:
        if not rand_crop:
            raise MXNetValueError("CreateAugmenter: rand_resize needs rand_crop")
        augs.append(RandomSizedCropAug(crop_size, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    elif rand_crop:
        augs.append(RandomCropAug(crop_size, inter_method))
    else:
        augs.append(CenterCropAug(crop_size, inter_method))
    if rand_mirror:
        augs.append(HorizontalFlipAug(0.5))
    augs.append(CastAug())
    if brightness or contrast or saturation:
        augs.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        augs.append(HueJitterAug(hue))
    if pca_noise > 0:
        augs.append(LightingAug(pca_noise, kernels.EIGVAL, kernels.EIGVEC))
    if rand_gray > 0:
        augs.append(RandomGrayAug(rand_gray))
    if mean is True:
        mean = numpy.array([123.68, 116.28, 103.53])
    if std is True:
        std = numpy.array([58.395, 57.12, 57.375])
    if mean is not None or std is not None:
        augs.append(ColorNormalizeAug(mean, std))
    return augs


def _read_list(path_imglist, imglist, label_width):
    if path_imglist is not None:
        with open(path_imglist) as fin:
            rows = [line.strip().split("\t") for line in fin if line.strip()]
        return [(numpy.array(r[1:1 + label_width], dtype=numpy.float32), r[-1]) for r in rows]
    return [(numpy.atleast_1d(numpy.asarray(entry[0], dtype=numpy.float32)), entry[1])
            for entry in imglist]


class ImageIter:
    """Batches of images from a RecordIO file ``path_imgrec`` (labels from its headers), or named
    by ``path_imglist`` (MXNet's .lst) or ``imglist`` ([label, path] entries) under
    ``path_root``, augmented by ``aug_list`` and laid out CHW.
    Built on :class:`mx.io.NDArrayIter` semantics for shuffling and the last batch."""

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None,
                 path_imglist=None, path_root=".", path_imgidx=None, shuffle=False,
                 part_index=0, num_parts=1, aug_list=None, imglist=None, data_name="data",
                 label_name="softmax_label", dtype="float32", last_batch_handle="pad",
                 **kwargs):
        if path_imgrec is None and path_imglist is None and imglist is None:
            raise MXNetValueError("ImageIter: give path_imgrec, path_imglist or imglist")
        if len(data_shape) != 3 or data_shape[0] not in (1, 3):
            raise MXNetValueError(f"ImageIter: data_shape must be (1 or 3, H, W), got "
                                  f"{data_shape}")
        self._reader = None
        if path_imgrec is not None:
            self.items = [(numpy.atleast_1d(numpy.asarray(h.label, numpy.float32))[:label_width],
                           position) for h, position in recordio.header_positions(path_imgrec)]
            self._reader = recordio.MXRecordIO(path_imgrec, "r")
        else:
            self.items = _read_list(path_imglist, imglist, label_width)
        self.items = self.items[part_index::num_parts] if num_parts > 1 else self.items
        self.path_root, self.data_shape, self.label_width = path_root, data_shape, label_width
        self.auglist = aug_list if aug_list is not None else CreateAugmenter(data_shape,
                                                                             **kwargs)
        self.batch_size, self.dtype = batch_size, dtype
        self._iter_args = dict(batch_size=batch_size, shuffle=shuffle,
                               last_batch_handle=last_batch_handle, data_name=data_name,
                               label_name=label_name)
        self.reset()

    def _image(self, source):
        """Decode one item: a record at a byte position, or an image file under path_root."""
        flag = int(self.data_shape[0] == 3)
        if self._reader is not None:
            _, payload = recordio.unpack(recordio.read_at(self._reader, source))
            img = imdecode(payload, flag=flag)
        else:
            img = imread(os.path.join(self.path_root, source), flag=flag)
        for aug in self.auglist:
            img = aug(img)
        values = img.asnumpy()
        if values.shape[:2] != tuple(self.data_shape[1:]):
            raise MXNetValueError(f"ImageIter: {source} is {values.shape[:2]} after "
                                  f"augmentation, data_shape needs {self.data_shape[1:]}")
        return values.transpose(2, 0, 1).astype(self.dtype)

    def reset(self):
        from ..io import NDArrayIter

        labels = numpy.stack([label for label, _ in self.items])
        labels = labels[:, 0] if self.label_width == 1 else labels
        order = numpy.arange(len(self.items), dtype=numpy.float32)
        self._inner = NDArrayIter(order, labels, **self._iter_args)

    @property
    def provide_data(self):
        return [self._inner.provide_data[0]._replace(shape=(self.batch_size,)
                                                     + tuple(self.data_shape))]

    @property
    def provide_label(self):
        return self._inner.provide_label

    def __iter__(self):
        return self

    def __next__(self):
        from .. import ndarray as nd
        from ..io import DataBatch

        batch = self._inner.next()
        images = [self._image(self.items[int(i)][1]) for i in batch.data[0].asnumpy()]
        data = nd.array(numpy.stack(images), dtype=self.dtype)
        return DataBatch([data], batch.label, pad=batch.pad)

    next = __next__

    @property
    def num_images(self):
        return len(self.items)

