"""``ImageRecordIter`` / ``ImageRecordUInt8Iter``: batches of images from a RecordIO file.

MXNet's C++ iterator (``iter_image_recordio_2.cc`` with ``image_aug_default.cc``), re-made on
Pillow and NumPy: each record (``mx.recordio.pack_img``) is decoded to RGB, resized so its shorter
edge is ``resize``, padded by ``pad`` pixels of ``fill_value``, enlarged if smaller than
``data_shape``, cropped (centre, or random with ``rand_crop``), mirrored (``mirror`` or at random
with ``rand_mirror``) and normalised as MXNet does, ``(pixel - mean) * scale / std`` per channel,
or ``(pixel - mean_img) * scale / std`` with a mean image file (``mean_img``: loaded when it exists,
else computed over the records and saved there as MXNet does); uint8 images are left as they are.
Labels come from the record headers.

Decoding runs on the calling thread; ``preprocess_threads`` and ``prefetch_buffer`` are accepted
and do nothing. The heavier random augmentations of MXNet's default augmenter are not built: a
non-default value raises ``NotImplementedError`` naming it.
"""
import io
import os

import numpy

from .. import recordio
from ..base import MXNetNotImplementedError, MXNetValueError
from ..ops import image_kernels as kernels
from .io import DataBatch, DataDesc, DataIter

__all__ = ["ImageRecordIter", "ImageRecordUInt8Iter"]

#: MXNet parameters that only tune its threads and buffers.
_PERFORMANCE_ONLY = {"preprocess_threads", "prefetch_buffer", "verbose", "ctx", "device_id",
                     "shuffle_chunk_size", "shuffle_chunk_seed", "seed_aug", "dtype_out"}
#: Augmentations of MXNet's default augmenter not built here, with their no-op values.
_NOT_BUILT = {"random_resized_crop": False, "max_rotate_angle": 0, "max_aspect_ratio": 0.0,
              "min_aspect_ratio": None, "max_shear_ratio": 0.0, "max_crop_size": -1,
              "min_crop_size": -1, "max_random_scale": 1.0, "min_random_scale": 1.0,
              "max_random_area": 1.0, "min_random_area": 1.0, "max_img_size": 1e10,
              "min_img_size": 0.0, "brightness": 0.0, "contrast": 0.0, "saturation": 0.0,
              "pca_noise": 0.0, "random_h": 0, "random_s": 0, "random_l": 0, "rotate": -1,
              "max_random_contrast": 0.0, "max_random_illumination": 0.0}


def _check_options(name, options):
    for key, value in options.items():
        if key in _PERFORMANCE_ONLY:
            continue
        if key not in _NOT_BUILT:
            raise MXNetValueError(f"{name}: unknown parameter {key!r}")
        if value not in (_NOT_BUILT[key], str(_NOT_BUILT[key]), "", None):
            raise MXNetNotImplementedError(f"{name}: {key}={value!r} (an augmentation of MXNet's "
                                           f"default augmenter) is not built in mxlab")


def _scan(path_imgrec):
    """(label array, byte position) of every record, in file order."""
    return [(numpy.atleast_1d(numpy.asarray(header.label, numpy.float32)), position)
            for header, position in recordio.header_positions(path_imgrec)]


