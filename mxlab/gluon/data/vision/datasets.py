"""Vision datasets read from local files in MXNet's formats: MNIST / Fashion-MNIST (idx gz),
CIFAR-10/100 (binary batches), image folders and image lists.

Nothing is downloaded: a missing file raises an error naming the file and the folder to place it
in (``root`` defaults to ``$MXNET_HOME/datasets/<name>`` as in MXNet).
"""
import gzip
import os
import shutil
import struct
import tarfile
import warnings

import numpy

from ....atomic_file import atomic_write
from ....base import MXNetFileNotFoundError, MXNetValueError, data_dir
from ..dataset import Dataset, RecordFileDataset

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset",
           "ImageFolderDataset", "ImageListDataset"]


def _default_root(name):
    return os.path.join(data_dir(), "datasets", name)


def _extract(archive, root):
    """Unpack the files and folders of ``archive`` into ``root`` (tar's "data" filter: nothing
    outside ``root``), each file through the atomic writer: an unpack killed half-way never leaves
    a truncated batch file that a later run would take as complete."""
    with tarfile.open(archive) as tar:
        for member in tar:
            member = tarfile.data_filter(member, root)
            path = os.path.join(root, member.name)
            if member.isdir():
                os.makedirs(path, exist_ok=True)
            elif member.isfile():
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with tar.extractfile(member) as src, atomic_write(path) as dst:
                    shutil.copyfileobj(src, dst)


def _require(root, filename, dataset, source):
    path = os.path.join(os.path.expanduser(root), filename)
    if not os.path.exists(path):
        raise MXNetFileNotFoundError(
            f"{dataset}: {path} not found. mxlab does not download datasets: place "
            f"{filename} ({source}) in {os.path.expanduser(root)} or pass root=")
    return path


def _array(values):
    from .... import numpy as mx_np
    from ....util import is_np_array

    from ....ndarray import array as nd_array
    return (mx_np.array if is_np_array() else nd_array)(values, dtype=values.dtype)


class _LocalDataset(Dataset):
    """Samples ``(data[i], label[i])``, with an optional (deprecated) ``transform(data, label)``."""

    def __init__(self, root, transform):
        self._root, self._transform = os.path.expanduser(root), transform
        self._data, self._label = self._load()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


class MNIST(_LocalDataset):
    """MNIST handwritten digits: ``(28, 28, 1)`` uint8 images, int32 labels."""

    _files = {True: ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
              False: ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}
    _source = "the MNIST idx files"

    def __init__(self, root=None, train=True, transform=None):
        self._train = train
        super().__init__(root or _default_root(self._namespace()), transform)

    @classmethod
    def _namespace(cls):
        return "mnist" if cls is MNIST else "fashion-mnist"

    def _load(self):
        images, labels = (_require(self._root, name, type(self).__name__, self._source)
                          for name in self._files[self._train])
        with gzip.open(labels, "rb") as fin:
            struct.unpack(">II", fin.read(8))
            label = numpy.frombuffer(fin.read(), dtype=numpy.uint8).astype(numpy.int32)
        with gzip.open(images, "rb") as fin:
            _, count, rows, cols = struct.unpack(">IIII", fin.read(16))
            data = numpy.frombuffer(fin.read(), dtype=numpy.uint8)
        if count != len(label) or data.size != count * rows * cols:
            raise MXNetValueError(f"{type(self).__name__}: {images} holds {data.size} bytes "
                                  f"for {count} images of {rows}x{cols} and {len(label)} labels")
        return _array(data.reshape(count, rows, cols, 1)), label


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST, in MNIST's file format and layout."""

    _source = "the Fashion-MNIST idx files"


