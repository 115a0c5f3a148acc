"""``mx.image.ImageDetIter``: MXNet 1.x's object-detection iterator (``mx.image.detection``).

Each image's raw label is ``[header_width, object_width, <header extras>, <objects>]``, objects
of ``object_width >= 5`` values ``[class, xmin, ymin, xmax, ymax, ...]`` with corners in [0, 1]
(the im2rec ``.lst``/``.rec`` detection format). Batches are ``(batch, 3, H, W)`` images and
``(batch, max_objects, object_width)`` labels, rows past an image's objects filled with -1.
Images come from a RecordIO file (labels in the record headers), an MXNet ``.lst`` file or an
``imglist`` of ``[label..., path]`` entries; the detection augmenters (``det_augment.py``) move
the boxes with the pixels.

Example
-------
>>> import mxlab as mx
>>> it = mx.image.ImageDetIter(2, (3, 32, 32), imglist=[[2, 5, 0, .1, .1, .5, .5, 'a.jpg']],
...                            path_root='.')    # doctest: +SKIP
>>> it.label_shape                               # doctest: +SKIP
(1, 5)
"""
import logging
import os
import random

import numpy

from .. import recordio
from ..base import MXNetError, MXNetValueError
from .det_augment import *  # noqa: F401,F403
from .det_augment import CreateDetAugmenter, __all__ as _AUG_ALL
from .image import imdecode

__all__ = list(_AUG_ALL) + ["ImageDetIter"]


class _BadSample(MXNetError, RuntimeError):
    """An image or label the iterator skips (MXNet's RuntimeError, logged at debug level)."""


def _check_data_shape(data_shape):
    if len(data_shape) != 3:
        raise MXNetValueError(f"ImageDetIter: data_shape should have length 3, with dimensions "
                              f"CxHxW, got {data_shape}")
    if data_shape[0] != 3:
        raise MXNetValueError(f"ImageDetIter: expects inputs to have 3 channels, got "
                              f"data_shape {data_shape}")


def _read_sources(path_imgrec, path_imglist, imglist, path_imgidx):
    """(record reader or None, index list or None, {key: (label, path)} or None, keys)."""
    reader, index = None, None
    if path_imgrec:
        if path_imgidx:
            reader = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
            index = list(reader.keys)
        else:
            reader = recordio.MXRecordIO(path_imgrec, "r")
    if path_imglist:
        entries, keys = {}, []
        with open(path_imglist) as fin:
            for line in fin:
                cols = line.strip().split("\t")
                if cols == [""]:
                    continue
                key = int(cols[0])
                entries[key] = (numpy.array(cols[1:-1], dtype=numpy.float32), cols[-1])
                keys.append(key)
        return reader, index, entries, keys
    if isinstance(imglist, list):
        entries, keys = {}, []
        for k, item in enumerate(imglist, start=1):
            if len(item) > 2:
                label = item[:-1]
            else:
                label = numpy.atleast_1d(item[0])
            entries[str(k)] = (numpy.asarray(label, dtype=numpy.float32), item[-1])
            keys.append(str(k))
        return reader, index, entries, keys
    return reader, index, None, []


def parse_label(label):
    """The ``(objects, object_width)`` boxes of a raw label, dropping degenerate boxes."""
    raw = numpy.asarray(label.asnumpy() if hasattr(label, "asnumpy") else label).ravel()
    if raw.size < 7:
        raise _BadSample(f"ImageDetIter: label shape is invalid: {raw.shape} (need at least 7 "
                         "values: header width, object width and one object)")
    header, width = int(raw[0]), int(raw[1])
    if width < 1 or (raw.size - header) % width != 0:
        raise _BadSample(f"ImageDetIter: label shape {raw.shape} inconsistent with annotation "
                         f"width {width}")
    out = raw[header:].reshape(-1, width)
    out = out[(out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2])]
    if out.shape[0] < 1:
        raise _BadSample("ImageDetIter: encountered a sample with no valid label")
    return out


