"""MXNet 1.9.1's smaller ``mx.test_utils`` helpers: identity matrices, random 2-d coordinates,
``DummyIter`` (one batch forever), ``is_aarch64_run`` and the data-set getters its tests call
(``get_mnist``, ``get_mnist_ubyte``, ``get_mnist_iterator``, ``get_cifar10``, ``get_zip_data``,
``get_bz2_data``), which use files already in place and otherwise try MXNet's download address."""
import bz2
import gzip
import os
import struct
import platform
import zipfile

import numpy as np

from .. import io as _io
from ..atomic_file import atomic_write
from ..ndarray.ndarray import array
from .helpers import download

__all__ = ["get_identity_mat", "get_identity_mat_batch", "rand_coord_2d", "is_aarch64_run",
           "DummyIter", "get_mnist", "get_mnist_pkl", "get_mnist_ubyte", "get_mnist_iterator",
           "get_cifar10", "get_zip_data", "get_bz2_data"]


def get_identity_mat(size):
    """A ``size x size`` identity matrix as an ``mx.nd`` array.

    >>> get_identity_mat(2).asnumpy().tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    out = array(np.zeros((size, size), np.float32))
    for i in range(size):
        out[i, i] = 1
    return out


def get_identity_mat_batch(size):
    """Two stacked :func:`get_identity_mat` matrices, shape ``(2, size, size)``."""
    eye = get_identity_mat(size).asnumpy()
    return array([eye, eye])


def rand_coord_2d(x_low, x_high, y_low, y_high):
    """A random int64 point ``(x, y)`` with ``x`` in ``[x_low, x_high)``, ``y`` in
    ``[y_low, y_high)``."""
    x = np.random.randint(x_low, x_high, dtype=np.int64)
    y = np.random.randint(y_low, y_high, dtype=np.int64)
    return x, y


def is_aarch64_run():
    """Whether the tests run on an aarch64 machine."""
    return platform.machine() == "aarch64"


class DummyIter(_io.DataIter):
    """Returns the first batch of ``real_iter`` forever (for speed tests); never stops."""

    def __init__(self, real_iter):
        super().__init__()
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(real_iter)

    def __iter__(self):
        return self

    def next(self):
        """The first batch of the real iterator, every time."""
        return self.the_batch


def _unzip_unless_present(url, path, names):
    """Make ``path``; unless every one of ``names`` exists there, fetch ``url`` and unzip it."""
    os.makedirs(path, exist_ok=True)
    if not all(os.path.exists(os.path.join(path, n)) for n in names):
        with zipfile.ZipFile(download(url, dirname=path)) as zf:
            zf.extractall(path)


def get_mnist_ubyte(path="data"):
    """MNIST's four idx files in ``path`` (fetched from MXNet's data site when missing)."""
    _unzip_unless_present("http://data.mxnet.io/mxnet/data/mnist.zip", path,
                          ["train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                           "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"])


_MNIST_URL = "http://data.mxnet.io/data/mnist/"


def _read_mnist(labels, images):
    """``(label int8 (n,), image float32 (n, 1, 28, 28) in [0, 1])`` from two gzipped idx files."""
    with gzip.open(download(_MNIST_URL + labels)) as flbl:
        struct.unpack(">II", flbl.read(8))
        label = np.frombuffer(flbl.read(), dtype=np.int8)
    with gzip.open(download(_MNIST_URL + images), "rb") as fimg:
        _, _, rows, cols = struct.unpack(">IIII", fimg.read(16))
        image = np.frombuffer(fimg.read(), dtype=np.uint8).reshape(len(label), 1, rows, cols)
    return label, image.astype(np.float32) / 255


def get_mnist():
    """MNIST as a dict of NumPy arrays (``train_data``, ``train_label``, ``test_data``,
    ``test_label``), read from the four ``*-idx?-ubyte.gz`` files in the current directory
    (fetched when missing, as MXNet does)."""
    train_lbl, train_img = _read_mnist("train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz")
    test_lbl, test_img = _read_mnist("t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz")
    return {"train_data": train_img, "train_label": train_lbl,
            "test_data": test_img, "test_label": test_lbl}


def get_mnist_pkl():
    """``data/mnist.pkl.gz`` (fetched when missing)."""
    os.makedirs("data", exist_ok=True)
    if not os.path.exists("data/mnist.pkl.gz"):
        download("http://deeplearning.net/data/mnist/mnist.pkl.gz", dirname="data")


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """``(train, val)`` :class:`mx.io.MNISTIter` over ``data/*-ubyte`` (see
    :func:`get_mnist_ubyte`); images come flat unless ``input_shape`` has three dimensions."""
    get_mnist_ubyte()
    flat = len(input_shape) != 3
    common = dict(input_shape=input_shape, batch_size=batch_size, flat=flat,
                  num_parts=num_parts, part_index=part_index)
    train = _io.MNISTIter(image="data/train-images-idx3-ubyte",
                          label="data/train-labels-idx1-ubyte", shuffle=True, **common)
    val = _io.MNISTIter(image="data/t10k-images-idx3-ubyte",
                        label="data/t10k-labels-idx1-ubyte", **common)
    return train, val


def get_cifar10(path="data"):
    """CIFAR-10's RecordIO files in ``path/cifar`` (fetched when missing)."""
    _unzip_unless_present("http://data.mxnet.io/mxnet/data/cifar10.zip", path,
                          [os.path.join("cifar", f"{part}.{ext}") for part in ("train", "test")
                           for ext in ("rec", "lst")])


def get_zip_data(data_dir, url, data_origin_name):
    """Unzip ``data_dir/data_origin_name`` into ``data_dir``, fetching it from ``url`` first
    when missing."""
    path = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(path):
        download(url, dirname=data_dir, overwrite=False)
        with zipfile.ZipFile(path) as zf:
            zf.extractall(path=data_dir)


def get_bz2_data(data_dir, data_name, url, data_origin_name):
    """``data_dir/data_name``, the decompressed ``data_origin_name`` fetched from ``url``
    (kept when already there)."""
    target = os.path.join(data_dir, data_name)
    if os.path.exists(target):
        return
    origin = os.path.join(data_dir, data_origin_name)
    download(url, fname=data_origin_name, dirname=data_dir, overwrite=False)
    with bz2.BZ2File(origin, "rb") as src, atomic_write(target) as dst:
        for line in src:
            dst.write(line)
    os.remove(origin)
