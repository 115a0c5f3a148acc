"""MXNet's detection augmenters: each takes and returns ``(image, label)``, the image HWC, the label
an ``(objects, k)`` NumPy array of ``[class, xmin, ymin, xmax, ymax, ...]`` rows with corners
normalized to [0, 1]. Random choices come from Python's ``random``, in MXNet's order, so a seeded
run proposes the same crops and pads as MXNet 1.9.1.

Example
-------
>>> import numpy as np
>>> import mxlab as mx
>>> img = mx.nd.zeros((4, 8, 3), dtype='uint8')
>>> label = np.array([[0, 0.0, 0.25, 0.5, 0.75]])
>>> mx.image.DetHorizontalFlipAug(1.0)(img, label)[1].tolist()
[[0.0, 0.5, 0.25, 1.0, 0.75]]
"""
import json
import logging
import math
import numbers
import random
import warnings

import numpy

from ..base import MXNetTypeError, MXNetValueError
from .augment import (Augmenter, CastAug, ColorJitterAug, ColorNormalizeAug, ForceResizeAug,
                      HueJitterAug, LightingAug, RandomGrayAug, ResizeAug)
from .image import _host, fixed_crop

__all__ = ["DetAugmenter", "DetBorrowAug", "DetRandomSelectAug", "DetHorizontalFlipAug",
           "DetRandomCropAug", "DetRandomPadAug", "CreateMultiRandCropAugmenter",
           "CreateDetAugmenter"]


def _as_range(value, what, aug):
    """``value`` as a (low, high) pair; a number is a fixed range (logged, as MXNet)."""
    if isinstance(value, (tuple, list)):
        return tuple(value)
    if not isinstance(value, numbers.Number):
        raise MXNetTypeError(f"{aug}: {what} must be a number or a (low, high) pair, got "
                             f"{value!r}")
    logging.info("Using fixed %s: %s in %s", what, value, aug)
    return (value, value)


class DetAugmenter:
    """Base class of the detection augmenters; ``dumps()`` describes one as MXNet does (JSON)."""

    def __init__(self, **kwargs):
        self._kwargs = {k: (v.tolist() if isinstance(v, numpy.ndarray) else v)
                        for k, v in kwargs.items()}

    def dumps(self):
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __call__(self, src, label):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__")