class CIFAR10(_LocalDataset):
    """CIFAR-10 from its binary batches (or the ``cifar-10-binary.tar.gz`` archive, unpacked on
    first use): ``(32, 32, 3)`` uint8 images, int32 labels."""

    _archive = "cifar-10-binary.tar.gz"
    _train_files = [f"data_batch_{i}.bin" for i in range(1, 6)]
    _test_files = ["test_batch.bin"]
    _label_bytes = 1

    def __init__(self, root=None, train=True, transform=None):
        self._train = train
        super().__init__(root or _default_root(type(self).__name__.lower()), transform)

    def _label_column(self):
        return 0

    def _batch_path(self, name):
        direct = os.path.join(self._root, name)
        if os.path.exists(direct):
            return direct
        for found, _, files in os.walk(self._root):
            if name in files:
                return os.path.join(found, name)
        archive = _require(self._root, self._archive, type(self).__name__,
                           f"the binary version of {type(self).__name__}")
        _extract(archive, self._root)
        return self._batch_path(name)

    def _load(self):
        width = 3072 + self._label_bytes
        parts = [numpy.fromfile(self._batch_path(name), dtype=numpy.uint8).reshape(-1, width)
                 for name in (self._train_files if self._train else self._test_files)]
        raw = numpy.concatenate(parts)
        data = raw[:, self._label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        return _array(numpy.ascontiguousarray(data)), \
            raw[:, self._label_column()].astype(numpy.int32)


class CIFAR100(CIFAR10):
    """CIFAR-100 (``fine_label=True`` for the 100 fine classes, else the 20 coarse ones)."""

    _archive = "cifar-100-binary.tar.gz"
    _train_files = ["train.bin"]
    _test_files = ["test.bin"]
    _label_bytes = 2

    def __init__(self, root=None, fine_label=False, train=True, transform=None):
        self._fine_label = fine_label
        super().__init__(root, train, transform)

    def _label_column(self):
        return int(bool(self._fine_label))


class ImageFolderDataset(Dataset):
    """Images under ``root/<class name>/<file>``; labels number the class folders in sorted
    order (``synsets``); ``items`` lists ``(path, label)``."""

    _exts = (".jpg", ".jpeg", ".png")

    def __init__(self, root, flag=1, transform=None):
        self._root, self._flag, self._transform = os.path.expanduser(root), flag, transform
        if not os.path.isdir(self._root):
            raise MXNetFileNotFoundError(f"ImageFolderDataset: {self._root} is not a directory")
        self.synsets, self.items = [], []
        for folder in sorted(os.listdir(self._root)):
            path = os.path.join(self._root, folder)
            if not os.path.isdir(path):
                warnings.warn(f"Ignoring {path}, which is not a directory.", stacklevel=2)
                continue
            self._add_class(folder, path)

    def _add_class(self, folder, path):
        label = len(self.synsets)
        self.synsets.append(folder)
        for filename in sorted(os.listdir(path)):
            if os.path.splitext(filename)[1].lower() in self._exts:
                self.items.append((os.path.join(path, filename), label))
            else:
                warnings.warn(f"Ignoring {filename}: only {', '.join(self._exts)} are read",
                              stacklevel=3)

    def __getitem__(self, idx):
        from .... import image

        img = image.imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        return self._transform(img, label) if self._transform is not None else (img, label)

    def __len__(self):
        return len(self.items)


class ImageListDataset(Dataset):
    """Images named by a list: ``imglist`` is a ``.lst`` file (index, label..., path, tab
    separated) or a list of ``(label, path)`` / ``[path, label...]`` entries under ``root``."""

    def __init__(self, root=".", imglist=None, flag=1):
        self._root, self._flag = os.path.expanduser(root), flag
        if isinstance(imglist, str):
            with open(imglist) as fin:
                rows = [line.strip().split("\t") for line in fin if line.strip()]
            self.items = [(row[-1], numpy.array(row[1:-1], dtype=numpy.float32)) for row in rows]
        elif imglist is not None:
            self.items = [(item[-1], item[0]) if not isinstance(item[0], str)
                          else (item[0], item[1:]) for item in imglist]
        else:
            raise MXNetValueError("ImageListDataset: imglist (a .lst path or a list) is required")

    def __getitem__(self, idx):
        from .... import image

        path, label = self.items[idx]
        return image.imread(os.path.join(self._root, path), self._flag), label

    def __len__(self):
        return len(self.items)


class ImageRecordDataset(RecordFileDataset):
    """Images of a RecordIO file (``mx.recordio.pack_img``) with their header labels: sample
    ``i`` is ``(HWC uint8 image, label)``; ``flag`` 1 decodes RGB, 0 grayscale."""

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        if transform is not None:
            raise DeprecationWarning("Directly apply transform to dataset is deprecated. Please "
                                     "use dataset.transform() or dataset.transform_first() "
                                     "instead...")
        self._flag = flag

    def __getitem__(self, idx):
        from .... import image, recordio

        header, payload = recordio.unpack(super().__getitem__(idx))
        return image.imdecode(payload, self._flag), header.label
