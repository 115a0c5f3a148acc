"""NumPy helpers for bounding boxes: rows ``(xmin, ymin, xmax, ymax, extra...)`` (MXNet 2.0's
``gluon.contrib.data.vision.transforms.bbox.utils``)."""
import random

import numpy as np

from .......base import MXNetIndexError, MXNetTypeError, MXNetValueError


def _check_bbox_shape(bbox):
    if len(bbox.shape) != 2 or bbox.shape[1] < 4:
        raise MXNetValueError(f"bbox requires shape of (N, 4+), given: {bbox.shape}")


def bbox_crop(bbox, crop_box=None, allow_outside_center=True):
    """Boxes cropped to ``crop_box = (left, top, width, height)`` (None parts: unbounded), in the
    crop's coordinates; boxes left empty, or (unless ``allow_outside_center``) whose centre falls
    outside the crop, are dropped."""
    bbox = bbox.copy()
    if crop_box is None:
        return bbox
    if len(crop_box) != 4:
        raise MXNetValueError(f"Invalid crop_box parameter, requires length 4, given {crop_box}")
    if all(c is None for c in crop_box):
        return bbox
    left, top, width, height = (c or 0 for c in crop_box)
    crop = np.array((left, top, left + (width or np.inf), top + (height or np.inf)))
    if allow_outside_center:
        mask = np.ones(bbox.shape[0], dtype=bool)
    else:
        centers = (bbox[:, :2] + bbox[:, 2:4]) / 2
        mask = ((crop[:2] <= centers) & (centers < crop[2:])).all(axis=1)
    bbox[:, :2] = np.maximum(bbox[:, :2], crop[:2]) - crop[:2]
    bbox[:, 2:4] = np.minimum(bbox[:, 2:4], crop[2:4]) - crop[:2]
    return bbox[mask & (bbox[:, :2] < bbox[:, 2:4]).all(axis=1)]


def bbox_flip(bbox, size, flip_x=False, flip_y=False):
    """Boxes mirrored in an image of ``size = (width, height)``."""
    if len(size) != 2:
        raise MXNetValueError(f"size requires length 2 tuple, given {len(size)}")
    width, height = size
    bbox = bbox.copy()
    if flip_y:
        bbox[:, [1, 3]] = height - bbox[:, [3, 1]]
    if flip_x:
        bbox[:, [0, 2]] = width - bbox[:, [2, 0]]
    return bbox


def bbox_resize(bbox, in_size, out_size):
    """Boxes scaled from an image of ``in_size`` to ``out_size`` (both ``(width, height)``)."""
    for name, size in (("in_size", in_size), ("out_size", out_size)):
        if len(size) != 2:
            raise MXNetValueError(f"{name} requires length 2 tuple, given {len(size)}")
    bbox = bbox.copy().astype(float)
    bbox[:, [0, 2]] *= out_size[0] / in_size[0]
    bbox[:, [1, 3]] *= out_size[1] / in_size[1]
    return bbox


def bbox_translate(bbox, x_offset=0, y_offset=0):
    bbox = bbox.copy()
    bbox[:, :2] += (x_offset, y_offset)
    bbox[:, 2:4] += (x_offset, y_offset)
    return bbox


def bbox_iou(bbox_a, bbox_b, offset=0):
    """``(N, M)`` intersection over union of two box sets."""
    if bbox_a.shape[1] < 4 or bbox_b.shape[1] < 4:
        raise MXNetIndexError("Bounding boxes axis 1 must have at least length 4")
    tl = np.maximum(bbox_a[:, None, :2], bbox_b[:, :2])
    br = np.minimum(bbox_a[:, None, 2:4], bbox_b[:, 2:4])
    area_i = np.prod(br - tl + offset, axis=2) * (tl < br).all(axis=2)
    area_a = np.prod(bbox_a[:, 2:4] - bbox_a[:, :2] + offset, axis=1)
    area_b = np.prod(bbox_b[:, 2:4] - bbox_b[:, :2] + offset, axis=1)
    return area_i / (area_a[:, None] + area_b - area_i)


