"""Samplers: the index order of a DataLoader, and its batching (``last_batch`` modes)."""
import numpy

from ...base import MXNetValueError

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "BatchSampler", "FilterSampler",
           "IntervalSampler"]


class Sampler:
    """Base class: iterates indices."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


class SequentialSampler(Sampler):
    """``start, start + 1, ..., start + length - 1``."""

    def __init__(self, length, start=0):
        self._length, self._start = length, start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

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


class FilterSampler(Sampler):
    """The indices of ``dataset``'s samples for which ``fn(sample)`` is true (found once)."""

    def __init__(self, fn, dataset):
        self._indices = [i for i in range(len(dataset)) if fn(dataset[i])]

    def __iter__(self):
        return iter(self._indices)

    def __len__(self):
        return len(self._indices)


class IntervalSampler(Sampler):
    """Every ``interval``-th index of ``range(length)``; with ``rollover`` the skipped ones follow
    in further passes (``0, 3, 6, ..., 1, 4, 7, ...``)."""

    def __init__(self, length, interval, rollover=True):
        if not 0 < interval <= length:
            raise MXNetValueError(f"IntervalSampler: interval {interval} must be in (0, length "
                                  f"{length}]")
        self._length, self._interval, self._rollover = length, interval, rollover

    def __iter__(self):
        for first in range(self._interval if self._rollover else 1):
            yield from range(first, self._length, self._interval)

    def __len__(self):
        return self._length if self._rollover else len(range(0, self._length, self._interval))
