"""Iterators over files: ``CSVIter`` and ``MNISTIter`` (read with NumPy, batched like
:class:`~mxlab.io.io.NDArrayIter`); ``LibSVMIter`` (sparse) is not built. RecordIO image
iterators are in :mod:`mxlab.io.image_record`."""
import gzip
import struct

import numpy

from ..base import MXNetFileNotFoundError, MXNetNotImplementedError, MXNetValueError
from ..ndarray.ndarray import NDArray, array
from .io import DataBatch, NDArrayIter

__all__ = ["CSVIter", "MNISTIter", "LibSVMIter"]


def _read_csv(path, shape, what):
    try:
        values = numpy.loadtxt(path, delimiter=",", dtype=numpy.float64, ndmin=2)
    except OSError:
        raise MXNetFileNotFoundError(f"CSVIter: {what} file {path!r} not found") from None
    width = int(numpy.prod(shape))
    if values.shape[1] != width:
        raise MXNetValueError(f"CSVIter: rows of {path!r} hold {values.shape[1]} values, "
                              f"{what}_shape {tuple(shape)} needs {width}")
    return values.reshape((-1,) + tuple(shape))


class _BackendIter(NDArrayIter):
    """MXNet's C++ iterators (``MXDataIter``): ``getdata()``/``getlabel()`` give the current
    batch's one array, not a list; batches still hold lists."""

    def getdata(self):
        return NDArrayIter.getdata(self)[0]

    def getlabel(self):
        return NDArrayIter.getlabel(self)[0]

    def next(self):
        if not self.iter_next():
            raise StopIteration
        data, label = NDArrayIter.getdata(self), NDArrayIter.getlabel(self)
        if data[0].shape[self._axis] != self.batch_size:   # NOTE: 'discard' drops it
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)


class CSVIter(_BackendIter):
    """Rows of ``data_csv`` reshaped to ``data_shape`` (labels from ``label_csv`` or zeros);
    ``round_batch`` pads the last batch from the start, else it is dropped."""

    def __init__(self, data_csv, data_shape, label_csv=None, label_shape=(1,), batch_size=1,
                 round_batch=True, dtype="float32", **kwargs):
        # NOTE: an NDArray source keeps ``dtype`` (NDArrayIter makes NumPy sources float32)
        data = array(_read_csv(data_csv, data_shape, "data"), dtype=dtype, cls=NDArray)
        label = (_read_csv(label_csv, label_shape, "label").astype(numpy.float32)
                 if label_csv is not None
                 else numpy.zeros((len(data),) + tuple(label_shape), numpy.float32))
        if label.shape[-1] == 1 and tuple(label_shape) == (1,):
            label = label.reshape(-1)
        super().__init__(data, label, batch_size,
                         last_batch_handle="pad" if round_batch else "discard",
                         **_names(kwargs))


def _names(kwargs):
    """The input names every MXNet C++ iterator takes (``label_name='sm_label'``)."""
    return {k: kwargs[k] for k in ("data_name", "label_name") if k in kwargs}


def _open(path):
    try:
        return gzip.open(path, "rb") if str(path).endswith(".gz") else open(path, "rb")
    except OSError:
        raise MXNetFileNotFoundError(f"MNISTIter: {path!r} not found (mxlab does not "
                                     f"download data sets)") from None


class MNISTIter(_BackendIter):
    """MNIST idx files (``image``, ``label``; raw or .gz) as float32 in [0, 1], shape
    (N, 1, 28, 28) or (N, 784) with ``flat``; shuffled with ``seed`` when ``shuffle``."""

    def __init__(self, image, label, batch_size=128, shuffle=True, flat=False, seed=0,
                 silent=False, num_parts=1, part_index=0, **kwargs):
        with _open(label) as fin:
            struct.unpack(">II", fin.read(8))
            labels = numpy.frombuffer(fin.read(), dtype=numpy.uint8).astype(numpy.float32)
        with _open(image) as fin:
            _, count, rows, cols = struct.unpack(">IIII", fin.read(16))
            pixels = numpy.frombuffer(fin.read(), dtype=numpy.uint8)
        images = pixels.reshape(count, 1, rows, cols).astype(numpy.float32) / 255.0
        if flat:
            images = images.reshape(count, rows * cols)
        part = slice(part_index * count // num_parts, (part_index + 1) * count // num_parts)
        images, labels = images[part], labels[part]
        if shuffle:
            order = numpy.random.RandomState(seed).permutation(len(labels))
            images, labels = images[order], labels[order]
        super().__init__(images, labels, batch_size, last_batch_handle="pad", **_names(kwargs))


def LibSVMIter(*args, **kwargs):   # noqa: N802 - MXNet's name
    """Not built: LibSVM files are sparse (CSR), and mxlab arrays are dense only."""
    raise MXNetNotImplementedError("mx.io.LibSVMIter: sparse (LibSVM) data is not supported in "
                                   "mxlab; mxlab arrays are dense only")
