"""Samplers: the index order of a DataLoader, and its batching (``last_batch`` modes)."""
import numpy

from ...base import MXNetValueError

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "BatchSampler"]


class Sampler:
    """Base class: iterates indices."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


class SequentialSampler(Sampler):
    """``0, 1, ..., length - 1``."""

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        return iter(range(self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A fresh random permutation on each pass (NumPy's global generator)."""

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        return iter(numpy.random.permutation(self._length).tolist())

    def __len__(self):
        return self._length


class BatchSampler(Sampler):
    """Groups indices into batches; ``last_batch``: ``keep`` (short last batch), ``discard`` or
    ``rollover`` (carry the leftover into the next pass)."""

    def __init__(self, sampler, batch_size, last_batch="keep"):
        if last_batch not in ("keep", "discard", "rollover"):
            raise MXNetValueError(
                f"last_batch must be one of 'keep', 'discard', or 'rollover', but got {last_batch}"
            )
        self._sampler, self._batch_size, self._last_batch = sampler, batch_size, last_batch
        self._prev = []

    def __iter__(self):
        batch, self._prev = self._prev, []
        for index in self._sampler:
            batch.append(index)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == "keep":
                yield batch
            elif self._last_batch == "rollover":
                self._prev = batch

    def __len__(self):
        size = len(self._sampler)
        if self._last_batch == "keep":
            return (size + self._batch_size - 1) // self._batch_size
        if self._last_batch == "discard":
            return size // self._batch_size
        return (len(self._prev) + size) // self._batch_size