class DetBorrowAug(DetAugmenter):
    """An image-classification :class:`~mxlab.image.Augmenter` that leaves the label alone."""

    def __init__(self, augmenter):
        if not isinstance(augmenter, Augmenter):
            raise MXNetTypeError(f"DetBorrowAug: borrowing from invalid Augmenter "
                                 f"{type(augmenter).__name__}")
        super().__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self):
        return [type(self).__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src, label):
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """One augmenter of ``aug_list`` picked at random, or none with probability ``skip_prob``."""

    def __init__(self, aug_list, skip_prob=0):
        super().__init__(skip_prob=skip_prob)
        aug_list = list(aug_list) if isinstance(aug_list, (list, tuple)) else [aug_list]
        for aug in aug_list:
            if not isinstance(aug, DetAugmenter):
                raise MXNetValueError(f"DetRandomSelectAug: allows DetAugmenters only, got "
                                      f"{type(aug).__name__}")
        self.aug_list = aug_list
        self.skip_prob = skip_prob if aug_list else 1   # NOTE: an empty list disables it

    def dumps(self):
        return [type(self).__name__.lower(), [x.dumps() for x in self.aug_list]]

    def __call__(self, src, label):
        if random.random() < self.skip_prob:
            return src, label
        random.shuffle(self.aug_list)
        return self.aug_list[0](src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """Mirror the image and its boxes with probability ``p``."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if random.random() < self.p:
            values, wrap = _host(src)
            src = wrap(numpy.ascontiguousarray(values[:, ::-1]))
            xmin = 1.0 - label[:, 3]
            label[:, 3] = 1.0 - label[:, 1]
            label[:, 1] = xmin
        return src, label


def _areas(boxes):
    """Areas of ``[xmin, ymin, xmax, ymax]`` rows (0 for empty boxes)."""
    return numpy.maximum(0, boxes[:, 3] - boxes[:, 1]) * numpy.maximum(0, boxes[:, 2] - boxes[:, 0])


def _intersect(boxes, xmin, ymin, xmax, ymax):
    """The boxes clipped to a window; rows that miss it become zeros."""
    out = boxes.copy()
    out[:, 0] = numpy.maximum(boxes[:, 0], xmin)
    out[:, 1] = numpy.maximum(boxes[:, 1], ymin)
    out[:, 2] = numpy.minimum(boxes[:, 2], xmax)
    out[:, 3] = numpy.minimum(boxes[:, 3], ymax)
    out[(out[:, 0] >= out[:, 2]) | (out[:, 1] >= out[:, 3]), :] = 0
    return out


class DetRandomCropAug(DetAugmenter):
    """A random crop covering at least ``min_object_covered`` of every box it touches, with an
    aspect ratio in ``aspect_ratio_range`` and an area (a fraction of the image) in
    ``area_range``; boxes left with less than ``min_eject_coverage`` of their area are dropped.
    After ``max_attempts`` failed proposals the image is returned as it is."""

    def __init__(self, min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                 area_range=(0.05, 1.0), min_eject_coverage=0.3, max_attempts=50):
        aspect_ratio_range = _as_range(aspect_ratio_range, "aspect ratio", "DetRandomCropAug")
        area_range = _as_range(area_range, "area range", "DetRandomCropAug")
        super().__init__(min_object_covered=min_object_covered,
                         aspect_ratio_range=aspect_ratio_range, area_range=area_range,
                         min_eject_coverage=min_eject_coverage, max_attempts=max_attempts)
        self.min_object_covered, self.min_eject_coverage = min_object_covered, min_eject_coverage
        self.max_attempts = max_attempts
        self.aspect_ratio_range, self.area_range = aspect_ratio_range, area_range
        self.enabled = False
        if area_range[1] <= 0 or area_range[0] > area_range[1]:
            warnings.warn(f"Skip DetRandomCropAug due to invalid area_range: {area_range}")
        elif aspect_ratio_range[0] > aspect_ratio_range[1] or aspect_ratio_range[0] <= 0:
            warnings.warn("Skip DetRandomCropAug due to invalid aspect_ratio_range: "
                          f"{aspect_ratio_range}")
        else:
            self.enabled = True

    def __call__(self, src, label):
        crop = self._random_crop_proposal(label, src.shape[0], src.shape[1])
        if crop:
            x, y, w, h, label = crop
            src = fixed_crop(src, x, y, w, h, None)
        return src, label

    def _satisfies(self, label, xmin, ymin, xmax, ymax, width, height):
        if (xmax - xmin) * (ymax - ymin) < 2:
            return False    # a single pixel
        areas = _areas(label[:, 1:])
        valid = numpy.where(areas * width * height > 2)[0]
        if valid.size < 1:
            return False
        inside = _intersect(label[valid, 1:], xmin / width, ymin / height, xmax / width,
                            ymax / height)
        coverages = _areas(inside) / areas[valid]
        coverages = coverages[coverages > 0]
        return coverages.size > 0 and numpy.amin(coverages) > self.min_object_covered

    def _update_labels(self, label, box, height, width):
        x, y, w, h = box[0] / width, box[1] / height, box[2] / width, box[3] / height
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] - x) / w
        out[:, (2, 4)] = (out[:, (2, 4)] - y) / h
        out[:, 1:5] = numpy.clip(out[:, 1:5], 0, 1)
        coverage = _areas(out[:, 1:]) * w * h / _areas(label[:, 1:])
        valid = (out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2]) & \
            (coverage > self.min_eject_coverage)
        return out[valid] if valid.any() else None

    def _random_crop_proposal(self, label, height, width):
        for ratio, h, max_h, min_area, max_area in _attempts(self, height, width):
            if round(max_h * ratio) > width:
                max_h = int((width + 0.4999999) / ratio)   # largest with round(h * ratio) <= w
            max_h = min(max_h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            area = w * h
            if area < min_area:     # NOTE: MXNet's fix for rounding
                h += 1
                w = int(round(h * ratio))
                area = w * h
            if area > max_area:
                h -= 1
                w = int(round(h * ratio))
                area = w * h
            if not (min_area <= area <= max_area and 0 <= w <= width and 0 <= h <= height):
                continue
            y = random.randint(0, max(0, height - h))
            x = random.randint(0, max(0, width - w))
            if self._satisfies(label, x, y, x + w, y + h, width, height):
                new_label = self._update_labels(label, (x, y, w, h), height, width)
                if new_label is not None:
                    return x, y, w, h, new_label
        return ()


class DetRandomPadAug(DetAugmenter):
    """Place the image at a random spot of a larger canvas filled with ``pad_val`` (aspect ratio
    in ``aspect_ratio_range``, area ``area_range`` times the image's), moving the boxes along."""

    def __init__(self, aspect_ratio_range=(0.75, 1.33), area_range=(1.0, 3.0),
                 max_attempts=50, pad_val=(128, 128, 128)):
        if not isinstance(pad_val, (list, tuple)) and not isinstance(pad_val, numbers.Number):
            raise MXNetTypeError(f"DetRandomPadAug: pad_val must be a number or a tuple, got "
                                 f"{pad_val!r}")
        aspect_ratio_range = _as_range(aspect_ratio_range, "aspect ratio", "DetRandomPadAug")
        area_range = _as_range(area_range, "area range", "DetRandomPadAug")
        super().__init__(aspect_ratio_range=aspect_ratio_range, area_range=area_range,
                         max_attempts=max_attempts, pad_val=pad_val)
        self.pad_val, self.max_attempts = pad_val, max_attempts
        self.aspect_ratio_range, self.area_range = aspect_ratio_range, area_range
        self.enabled = False
        if area_range[1] <= 1.0 or area_range[0] > area_range[1]:
            warnings.warn(f"Skip DetRandomPadAug due to invalid parameters: {area_range}")
        elif aspect_ratio_range[0] <= 0 or aspect_ratio_range[0] > aspect_ratio_range[1]:
            warnings.warn("Skip DetRandomPadAug due to invalid aspect_ratio_range: "
                          f"{aspect_ratio_range}")
        else:
            self.enabled = True

    def __call__(self, src, label):
        height, width = src.shape[:2]
        pad = self._random_pad_proposal(label, height, width)
        if pad:
            x, y, w, h, label = pad
            values, wrap = _host(src)
            fill = numpy.asarray(self.pad_val, numpy.float64).ravel()
            if values.ndim == 3 and fill.size > 1:
                fill = fill[:values.shape[2]]
            canvas = numpy.empty((h, w) + values.shape[2:], values.dtype)
            canvas[...] = fill if values.ndim == 3 else fill[0]
            canvas[y:y + height, x:x + width] = values
            src = wrap(canvas)
        return src, label

    @staticmethod
    def _update_labels(label, box, height, width):
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] * width + box[0]) / box[2]
        out[:, (2, 4)] = (out[:, (2, 4)] * height + box[1]) / box[3]
        return out

    def _random_pad_proposal(self, label, height, width):
        for ratio, h, max_h, _, _ in _attempts(self, height, width):
            if round(h * ratio) < width:
                h = int((width + 0.499999) / ratio)
            h = min(max(h, height), max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            if (h - height) < 2 or (w - width) < 2:
                continue    # marginal padding is not helpful
            y = random.randint(0, max(0, h - height))
            x = random.randint(0, max(0, w - width))
            return x, y, w, h, self._update_labels(label, (x, y, w, h), height, width)
        return ()


def _attempts(aug, height, width):
    """MXNet's proposal loop for the crop and pad augmenters: per attempt, a random aspect ratio
    and the heights it allows, ``(ratio, min h, max h, min area, max area)`` (nothing when the
    augmenter is off or the image empty)."""
    if not aug.enabled or height <= 0 or width <= 0:
        return
    min_area = aug.area_range[0] * height * width
    max_area = aug.area_range[1] * height * width
    for _ in range(aug.max_attempts):
        ratio = random.uniform(*aug.aspect_ratio_range)
        if ratio > 0:
            yield (ratio, int(round(math.sqrt(min_area / ratio))),
                   int(round(math.sqrt(max_area / ratio))), min_area, max_area)


def CreateMultiRandCropAugmenter(min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),  # noqa: N802
                                 area_range=(0.05, 1.0), min_eject_coverage=0.3,
                                 max_attempts=50, skip_prob=0):
    """A :class:`DetRandomSelectAug` over :class:`DetRandomCropAug`s: each parameter is one value
    for all, or a list with one value per augmenter."""
    params = [p if isinstance(p, list) else [p] for p in
              (min_object_covered, aspect_ratio_range, area_range, min_eject_coverage,
               max_attempts)]
    num = max(len(p) for p in params)
    for p in params:
        if len(p) not in (1, num):
            raise MXNetValueError(f"CreateMultiRandCropAugmenter: parameter lists must have one "
                                  f"or {num} entries, got {p!r}")
    params = [p * num if len(p) == 1 else p for p in params]
    augs = [DetRandomCropAug(min_object_covered=moc, aspect_ratio_range=arr, area_range=ar,
                             min_eject_coverage=mec, max_attempts=ma)
            for moc, arr, ar, mec, ma in zip(*params)]
    return DetRandomSelectAug(augs, skip_prob=skip_prob)