class ImageDetIter:
    """Batches of augmented images and their boxes (see the module docstring); MXNet 1.x's
    ``mx.image.ImageDetIter``. ``last_batch_handle`` is 'pad' (wrap around to fill the last
    batch), 'discard' or 'roll_over' (carry the rest into the next epoch); ``kwargs`` go to
    :func:`CreateDetAugmenter` when ``aug_list`` is None."""

    def __init__(self, batch_size, data_shape, path_imgrec=None, path_imglist=None,
                 path_root=None, path_imgidx=None, shuffle=False, part_index=0, num_parts=1,
                 aug_list=None, imglist=None, data_name="data", label_name="label",
                 last_batch_handle="pad", **kwargs):
        if not (path_imgrec or path_imglist or isinstance(imglist, list)):
            raise MXNetValueError("ImageDetIter: give path_imgrec, path_imglist or imglist")
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise MXNetValueError(f"ImageDetIter: last_batch_handle must be 'pad', 'discard' "
                                  f"or 'roll_over', got {last_batch_handle!r}")
        _check_data_shape(data_shape)
        self.imgrec, self.imgidx, self.imglist, keys = _read_sources(
            path_imgrec, path_imglist, imglist, path_imgidx)
        self.path_root = path_root
        self.batch_size, self.data_shape, self.shuffle = batch_size, tuple(data_shape), shuffle
        self.provide_data = [(data_name, (batch_size,) + tuple(data_shape))]
        if self.imgrec is None:
            self.seq = keys
        elif shuffle or num_parts > 1 or path_imgidx:
            if self.imgidx is None:
                raise MXNetValueError("ImageDetIter: shuffling or partitioning a .rec file "
                                      "needs its index (path_imgidx)")
            self.seq = self.imgidx
        else:
            self.seq = None
        if num_parts > 1:
            if part_index >= num_parts:
                raise MXNetValueError(f"ImageDetIter: part_index {part_index} must be below "
                                      f"num_parts {num_parts}")
            count = len(self.seq) // num_parts
            self.seq = self.seq[part_index * count:(part_index + 1) * count]
        self.num_image = len(self.seq) if self.seq is not None else None
        self.auglist = CreateDetAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.last_batch_handle = last_batch_handle
        self.cur, self._allow_read = 0, True
        self._cache_data = self._cache_label = self._cache_idx = None
        self.reset()
        self.label_shape = self._estimate_label_shape()
        self.provide_label = [(label_name, (batch_size,) + self.label_shape)]

    # -- reading -----------------------------------------------------------------------------
    def reset(self):
        """Back to the first image (shuffled again when ``shuffle``); a rolled-over partial
        batch is kept for the next epoch."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self._cache_data is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur, self._allow_read = 0, True

    def hard_reset(self):
        """:meth:`reset`, dropping any rolled-over data."""
        self._cache_data = self._cache_label = self._cache_idx = None
        self.reset()

    def next_sample(self):
        """``(raw label, encoded image bytes)`` of the next image; StopIteration at the end."""
        if not self._allow_read:
            raise StopIteration
        if self.seq is None:
            record = self.imgrec.read()
            if record is None:
                if self.last_batch_handle != "discard":
                    self.imgrec.reset()
                raise StopIteration
            header, img = recordio.unpack(record)
            return header.label, img
        if self.cur >= self.num_image:
            if self.last_batch_handle != "discard":
                self.cur = 0
            raise StopIteration
        idx = self.seq[self.cur]
        self.cur += 1
        if self.imgrec is not None:
            header, img = recordio.unpack(self.imgrec.read_idx(idx))
            return (header.label if self.imglist is None else self.imglist[idx][0]), img
        label, fname = self.imglist[idx]
        return label, self.read_image(fname)

    def read_image(self, fname):
        """The bytes of image file ``fname`` under ``path_root``."""
        with open(os.path.join(self.path_root or "", fname), "rb") as fin:
            return fin.read()

    def imdecode(self, s):
        """Decode image bytes (HWC, RGB); a broken image is skipped, naming it."""
        try:
            return imdecode(s)
        except MXNetError as err:
            raise _BadSample(f"ImageDetIter: broken image #{self.cur}: {err}") from None

    def _estimate_label_shape(self):
        """(largest object count, object width) over every image."""
        count, width = 0, None
        self.reset()
        try:
            while True:
                label = parse_label(self.next_sample()[0])
                count, width = max(count, label.shape[0]), label.shape[1]
        except StopIteration:
            pass
        self.reset()
        if width is None:
            raise MXNetValueError("ImageDetIter: found no image to read")
        return (count, width)

    # -- shapes ------------------------------------------------------------------------------
    def reshape(self, data_shape=None, label_shape=None):
        """Change the batch's image shape and/or label padding (more objects, same width)."""
        if data_shape is not None:
            _check_data_shape(data_shape)
            self.provide_data = [(self.provide_data[0][0], (self.batch_size,) + tuple(data_shape))]
            self.data_shape = tuple(data_shape)
        if label_shape is not None:
            self.check_label_shape(label_shape)
            self.provide_label = [(self.provide_label[0][0],
                                   (self.batch_size,) + tuple(label_shape))]
            self.label_shape = tuple(label_shape)

    def check_label_shape(self, label_shape):
        """A new label shape must keep the object width and may not drop objects."""
        if len(label_shape) != 2:
            raise MXNetValueError(f"ImageDetIter: label_shape should have length 2, got "
                                  f"{label_shape}")
        if label_shape[0] < self.label_shape[0]:
            raise MXNetValueError(f"ImageDetIter: attempts to reduce label count from "
                                  f"{self.label_shape[0]} to {label_shape[0]}, not allowed")
        if label_shape[1] != self.provide_label[0][1][2]:
            raise MXNetValueError(f"ImageDetIter: label_shape object width inconsistent: "
                                  f"{self.provide_label[0][1][2]} vs {label_shape[1]}")

    def sync_label_shape(self, it, verbose=False):
        """Pad this iterator's labels and ``it``'s to the larger object count; returns ``it``."""
        if not isinstance(it, ImageDetIter):
            raise MXNetValueError(f"ImageDetIter.sync_label_shape: needs an ImageDetIter, got "
                                  f"{type(it).__name__}")
        mine, theirs = self.label_shape, it.label_shape
        if mine[1] != theirs[1]:
            raise MXNetValueError(f"ImageDetIter.sync_label_shape: object width mismatch: "
                                  f"{mine[1]} vs {theirs[1]}")
        count = max(mine[0], theirs[0])
        if count > mine[0]:
            self.reshape(None, (count, mine[1]))
        if count > theirs[0]:
            it.reshape(None, (count, theirs[1]))
        if verbose and count > min(mine[0], theirs[0]):
            logging.info("Resized label_shape to (%d, %d).", count, mine[1])
        return it

    # -- batches -----------------------------------------------------------------------------
    def augmentation_transform(self, data, label):
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    @staticmethod
    def _check_valid_label(label):
        if label.ndim != 2 or label.shape[1] < 5:
            raise _BadSample(f"ImageDetIter: label with shape (1+, 5+) required, got "
                             f"{label.shape}")
        if not ((label[:, 0] >= 0) & (label[:, 3] > label[:, 1])
                & (label[:, 4] > label[:, 2])).any():
            raise _BadSample("ImageDetIter: invalid label occurs")

    def _batchify(self, data, labels, start=0):
        """Fill rows ``start..`` of the host batch; returns the rows filled."""
        i = start
        try:
            while i < self.batch_size:
                raw, s = self.next_sample()
                try:
                    img = self.imdecode(s)
                    label = parse_label(raw)
                    img, label = self.augmentation_transform(img, label)
                    self._check_valid_label(label)
                except _BadSample as err:
                    logging.debug("Invalid image, skipping: %s", err)
                    continue
                values = img.asnumpy() if hasattr(img, "asnumpy") else numpy.asarray(img)
                if values.shape != (self.data_shape[1], self.data_shape[2], 3):
                    raise MXNetValueError(
                        f"ImageDetIter: an image is {values.shape} after augmentation, "
                        f"data_shape {self.data_shape} needs ({self.data_shape[1]}, "
                        f"{self.data_shape[2]}, 3)")
                data[i] = values.transpose(2, 0, 1)
                count = min(label.shape[0], labels.shape[1])
                labels[i, :count] = label[:count]
                labels[i, count:] = -1
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def next(self):
        """The next :class:`~mxlab.io.DataBatch` (``pad`` counts the rows refilled from the
        start of the data in 'pad' mode)."""
        from .. import ndarray as nd, numpy as mxnp
        from ..io import DataBatch
        from ..util import is_np_array

        if self._cache_data is not None:
            data, labels, i = self._cache_data, self._cache_label, self._cache_idx
        else:
            data = numpy.zeros((self.batch_size,) + self.data_shape, numpy.float32)
            labels = numpy.full(self.provide_label[0][1], -1, numpy.float32)
            i = self._batchify(data, labels)
        pad = self.batch_size - i
        if pad:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache_data is None:
                self._cache_data, self._cache_label, self._cache_idx = data, labels, i
                raise StopIteration
            self._batchify(data, labels, i)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache_data = self._cache_label = self._cache_idx = None
        make = mxnp.array if is_np_array() else nd.array
        return DataBatch([make(data)], [make(labels)], pad=pad)

    __next__ = next

    def __iter__(self):
        return self

    def draw_next(self, color=None, thickness=2, mean=None, std=None, clip=True,
                  waitKey=None, window_name="draw_next", id2labels=None):  # noqa: N803
        """Yield the next images (HWC uint8, BGR) with their boxes drawn; needs OpenCV."""
        try:
            import cv2
        except ImportError:
            raise NotImplementedError("ImageDetIter.draw_next needs OpenCV (cv2), which is not "
                                      "installed") from None
        yield from _draw(self, cv2, color, thickness, mean, std, clip, waitKey, window_name,
                         id2labels)