class ImageRecordIter(DataIter):
    """Batches ``(batch_size,) + data_shape`` of decoded, augmented images from ``path_imgrec``
    and their header labels (``(batch_size,)``, or ``(batch_size, label_width)``).

    ``round_batch`` fills the last batch with images from the start, else with zeros (MXNet
    leaves them uninitialised and reports ``pad=0``); ``pad`` counts them either way.
    ``shuffle`` reorders each epoch (seeded by ``seed``); ``num_parts``/``part_index`` give each
    worker a contiguous share of the records.
    """

    _dtype = "float32"

    def __init__(self, path_imgrec, data_shape, batch_size, label_width=1, path_imgidx="",
                 shuffle=False, rand_crop=False, rand_mirror=False, mirror=False, resize=-1,
                 pad=0, fill_value=127, inter_method=1, mean_r=0.0, mean_g=0.0, mean_b=0.0,
                 mean_a=0.0, std_r=1.0, std_g=1.0, std_b=1.0, std_a=1.0, scale=1.0,
                 round_batch=True, num_parts=1, part_index=0, seed=0, data_name="data",
                 label_name="softmax_label", mean_img="", **options):
        super().__init__(batch_size)
        name = type(self).__name__
        _check_options(name, options)
        data_shape = tuple(int(d) for d in data_shape)
        if len(data_shape) != 3 or data_shape[0] not in (1, 3):
            raise MXNetValueError(f"{name}: data_shape must be (1 or 3, H, W), got {data_shape}")
        entries = _scan(path_imgrec)
        share = slice(part_index * len(entries) // num_parts,
                      (part_index + 1) * len(entries) // num_parts)
        self._entries = entries[share]
        if not self._entries:
            raise MXNetValueError(f"{name}: {path_imgrec!r} part {part_index} of {num_parts} "
                                  f"holds no records")
        self._reader = recordio.MXRecordIO(path_imgrec, "r")
        self.data_shape, self.label_width = data_shape, int(label_width)
        self._crop = dict(resize=int(resize), pad=int(pad), fill=int(fill_value),
                          interp=int(inter_method), rand_crop=bool(rand_crop))
        self._mirror = (bool(mirror), bool(rand_mirror))
        channels = data_shape[0]
        mean = numpy.array([mean_r, mean_g, mean_b][:channels], numpy.float32)
        std = numpy.array([std_r, std_g, std_b][:channels], numpy.float32)
        self._normalize = (mean.reshape(-1, 1, 1), (scale / std).reshape(-1, 1, 1))
        self.shuffle, self.round_batch = bool(shuffle), bool(round_batch)
        self._rng = numpy.random.RandomState(seed)
        self.data_name, self.label_name = data_name, label_name
        self._mean_img = self._load_mean_img(mean_img) if mean_img and \
            self._dtype != "uint8" else None
        self.reset()

    # -- the DataIter protocol ---------------------------------------------------------------------
    @property
    def provide_data(self):
        return [DataDesc(self.data_name, (self.batch_size,) + self.data_shape, self._dtype)]

    @property
    def provide_label(self):
        shape = (self.batch_size,) if self.label_width == 1 else \
            (self.batch_size, self.label_width)
        return [DataDesc(self.label_name, shape, "float32")]

    def reset(self):
        self._order = numpy.arange(len(self._entries))
        if self.shuffle:
            self._rng.shuffle(self._order)
        self._cursor = 0

    def next(self):
        from .. import ndarray as nd

        count = len(self._order)
        if self._cursor >= count:
            raise StopIteration
        pad = max(0, self._cursor + self.batch_size - count)
        real = self.batch_size - pad if not self.round_batch else self.batch_size
        picks = [self._order[(self._cursor + i) % count] for i in range(real)]
        self._cursor += self.batch_size
        images = [self._image(self._entries[i][1]) for i in picks]
        labels = [self._label(self._entries[i][0]) for i in picks]
        images += [numpy.zeros_like(images[0])] * (self.batch_size - real)
        labels += [numpy.zeros_like(labels[0])] * (self.batch_size - real)
        return DataBatch([nd.array(numpy.stack(images), dtype=self._dtype)],
                         [nd.array(numpy.stack(labels), dtype="float32")], pad=pad)

    def _load_mean_img(self, path):
        """The (C, H, W) mean image in ``path`` (an ``nd.save`` file of one array), or, when
        there is none, the mean of every record as this iterator makes it, saved there under
        the key ``mean_img`` (MXNet's ``CreateMeanImg``)."""
        from .. import ndarray as nd

        name = type(self).__name__
        if os.path.exists(path):
            loaded = nd.load(path)
            arrays = list(loaded.values()) if isinstance(loaded, dict) else list(loaded)
            if len(arrays) != 1:
                raise MXNetValueError(f"{name}: mean_img {path!r} holds {len(arrays)} arrays; "
                                      f"a mean image file holds one")
            mean = arrays[0].asnumpy().astype(numpy.float32)
        else:
            self._mean_img = None
            total = numpy.zeros(self.data_shape, numpy.float64)
            for _, position in self._entries:
                total += self._image(position)
            mean = (total / len(self._entries)).astype(numpy.float32)
            nd.save(path, {"mean_img": nd.array(mean)})
        if mean.shape != self.data_shape:
            raise MXNetValueError(f"{name}: mean_img {path!r} has shape {mean.shape}, the "
                                  f"images {self.data_shape}")
        return mean

    # -- one record --------------------------------------------------------------------------------
    def _label(self, label):
        if label.size != self.label_width:
            raise MXNetValueError(f"{type(self).__name__}: a record has {label.size} labels, "
                                  f"label_width is {self.label_width}")
        return label[0] if self.label_width == 1 else label

    def _image(self, position):
        _, payload = recordio.unpack(recordio.read_at(self._reader, position))
        img = self._decode(payload)
        img = self._cropped(img)
        mirror, rand_mirror = self._mirror
        if mirror or (rand_mirror and self._rng.rand() < 0.5):
            img = img[:, ::-1]
        chw = numpy.ascontiguousarray(img.transpose(2, 0, 1))
        if self._dtype == "uint8":
            return chw
        mean, factor = self._normalize
        if self._mean_img is not None:
            mean = self._mean_img
        return (chw.astype(numpy.float32) - mean) * factor

    def _decode(self, payload):
        from PIL import Image

        with Image.open(io.BytesIO(payload)) as image:
            image = image.convert("RGB" if self.data_shape[0] == 3 else "L")
            img = numpy.asarray(image)
        return img if img.ndim == 3 else img[:, :, None]

    def _cropped(self, img):
        opts = self._crop
        _, height, width = self.data_shape
        if opts["resize"] > 0:
            rows, cols = img.shape[:2]
            size = opts["resize"]
            new = (size * rows // cols, size) if rows > cols else (size, size * cols // rows)
            img = self._resize(img, new[1], new[0])
        if opts["pad"] > 0:
            p = opts["pad"]
            img = numpy.pad(img, ((p, p), (p, p), (0, 0)), constant_values=opts["fill"])
        if img.shape[0] < height:
            img = self._resize(img, int(height / img.shape[0] * img.shape[1]), height)
        if img.shape[1] < width:
            img = self._resize(img, width, int(width / img.shape[1] * img.shape[0]))
        y, x = img.shape[0] - height, img.shape[1] - width
        if opts["rand_crop"]:
            y, x = self._rng.randint(0, y + 1), self._rng.randint(0, x + 1)
        else:
            y, x = y // 2, x // 2
        return img[y:y + height, x:x + width]

    def _resize(self, img, width, height):
        out = kernels.resize(img, width, height, self._crop["interp"])
        return out if out.ndim == 3 else out[:, :, None]


class ImageRecordUInt8Iter(ImageRecordIter):
    """:class:`ImageRecordIter` yielding uint8 images (no normalisation), as MXNet's."""

    _dtype = "uint8"