def CreateDetAugmenter(data_shape, resize=0, rand_crop=0, rand_pad=0, rand_gray=0,  # noqa: N802
                       rand_mirror=False, mean=None, std=None, brightness=0, contrast=0,
                       saturation=0, pca_noise=0, hue=0, inter_method=2, min_object_covered=0.1,
                       aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 3.0),
                       min_eject_coverage=0.3, max_attempts=50, pad_val=(127, 127, 127)):
    """MXNet's detection augmenter list for images of ``data_shape`` (C, H, W): resize, random
    crop (probability ``rand_crop``), mirror, random pad (``rand_pad``), a forced resize to the
    data shape, float cast, colour jitters, PCA noise, grey and normalization."""
    augs = []
    if resize > 0:
        augs.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        augs.append(CreateMultiRandCropAugmenter(min_object_covered, aspect_ratio_range,
                                                 area_range, min_eject_coverage, max_attempts,
                                                 skip_prob=1 - rand_crop))
    if rand_mirror > 0:
        augs.append(DetHorizontalFlipAug(0.5))
    if rand_pad > 0:    # NOTE: as late as possible, to save work
        pad = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts, pad_val)
        augs.append(DetRandomSelectAug([pad], 1 - rand_pad))
    augs.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    augs.append(DetBorrowAug(CastAug()))
    if brightness or contrast or saturation:
        augs.append(DetBorrowAug(ColorJitterAug(brightness, contrast, saturation)))
    if hue:
        augs.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        eigval = numpy.array([55.46, 4.794, 1.148])
        eigvec = numpy.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                              [-0.5836, -0.6948, 0.4203]])
        augs.append(DetBorrowAug(LightingAug(pca_noise, eigval, eigvec)))
    if rand_gray > 0:
        augs.append(DetBorrowAug(RandomGrayAug(rand_gray)))
    if mean is True:
        mean = numpy.array([123.68, 116.28, 103.53])
    if std is True:
        std = numpy.array([58.395, 57.12, 57.375])
    for name, value in (("mean", mean), ("std", std)):
        if value is not None and not (isinstance(value, numpy.ndarray)
                                      and value.shape[0] in (1, 3)):
            raise MXNetValueError(f"CreateDetAugmenter: {name} must be True, None or a NumPy "
                                  f"array of 1 or 3 values, got {value!r}")
    if mean is not None or std is not None:
        augs.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return augs