def _four(value, what):
    if isinstance(value, (tuple, list)):
        if len(value) != 4:
            raise MXNetIndexError(f"Bounding boxes must have 4 elements, given {len(value)}")
        return False
    if isinstance(value, np.ndarray):
        if value.size % 4:
            raise MXNetIndexError(f"Bounding boxes must have n * 4 elements, given "
                                  f"{value.shape}")
        return True
    raise MXNetTypeError(f"Expect input {what} a list, tuple or numpy.ndarray, given "
                         f"{type(value)}")


def bbox_xywh_to_xyxy(xywh):
    if _four(xywh, "xywh"):
        return np.hstack((xywh[:, :2], xywh[:, :2] + np.maximum(0, xywh[:, 2:4] - 1)))
    w, h = np.maximum(xywh[2] - 1, 0), np.maximum(xywh[3] - 1, 0)
    return xywh[0], xywh[1], xywh[0] + w, xywh[1] + h


def bbox_xyxy_to_xywh(xyxy):
    if _four(xyxy, "xyxy"):
        return np.hstack((xyxy[:, :2], xyxy[:, 2:4] - xyxy[:, :2] + 1))
    return xyxy[0], xyxy[1], xyxy[2] - xyxy[0] + 1, xyxy[3] - xyxy[1] + 1


def bbox_clip_xyxy(xyxy, width, height):
    """Corners clipped into ``[0, width - 1] x [0, height - 1]``."""
    if _four(xyxy, "xyxy"):
        x1, y1, x2, y2 = (xyxy[:, i] for i in range(4))
    else:
        x1, y1, x2, y2 = xyxy
    x1, x2 = (np.minimum(width - 1, np.maximum(0, v)) for v in (x1, x2))
    y1, y2 = (np.minimum(height - 1, np.maximum(0, v)) for v in (y1, y2))
    return np.hstack((x1, y1, x2, y2)) if isinstance(xyxy, np.ndarray) else (x1, y1, x2, y2)


_SSD_CONSTRAINTS = ((0.1, None), (0.3, None), (0.5, None), (0.7, None), (0.9, None), (None, 1))


def bbox_random_crop_with_constraints(bbox, size, min_scale=0.3, max_scale=1,
                                      max_aspect_ratio=2, constraints=None, max_trial=50):
    """SSD's random crop: for each ``(min_iou, max_iou)`` constraint try ``max_trial`` random
    crops of ``size = (width, height)``; pick one satisfying crop at random (the whole image
    is a candidate too). Returns ``(cropped boxes, (left, top, width, height))``."""
    w, h = size
    candidates = [(0, 0, w, h)]
    for min_iou, max_iou in constraints or _SSD_CONSTRAINTS:
        min_iou = -np.inf if min_iou is None else min_iou
        max_iou = np.inf if max_iou is None else max_iou
        for _ in range(max_trial):
            scale = random.uniform(min_scale, max_scale)
            aspect = random.uniform(max(1 / max_aspect_ratio, scale * scale),
                                    min(max_aspect_ratio, 1 / (scale * scale)))
            crop_h = int(h * scale / np.sqrt(aspect))
            crop_w = int(w * scale * np.sqrt(aspect))
            crop_t, crop_l = random.randrange(h - crop_h), random.randrange(w - crop_w)
            if len(bbox) == 0:
                return bbox, (crop_l, crop_t, crop_w, crop_h)
            crop_bb = np.array((crop_l, crop_t, crop_l + crop_w, crop_t + crop_h))
            iou = bbox_iou(bbox, crop_bb[np.newaxis])
            if min_iou <= iou.min() and iou.max() <= max_iou:
                candidates.append((crop_l, crop_t, crop_w, crop_h))
                break
    while candidates:
        crop = candidates.pop(np.random.randint(0, len(candidates)))
        new_bbox = bbox_crop(bbox, crop, allow_outside_center=False)
        if new_bbox.size >= 1:
            return new_bbox, tuple(crop)
    return bbox, (0, 0, w, h)