def _draw(it, cv2, color, thickness, mean, std, clip, wait_key, window_name, id2labels):
    if std is True:
        std = numpy.array([58.395, 57.12, 57.375])
    if mean is True:
        mean = numpy.array([123.68, 116.28, 103.53])
    if color:
        color = color[::-1]
    while True:
        try:
            raw, s = it.next_sample()
        except StopIteration:
            return
        try:
            img, label = it.augmentation_transform(it.imdecode(s), parse_label(raw))
        except _BadSample as err:
            logging.debug("Invalid image, skipping: %s", err)
            continue
        image = img.asnumpy().astype(numpy.float64)
        if std is not None:
            image *= std
        if mean is not None:
            image += mean
        image = image[:, :, ::-1]   # RGB -> BGR
        if clip:
            image = numpy.clip(image, 0, 255)
        image = numpy.ascontiguousarray(image.astype(numpy.uint8))
        height, width = image.shape[:2]
        for row in label:
            x1 = int(row[1] * width)
            if x1 < 0:
                continue
            corner1, corner2 = (x1, int(row[2] * height)), (int(row[3] * width),
                                                             int(row[4] * height))
            cv2.rectangle(image, corner1, corner2,
                          color or tuple(numpy.random.rand(3) * 255), thickness)
            if id2labels is not None and int(row[0]) in id2labels:
                text, font = str(id2labels[int(row[0])]), cv2.FONT_HERSHEY_SIMPLEX
                text_height = cv2.getTextSize(text, font, 0.5, 2)[0][1]
                cv2.putText(image, text, (x1 + 5, corner1[1] + text_height + 5), font, 0.5,
                            (255, 255, 255), 2)
        if wait_key is not None:
            cv2.imshow(window_name, image)
            cv2.waitKey(wait_key)
        yield image
