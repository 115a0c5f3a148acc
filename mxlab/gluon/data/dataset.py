"""Datasets: anything with ``__getitem__`` and ``__len__``.

Example
-------
>>> import mxlab as mx
>>> ds = mx.gluon.data.ArrayDataset([1, 2, 3], [4, 5, 6])
>>> len(ds), ds[1]
(3, (2, 5))
"""
import os

from ...base import MXNetFileNotFoundError, MXNetTypeError, MXNetValueError

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset:
    """Base class; ``transform``/``transform_first`` give lazily mapped views."""

    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __len__")

    def transform(self, fn, lazy=True):
        """A dataset of ``fn(*sample)`` (``fn(sample)`` for single-item samples)."""
        mapped = _TransformedDataset(self, fn)
        return mapped if lazy else SimpleDataset([mapped[i] for i in range(len(mapped))])

    def transform_first(self, fn, lazy=True):
        """Apply ``fn`` to the first element of each sample only."""
        def first(*sample):
            return (fn(sample[0]),) + sample[1:] if len(sample) > 1 else fn(sample[0])
        return self.transform(first, lazy)

    def filter(self, fn):
        """The samples for which ``fn(sample)`` is true (decided once, here)."""
        from .sampler import FilterSampler

        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """Part ``index`` of ``num_shards`` contiguous parts (sizes differ by at most one; shard
        before shuffling so every worker gets a distinct part)."""
        if num_shards <= 0 or not 0 <= index < num_shards:
            raise MXNetValueError(f"shard: index {index} must be in [0, num_shards "
                                  f"{num_shards})")
        size, rest = divmod(len(self), num_shards)
        start = size * index + min(index, rest)
        return self._slice(start, size + (index < rest))

    def take(self, count):
        """The first ``count`` samples (all of them when ``count`` is None or larger)."""
        count = len(self) if count is None or count > len(self) else count
        return self._slice(0, count)

    def sample(self, sampler):
        """The samples at the indices ``sampler`` yields."""
        from .sampler import Sampler

        if not isinstance(sampler, Sampler):
            raise MXNetTypeError(f"sample: sampler must be a gluon.data.Sampler, got "
                                 f"{type(sampler).__name__}")
        return _SampledDataset(self, sampler)

    def _slice(self, start, length):
        from .sampler import SequentialSampler

        return _SampledDataset(self, SequentialSampler(length, start))


class _SampledDataset(Dataset):
    """The samples of ``data`` at the indices of ``sampler`` (read once)."""

    def __init__(self, data, sampler):
        self._data, self._indices = data, list(sampler)

    def __len__(self):
        return len(self._indices)

    def __getitem__(self, idx):
        return self._data[self._indices[idx]]


class _TransformedDataset(Dataset):
    def __init__(self, data, fn):
        self._data, self._fn = data, fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        return self._fn(*item) if isinstance(item, tuple) else self._fn(item)


class SimpleDataset(Dataset):
    """Wraps any sequence (list, array)."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class ArrayDataset(Dataset):
    """Zips equally long sequences: sample ``i`` is ``(a[i], b[i], ...)`` (``a[i]`` for one).

    A one-dimensional mxlab array is kept as a NumPy array, as MXNet does, so its samples are
    NumPy scalars (which the default batchify stacks to shape ``(batch,)``), not arrays of shape
    ``(1,)`` (what indexing an ``mx.nd`` array gives).
    """

    def __init__(self, *args):
        from ...ndarray.ndarray import NDArray

        if not args:
            raise MXNetValueError("ArrayDataset needs at least 1 array")
        self._length = len(args[0])
        for i, data in enumerate(args):
            if len(data) != self._length:
                raise MXNetValueError(
                    f"All arrays must have the same length; array[0] has length {self._length} "
                    f"while array[{i}] has {len(data)}."
                )
        self._data = tuple(data.asnumpy() if isinstance(data, NDArray) and data.ndim == 1
                           else data for data in args)

    def __len__(self):
        return self._length

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)


class RecordFileDataset(Dataset):
    """The records of a RecordIO file, as raw bytes, in the order of its index file (the
    ``.idx`` next to ``filename``, as MXNet's)."""

    def __init__(self, filename):
        from ... import recordio

        self.filename = filename
        self.idx_file = os.path.splitext(filename)[0] + ".idx"
        for path in (filename, self.idx_file):
            if not os.path.isfile(path):
                raise MXNetFileNotFoundError(f"{type(self).__name__}: {path!r} not found")
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, "r")

    def __getitem__(self, idx):
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self):
        return len(self._record.keys)
